/*
 * iocp: overlapped ReadFile()/WriteFile() completed through an I/O
 * completion port - how Windows storage benchmarks (DiskSpd, fio's
 * windowsaio) drive a queue depth above 1.
 *
 *  - One completion port per job, created in setup() on the job thread;
 *    the job's target handles (opened FILE_FLAG_OVERLAPPED by the runner)
 *    are associated with it.
 *  - submit() issues each I/O at once (Windows has no deferred batch
 *    submission for overlapped I/O); one OVERLAPPED per slot lives in the
 *    engine state, indexed by io->slot, so the hot path allocates nothing.
 *  - reap() drains completions in batches with GetQueuedCompletionStatusEx:
 *    one system call returns up to `max` of them.
 *
 * Time stamps, per I/O: each I/O is stamped just before its own
 * ReadFile/WriteFile (a batch stamp would charge the later I/Os of a
 * batch with the issue time of the earlier ones, a few microseconds per
 * call), and each completion with the clock read right after the
 * GetQueuedCompletionStatusEx call that took it off the port (or after
 * the ReadFile/WriteFile that completed it, with skip_on_success). The
 * completions one call returns get that call's time: they became visible
 * together and the packets carry no time of completion, so nothing finer
 * exists; the stamp includes none of the work done on the entries
 * afterwards, nor a later call made in the same reap(). iocp.batch=1
 * takes one completion per call, each with its own stamp.
 *
 * iocp.skip_on_success=1 sets FILE_SKIP_COMPLETION_PORT_ON_SUCCESS on the
 * handles: an I/O that completes inside ReadFile/WriteFile (a cache hit,
 * or a very fast device) then posts no packet and is handed back by the
 * next reap() without a trip through the port.
 */
#include "core/engine.h"

#include <errno.h>
#include <stdlib.h>

#include "nvbench.h"

enum { OPT_SKIP_ON_SUCCESS, OPT_BATCH };

static const struct nvb__optdef iocp_opts[] = {
    [OPT_SKIP_ON_SUCCESS] = { "skip_on_success", NVB__OPT_BOOL, 0, 0, 1,
        "FILE_SKIP_COMPLETION_PORT_ON_SUCCESS: I/O completed inside ReadFile/WriteFile posts no packet" },
    [OPT_BATCH] = { "batch", NVB__OPT_INT, 0, 0, 65536,
        "most completions taken per GetQueuedCompletionStatusEx call (0: qd)" },
    { NULL, 0, 0, 0, 0, NULL },
};

#ifdef _WIN32
#include "engines/done.h"
#include "engines/win/wio.h"
#include "platform/platform.h"

struct slot {
    OVERLAPPED ov;      /* first: a packet's lpOverlapped is the slot */
    struct nvb__io *io;
};

struct iocp {
    HANDLE port;
    const int *fds;
    unsigned nfds, qd, batch;
    const uint64_t *wait_ns;         /* bound of one wait (ctx->wait_ns, read at each wait) */
    int skip;
    unsigned pending;                /* issued, packet not yet taken */
    struct slot *slots;              /* qd, by io->slot */
    OVERLAPPED_ENTRY *ents;          /* batch */
    struct nvb__done done;           /* completed without a packet */
};

static void iocp_teardown(void *state);

static int iocp_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    unsigned qd = ctx->qd ? ctx->qd : 1;
    struct iocp *e = calloc(1, sizeof *e);
    if (!e) {
        nvb__why(ctx->why, ctx->why_len, "out of memory");
        return -ENOMEM;
    }
    e->fds = ctx->fds;
    e->nfds = ctx->nfds;
    e->qd = qd;
    e->batch = ctx->opts[OPT_BATCH] ? (unsigned)ctx->opts[OPT_BATCH] : qd;
    e->wait_ns = ctx->wait_ns;
    e->slots = calloc(qd, sizeof *e->slots);
    e->ents = calloc(e->batch, sizeof *e->ents);
    if (nvb__done_init(&e->done, qd) < 0 || !e->slots || !e->ents) {
        iocp_teardown(e);
        nvb__why(ctx->why, ctx->why_len, "out of memory");
        return -ENOMEM;
    }
    /* Concurrency 1: only this job's thread waits on the port. */
    e->port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);
    if (!e->port) {
        int rc = nvb__win_errno(GetLastError());
        nvb__why(ctx->why, ctx->why_len, "CreateIoCompletionPort failed (Windows error %lu)", GetLastError());
        iocp_teardown(e);
        return rc;
    }
    for (unsigned t = 0; t < e->nfds; t++) {
        HANDLE h = nvb__win_handle(e->fds[t]);
        if (CreateIoCompletionPort(h, e->port, (ULONG_PTR)t, 0) != e->port) {
            DWORD err = GetLastError();
            nvb__why(ctx->why, ctx->why_len, "cannot associate target %u with the completion port (Windows error %lu)",
                     t, (unsigned long)err);
            iocp_teardown(e);
            return nvb__win_errno(err);
        }
    }
    if (ctx->opts[OPT_SKIP_ON_SUCCESS]) {
        e->skip = 1;
        for (unsigned t = 0; t < e->nfds; t++)
            if (!SetFileCompletionNotificationModes(nvb__win_handle(e->fds[t]),
                                                    FILE_SKIP_COMPLETION_PORT_ON_SUCCESS | FILE_SKIP_SET_EVENT_ON_HANDLE)) {
                DWORD err = GetLastError();
                nvb__why(ctx->why, ctx->why_len, "iocp.skip_on_success: SetFileCompletionNotificationModes failed "
                         "(Windows error %lu)", (unsigned long)err);
                iocp_teardown(e);
                return nvb__win_errno(err);
            }
    }
    nvb__used_set(ctx->used, "skip_on_success", "%d", e->skip);
    nvb__used_set(ctx->used, "batch", "%u", e->batch);
    nvb__wio_used_stack(ctx);
    *state = e;
    return 0;
}

/* Issue one I/O: it is pending (a packet will come), or it went to the
 * done FIFO (completed at once with skip_on_success, or failed at issue).
 * 0, or -EOVERFLOW past qd. */
static inline int issue(struct iocp *e, struct nvb__io *io)
{
    if (io->slot >= e->qd)
        return -EOVERFLOW; /* the runner exceeded qd: a bug, stop the run */
    if (io->target >= e->nfds) {
        nvb__done_push(&e->done, io, -EBADF);
        return 0;
    }
    struct slot *s = &e->slots[io->slot];
    HANDLE h = nvb__win_handle(e->fds[io->target]);
    s->io = io;
    io->t_sub = nvb__now_ns();
    if (nvb__wio_issue(h, io, &s->ov, NULL)) {
        if (e->skip) { /* no packet will come */
            io->t_done = nvb__now_ns();
            nvb__done_push(&e->done, io, nvb__wio_result(h, &s->ov, FALSE));
        } else {
            e->pending++;
        }
        return 0;
    }
    DWORD err = GetLastError();
    if (err == ERROR_IO_PENDING)
        e->pending++;
    else /* failed at issue: no packet is queued for it */
        nvb__done_push(&e->done, io, nvb__wio_error(err));
    return 0;
}

static int iocp_submit(void *state, struct nvb__io **ios, unsigned n)
{
    int rc = 0;
    for (unsigned i = 0; i < n && rc == 0; i++)
        rc = issue(state, ios[i]);
    return rc;
}

static int iocp_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct iocp *e = state;
    unsigned n = nvb__done_pop(&e->done, out, max);
    /* Take what the port has (without blocking once min is met). */
    while (n < max && e->pending) {
        ULONG want = max - n, got = 0;
        if (want > e->batch)
            want = e->batch;
        DWORD wait = n >= min ? 0 : nvb__win_wait_ms(nvb__wait_bound(e->wait_ns));
        if (!GetQueuedCompletionStatusEx(e->port, e->ents, want, &got, wait, FALSE)) {
            DWORD err = GetLastError();
            if (err == WAIT_TIMEOUT)
                break; /* a poll, or wait_ms passed: the runner decides */
            return nvb__win_errno(err);
        }
        const uint64_t t_done = nvb__now_ns();
        for (ULONG i = 0; i < got; i++) {
            struct slot *s = (struct slot *)e->ents[i].lpOverlapped;
            if (!s)
                continue;
            struct nvb__io *io = s->io;
            e->pending--;
            io->t_done = t_done;
            /* Internal holds the NTSTATUS: 0 is success with
             * dwNumberOfBytesTransferred; otherwise let Windows map it. */
            if (s->ov.Internal == 0)
                io->res = (int64_t)e->ents[i].dwNumberOfBytesTransferred;
            else
                io->res = nvb__wio_result(nvb__win_handle(e->fds[io->target]), &s->ov, FALSE);
            out[n++] = io;
        }
        if (n >= min)
            break; /* one batch per call once the runner has what it needs */
    }
    return (int)n;
}

static void iocp_teardown(void *state)
{
    struct iocp *e = state;
    if (!e)
        return;
    if (e->port) {
        /* I/O abandoned after a fatal error: cancel it and wait for its
         * packets, since the kernel writes into the slots until then. */
        if (e->pending) {
            for (unsigned t = 0; t < e->nfds; t++)
                CancelIoEx(nvb__win_handle(e->fds[t]), NULL);
            while (e->pending) {
                ULONG got = 0;
                if (!GetQueuedCompletionStatusEx(e->port, e->ents, e->batch, &got, 10000, FALSE))
                    break; /* nothing for 10 s: leak the slots rather than free them under the kernel */
                for (ULONG i = 0; i < got; i++)
                    if (e->ents[i].lpOverlapped)
                        e->pending--;
            }
        }
        CloseHandle(e->port);
    }
    if (e->pending)
        return;
    free(e->slots);
    free(e->ents);
    nvb__done_free(&e->done);
    free(e);
}

#endif /* _WIN32 */

NVB__ENGINE_DEFINE(iocp, NVB__ENG_STAMPS, iocp_opts,
    "Windows overlapped ReadFile/WriteFile through an I/O completion port, "
    "completions drained in batches with GetQueuedCompletionStatusEx",
    NVB__ENGINE_IF(NVB__WINDOWS, "Windows only (I/O completion ports); libaio and io_uring are the Linux analogues",
        .probe = nvb__engine_probe_ok, NVB__ENGINE_OPS(iocp)));
