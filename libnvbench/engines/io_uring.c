/*
 * io_uring through liburing (2.3 or later).
 *
 * Cost model, which drives every choice here: on a page-cached file a 4 KiB
 * read costs about as much as the io_uring_enter() that carries it, so the
 * engine's job is to carry as many I/Os per system call as possible.
 *  - submit() only fills SQEs; it never enters the kernel.
 *  - reap() makes at most one io_uring_enter() per call in the common case:
 *    it submits everything pending and, in the same call, waits for the
 *    completions the runner needs.
 *  - Completions are read straight off the CQ ring, never through helpers
 *    that may enter the kernel on their own.
 *  - By default the ring uses DEFER_TASKRUN (completions are posted only when
 *    this thread asks, so there are no interrupting task-work runs) and the
 *    buffers and files are registered, saving a page pin and an fdget per I/O.
 *
 * Trims: IORING_OP_FALLOCATE punching a hole in a file, the block discard
 * command (IORING_OP_URING_CMD, BLOCK_URING_CMD_DISCARD, Linux 6.12) on a
 * block device (engines/uring_trim.h).
 *
 * Threading: setup() must run on the job thread that later submits.
 * SINGLE_ISSUER/DEFER_TASKRUN tie the ring to the creating task and a
 * registered ring fd is private to the registering task.
 */
#include "core/engine.h"
#include "core/iomode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/ring.h"
#include "engines/uring_trim.h"
#include "nvbench.h"

enum {
    OPT_FIXEDBUFS,
    OPT_REGFILES,
    OPT_SQPOLL,
    OPT_SQPOLL_CPU,
    OPT_IOPOLL,
    OPT_ENTRIES,
    OPT_COOP_TASKRUN,
    OPT_DEFER_TASKRUN,
    OPT_REGISTER_RING,
};

/* Kept even when liburing is compiled out, so that workloads naming these
 * keys still parse and fail at run time with the real reason. */
static const struct nvb__optdef uring_opts[] = {
    [OPT_FIXEDBUFS] = { "fixedbufs", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "register the I/O buffers (-1: try, fall back when the kernel refuses, e.g. RLIMIT_MEMLOCK)" },
    [OPT_REGFILES] = { "regfiles", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "register the target file descriptors (-1: try, fall back on failure)" },
    [OPT_SQPOLL] = { "sqpoll", NVB__OPT_BOOL, 0, 0, 1,
        "a kernel thread polls the submission queue (IORING_SETUP_SQPOLL)" },
    [OPT_SQPOLL_CPU] = { "sqpoll_cpu", NVB__OPT_INT, -1, -1, 4095,
        "CPU for the SQPOLL thread (-1: not pinned)" },
    [OPT_IOPOLL] = { "iopoll", NVB__OPT_BOOL, 0, 0, 1,
        "busy-poll for completions (IORING_SETUP_IOPOLL); needs direct=1 and a device with poll queues" },
    [OPT_ENTRIES] = NVB__RING_OPT_ENTRIES,
    [OPT_COOP_TASKRUN] = { "coop_taskrun", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "IORING_SETUP_COOP_TASKRUN|TASKRUN_FLAG (-1: used when DEFER_TASKRUN is unavailable)" },
    [OPT_DEFER_TASKRUN] = NVB__RING_OPT_DEFER_TASKRUN,
    [OPT_REGISTER_RING] = { "register_ring", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "register the ring fd with io_uring_register_ring_fd (-1: try)" },
    { NULL, 0, 0, 0, 0, NULL },
};

#if NVB_HAVE_LIBURING
struct uring {
    struct nvb__ring r;
    const int *fds;
    unsigned nfds;
    unsigned nbufs;          /* registered buffers (0: not registered) */
    void *const *bufs;
    size_t buf_len;
    unsigned char regfiles;
    unsigned char sqpoll;
    unsigned char *blk;      /* trims: which targets are block devices */
    unsigned rflags, wflags; /* RWF_* per read, per write (core/iomode.h) */
};

static void uring_teardown(void *state)
{
    struct uring *u = state;
    if (!u)
        return;
    /* Exiting the ring cancels or waits for whatever is still in flight and
     * drops the registered buffers, files and ring fd with it. */
    nvb__ring_exit(&u->r);
    free(u->blk);
    free(u);
}

static int uring_probe(char *why, size_t why_len)
{
    /* The engine issues IORING_OP_READ/WRITE (5.6); the opcode probe itself
     * appeared in 5.6 too, so its absence means a kernel that is too old. */
    static const int ops[] = { IORING_OP_READ, IORING_OP_WRITE };
    int r = nvb__ring_probe(0, ops, 2);
    if (r < 0) {
        nvb__why(why, why_len, "io_uring: %s", nvb__uring_err_text(r));
        return r;
    }
    if (!r) {
        nvb__why(why, why_len, "io_uring: the kernel lacks IORING_OP_READ/WRITE (needs Linux 5.6 or later)");
        return -ENOTSUP;
    }
    return 0;
}

/* Create the ring, trying the cheapest completion model first. Returns 0 or
 * -errno with ctx->why set; *used_flags gets the flags that worked. */
static int create_ring(const struct nvb__engine_ctx *ctx, struct uring *u, unsigned entries,
                       unsigned base, unsigned *used_flags, char *fallback, size_t fallback_len)
{
    const unsigned DEFER = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    const unsigned COOP = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
    int64_t d = ctx->opts[OPT_DEFER_TASKRUN], c = ctx->opts[OPT_COOP_TASKRUN];
    unsigned cand[4];
    unsigned ncand = 0;

    if (base & IORING_SETUP_SQPOLL) {
        /* The SQ thread does the task work: these flags make no sense and
         * the kernel rejects them. */
        cand[ncand++] = 0;
    } else {
        for (int di = 1; di >= 0; di--) {
            if ((d == 1 && !di) || (d == 0 && di))
                continue;
            for (int ci = 1; ci >= 0; ci--) {
                if ((c == 1 && !ci) || (c == 0 && ci))
                    continue;
                if (di && ci && c == -1)
                    continue;  /* auto: cooperative task work is moot under DEFER */
                cand[ncand++] = (di ? DEFER : 0) | (ci ? COOP : 0);
            }
        }
    }

    unsigned tried;  /* the flags of the last attempt, for the message */
    int r = nvb__ring_init(&u->r, ctx, entries, base, cand, ncand, (unsigned)ctx->opts[OPT_SQPOLL_CPU], &tried,
                           fallback, fallback_len);
    if (r == 0) {
        *used_flags = tried;
        return 0;
    }

    char t[96];
    nvb__ring_flags_text(tried, t, sizeof(t));
    if (r == -EINVAL && (d == 1 || c == 1))
        nvb__why(ctx->why, ctx->why_len,
                 "io_uring: the kernel refused setup flags %s (defer_taskrun needs 6.1, coop_taskrun 5.19)", t);
    else if (r == -EPERM && (base & IORING_SETUP_SQPOLL))
        nvb__why(ctx->why, ctx->why_len,
                 "io_uring: sqpoll not permitted (needs CAP_SYS_NICE before Linux 5.11, or io_uring is disabled)");
    else if (r == -EINVAL && (base & IORING_SETUP_SQ_AFF))
        nvb__why(ctx->why, ctx->why_len, "io_uring: sqpoll_cpu=%lld is not a usable CPU",
                 (long long)ctx->opts[OPT_SQPOLL_CPU]);
    else
        nvb__why(ctx->why, ctx->why_len, "io_uring: io_uring_queue_init(%u, %s): %s", entries, t,
                 nvb__uring_err_text(r));
    return r;
}

static int uring_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    unsigned qd = ctx->qd ? ctx->qd : 1;
    int64_t fixedbufs = ctx->opts[OPT_FIXEDBUFS];
    int64_t regfiles = ctx->opts[OPT_REGFILES];
    int64_t sqpoll = ctx->opts[OPT_SQPOLL];
    int64_t sqcpu = ctx->opts[OPT_SQPOLL_CPU];
    int64_t iopoll = ctx->opts[OPT_IOPOLL];
    int64_t regring = ctx->opts[OPT_REGISTER_RING];
    unsigned entries;
    int r0;

    /* Polled completion exists only for O_DIRECT. What setup cannot see is
     * whether a block device has poll queues (nvme poll_queues=N) or a file
     * system supports polling: there the kernel fails each I/O with
     * -EOPNOTSUPP at completion, and the runner reports that error. */
    if (iopoll && !ctx->direct) {
        nvb__why(ctx->why, ctx->why_len, "io_uring: iopoll needs direct=1");
        return -ENOTSUP;
    }
    if (sqcpu >= 0 && !sqpoll) {
        nvb__why(ctx->why, ctx->why_len, "io_uring: sqpoll_cpu=%lld needs sqpoll=1", (long long)sqcpu);
        return -EINVAL;
    }
    if (sqpoll && (ctx->opts[OPT_DEFER_TASKRUN] == 1 || ctx->opts[OPT_COOP_TASKRUN] == 1)) {
        nvb__why(ctx->why, ctx->why_len,
                 "io_uring: defer_taskrun/coop_taskrun cannot be combined with sqpoll=1");
        return -EINVAL;
    }
    if (nvb__ring_entries(ctx, "io_uring", ctx->opts[OPT_ENTRIES], &entries) < 0)
        return -EINVAL;

    struct uring *u = calloc(1, sizeof(*u));
    if (!u) {
        nvb__why(ctx->why, ctx->why_len, "io_uring: out of memory");
        return -ENOMEM;
    }
    u->fds = ctx->fds;
    u->nfds = ctx->nfds;
    u->bufs = ctx->bufs;
    u->buf_len = ctx->buf_len;
    u->rflags = ctx->rflags;
    u->wflags = ctx->wflags;
    if ((r0 = nvb__iomode_setup(ctx, "io_uring")) < 0) { /* uncached, atomic, fua */
        free(u);
        return r0;
    }

    unsigned base = 0;
    if (sqpoll)
        base |= IORING_SETUP_SQPOLL | (sqcpu >= 0 ? IORING_SETUP_SQ_AFF : 0);
    if (iopoll)
        base |= IORING_SETUP_IOPOLL;

    if ((r0 = nvb__uring_trim_setup(ctx, &u->blk)) < 0) {
        free(u);
        return r0;
    }

    unsigned flags = 0;
    char fallback[160] = "";
    int r = create_ring(ctx, u, entries, base, &flags, fallback, sizeof(fallback));
    if (r < 0) {
        free(u->blk);
        free(u);
        return r;
    }
    u->sqpoll = !!(flags & IORING_SETUP_SQPOLL);

    nvb__ring_used(&u->r, ctx, flags);
    if (fallback[0])
        nvb__used_set(ctx->used, "setup_flags_why", "%s", fallback);

    if (regring) {
        r = io_uring_register_ring_fd(&u->r.ring);
        if (r < 0) {
            if (regring == 1) {
                nvb__why(ctx->why, ctx->why_len, "io_uring: register_ring=1: io_uring_register_ring_fd: %s%s",
                         nvb_strerror(r), r == -EINVAL ? " (needs Linux 5.18)" : "");
                goto fail;
            }
            nvb__used_set(ctx->used, "register_ring_why", "io_uring_register_ring_fd: %s", nvb_strerror(r));
        }
    }
    nvb__used_set(ctx->used, "register_ring", "%d", r >= 0 && regring ? 1 : 0);

    r = nvb__ring_register_bufs(&u->r, ctx, "io_uring", fixedbufs, qd);
    if (r < 0)
        goto fail;
    u->nbufs = r ? qd : 0;
    nvb__used_set(ctx->used, "fixedbufs", "%d", u->nbufs ? 1 : 0);

    r = nvb__ring_register_files(&u->r, ctx, "io_uring", regfiles, ctx->fds, ctx->nfds);
    if (r < 0)
        goto fail;
    u->regfiles = (unsigned char)r;
    nvb__used_set(ctx->used, "regfiles", "%d", u->regfiles);
    nvb__used_set(ctx->used, "sqpoll", "%d", u->sqpoll);
    if (u->sqpoll && sqcpu >= 0)
        nvb__used_set(ctx->used, "sqpoll_cpu", "%lld", (long long)sqcpu);
    nvb__used_set(ctx->used, "iopoll", "%d", u->r.iopoll);

    *state = u;
    return 0;
fail:
    uring_teardown(u);
    return r < 0 ? r : -EINVAL;
}

static int uring_submit(void *state, struct nvb__io **ios, unsigned n)
{
    struct uring *u = state;

    for (unsigned i = 0; i < n; i++) {
        struct nvb__io *io = ios[i];
        int err;
        struct io_uring_sqe *sqe = nvb__ring_sqe(&u->r, u->sqpoll, &err);
        if (__builtin_expect(!sqe, 0))
            return err;
        int fd;
        if (__builtin_expect(io->target >= u->nfds, 0))
            fd = -1;  /* completes with -EBADF: a per-I/O error */
        else
            fd = u->regfiles ? (int)io->target : u->fds[io->target];

        int fixed = nvb__ring_fixed_ok(u->bufs, u->nbufs, u->buf_len, io);
        if (__builtin_expect(io->dir == NVB_TRIM, 0)) {
            nvb__uring_prep_trim(sqe, fd, u->blk[io->target < u->nfds ? io->target : 0], io->off, io->len);
        } else if (io->dir == NVB_WRITE) {
            if (fixed)
                io_uring_prep_write_fixed(sqe, fd, io->buf, io->len, io->off, (int)io->slot);
            else
                io_uring_prep_write(sqe, fd, io->buf, io->len, io->off);
        } else {
            if (fixed)
                io_uring_prep_read_fixed(sqe, fd, io->buf, io->len, io->off, (int)io->slot);
            else
                io_uring_prep_read(sqe, fd, io->buf, io->len, io->off);
        }
        if (io->dir != NVB_TRIM)
            sqe->rw_flags = (int)(io->dir == NVB_WRITE ? u->wflags : u->rflags); /* core/iomode.h */
        if (u->regfiles && fd >= 0)
            sqe->flags |= IOSQE_FIXED_FILE;
        io_uring_sqe_set_data(sqe, io);
    }
    u->r.outstanding += n;
    return 0;
}

/* A short count (EOF, end of device) is the answer, not an error; a trim
 * that succeeds (0) did its whole length. */
static inline void uring_res(void *arg, struct nvb__io *io, int res)
{
    (void)arg;
    io->res = __builtin_expect(res == 0 && io->dir == NVB_TRIM, 0) ? (int64_t)io->len : res;
}

static int uring_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct uring *u = state;
    return nvb__ring_reap(&u->r, out, max, min, 0, 0, uring_res, NULL);
}

#endif /* NVB_HAVE_LIBURING */

/* .abandon: closing a ring does not wait for its requests (the kernel
 * finishes them in the background): safe with I/O abandoned in flight. */
NVB__ENGINE_DEFINE(io_uring, NVB__ENG_TRIM | NVB__ENG_SUBMIT_QUEUES, uring_opts,
    "Linux io_uring via liburing: batched submission, registered buffers/files, SQPOLL/IOPOLL",
    NVB__ENGINE_IF(NVB_HAVE_LIBURING, NVB__NEEDS_LINUX_LIB("liburing", "io_uring", "ioring"),
        .probe = uring_probe, NVB__ENGINE_OPS(uring), .abandon = uring_teardown));
