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
#include <stdlib.h>

#include "nvbench.h"

#ifdef _WIN32
#include <string.h>

#include "platform/win/win.h"

struct wsync {
    const int *fds;
    unsigned nfds;
    HANDLE ev;
    unsigned cap;       /* power of two >= qd */
    unsigned head, tail;
    struct nvb__io *done[];
};

static int wsync_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    unsigned cap = 1, qd = ctx->qd ? ctx->qd : 1;
    while (cap < qd)
        cap <<= 1;
    struct wsync *p = calloc(1, sizeof(*p) + cap * sizeof(p->done[0]));
    if (!p) {
        nvb__why(ctx->why, ctx->why_len, "wsync: out of memory");
        return -ENOMEM;
    }
    p->ev = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (!p->ev) {
        int e = nvb__win_errno(GetLastError());
        free(p);
        nvb__why(ctx->why, ctx->why_len, "wsync: CreateEvent failed");
        return e;
    }
    p->fds = ctx->fds;
    p->nfds = ctx->nfds;
    p->cap = cap;
    if (ctx->nfds && ctx->used) {
        char stack[32], detail[96];
        nvb__win_stack_of(nvb__win_handle(ctx->fds[0]), stack, sizeof stack, detail, sizeof detail);
        nvb__used_set(ctx->used, "stack", "%s", stack);
        nvb__used_set(ctx->used, "stack_detail", "%s", detail);
    }
    *state = p;
    return 0;
}

static int64_t do_io(const struct wsync *p, const struct nvb__io *io)
{
    if (io->target >= p->nfds)
        return -EBADF;
    HANDLE h = nvb__win_handle(p->fds[io->target]);
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    ov.Offset = (DWORD)io->off;
    ov.OffsetHigh = (DWORD)(io->off >> 32);
    ov.hEvent = p->ev;
    BOOL ok = io->dir == NVB_WRITE ? WriteFile(h, io->buf, io->len, NULL, &ov)
                                   : ReadFile(h, io->buf, io->len, NULL, &ov);
    DWORD n = 0;
    if (!ok && GetLastError() != ERROR_IO_PENDING)
        return GetLastError() == ERROR_HANDLE_EOF ? 0 : nvb__win_errno(GetLastError());
    /* A short transfer is this I/O's result, reported as is. */
    if (!GetOverlappedResult(h, &ov, &n, TRUE))
        return GetLastError() == ERROR_HANDLE_EOF ? 0 : nvb__win_errno(GetLastError());
    return (int64_t)n;
}

static int wsync_submit(void *state, struct nvb__io **ios, unsigned n)
{
    struct wsync *p = state;
    if (p->tail - p->head + n > p->cap)
        return -EOVERFLOW;
    for (unsigned i = 0; i < n; i++) {
        ios[i]->res = do_io(p, ios[i]);
        p->done[p->tail++ & (p->cap - 1)] = ios[i];
    }
    return 0;
}

static int wsync_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct wsync *p = state;
    (void)min; /* everything submitted is already complete */
    unsigned n = 0;
    while (n < max && p->head != p->tail)
        out[n++] = p->done[p->head++ & (p->cap - 1)];
    return (int)n;
}

static void wsync_teardown(void *state)
{
    struct wsync *p = state;
    if (!p)
        return;
    CloseHandle(p->ev);
    free(p);
}

#endif /* _WIN32 */

NVB__ENGINE_DEFINE(wsync, NVB__ENG_SYNC, nvb__engine_no_opts,
    "Windows ReadFile/WriteFile, one synchronous I/O at a time (the psync analogue)",
    NVB__ENGINE_IF(NVB__WINDOWS, "Windows only (ReadFile/WriteFile); psync is the Linux analogue",
        .probe = nvb__engine_probe_ok, NVB__ENGINE_OPS(wsync)));
