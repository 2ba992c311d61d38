/*
 * What the io_uring and nvme engines share (internal): the reasons the
 * kernel refuses a ring or pinned buffers (uring_util.c), and bounded
 * waits on a ring (inline, below).
 *
 * With ctx->wait_ns set, a reap() waits at most about that long and then
 * returns what it has, so that the runner can check its watchdog (a device
 * that stopped answering) and stop requests. The timeout travels with the
 * wait in one io_uring_enter() (IORING_ENTER_EXT_ARG, Linux 5.11); without
 * that feature liburing would queue a timeout request whose completion the
 * engines' harvest loops do not expect, so the wait stays unbounded there.
 * IOPOLL rings poll in the kernel, which does not apply the timeout.
 */
#ifndef NVB_ENGINES_URING_UTIL_H
#define NVB_ENGINES_URING_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <liburing.h>

/* Why io_uring_queue_init() failed with err, in words (ENOSYS, EPERM:
 * disabled or filtered; ENOMEM: the rings; else strerror). */
const char *nvb__uring_err_text(int err);
/* For an ENOMEM from registering `total` bytes of buffers: " (RLIMIT_MEMLOCK
 * N KiB, buffers M KiB)", else "". */
void nvb__uring_memlock_hint(int r, size_t total, char *buf, size_t len);

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

/* Wait for one completion: 0, -ETIME when wait_ns passed first, or -errno. */
static inline int nvb__uring_wait_one(struct io_uring *ring, uint64_t wait_ns)
{
    struct __kernel_timespec ts;
    struct io_uring_cqe *cqe;
    if (!nvb__uring_timed(ring, wait_ns, &ts))
        return io_uring_wait_cqe(ring, &cqe);
    return io_uring_wait_cqe_timeout(ring, &cqe, &ts);
}

#endif
