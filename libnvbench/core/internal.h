/*
 * Core internals: the workload object, per-direction and per-target
 * statistics, the result, and the small utilities the core/ files share
 * (and, for the size formatter and errno names, devices/ and platform/);
 * what only the run's files share is in core/run.h. Engines do not include
 * it: they see only core/engine.h.
 */
#ifndef NVB_CORE_INTERNAL_H
#define NVB_CORE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "nvbench.h"

#include "util/util.h" /* first: ESTALE where the C runtime lacks it */
#include "core/engine.h"
#include "core/hist.h"
#include "core/jhist.h"
#include "util/json.h"
#include "util/util.h"
#include "core/verify.h"
#include "core/bsmix.h"
#include "core/dist.h"
/* Of the devices layer core sees only this (docs/architecture.md): a
 * target's facts, checks and hold. The namespace behind a passthrough
 * target is the nvme engine's business (its prepare_target()). */
#include "devices/facts.h"
#include "core/explain.h" /* the result's explanation: its writers and reader */
#include "core/devlog.h"

/* ---- value parsers (parse.c): 0 or -EINVAL/-ERANGE; durations -EDOM when finer than 1 ns ---- */
int nvb__parse_size(const char *s, uint64_t *out);        /* "4k", "1M", "2G", "512" (binary units) */
int nvb__parse_duration(const char *s, uint64_t *ns);     /* "500ms", "2s", "1m", "1h", "250us", "2" (s) */
int nvb__parse_u64(const char *s, uint64_t *out);
int nvb__parse_usec(const char *s, uint64_t *ns);      /* "100" (us, fio's thinktime), "2ms", "1s" */
int nvb__parse_i64(const char *s, int64_t *out);
int nvb__parse_ssize(const char *s, uint64_t *out);  /* "-8k", "112k": a size with a sign, two's complement */
int nvb__parse_bool(const char *s, int *out);             /* 0/1/true/false/yes/no/on/off */
/* Probability "0.001", "1/1000", "0.1%" in [0, 1]. */
int nvb__parse_prob(const char *s, double *out);
/* Percentage "20", "12.5", "20%" in [0, 100]. */
int nvb__parse_pct(const char *s, double *out);
#define NVB__ERRNO_SLOTS 256
/* errno by name ("EIO") or number (1..NVB__ERRNO_SLOTS-1). */
int nvb__parse_errno(const char *s, int *out);
/* A ':' list of them ("EIO:EILSEQ:28") into a bitmap of NVB__ERRNO_SLOTS bits
 * (job_watch.c); "" sets none. 0 or -EINVAL. */
int nvb__parse_errno_set(const char *s, uint64_t *bits);
/* CPU list "0-3,6,8-9" into a bitmap of nbits bits. */
int nvb__parse_cpulist(const char *s, uint64_t *bits, unsigned nbits);

/* ---- workload ---- */
enum nvb__rw {
    NVB__RW_READ = 0, NVB__RW_WRITE, NVB__RW_RANDREAD, NVB__RW_RANDWRITE, NVB__RW_RANDRW, NVB__RW_RW,
    NVB__RW_TRIM, NVB__RW_RANDTRIM,
};
/* Directions the counters keep (enum nvb_dir): read, write, trim. */
#define NVB__NDIR 3
enum nvb__tmode { NVB__TM_SHARED = 0, NVB__TM_SPLIT };
enum nvb__seq_start { NVB__SEQ_STAGGERED = 0, NVB__SEQ_SAME };
enum nvb__fill { NVB__FILL_RANDOM = 0, NVB__FILL_ZERO };
/* With rate_iops: open, each I/O has an intended start on a schedule and its
 * latency counts from there; closed, an I/O is stamped when a free slot lets
 * it go (the behaviour before open-loop rates). */
enum nvb__rate_mode { NVB__RATE_OPEN = 0, NVB__RATE_CLOSED };
enum nvb__rate_process { NVB__RATE_UNIFORM = 0, NVB__RATE_POISSON };
/* What steady state is judged on (key ss). */
enum nvb__ss_metric { NVB__SS_OFF = 0, NVB__SS_IOPS, NVB__SS_BW, NVB__SS_LAT };
enum nvb__exitall { NVB__EXIT_OFF = 0, NVB__EXIT_GROUP, NVB__EXIT_STEP };

#define NVB__MAX_CPUS 1024
#define NVB__MAX_EOPTS 32

struct nvb__eopt {          /* an engine-namespaced option the user set */
    char    key[64];        /* full key, "io_uring.sqpoll" */
    int     engine;         /* index in the registry */
    int     opt;            /* index in that engine's table */
    int64_t value;
    char    text[64];       /* as given */
};

struct nvb_workload {
    char      engine[32];
    int       rw;
    unsigned  rwmix;         /* read percent for mixed workloads */
    unsigned  rwmixtrim;     /* trim percent of a mixed workload's I/Os (rwmix splits the rest) */
    uint64_t  bs;
    unsigned  qd;
    unsigned  jobs;
    uint64_t  size;          /* region per target, 0 = to the end */
    uint64_t  offset;
    uint64_t  runtime_ns;
    int       runtime_set;   /* runtime given explicitly (else io_limit/ios alone bound the run) */
    uint64_t  ramp_ns;
    uint64_t  startdelay_ns; /* the jobs start this long after they are ready (fio's startdelay) */
    uint64_t  interval_ns;
    int       align_interval; /* time-series ticks on wall-clock multiples of interval */
    unsigned  ts_max;         /* timeseries_max: points the result keeps (neighbours merge beyond) */
    uint64_t  io_limit;      /* bytes over all jobs, 0 = none */
    uint64_t  ios;           /* I/Os over all jobs, 0 = none */
    int       direct;
    int       uncached, atomic, fua; /* RWF_DONTCACHE, RWF_ATOMIC, RWF_DSYNC per I/O (core/iomode.c) */
    /* End-to-end protection information and metadata on passthrough (core/pi.c) */
    int       pi_act;        /* PRACT: the controller inserts/strips the PI */
    char      pi_chk[64];    /* PRCHK: "GUARD,REFTAG,APPTAG" (fio's syntax), "" none */
    unsigned  apptag, apptag_mask;
    uint64_t  md_per_io_size; /* bytes of metadata buffer per I/O, 0 none */
    int       write_zeroes;  /* trims write zeroes instead of discarding (core/iomode.c) */
    int       invalidate;    /* drop the targets' cached pages before the run */
    int       fill;
    unsigned  data_compress; /* percent of each written 512-byte sector that is zeros */
    unsigned  data_dedupe;   /* percent of written blocks that duplicate one another */
    unsigned  data_dedupe_set; /* percent of the region's blocks in the duplicates' working set (data.c) */
    int       data_dedupe_global; /* one working set for all the jobs (and the group's workloads that set it) */
    uint64_t  seed;
    struct nvb__dist dist;   /* random_distribution (core/dist.h) */
    int       random_map;    /* random I/O touches every block once per pass */
    /* emulated zones (core/zbd.c) */
    int       zone_mode;     /* 0 none, 1 zbd */
    uint64_t  zone_size, zone_capacity;
    unsigned  max_open_zones;
    double    zone_reset_threshold, zone_reset_frequency;
    int       read_beyond_wp;
    uint64_t  rate_iops;
    uint64_t  rate_period_ns; /* rate_iops I/Os per this period, 0: one second */
    int       rate_mode;     /* enum nvb__rate_mode */
    int       rate_process;  /* enum nvb__rate_process */
    int       allow_destructive;
    int       target_mode;
    int       seq_start;     /* enum nvb__seq_start: where sequential jobs sharing a target start */
    int64_t   seq_stride;    /* bytes from one sequential I/O's end to the next one's start (core/offpat.h) */
    uint64_t  zone_range, zone_skip; /* with zone_size and zone_mode none: sequential I/O in zones (core/offpat.h) */
    uint64_t  blockalign;    /* random offsets of a bssplit: multiples of this (0: its smallest size) */
    int       verify;
    int       verify_readback; /* each job reads back and checks the blocks it wrote, once its writes end */
    uint64_t  verify_backlog;  /* every N completed writes, a job checks the blocks they wrote (job_readback.c) */
    char      verify_pattern[64]; /* "0x..." or "": the key's text */
    struct nvb__vpat vpat;   /* verify_pattern parsed (len 0: pseudo-random payload) */
    int       continue_on_error;
    char      continue_errnos[64]; /* the key's text, "" every errno; parsed: */
    uint64_t  cont_errs[NVB__ERRNO_SLOTS / 64]; /* the errnos a run with continue_on_error goes on after */
    int       lat_include_errors;  /* failed I/Os' latency goes into the histograms too */
    uint64_t  io_timeout_ns; /* watchdog: no completion this long with I/O in flight stops the run, 0 = never */
    /* fault injection (fault.* keys, core/fault.h) */
    double    fault_rate, fault_short, fault_delay_rate;
    int       fault_errno;
    uint64_t  fault_delay_ns;
    uint64_t  fault_seed;
    int       fault_seed_set;      /* else derived from seed */
    /* preconditioning and steady state (core/precond.c, core/steady.c) */
    unsigned  precondition;  /* sequential full-region write passes before the measured run */
    int       precond_mode;  /* enum nvb__precond_mode: how precondition writes */
    /* random writes with planned invalidation (core/sprandom.h) */
    int       sprandom;      /* the measured randwrite follows the plan */
    double    spr_op;        /* over-provisioning, 0 < op < 1 */
    unsigned  spr_regions;
    uint64_t  spr_cache;     /* bytes, 0: none */
    int       ss_metric;     /* enum nvb__ss_metric */
    uint64_t  ss_window_ns;  /* 0: NVB__SS_DEFAULT_ROUNDS intervals */
    double    ss_excursion;  /* percent of the window's mean */
    double    ss_slope;      /* percent of the window's mean */
    int       ss_stop;       /* end the run when steady */
    struct nvb__bssplit bssplit; /* block-size mix (core/bsmix.h); unset: bs */
    uint64_t  thinktime_ns;  /* pause after every thinktime_blocks I/Os, 0 = none */
    unsigned  thinktime_blocks;
    unsigned  ioprio_class, ioprio;  /* the job's I/O priority (core/ioprio.c), 0 0: the default */
    unsigned  cmdprio_pct, cmdprio_class, cmdprio; /* a share of the I/Os at another priority */
    char      cmdprio_bssplit[256]; /* the key's text, "" none; parsed: */
    struct nvb__prio_split psplit;  /* priorities by size (core/ioprio.c) */
    unsigned  flow, flow_id;  /* flow control between jobs (core/flow.c): weight (0: none), its flow */
    uint64_t  flow_sleep_ns;  /* a job held back by its flow sleeps this long (0: yields) */
    int       exitall;        /* enum nvb__exitall: what the end of its first job stops (core/exitall.c) */
    unsigned  exitall_group;  /* exitall=group: the step's groups with this number stop together */
    unsigned  submit_batch;  /* 0 = qd */
    unsigned  complete_batch;/* 1 */
    uint64_t  cpus[NVB__MAX_CPUS / 64];
    unsigned  ncpus_set;
    char      cpus_text[128];
    char      name[64];
    unsigned  neopts;
    struct nvb__eopt eopts[NVB__MAX_EOPTS];
    char    **targets;
    unsigned  ntargets, targets_cap;
    char      err[1024];
};

/* cmdprio_bssplit's value (fio's syntax, sizes in bytes or with nvbench's
 * units) into *out; 0, or -EINVAL with err naming the entry (core/ioprio.c). */
int nvb__prio_split_parse(const char *s, struct nvb__prio_split *out, char *err, size_t errlen);
/* The largest I/O of the workload: bs, or bssplit's largest size. */
static inline uint64_t nvb__bs_largest(const struct nvb_workload *w) { return nvb__bs_max(&w->bssplit, w->bs, 1, 1); }
const char *nvb__rw_name(int rw);
/* random_distribution and random_map against rw (dist.c): 0 or -EINVAL with err. */
int nvb__dist_check(const struct nvb_workload *w, char *err, size_t len);
static inline int nvb__rw_random(int rw) { return rw == NVB__RW_RANDREAD || rw == NVB__RW_RANDWRITE || rw == NVB__RW_RANDRW || rw == NVB__RW_RANDTRIM; }
static inline int nvb__rw_writes(int rw) { return rw == NVB__RW_WRITE || rw == NVB__RW_RANDWRITE || rw == NVB__RW_RANDRW || rw == NVB__RW_RW; }
static inline int nvb__rw_trims(int rw) { return rw == NVB__RW_TRIM || rw == NVB__RW_RANDTRIM; }
static inline int nvb__rw_reads(int rw) { return !(rw == NVB__RW_WRITE || rw == NVB__RW_RANDWRITE || nvb__rw_trims(rw)); }
/* "read", "write", "trim" by enum nvb_dir: the result's keys. */
extern const char *const nvb__dir_names[NVB__NDIR];
/* Set w->err; returns err. */
int nvb__werr(struct nvb_workload *w, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int nvb__workload_copy(const struct nvb_workload *src, struct nvb_workload **out);
/* Emits the "workload" object (result.c and merge.c use it; core/echo.c,
 * whose reader nvb_workload_from_json() takes it back key for key). */
void nvb__workload_json(const struct nvb_workload *w, struct nvb__buf *b);
/* How the echo writes a key's value: a JSON number, a JSON string, or a
 * duration as a number of exact decimal seconds. */
enum nvb__echo_form { NVB__ECHO_NUM, NVB__ECHO_STR, NVB__ECHO_SECS };
/* Key i of the key table (NULL past the last): *echo (may be NULL) its name
 * in the echo, dotted for a member of a nested object ("fault.delay_s");
 * *form (may be NULL) how its value is written. */
const char *nvb__workload_echo_key(size_t i, const char **echo, enum nvb__echo_form *form);
/* Key i's value in w as the echo writes it, unquoted, into buf: 1, or 0
 * for null (a key left to the library: bssplit, fault.seed), or -ENOSPC,
 * -ENOENT (no key i). */
int nvb__workload_echo_text(const struct nvb_workload *w, size_t i, char *buf, size_t len);

/* ---- per-direction statistics ---- */
#define NVB__LAT_KINDS 3   /* histograms per direction: lat, slat, clat */
#define NVB__NO_SLAT 1
#define NVB__NO_CLAT 2
struct nvb__dstat {
    uint64_t ios, bytes;
    struct nvb__hist *hist;  /* lat: submission (or, open-loop rate, intended start) to
                              * completion; NULL when the direction is unused */
    struct nvb__hist *slat;  /* inside the engine's submit call; NULL also when the
                              * engine completes I/O there (nvb_result.lat_unknown) */
    struct nvb__hist *clat;  /* end of the submit call to completion */
    /* a job's own (core/jhist.h), merged into hist, slat and clat at the
     * run's end; NULL in a result */
    struct nvb__jhist *jlat, *jslat, *jclat;
    struct nvb__bscount *bsc;/* I/Os by size (bssplit), NULL without a split */
};

/* What a target held as the run began (examine.c). */
struct nvb__tcontent {
    int      present;        /* the result has these fields: a run's always, a loaded one's when its JSON had them */
    int      examined;       /* 0: not looked at (null engine, passthrough) */
    int      invalidated;    /* its cached pages were written back and dropped (invalidate=1) */
    int      cached_known;   /* cached_pct measured (direct=0, and the kernel would tell) */
    double   cached_pct;     /* share of the region in the page cache */
    uint64_t cached_examined;/* bytes of the region cached_pct is measured over */
    int      allocated_known;/* allocated_pct measured (files) */
    double   allocated_pct;  /* share of the region that is allocated data, not holes */
    int      wc_present;     /* the result has write_cache (a run's, a loaded one's when its JSON had it) */
    int      wc_known;       /* 0: null (not a file, or nobody could tell) */
    char     wc_fs[32], wc_fs_mode[16], wc_disk[64], wc_disk_mode[16]; /* platform.h nvb__wcache; "" unknown */
};

struct nvb__tstat {          /* per target */
    char    *path;           /* as given */
    char    *file;           /* what was opened (scratch path for directories) */
    char     kind[8];
    char     dev[64];
    uint64_t region_off, region_len;
    uint32_t lbs;
    struct nvb__dstat d[NVB__NDIR];
    uint64_t errors;
    struct nvb__tdev devf;   /* device facts of a block-device target */
    struct nvb__tcontent content;
    char    *host;           /* merged results: the host that ran it (NULL: the result's own) */
    struct nvb__tutil {      /* the device's utilisation over the run (diskutil.c) */
        int      state;      /* 0: absent (a result from before it); 1: measured; 2: null, why says */
        double   pct;        /* io_ticks over the window, in % (clamped at 100) */
        uint64_t ticks0;     /* io_ticks at the start (ms), while running */
        char     dev[64];    /* the block device measured ("" when none) */
        char     why[160];   /* state 2: why there is no figure */
    } util;
    struct nvb__devlog dlog; /* the device's health log before and after (devlog.c) */
};

struct nvb__ihist;
struct nvb__tsample {        /* one time-series point (an interval) */
    double   t_s;            /* end of the interval, since the measured start */
    uint64_t t_unix_ns;      /* wall clock at the end of the interval: the tick it was taken
                              * for, or the end of the run for the last, partial one */
    double   dt_s;
    uint64_t ios[NVB__NDIR], bytes[NVB__NDIR];
    unsigned __int128 lat_sum[NVB__NDIR]; /* exact: across many jobs it can pass 2^64 */
    uint64_t errors;
    double   system_pct;     /* whole-system busy over the interval, <0 unknown */
    struct nvb__ihist *lh[NVB__NDIR];/* its lat histograms (ihist.h), owned; NULL: no sample */
    int      lh_unknown;     /* 0: known; 1: not measured (out of memory: null in the JSON);
                              * 2: a result written before them (absent in the JSON) */
    unsigned n;              /* intervals merged into it (timeseries_max, series.c); 0 or 1: one */
};
/* Frees a point's lat histograms (every direction) and clears them. */
void nvb__ihists_free(struct nvb__ihist *lh[NVB__NDIR]);

/* Submissions in the measured window and how well an open-loop rate's
 * schedule was kept: a job's, a result's; they add (nvb__meter_add). */
struct nvb__submits {
    uint64_t calls, ios;         /* calls of the engine's submit operation, the I/Os they carried */
    uint64_t lagged;             /* I/Os submitted an interval or more after their intended start */
    uint64_t unissued;           /* due in the window, never submitted */
    uint64_t lag_sum, lag_max;   /* ns from intended start to the submit call */
    /* the lag in two parts: the job thread was late (a slot was free) and
     * the I/O waited for a slot (the queue was full); they add up to lag */
    uint64_t late_sum, late_max, qfull_sum, qfull_max;
    uint64_t spin_ns;            /* spun (not slept) arriving on an intended start: CPU the rate costs */
    uint64_t gaps, gap_sum;      /* rate: gaps between consecutive I/Os' submit calls (0 inside one call) */
    double   gap_sq;             /* and their squares (ns^2) */
    uint64_t waits, depth_sum;   /* waits for completions while still submitting, I/Os in flight at each */
    uint64_t reaps;              /* calls of the engine's reap operation */
    uint64_t empty_reaps;        /* those that brought back no completion */
    /* not added by nvb__meter_add (set once per result) */
    uint32_t batch_max;          /* the most I/Os one submit call carries (submit_batch, at most qd) */
    int      slat_scope;         /* what a slat is (enum nvb__slat_scope) */
    int      ext;                /* 1: the fields above are known (0: read from a result written before them) */
};

/* What an I/O's slat times: the engine's submit call, which enters the
 * kernel (libaio io_submit, null); the queueing of the I/O alone, the
 * kernel entered later in the reap call (the ring engines); nothing (an
 * engine that completes I/O inside submit). Several: a merged result. */
enum nvb__slat_scope { NVB__SLAT_CALL = 0, NVB__SLAT_QUEUE, NVB__SLAT_NONE, NVB__SLAT_MIXED };

/*
 * The meter: the counters of a job's measured window, which a result (and
 * a merge of results) holds too. One list, one add (nvb__meter_add), one
 * reset (the struct zeroed): a counter added to the list is reset by the
 * job and summed by the aggregation and the merge without touching them.
 * The job and the result hold it as an anonymous union (NVB__METER), so
 * that each counter is also a field of its own (r->errors).
 */
#define NVB__METER_FIELDS \
    uint64_t errors, short_ios; \
    uint64_t by_errno[NVB__ERRNO_SLOTS]; \
    uint64_t errors_dir[NVB__NDIR]; /* errors by enum nvb_dir */ \
    /* fault injection: what the wrapper did to counted I/Os, by direction */ \
    uint64_t fault_err[NVB__NDIR], fault_short[NVB__NDIR], fault_delayed[NVB__NDIR]; \
    uint64_t verify_checked, verify_mismatches; \
    uint64_t verify_unchecked; /* reads of blocks this run had not written: not checked */ \
    uint64_t verify_by_field[NVB__VF_COUNT]; \
    uint64_t zone_resets; /* zone_mode=zbd: zones reset by this job (core/zbd.c) */ \
    struct nvb__submits sub;
struct nvb__meter {
    NVB__METER_FIELDS
};
#define NVB__METER union { struct nvb__meter meter; struct { NVB__METER_FIELDS }; }
/* d += s: sums add, maxima take the larger; sub's batch_max, slat_scope
 * and ext are not counters (the merge decides them). merge.c. */
void nvb__meter_add(struct nvb__meter *d, const struct nvb__meter *s);

enum nvb__precond_mode { NVB__PRECOND_SEQ = 0, NVB__PRECOND_RANDOM };

/* ---- preconditioning and steady state in a result (precond.c, steady.c) ---- */
struct nvb__precond_res {    /* the precondition phase: not part of the figures */
    unsigned passes;         /* 0: none was asked (null in the JSON) */
    uint64_t bs;             /* its writes' size */
    unsigned qd;
    uint64_t bytes;          /* written, all targets */
    double   duration_s;
    uint64_t regions;        /* precondition=random: its plan's regions, else 0 (absent) */
    uint64_t rewrites;       /* precondition=random: writes past one per block, all targets, else 0 */
};

/* One window of rounds judged by the SNIA PTS criteria (nvb__ss_judge). */
struct nvb__ss_fig {
    double mean;             /* of the rounds; NAN when a round has no value */
    double max_excursion_pct;/* (max - min of the rounds) / mean x 100; NAN unless mean > 0 */
    double slope_pct;        /* (max - min of the least-squares line over the rounds) / mean x 100; likewise */
    int    reached;          /* both within their limits */
};
/* x: n rounds, oldest first. Pure: no clock, no state. */
void nvb__ss_judge(const double *x, unsigned n, double excursion_pct, double slope_pct, struct nvb__ss_fig *out);

struct nvb__ss_res {
    int      metric;         /* NVB__SS_OFF: not asked (null in the JSON) */
    unsigned rounds;         /* rounds in a window */
    double   window_s;       /* rounds x interval */
    int      judged;         /* a whole window was judged: fig holds figures */
    int      reached;
    int      stopped;        /* the run ended there (ss.stop=1) */
    double   at_s;           /* end of the first steady window, since the measured start */
    struct nvb__ss_fig fig;  /* that window's figures; not reached: the last window's */
};
const char *nvb__ss_metric_name(int metric);

struct nvb__thread_row {
    long  tid;
    char  name[32];
    double user_s, sys_s, run_s;
};

struct nvb_result {
    struct nvb_workload *wl;     /* a copy of what ran */
    char     engine[32];
    struct nvb__used used;
    unsigned qd_effective;
    double   duration_s;
    double   ramp_s;
    uint64_t start_wall_ns;
    struct nvb__dstat tot[NVB__NDIR];
    int      trim;               /* the result has a trim direction: the workload trims, or a
                                  * loaded or merged result had one ("trim" in the JSON) */
    unsigned ntargets;
    struct nvb__tstat *tg;
    NVB__METER;                  /* the counters (errors, faults, verify, submissions) */
    /* fault injection */
    int      fault_enabled;
    int      fault_errno;
    /* latencies not measured, null in the JSON: NVB__NO_SLAT when the engine
     * completes each I/O inside its submit call (psync, wsync: no submission
     * latency of its own), and either for results loaded without them */
    int      lat_unknown;
    /* rate_iops: the mode it ran in (docs/json-schema.md, "rate") */
    int      rate_set;               /* 0: no rate (the "rate" object is null) */
    int      rate_mode, rate_process;
    uint64_t rate_iops;              /* the target (merged: summed over the parts) */
    /* CPU */
    int      cpu_valid;
    double   system_pct, user_pct, sys_pct, irq_pct, iowait_pct, steal_pct, idle_pct;
    int      ncpu;
    double  *cpu_pct;            /* per CPU busy % */
    int     *cpu_id;
    double   process_user_s, process_sys_s;
    double   cpu_window_s;           /* span between the two reads of the process CPU (sampler.c) */
    double   cpu_tick_s;             /* resolution of the whole-machine counters (1 / USER_HZ); 0 unknown */
    double   cpu_ticks;              /* ticks per CPU in the whole-machine figures' window; 0 unknown */
    double   cpu_raised_pct;         /* points system_pct was raised to the process's own CPU (cpu.c) */
    char     cpu_null_reason[224];   /* why the whole-machine figures are null; "" when measured */
    long     maxrss_kib, minflt, majflt, nvcsw, nivcsw;
    unsigned nthreads;
    struct nvb__thread_row *threads;
    int      ncpus_online;
    /* verify */
    int      verify_enabled;         /* verify=1 and the engine does I/O; its counters are the meter's */
    struct nvb__vmismatch first_mismatch[NVB__VERIFY_FIRST];
    unsigned nfirst_mismatch;
    /* series */
    unsigned nts, ts_cap;
    struct nvb__tsample *ts;
    struct nvb__precond_res pre;
    struct nvb__ss_res ss;
    /* notes */
    unsigned nwarn, warn_cap;
    char   **warn;
    int      cancelled;
    int      err;
    char     errmsg[1024];
    double   clock_cost_ns;
    char     clock_source[16];  /* what nvb__now_ns read ("tsc", "clock_monotonic", "qpc"); "" unknown */
    struct nvb__energy energy; /* RAPL over the run (energy.c) */
    /* hosts (merge.c, result_load.c) */
    char     host[256];              /* the machine that ran it; "" for a merged result */
    uint64_t end_wall_ns;            /* wall clock at the end of the measured window */
    uint64_t first_done_wall_ns;     /* ... when the first job finished */
    unsigned nhosts;                 /* merged results: one row per host run, merge order */
    struct nvb__hostrow *hosts;
    /* job groups (nvb_run_groups, groups.c): a group's name in its own
     * result; the total holds the groups' results */
    char     group[64];
    unsigned ngroups;
    struct nvb_result **groups;
    struct nvb__explain *ex;         /* cpu.per_io_us, cpu.per_cpu, environment (explain.h); NULL: none */
    char    *wl_json;                /* the workload object's compact JSON text when wl is NULL
                                      * (loaded, merged): kept as text, not as a tree, so a
                                      * loaded result holds no more than the bytes it read */
};

/* One host's run inside a merged result: its own figures, kept apart. */
struct nvb__hostrow {
    char     host[256];
    uint64_t start_unix_ns;          /* jobs released (before the ramp) */
    double   ramp_s, duration_s;
    uint64_t first_done_unix_ns, last_done_unix_ns;
    uint64_t ios[NVB__NDIR], bytes[NVB__NDIR], errors;
    double   lat_mean_ns[NVB__NDIR], lat_p99_ns[NVB__NDIR], lat_max_ns[NVB__NDIR];
    double   system_pct;             /* < 0: unknown */
    unsigned ncpus;
    double   process_user_s, process_sys_s, window_s;
    int      cancelled;
    char    *error;                  /* NULL when the run did not fail */
};

/* Directions the result reports: 3 with a trim direction, else 2. */
static inline int nvb__result_ndir(const struct nvb_result *r) { return r->trim ? NVB__NDIR : 2; }
struct nvb_result *nvb__result_new(void);
void nvb__result_warn(struct nvb_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One warning per workload string (target, name=, engine option) that has
 * bytes that are not UTF-8. */
void nvb__result_warn_utf8(struct nvb_result *r, const struct nvb_workload *w);
void nvb__result_seterr(struct nvb_result *r, int err, const char *msg);
int  nvb__result_ts_push(struct nvb_result *r, const struct nvb__tsample *s);
/* One point's compact JSON object, as timeseries[] holds it (result.c):
 * 0 or -ENOMEM. */
int  nvb__ts_point_json(const struct nvb_result *r, const struct nvb__tsample *s, struct nvb__buf *b);
void nvb__dstat_free(struct nvb__dstat *d);
/* dst += src: counts, and the histogram (allocated in dst when missing);
 * 0, -ENOMEM (the counts are added all the same) or -EOVERFLOW (ios, bytes
 * or the histogram's count would pass 2^64 - 1: nothing is added). merge.c. */
int  nvb__dstat_add(struct nvb__dstat *dst, const struct nvb__dstat *src);
/* The total of a run's job groups (nvb_run_groups): merged as one run that
 * did all their I/O, the process CPU taken once; (*out)->groups has room
 * for the n groups, left NULL for the caller. merge.c. */
int  nvb__merge_groups(struct nvb_result **out, const struct nvb_result *const *parts, size_t n);
/* Derived CPU figures (result.c's JSON and getters, the run, share them). */
/* Each NaN (null in the JSON) where there is no measurement. */
struct nvb__cpu_derived {
    double process_cores, cpu_us_per_io, iops_per_core, background_pct, nvbench_pct;
};
void nvb__cpu_derive(const struct nvb_result *r, struct nvb__cpu_derived *d);
/* Start of the measured window, wall clock (start + ramp). */
uint64_t nvb__result_window_start(const struct nvb_result *r);
/* End of the measured window, wall clock: end_wall_ns, or start + ramp +
 * duration for results that lack it. */
uint64_t nvb__result_window_end(const struct nvb_result *r);
/* Free what a host row holds. */
void nvb__hostrow_clear(struct nvb__hostrow *h);

/* JSON writer with optional numeric path capture (result.c). */
struct nvb__json {
    struct nvb__buf *b;     /* NULL: do not write, only look up */
    int   depth;
    int   first[32];
    char  path[256];
    size_t plen[32];
    const char *want;       /* dotted path to capture, or NULL */
    double got;
    int    found;
};
int nvb__result_emit(const struct nvb_result *r, struct nvb__json *j);

/* What a run takes in memory (core/budget.c): checked against the
 * machine's memory before the run. floor: what it takes at least; total:
 * at most (the time series' histograms counted whole). */
struct nvb__run_mem {
    uint64_t buffers;           /* bs x qd x jobs */
    uint64_t histograms;        /* how many */
    uint64_t hist_bytes;
    uint64_t sampler_bytes;     /* the sampler's copy of the lat histograms' counts */
    uint64_t table_bytes;       /* per job and target: figures, offset generator, bssplit offsets */
    uint64_t json_bytes;        /* the result's JSON: its merged histograms at their largest */
    uint64_t vmap_bytes;        /* verify=1 with writes: each job's map of the blocks it wrote */
    uint64_t series_points;     /* time-series points (runtime / interval); 0: not known */
    uint64_t series_min, series_max;
    uint64_t floor, total;
};
void nvb__run_mem_estimate(uint64_t bs, unsigned qd, unsigned jobs, unsigned nt, int ndirs, struct nvb__run_mem *m);
/* Adds the time series of a run spanning span_ns, one point per interval_ns. */
void nvb__run_mem_series(struct nvb__run_mem *m, uint64_t span_ns, uint64_t interval_ns, int ndirs, uint64_t cap);
/* a += b (job groups run at once), saturating. */
void nvb__run_mem_add(struct nvb__run_mem *a, const struct nvb__run_mem *b);
/* Above this, the histograms' memory is announced in a warning. */
#define NVB__HIST_WARN_BYTES (256ull << 20)

#endif
