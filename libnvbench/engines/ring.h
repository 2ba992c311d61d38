/*
 * The io_uring ring that the io_uring and nvme engines share (internal):
 * creating it with a fallback over setup flags, the registration policy for
 * files and buffers (ring.c), and the per-I/O paths, inline below because
 * they run once per completion: bounded waits, the harvest off the CQ ring
 * and the reap loop.
 *
 * An engine embeds a struct nvb__ring, fills SQEs itself (that is where the
 * engines differ: plain reads and writes vs NVMe commands) and counts them
 * in `outstanding`; nvb__ring_reap() does the rest, handing each completion
 * to the engine's `res` callback, which turns cqe->res into io->res. The
 * callback is a constant at every call site, so the compiler inlines it.
 *
 * With wait_ns set, a reap waits at most about that long and then returns
 * what it has, so that the runner can check its watchdog (a device that
 * stopped answering) and stop requests. The timeout travels with the wait
 * in one io_uring_enter() (IORING_ENTER_EXT_ARG, Linux 5.11); without that
 * feature liburing would queue a timeout request whose completion the
 * harvest does not expect, so the wait stays unbounded there. IOPOLL rings
 * poll in the kernel, which does not apply the timeout.
 */
#ifndef NVB_ENGINES_RING_H
#define NVB_ENGINES_RING_H

#include "core/engine.h"

/* Option rows both engines define word for word (the same io_uring
 * setup); their tables exist without liburing too, so these come before
 * the ring. */
#define NVB__RING_OPT_ENTRIES                                              \
    { "entries", NVB__OPT_INT, 0, 0, 32768, "submission queue size (0: qd rounded up to a power of two)" }
#define NVB__RING_OPT_DEFER_TASKRUN                                        \
    { "defer_taskrun", NVB__OPT_AUTOBOOL, -1, -1, 1,                       \
      "IORING_SETUP_SINGLE_ISSUER|DEFER_TASKRUN (-1: when the kernel has it, 6.1+)" }

#if NVB_HAVE_LIBURING
#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <liburing.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Debian 12's liburing 2.3 defines these setup flags; older headers may
 * not, and the values are kernel ABI. */
#ifndef IORING_SETUP_SQE128
#define IORING_SETUP_SQE128 (1U << 10)          /* 5.19 */
#endif
#ifndef IORING_SETUP_CQE32
#define IORING_SETUP_CQE32 (1U << 11)           /* 5.19 */
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)   /* 6.0 */
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)   /* 6.1 */
#endif
#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY (1U << 16)      /* 6.6 */
#endif

struct nvb__ring {
    struct io_uring ring;
    unsigned outstanding;    /* SQEs filled and not yet reaped */
    const uint64_t *wait_ns; /* bound of one wait in reap() (ctx->wait_ns, read at each wait) */
    unsigned char defer;     /* DEFER_TASKRUN: completions only on GETEVENTS */
    unsigned char iopoll;    /* completions only by polling in the kernel */
    unsigned char direct;    /* a wait enters the kernel itself (nvb__ring_submit_wait): not SQPOLL */
    int enter_fd;            /* what io_uring_enter() takes: the ring's fd, or its registered index */
    unsigned enter_flags;    /* 0, or IORING_ENTER_REGISTERED_RING with the index */
};

/* Why io_uring_queue_init() failed with err, in words (ENOSYS, EPERM:
 * disabled or filtered; ENOMEM: the rings; else nvb_strerror). */
const char *nvb__uring_err_text(int err);

/* For an engine's probe: does the kernel make a ring with setup flags
 * `flags`, and know the opcodes ops[0..nops)? 1 yes, 0 an opcode is
 * missing (or the kernel predates the opcode probe, 5.6), or the -errno of
 * io_uring_queue_init_params(). */
int nvb__ring_probe(unsigned flags, const int *ops, unsigned nops);

/* The ring's size: the engine option `entries` (opt; 0: qd rounded up to a
 * power of two) in *entries, 0; or -EINVAL with "<name>: entries=N is
 * smaller than qd=M" in ctx->why. */
int nvb__ring_entries(const struct nvb__engine_ctx *ctx, const char *name, int64_t opt, unsigned *entries);

/* Records in ctx->used the setup flags that worked ("setup_flags") and the
 * ring's size ("entries"). */
void nvb__ring_used(const struct nvb__ring *r, const struct nvb__engine_ctx *ctx, unsigned flags);

/* Exits the ring if it was created (ring_fd >= 0): cancels or waits for
 * what is in flight, drops what was registered. */
void nvb__ring_exit(struct nvb__ring *r);
/* For an ENOMEM from registering `total` bytes of buffers: " (RLIMIT_MEMLOCK
 * N KiB, buffers M KiB)", else "". */
void nvb__uring_memlock_hint(int r, size_t total, char *buf, size_t len);
/* The setup flags in f as "SQE128|CQE32|IOPOLL|..." ("none" for 0). */
void nvb__ring_flags_text(unsigned f, char *buf, size_t len);

/*
 * Create the ring with base|cand[i] for the first candidate the kernel
 * takes, cheapest completion model first. -EINVAL is how an older kernel
 * says "unknown setup flag", so it moves on to the next candidate; any
 * other error will not improve with other flags and ends the search.
 * Each candidate is tried first with the `optional` flags too, then, when
 * the kernel refuses that, without them (`fallback` then says "kernel
 * refused <optional>"). The engines pass IORING_SETUP_NO_SQARRAY (Linux
 * 6.6: the kernel takes SQ slots in order, with no index array for either
 * side to touch; NOPs at qd 32 ran about 4 % slower with the array,
 * docs/benchmarks.md).
 * sq_cpu goes to sq_thread_cpu with IORING_SETUP_SQ_AFF. On success: 0,
 * r->defer and r->iopoll set, *flags the flags that worked, and `fallback`
 * lists the candidates refused before ("kernel refused X; kernel refused
 * Y", appended). On failure: the last error, *flags the flags last tried,
 * r->ring.ring_fd -1 (nothing to exit). Writes no reason: the engine words
 * it, knowing which options the user forced.
 */
int nvb__ring_init(struct nvb__ring *r, const struct nvb__engine_ctx *ctx, unsigned entries, unsigned base,
                   unsigned optional, const unsigned *cand, unsigned ncand, unsigned sq_cpu, unsigned *flags,
                   char *fallback, size_t fallback_len);

/*
 * Registration policy, one for both engines. `want` is the engine option:
 * 0 skip, 1 required (a refusal fails setup with "<name>: <key>=1: ..." in
 * ctx->why), -1 try (a refusal is recorded as "<key>_why" in ctx->used and
 * the engine goes on without). Returns 1 registered, 0 not, or -errno.
 * The "<key>" result itself is the engine's to record, where it decides.
 */
int nvb__ring_register_files(struct nvb__ring *r, const struct nvb__engine_ctx *ctx, const char *name,
                             int64_t want, const int *fds, unsigned n);
/* Registers ctx->bufs[0..n) of ctx->buf_len bytes each (key "fixedbufs"). */
int nvb__ring_register_bufs(struct nvb__ring *r, const struct nvb__engine_ctx *ctx, const char *name,
                            int64_t want, unsigned n);

/*
 * Room for n SQEs from ring->sq.sqe_tail on, found with one read of the
 * kernel's head for the whole batch (io_uring_get_sqe() reads it, and the
 * ring's flags, for every SQE). The caller fills
 * sq.sqes[(sqe_tail + i) & ring_mask] for i < n, then adds n to sqe_tail,
 * which is what io_uring_get_sqe() does one at a time. When the SQ ring
 * lacks room (more than `entries` wait unsubmitted, which the runner's qd
 * bound rules out, or the SQ thread lags) it pushes the ring out and looks
 * once more: 0, or the -errno of that, or -EOVERFLOW.
 */
static inline int nvb__ring_reserve(struct nvb__ring *r, unsigned n, int sqpoll)
{
    struct io_uring_sq *sq = &r->ring.sq;
    unsigned head = sqpoll ? io_uring_smp_load_acquire(sq->khead) : IO_URING_READ_ONCE(*sq->khead);
    if (__builtin_expect(sq->sqe_tail + n - head <= sq->ring_entries, 1))
        return 0;
    /* Without SQPOLL one submit empties the ring. The SQ thread releases
     * the slots of a batch it took only when it is done with the batch, and
     * may post those I/Os' completions before: the slots are about to come
     * back. A wait returns once one slot is free, so while some but fewer
     * than n are free the thread is given the CPU instead; bounded, so a
     * ring that never drains is an error, not a hang. */
    for (unsigned k = 0; k < (sqpoll ? 1u << 20 : 2u); k++) {
        int rc = 0;
        if (!sqpoll || sq->sqe_tail - head >= sq->ring_entries)
            rc = sqpoll ? io_uring_sqring_wait(&r->ring) : io_uring_submit(&r->ring);
        else
            sched_yield();
        if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
            return rc;
        head = io_uring_smp_load_acquire(sq->khead);
        if (sq->sqe_tail + n - head <= sq->ring_entries)
            return 0;
    }
    return -EOVERFLOW;
}

static inline int nvb__uring_timed(const struct io_uring *ring, uint64_t wait_ns, struct __kernel_timespec *ts)
{
    if (!wait_ns || !(ring->features & IORING_FEAT_EXT_ARG))
        return 0;
    ts->tv_sec = (long long)(wait_ns / 1000000000u);
    ts->tv_nsec = (long long)(wait_ns % 1000000000u);
    return 1;
}

/* Submit what is queued and wait for `need` completions: the count
 * submitted, -ETIME when wait_ns passed first, or -errno. */
static inline int nvb__uring_submit_wait(struct io_uring *ring, unsigned need, uint64_t wait_ns)
{
    struct __kernel_timespec ts;
    if (!nvb__uring_timed(ring, wait_ns, &ts))
        return io_uring_submit_and_wait(ring, need);
    struct io_uring_cqe *cqe;
    return io_uring_submit_and_wait_timeout(ring, &cqe, need, &ts, NULL);
}

/*
 * The reap's wait, as nvb__uring_submit_wait() with r's bound, made here
 * with one io_uring_enter() of our own: liburing's wrapper looks at the CQ
 * ring before and after the call (about 140 instructions a call, 4 per
 * I/O at qd 32), which the reap does itself. What is queued is published
 * as liburing's flush does (slots are taken in order: NO_SQARRAY, or
 * the identity map ring.c's setup writes), and submitted counts from the
 * kernel's head, so entries an earlier -EAGAIN left unsubmitted go too.
 * Under SQPOLL (the SQ thread's wakeup) liburing's.
 */
static inline int nvb__ring_submit_wait(struct nvb__ring *r, unsigned need)
{
    struct io_uring *ring = &r->ring;
    const uint64_t wait_ns = nvb__wait_bound(r->wait_ns);
    if (__builtin_expect(!r->direct, 0))
        return nvb__uring_submit_wait(ring, need, wait_ns);
    struct io_uring_sq *sq = &ring->sq;
    const unsigned tail = sq->sqe_tail;
    sq->sqe_head = tail;
    io_uring_smp_store_release(sq->ktail, tail);
    struct __kernel_timespec ts;
    struct io_uring_getevents_arg arg = { .sigmask = 0, .sigmask_sz = _NSIG / 8, .pad = 0,
                                          .ts = (uint64_t)(uintptr_t)&ts };
    unsigned flags = IORING_ENTER_GETEVENTS | r->enter_flags;
    const void *a = NULL;
    size_t asz = _NSIG / 8;
    if (nvb__uring_timed(ring, wait_ns, &ts)) {
        flags |= IORING_ENTER_EXT_ARG;
        a = &arg;
        asz = sizeof arg;
    }
    const long rc = syscall(__NR_io_uring_enter, r->enter_fd, tail - *sq->khead, need, flags, a, asz);
    return rc < 0 ? -errno : (int)rc;
}

/* Wait for one completion: 0, -ETIME when wait_ns passed first, or -errno. */
static inline int nvb__uring_wait_one(struct io_uring *ring, uint64_t wait_ns)
{
    struct __kernel_timespec ts;
    struct io_uring_cqe *cqe;
    if (!nvb__uring_timed(ring, wait_ns, &ts))
        return io_uring_wait_cqe(ring, &cqe);
    return io_uring_wait_cqe_timeout(ring, &cqe, &ts);
}

/* The CQE at ring position pos; cqe_shift is 1 on a CQE32 ring (every
 * entry is two slots), else 0. */
static inline const struct io_uring_cqe *nvb__ring_cqe(const struct io_uring *ring, unsigned pos,
                                                       unsigned cqe_shift)
{
    return &ring->cq.cqes[(pos & ring->cq.ring_mask) << cqe_shift];
}

/* Sets io->res from the completion's cqe->res (engine-specific meaning). */
typedef void nvb__ring_res_fn(void *arg, struct nvb__io *io, int res);

/* Move up to max completions off the CQ ring without entering the kernel. */
static inline __attribute__((always_inline)) unsigned
nvb__ring_harvest(struct nvb__ring *r, struct nvb__io **out, unsigned max, unsigned cqe_shift,
                  nvb__ring_res_fn *res, void *arg)
{
    struct io_uring *ring = &r->ring;
    unsigned ready = io_uring_cq_ready(ring);
    if (ready > max)
        ready = max;
    if (!ready)
        return 0;
    /* the CQEs from head on, walked by pointer (once round the end of the
     * ring at most) */
    const unsigned head = *ring->cq.khead, mask = ring->cq.ring_mask;
    const struct io_uring_cqe *cqe = nvb__ring_cqe(ring, head, cqe_shift);
    unsigned room = mask + 1 - (head & mask);
    for (unsigned i = 0; i < ready; cqe = ring->cq.cqes, room = mask + 1) {
        const unsigned end = ready - i < room ? ready : i + room;
        for (; i < end; i++, cqe += 1u << cqe_shift) {
            struct nvb__io *io = io_uring_cqe_get_data(cqe);
            res(arg, io, cqe->res);
            out[i] = io;
        }
    }
    io_uring_cq_advance(ring, ready);
    r->outstanding -= ready;
    return ready;
}

/* Without a system call, can completions of I/O already in the kernel show
 * up in the CQ ring? Not with DEFER_TASKRUN (posted at GETEVENTS only), not
 * with IOPOLL (found by polling), not when the kernel flags pending task
 * work or an overflow. */
static inline int nvb__ring_needs_enter(const struct nvb__ring *r)
{
    if (r->defer || r->iopoll)
        return 1;
    unsigned f = IO_URING_READ_ONCE(*r->ring.sq.kflags);
    return (f & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)) != 0;
}

/*
 * The engines' reap(): hand back completions into out[got..max), `got`
 * being what the engine already put there itself (I/Os it failed before
 * they reached the ring). Waits until min are there (never for more than
 * is in flight) or about wait_ns passed. One io_uring_enter() at most in
 * the common case: it submits what submit() queued and waits for the
 * completions needed in the same call. Returns the count or -errno.
 */
static inline __attribute__((always_inline)) int
nvb__ring_reap(struct nvb__ring *r, struct nvb__io **out, unsigned max, unsigned min, unsigned got,
               unsigned cqe_shift, nvb__ring_res_fn *res, void *arg)
{
    struct io_uring *ring = &r->ring;

    if (min > max)
        min = max;
    if (min > got + r->outstanding)
        min = got + r->outstanding;  /* never wait for what was not submitted */

    for (;;) {
        unsigned ready = io_uring_cq_ready(ring);
        unsigned pending = io_uring_sq_ready(ring);
        unsigned need = got + ready >= min ? 0 : min - got; /* the kernel counts all ready CQEs */
        int rc = 0;

        if (need)
            rc = nvb__ring_submit_wait(r, need);
        else if (pending)
            /* (liburing's plain submit also asks for events on IOPOLL) */
            rc = r->defer || r->iopoll ? io_uring_submit_and_get_events(ring) : io_uring_submit(ring);
        else if (!ready && !got && r->outstanding && nvb__ring_needs_enter(r))
            rc = io_uring_get_events(ring);

        if (__builtin_expect(rc < 0, 0)) {
            if (rc == -EAGAIN || rc == -EBUSY) {
                /* The kernel is short of requests or of CQ room: completions
                 * free both. Take what is there, else wait for one. */
                if (!io_uring_cq_ready(ring)) {
                    if (r->outstanding <= pending)
                        return got ? (int)got : rc;  /* nothing of ours in flight to wait for */
                    rc = nvb__uring_wait_one(ring, nvb__wait_bound(r->wait_ns));
                    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY && rc != -ETIME)
                        return rc;
                }
            } else if (rc != -EINTR && rc != -ETIME) {
                return rc;
            }
        }

        got += nvb__ring_harvest(r, out + got, max - got, cqe_shift, res, arg);
        if (got >= min || rc == -ETIME)
            return (int)got; /* -ETIME: wait_ns passed; the runner decides */
    }
}

#endif /* NVB_HAVE_LIBURING */
#endif
