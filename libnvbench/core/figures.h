/*
 * The result's figures, described once (figures.c): for each object of the
 * JSON result that the table covers, its keys in the order they are
 * written, each with its type, where the result keeps it, how it merges,
 * when it is present, whether older results may lack it, its schema and its
 * meaning. The writer (result.c) and the reader (result_load.c) walk the
 * same rows; docs/result.schema.json and the tables of docs/json-schema.md
 * are generated from them (tools/gen_figures.py, checked by
 * tests/scripts/test_figures_current.sh).
 *
 * A row of kind NVB__FT_PART is written and read by code of its own (a
 * histogram, an object of its own); the table still says where it stands,
 * its schema and its meaning.
 */
#ifndef NVB_CORE_FIGURES_H
#define NVB_CORE_FIGURES_H

#include <stddef.h>
#include <stdint.h>

/* The objects the table covers; each row names its own. */
enum nvb__fig_sec {
    NVB__FS_DIR,       /* read, write, trim: top level and per_target[] (struct nvb__dstat) */
    NVB__FS_TARGET,    /* per_target[] (struct nvb__tstat) */
    NVB__FS_ERRORS,    /* errors (struct nvb_result) */
    NVB__FS_VERIFY,    /* verify (struct nvb_result) */
    NVB__FS_VMISMATCH, /* verify.first_mismatches[] (struct nvb__vmismatch) */
    NVB__FS_PRECOND,   /* precondition (struct nvb__precond_res) */
    NVB__FS_THREAD,    /* cpu.threads[] (struct nvb__thread_row) */
    NVB__FS_SUBMIT,    /* submissions (struct nvb_result) */
    NVB__FS_RATE,      /* rate (struct nvb_result) */
    NVB__FS_HOST,      /* hosts[] (struct nvb__hostrow) */
    NVB__FS_FAULT,     /* fault (struct nvb_result) */
    NVB__FS_FAULTDIR,  /* fault.read, .write, .trim: the result's fault arrays by direction,
                        * the base moved by 8 bytes a direction */
    NVB__FS_HOSTDIR,   /* hosts[].read, .write, .trim: struct nvb__hostrow's arrays by
                        * direction, the row's base moved by 8 bytes a direction */
    NVB__FS_TOTAL,     /* total, hosts[].total: read + write (+ trim), added up by the writer
                        * (struct nvb__total); every row derived, so the reader reads none */
    NVB__FS_RUN,       /* the top level's scalars from qd_effective to ramp_s (struct nvb_result) */
    NVB__FS_END,       /* the top level's last keys, warnings to hist_rel_error (struct nvb_result) */
    NVB__FS_LAT,       /* a direction's lat_ns, slat_ns, clat_ns (struct nvb__latfig, filled from
                        * the histogram by nvb__figs_lat); its p* rows are also the keys of
                        * lat_pct_supported */
    NVB__FS_HIST,      /* a direction's lat_hist, slat_hist, clat_hist (struct nvb__hist): its
                        * exact wide sums and sparse buckets are parts */
    NVB__FS_CPU,       /* cpu (struct nvb_result; derived figures in struct nvb__cpu_derived) */
    NVB__FS_HOSTCPU,   /* hosts[].cpu (struct nvb__hostrow; derived: struct nvb__cpu_derived) */
    NVB__FS_SS,        /* steady_state (struct nvb__ss_res) */
    NVB__FS_DEVICE,    /* per_target[].device (struct nvb__tdev) */
    NVB__FS_PCACHE,    /* per_target[].page_cache (struct nvb__tcontent) */
    NVB__FS_TS,        /* timeseries[] (struct nvb__tsample) */
    NVB__FS_TSDIR,     /* timeseries[].read, .write, .trim: struct nvb__tsample's arrays by
                        * direction, the point's base moved by 8 bytes a direction */
    NVB__FS_HEAD,      /* the top level's first keys, schema to workload (struct nvb_result) */
    NVB__FS_ENERGY,    /* energy (struct nvb__energy): its rows after reason only when measured */
    NVB__FS_DEVLOG,    /* per_target[].device_log (struct nvb__devlog; derived figures in struct
                        * nvb__devlog_derived): its rows after reason only when the log was read */
    NVB__FS_HEALTH,    /* device_log.before, .after (the log's uint64_t array, devlog.h's list of
                        * fields): off2 and size say where the log page keeps the field */
    NVB__FS_HEALTHD,   /* device_log.delta (struct nvb__devlog_derived's int64_t array): the same fields */
    NVB__FS_DEVPOWER,  /* device_log.power (struct nvb__devlog): its rows after reason only when read */
    NVB__FS_DEVMEDIA,  /* device_log.media (struct nvb__devlog): its rows after reason only when read */
    NVB__FS_COUNT
};

enum nvb__fig_type {
    NVB__FT_U64,  /* uint64_t: an exact count */
    NVB__FT_U32,  /* uint32_t (or unsigned) */
    NVB__FT_LONG, /* long, not negative, below 2^32 - 1 (a thread id) */
    NVB__FT_DBL,  /* a double the result stores, not negative: written to read back exactly */
    NVB__FT_BOOL, /* int, true/false */
    NVB__FT_STR,  /* char[size] */
    NVB__FT_STRP, /* char *, owned by the result */
    NVB__FT_RATE, /* derived: the uint64_t at off / the caller's window (0 without one) */
    NVB__FT_GIB,  /* derived: the same / 2^30 */
    NVB__FT_MEAN, /* derived: the uint64_t at off / the uint64_t at off2, null when that is 0 */
    NVB__FT_DIRSUM, /* derived: the uint64_t array by direction at off, added over the directions */
    NVB__FT_SUM,  /* derived: a uint64_t the writer added up (struct nvb__total), written as it is;
                   * not read (a loaded result adds it up again) */
    NVB__FT_NUM,  /* derived: a double the writer computed into the object's struct (a mean, a
                   * percentile: struct nvb__latfig), written as it is; not read */
    NVB__FT_DERIV, /* derived: a double of struct nvb__cpu_derived at off, which the writer
                    * derives beside the object's struct (nvb__cpu_derive); not read */
    NVB__FT_I64,  /* derived: an int64_t of the writer's struct at off (a difference, which may
                   * be negative), written as it is; not read */
    NVB__FT_PART  /* written and read by code of its own */
};

/* How a merge of results (merge.c) makes the figure; documentary: the
 * merge is merge.c's, and the docs say this. */
enum nvb__fig_merge {
    NVB__FM_SUM,   /* added */
    NVB__FM_MAX,   /* the largest */
    NVB__FM_RECOMP,/* recomputed from the merged figures */
    NVB__FM_HIST,  /* a histogram: added bucket by bucket */
    NVB__FM_NONE,  /* none: a merged result has the object null */
    NVB__FM_EACH,  /* each part's kept (rows, targets) */
    NVB__FM_OR,    /* true when any part's is */
    NVB__FM_FIRST, /* the first part's */
    NVB__FM_AGREE, /* the parts' when they agree, else "mixed" */
    NVB__FM_ABSENT /* none: a merged result lacks the object */
};

/* flags */
#define NVB__FF_TRIM 1u /* present only in results that trim (nvb_result.trim) */
#define NVB__FF_OLD  2u /* results written before it lack it: optional on load (0 then) */
#define NVB__FF_OPT  4u /* not required by the schema (the writer may leave it out) */
#define NVB__FF_EXT  8u /* present only when the result has the submission figures added
                         * with it (nvb__submits.ext; results before them lack it) */
#define NVB__FF_OPEN 16u /* null unless the rate is open-loop (and read only then) */
#define NVB__FF_CPU  32u /* a double null unless the machine's CPU shares were measured
                          * (nvb_result.cpu_valid); read as a number or null (NaN) */
#define NVB__FF_TICK 64u /* a double null unless the tick length is known (cpu_tick_s > 0);
                          * read as a number or null (NaN) */
#define NVB__FF_NEG  128u /* a double null when negative (unknown); null read as -1 */
#define NVB__FF_IF   256u /* null unless the int at off2 of the object's struct is set (a double
                           * is then NaN to a lookup); read as a number or null (NaN, or 0) */
#define NVB__FF_ZERO 512u /* a count (U64, U32) null when 0, a double null unless above 0 (unknown);
                          * null read as 0 */
#define NVB__FF_NZ   1024u /* a count written only when not 0: absent is 0, as in a result from
                            * before it, which so reads and writes back as it was (with
                            * NVB__FF_OLD | NVB__FF_OPT) */
#define NVB__FF_AV   2048u /* present only when the object is available (the caller's when has
                            * NVB__FF_AV); an unavailable one is its other rows alone
                            * ({available: false, reason}); total's: where the latencies are */
#define NVB__FF_G6   4096u /* a double written to 6 significant digits (%.6g), as results always had
                            * it; null when NaN (NVB__FT_DERIV) */

struct nvb__fig {
    uint8_t     sec, type, merge;
    uint16_t    flags;
    const char *key;
    size_t      off, size;   /* where the object's struct keeps it, and its size (NVB__FT_STR) */
    size_t      off2;        /* NVB__FT_MEAN: where the count it is over is kept; NVB__FF_IF: the int
                              * that says the figure is known; NVB__FS_HEALTH(D): the field's byte
                              * offset in the log page (and size its width) */
    const char *schema;      /* "count", "nonneg", "bool", "string", "#def" ($ref), "?X" (X or null), or JSON */
    const char *unit;        /* "" for none */
    const char *doc;         /* its meaning (markdown); NULL: shares the previous row's line in the docs */
};

/* What the writer adds up over the directions for NVB__FS_TOTAL: the
 * counts, and the mean latency of every I/O of them from the histograms'
 * exact sums (NaN without latencies; none in a host row: NVB__FF_AV). */
struct nvb__total {
    uint64_t ios, bytes;
    double   lat_mean_ns;
};

/* What the writer derives from a histogram for NVB__FS_LAT: all 0 without
 * one (or without samples). p[] by the order of the section's p* rows, each
 * the percentile its key names ("p99.9": 99.9). */
#define NVB__LAT_NPCT 16
struct nvb__latfig {
    uint64_t min, max;
    double   mean, stddev;
    double   p[NVB__LAT_NPCT];
};
struct nvb__hist;
void nvb__figs_lat(const struct nvb__hist *h, struct nvb__latfig *out);
/* The percentile a p* row of NVB__FS_LAT names (its key past the 'p'); -1 for another row. */
double nvb__figs_pct(const struct nvb__fig *f);

extern const struct nvb__fig nvb__figs[];
extern const size_t nvb__nfigs;
extern const char *const nvb__fig_sec_names[NVB__FS_COUNT];
extern const char *const nvb__fig_type_names[];
extern const char *const nvb__fig_merge_names[];

/* The conditions (NVB__FF_TRIM, _EXT, _OPEN) that hold for a result. */
struct nvb_result;
unsigned nvb__figs_when(const struct nvb_result *r);
/* An NVB__FT_DIRSUM row's value: its array at base added over the directions
 * (trim's too when NVB__FF_TRIM is in when). */
uint64_t nvb__figs_dirsum(const void *base, const struct nvb__fig *f, unsigned when);

/* The table as JSON (for the generator): 0 or -ENOMEM; *out to free(). */
int nvb__figs_json(char **out);

#endif
