/*
 * wsync: one synchronous ReadFile()/WriteFile() per I/O, done inside
 * submit() - the Windows analogue of psync.
 *
 * Targets are opened overlapped (platform/win/file.c), since positional
 * I/O on Windows is an OVERLAPPED with an offset in any case: the engine
 * issues the I/O and waits for it at once with GetOverlappedResult on an
 * event of its own, so exactly one I/O per job is in flight, as with
 * pread/pwrite. Completed slots wait in a small FIFO until reap() hands
 * them back.
 */
#include "core/engine.h"

#include <errno.h>

#include "nvbench.h"

#ifdef _WIN32
#include "engines/done.h"
#include "engines/win/wio.h"

struct wsync {
    struct nvb__sync s;     /* first: the shared sync state */
    HANDLE ev;
};

static void wsync_teardown(void *state)
{
    struct wsync *p = state;
    if (p && p->ev)
        CloseHandle(p->ev);
    nvb__sync_free(p);
}

static int wsync_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    struct wsync *p = nvb__sync_new(ctx, sizeof *p, "wsync");
    if (!p)
        return -ENOMEM;
    p->ev = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (!p->ev) {
        int e = nvb__win_errno(GetLastError());
        wsync_teardown(p);
        nvb__why(ctx->why, ctx->why_len, "wsync: CreateEvent failed");
        return e;
    }
    nvb__wio_used_stack(ctx);
    *state = p;
    return 0;
}

static int64_t do_io(void *state, const struct nvb__io *io)
{
    const struct wsync *p = state;
    if (io->target >= p->s.nfds)
        return -EBADF;
    HANDLE h = nvb__win_handle(p->s.fds[io->target]);
    OVERLAPPED ov;
    if (!nvb__wio_issue(h, io, &ov, p->ev) && GetLastError() != ERROR_IO_PENDING)
        return nvb__wio_error(GetLastError());
    /* A short transfer is this I/O's result, reported as is. */
    return nvb__wio_result(h, &ov, TRUE);
}

static int wsync_submit(void *state, struct nvb__io **ios, unsigned n)
{
    return nvb__sync_submit(state, ios, n, do_io);
}

#endif /* _WIN32 */

NVB__ENGINE_DEFINE(wsync, NVB__ENG_SYNC, nvb__engine_no_opts,
    "Windows ReadFile/WriteFile, one synchronous I/O at a time (the psync analogue)",
    NVB__ENGINE_IF(NVB__WINDOWS, "Windows only (ReadFile/WriteFile); psync is the Linux analogue",
        .probe = nvb__engine_probe_ok, .setup = wsync_setup, .submit = wsync_submit, .reap = nvb__sync_reap,
        .teardown = wsync_teardown));
