/* The io_uring ring the io_uring and nvme engines share: see ring.h. */
#include "core/engine.h"

#if NVB_HAVE_LIBURING
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engines/ring.h"
#include "nvbench.h"

const char *nvb__uring_err_text(int err)
{
    switch (err) {
    /* A seccomp filter may answer either errno (tests/c/test_engines.c
     * installs both), so ENOSYS alone does not prove an old kernel. */
    case -ENOSYS: return "the kernel has no io_uring (older than 5.1 or built without CONFIG_IO_URING), "
                         "or a seccomp/container policy hides it";
    case -EPERM:  return "io_uring is disabled or denied for this process (sysctl kernel.io_uring_disabled, "
                         "or a seccomp/container policy)";
    case -ENOMEM: return "cannot allocate the rings (RLIMIT_MEMLOCK too low on kernels before 5.12)";
    default:      return nvb_strerror(err);
    }
}

int nvb__ring_probe(unsigned flags, const int *ops, unsigned nops)
{
    struct io_uring ring;
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    p.flags = flags;
    int r = io_uring_queue_init_params(4, &ring, &p);
    if (r < 0)
        return r;
    struct io_uring_probe *pr = io_uring_get_probe_ring(&ring);
    int ok = pr != NULL;
    for (unsigned i = 0; ok && i < nops; i++)
        ok = io_uring_opcode_supported(pr, ops[i]);
    if (pr)
        io_uring_free_probe(pr);
    io_uring_queue_exit(&ring);
    return ok;
}

int nvb__ring_entries(const struct nvb__engine_ctx *ctx, const char *name, int64_t opt, unsigned *entries)
{
    unsigned qd = ctx->qd ? ctx->qd : 1;
    *entries = (unsigned)opt;
    if (!*entries) {
        *entries = 1;
        while (*entries < qd)
            *entries <<= 1;
    } else if (*entries < qd) {
        nvb__why(ctx->why, ctx->why_len, "%s: entries=%u is smaller than qd=%u", name, *entries, qd);
        return -EINVAL;
    }
    return 0;
}

void nvb__ring_used(const struct nvb__ring *r, const struct nvb__engine_ctx *ctx, unsigned flags)
{
    char ft[96];
    nvb__ring_flags_text(flags, ft, sizeof ft);
    nvb__used_set(ctx->used, "setup_flags", "%s", ft);
    nvb__used_set(ctx->used, "entries", "%u", r->ring.sq.ring_entries);
}

void nvb__ring_exit(struct nvb__ring *r)
{
    if (r->ring.ring_fd >= 0)
        io_uring_queue_exit(&r->ring);
}

/* Registered buffers are pinned and their pages charged to the user's
 * RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK: with both figures in
 * the message an ENOMEM says what to raise. Short enough for an
 * engine_used value (96 bytes with its prefix). */
void nvb__uring_memlock_hint(int r, size_t total, char *buf, size_t len)
{
    struct rlimit rl;
    buf[0] = '\0';
    if (r != -ENOMEM)
        return;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) {
        snprintf(buf, len, " (RLIMIT_MEMLOCK too low? see ulimit -l)");
        return;
    }
    snprintf(buf, len, " (RLIMIT_MEMLOCK %llu KiB, buffers %llu KiB)", (unsigned long long)rl.rlim_cur >> 10,
             ((unsigned long long)total + 1023) >> 10);
}

void nvb__ring_flags_text(unsigned f, char *buf, size_t len)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        { IORING_SETUP_SQE128, "SQE128" },
        { IORING_SETUP_CQE32, "CQE32" },
        { IORING_SETUP_IOPOLL, "IOPOLL" },
        { IORING_SETUP_SQPOLL, "SQPOLL" },
        { IORING_SETUP_SQ_AFF, "SQ_AFF" },
        { IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN" },
        { IORING_SETUP_TASKRUN_FLAG, "TASKRUN_FLAG" },
        { IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER" },
        { IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN" },
        { IORING_SETUP_NO_SQARRAY, "NO_SQARRAY" },
    };
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!(f & names[i].bit))
            continue;
        int w = snprintf(buf + o, len - o, "%s%s", o ? "|" : "", names[i].name);
        if (w < 0 || (size_t)w >= len - o)
            return;
        o += (size_t)w;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        f &= ~names[i].bit;
    if (f) { /* a bit this build has no name for */
        int w = snprintf(buf + o, len - o, "%s0x%x", o ? "|" : "", f);
        if (w < 0 || (size_t)w >= len - o)
            return;
        o += (size_t)w;
    }
    if (!o)
        snprintf(buf, len, "none");
}

/* "kernel refused <flags>" appended to fallback ("; " between). */
static void note_refused(char *fallback, size_t fallback_len, unsigned flags)
{
    char t[96];
    size_t o = strlen(fallback);
    nvb__ring_flags_text(flags, t, sizeof(t));
    snprintf(fallback + o, fallback_len - o, "%skernel refused %s", o ? "; " : "", t);
}

/* io_uring_queue_init_params() with p as given, for what liburing 2.3
 * does not know: with IORING_SETUP_NO_SQARRAY it would write its identity
 * map of SQ slots over the ring's head and tail (the kernel puts no array,
 * sq_off.array 0). Its io_uring_queue_mmap() maps and never writes the
 * array, so the map is written here, only when there is an array. */
static int ring_setup(unsigned entries, struct io_uring *ring, struct io_uring_params *p)
{
    const long fd = syscall(__NR_io_uring_setup, entries, p);
    if (fd < 0)
        return -errno;
    const int rc = io_uring_queue_mmap((int)fd, p, ring);
    if (rc < 0) {
        close((int)fd);
        return rc;
    }
    if (!(p->flags & IORING_SETUP_NO_SQARRAY))
        for (unsigned i = 0; i < *ring->sq.kring_entries; i++)
            ring->sq.array[i] = i;
    ring->features = p->features; /* as io_uring_queue_init_params() sets them (2.3's mmap: not features) */
    ring->flags = p->flags;
    ring->ring_fd = ring->enter_ring_fd = (int)fd;
    return 0;
}

int nvb__ring_init(struct nvb__ring *r, const struct nvb__engine_ctx *ctx, unsigned entries, unsigned base,
                   unsigned optional, const unsigned *cand, unsigned ncand, unsigned sq_cpu, unsigned *flags,
                   char *fallback, size_t fallback_len)
{
    int rc = -EINVAL;
    r->wait_ns = ctx->wait_ns;
    *flags = base;
    /* each candidate with the optional flags (opt), then without */
    for (unsigned i = 0, opt = optional != 0; i < ncand; i += !opt, opt = optional && !opt) {
        struct io_uring_params p;
        memset(&p, 0, sizeof(p));
        p.flags = base | cand[i] | (opt ? optional : 0);
        *flags = p.flags;
        if (base & IORING_SETUP_SQ_AFF)
            p.sq_thread_cpu = sq_cpu;
        rc = ring_setup(entries, &r->ring, &p);
        if (rc == 0 && optional && !opt) /* the same flags with the optional ones were refused */
            note_refused(fallback, fallback_len, optional);
        if (rc == 0) {
            *flags = p.flags;
            r->defer = !!(p.flags & IORING_SETUP_DEFER_TASKRUN);
            r->iopoll = !!(p.flags & IORING_SETUP_IOPOLL);
            r->direct = !(p.flags & IORING_SETUP_SQPOLL);
            r->enter_fd = r->ring.ring_fd;
            r->enter_flags = 0;
            return 0;
        }
        r->ring.ring_fd = -1;
        if (rc != -EINVAL)
            break;
        if (!opt && i + 1 < ncand)
            note_refused(fallback, fallback_len, cand[i]);
    }
    return rc;
}

int nvb__ring_register_files(struct nvb__ring *r, const struct nvb__engine_ctx *ctx, const char *name,
                             int64_t want, const int *fds, unsigned n)
{
    if (!want || !n)
        return 0;
    int rc = io_uring_register_files(&r->ring, fds, n);
    if (rc == 0)
        return 1;
    if (want == 1) {
        nvb__why(ctx->why, ctx->why_len, "%s: regfiles=1: registering %u files: %s", name, n, nvb_strerror(rc));
        return rc;
    }
    nvb__used_set(ctx->used, "regfiles_why", "io_uring_register_files: %s", nvb_strerror(rc));
    return 0;
}

int nvb__ring_register_bufs(struct nvb__ring *r, const struct nvb__engine_ctx *ctx, const char *name,
                            int64_t want, unsigned n)
{
    if (!want)
        return 0;
    if (!ctx->bufs || !ctx->buf_len) {
        if (want != 1)
            return 0;
        nvb__why(ctx->why, ctx->why_len, "%s: fixedbufs=1 but the runner gave no buffers", name);
        return -EINVAL;
    }
    struct iovec *iov = calloc(n, sizeof(*iov));
    if (!iov) {
        nvb__why(ctx->why, ctx->why_len, "%s: out of memory", name);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < n; i++) {
        iov[i].iov_base = ctx->bufs[i];
        iov[i].iov_len = ctx->buf_len;
    }
    int rc = io_uring_register_buffers(&r->ring, iov, n);
    free(iov);
    if (rc == 0)
        return 1;
    char hint[64];
    nvb__uring_memlock_hint(rc, (size_t)n * ctx->buf_len, hint, sizeof(hint));
    if (want == 1) {
        nvb__why(ctx->why, ctx->why_len, "%s: fixedbufs=1: registering %u buffers of %zu bytes: %s%s", name, n,
                 ctx->buf_len, nvb_strerror(rc), hint);
        return rc;
    }
    nvb__used_set(ctx->used, "fixedbufs_why", "io_uring_register_buffers: %s%s", nvb_strerror(rc), hint);
    return 0;
}

#endif /* NVB_HAVE_LIBURING */
