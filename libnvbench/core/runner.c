/*
 * The runner: validates a workload into a plan, creates scratch files,
 * starts one thread per job, runs the measurement loop, samples CPU and the
 * time series from the calling thread, and merges per-job statistics into
 * the result.
 *
 * The hot loop (job_loop) takes no locks, allocates nothing and makes no
 * system calls beyond the engine's own and the vDSO clock: one clock read
 * per submission batch and one per completion batch. Every completion
 * harvested by one reap() call is stamped with the time that call returned:
 * those completions were all observed at that instant, so a per-completion
 * clock read would only add the harvest loop's own time to their latency.
 * Counters are per job and merged when the jobs have finished; the live
 * figures the calling thread reads for the time series are single-writer
 * relaxed atomics.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/cpu.h"
#include "core/fault.h"
#include "core/rand.h"
#include "core/verify.h"
#include "platform/platform.h"

#define NS_PER_S 1000000000ull
#define DEFAULT_SCRATCH_SIZE (1ull << 30)
#define NULL_REGION (1ull << 30)
#define MAX_PLAN_WARN 16

struct nvb_cancel {
    volatile int flag;
};

/* ---------------------------------------------------------------- plan */

struct ptarget {
    const char *path;
    struct nvb__target_info ti;
    int      scratch;           /* a scratch file is created in the directory path */
    char     file[4200];        /* what jobs open */
    uint64_t off, len;
    struct nvb__tdev devf;      /* device facts (block devices) */
    char     claim[80];         /* passthrough: the namespace's block device, held O_EXCL by a writer */
    struct nvb__hold hold;      /* the run's hold on it (devices/hold.c), taken in nvb_run */
};

struct plan {
    const struct nvb__engine *eng;
    int64_t  eopts[NVB__ENGINE_MAX_OPTS];
    unsigned char eopts_set[NVB__ENGINE_MAX_OPTS];
    unsigned nt;
    struct ptarget *t;
    unsigned qd, jobs;
    uint64_t ios_total;         /* 0: bounded by time only */
    uint64_t runtime_ns;        /* 0: bounded by ios only */
    int      reads, writes;
    unsigned nwarn;
    char     warn[MAX_PLAN_WARN][256];
    int      ncpus_online;
};

static void plan_warn(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void plan_warn(struct plan *p, const char *fmt, ...)
{
    if (p->nwarn >= MAX_PLAN_WARN)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->warn[p->nwarn++], sizeof p->warn[0], fmt, ap);
    va_end(ap);
}

static void plan_free(struct plan *p)
{
    if (p->t)
        for (unsigned i = 0; i < p->nt; i++)
            nvb__hold_release(&p->t[i].hold, 1);
    free(p->t);
    p->t = NULL;
}

void nvb__run_mem_estimate(uint64_t bs, unsigned qd, unsigned jobs, unsigned nt, int ndirs, struct nvb__run_mem *m)
{
    /* saturating: a product past 2^64 is "too much" all the same */
    unsigned __int128 b = (unsigned __int128)bs * qd * jobs;
    unsigned __int128 n = ((unsigned __int128)jobs * nt + nt + 1) * (unsigned)ndirs;
    unsigned __int128 hb = n * sizeof(struct nvb__hist), t = b + hb;
    m->buffers = b > UINT64_MAX ? UINT64_MAX : (uint64_t)b;
    m->histograms = n > UINT64_MAX ? UINT64_MAX : (uint64_t)n;
    m->hist_bytes = hb > UINT64_MAX ? UINT64_MAX : (uint64_t)hb;
    m->total = t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

/* Everything that can be checked without creating or writing anything. */
static int plan_build(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    char b1[32], b2[32];
    memset(p, 0, sizeof *p);
    p->ncpus_online = nvb__ncpus();
#define FAIL(rc, ...) do { snprintf(err, errlen, __VA_ARGS__); plan_free(p); return (rc); } while (0)
    p->eng = nvb__engine_find(w->engine);
    if (!p->eng)
        FAIL(-EINVAL, "unknown engine '%s' for key 'engine'", w->engine);
    char why[256] = "";
    int rc = nvb_engine_probe(w->engine, why, sizeof why);
    if (rc < 0)
        FAIL(rc, "engine '%s' (key 'engine') is not available here: %s", w->engine, why[0] ? why : nvb_strerror(rc));
    int ei = nvb__engine_index(w->engine);
    unsigned nopt = 0;
    for (; p->eng->opts && p->eng->opts[nopt].name && nopt < NVB__ENGINE_MAX_OPTS; nopt++)
        p->eopts[nopt] = p->eng->opts[nopt].def;
    for (unsigned i = 0; i < w->neopts; i++) {
        const struct nvb__eopt *o = &w->eopts[i];
        if (o->engine != ei) {
            plan_warn(p, "option %s=%s ignored: the engine is %s", o->key, o->text, w->engine);
            continue;
        }
        p->eopts[o->opt] = o->value;
        p->eopts_set[o->opt] = 1;
    }

    p->reads = nvb__rw_reads(w->rw) && !(w->rw == NVB__RW_RANDRW || w->rw == NVB__RW_RW ? w->rwmix == 0 : 0);
    p->writes = nvb__rw_writes(w->rw) && !((w->rw == NVB__RW_RANDRW || w->rw == NVB__RW_RW) && w->rwmix == 100);
    p->jobs = w->jobs;
    p->qd = w->qd;
    if ((p->eng->flags & NVB__ENG_SYNC) && p->qd > 1) {
        plan_warn(p, "engine %s is synchronous: qd %u runs as qd 1 per job (use jobs for concurrency)",
                  p->eng->name, p->qd);
        p->qd = 1;
    }
    if (w->io_limit && w->ios)
        FAIL(-EINVAL, "set either io_limit (%" PRIu64 ") or ios (%" PRIu64 "), not both", w->io_limit, w->ios);
    if (w->io_limit) {
        if (w->io_limit % w->bs)
            FAIL(-EINVAL, "io_limit '%s' is not a multiple of bs '%s'", nvb__fmt_size(w->io_limit, b1, sizeof b1),
                 nvb__fmt_size(w->bs, b2, sizeof b2));
        p->ios_total = w->io_limit / w->bs;
    } else {
        p->ios_total = w->ios;
    }
    p->runtime_ns = (p->ios_total && !w->runtime_set) ? 0 : w->runtime_ns;
    if (!p->runtime_ns && !p->ios_total)
        FAIL(-EINVAL, "runtime '0' needs io_limit or ios to bound the run (key 'runtime')");
    if (w->ncpus_set) {
        for (unsigned c = 0; c < NVB__MAX_CPUS; c++)
            if (((w->cpus[c / 64] >> (c % 64)) & 1) && (int)c >= p->ncpus_online)
                FAIL(-EINVAL, "cpus '%s' names CPU %u, but %d CPUs are online (key 'cpus')", w->cpus_text, c,
                     p->ncpus_online);
    }
    if (w->verify && !(p->eng->flags & NVB__ENG_NO_FILES) && w->bs < NVB__VHDR_SIZE)
        FAIL(-EINVAL, "verify=1 needs bs of at least %u bytes: each block starts with a %u-byte header (bs '%" PRIu64
             "')", NVB__VHDR_SIZE, NVB__VHDR_SIZE, w->bs);

    int null = (p->eng->flags & NVB__ENG_NO_FILES) != 0;
    int chardev = (p->eng->flags & NVB__ENG_CHARDEV) != 0;
    if (chardev && !w->direct)
        plan_warn(p, "direct=0 ignored: engine %s sends commands to the device, never through the page cache",
                  p->eng->name);
    if (!w->ntargets && !null)
        FAIL(-EINVAL, "no targets: add a regular file, a block device or a directory");
    p->nt = w->ntargets ? w->ntargets : 1;
    p->t = calloc(p->nt, sizeof *p->t);
    if (!p->t)
        FAIL(-ENOMEM, "out of memory");
    for (unsigned i = 0; i < p->nt; i++)
        p->t[i].hold.fd = p->t[i].hold.claim_fd = -1;
    if (!w->ntargets) { /* null engine without targets: one virtual region */
        p->t[0].path = "(null)";
        p->t[0].ti.kind = NVB__T_OTHER;
        p->t[0].ti.lbs = 1;
        p->t[0].len = w->size ? w->size : NULL_REGION;
        p->t[0].off = w->offset;
        snprintf(p->t[0].file, sizeof p->t[0].file, "(null)");
    }
    for (unsigned i = 0; i < w->ntargets; i++) {
        struct ptarget *t = &p->t[i];
        t->path = w->targets[i];
        rc = nvb__target_info(t->path, &t->ti);
        if (rc == -ENOENT)
            FAIL(rc, "target '%s' does not exist", t->path);
        if (rc == -ESTALE)
            FAIL(rc, "target '%s' changed while it was being examined (it names something else now); "
                 "refusing to run on something that was not checked", t->path);
        if (rc < 0)
            FAIL(rc, "target '%s': %s", t->path, nvb_strerror(rc));
        snprintf(t->file, sizeof t->file, "%s", t->path);
        if (null) {
            uint64_t sz = t->ti.kind == NVB__T_FILE || t->ti.kind == NVB__T_BLOCK ? t->ti.size : 0;
            t->off = w->offset;
            t->len = w->size ? w->size : (sz > w->offset ? sz - w->offset : NULL_REGION);
            if (!t->ti.lbs)
                t->ti.lbs = 1;
            if (w->bs > t->len)
                FAIL(-EINVAL, "bs '%s' is larger than the region of target '%s' (%" PRIu64 " bytes)",
                     nvb__fmt_size(w->bs, b1, sizeof b1), t->path, t->len);
            continue;
        }
        /* The destructive-write guard (devices/guard.c), and the device's
         * facts: a write smaller than the flash's indirection unit costs
         * the drive a read-modify-write. */
        if (t->ti.kind == NVB__T_FILE && p->writes) {
            /* a swap file, or the backing file of a loop device in use */
            char gm[1024];
            rc = nvb__file_check(t->path, gm, sizeof gm);
            if (rc < 0)
                FAIL(rc, "%s", gm);
        }
        if (t->ti.kind == NVB__T_BLOCK || t->ti.kind == NVB__T_CHAR) {
            char gm[1024];
            rc = nvb__device_check(t->path, p->writes, w->allow_destructive, nvb__rw_name(w->rw), &t->devf, gm,
                                   sizeof gm);
            if (rc < 0)
                FAIL(rc, "%s", gm);
            if (p->writes && nvb__iu_warning(&t->devf, w->bs, t->path, gm, sizeof gm))
                plan_warn(p, "%s", gm);
        }
        if (chardev) {
            /* Passthrough: whatever name the target has, jobs open the
             * namespace's generic node, and its size and LBA size are the
             * namespace's. */
            struct nvb__nvme_ns ns;
            char gm[512];
            rc = nvb__nvme_ns_find(t->path, &ns, gm, sizeof gm);
            if (rc < 0)
                FAIL(rc, "engine %s: target %s", p->eng->name, gm);
            snprintf(t->file, sizeof t->file, "%s", ns.generic);
            snprintf(t->claim, sizeof t->claim, "%s", ns.block);
            {
                /* what the hold must find when it opens the generic node */
                struct nvb__target_info gi;
                if (nvb__target_info(t->file, &gi) == 0) {
                    t->ti.id_dev = gi.id_dev;
                    t->ti.id_ino = gi.id_ino;
                    t->ti.id_rdev = gi.id_rdev;
                }
            }
            t->ti.size = ns.size;
            t->ti.lbs = ns.lba_size;
            if (!t->ti.dev[0] && ns.block[0])
                snprintf(t->ti.dev, sizeof t->ti.dev, "%s", ns.block + (strncmp(ns.block, "/dev/", 5) ? 0 : 5));
            if (ns.max_transfer && w->bs > ns.max_transfer)
                FAIL(-EINVAL, "bs '%s' is larger than the largest command namespace '%s' takes (%" PRIu64
                     " bytes, max_hw_sectors_kb): passthrough does not split I/O", nvb__fmt_size(w->bs, b1, sizeof b1),
                     t->path, ns.max_transfer);
        }
        switch (t->ti.kind) {
        case NVB__T_DIR:
            rc = nvb__target_access(t->path, 1);
            if (rc < 0)
                FAIL(rc, "target directory '%s': cannot create a scratch file there: %s", t->path, nvb_strerror(rc));
            t->scratch = 1;
            t->off = 0;
            t->len = w->size ? w->size : DEFAULT_SCRATCH_SIZE;
            if (w->offset)
                plan_warn(p, "offset ignored for directory target '%s': the scratch file is the region", t->path);
            if (t->ti.lbs < 512)
                t->ti.lbs = 512;
            break;
        case NVB__T_CHAR:
            if (!chardev)
                FAIL(-EINVAL, "target '%s' is a character device: only engine nvme drives those (NVMe generic "
                     "nodes /dev/ngXnY)", t->path);
            /* fall through */
        case NVB__T_FILE:
        case NVB__T_BLOCK:
            rc = nvb__target_access(t->file, p->writes);
            if (rc < 0)
                FAIL(rc, "target '%s': no permission to open %s for %s: %s", t->path,
                     strcmp(t->file, t->path) ? t->file : "it", p->writes ? "writing" : "reading", nvb_strerror(rc));
            if (t->ti.size == 0)
                FAIL(-EINVAL, "target '%s' is empty (size 0): nothing to %s", t->path, p->writes ? "write" : "read");
            if (w->offset >= t->ti.size)
                FAIL(-EINVAL, "offset '%" PRIu64 "' is beyond the end of target '%s' (%" PRIu64 " bytes)",
                     w->offset, t->path, t->ti.size);
            t->off = w->offset;
            t->len = w->size ? w->size : t->ti.size - w->offset;
            if (t->off + t->len > t->ti.size || t->off + t->len < t->off)
                FAIL(-EINVAL, "region offset %" PRIu64 " + size %" PRIu64 " exceeds target '%s' (%" PRIu64 " bytes)",
                     t->off, t->len, t->path, t->ti.size);
            break;
        default:
            FAIL(-EINVAL, "target '%s' is not a regular file, a block device or a directory", t->path);
        }
        if (w->direct || chardev) {
            uint32_t lbs = t->ti.lbs ? t->ti.lbs : 512;
            const char *needs = chardev ? "NVMe commands move whole blocks" : "direct=1";
            if (w->bs % lbs)
                FAIL(-EINVAL, "bs '%s' is not a multiple of the logical block size %u of target '%s' (%s)",
                     nvb__fmt_size(w->bs, b1, sizeof b1), lbs, t->path, needs);
            if (t->off % lbs)
                FAIL(-EINVAL, "offset '%" PRIu64 "' is not a multiple of the logical block size %u of target '%s' (%s)",
                     t->off, lbs, t->path, needs);
        }
        if (w->bs > t->len)
            FAIL(-EINVAL, "bs '%s' is larger than the region of target '%s' (%" PRIu64 " bytes)",
                 nvb__fmt_size(w->bs, b1, sizeof b1), t->path, t->len);
    }
    for (unsigned i = 0; i < p->nt; i++) {
        /* I/O offsets become off_t: a region must end by 2^63 */
        const struct ptarget *t = &p->t[i];
        if (t->off + t->len < t->off || t->off + t->len > (1ull << 63))
            FAIL(-EINVAL, "region of target '%s' (offset %" PRIu64 " + size %" PRIu64 ") ends beyond 2^63 bytes, "
                 "past the largest file offset", t->path, t->off, t->len);
    }
    {
        /* Every job holds qd buffers of bs bytes, written before the run,
         * and a latency histogram per target per direction (plus one per
         * target and one per direction merged at the end): more than the
         * machine has would end in the OOM killer. */
        struct nvb__run_mem m;
        nvb__run_mem_estimate(w->bs, p->qd, p->jobs, p->nt, p->reads + p->writes, &m);
        uint64_t mem = nvb__mem_total();
        if (mem && m.total > mem)
            FAIL(-ENOMEM, "buffers of bs x qd x jobs = %s x %u x %u bytes and %" PRIu64 " latency histograms of %zu "
                 "bytes (one per job per target per direction) need %" PRIu64 " bytes, more than the %" PRIu64
                 " bytes of memory this process can have", nvb__fmt_size(w->bs, b1, sizeof b1), p->qd, p->jobs,
                 m.histograms, sizeof(struct nvb__hist), m.total, mem);
        if (mem && m.total > mem / 2)
            plan_warn(p, "buffers of bs x qd x jobs and latency histograms take %" PRIu64 " of the %" PRIu64
                      " bytes of memory", m.total, mem);
        else if (m.hist_bytes > NVB__HIST_WARN_BYTES)
            plan_warn(p, "%" PRIu64 " latency histograms (one per job per target per direction, %zu bytes each) "
                      "take %" PRIu64 " MiB; target_mode=split or fewer jobs need fewer", m.histograms,
                      sizeof(struct nvb__hist), m.hist_bytes >> 20);
    }
    if (!null) {
        /* Descriptors: each job opens every target it drives, the run
         * holds each target open, and a ring engine has one per job. */
        uint64_t limit, open_now;
        uint64_t per_job = w->target_mode == NVB__TM_SPLIT ? (p->nt + p->jobs - 1) / p->jobs : p->nt;
        uint64_t need = (uint64_t)p->jobs * per_job + 2ull * p->nt + p->jobs + 8;
        if (nvb__fd_budget(&limit, &open_now) == 0 && need + open_now > limit)
            FAIL(-EMFILE, "the run needs about %" PRIu64 " file descriptors (jobs x targets per job = %u x %" PRIu64
                 ", %u held by the run, %u for the engines, and %" PRIu64 " this process has open), more than its "
                 "limit of %" PRIu64 " (RLIMIT_NOFILE): raise it (ulimit -n) or use fewer jobs or targets",
                 need + open_now, p->jobs, per_job, 2 * p->nt, p->jobs + 8, open_now, limit);
    }
    if (p->ios_total && p->ios_total < p->jobs)
        plan_warn(p, "ios %" PRIu64 " is smaller than jobs %u: some jobs issue nothing", p->ios_total, p->jobs);
#undef FAIL
    return 0;
}

NVB_API int nvb_workload_validate(struct nvb_workload *w)
{
    if (!w)
        return -EINVAL;
    struct plan p;
    w->err[0] = 0;
    int rc = plan_build(w, &p, w->err, sizeof w->err);
    if (rc == 0)
        plan_free(&p);
    return rc;
}

/* ---------------------------------------------------------------- jobs */

struct live {                    /* single writer (the job), read by the runner thread */
    uint64_t ios[2], bytes[2], lat_sum[2], errors;
};

struct run;

struct job {
    struct run *run;
    unsigned idx;
    struct nvb__thread *thr;
    unsigned nt;                 /* targets this job drives */
    unsigned *tmap;              /* job-local -> plan target */
    int *fds;
    struct nvb__tstat *st;       /* per job-local target */
    uint64_t *seqpos;
    uint64_t *nblocks;
    void **bufs;
    void *bufmem;                /* the buffers, one allocation */
    struct nvb__io *ios;
    struct nvb__io **freel, **batch, **done;
    void *est;                   /* engine state */
    struct nvb__used used;
    int64_t *eopts;
    uint64_t budget;             /* I/Os this job issues; UINT64_MAX: time-bounded */
    uint64_t rate_ns;            /* ns between I/Os, 0: none */
    uint64_t rng;
    uint64_t by_errno[NVB__ERRNO_SLOTS];
    uint64_t errors, short_ios, errors_dir[2];
    struct nvb__fault *fault;    /* fault.* keys: wraps the engine's submit/reap */
    uint64_t fault_err[2], fault_short[2], fault_delayed[2];
    uint64_t verify_checked, verify_mismatches;
    uint64_t verify_by_field[NVB__VF_COUNT];
    struct nvb__vmismatch first_mm[NVB__VERIFY_FIRST];
    unsigned nfirst_mm;
    /* verify=1 with writes: no two I/Os of this job on one block at once
     * (a read racing a write could see half of each), and jobs sharing a
     * target each write their own stripe of it (block = vrank + vstride * i) */
    int      vtrack;
    uint64_t wseq;               /* writes issued: the blocks' sequence numbers */
    uint64_t *vset;              /* open-addressing set of in-flight block keys, 0 = empty */
    unsigned vmask;
    uint64_t *vkey;              /* per slot: its key in vset */
    uint64_t *vstride, *vrank;
    uint64_t t_end;              /* end of this job's measured window */
    struct live live;
    unsigned abandoned;          /* I/Os left in flight when the watchdog fired */
    int stalled;                 /* the watchdog found an I/O older than io_timeout */
    int rc;                      /* setup or fatal error */
    char why[256];
    char note[256];              /* the engine's note after the run */
    int cpu;
};

struct run {
    const struct nvb_workload *w;
    const struct nvb_run_opts *opts;
    struct nvb_cancel *cancel;
    struct plan *p;
    struct job *jobs;
    struct nvb__mutex *mu;
    struct nvb__cond *cv;
    unsigned nready, ndone;
    int go;                      /* 1: start, -1: abort */
    int release;
    uint64_t go_ns, meas_ns, end_ns;
    volatile int stop;           /* set by the runner thread or a job on a fatal error */
    int io_err;                  /* first I/O error when stopping at errors */
    char io_err_msg[256];
};

static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)nvb__splitmix64(s) * n) >> 64);
}

/* The set of blocks a job has in flight (verify=1 with writes): linear
 * probing, deletion by backward shift, so no tombstones; at most qd keys in
 * 2*qd or more slots. */
static inline unsigned vset_slot(uint64_t key, unsigned mask)
{
    return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static int vset_has(const struct job *j, uint64_t key)
{
    for (unsigned i = vset_slot(key, j->vmask);; i = (i + 1) & j->vmask) {
        if (j->vset[i] == key)
            return 1;
        if (!j->vset[i])
            return 0;
    }
}

static void vset_add(struct job *j, uint64_t key)
{
    unsigned i = vset_slot(key, j->vmask);
    while (j->vset[i])
        i = (i + 1) & j->vmask;
    j->vset[i] = key;
}

static void vset_del(struct job *j, uint64_t key)
{
    unsigned i = vset_slot(key, j->vmask);
    while (j->vset[i] != key) {
        if (!j->vset[i])
            return;
        i = (i + 1) & j->vmask;
    }
    for (unsigned k = (i + 1) & j->vmask; j->vset[k]; k = (k + 1) & j->vmask) {
        unsigned home = vset_slot(j->vset[k], j->vmask);
        /* move k into the hole at i unless its home lies cyclically in (i, k] */
        if (((k - home) & j->vmask) >= ((k - i) & j->vmask)) {
            j->vset[i] = j->vset[k];
            i = k;
        }
    }
    j->vset[i] = 0;
}

static inline uint64_t vkey_of(unsigned t, uint64_t blk) { return ((uint64_t)t << 48 | blk) + 1; }

static inline void live_store(uint64_t *dst, uint64_t v) { __atomic_store_n(dst, v, __ATOMIC_RELAXED); }
static inline uint64_t live_load(const uint64_t *src) { return __atomic_load_n(src, __ATOMIC_RELAXED); }

static void job_publish(struct job *j, const uint64_t ios[2], const uint64_t bytes[2], const uint64_t lat[2])
{
    for (int d = 0; d < 2; d++) {
        live_store(&j->live.ios[d], ios[d]);
        live_store(&j->live.bytes[d], bytes[d]);
        live_store(&j->live.lat_sum[d], lat[d]);
    }
    live_store(&j->live.errors, j->errors);
}

static void job_reset_stats(struct job *j)
{
    for (unsigned t = 0; t < j->nt; t++)
        for (int d = 0; d < 2; d++) {
            j->st[t].d[d].ios = j->st[t].d[d].bytes = 0;
            if (j->st[t].d[d].hist)
                nvb__hist_init(j->st[t].d[d].hist);
        }
    j->st[0].errors = 0;
    memset(j->by_errno, 0, sizeof j->by_errno);
    j->errors = j->short_ios = 0;
    for (int d = 0; d < 2; d++)
        j->errors_dir[d] = j->fault_err[d] = j->fault_short[d] = j->fault_delayed[d] = 0;
    j->verify_checked = j->verify_mismatches = 0;
    memset(j->verify_by_field, 0, sizeof j->verify_by_field);
    j->nfirst_mm = 0;
    for (unsigned t = 0; t < j->nt; t++)
        j->st[t].errors = 0;
}

#define IOF_RAMP 1   /* submitted during ramp: not counted */
#define IOF_INFLIGHT 0x10 /* handed to the engine, not yet back (the watchdog's scan) */
/* A blocking reap() returns after this long at most (or io_timeout when
 * shorter) so that a job notices its watchdog and stop requests. */
#define WAIT_SLICE_NS 100000000ull

/* Of the job's I/Os in flight, those the engine still has, which the
 * device may yet write into: completions the fault wrapper holds back are
 * done. */
static unsigned in_engine(const struct job *j, unsigned inflight)
{
    return j->fault ? nvb__fault_in_engine(j->fault) : inflight;
}

static int run_stopping(struct run *r)
{
    if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
        return 1;
    if (r->cancel && __atomic_load_n(&r->cancel->flag, __ATOMIC_RELAXED))
        return 1;
    return 0;
}

static void job_loop(struct job *j)
{
    struct run *r = j->run;
    const struct nvb_workload *w = r->w;
    const struct nvb__engine *e = r->p->eng;
    const unsigned qd = r->p->qd;
    const unsigned sbatch = w->submit_batch && w->submit_batch < qd ? w->submit_batch : qd;
    const unsigned cbatch = w->complete_batch ? w->complete_batch : 1;
    const int rnd = nvb__rw_random(w->rw);
    const int mixed = w->rw == NVB__RW_RANDRW || w->rw == NVB__RW_RW;
    const int wdir = nvb__rw_writes(w->rw) && !mixed ? NVB_WRITE : NVB_READ;
    const unsigned rwmix = w->rwmix;
    const uint32_t bs = (uint32_t)w->bs;
    const int verify = w->verify && !(e->flags & NVB__ENG_NO_FILES);
    const uint64_t seed = w->seed;
    const uint64_t end_ns = r->end_ns;
    const uint64_t meas_ns = r->meas_ns;
    int measuring = meas_ns <= r->go_ns;
    unsigned nfree = qd, inflight = 0, tnext = 0;
    uint64_t budget = j->budget, issued = 0;
    uint64_t ios[2] = {0, 0}, bytes[2] = {0, 0}, lat[2] = {0, 0};
    uint64_t now = nvb__now_ns(), last_done = now;
    const uint64_t t0 = now;
    const uint64_t io_timeout = w->io_timeout_ns;
    uint64_t wd_ref = now;  /* the watchdog's reference: last completion, or when the queue last filled from empty */
    /* and how often it looks at the age of each I/O in flight */
    const uint64_t scan_ns = io_timeout / 8 < WAIT_SLICE_NS ? io_timeout / 8 + 1 : WAIT_SLICE_NS;
    uint64_t next_scan = now + scan_ns;

    for (;;) {
        int stopping = run_stopping(r) || (end_ns && now >= end_ns);
        unsigned n = 0;
        if (!stopping && budget) {
            unsigned room = qd - inflight;
            if (room > sbatch)
                room = sbatch;
            if (budget != UINT64_MAX && room > budget)
                room = (unsigned)budget;
            if (j->rate_ns) {
                uint64_t allowed = (now - t0) / j->rate_ns + 1;
                uint64_t can = allowed > issued ? allowed - issued : 0;
                if (room > can)
                    room = (unsigned)can;
            }
            while (n < room) {
                struct nvb__io *io = j->freel[--nfree];
                unsigned t = tnext;
                if (++tnext == j->nt)
                    tnext = 0;
                uint64_t blk;
                if (rnd) {
                    blk = rng_below(&j->rng, j->nblocks[t]);
                    for (int tries = 0; j->vtrack && vset_has(j, vkey_of(t, blk)) && tries < 16; tries++)
                        blk = rng_below(&j->rng, j->nblocks[t]);
                } else {
                    blk = j->seqpos[t];
                }
                if (j->vtrack) {
                    if (vset_has(j, vkey_of(t, blk))) {
                        j->freel[nfree++] = io; /* busy: wait for completions */
                        break;
                    }
                    j->vkey[io->slot] = vkey_of(t, blk);
                    vset_add(j, j->vkey[io->slot]);
                    blk = j->vrank[t] + j->vstride[t] * blk;
                }
                if (!rnd && ++j->seqpos[t] == j->nblocks[t])
                    j->seqpos[t] = 0;
                io->off = j->st[t].region_off + blk * bs;
                io->target = (uint16_t)t;
                io->dir = (uint8_t)(mixed ? (rng_below(&j->rng, 100) < rwmix ? NVB_READ : NVB_WRITE) : wdir);
                io->len = bs;
                io->flags = (measuring ? 0 : IOF_RAMP) | IOF_INFLIGHT;
                io->res = 0;
                io->t_done = 0;
                if (verify && io->dir == NVB_WRITE)
                    nvb__vblock_fill(io->buf, bs, seed, j->tmap[t], io->off, (uint64_t)(j->idx + 1) << 40 | ++j->wseq);
                j->batch[n++] = io;
            }
            if (budget != UINT64_MAX && measuring)
                budget -= n;
            issued += n;
        }
        if (n) {
            uint64_t ts = nvb__now_ns();
            for (unsigned i = 0; i < n; i++)
                j->batch[i]->t_sub = ts;
            int rc = j->fault ? nvb__fault_submit(j->fault, j->batch, n) : e->submit(j->est, j->batch, n);
            if (rc < 0) {
                j->rc = rc;
                snprintf(j->why, sizeof j->why, "engine %s: submit failed: %s", e->name, nvb_strerror(rc));
                __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
                for (unsigned i = 0; i < n; i++) {
                    if (j->vtrack)
                        vset_del(j, j->vkey[j->batch[i]->slot]);
                    j->batch[i]->flags &= (uint8_t)~IOF_INFLIGHT;
                    j->freel[nfree++] = j->batch[i];
                }
                n = 0;
                stopping = 1;
            }
            if (!inflight)
                wd_ref = ts;
            inflight += n;
        }
        if (!inflight) {
            if (stopping || !budget)
                break;
            if (j->rate_ns) { /* ahead of the rate: sleep to the next slot */
                uint64_t next = t0 + issued * j->rate_ns;
                if (end_ns && next > end_ns)
                    next = end_ns;
                if (next > now)
                    nvb__sleep_ns(next - now);
            }
            now = nvb__now_ns();
            continue;
        }
        unsigned minw = 0;
        if (stopping || !budget || inflight >= qd || j->rate_ns || n == 0)
            minw = cbatch < inflight ? cbatch : inflight;
        if (stopping && j->fault)
            nvb__fault_expire(j->fault); /* held-back completions do not hold up the stop */
        int got = j->fault ? nvb__fault_reap(j->fault, j->done, qd, minw) : e->reap(j->est, j->done, qd, minw);
        if (got < 0) {
            if (got == -EINTR || got == -EAGAIN) {
                now = nvb__now_ns();
                continue;
            }
            j->rc = got;
            snprintf(j->why, sizeof j->why, "engine %s: reaping completions failed: %s", e->name, nvb_strerror(got));
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            break; /* in-flight I/O is abandoned to the engine's teardown */
        }
        now = nvb__now_ns();
        if (got > 0) {
            wd_ref = now;
        } else if (io_timeout && now - wd_ref >= io_timeout && !j->stalled) {
            /* The device has not answered for io_timeout: give up on what is
             * in flight rather than wait forever (a removed or hung device).
             * Its slots and buffers stay allocated: the kernel may still
             * write into them. */
            j->rc = -ETIMEDOUT;
            j->abandoned = in_engine(j, inflight);
            snprintf(j->why, sizeof j->why,
                     "watchdog: job %u had %u I/O%s in flight and none completed for %.3g s (io_timeout=%.3g s): "
                     "the device stopped answering; the run stops and abandons them",
                     j->idx, inflight, inflight == 1 ? "" : "s", (double)(now - wd_ref) / 1e9,
                     (double)io_timeout / 1e9);
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            break;
        }
        int count = !end_ns || now <= end_ns;
        for (int i = 0; i < got; i++) {
            struct nvb__io *io = j->done[i];
            io->flags &= (uint8_t)~IOF_INFLIGHT;
            j->freel[nfree++] = io;
            if (j->vtrack)
                vset_del(j, j->vkey[io->slot]);
            if (!count || (io->flags & IOF_RAMP))
                continue;
            int d = io->dir;
            struct nvb__tstat *ts = &j->st[io->target];
            if (io->flags & NVB__IOF_FAULT_DELAY)
                j->fault_delayed[d]++;
            const uint64_t t_done = io->t_done ? io->t_done : now;
            if (io->res == (int64_t)io->len) {
                uint64_t l = t_done > io->t_sub ? t_done - io->t_sub : 0;
                nvb__hist_add(ts->d[d].hist, l);
                ts->d[d].ios++;
                ts->d[d].bytes += io->len;
                ios[d]++;
                bytes[d] += io->len;
                lat[d] += l;
                if (verify && d == NVB_READ) {
                    struct nvb__vmismatch mm;
                    j->verify_checked++;
                    int f = nvb__vblock_check(io->buf, io->len, seed, j->tmap[io->target], io->off, &mm);
                    if (f != NVB__VF_OK) {
                        if (j->nfirst_mm < NVB__VERIFY_FIRST)
                            j->first_mm[j->nfirst_mm++] = mm;
                        j->verify_by_field[f]++;
                        j->verify_mismatches++;
                    }
                }
                last_done = now;
            } else {
                int en = io->res < 0 ? (int)-io->res : EIO;
                if (io->res >= 0)
                    j->short_ios++;
                if (io->flags & NVB__IOF_FAULT_ERR)
                    j->fault_err[d]++;
                else if ((io->flags & NVB__IOF_FAULT_SHORT) && io->res >= 0)
                    j->fault_short[d]++;
                if (w->lat_include_errors)
                    nvb__hist_add(ts->d[d].hist, t_done > io->t_sub ? t_done - io->t_sub : 0);
                j->errors++;
                j->errors_dir[d]++;
                ts->errors++;
                j->by_errno[en < NVB__ERRNO_SLOTS ? en : NVB__ERRNO_SLOTS - 1]++;
                last_done = now;
                if (!w->continue_on_error && !__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
                    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
                    nvb__mutex_lock(r->mu); /* once per run, not in the steady state */
                    if (!r->io_err) {
                        r->io_err = io->res < 0 ? (int)io->res : -EIO;
                        snprintf(r->io_err_msg, sizeof r->io_err_msg,
                                 "%s error on target '%s' at offset %" PRIu64 " (%u bytes): %s%s",
                                 d == NVB_READ ? "read" : "write", r->p->t[j->tmap[io->target]].path, io->off,
                                 io->len, io->res < 0 ? nvb_strerror((int)io->res) : "short transfer",
                                 (io->flags & NVB__IOF_FAULT_ERR) ? " (injected: fault.rate)"
                                 : (io->flags & NVB__IOF_FAULT_SHORT) && io->res >= 0 ? " (injected: fault.short)" : "");
                    }
                    nvb__mutex_unlock(r->mu);
                }
            }
        }
        inflight -= (unsigned)got;
        job_publish(j, ios, bytes, lat);
        if (io_timeout && inflight && now >= next_scan) {
            /* One I/O the device never answers, while the others go on: find
             * it by its age (a scan of qd slots every scan_ns). The run stops;
             * what still completes is taken, and once only such stale I/Os
             * are left the job abandons them. */
            next_scan = now + scan_ns;
            unsigned stale = 0;
            const struct nvb__io *old = NULL;
            for (unsigned s = 0; s < qd; s++) {
                const struct nvb__io *x = &j->ios[s];
                if (!(x->flags & IOF_INFLIGHT) || now - x->t_sub < io_timeout)
                    continue;
                stale++;
                if (!old || x->t_sub < old->t_sub)
                    old = x;
            }
            if (stale && !j->stalled) {
                j->stalled = 1;
                j->rc = -ETIMEDOUT;
                snprintf(j->why, sizeof j->why,
                         "watchdog: job %u: a %s of target '%s' at offset %" PRIu64 " was in flight for %.3g s "
                         "(io_timeout=%.3g s): the device stopped answering it; the run stops and abandons the "
                         "I/Os still unanswered", j->idx, old->dir == NVB_WRITE ? "write" : "read",
                         r->p->t[j->tmap[old->target]].path, old->off, (double)(now - old->t_sub) / 1e9,
                         (double)io_timeout / 1e9);
                __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            }
            if (stale && stale >= inflight) {
                j->abandoned = in_engine(j, inflight);
                break;
            }
        }
        if (!measuring && now >= meas_ns) {
            /* ramp over: I/O submitted before now stays flagged and uncounted */
            measuring = 1;
            job_reset_stats(j);
            for (int d = 0; d < 2; d++)
                ios[d] = bytes[d] = lat[d] = 0;
        }
    }
    if (end_ns && !run_stopping(r) && now >= end_ns)
        j->t_end = end_ns;
    else
        j->t_end = last_done > meas_ns ? last_done : now;
    if (j->t_end < meas_ns)
        j->t_end = meas_ns;
    job_publish(j, ios, bytes, lat);
}

static void job_release_resources(struct job *j)
{
    const struct nvb__engine *e = j->run->p->eng;
    nvb__fault_free(j->fault);
    j->fault = NULL;
    if (j->est) {
        if (!j->abandoned)
            e->teardown(j->est);
        else if (e->abandon)
            e->abandon(j->est);
        j->est = NULL;
    }
    if (j->abandoned) {
        /* The device may still complete the abandoned I/Os into these
         * (DMA into freed heap memory would corrupt whatever reuses it):
         * they stay allocated until the process exits. */
        j->bufmem = NULL;
        j->ios = NULL;
    }
    if (j->fds) {
        for (unsigned t = 0; t < j->nt; t++)
            if (j->fds[t] >= 0)
                nvb__target_close(j->fds[t]);
        free(j->fds);
        j->fds = NULL;
    }
    nvb__free_aligned(j->bufmem);
    j->bufmem = NULL;
    free(j->bufs);
    j->bufs = NULL;
    free(j->ios);
    free(j->freel);
    free(j->batch);
    free(j->done);
    free(j->seqpos);
    free(j->nblocks);
    free(j->vset);
    free(j->vkey);
    free(j->vstride);
    free(j->vrank);
    j->vset = j->vkey = j->vstride = j->vrank = NULL;
    free(j->eopts);
    j->ios = NULL;
    j->freel = j->batch = j->done = NULL;
    j->seqpos = j->nblocks = NULL;
    j->eopts = NULL;
}

static int job_setup(struct job *j)
{
    struct run *r = j->run;
    const struct nvb_workload *w = r->w;
    struct plan *p = r->p;
    const struct nvb__engine *e = p->eng;
    unsigned qd = p->qd;
    if (j->cpu >= 0) {
        int rc = nvb__thread_pin(j->cpu);
        if (rc < 0) {
            snprintf(j->why, sizeof j->why, "cannot pin job %u to CPU %d (key 'cpus'): %s", j->idx, j->cpu,
                     nvb_strerror(rc));
            return rc;
        }
    }
    j->fds = malloc(j->nt * sizeof *j->fds);
    j->seqpos = calloc(j->nt, sizeof *j->seqpos);
    j->nblocks = calloc(j->nt, sizeof *j->nblocks);
    j->bufs = calloc(qd, sizeof *j->bufs);
    j->ios = calloc(qd, sizeof *j->ios);
    j->freel = calloc(qd, sizeof *j->freel);
    j->batch = calloc(qd, sizeof *j->batch);
    j->done = calloc(qd, sizeof *j->done);
    j->eopts = calloc(NVB__ENGINE_MAX_OPTS, sizeof *j->eopts);
    if (!j->fds || !j->seqpos || !j->nblocks || !j->bufs || !j->ios || !j->freel || !j->batch || !j->done || !j->eopts) {
        snprintf(j->why, sizeof j->why, "out of memory setting up job %u", j->idx);
        return -ENOMEM;
    }
    for (unsigned t = 0; t < j->nt; t++)
        j->fds[t] = -1;
    int nofiles = (e->flags & NVB__ENG_NO_FILES) != 0;
    /* A character device refuses O_DIRECT; passthrough I/O is direct anyway. */
    int odirect = w->direct && !(e->flags & NVB__ENG_CHARDEV);
    unsigned jobs_here = 0, rank = 0;
    for (unsigned t = 0; t < j->nt; t++) {
        const struct ptarget *pt = &p->t[j->tmap[t]];
        if (!nofiles) {
            int fd = nvb__hold_reopen(&pt->hold, (p->writes ? NVB__O_WRITE : 0) | (odirect ? NVB__O_DIRECT : 0));
            if (fd == -ESTALE) {
                snprintf(j->why, sizeof j->why, "target '%s' is no longer the file or device that was checked and "
                         "opened for this run: refusing to write to it", pt->path);
                return fd;
            }
            if (fd < 0) {
                int hint = odirect && fd == -EINVAL;
                snprintf(j->why, sizeof j->why, "cannot open target '%s'%s%s%s: %s%s", pt->path,
                         strcmp(pt->file, pt->path) ? " as " : "", strcmp(pt->file, pt->path) ? pt->file : "",
                         odirect ? " with O_DIRECT" : "", nvb_strerror(fd),
                         hint ? " (the file system may not support O_DIRECT: try direct=0)"
                         : fd == -EMFILE || fd == -ENFILE ? " (raise the descriptor limit, ulimit -n)" : "");
                return fd;
            }
            j->fds[t] = fd;
        }
        j->nblocks[t] = pt->len / w->bs;
        /* Sequential jobs sharing a target start at staggered offsets. */
        jobs_here = w->target_mode == NVB__TM_SPLIT ? 1 : p->jobs;
        rank = w->target_mode == NVB__TM_SPLIT ? 0 : j->idx;
        j->seqpos[t] = j->nblocks[t] * rank / jobs_here;
    }
    j->vtrack = w->verify && p->writes && !nofiles;
    if (j->vtrack) {
        unsigned cap = 2;
        while (cap < 2 * qd)
            cap <<= 1;
        j->vmask = cap - 1;
        j->vset = calloc(cap, sizeof *j->vset);
        j->vkey = calloc(qd, sizeof *j->vkey);
        j->vstride = calloc(j->nt, sizeof *j->vstride);
        j->vrank = calloc(j->nt, sizeof *j->vrank);
        if (!j->vset || !j->vkey || !j->vstride || !j->vrank) {
            snprintf(j->why, sizeof j->why, "out of memory setting up job %u", j->idx);
            return -ENOMEM;
        }
        for (unsigned t = 0; t < j->nt; t++) {
            /* Jobs that share this target, and this job's rank among them
             * (assign_targets() deals the targets). */
            uint64_t stride = p->jobs, rk = j->idx;
            if (w->target_mode == NVB__TM_SPLIT) {
                unsigned ti = j->tmap[t];
                stride = p->jobs >= p->nt ? p->jobs / p->nt + (ti < p->jobs % p->nt) : 1;
                rk = p->jobs >= p->nt ? j->idx / p->nt : 0;
            }
            j->vstride[t] = stride;
            j->vrank[t] = rk;
            j->nblocks[t] = j->nblocks[t] > rk ? (j->nblocks[t] - rk + stride - 1) / stride : 0;
            j->seqpos[t] = 0;
            if (!j->nblocks[t]) {
                snprintf(j->why, sizeof j->why, "verify=1: target '%s' has fewer blocks of bs than jobs writing it "
                         "(each job verifies its own stripe)", p->t[j->tmap[t]].path);
                return -EINVAL;
            }
        }
    }
    size_t align = 4096;
    for (unsigned t = 0; t < j->nt; t++)
        if (p->t[j->tmap[t]].ti.mem_align > align)
            align = p->t[j->tmap[t]].ti.mem_align;
    uint64_t fs = w->seed ^ (0xa0761d6478bd642full * (j->idx + 1));
    /* One block for the job's qd buffers: an aligned allocation each would
     * cost up to an alignment unit of padding apiece (twice the memory for
     * 4 KiB buffers: measured in docs/reliability.md). */
    size_t stride = ((size_t)w->bs + align - 1) / align * align;
    j->bufmem = nvb__alloc_aligned(align, stride * qd);
    if (!j->bufmem) {
        snprintf(j->why, sizeof j->why, "out of memory allocating %u buffers of %" PRIu64 " bytes (bs x qd)", qd, w->bs);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < qd; i++) {
        j->bufs[i] = (char *)j->bufmem + (size_t)i * stride;
        if (w->fill == NVB__FILL_ZERO) {
            memset(j->bufs[i], 0, (size_t)w->bs);
        } else {
            uint64_t *q = j->bufs[i];
            for (uint64_t k = 0; k < w->bs / 8; k++)
                q[k] = nvb__splitmix64(&fs);
            memset((char *)j->bufs[i] + (w->bs & ~7ull), 0x5a, (size_t)(w->bs & 7));
        }
        j->ios[i].buf = j->bufs[i];
        j->ios[i].slot = i;
        j->freel[i] = &j->ios[i];
    }
    for (unsigned t = 0; t < j->nt; t++) {
        j->st[t].region_off = p->t[j->tmap[t]].off;
        for (int d = 0; d < 2; d++) {
            if ((d == NVB_READ && !p->reads) || (d == NVB_WRITE && !p->writes))
                continue;
            j->st[t].d[d].hist = malloc(sizeof(struct nvb__hist));
            if (!j->st[t].d[d].hist) {
                snprintf(j->why, sizeof j->why, "out of memory for latency histograms");
                return -ENOMEM;
            }
            nvb__hist_init(j->st[t].d[d].hist);
        }
    }
    memcpy(j->eopts, p->eopts, sizeof p->eopts);
    struct nvb__engine_ctx ctx = {
        .qd = qd, .nfds = nofiles ? 0 : j->nt, .fds = j->fds, .direct = w->direct || (e->flags & NVB__ENG_CHARDEV),
        .writes = p->writes,
        .bufs = j->bufs, .buf_len = (size_t)w->bs, .cpu = j->cpu, .opts = j->eopts, .opts_set = p->eopts_set,
        .used = &j->used, .why = j->why, .why_len = sizeof j->why,
        .wait_ns = w->io_timeout_ns ? (w->io_timeout_ns < WAIT_SLICE_NS ? w->io_timeout_ns : WAIT_SLICE_NS) : 0,
        .io_timeout_ns = w->io_timeout_ns,
    };
    j->why[0] = 0;
    int rc = e->setup(&ctx, &j->est);
    if (rc == -ETIMEDOUT)
        j->abandoned = 1; /* an I/O of setup()'s may still land in a buffer */
    if (rc < 0) {
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s", j->why);
        snprintf(j->why, sizeof j->why, "engine %s: %s", e->name, tmp[0] ? tmp : nvb_strerror(rc));
        j->est = NULL;
        return rc;
    }
    struct nvb__fault_cfg fc = {
        .rate = w->fault_rate, .err = w->fault_errno, .short_rate = w->fault_short,
        .delay_rate = w->fault_delay_rate, .delay_ns = w->fault_delay_ns,
        .seed = (w->fault_seed_set ? w->fault_seed : w->seed ^ 0xfa017fa017fa017full) ^
                (0xd6e8feb86659fd93ull * (j->idx + 1)),
        .align = 1,
    };
    if (w->direct)
        for (unsigned t = 0; t < j->nt; t++)
            if (p->t[j->tmap[t]].ti.lbs > fc.align)
                fc.align = p->t[j->tmap[t]].ti.lbs;
    if (nvb__fault_wanted(&fc) && (rc = nvb__fault_new(&fc, e, j->est, qd, &j->fault)) < 0) {
        snprintf(j->why, sizeof j->why, "out of memory for fault injection in job %u", j->idx);
        return rc;
    }
    j->rng = w->seed ^ (0x8bb84b93962eacc9ull * (j->idx + 1));
    return 0;
}

static void *job_main(void *arg)
{
    struct job *j = arg;
    struct run *r = j->run;
    int rc = job_setup(j);
    nvb__mutex_lock(r->mu);
    j->rc = rc;
    r->nready++;
    nvb__cond_signal_all(r->cv);
    while (!r->go)
        nvb__cond_wait(r->cv, r->mu, 0);
    int go = r->go;
    nvb__mutex_unlock(r->mu);
    if (go > 0 && rc == 0) {
        job_loop(j);
        if (r->p->eng->note && j->est)
            r->p->eng->note(j->est, j->note, sizeof j->note);
    }
    nvb__mutex_lock(r->mu);
    r->ndone++;
    nvb__cond_signal_all(r->cv);
    /* Stay alive until the runner has sampled per-thread CPU. */
    while (!r->release)
        nvb__cond_wait(r->cv, r->mu, 0);
    nvb__mutex_unlock(r->mu);
    job_release_resources(j);
    return NULL;
}

/* ---------------------------------------------------------------- CPU */

static void threads_fill(struct nvb_result *res, struct nvb__thread_cpu *a, int na, struct nvb__thread_cpu *b, int nb)
{
    if (nb <= 0)
        return;
    res->threads = calloc((size_t)nb, sizeof *res->threads);
    if (!res->threads)
        return;
    for (int i = 0; i < nb; i++) {
        struct nvb__thread_row *row = &res->threads[res->nthreads];
        uint64_t u = b[i].user_ns, s = b[i].sys_ns, rn = b[i].run_ns;
        for (int k = 0; k < na; k++)
            if (a[k].tid == b[i].tid) {
                u = u > a[k].user_ns ? u - a[k].user_ns : 0;
                s = s > a[k].sys_ns ? s - a[k].sys_ns : 0;
                rn = rn > a[k].run_ns ? rn - a[k].run_ns : 0;
                break;
            }
        row->tid = b[i].tid;
        snprintf(row->name, sizeof row->name, "%s", b[i].name);
        row->user_s = (double)u / 1e9;
        row->sys_s = (double)s / 1e9;
        row->run_s = (double)rn / 1e9;
        res->nthreads++;
    }
}

/* ---------------------------------------------------------------- run */

static void ts_sample(struct run *r, struct nvb_result *res, struct live *prev, uint64_t *prev_ns,
                      struct nvb__sys_sample *prev_sys, int have_sys, struct nvb_progress *pg, uint64_t t_unix)
{
    struct live cur;
    memset(&cur, 0, sizeof cur);
    for (unsigned i = 0; i < r->p->jobs; i++) {
        struct job *j = &r->jobs[i];
        for (int d = 0; d < 2; d++) {
            cur.ios[d] += live_load(&j->live.ios[d]);
            cur.bytes[d] += live_load(&j->live.bytes[d]);
            cur.lat_sum[d] += live_load(&j->live.lat_sum[d]);
        }
        cur.errors += live_load(&j->live.errors);
    }
    uint64_t now = nvb__now_ns();
    struct nvb__tsample s;
    memset(&s, 0, sizeof s);
    s.t_s = (double)((int64_t)now - (int64_t)r->meas_ns) / 1e9;
    s.dt_s = (double)(now - *prev_ns) / 1e9;
    s.t_unix_ns = t_unix;
    for (int d = 0; d < 2; d++) {
        /* live counters restart at the end of the ramp */
        s.ios[d] = cur.ios[d] >= prev->ios[d] ? cur.ios[d] - prev->ios[d] : cur.ios[d];
        s.bytes[d] = cur.bytes[d] >= prev->bytes[d] ? cur.bytes[d] - prev->bytes[d] : cur.bytes[d];
        s.lat_sum[d] = cur.lat_sum[d] >= prev->lat_sum[d] ? cur.lat_sum[d] - prev->lat_sum[d] : cur.lat_sum[d];
    }
    s.errors = cur.errors >= prev->errors ? cur.errors - prev->errors : cur.errors;
    s.system_pct = -1;
    if (have_sys) {
        struct nvb__sys_sample ss;
        memset(&ss, 0, sizeof ss);
        if (nvb__sys_sample(&ss) == 0) {
            s.system_pct = nvb__cpu_busy_pct(prev_sys, &ss);
            nvb__sys_sample_free(prev_sys);
            *prev_sys = ss;
        }
    }
    if (s.t_s > 0)
        nvb__result_ts_push(res, &s);
    if (pg) {
        memset(pg, 0, sizeof *pg);
        pg->size = sizeof *pg;
        pg->elapsed_s = s.t_s;
        pg->total_s = (double)r->p->runtime_ns / 1e9;
        for (int d = 0; d < 2; d++) {
            pg->ios[d] = cur.ios[d];
            pg->bytes[d] = cur.bytes[d];
            pg->iops[d] = s.dt_s > 0 ? (double)s.ios[d] / s.dt_s : 0;
            pg->bw_bytes_s[d] = s.dt_s > 0 ? (double)s.bytes[d] / s.dt_s : 0;
            pg->lat_mean_ns[d] = s.ios[d] ? (double)s.lat_sum[d] / (double)s.ios[d] : 0;
        }
        pg->errors = cur.errors;
        double f = 0;
        if (r->p->runtime_ns)
            f = s.t_s / ((double)r->p->runtime_ns / 1e9);
        if (r->p->ios_total) {
            double g = (double)(cur.ios[0] + cur.ios[1]) / (double)r->p->ios_total;
            f = f > g ? f : g;
        }
        pg->done_fraction = f < 0 ? 0 : f > 1 ? 1 : f;
    }
    *prev = cur;
    *prev_ns = now;
}

/* Diagnostics go to the caller's log callback, never to a stream. */
/* A sampler that woke late labels its sample with the latest tick passed,
 * which can lie after the moment the jobs ended (on a busy machine): such
 * points and the final one become one point that ends with the window, so
 * that the points stay in order and the last ends where the run did. */
static void ts_fold_late(struct nvb_result *res, uint64_t end_unix)
{
    while (res->nts >= 2 && res->ts[res->nts - 2].t_unix_ns >= end_unix) {
        struct nvb__tsample *a = &res->ts[res->nts - 2];
        const struct nvb__tsample *b = &res->ts[res->nts - 1];
        for (int d = 0; d < 2; d++) {
            a->ios[d] += b->ios[d];
            a->bytes[d] += b->bytes[d];
            a->lat_sum[d] += b->lat_sum[d];
        }
        a->errors += b->errors;
        if (a->system_pct >= 0 && b->system_pct >= 0 && a->dt_s + b->dt_s > 0)
            a->system_pct = (a->system_pct * a->dt_s + b->system_pct * b->dt_s) / (a->dt_s + b->dt_s);
        else
            a->system_pct = -1;
        a->dt_s += b->dt_s;
        a->t_s = b->t_s;
        a->t_unix_ns = b->t_unix_ns;
        res->nts--;
    }
    if (res->nts && res->ts[res->nts - 1].t_unix_ns > end_unix)
        res->ts[res->nts - 1].t_unix_ns = end_unix;
}

static void run_log(const struct nvb_run_opts *o, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void run_log(const struct nvb_run_opts *o, int level, const char *fmt, ...)
{
    if (!o->log)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    o->log(level, buf, o->log_arg);
}

/* The start barrier is called exactly once per run that has one, on every
 * path: a collective barrier (MPI) must not wait for a process whose run
 * failed before reaching it. Returns what the callback returned. */
static int run_barrier(const struct nvb_run_opts *o, int *pending, int status)
{
    if (!*pending)
        return 0;
    *pending = 0;
    return o->start_barrier(status, o->start_barrier_arg);
}

static int result_from_plan_error(struct nvb_result **out, const struct nvb_workload *w, int rc, const char *msg)
{
    if (!out)
        return rc;
    struct nvb_result *res = nvb__result_new();
    if (res) {
        nvb__hostname(res->host, sizeof res->host);
        snprintf(res->engine, sizeof res->engine, "%s", w->engine);
        nvb__workload_copy(w, &res->wl);
        nvb__result_seterr(res, rc, msg);
        nvb__result_warn_utf8(res, w);
    }
    *out = res;
    return rc;
}

static void assign_targets(const struct nvb_workload *w, const struct plan *p, struct job *j, unsigned nt_all)
{
    if (w->target_mode == NVB__TM_SPLIT) {
        if (p->jobs >= nt_all) {
            j->nt = 1;
            j->tmap[0] = j->idx % nt_all;
        } else {
            j->nt = 0;
            for (unsigned t = j->idx; t < nt_all; t += p->jobs)
                j->tmap[j->nt++] = t;
        }
    } else {
        j->nt = nt_all;
        for (unsigned t = 0; t < nt_all; t++)
            j->tmap[t] = t;
    }
}

static void measure_clock_cost(struct nvb_result *res)
{
    uint64_t a = nvb__now_ns(), b = a;
    for (int i = 0; i < 1000; i++)
        b = nvb__now_ns();
    res->clock_cost_ns = (double)(b - a) / 1000.0;
}

/* Laying out a scratch file: random data, or with verify=1 valid blocks
 * (sequence 0) so that reads before any write check out. The caller's
 * cancel handle and poll hook are honoured between chunks: a Ctrl-C during
 * a long layout stops it. */
#define LAYOUT_CHUNK (1u << 20)
struct layout {
    struct run *r;
    const struct nvb_run_opts *o;
    int verify;
    uint64_t seed;
    uint32_t target, bs;
    const void *pattern;        /* LAYOUT_CHUNK random bytes, repeated (verify=0) */
    uint64_t poll_ns, next_poll;
};

static void layout_gen(void *arg, void *chunk, uint64_t off, size_t len)
{
    const struct layout *l = arg;
    char *b = chunk;
    if (!l->verify) {
        memcpy(b, l->pattern, len); /* chunks are LAYOUT_CHUNK long and start at multiples of it */
        return;
    }
    size_t k = 0;
    for (; k + l->bs <= len; k += l->bs)
        nvb__vblock_fill(b + k, l->bs, l->seed, l->target, off + k, 0);
    memset(b + k, 0, len - k); /* a tail shorter than a block is never read */
}

static int hold_targets(struct plan *p, const struct nvb_workload *w, int verify, const struct nvb_run_opts *o,
                        char *err, size_t errlen)
{
    (void)w;
    if (p->eng->flags & NVB__ENG_NO_FILES)
        return 0;
    int chardev = (p->eng->flags & NVB__ENG_CHARDEV) != 0;
    int level = p->writes ? NVB__HOLD_WRITE : verify ? NVB__HOLD_VERIFY : NVB__HOLD_READ;
    unsigned n = 0;
    for (unsigned t = 0; t < p->nt; t++) {
        struct ptarget *pt = &p->t[t];
        if (pt->scratch)
            continue;
        struct nvb__hold *h = &pt->hold;
        h->path = pt->path;
        h->file = pt->file;
        h->claim = pt->claim[0] ? pt->claim : NULL;
        h->kind = chardev ? NVB__T_CHAR : (int)pt->ti.kind;
        h->id_dev = pt->ti.id_dev;
        h->id_ino = pt->ti.id_ino;
        h->id_rdev = pt->ti.id_rdev;
        h->level = level;
        n++;
    }
    if (!n)
        return 0;
    /* Debug level: a test swaps a target from here to prove the hold
     * judges what it opens, not the name planning looked at. */
    run_log(o, 3, "opening %u target%s", n, n == 1 ? "" : "s");
    for (unsigned t = 0; t < p->nt; t++) {
        if (p->t[t].scratch)
            continue;
        /* a target named twice shares the first one's hold */
        struct nvb__hold *h = &p->t[t].hold;
        int rc = 0;
        for (unsigned k = 0; k < t && h->fd < 0; k++) {
            const struct nvb__hold *e = &p->t[k].hold;
            if (!p->t[k].scratch && e->fd >= 0 && e->kind == h->kind && e->id_dev == h->id_dev &&
                e->id_ino == h->id_ino && e->id_rdev == h->id_rdev)
                rc = nvb__hold_share(e, h);
        }
        if (rc == 0 && h->fd < 0)
            rc = nvb__hold_take(h, 1, err, errlen);
        if (rc < 0) {
            if (!err[0])
                snprintf(err, errlen, "target '%s': %s", p->t[t].path, nvb_strerror(rc));
            for (unsigned k = 0; k < t; k++)
                nvb__hold_release(&p->t[k].hold, 1);
            return rc;
        }
    }
    return 0;
}

/* A scratch file this run created: held like any other target, so that
 * the layout and the jobs write the file that was created. */
static int hold_scratch(struct ptarget *pt, const struct nvb__target_info *ti, char *err, size_t errlen)
{
    struct nvb__hold *h = &pt->hold;
    h->path = pt->file;
    h->file = pt->file;
    h->claim = NULL;
    h->kind = NVB__T_FILE;
    h->id_dev = ti->id_dev;
    h->id_ino = ti->id_ino;
    h->id_rdev = ti->id_rdev;
    h->level = NVB__HOLD_READ;
    err[0] = 0;
    return nvb__hold_take(h, 1, err, errlen);
}

static int layout_stop(void *arg)
{
    struct layout *l = arg;
    if (l->r->cancel && __atomic_load_n(&l->r->cancel->flag, __ATOMIC_RELAXED))
        return 1;
    if (l->o->poll) {
        uint64_t now = nvb__now_ns();
        if (now >= l->next_poll) {
            l->next_poll = now + l->poll_ns;
            if (l->o->poll(l->o->poll_arg)) {
                __atomic_store_n(&l->r->stop, 1, __ATOMIC_RELAXED);
                return 1;
            }
        }
    }
    return 0;
}

NVB_API int nvb_run(const struct nvb_workload *w, const struct nvb_run_opts *opts, struct nvb_result **out)
{
    if (out)
        *out = NULL;
    if (!w || !out)
        return -EINVAL;
    struct nvb_run_opts o;
    memset(&o, 0, sizeof o);
    if (opts) {
        size_t n = opts->size < sizeof o ? opts->size : sizeof o;
        memcpy(&o, opts, n);
    }
    int barrier_pending = o.start_barrier != NULL;
    struct plan p;
    char err[1024];
    int rc = plan_build(w, &p, err, sizeof err);
    if (rc < 0) {
        run_log(&o, 0, "%s", err);
        run_barrier(&o, &barrier_pending, rc);
        return result_from_plan_error(out, w, rc, err);
    }

    struct nvb_result *res = nvb__result_new();
    if (!res) {
        plan_free(&p);
        run_barrier(&o, &barrier_pending, -ENOMEM);
        return -ENOMEM;
    }
    *out = res;
    nvb__hostname(res->host, sizeof res->host);
    snprintf(res->engine, sizeof res->engine, "%s", w->engine);
    res->qd_effective = p.qd;
    res->verify_enabled = w->verify && !(p.eng->flags & NVB__ENG_NO_FILES);
    {
        struct nvb__fault_cfg fc = {.rate = w->fault_rate, .short_rate = w->fault_short,
                                    .delay_rate = w->fault_delay_rate, .delay_ns = w->fault_delay_ns};
        res->fault_enabled = nvb__fault_wanted(&fc);
        res->fault_errno = w->fault_errno;
    }
    res->ncpus_online = p.ncpus_online;
    if (nvb__workload_copy(w, &res->wl) < 0) {
        nvb__result_seterr(res, -ENOMEM, "out of memory");
        plan_free(&p);
        run_barrier(&o, &barrier_pending, -ENOMEM);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < p.nwarn; i++)
        nvb__result_warn(res, "%s", p.warn[i]);
    nvb__result_warn_utf8(res, w);
    measure_clock_cost(res);

    struct run r;
    memset(&r, 0, sizeof r);
    r.w = w;
    r.opts = &o;
    r.cancel = o.cancel;
    r.p = &p;
    struct nvb__sys_sample sys0, sys1, sys_iv;
    memset(&sys0, 0, sizeof sys0);
    memset(&sys1, 0, sizeof sys1);
    memset(&sys_iv, 0, sizeof sys_iv);
    struct nvb__thread_cpu *th0 = NULL, *th1 = NULL;
    int nth0 = 0, nth1 = 0;
    unsigned started = 0;

    /* The hold: every target opened once, checked to be what planning
     * judged, locked, checked for use, and kept open to the end. */
    if ((rc = hold_targets(&p, w, res->verify_enabled, &o, err, sizeof err)) < 0) {
        nvb__result_seterr(res, rc, err);
        goto out_cleanup;
    }

    /* Scratch files: created only now that everything else checked out. */
    res->ntargets = p.nt;
    res->tg = calloc(p.nt, sizeof *res->tg);
    if (!res->tg) {
        rc = -ENOMEM;
        nvb__result_seterr(res, rc, "out of memory");
        goto out_cleanup;
    }
    for (unsigned t = 0; t < p.nt; t++) {
        struct ptarget *pt = &p.t[t];
        res->tg[t].path = nvb__strdup(pt->path);
        res->tg[t].region_off = pt->off;
        res->tg[t].region_len = pt->len;
        res->tg[t].lbs = pt->ti.lbs;
        res->tg[t].devf = pt->devf;
        snprintf(res->tg[t].dev, sizeof res->tg[t].dev, "%s", pt->ti.dev);
        static const char *const kinds[] = {"?", "file", "block", "dir", "char", "other"};
        snprintf(res->tg[t].kind, sizeof res->tg[t].kind, "%s",
                 pt->scratch ? "scratch" : kinds[pt->ti.kind <= NVB__T_OTHER ? pt->ti.kind : 0]);
        if (!pt->scratch || (p.eng->flags & NVB__ENG_NO_FILES)) {
            res->tg[t].file = nvb__strdup(pt->file);
            continue;
        }
        unsigned stale = 0;
        if (nvb__scratch_clean_stale(pt->path, &stale) == 0 && stale)
            nvb__result_warn(res, "removed %u scratch file%s in '%s' left by runs that were killed", stale,
                             stale == 1 ? "" : "s", pt->path);
        run_log(&o, 2, "laying out a scratch file of %" PRIu64 " bytes in '%s'", pt->len, pt->path);
        rc = nvb__scratch_create(pt->path, pt->len, pt->file, sizeof pt->file);
        if (rc < 0) {
            pt->file[0] = 0;
            snprintf(err, sizeof err, "cannot create a scratch file of %" PRIu64 " bytes in '%s': %s", pt->len,
                     pt->path, nvb_strerror(rc));
            nvb__result_seterr(res, rc, err);
            goto out_cleanup;
        }
        res->tg[t].file = nvb__strdup(pt->file);
        struct nvb__target_info ti;
        if ((rc = nvb__target_info(pt->file, &ti)) < 0 || (rc = hold_scratch(pt, &ti, err, sizeof err)) < 0) {
            if (!err[0] || rc != -ESTALE)
                snprintf(err, sizeof err, "scratch file '%s': %s", pt->file, nvb_strerror(rc));
            nvb__result_seterr(res, rc, err);
            goto out_cleanup;
        }
        {
            pt->ti.lbs = ti.lbs;
            pt->ti.mem_align = ti.mem_align;
            res->tg[t].lbs = ti.lbs;
            if (w->direct && ti.lbs && w->bs % ti.lbs) {
                rc = -EINVAL;
                snprintf(err, sizeof err, "bs '%" PRIu64 "' is not a multiple of the logical block size %u of the "
                         "scratch file in '%s' (direct=1)", w->bs, ti.lbs, pt->path);
                nvb__result_seterr(res, rc, err);
                goto out_cleanup;
            }
        }
        int fd = nvb__hold_reopen(&pt->hold, NVB__O_WRITE | (w->direct ? NVB__O_DIRECT : 0));
        if (fd < 0) {
            rc = fd;
            snprintf(err, sizeof err, "cannot open scratch file '%s': %s", pt->file, nvb_strerror(rc));
            nvb__result_seterr(res, rc, err);
            goto out_cleanup;
        }
        void *fb = nvb__alloc_aligned(4096, LAYOUT_CHUNK);
        if (!fb) {
            nvb__target_close(fd);
            rc = -ENOMEM;
            nvb__result_seterr(res, rc, "out of memory");
            goto out_cleanup;
        }
        uint64_t fs = w->seed ^ 0x5eed;
        for (size_t k = 0; k < LAYOUT_CHUNK / 8; k++)
            ((uint64_t *)fb)[k] = nvb__splitmix64(&fs);
        struct layout lay = {
            .r = &r, .o = &o, .verify = res->verify_enabled, .seed = w->seed, .target = t, .bs = (uint32_t)w->bs,
            .pattern = fb, .poll_ns = (o.poll_ms ? o.poll_ms : 100) * 1000000ull,
        };
        lay.next_poll = nvb__now_ns() + lay.poll_ns;
        /* whole blocks per chunk, so each chunk starts on a block */
        size_t chunk = LAYOUT_CHUNK;
        if (lay.verify)
            chunk = w->bs >= LAYOUT_CHUNK ? (size_t)w->bs : LAYOUT_CHUNK / (size_t)w->bs * (size_t)w->bs;
        rc = nvb__fill_file_cb(fd, pt->len, chunk, layout_gen, layout_stop, &lay);
        nvb__free_aligned(fb);
        nvb__target_close(fd);
        if (rc < 0) {
            snprintf(err, sizeof err, "cannot lay out scratch file '%s': %s", pt->file, nvb_strerror(rc));
            nvb__result_seterr(res, rc, err);
            if (rc == -ECANCELED)
                res->cancelled = 1;
            goto out_cleanup;
        }
    }

    if ((rc = nvb__mutex_new(&r.mu)) < 0 || (rc = nvb__cond_new(&r.cv)) < 0) {
        nvb__result_seterr(res, rc, "cannot create synchronisation objects");
        goto out_cleanup;
    }
    r.jobs = calloc(p.jobs, sizeof *r.jobs);
    if (!r.jobs) {
        rc = -ENOMEM;
        nvb__result_seterr(res, rc, "out of memory");
        goto out_cleanup;
    }
    /* Budgets and rates split exactly over the jobs. */
    unsigned cpu_list[NVB__MAX_CPUS], ncpu_list = 0;
    for (unsigned c = 0; c < NVB__MAX_CPUS; c++)
        if ((w->cpus[c / 64] >> (c % 64)) & 1)
            cpu_list[ncpu_list++] = c;
    for (unsigned i = 0; i < p.jobs; i++) {
        struct job *j = &r.jobs[i];
        j->run = &r;
        j->idx = i;
        j->cpu = ncpu_list ? (int)cpu_list[i % ncpu_list] : -1;
        j->tmap = calloc(p.nt, sizeof *j->tmap);
        j->st = calloc(p.nt, sizeof *j->st);
        if (!j->tmap || !j->st) {
            rc = -ENOMEM;
            nvb__result_seterr(res, rc, "out of memory");
            goto out_cleanup;
        }
        assign_targets(w, &p, j, p.nt);
        if (p.ios_total)
            j->budget = p.ios_total / p.jobs + (i < p.ios_total % p.jobs ? 1 : 0);
        else
            j->budget = UINT64_MAX;
        if (w->rate_iops) {
            double per = (double)w->rate_iops / p.jobs;
            j->rate_ns = per > 0 ? (uint64_t)(1e9 / per) : 0;
            if (!j->rate_ns)
                j->rate_ns = 1;
        }
    }
    for (unsigned i = 0; i < p.jobs; i++) {
        char name[16];
        snprintf(name, sizeof name, "nvb-job-%u", i);
        rc = nvb__thread_start(&r.jobs[i].thr, job_main, &r.jobs[i], name);
        if (rc < 0) {
            snprintf(err, sizeof err, "cannot start job thread %u of %u: %s", i, p.jobs, nvb_strerror(rc));
            nvb__result_seterr(res, rc, err);
            break;
        }
        started++;
    }
    nvb__mutex_lock(r.mu);
    while (r.nready < started)
        nvb__cond_wait(r.cv, r.mu, 0);
    int setup_rc = rc;
    for (unsigned i = 0; i < started && setup_rc == 0; i++)
        if (r.jobs[i].rc < 0) {
            setup_rc = r.jobs[i].rc;
            nvb__result_seterr(res, setup_rc, r.jobs[i].why);
        }
    if (barrier_pending) {
        /* Every job is ready (or the setup failed): the callback may block
         * on other processes, so not with the lock held. */
        nvb__mutex_unlock(r.mu);
        int b = run_barrier(&o, &barrier_pending, setup_rc);
        if (b && setup_rc == 0) {
            setup_rc = -ECANCELED;
            res->cancelled = 1;
            snprintf(err, sizeof err, "cancelled at the start barrier: start_barrier returned %d", b);
            nvb__result_seterr(res, setup_rc, err);
        }
        nvb__mutex_lock(r.mu);
    }
    if (setup_rc < 0) {
        r.go = -1;
        r.release = 1;
        nvb__cond_signal_all(r.cv);
        nvb__mutex_unlock(r.mu);
        rc = setup_rc;
        goto out_join;
    }
    nvb__mutex_unlock(r.mu);
    for (unsigned i = 0; i < p.jobs; i++)
        if (r.jobs[i].used.n) {
            res->used = r.jobs[i].used;
            break;
        }

    /* Start: sample, then release the jobs. */
    int have_sys = nvb__sys_sample(&sys0) == 0;
    struct nvb__proc_sample pr0, pr1;
    memset(&pr0, 0, sizeof pr0);
    memset(&pr1, 0, sizeof pr1);
    nvb__proc_sample(&pr0);
    nth0 = nvb__threads_sample(&th0);
    uint64_t cpu_t0 = nvb__now_ns();
    res->start_wall_ns = nvb__wall_ns();
    nvb__mutex_lock(r.mu);
    r.go_ns = nvb__now_ns();
    r.meas_ns = r.go_ns + w->ramp_ns;
    r.end_ns = p.runtime_ns ? r.meas_ns + p.runtime_ns : 0;
    r.go = 1;
    nvb__cond_signal_all(r.cv);
    res->ramp_s = (double)w->ramp_ns / 1e9;

    int ramp_pending = w->ramp_ns > 0;
    struct live prev;
    memset(&prev, 0, sizeof prev);
    uint64_t prev_ns = r.meas_ns, next_tick = r.meas_ns + w->interval_ns, last_tick = r.meas_ns;
    if (w->align_interval) {
        /* Ticks on wall-clock multiples of interval, so that the samples of
         * hosts whose clocks agree (NTP/PTP) cover the same intervals; the
         * first interval is the part up to the first multiple. */
        uint64_t meas_wall = res->start_wall_ns + (r.meas_ns - r.go_ns);
        uint64_t first = (meas_wall / w->interval_ns + 1) * w->interval_ns;
        next_tick = r.meas_ns + (first - meas_wall);
    }
    const uint64_t poll_ns = (o.poll_ms ? o.poll_ms : 100) * 1000000ull;
    uint64_t next_poll = r.go_ns + poll_ns;
    if (have_sys && !ramp_pending) {
        sys_iv = sys0;
        sys_iv.cpu = NULL;
        sys_iv.cpu_id = NULL;
    }
    while (r.ndone < p.jobs) {
        uint64_t now = nvb__now_ns();
        uint64_t until = ramp_pending ? r.meas_ns : next_tick;
        if (now < until) {
            uint64_t wait = until - now;
            if (wait > 50000000ull && r.cancel)
                wait = 50000000ull; /* notice a signal handler's cancel request */
            if (o.poll && wait > poll_ns)
                wait = poll_ns;
            nvb__cond_wait(r.cv, r.mu, wait);
            if (r.ndone >= p.jobs)
                break;
        }
        now = nvb__now_ns();
        if (o.poll && now >= next_poll) {
            nvb__mutex_unlock(r.mu);
            if (o.poll(o.poll_arg))
                __atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
            nvb__mutex_lock(r.mu);
            next_poll = nvb__now_ns() + poll_ns;
        }
        if (r.cancel && r.cancel->flag)
            __atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
        if (ramp_pending && now >= r.meas_ns) {
            /* The measured window starts here for the CPU figures. */
            ramp_pending = 0;
            nvb__mutex_unlock(r.mu);
            if (have_sys) {
                nvb__sys_sample_free(&sys0);
                have_sys = nvb__sys_sample(&sys0) == 0;
                sys_iv = sys0;
                sys_iv.cpu = NULL;
                sys_iv.cpu_id = NULL;
            }
            nvb__proc_sample(&pr0);
            free(th0);
            th0 = NULL;
            nth0 = nvb__threads_sample(&th0);
            cpu_t0 = nvb__now_ns();
            struct live dummy;
            memset(&dummy, 0, sizeof dummy);
            prev = dummy;
            prev_ns = r.meas_ns;
            nvb__mutex_lock(r.mu);
            continue;
        }
        if (!ramp_pending && now >= next_tick) {
            nvb__mutex_unlock(r.mu);
            struct nvb_progress pg;
            /* Labelled with the latest tick passed (late samplers skip ticks). */
            uint64_t tick = next_tick;
            while (tick + w->interval_ns <= now)
                tick += w->interval_ns;
            last_tick = tick;
            ts_sample(&r, res, &prev, &prev_ns, &sys_iv, have_sys, o.progress ? &pg : NULL,
                      res->start_wall_ns + (tick - r.go_ns));
            while (next_tick <= now)
                next_tick += w->interval_ns;
            if (o.progress && o.progress(&pg, o.progress_arg))
                __atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
            nvb__mutex_lock(r.mu);
        }
    }
    nvb__mutex_unlock(r.mu);
    /* All jobs finished their loops: close the measured window. */
    uint64_t cpu_t1 = nvb__now_ns();
    if (have_sys)
        have_sys = nvb__sys_sample(&sys1) == 0;
    nvb__proc_sample(&pr1);
    nth1 = nvb__threads_sample(&th1);
    if (!ramp_pending) {
        /* the last, partial interval: it ends where the last job ended */
        uint64_t t_jobs = r.meas_ns;
        for (unsigned i = 0; i < p.jobs; i++)
            if (r.jobs[i].t_end > t_jobs)
                t_jobs = r.jobs[i].t_end;
        uint64_t t_last = last_tick > t_jobs ? last_tick : t_jobs;
        ts_sample(&r, res, &prev, &prev_ns, &sys_iv, have_sys, NULL, res->start_wall_ns + (t_last - r.go_ns));
        ts_fold_late(res, res->start_wall_ns + (t_jobs - r.go_ns));
    }
    nvb__mutex_lock(r.mu);
    r.release = 1;
    nvb__cond_signal_all(r.cv);
    nvb__mutex_unlock(r.mu);

    if (have_sys)
        nvb__cpu_fill(res, &sys0, &sys1);
    double win = (double)(cpu_t1 - cpu_t0) / 1e9;
    res->process_user_s = (double)(pr1.user_ns - (pr0.user_ns < pr1.user_ns ? pr0.user_ns : pr1.user_ns)) / 1e9;
    res->process_sys_s = (double)(pr1.sys_ns - (pr0.sys_ns < pr1.sys_ns ? pr0.sys_ns : pr1.sys_ns)) / 1e9;
    res->maxrss_kib = pr1.maxrss_kib;
    res->minflt = pr1.minflt - pr0.minflt;
    res->majflt = pr1.majflt - pr0.majflt;
    res->nvcsw = pr1.nvcsw - pr0.nvcsw;
    res->nivcsw = pr1.nivcsw - pr0.nivcsw;
    threads_fill(res, th0, nth0, th1, nth1);
    res->cpu_window_s = win;

out_join:
    for (unsigned i = 0; i < started; i++)
        nvb__thread_join(r.jobs[i].thr);
    if (setup_rc == 0 && started == p.jobs) {
        /* Merge: per job per target -> per target -> totals (exact sums). */
        uint64_t t_end = r.meas_ns;
        for (unsigned i = 0; i < p.jobs; i++) {
            struct job *j = &r.jobs[i];
            if (j->t_end > t_end)
                t_end = j->t_end;
            for (unsigned t = 0; t < j->nt; t++) {
                struct nvb__tstat *dst = &res->tg[j->tmap[t]];
                for (int d = 0; d < 2; d++) {
                    struct nvb__dstat *s = &j->st[t].d[d];
                    dst->d[d].ios += s->ios;
                    dst->d[d].bytes += s->bytes;
                    if (s->hist) {
                        if (!dst->d[d].hist) {
                            dst->d[d].hist = malloc(sizeof(struct nvb__hist));
                            if (dst->d[d].hist)
                                nvb__hist_init(dst->d[d].hist);
                        }
                        if (dst->d[d].hist)
                            nvb__hist_merge(dst->d[d].hist, s->hist);
                    }
                }
                dst->errors += j->st[t].errors;
            }
            for (int e = 0; e < NVB__ERRNO_SLOTS; e++)
                res->by_errno[e] += j->by_errno[e];
            res->errors += j->errors;
            res->short_ios += j->short_ios;
            for (int d = 0; d < 2; d++) {
                res->errors_dir[d] += j->errors_dir[d];
                res->fault_err[d] += j->fault_err[d];
                res->fault_short[d] += j->fault_short[d];
                res->fault_delayed[d] += j->fault_delayed[d];
            }
            res->verify_checked += j->verify_checked;
            res->verify_mismatches += j->verify_mismatches;
            for (int f = 0; f < NVB__VF_COUNT; f++)
                res->verify_by_field[f] += j->verify_by_field[f];
            for (unsigned k = 0; k < j->nfirst_mm && res->nfirst_mismatch < NVB__VERIFY_FIRST; k++)
                res->first_mismatch[res->nfirst_mismatch++] = j->first_mm[k];
            if (j->rc < 0 && !res->err)
                nvb__result_seterr(res, j->rc, j->why);
            if (j->note[0])
                nvb__result_warn(res, "engine %s, job %u: %s", p.eng->name, i, j->note);
            if (j->abandoned)
                nvb__result_warn(res, "watchdog: job %u abandoned %u I/O%s in flight; %u buffers of %" PRIu64
                                 " bytes stay allocated until the process exits (the device may still write into them)",
                                 i, j->abandoned, j->abandoned == 1 ? "" : "s", p.qd, w->bs);
        }
        res->duration_s = (double)(t_end - r.meas_ns) / 1e9;
        {
            /* Wall-clock ends, for merging with other hosts' runs. */
            uint64_t t_first = t_end;
            for (unsigned i = 0; i < p.jobs; i++)
                if (r.jobs[i].t_end < t_first)
                    t_first = r.jobs[i].t_end;
            res->end_wall_ns = res->start_wall_ns + (t_end - r.go_ns);
            res->first_done_wall_ns = res->start_wall_ns + (t_first - r.go_ns);
        }
        for (unsigned t = 0; t < p.nt; t++)
            for (int d = 0; d < 2; d++) {
                struct nvb__dstat *s = &res->tg[t].d[d];
                res->tot[d].ios += s->ios;
                res->tot[d].bytes += s->bytes;
                if (s->hist) {
                    if (!res->tot[d].hist) {
                        res->tot[d].hist = malloc(sizeof(struct nvb__hist));
                        if (res->tot[d].hist)
                            nvb__hist_init(res->tot[d].hist);
                    }
                    if (res->tot[d].hist)
                        nvb__hist_merge(res->tot[d].hist, s->hist);
                }
            }
        if (res->cpu_valid && res->steal_pct > 5.0)
            nvb__result_warn(res, "steal time %.1f%%: the hypervisor took CPU from this machine; figures are noisy",
                             res->steal_pct);
        if (res->cpu_valid) {
            struct nvb__cpu_derived cd;
            nvb__cpu_derive(res, &cd);
            if (cd.background_pct > 10.0)
                nvb__result_warn(res, "the machine was not quiet: %.1f%% of all CPU time was used by other "
                                 "processes during the run", cd.background_pct);
        }
        if (res->short_ios)
            nvb__result_warn(res, "%" PRIu64 " short transfers counted as errors (EIO)", res->short_ios);
        if (res->verify_mismatches)
            nvb__result_warn(res, "verify: %" PRIu64 " of %" PRIu64 " blocks read did not match what was written",
                             res->verify_mismatches, res->verify_checked);
        if (r.io_err && !res->err) {
            nvb__result_seterr(res, r.io_err, r.io_err_msg);
            rc = r.io_err;
        }
        if (r.cancel && r.cancel->flag && !res->err) {
            res->cancelled = 1;
            nvb__result_seterr(res, -ECANCELED, "cancelled");
            rc = -ECANCELED;
        } else if (r.stop && !res->err && !r.io_err) {
            /* stopped by the progress or poll callback */
            res->cancelled = 1;
            nvb__result_seterr(res, -ECANCELED, "cancelled by the caller's callback");
            rc = -ECANCELED;
        }
        if (res->err && rc == 0)
            rc = res->err;
    }
out_cleanup:
    run_barrier(&o, &barrier_pending, rc < 0 ? rc : -ECANCELED);
    if (o.log) {
        for (unsigned i = 0; i < res->nwarn; i++)
            o.log(1, res->warn[i], o.log_arg);
        if (res->err)
            o.log(0, res->errmsg, o.log_arg);
    }
    if (r.jobs) {
        for (unsigned i = 0; i < p.jobs; i++) {
            struct job *j = &r.jobs[i];
            if (i >= started)
                job_release_resources(j);
            if (j->st) {
                for (unsigned t = 0; t < p.nt; t++)
                    for (int d = 0; d < 2; d++)
                        free(j->st[t].d[d].hist);
                free(j->st);
            }
            free(j->tmap);
        }
        free(r.jobs);
    }
    for (unsigned t = 0; t < p.nt; t++)
        if (p.t[t].scratch && p.t[t].file[0] && strcmp(p.t[t].file, p.t[t].path))
            nvb__scratch_remove(p.t[t].file);
    if (r.cv)
        nvb__cond_free(r.cv);
    if (r.mu)
        nvb__mutex_free(r.mu);
    nvb__sys_sample_free(&sys0);
    nvb__sys_sample_free(&sys1);
    nvb__sys_sample_free(&sys_iv);
    free(th0);
    free(th1);
    plan_free(&p);
    if (rc == 0 && res->err)
        rc = res->err;
    return rc;
}

/* ---------------------------------------------------------------- cancel */

NVB_API int nvb_cancel_new(struct nvb_cancel **out)
{
    if (!out)
        return -EINVAL;
    *out = calloc(1, sizeof **out);
    return *out ? 0 : -ENOMEM;
}

NVB_API void nvb_cancel_free(struct nvb_cancel *c) { free(c); }

NVB_API void nvb_cancel_request(struct nvb_cancel *c)
{
    if (c)
        __atomic_store_n(&c->flag, 1, __ATOMIC_RELAXED);
}

NVB_API int nvb_cancel_requested(const struct nvb_cancel *c)
{
    return c ? __atomic_load_n(&c->flag, __ATOMIC_RELAXED) : 0;
}

NVB_API void nvb_cancel_reset(struct nvb_cancel *c)
{
    if (c)
        __atomic_store_n(&c->flag, 0, __ATOMIC_RELAXED);
}
