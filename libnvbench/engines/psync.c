/*
 * psync: one pread()/pwrite() per I/O, done inside submit().
 *
 * The baseline every other engine is compared with, and the engine that works
 * everywhere. Completed slots wait in a small FIFO until reap() hands them
 * back, so the runner drives it through the same submit/reap loop as the
 * asynchronous engines.
 */
#include "core/engine.h"

#include <errno.h>
#include <stdlib.h>

#include "nvbench.h"

#ifndef _WIN32
#include <unistd.h>

struct psync {
    const int *fds;
    unsigned nfds;
    unsigned cap;       /* power of two >= qd */
    unsigned head, tail;
    struct nvb__io *done[];
};

static int psync_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    unsigned cap = 1;
    unsigned qd = ctx->qd ? ctx->qd : 1;
    while (cap < qd)
        cap <<= 1;
    struct psync *p = calloc(1, sizeof(*p) + cap * sizeof(p->done[0]));
    if (!p) {
        nvb__why(ctx->why, ctx->why_len, "psync: out of memory");
        return -ENOMEM;
    }
    p->fds = ctx->fds;
    p->nfds = ctx->nfds;
    p->cap = cap;
    *state = p;
    return 0;
}

static int64_t do_io(const struct psync *p, const struct nvb__io *io)
{
    if (io->target >= p->nfds)
        return -EBADF;
    int fd = p->fds[io->target];
    ssize_t r;
    /* A short transfer is the result of this I/O, not something to finish
     * behind the runner's back: it is reported as is (EOF, device end). */
    do {
        if (io->dir == NVB_WRITE)
            r = pwrite(fd, io->buf, io->len, (off_t)io->off);
        else
            r = pread(fd, io->buf, io->len, (off_t)io->off);
    } while (r < 0 && errno == EINTR);
    return r < 0 ? -(int64_t)errno : (int64_t)r;
}

static int psync_submit(void *state, struct nvb__io **ios, unsigned n)
{
    struct psync *p = state;
    if (p->tail - p->head + n > p->cap)
        return -EOVERFLOW;  /* the runner exceeded qd: a bug, stop the run */
    for (unsigned i = 0; i < n; i++) {
        ios[i]->res = do_io(p, ios[i]);
        p->done[p->tail++ & (p->cap - 1)] = ios[i];
    }
    return 0;
}

static int psync_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct psync *p = state;
    (void)min;  /* everything submitted is already complete: never blocks */
    unsigned n = 0;
    while (n < max && p->head != p->tail)
        out[n++] = p->done[p->head++ & (p->cap - 1)];
    return (int)n;
}

static void psync_teardown(void *state)
{
    free(state);
}

#endif /* _WIN32 */

NVB__ENGINE_DEFINE(psync, NVB__ENG_SYNC, nvb__engine_no_opts, "pread(2)/pwrite(2), one synchronous I/O at a time",
    NVB__ENGINE_IF(NVB__POSIX, "not on Windows (no pread/pwrite): use engine wsync, its Windows analogue",
        .probe = nvb__engine_probe_ok, NVB__ENGINE_OPS(psync)));
