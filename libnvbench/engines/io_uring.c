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
 *  - submit() reserves the batch's SQEs with one look at the ring and fills
 *    each from a template made at setup for its target and direction
 *    (opcode, file, fixed-file and fixed-buffer choices, the direction's
 *    RWF_* flags): per I/O only the buffer, length, offset and slot are
 *    written, with the rest of the SQE in whole 8-byte words. Setup picks
 *    how the template is found (enum fill): nop=1, or a job that only
 *    reads one target, one template for all, written into every slot of
 *    the ring at setup, so that per I/O only what changes is written (for
 *    a NOP, user_data alone); one target without trims or
 *    a per-I/O priority, by direction alone
 *    (the job's own priority is in the template); else by target and
 *    direction, with the tests for trims and priorities.
 *  - A blocking reap waits for `wait_min` completions (at least the
 *    runner's min, never more than in flight), so that a full queue is not
 *    one io_uring_enter() per completion on a device (docs/engines.md).
 *
 * nop=1: every I/O is an IORING_OP_NOP, completed by the kernel at once
 * with the I/O's length: the runner's loop plus the ring, on any machine.
 * The engine then moves no data, so planning treats it as the null engine
 * does (NVB__ENG_NO_FILES): no target needed, a target named is examined
 * (its size bounds the offsets) but never opened, so never written.
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
    OPT_NOP,
    OPT_WAIT_MIN,
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
    [OPT_SQPOLL_CPU] = { "sqpoll_cpu", NVB__OPT_CPU, -1, -1, 4095,
        "CPU for the SQPOLL thread (-1: not pinned; local: a CPU of the target device's NUMA node)" },
    [OPT_IOPOLL] = { "iopoll", NVB__OPT_BOOL, 0, 0, 1,
        "busy-poll for completions (IORING_SETUP_IOPOLL); needs direct=1 and a device with poll queues" },
    [OPT_ENTRIES] = NVB__RING_OPT_ENTRIES,
    [OPT_COOP_TASKRUN] = { "coop_taskrun", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "IORING_SETUP_COOP_TASKRUN|TASKRUN_FLAG (-1: used when DEFER_TASKRUN is unavailable)" },
    [OPT_DEFER_TASKRUN] = NVB__RING_OPT_DEFER_TASKRUN,
    [OPT_REGISTER_RING] = { "register_ring", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "register the ring fd with io_uring_register_ring_fd (-1: try)" },
    [OPT_NOP] = { "nop", NVB__OPT_BOOL, 0, 0, 1,
        "every I/O an IORING_OP_NOP: no data moves, targets are never opened (the loop and the ring alone)" },
    [OPT_WAIT_MIN] = { "wait_min", NVB__OPT_INT, 0, 0, 32768,
        "completions a blocking reap waits for, at least the runner's (complete_batch), at most those in "
        "flight (0: qd/8, at least 1)" },
    { NULL, 0, 0, 0, 0, NULL },
};

#if NVB_HAVE_LIBURING
/* A template's index: (target & tmask) << 2 | dir (NVB_READ, NVB_WRITE,
 * NVB_TRIM are below 4). */
#define TMPL_SHIFT 2

/* What differs between the SQEs of two targets or directions: the first 8
 * bytes of an SQE, in its layout, and its rw_flags (the I/O modes' RWF_*
 * of the direction, core/iomode.h). Everything else is the I/O's own or 0
 * in every SQE this engine makes, so 16 bytes per target and direction
 * (not a whole 64-byte SQE: 64 targets stay within a few cache lines). */
struct tmpl {
    uint8_t opcode, flags;
    uint16_t ioprio;
    int32_t fd;
    uint32_t rw_flags;
    uint8_t slow;            /* a trim: its SQE is made by nvb__uring_prep_trim, of kind slow - 1 */
    uint8_t pad[3];
};
_Static_assert(sizeof(struct tmpl) == 16 && offsetof(struct io_uring_sqe, fd) == 4 &&
               offsetof(struct io_uring_sqe, off) == 8, "struct tmpl starts as an SQE's first 8 bytes");
/* The SQE's words the fill writes whole: len and rw_flags; buf_index,
 * personality and file_index. */
_Static_assert(offsetof(struct io_uring_sqe, len) == 24 && offsetof(struct io_uring_sqe, rw_flags) == 28 &&
               offsetof(struct io_uring_sqe, buf_index) == 40 && offsetof(struct io_uring_sqe, personality) == 42 &&
               offsetof(struct io_uring_sqe, file_index) == 44, "the SQE's layout");

/* Two 4-byte fields, lo at the lower address, as one 8-byte word; and the
 * shift of a 2-byte field at the lowest address of one. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define mem2x32(lo, hi) ((uint64_t)(uint32_t)(lo) | (uint64_t)(uint32_t)(hi) << 32)
#define BUF_INDEX_SHIFT 0
#else
#define mem2x32(lo, hi) ((uint64_t)(uint32_t)(hi) | (uint64_t)(uint32_t)(lo) << 32)
#define BUF_INDEX_SHIFT 48
#endif

/* How submit() finds each SQE's template, decided at setup: the fewer
 * per-I/O decisions, the fewer instructions per I/O. */
enum fill {
    FILL_ONE,  /* every I/O the same (only reads): the template is in every slot already (prefill) */
    FILL_NOP,  /* nop=1: the same, and a NOP reads nothing of its SQE but the template and user_data */
    FILL_DIR,  /* one target, no trims, no per-I/O priority: by direction */
    FILL_ANY,  /* by target and direction; trims; a priority per I/O */
};

struct uring {
    struct nvb__ring r;
    struct tmpl *tmpl;       /* per target and direction: what every SQE of it starts as */
    unsigned tmask;          /* 0 with nop=1 (one set of templates), else ~0 */
    uint32_t bmask;          /* buf_index = slot & bmask: 0xffff with fixed buffers, else 0 */
    unsigned wait_min;       /* completions a blocking reap waits for */
    unsigned char nop;
    unsigned char sqpoll;
    unsigned char fill;      /* enum fill */
    unsigned char *blk;      /* trims: which targets are block devices */
    struct nvb__prio prio;   /* each SQE's ioprio (the job's own too: the submitter may be SQPOLL's thread) */
};

static void uring_teardown(void *state)
{
    struct uring *u = state;
    if (!u)
        return;
    /* Exiting the ring cancels or waits for whatever is still in flight and
     * drops the registered buffers, files and ring fd with it. */
    nvb__ring_exit(&u->r);
    free(u->tmpl);
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
    int r = nvb__ring_init(&u->r, ctx, entries, base, IORING_SETUP_NO_SQARRAY, cand, ncand,
                           (unsigned)ctx->opts[OPT_SQPOLL_CPU], &tried, fallback, fallback_len);
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

/* Whether each I/O's priority is decided on its own (cmdprio_pct, or by
 * size: cmdprio_bssplit), rather than being the job's in every SQE (its
 * template's ioprio). */
static int prio_per_io(const struct nvb__prio *p)
{
    return p->cmd_pct != 0 || p->split_on;
}

/* The SQE every I/O of a target and direction starts as: the opcode (the
 * fixed-buffer variants when the buffers are registered: the runner's
 * slot i always uses ctx->bufs[i], within buf_len), the file (its index
 * when registered) and the flags. 0 or -ENOMEM. */
static int make_templates(const struct nvb__engine_ctx *ctx, struct uring *u, int fixed, int regfiles)
{
    const unsigned nt = u->nop || !ctx->nfds ? 1 : ctx->nfds;
    u->prio = ctx->prio;
    u->tmask = nt > 1 || (!u->nop && ctx->nfds) ? ~0u : 0u;
    u->bmask = fixed ? 0xffffu : 0;
    u->tmpl = calloc((size_t)nt << TMPL_SHIFT, sizeof *u->tmpl);
    if (!u->tmpl) {
        nvb__why(ctx->why, ctx->why_len, "io_uring: out of memory");
        return -ENOMEM;
    }
    for (unsigned t = 0; t < nt; t++) {
        struct io_uring_sqe s[1u << TMPL_SHIFT];
        const int fd = !ctx->nfds ? -1 : regfiles ? (int)t : ctx->fds[t];
        memset(s, 0, sizeof s);
        if (u->nop) {
            for (unsigned d = 0; d < 1u << TMPL_SHIFT; d++)
                io_uring_prep_nop(&s[d]);
        } else if (fixed) {
            io_uring_prep_read_fixed(&s[NVB_READ], fd, NULL, 0, 0, 0);
            io_uring_prep_write_fixed(&s[NVB_WRITE], fd, NULL, 0, 0, 0);
        } else {
            io_uring_prep_read(&s[NVB_READ], fd, NULL, 0, 0);
            io_uring_prep_write(&s[NVB_WRITE], fd, NULL, 0, 0);
        }
        if (!u->nop)
            nvb__uring_prep_trim(&s[NVB_TRIM], fd, nvb__uring_trim_kind(u->blk ? u->blk[t] : 0, ctx->zeroes), 0, 0);
        for (unsigned d = 0; d < 1u << TMPL_SHIFT; d++) {
            struct tmpl *tm = &u->tmpl[t << TMPL_SHIFT | d];
            if (regfiles && fd >= 0 && !u->nop)
                s[d].flags |= IOSQE_FIXED_FILE;
            memcpy(tm, &s[d], 8);
            tm->rw_flags = d == NVB_READ ? ctx->rflags : d == NVB_WRITE ? ctx->wflags : 0; /* (0 with nop=1) */
            /* a trim: 1 + its kind (nvb__uring_trim_kind) */
            tm->slow = !u->nop && d == NVB_TRIM
                           ? (uint8_t)(1 + nvb__uring_trim_kind(u->blk ? u->blk[t] : 0, ctx->zeroes)) : 0;
            if (!prio_per_io(&u->prio) && !tm->slow)
                tm->ioprio = u->prio.dflt; /* the job's own: the same in every SQE */
        }
    }
    /* (a NOP's templates are the same for every direction; a job that
     * neither writes nor trims reads: FILL_ONE takes the read's) */
    const int plain = nt == 1 && !ctx->trims && !prio_per_io(&u->prio);
    u->fill = plain && u->nop ? FILL_NOP : plain && !ctx->writes ? FILL_ONE : plain ? FILL_DIR : FILL_ANY;
    return 0;
}

/* FILL_ONE and FILL_NOP: every slot of the ring set to the one template
 * once, so that the fill writes only what changes from one I/O to the next
 * (the kernel only reads SQEs, and nothing else writes this ring's). */
static void prefill(struct uring *u)
{
    struct io_uring_sq *sq = &u->r.ring.sq;
    for (unsigned i = 0; i <= sq->ring_mask; i++) {
        struct io_uring_sqe *sqe = &sq->sqes[i];
        memset(sqe, 0, sizeof *sqe);
        memcpy(sqe, &u->tmpl[NVB_READ], 8);
        sqe->rw_flags = u->tmpl[NVB_READ].rw_flags;
    }
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
    const int nop = ctx->opts[OPT_NOP] != 0;
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
    if (sqcpu != -1 && !sqpoll) {
        if (sqcpu == NVB__OPT_LOCAL || ctx->opts_set[OPT_SQPOLL_CPU] == 2) /* the word the user wrote */
            nvb__why(ctx->why, ctx->why_len, "io_uring: sqpoll_cpu=local needs sqpoll=1");
        else
            nvb__why(ctx->why, ctx->why_len, "io_uring: sqpoll_cpu=%lld needs sqpoll=1", (long long)sqcpu);
        return -EINVAL;
    }
    if (sqcpu < 0)
        sqcpu = -1; /* local on a device of no known node: not pinned (the result warns) */
    if (sqpoll && (ctx->opts[OPT_DEFER_TASKRUN] == 1 || ctx->opts[OPT_COOP_TASKRUN] == 1)) {
        nvb__why(ctx->why, ctx->why_len,
                 "io_uring: defer_taskrun/coop_taskrun cannot be combined with sqpoll=1");
        return -EINVAL;
    }
    if (nop && (fixedbufs == 1 || regfiles == 1)) {
        nvb__why(ctx->why, ctx->why_len, "io_uring: %s=1 needs nop=0: a NOP uses no %s",
                 fixedbufs == 1 ? "fixedbufs" : "regfiles", fixedbufs == 1 ? "buffer" : "file");
        return -EINVAL;
    }
    if (nop && (ctx->rflags | ctx->wflags)) {
        /* (a NOP's rw_flags are its own flags: RWF_DSYNC would read as
         * IORING_NOP_FILE and fail every write with EBADF) */
        const unsigned f = ctx->rflags | ctx->wflags;
        nvb__why(ctx->why, ctx->why_len, "io_uring: %s=1 needs nop=0: a NOP moves no data",
                 f & NVB__RWF_DONTCACHE ? "uncached" : f & NVB__RWF_ATOMIC ? "atomic" : "fua");
        return -EINVAL;
    }
    if (nop)
        fixedbufs = regfiles = 0;
    if (nvb__ring_entries(ctx, "io_uring", ctx->opts[OPT_ENTRIES], &entries) < 0)
        return -EINVAL;

    struct uring *u = calloc(1, sizeof(*u));
    if (!u) {
        nvb__why(ctx->why, ctx->why_len, "io_uring: out of memory");
        return -ENOMEM;
    }
    u->nop = (unsigned char)nop;
    u->wait_min = ctx->opts[OPT_WAIT_MIN] ? (unsigned)ctx->opts[OPT_WAIT_MIN] : qd / 8 ? qd / 8 : 1;
    if ((r0 = nvb__iomode_setup(ctx, "io_uring")) < 0) { /* uncached, atomic, fua */
        free(u);
        return r0;
    }

    unsigned base = 0;
    if (sqpoll)
        base |= IORING_SETUP_SQPOLL | (sqcpu >= 0 ? IORING_SETUP_SQ_AFF : 0);
    if (iopoll)
        base |= IORING_SETUP_IOPOLL;

    if (!nop && (r0 = nvb__uring_trim_setup(ctx, &u->blk)) < 0) {
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
        if (r == 1) { /* the reap's own io_uring_enter() uses the index too */
            u->r.enter_fd = u->r.ring.enter_ring_fd;
            u->r.enter_flags = IORING_ENTER_REGISTERED_RING;
        }
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
    const int fixed = r > 0;
    nvb__used_set(ctx->used, "fixedbufs", "%d", fixed);

    r = nvb__ring_register_files(&u->r, ctx, "io_uring", regfiles, ctx->fds, ctx->nfds);
    if (r < 0)
        goto fail;
    nvb__used_set(ctx->used, "regfiles", "%d", r);
    if ((r = make_templates(ctx, u, fixed, r)) < 0)
        goto fail;
    if (u->fill == FILL_ONE || u->fill == FILL_NOP)
        prefill(u);
    nvb__used_set(ctx->used, "sqpoll", "%d", u->sqpoll);
    if (u->sqpoll && sqcpu >= 0)
        nvb__used_set(ctx->used, "sqpoll_cpu", "%lld", (long long)sqcpu);
    nvb__used_set(ctx->used, "iopoll", "%d", u->r.iopoll);
    nvb__used_set(ctx->used, "nop", "%d", u->nop);
    nvb__used_set(ctx->used, "wait_min", "%u", u->wait_min);

    *state = u;
    return 0;
fail:
    uring_teardown(u);
    return r < 0 ? r : -EINVAL;
}

/* What an SQE of io has of its own, in 8-byte words: off, addr, len with
 * rw_flags, user_data, buf_index with personality and file_index (0). */
static inline __attribute__((always_inline)) void fill_io(struct io_uring_sqe *sqe, const struct nvb__io *io,
                                                          uint32_t rw_flags, uint32_t bmask)
{
    const uint64_t lw = mem2x32(io->len, rw_flags);
    const uint64_t bw = (uint64_t)(io->slot & bmask) << BUF_INDEX_SHIFT;
    sqe->off = io->off;
    sqe->addr = (uintptr_t)io->buf;
    memcpy(&sqe->len, &lw, 8);
    sqe->user_data = (uintptr_t)io;
    memcpy(&sqe->buf_index, &bw, 8);
}

/* One SQE for io from template t: every field, as io_uring_prep_rw() does
 * (the slot holds an earlier request's values): the template's head,
 * fill_io's words, addr3, __pad2. */
static inline __attribute__((always_inline)) void fill_rw(struct io_uring_sqe *sqe, const struct nvb__io *io,
                                                          uint64_t head, uint32_t rw_flags, uint32_t bmask)
{
    memcpy(sqe, &head, 8);
    fill_io(sqe, io, rw_flags, bmask);
    sqe->addr3 = 0;
    sqe->__pad2[0] = 0;
}

/* The batch's SQEs, the ring's slots from sqe_tail on walked by pointer
 * (once round the end of the ring at most), each from the template `fill`
 * (a constant at each call, so each mode is its own loop) picks. */
static inline __attribute__((always_inline)) void fill_batch(struct uring *u, struct nvb__io **ios, unsigned n,
                                                             enum fill fill)
{
    struct io_uring_sq *sq = &u->r.ring.sq;
    struct io_uring_sqe *const sqes = sq->sqes;
    const unsigned tail = sq->sqe_tail, mask = sq->ring_mask, tmask = u->tmask;
    const struct tmpl *const tmpl = u->tmpl;
    const uint32_t bmask = u->bmask;
    const int per_io_prio = prio_per_io(&u->prio);
    const uint32_t rwf1 = tmpl[NVB_READ].rw_flags; /* FILL_ONE: the template's (in the slots: prefill) */
    struct io_uring_sqe *sqe = &sqes[tail & mask];
    unsigned room = mask + 1 - (tail & mask); /* slots before the end of the ring */
    for (unsigned i = 0; i < n; sqe = sqes, room = mask + 1) {
        const unsigned end = n - i < room ? n : i + room;
        for (; i < end; i++, sqe++) {
            struct nvb__io *io = ios[i];
            if (fill == FILL_NOP) {
                sqe->user_data = (uintptr_t)io;
                continue;
            }
            if (fill == FILL_ONE) { /* what differs from the template in the slot */
                fill_io(sqe, io, rwf1, bmask);
                continue;
            }
            const struct tmpl *t = fill == FILL_DIR ? &tmpl[io->dir]
                                                    : &tmpl[(io->target & tmask) << TMPL_SHIFT | io->dir];
            uint64_t head;
            memcpy(&head, t, 8);
            if (fill == FILL_ANY && __builtin_expect(t->slow, 0)) {
                nvb__uring_prep_trim(sqe, t->fd, t->slow - 1, io->off, io->len);
                sqe->flags = t->flags;
                sqe->user_data = (uintptr_t)io;
                continue;
            }
            fill_rw(sqe, io, head, t->rw_flags, bmask);
            if (fill == FILL_ANY && per_io_prio)
                sqe->ioprio = nvb__prio_next(&u->prio, io->dir, io->len);
        }
    }
    sq->sqe_tail = tail + n;
    u->r.outstanding += n;
}

static int uring_submit(void *state, struct nvb__io **ios, unsigned n)
{
    struct uring *u = state;
    int rc = nvb__ring_reserve(&u->r, n, u->sqpoll);
    if (__builtin_expect(rc < 0, 0))
        return rc;
    switch (u->fill) {
    case FILL_NOP: fill_batch(u, ios, n, FILL_NOP); break;
    case FILL_ONE: fill_batch(u, ios, n, FILL_ONE); break;
    case FILL_DIR: fill_batch(u, ios, n, FILL_DIR); break;
    default:       fill_batch(u, ios, n, FILL_ANY); break;
    }
    return 0;
}

/* A short count (EOF, end of device) is the answer, not an error; a trim
 * that succeeds (0) did its whole length. */
static inline void uring_res(void *arg, struct nvb__io *io, int res)
{
    (void)arg;
    io->res = __builtin_expect(res == 0 && io->dir == NVB_TRIM, 0) ? (int64_t)io->len : res;
}

/* A NOP completes with 0 (or an error): done, the I/O's whole length. */
static inline void nop_res(void *arg, struct nvb__io *io, int res)
{
    (void)arg;
    io->res = __builtin_expect(res == 0, 1) ? (int64_t)io->len : res;
}

static int uring_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct uring *u = state;
    if (min && min < u->wait_min)
        min = u->wait_min; /* nvb__ring_reap caps it at what is in flight */
    if (u->nop)
        return nvb__ring_reap(&u->r, out, max, min, 0, 0, nop_res, NULL);
    return nvb__ring_reap(&u->r, out, max, min, 0, 0, uring_res, NULL);
}

static unsigned uring_opt_flags(const int64_t *opts)
{
    return opts[OPT_NOP] ? NVB__ENG_NO_FILES : 0u;
}

#endif /* NVB_HAVE_LIBURING */

/* .abandon: closing a ring does not wait for its requests (the kernel
 * finishes them in the background): safe with I/O abandoned in flight. */
NVB__ENGINE_DEFINE(io_uring, NVB__ENG_TRIM | NVB__ENG_SUBMIT_QUEUES | NVB__ENG_PRIO, uring_opts,
    "Linux io_uring via liburing: batched submission, registered buffers/files, SQPOLL/IOPOLL",
    NVB__ENGINE_IF(NVB_HAVE_LIBURING, NVB__NEEDS_LINUX_LIB("liburing", "io_uring", "ioring"),
        .probe = uring_probe, NVB__ENGINE_OPS(uring), .abandon = uring_teardown,
        .opt_flags = uring_opt_flags));
