/*
 * The engine interface (internal).
 *
 * One engine = one file = one const struct nvb__engine. An engine never sees
 * the workload or the result: it gets a narrow context (file descriptors,
 * queue depth, buffers, its own parsed options) and moves struct nvb__io
 * slots between "submitted" and "completed". The runner owns the slots, the
 * buffers, the time stamps and all accounting.
 */
#ifndef NVB_CORE_ENGINE_H
#define NVB_CORE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "util/rand.h"

/* One I/O slot. The runner fills buf/off/len/target/dir before submit; the
 * engine sets res (bytes transferred, or -errno) before returning the slot
 * from reap(). `eng` is scratch space an engine may use (e.g. its iocb). */
struct nvb__io {
    void     *buf;
    uint64_t  off;
    uint32_t  len;
    uint32_t  slot;      /* 0..qd-1, stable: index of buf for fixed buffers */
    uint16_t  target;    /* index into ctx->fds */
    uint8_t   dir;       /* NVB_READ / NVB_WRITE / NVB_TRIM (discard: buf unused) */
    uint8_t   flags;     /* NVB__IOF_* below; engines leave them alone */
    uint8_t   bsk;       /* the runner's: the size's index in its per-size counts (bssplit) */
    int64_t   res;
    uint64_t  t_sub;     /* submission stamp (ns): the runner's, one per submit
                          * batch (stored after the call: engines do not read
                          * it); an engine that issues the slots of a batch
                          * one system call at a time (NVB__ENG_STAMPS)
                          * overwrites it just before each, so later slots do
                          * not absorb the issue time of earlier ones */
    uint64_t  t_done;    /* NVB__ENG_STAMPS engines only: the completion
                          * stamp (ns) when the engine took the completion
                          * off the device, or 0 (the runner zeroes it at
                          * submission); the runner stamps completions when
                          * reap() returns and does not read it for others */
    uint64_t  t_sent;    /* the runner's: when the submit call that took it
                          * returned (slat = t_sent - t_sub, clat = t_done -
                          * t_sent); t_sub for engines that complete I/O inside
                          * submit (NVB__ENG_SYNC) */
    uint64_t  t_due;     /* the runner's, open-loop rate only: the intended
                          * start, where its latency counts from */
    void     *eng;       /* engine-private per-slot data */
};

/* Bits of struct nvb__io.flags, all defined here so that no two owners
 * pick the same bit: the runner's and the fault wrapper's (core/fault.h). */
#define NVB__IOF_RAMP        0x01u  /* runner: submitted during the ramp, not counted */
#define NVB__IOF_FAULT_ERR   0x02u  /* fault: failed with cfg.err without reaching the engine */
#define NVB__IOF_FAULT_SHORT 0x04u  /* fault: transfer cut short */
#define NVB__IOF_FAULT_DELAY 0x08u  /* fault: completion held back */
#define NVB__IOF_FAULT_ALL   (NVB__IOF_FAULT_ERR | NVB__IOF_FAULT_SHORT | NVB__IOF_FAULT_DELAY)
#define NVB__IOF_INFLIGHT    0x10u  /* runner: submitted (the watchdog scan clears it on the free list first) */

enum nvb__opt_type {
    NVB__OPT_BOOL = 1,      /* 0/1 */
    NVB__OPT_AUTOBOOL,      /* -1 auto (the engine decides and reports), 0, 1 */
    NVB__OPT_INT,           /* integer in [min, max] */
    NVB__OPT_CPU,           /* a CPU: integer in [min, max], or "local" (NVB__OPT_LOCAL, which the core replaces
                             * before setup by a CPU of the target device's NUMA node; left as it is, with a
                             * warning, when the node is unknown: the engine then pins nothing) */
};
#define NVB__OPT_LOCAL (-2)

/* One engine-specific option ("io_uring.sqpoll" is engine io_uring, name sqpoll). */
struct nvb__optdef {
    const char *name;
    enum nvb__opt_type type;
    int64_t def, min, max;
    const char *doc;
};

#define NVB__ENGINE_MAX_OPTS 16
#define NVB__USED_MAX 16

/* What the engine actually used, reported in the result ("engine_opts"). */
struct nvb__used {
    unsigned n;
    struct { char key[32]; char val[96]; } kv[NVB__USED_MAX];
};

/* End-to-end protection information and metadata of NVMe commands (the
 * workload's pi_act, pi_chk, apptag, apptag_mask, md_per_io_size; core/pi.c).
 * Only the nvme engine takes a workload that sets any (the plan refuses it
 * for the others); all zero: none. */
#define NVB__PI_GUARD  1u
#define NVB__PI_APPTAG 2u
#define NVB__PI_REFTAG 4u
struct nvb__pi {
    unsigned act;              /* PRACT */
    unsigned chk;              /* NVB__PI_* bits: PRCHK */
    uint16_t apptag, apptag_mask;
    uint64_t md_per_io;        /* bytes of the metadata buffer each I/O carries */
};

/* I/O priorities (core/ioprio.c): each I/O's, the kernel's ioprio value
 * (class << 13 | level; 0: none, the thread's). The job's own (ioprio_class,
 * ioprio) is its thread's, set before setup(); an engine whose kernel
 * interface takes a per-I/O priority gives cmd to cmd_pct percent of its
 * I/Os, drawn with rng, and dflt to the rest (the job's own, for an
 * interface whose submitter may be another thread: io_uring's SQPOLL);
 * with cmdprio_bssplit, by size and direction from split instead. */
#define NVB__PRIO_SPLIT_MAX 32 /* cmdprio_bssplit entries per direction */
#define NVB__PRIO_FROM_CMD 0xffffu /* an entry of the simple form: cmdprio_class/cmdprio */
struct nvb__prio_ent {
    uint32_t len;              /* the I/O size it applies to */
    uint16_t value;            /* the kernel's ioprio value */
    uint8_t  pct;              /* percent of the I/Os of that size and direction */
};
/* cmdprio_bssplit (core/ioprio.c): by direction (read, write), the entries
 * in the order given; the entries of one size add up to at most 100. */
struct nvb__prio_split {
    uint8_t n[2];
    struct nvb__prio_ent e[2][NVB__PRIO_SPLIT_MAX];
};
struct nvb__prio {
    uint16_t dflt, cmd;
    unsigned cmd_pct;
    uint64_t rng;
    int      split_on;         /* draw by size from split (cmdprio_bssplit) */
    struct nvb__prio_split split;
};
/* cmdprio_bssplit: one draw for an I/O whose size has entries: the first
 * entry whose running sum of percents passes it; otherwise dflt (fio's). */
static inline uint16_t nvb__prio_split_next(struct nvb__prio *p, unsigned dir, uint32_t len)
{
    if (dir > 1)
        return p->dflt;
    const struct nvb__prio_ent *e = p->split.e[dir];
    unsigned r = 100, sum = 0;
    for (unsigned i = 0; i < p->split.n[dir]; i++) {
        if (e[i].len != len)
            continue;
        if (r == 100)
            r = (unsigned)(nvb__splitmix64(&p->rng) % 100u);
        sum += e[i].pct;
        if (r < sum)
            return e[i].value;
    }
    return p->dflt;
}
/* The priority of the next I/O, of direction dir and len bytes (engines
 * flagged NVB__ENG_PRIO). */
static inline uint16_t nvb__prio_next(struct nvb__prio *p, unsigned dir, uint32_t len)
{
    if (p->split_on)
        return nvb__prio_split_next(p, dir, len);
    if (!p->cmd_pct)
        return p->dflt;
    return nvb__splitmix64(&p->rng) % 100u < p->cmd_pct ? p->cmd : p->dflt;
}

struct nvb__engine_ctx {
    unsigned     qd;           /* slots this job keeps in flight at most */
    unsigned     nfds;
    const int   *fds;          /* one per target of this job, opened by the runner */
    int          direct;       /* fds opened with O_DIRECT */
    int          writes;       /* the workload issues writes */
    int          trims;        /* the workload issues trims (dir NVB_TRIM: discard
                                * [off, off + len); buf unused): only engines
                                * flagged NVB__ENG_TRIM get them */
    void *const *bufs;         /* qd buffers of buf_len bytes, page aligned */
    size_t       buf_len;
    int          cpu;          /* CPU this job is pinned to, or -1 */
    const int64_t *opts;       /* values of engine->opts[i], defaults filled in */
    const unsigned char *opts_set; /* opts_set[i] != 0 when the user set it; 2: a CPU given as "local" (opts[i] is
                                    * then the CPU the core chose, or still NVB__OPT_LOCAL) */
    struct nvb__used *used;    /* engine records what it used (may be NULL) */
    const uint64_t *wait_ns;   /* longest one blocking wait in reap() may last, then it
                                * returns what it has (fewer than min, maybe 0) so
                                * that the runner can check its watchdog, stop
                                * requests and the next I/O's intended start (an
                                * open-loop rate); read at every wait, as the runner
                                * changes it between calls (nvb__wait_bound());
                                * NULL or 0: wait until min are there */
    uint64_t     io_timeout_ns; /* the run's io_timeout: the longest an I/O that
                                * setup() makes may take, then it fails with
                                * -ETIMEDOUT (the runner then keeps the
                                * buffers); 0: no bound */
    unsigned     rflags, wflags; /* RWF_* each read, each write carries (core/iomode.h); 0: none */
    struct nvb__pi pi;         /* protection information and metadata (passthrough; core/pi.c) */
    int          zeroes;       /* trims write zeroes instead of discarding (psync, io_uring, nvme) */
    struct nvb__prio prio;     /* I/O priorities (NVB__ENG_PRIO engines); all 0: none */
    char        *why;          /* reason for a failure of setup(), NUL-terminated */
    size_t       why_len;
};

enum {
    NVB__ENG_SYNC = 1,        /* completes every I/O inside submit(): qd is 1 per job */
    NVB__ENG_NO_FILES = 2,    /* does no I/O on the targets (null) */
    NVB__ENG_CHARDEV = 4,     /* drives character devices (nvme: what its
                               * prepare_target() maps each target to): the
                               * runner takes them as targets, opens them
                               * without O_DIRECT and treats I/O as direct */
    NVB__ENG_SYNC_BUFFERED = 8, /* completes buffered (direct=0) I/O inside
                               * submit(), one after another: such a run is
                               * qd 1 per job */
    NVB__ENG_TRIM = 16,       /* takes I/Os of dir NVB_TRIM (rw=trim,
                               * randtrim); the planner refuses trims to
                               * the others */
    NVB__ENG_PRIO = 64,       /* gives each I/O the priority ctx->prio picks
                               * (cmdprio_pct: nvb__prio_next()); the planner
                               * refuses cmdprio_pct to the others */
    NVB__ENG_STAMPS = 128,    /* stamps each I/O's t_sub as it issues it and
                               * its t_done as it takes the completion (one
                               * system call per slot: iocp); the runner
                               * stamps the others' */
    NVB__ENG_SUBMIT_QUEUES = 32, /* submit() only queues (fills submission
                               * entries); the kernel is entered in reap():
                               * a slat then times the queueing alone */
};

/*
 * A target as planning found it, handed to an engine's prepare_target():
 * what jobs will open and what the run checks there. An engine that drives
 * something other than the name given rewrites it (nvme: the namespace's
 * generic node, its size and LBA size); the runner then plans the region,
 * the alignment and the hold on what it says.
 */
struct nvb__target_prep {
    const char *path;           /* in: the target as named */
    uint64_t    bs;             /* in: the workload's block size */
    char       *file;           /* what jobs open, path to begin with (file_len bytes) */
    size_t      file_len;
    char       *claim;          /* a block device a writer holds O_EXCL while
                                 * the run lasts, "" to begin with (claim_len) */
    size_t      claim_len;
    char       *dev;            /* kernel name of the block device ("nvme0n1"),
                                 * or "" (dev_len) */
    size_t      dev_len;
    uint64_t    size;           /* bytes */
    uint32_t    lbs;            /* logical block size, bytes */
    uint64_t    id_dev, id_ino, id_rdev; /* what the hold must find when it
                                          * opens file (0: unknown) */
    const char *whole_blocks;   /* out: NULL, or why every I/O must be whole
                                 * logical blocks even without direct=1 */
};

struct nvb__engine {
    const char *name;
    const char *desc;
    unsigned    flags;
    const struct nvb__optdef *opts;  /* terminated by {NULL}; kept when compiled
                                      * out, so that workloads naming its keys
                                      * still parse and fail with the reason */
    /* NULL, or why this build cannot run the engine at all (compiled out:
     * another OS, a library missing at build time). nvb_engine_probe()
     * answers -ENOTSUP with this text and never calls probe(); fill the
     * ops with NVB__ENGINE_UNAVAILABLE(). */
    const char *unavailable;
    /* Does it work here? 0, or negative errno with a reason in why.
     * Must be cheap-ish and thread-safe; the registry caches the answer. */
    int  (*probe)(char *why, size_t why_len);
    /* Per job thread. Returns 0 and *state, or negative errno + ctx->why. */
    int  (*setup)(const struct nvb__engine_ctx *ctx, void **state);
    /* Queue n slots. May defer the system call to reap(). 0 or -errno
     * (a fatal error: the run stops). Per-I/O failures go to io->res. */
    int  (*submit)(void *state, struct nvb__io **ios, unsigned n);
    /* Hand back completed slots into out[0..max). Blocks until at least
     * `min` are available (min may be 0: never block), or for about
     * ctx->wait_ns when that is set. Submits anything deferred by submit().
     * Returns the count or -errno (fatal). */
    int  (*reap)(void *state, struct nvb__io **out, unsigned max, unsigned min);
    void (*teardown)(void *state);
    /* Optional (NULL: the state is left allocated). Instead of teardown()
     * when the runner gives up on I/O still in flight (the watchdog fired):
     * release what can go without waiting for the device (teardown() may
     * block until it answers), keeping any memory the kernel may still
     * write into. The runner keeps the slots and buffers allocated. */
    void (*abandon)(void *state);
    /* Optional (NULL: none). Called on the job thread after its last reap()
     * and before teardown(): a note for the result's warnings about what the
     * per-I/O errno alone cannot say (the NVMe status codes behind EIO).
     * Leaves msg empty when there is nothing to say. */
    void (*note)(void *state, char *msg, size_t len);
    /* Optional (NULL: jobs open each target as named). Called while
     * planning, for every target, after the destructive-write guard has
     * passed it: rewrites t for what the engine drives instead. 0, or
     * negative errno with a message naming the target in err; the runner
     * refuses the workload with it. */
    int  (*prepare_target)(struct nvb__target_prep *t, char *err, size_t err_len);
    /* Optional (NULL: none). Flags that the engine's options add to
     * .flags for a run (io_uring.nop=1: NVB__ENG_NO_FILES). Planning asks
     * once the options are parsed; see nvb__engine_flags(). */
    unsigned (*opt_flags)(const int64_t *opts);
};

/* The engine's flags for a run with options opts (the plan's eopts):
 * what planning and job setup test, rather than e->flags alone. */
static inline unsigned nvb__engine_flags(const struct nvb__engine *e, const int64_t *opts)
{
    return e->flags | (e->opt_flags ? e->opt_flags(opts) : 0u);
}

/*
 * The engine table: the one place to register an engine. Adding one takes
 * this line and its file (engines/<name>.c defining nvb__engine_<name>);
 * the order is nvb_engine_name()'s. Every engine is listed in every build:
 * one compiled out (the Windows engines elsewhere, the Linux ones on
 * Windows, a library missing at build time) says why in .unavailable.
 */
#define NVB__ENGINE_TABLE(X) \
    X(psync)                 \
    X(libaio)                \
    X(io_uring)              \
    X(nvme)                  \
    X(null)                  \
    X(wsync)                 \
    X(iocp)                  \
    X(ioring)

#define NVB__ENGINE_DECLARE(name) extern const struct nvb__engine nvb__engine_##name;
NVB__ENGINE_TABLE(NVB__ENGINE_DECLARE)
#undef NVB__ENGINE_DECLARE

/* The bound of one blocking wait in reap() now (ctx->wait_ns); 0: none. */
static inline uint64_t nvb__wait_bound(const uint64_t *wait_ns) { return wait_ns ? *wait_ns : 0; }

/* Registry (engine.c). */
const struct nvb__engine *nvb__engine_find(const char *name);
int nvb__engine_index(const char *name);
extern const struct nvb__engine *const nvb__engines[]; /* NULL-terminated, const */

/*
 * An engine's definition, the one statement that ends engines/<id>.c:
 *
 *   NVB__ENGINE_DEFINE(psync, NVB__ENG_SYNC, nvb__engine_no_opts, "pread(2)/pwrite(2), ...",
 *       NVB__ENGINE_IF(NVB__POSIX, "not on Windows (...)",
 *           .probe = nvb__engine_probe_ok, NVB__ENGINE_OPS(psync)));
 *
 * defines const struct nvb__engine nvb__engine_psync (the name
 * NVB__ENGINE_TABLE declares and registers), named "psync", with its flags,
 * option table, description and ops. NVB__ENGINE_OPS(p) names the per-job
 * ops p_setup, p_submit, p_reap and p_teardown; the probe and the optional
 * ops (.abandon, .note) are named beside it. NVB__ENGINE_IF(built, reason,
 * ops...) keeps the ops where `built` (a macro that is 1 or 0:
 * NVB_HAVE_LIBURING, NVB__WINDOWS, NVB__POSIX) is 1, and gives the ops of
 * NVB__ENGINE_UNAVAILABLE(reason) where it is 0, so that a compiled-out
 * engine names none of its own functions.
 */
#define NVB__ENGINE_DEFINE(id, flags_, opts_, desc_, ...) \
    const struct nvb__engine nvb__engine_##id = {          \
        .name = #id, .desc = (desc_), .flags = (flags_), .opts = (opts_), __VA_ARGS__}
#define NVB__ENGINE_OPS(p) .setup = p##_setup, .submit = p##_submit, .reap = p##_reap, .teardown = p##_teardown
#define NVB__ENGINE_IF(built, reason, ...) NVB__ENGINE_IF_(built, reason, __VA_ARGS__)
#define NVB__ENGINE_IF_(built, reason, ...) NVB__ENGINE_IF_##built(reason, __VA_ARGS__)
#define NVB__ENGINE_IF_1(reason, ...) __VA_ARGS__
#define NVB__ENGINE_IF_0(reason, ...) NVB__ENGINE_UNAVAILABLE(reason)

#ifdef _WIN32
#define NVB__WINDOWS 1
#define NVB__POSIX 0
#else
#define NVB__WINDOWS 0
#define NVB__POSIX 1
#endif

/* Why an engine built on a Linux library `lib` is not in this build: on
 * Windows, its Windows analogue; elsewhere, the library missing at build
 * time. */
#ifdef _WIN32
#define NVB__NEEDS_LINUX_LIB(lib, what, analogue) "Linux only (" what "); " analogue " is the Windows analogue"
#else
#define NVB__NEEDS_LINUX_LIB(lib, what, analogue) "built without " lib " (" lib "-dev was not found at build time)"
#endif

/* The ops of an engine compiled out of this build, reason being why. The
 * shared ops refuse (-ENOTSUP; setup() says to ask the probe, which has
 * the reason): the runner probes first, so they are reached only by
 * callers that skip it. */
#define NVB__ENGINE_UNAVAILABLE(reason)                                              \
    .unavailable = (reason), .probe = nvb__unavailable_probe,                        \
    .setup = nvb__unavailable_setup, .submit = nvb__unavailable_submit,              \
    .reap = nvb__unavailable_reap, .teardown = nvb__unavailable_teardown

/* The probe of an engine that works wherever it is built: 0. */
int nvb__engine_probe_ok(char *why, size_t why_len);
/* The option table of an engine that has no options. */
extern const struct nvb__optdef nvb__engine_no_opts[];

int  nvb__unavailable_probe(char *why, size_t why_len);
int  nvb__unavailable_setup(const struct nvb__engine_ctx *ctx, void **state);
int  nvb__unavailable_submit(void *state, struct nvb__io **ios, unsigned n);
int  nvb__unavailable_reap(void *state, struct nvb__io **out, unsigned max, unsigned min);
void nvb__unavailable_teardown(void *state);

/* Helpers for engines. */
void nvb__used_set(struct nvb__used *u, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void nvb__why(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Index of option `name` in engine->opts, or -1. */
int nvb__engine_opt_index(const struct nvb__engine *e, const char *name);

#endif
