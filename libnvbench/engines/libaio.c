/*
 * libaio: Linux native AIO (io_setup/io_submit/io_getevents).
 *
 * Only truly asynchronous with O_DIRECT; buffered I/O completes inside
 * io_submit(). One iocb per slot lives in the engine state, indexed by
 * io->slot, so the hot path allocates nothing.
 */
#include "core/engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvbench.h"

#if NVB_HAVE_LIBAIO
#include <libaio.h>
#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1) /* linux/aio_abi.h: aio_reqprio holds the I/O's priority */
#endif
#include <time.h>

#include "engines/done.h"

struct aio_eng {
    io_context_t ctx;
    const int *fds;
    unsigned nfds;
    unsigned qd;
    unsigned inflight;      /* accepted by io_submit, not yet reaped */
    const uint64_t *wait_ns; /* bound of one io_getevents wait (ctx->wait_ns, read at each wait) */
    /* iocbs prepared but not accepted yet (io_submit said -EAGAIN): they
     * are retried before every io_getevents. Kept contiguous for io_submit. */
    struct iocb **pend;
    struct nvb__prio prio;
    unsigned pstart, npend;
    /* Slots io_submit rejected outright: complete with res = -errno. */
    struct nvb__done done;
    struct io_event *events;
    struct iocb iocbs[];
};

static const char *aio_err_text(int err)
{
    switch (err) {
    case -EAGAIN: return "the system-wide AIO limit is reached (sysctl fs.aio-max-nr, see fs.aio-nr)";
    case -ENOSYS: return "the kernel was built without AIO support (CONFIG_AIO=n)";
    case -EPERM:  return "AIO is not permitted here (seccomp or container policy)";
    case -ENOMEM: return "out of kernel memory";
    default:      return nvb_strerror(err);
    }
}

static int aio_probe(char *why, size_t why_len)
{
    io_context_t c = 0;
    int r = io_setup(1, &c);
    if (r < 0) {
        nvb__why(why, why_len, "libaio: io_setup failed: %s", aio_err_text(r));
        return r;
    }
    io_destroy(c);
    return 0;
}

static void aio_teardown(void *state)
{
    struct aio_eng *a = state;
    if (!a)
        return;
    if (a->ctx)
        io_destroy(a->ctx);  /* waits for what is still in flight: no abandon() */
    free(a->pend);
    nvb__done_free(&a->done);
    free(a->events);
    free(a);
}

static int aio_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    unsigned qd = ctx->qd ? ctx->qd : 1;
    struct aio_eng *a = calloc(1, sizeof(*a) + qd * sizeof(a->iocbs[0]));
    if (!a)
        goto nomem;
    a->fds = ctx->fds;
    a->nfds = ctx->nfds;
    a->qd = qd;
    a->wait_ns = ctx->wait_ns;
    a->prio = ctx->prio;
    a->prio.dflt = 0; /* io_submit runs on the job's thread: its own priority */
    a->pend = calloc(qd, sizeof(*a->pend));
    a->events = calloc(qd, sizeof(*a->events));
    if (nvb__done_init(&a->done, qd) < 0 || !a->pend || !a->events)
        goto nomem;
    int r = io_setup((int)qd, &a->ctx);
    if (r < 0) {
        a->ctx = 0;
        nvb__why(ctx->why, ctx->why_len, "libaio: io_setup(%u) failed: %s", qd, aio_err_text(r));
        aio_teardown(a);
        return r;
    }
    nvb__used_set(ctx->used, "qd", "%u", qd);
    *state = a;
    return 0;
nomem:
    nvb__why(ctx->why, ctx->why_len, "libaio: out of memory");
    aio_teardown(a);
    return -ENOMEM;
}

/* Hand prepared iocbs to the kernel. Stops at -EAGAIN (kernel out of
 * resources; reap() retries once completions have freed some). */
static void flush(struct aio_eng *a)
{
    while (a->npend) {
        struct iocb **p = a->pend + a->pstart;
        int r = io_submit(a->ctx, (long)a->npend, p);
        if (r > 0) {
            a->inflight += (unsigned)r;
            a->pstart += (unsigned)r;
            a->npend -= (unsigned)r;
        } else if (r == -EINTR) {
            continue;
        } else if (r == -EAGAIN || r == 0) {
            break;
        } else {
            /* io_submit refuses the first iocb it cannot queue (bad fd, bad
             * alignment on some kernels): a per-I/O error, not fatal. */
            nvb__done_push(&a->done, (struct nvb__io *)p[0]->data, r);
            a->pstart++;
            a->npend--;
        }
    }
    if (!a->npend)
        a->pstart = 0;
}

static int aio_submit(void *state, struct nvb__io **ios, unsigned n)
{
    struct aio_eng *a = state;
    if (a->inflight + a->npend + nvb__done_len(&a->done) + n > a->qd)
        return -EOVERFLOW;  /* the runner exceeded qd */
    if (a->pstart + a->npend + n > a->qd) {
        memmove(a->pend, a->pend + a->pstart, a->npend * sizeof(*a->pend));
        a->pstart = 0;
    }
    struct iocb **q = a->pend + a->pstart + a->npend;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        struct nvb__io *io = ios[i];
        if (io->slot >= a->qd || io->target >= a->nfds) {
            nvb__done_push(&a->done, io, io->slot >= a->qd ? -EINVAL : -EBADF);
            continue;
        }
        struct iocb *cb = &a->iocbs[io->slot];
        int fd = a->fds[io->target];
        if (io->dir == NVB_WRITE)
            io_prep_pwrite(cb, fd, io->buf, io->len, (long long)io->off);
        else
            io_prep_pread(cb, fd, io->buf, io->len, (long long)io->off);
        cb->data = io;
        const uint16_t prio = nvb__prio_next(&a->prio, io->dir, io->len);
        if (prio) { /* else the thread's */
            cb->aio_reqprio = (short)prio;
            cb->u.c.flags |= IOCB_FLAG_IOPRIO;
        }
        q[k++] = cb;
    }
    a->npend += k;
    flush(a);
    return 0;
}

static int aio_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct aio_eng *a = state;
    unsigned got = 0;
    if (min > max)
        min = max;
    if (a->npend)
        flush(a);
    got = nvb__done_pop(&a->done, out, max);

    while (got < max) {
        if (got > 0 && got >= min)
            break;  /* nothing more is owed: spare the system call */
        if (!a->inflight) {
            if (a->npend && got < min)
                return -EAGAIN;  /* nothing of ours in flight and still no room */
            break;
        }
        unsigned want = got >= min ? 0 : min - got;
        unsigned nr = max - got;
        if (nr > a->inflight)
            nr = a->inflight;
        if (want > nr)
            want = nr;
        struct timespec ts, *tsp = NULL;
        uint64_t wait_ns = want ? nvb__wait_bound(a->wait_ns) : 0;
        if (wait_ns) {
            ts.tv_sec = (time_t)(wait_ns / 1000000000u);
            ts.tv_nsec = (long)(wait_ns % 1000000000u);
            tsp = &ts;
        }
        int r = io_getevents(a->ctx, (long)want, (long)nr, a->events, tsp);
        if (r == -EINTR)
            continue;
        if (r < 0)
            return r;
        for (int i = 0; i < r; i++) {
            struct nvb__io *io = a->events[i].data;
            /* res is the kernel's long carried in an unsigned long. */
            io->res = (int64_t)(long)a->events[i].res;
            out[got++] = io;
        }
        a->inflight -= (unsigned)r;
        if (a->npend)
            flush(a);
        if (want == 0 || (tsp && (unsigned)r < want))
            break;  /* a non-blocking poll, or wait_ns passed: the runner decides */
        /* Unbounded, a signal can still cut the wait short after some
         * events: wait again for the rest of min. */
    }
    return (int)got;
}

#endif /* NVB_HAVE_LIBAIO */

NVB__ENGINE_DEFINE(libaio, NVB__ENG_SYNC_BUFFERED | NVB__ENG_PRIO, nvb__engine_no_opts,
    "Linux native AIO (io_submit/io_getevents); asynchronous with direct=1",
    NVB__ENGINE_IF(NVB_HAVE_LIBAIO, NVB__NEEDS_LINUX_LIB("libaio", "native AIO", "iocp"),
        .probe = aio_probe, NVB__ENGINE_OPS(aio)));
