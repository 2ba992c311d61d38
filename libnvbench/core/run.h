/*
 * The run (internal): what the runner's files share. runner.c orchestrates
 * one nvb_run() as a list of steps; each step lives in a file of its own:
 *   plan.c       validation and the plan, the memory and descriptor
 *                estimates, taking the hold on the targets
 *   layout.c     the targets in the result, scratch files created and laid out
 *   examine.c    the targets as the run begins: page cache dropped or
 *                measured, holes in files
 *   job.c        a job's thread and its submit/reap loop
 *   job_setup.c  job setup and teardown, the jobs dealt their targets
 *   job_pace.c   the loop's pacer: a rate's schedule, think time
 *   job_watch.c  the loop's watchdog (io_timeout), a failed I/O, a job's window end
 *   job_readback.c  verify_readback and verify_backlog: a job's read-back of the blocks it wrote
 *   zbd.c        emulated zones (zone_mode=zbd): where each I/O of a zoned run goes
 *   sampler.c    time series, progress, poll/cancel checks, CPU sampling
 *   aggregate.c  per job -> per target -> totals, end-of-run warnings
 *   cancel.c     nvb_cancel_*
 * Nothing here is part of the public API.
 */
#ifndef NVB_CORE_RUN_H
#define NVB_CORE_RUN_H

#include <stdint.h>

#include "core/internal.h"
#include "util/rand.h"
#include "core/cpu.h"
#include "core/data.h"
#include "core/fault.h"
#include "core/offpat.h"
#include "core/sched.h"
#include "core/verify.h"
#include "core/zbd.h"
#include "platform/platform.h"

#define MAX_PLAN_WARN 16

struct nvb_cancel {
    volatile int flag;
};

/* ---- the plan (plan.c) ---- */

struct ptarget {
    const char *path;
    struct nvb__target_info ti;
    int      scratch;           /* a scratch file is created in the directory path */
    int      create;            /* (with scratch) the missing file path itself is created, and kept */
    int      created, laid_out; /* layout.c: what it did so far (a half-made created file is removed) */
    char     file[4200];        /* what jobs open */
    uint64_t off, len;
    struct nvb__tdev devf;      /* device facts (block devices) */
    char     claim[80];         /* a block device held O_EXCL by a writer (nvme: the namespace's), or "" */
    const char *whole_blocks;   /* why I/O must be whole blocks even without direct=1 (nvme), or NULL */
    struct nvb__hold hold;      /* the run's hold on it (devices/hold.c), taken in nvb_run */
};

/* What a plan (or several job groups) needs from the machine (core/budget.c). */
struct nvb__need {
    struct nvb__run_mem mem;
    uint64_t job_fds, held_fds, engine_fds; /* descriptors: the jobs' targets, the hold's, the engines' */
    unsigned jobs;                          /* one plan: its jobs and targets per job, for the message */
    uint64_t per_job;
    unsigned groups;
};
struct plan {
    const struct nvb__engine *eng;
    int64_t  eopts[NVB__ENGINE_MAX_OPTS];
    unsigned char eopts_set[NVB__ENGINE_MAX_OPTS];
    unsigned nt;
    struct ptarget *t;
    unsigned qd, jobs;
    int      prewrites;         /* precondition=N: the run writes before it measures (the guard, the hold) */
    uint64_t pre_bs;            /* the precondition's block size */
    const uint64_t *job_ios;    /* I/Os of each job when given (the precondition phase), else NULL */
    uint64_t ios_total;         /* 0: bounded by time only (or by bytes_total) */
    uint64_t bytes_total;       /* io_limit with bssplit: bytes over all jobs (each job's share in bsmix.c), else 0 */
    uint64_t runtime_ns;        /* 0: bounded by ios only */
    int      reads, writes, trims;
    unsigned nwarn;
    char     warn[MAX_PLAN_WARN][1024]; /* a message quoting a path must not be cut */
    int      ncpus_online;
    /* nvb_run_groups: the plans of the run's other groups whose holds are
     * taken; a target one of them holds is shared, not opened again */
    const struct plan *const *share;
    unsigned nshare;
    struct nvb__need need;      /* what the run takes from the machine (core/budget.c) */
};

void nvb__plan_need(const struct nvb_workload *w, const struct plan *p, struct nvb__need *n);
void nvb__need_add(struct nvb__need *a, const struct nvb__need *b);
/* The needs against the machine's memory and RLIMIT_NOFILE: 0 (warnings
 * into p), -ENOMEM or -EMFILE with a message in err naming what is needed. */
int  nvb__need_check(const struct nvb__need *n, struct plan *p, char *err, size_t errlen);

/* Everything that can be checked without creating or writing anything:
 * 0, or negative errno with a message in err (the plan is then freed). */
int  nvb__plan_build(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen);
/* Releases the holds and the targets. */
void nvb__plan_free(struct plan *p);
/* A warning for the result, from planning. */
void nvb__plan_warn(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The hold: every target opened once, checked to be what planning judged,
 * locked, checked for use, and kept open to the end. */
int  nvb__plan_hold(struct plan *p, int verify, const struct nvb_run_opts *o, char *err, size_t errlen);
/* a and b (of plans pa and pb) are one file or device, however named:
 * a file by its inode, a device by its number, a passthrough target by its
 * namespace's block device. Scratch and created targets are never the same. */
int  nvb__plan_same_target(const struct plan *pa, const struct ptarget *a, const struct plan *pb,
                           const struct ptarget *b);
/* a and b share bytes, the same target or through the storage stack (a
 * loop device and its backing file or device at any depth, a partition
 * and its disk, two loop devices on one file, over overlapping bytes): 1
 * with why naming the layers ("" when they are the same target), or 0. */
int  nvb__plan_share_data(const struct plan *pa, const struct ptarget *a, const struct plan *pb,
                          const struct ptarget *b, char *why, size_t len);
/* How the run holds its targets: as a writer when it writes, preconditions
 * or trims (each destroys data), as a verifier, or as a reader. */
int  nvb__plan_hold_level(const struct plan *p, int verify);

/* ---- jobs and the run (job.c, job_setup.c) ---- */

struct live {                    /* single writer (the job), read by the runner thread */
    uint64_t ios[NVB__NDIR], bytes[NVB__NDIR], errors;
    /* modulo 2^64: at qd 16384 it wraps after 13 days of run; the sampler
     * takes differences per job, which stay exact (one job's latencies in
     * one interval, at most 16384 x 1 h, stay far below 2^64 ns) */
    uint64_t lat_sum[NVB__NDIR];
};

/* A flow (core/flow.c): the I/Os its jobs issued (from 1, as the ratio's
 * denominator) and their weights, shared by the jobs of a run or of the
 * groups of a step with one flow_id; updated atomically. */
struct nvb__flow {
    uint64_t ios, weight;
};

struct job {
    struct run *run;
    unsigned idx;
    struct nvb__thread *thr;
    unsigned nt;                 /* targets this job drives */
    unsigned *tmap;              /* job-local -> plan target */
    int *fds;
    struct nvb__tstat *st;       /* per job-local target */
    struct nvb__jhist *hists;    /* st's latency histograms, one block (job_setup.c) */
    struct nvb__jarena harena[2];/* their bucket groups: lat's (the sampler mirrors it), clat's and slat's */
    uint64_t *seqpos;
    uint64_t *nblocks;
    struct nvb__bsmix *mix;      /* bssplit: sizes and offsets (core/loopmix.h); NULL: every I/O is bs */
    struct nvb__dgen *dist;      /* per job-local target: the next random block (core/dist.h) */
    struct nvb__opat *opat;      /* per job-local target: sequential offsets with a pattern (core/offpat.h), or NULL */
    void **bufs;
    void *bufmem;                /* the buffers, one allocation */
    size_t bound;                /* cpus=local: bytes of bufmem bound to a node (unbound before the free), else 0 */
    struct nvb__io *ios;
    struct nvb__io **freel, **batch, **done;
    void *est;                   /* engine state */
    struct nvb__used used;
    int64_t *eopts;
    uint64_t budget;             /* I/Os this job issues; UINT64_MAX: time-bounded */
    uint64_t rate_ns;            /* ns between I/Os, 0: none */
    int      open;               /* rate_mode=open: I/Os start on sched */
    struct sched sched;
    uint64_t wait_ns;            /* bound of the engine's next blocking wait (its ctx->wait_ns points here) */
    uint64_t wait_base;          /* ... when no intended start bounds it */
    /* a rate's pacing (job.c) */
    uint64_t wake_late;          /* how late a timed wait ends, a running mean (ns): sets the spin */
    uint64_t full_since, freed_at; /* the queue last filled, and last had a slot freed while full */
    uint64_t last_sub;           /* the last submit call (gaps between arrivals) */
    uint64_t rng;
    uint64_t flow_ios;           /* I/Os it issued under its flow (r->flow) */
    NVB__METER;                  /* its counters in the measured window (internal.h) */
    struct nvb__fault *fault;    /* fault.* keys: wraps the engine's submit/reap */
    /* What the loop calls: the engine's submit/reap on its state, or the
     * fault wrapper's around them, chosen once in job_setup(). */
    int (*submit)(void *state, struct nvb__io **ios, unsigned n);
    int (*reap)(void *state, struct nvb__io **out, unsigned max, unsigned min);
    void *io_state;
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
    /* ... and which blocks of its stripe this run has written (a bit per
     * block, set when a write completes whole, cleared when one fails): a
     * read of a block not written is not checked, unless the target's
     * every block was valid before the run (vall: laid out or
     * preconditioned with verify=1). vmapo: each target's first word. */
    uint64_t *vmap, *vmapo;
    uint8_t  *vall;
    /* verify_backlog: the keys of the blocks written whole since the last
     * check (blog_n of blog_max), read back and checked when it is full */
    uint64_t *blog, blog_n, blog_max;
    uint64_t t_end;              /* end of this job's measured window */
    struct live live;
    uint64_t ts_lat_prev[NVB__NDIR];     /* the sampler's: live.lat_sum at its last sample */
    unsigned abandoned;          /* I/Os left in flight when the watchdog fired */
    int stalled;                 /* the watchdog found an I/O older than io_timeout */
    int zbd_eof;                 /* zone_mode=zbd: no zone held data to read or trim, the job's I/O ended */
    int by_stop;                 /* its loop ended at a stop (nvb__job_end) */
    int rc;                      /* setup or fatal error */
    char why[256];
    char note[256];              /* the engine's note after the run */
    int cpu;
    long tid;                    /* its thread's id (placement: its buffers' node) */
};

struct run {
    const struct nvb_workload *w;
    const struct nvb_run_opts *opts;
    struct nvb_cancel *cancel;
    struct plan *p;
    struct job *jobs;
    struct nvb__data data;       /* what written blocks carry (base NULL: buffers unchanged) */
    int scramble;                /* the jobs' writes get fresh data from data */
    unsigned dd_part0, dd_parts; /* data_dedupe_global in a group: its first job's number, and all of them */
    struct nvb__mutex *mu;
    struct nvb__cond *cv;
    unsigned nready, ndone;
    int go;                      /* 1: start, -1: abort */
    int release;
    uint64_t go_ns, meas_ns, end_ns;
    volatile int stop;           /* set by the runner thread or a job on a fatal error */
    /* The CPU window's two edges (docs/cpu-accounting.md): the process's
     * CPU times, the whole machine's counters beside them (one window for
     * both) and the moment they were read, taken once per edge by
     * whichever thread is there first (nvb__cpu_edge). */
    struct nvb__proc_sample cpu_pr[2];
    struct nvb__sys_sample cpu_sys[2];
    int      cpu_sys_ok[2];
    uint64_t cpu_t[2];
    int      cpu_edge[2];        /* 0: not taken, 1: being taken, 2: taken */
    struct nvb__perf *perf;      /* the run threads' event counters, enabled over the CPU window; NULL: none (perf_why) */
    char     perf_why[200];
    int      local_node;         /* cpus=local: the device's NUMA node the buffers are bound to, else -1 */
    int      local_cpu;          /* what an engine option's CPU "local" becomes (NVB__OPT_CPU), -1: stays local */
    unsigned counting;           /* jobs still in their loop */
    int ss_stopped;              /* the sampler stopped the run: steady state with ss.stop=1 */
    int io_err;                  /* first I/O error when stopping at errors */
    struct nvb__zbd *zbd;        /* zone_mode=zbd: each target's zones (core/zbd.c), else NULL */
    struct nvb__flow *flow;      /* w->flow: the flow its jobs share (own_flow, or a step's), else NULL */
    struct nvb__flow own_flow;
    char io_err_msg[256];
    /* exitall (exitall.c): the end of one of its jobs fired (1; 2 once
     * nvb_run_groups spread it), and a stop by it (its own or another
     * group's, named in exit_by) */
    int exit_fired, exit_stopped;
    char exit_by[64];
};

/* The live counters: single writer (the job), relaxed loads elsewhere. */
static inline void nvb__live_store(uint64_t *dst, uint64_t v) { __atomic_store_n(dst, v, __ATOMIC_RELAXED); }
static inline uint64_t nvb__live_load(const uint64_t *src) { return __atomic_load_n(src, __ATOMIC_RELAXED); }

/* A stop asked for: by the runner, a job's fatal error, or a cancel. */
static inline int nvb__run_stopping(const struct run *r)
{
    if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
        return 1;
    return r->cancel && __atomic_load_n(&r->cancel->flag, __ATOMIC_RELAXED);
}

/* A start line: called with mu held, counts one arrival in *arrived,
 * wakes the waiters and waits until *go is nonzero (1: start, -1: abort),
 * which it returns, mu still held. The jobs of a run wait so for the
 * sampler, the groups of nvb_run_groups for the calling thread. */
static inline int nvb__arrive_and_wait(struct nvb__mutex *mu, struct nvb__cond *cv, unsigned *arrived, const int *go)
{
    (*arrived)++;
    nvb__cond_signal_all(cv);
    while (!*go)
        nvb__cond_wait(cv, mu, 0);
    return *go;
}

/* A blocking reap() returns after this long at most (or io_timeout when
 * shorter) so that a job notices its watchdog and stop requests. */
#define WAIT_SLICE_NS 100000000ull

/* On the job's thread: everything the loop needs (job_setup.c). 0, or
 * negative errno with the reason in j->why. */
int   nvb__job_setup(struct job *j);
/* What the job set up, released; buffers the device may still write into
 * after the watchdog gave up on them stay allocated. */
void  nvb__job_release(struct job *j);
/* r->jobs for the plan: targets dealt, budgets and rates split, CPUs
 * assigned. 0 or -ENOMEM (the error is set in res). */
int   nvb__jobs_new(struct run *r, struct nvb_result *res);
/* The ramp's end: the job's counts, histograms and live counters zeroed. */
void  nvb__job_reset_stats(struct job *j);
/* Groups of a job's lat-histogram arena with nt targets (job_setup.c). */
uint64_t nvb__job_lat_groups(const struct plan *p, unsigned nt);
/* Frees what nvb__jobs_new() made; jobs from `started` on never ran their
 * thread, so their resources are released here. */
void  nvb__jobs_free(struct run *r, unsigned started);
/* A job's thread: setup, wait for the start, the loop, wait for release. */
void *nvb__job_main(void *arg);

/* The loop's pacer (job_pace.c): a rate's schedule and think time.
 * nvb__pace_spin: how long before an intended start the job stops
 * waiting and spins. nvb__pace_woke: a timed wait meant to end at `at`
 * ended at now (the running mean of how late). nvb__pace_lag: the lag of
 * one I/O of the submit call at ts. nvb__pace_stamp: a batch's intended
 * starts taken off the schedule (and with lag, their lag). nvb__pace_wait:
 * the completions to wait for with a rate (*wake_at, *spinning: see
 * there). nvb__pace_think: the job thinks; returns the time slept. */
uint64_t nvb__pace_spin(const struct job *j);
void     nvb__pace_woke(struct job *j, uint64_t at, uint64_t now);
void     nvb__pace_lag(struct job *j, const struct nvb__io *io, uint64_t ts);
void     nvb__pace_stamp(struct job *j, unsigned n, uint64_t ts, int lag);
unsigned nvb__pace_wait(struct job *j, unsigned minw, uint64_t now, int full, unsigned n, uint64_t spin,
                        uint64_t *wake_at, int *spinning);
uint64_t nvb__pace_think(struct job *j, int open, uint64_t think_ns, uint64_t end_ns);
/* Flow control (flow.c). nvb__flow_join: r's jobs join r->flow (set to
 * the run's own flow unless the groups of a step gave one), before they
 * start. nvb__flow_room: how many of room I/Os the job may issue now
 * (counted as issued). nvb__flow_held: a job the flow holds back with
 * nothing in flight waits (sleeps flow_sleep, or yields). nvb__flow_leave:
 * a job that ends takes its I/Os and weight out of the flow. */
void     nvb__flow_join(struct run *r);
unsigned nvb__flow_room(struct job *j, unsigned room);
void     nvb__flow_held(struct job *j);
void     nvb__flow_leave(struct job *j);
/* I/O priorities (ioprio.c). nvb__prio_plan: cmdprio_pct on an engine
 * without per-I/O priorities refused (-ENOTSUP, err). nvb__prio_job: on
 * the job's thread before its engine's setup: the thread's priority set
 * (ioprio_class, ioprio) and what the engine gives each I/O, in *out; 0,
 * or negative errno with j->why. */
int nvb__prio_plan(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen);
int nvb__prio_job(struct job *j, struct nvb__prio *out);
/* The loop's watchdog (job_watch.c). nvb__watch_stalled: nothing
 * completed for io_timeout: the job stops and abandons what it has in
 * flight. nvb__watch_scan: one I/O older than io_timeout stops the run;
 * returns 1 when only such I/Os are left (the job abandons them). */
void nvb__watch_stalled(struct job *j, uint64_t now, uint64_t wd_ref, unsigned inflight, uint64_t io_timeout);
int  nvb__watch_scan(struct job *j, uint64_t now, unsigned inflight, unsigned nfree, uint64_t io_timeout);
/* job_watch.c too: a failed I/O counted (errno en), the run stopped at it
 * unless it continues; the end of the job's measured window. */
void nvb__job_failed(struct job *j, struct nvb__tstat *ts, const struct nvb__io *io, int d, int en);
void nvb__job_end(struct job *j, int open, uint64_t now, uint64_t last_done, uint64_t budget);
/* verify_readback (job_readback.c): once the job's loop has ended with
 * nothing in flight, every block its map says it wrote is read and checked,
 * in offset order, qd at a time; unwritten blocks are never read. Off the
 * measured window. nvb__job_readback_done (job.c): one of its reads
 * completed, checked (or its error counted) as the loop's reads are. */
void nvb__job_readback(struct job *j);
/* verify_backlog: the blocks of j->blog read back and checked, the backlog
 * emptied. Nothing of the job's may be in flight. */
void nvb__job_backlog(struct job *j);
void nvb__job_readback_done(struct job *j, struct nvb__io *io);

/* ---- the targets in the result, scratch files (layout.c) ---- */

/* Fills res->tg and creates, holds and lays out the scratch files. 0 or
 * negative errno (the error is set in res). */
int  nvb__layout_targets(struct run *r, struct nvb_result *res, char *err, size_t errlen);
/* Removes the scratch files the run created, and a created target it did
 * not finish laying out; res (optional) is told what became of the latter. */
void nvb__layout_remove(struct plan *p, struct nvb_result *res);

/* ---- the targets as the run begins (examine.c) ---- */

/* What written blocks carry (r->data, r->scramble), from the workload.
 * 0 or -ENOMEM (the error is set in res). */
int  nvb__run_data(struct run *r, struct nvb_result *res);
/* After the layout: each target's cached pages dropped (invalidate=1),
 * what stayed in the page cache measured (direct=0), and how much of a
 * file is allocated; the warnings these call for go into res. */
void nvb__targets_examine(struct run *r, struct nvb_result *res);

/* ---- device utilisation (diskutil.c) ---- */

/* Each target's block device and its io_ticks, then the time (*t0); a
 * target without a figure gets its reason (res->tg[].util). */
void nvb__diskutil_begin(struct run *r, struct nvb_result *res, uint64_t *t0);
/* The utilisation of each device measured since nvb__diskutil_begin(). */
void nvb__diskutil_end(struct nvb_result *res, uint64_t t0);

/* ---- the measured window (sampler.c) ---- */

enum { NVB__EDGE_START, NVB__EDGE_END };
/* The process's CPU at an edge of the measured window, once: the first
 * caller reads it (getrusage, one system call), the others return. The
 * start: the sampler just before it releases the jobs, or with a ramp the
 * first job past its end; the end: the first job that sees a time-bounded
 * window end, else the last job to leave its loop (its last counted
 * completion); the sampler takes an edge nobody took. */
void nvb__cpu_edge(struct run *r, int edge);

/* The result's series as the sampler grows it (series.c): ts[0, ncomp)
 * are kept, merged stride intervals a point once there were more than
 * timeseries_max; ts[ncomp, nts) are the newest points as measured, the
 * first (seq0) numbered seq0 in the order they were pushed. Points before
 * seq_del were final and given to the callback; those before seq_cand
 * become final once the jobs' completions pass ios_cand (an I/O counted
 * after them ends the window after them, so no late fold reaches them). */
struct nvb__series {
    unsigned ncomp, stride, limit, hold;
    uint64_t seq0, seq_del, seq_cand, ios_cand;
    uint64_t failed;             /* callback calls that returned nonzero */
    int first_rc;                /* ... the first one's answer */
    uint64_t folded_given;       /* points given, then folded at the end */
};

struct nvb__sampler {
    struct nvb__sys_sample sys0, sys1, sys_iv;
    struct nvb__thread_cpu *th0, *th1;
    int nth0, nth1;
    int have_sys;
    int ramp_pending;
    int ended;                  /* the end's system and thread samples are taken */
    struct live prev;
    uint64_t prev_ns, next_tick, last_tick;
    uint64_t poll_ns, next_poll;
    double *ss_buf;              /* a window of rounds (ss=...), NULL when not judged */
    /* per-interval latency histograms (ihist.h): each job's lat buckets at
     * the last sample (job by job, target by target, direction by direction), and
     * the sum of the differences by direction; NULL: none are kept */
    uint64_t *hprev, *hacc;
    int hists_lost;              /* an interval's histogram could not be kept (out of memory) */
    struct nvb__series ser;      /* points final, given to the callback, merged (series.c) */
};

void nvb__sampler_init(struct nvb__sampler *s);
/* Releases the jobs, samples the time series, progress and CPU until they
 * have all finished their loops, then lets them go (r->release). */
void nvb__sampler_run(struct nvb__sampler *s, struct run *r, struct nvb_result *res);
void nvb__sampler_free(struct nvb__sampler *s);

/* series.c: the sampler's series. Begin: the limit (timeseries_max) and
 * the newest points kept as measured for steady state (hold). Pushed: a
 * point was pushed (or not) after the jobs' completions reached ios_now.
 * End: every point final, given and kept; its warnings. */
void nvb__series_begin(struct nvb__series *ser, unsigned limit, unsigned hold);
void nvb__series_pushed(struct nvb__series *ser, const struct run *r, struct nvb_result *res, uint64_t ios_now);
void nvb__series_end(struct nvb__series *ser, const struct run *r, struct nvb_result *res);
/* a += b (counts, sums, histograms, CPU weighted by time); intervals too
 * when count. Frees b's histograms. */
void nvb__ts_add(struct nvb__tsample *a, struct nvb__tsample *b, int count);

/* ---- exitall (exitall.c) ---- */

/* The sampler, r->mu held: once a job of r has ended, r's exitall fires
 * (r->exit_fired) and stops r's other jobs. */
void nvb__exitall_fire(struct run *r);
/* r stops because of exitall (by: the group whose end stopped it, "" its
 * own job), unless it is stopping already. */
void nvb__exitall_stop(struct run *r, const char *by);
/* Does the end of a workload with from's exitall stop a group of to's
 * (in one step)? */
int  nvb__exitall_reaches(const struct nvb_workload *from, const struct nvb_workload *to);
/* After the jobs: the warning of a run whose jobs exitall stopped. */
void nvb__exitall_note(const struct run *r, struct nvb_result *res);

/* ---- summing up (aggregate.c) ---- */

/* After the jobs were joined: per job -> per target -> totals, the window's
 * ends, the warnings and the run's error. Returns the run's status given
 * rc so far. */
int nvb__run_aggregate(struct run *r, struct nvb_result *res, int rc);

/* ---- preconditioning and steady state (precond.c, steady.c) ---- */

#define NVB__SS_DEFAULT_ROUNDS 5    /* ss.window=0 */
#define NVB__SS_MIN_ROUNDS 3
#define NVB__SS_MAX_ROUNDS 100000
#define NVB__PRECOND_BS (128u << 10)

/* The plan's checks of the ss keys: 0 or negative errno (message in err). */
int  nvb__ss_plan(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen);
/* res->ss as the workload asks for it (metric, rounds, window), before the run. */
void nvb__ss_begin(struct nvb_result *res, const struct nvb_workload *w);
/* Judges the latest window of rounds of res's time series (buf: room for
 * res->ss.rounds values); 1 when steady state was reached by this call. */
int  nvb__ss_update(struct nvb_result *res, const struct nvb_workload *w, double *buf);
/* The rounds in w's steady-state window (steady.c). */
unsigned nvb__ss_rounds(const struct nvb_workload *w);
/* The plan's checks of precondition=N and its block size (p->pre_bs). */
int  nvb__precond_plan(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen);
/* sprandom=1 on the measured workload: its checks, and p->ios_total the
 * plan's writes. 0 or negative errno (message in err). */
int  nvb__sprandom_plan(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen);
/* The precondition phase: its own jobs over the held targets, before the
 * measured run; what it wrote goes to res->pre, never to the figures.
 * 0 or negative errno (the error is set in res). */
int  nvb__precond_run(struct run *r, struct nvb_result *res, char *err, size_t errlen);

/* ---- runner.c ---- */

/* One phase of a run with its own jobs: set up, (start barrier when
 * *barrier_pending), sampled, joined and summed into res. Returns the
 * phase's status. */
int  nvb__run_phase(struct run *r, struct nvb_result *res, int *barrier_pending, char *err, size_t errlen);

/* The result's fixed part, from the workload and the plan. 0 or -ENOMEM. */
int  nvb__run_result_begin(struct nvb_result *res, const struct nvb_workload *w, const struct plan *p);
/* A result that says why planning refused w (*out NULL when out is);
 * returns rc. */
int  nvb__run_plan_error(struct nvb_result **out, const struct nvb_workload *w, int rc, const char *msg);
/* Before the jobs: the hold on the targets, scratch files laid out, the
 * precondition phase, the targets examined. 0 or negative errno (the error
 * is set in res). */
int  nvb__run_prepare(struct run *r, struct nvb_result *res, char *err, size_t errlen);
/* Every path out of a run that has a result: the barrier (once, when
 * *barrier_pending), the log, and everything the steps made. Returns the
 * run's status. */
int  nvb__run_finish(struct run *r, struct nvb_result *res, int *barrier_pending, int rc);
/* Diagnostics go to the caller's log callback, never to a stream. */
void nvb__run_log(const struct nvb_run_opts *o, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
