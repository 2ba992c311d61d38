/*
 * Results: their JSON form. One walk over the result (result_emit) both
 * writes the JSON and answers nvb_result_get() path queries, so the two can
 * never disagree. The object itself is result_obj.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "util/json.h"
#include "core/ihist.h"

/* ------------------------------------------------------------ JSON walk */

static void j_comma(struct nvb__json *j)
{
    if (j->depth > 0) {
        if (!j->first[j->depth] && j->b)
            nvb__buf_putn(j->b, ",", 1);
        j->first[j->depth] = 0;
    }
}

static void j_path_push(struct nvb__json *j, const char *key, int idx)
{
    size_t n = strlen(j->path);
    j->plen[j->depth] = n;
    char comp[64];
    if (key)
        snprintf(comp, sizeof comp, "%s", key);
    else
        snprintf(comp, sizeof comp, "%d", idx);
    snprintf(j->path + n, sizeof j->path - n, "%s%s", n ? "." : "", comp);
}

static void j_path_pop(struct nvb__json *j) { j->path[j->plen[j->depth]] = 0; }

/* key NULL inside arrays */
static void j_key(struct nvb__json *j, const char *key)
{
    j_comma(j);
    if (key && j->b) {
        nvb__json_write_str(j->b, key);
        nvb__buf_putn(j->b, ":", 1);
    }
}

struct jctx {
    struct nvb__json *j;
    int idx[32];
};

static void jo_open(struct jctx *c, const char *key, char ch)
{
    struct nvb__json *j = c->j;
    j_key(j, key);
    if (j->depth > 0)
        j_path_push(j, key, key ? 0 : c->idx[j->depth]++);
    if (j->b)
        nvb__buf_putn(j->b, &ch, 1);
    j->depth++;
    j->first[j->depth] = 1;
    c->idx[j->depth] = 0;
}

static void jo_close(struct jctx *c, char ch)
{
    struct nvb__json *j = c->j;
    if (j->b)
        nvb__buf_putn(j->b, &ch, 1);
    j->depth--;
    if (j->depth > 0)
        j_path_pop(j);
}

static void jo_num(struct jctx *c, const char *key, double v)
{
    struct nvb__json *j = c->j;
    j_key(j, key);
    if (j->want) {
        size_t n = strlen(j->path);
        j_path_push(j, key, key ? 0 : c->idx[j->depth]);
        if (!strcmp(j->path, j->want)) {
            j->got = v;
            j->found = 1;
        }
        j->path[n] = 0;
    }
    if (!key)
        c->idx[j->depth]++;
    if (!j->b)
        return;
    if (!isfinite(v))
        nvb__buf_puts(j->b, "null");
    else if (v == floor(v) && fabs(v) < 9e15)
        nvb__buf_printf(j->b, "%.0f", v);
    else
        nvb__buf_printf(j->b, "%.10g", v);
}

/* A figure the result stores (not one derived from others), in the
 * shortest form that reads back as the same double: a result loaded from
 * its JSON (nvb_result_from_json) then derives every rate from exactly the
 * same inputs, so its JSON is the same text. */
static void jo_raw_num(struct jctx *c, const char *key, double v)
{
    if (c->j->want || !c->j->b || !isfinite(v) || (v == floor(v) && fabs(v) < 9e15)) {
        jo_num(c, key, v);
        return;
    }
    j_key(c->j, key);
    if (!key)
        c->idx[c->j->depth]++;
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    nvb__buf_puts(c->j->b, buf);
}

static void jo_u64(struct jctx *c, const char *key, uint64_t v)
{
    struct nvb__json *j = c->j;
    if (j->want || !j->b) {
        jo_num(c, key, (double)v);
        return;
    }
    j_key(j, key);
    if (!key)
        c->idx[j->depth]++;
    nvb__buf_printf(j->b, "%" PRIu64, v);
}

static void jo_raw(struct jctx *c, const char *key, const char *raw);

/* An exact integer of n words (util.h): its digits, as a JSON number, or as
 * a string (as_str) for readers that would round a long number; a lookup
 * sees it as a double. */
static void jo_wide(struct jctx *c, const char *key, const uint64_t *w, unsigned n, int as_str)
{
    struct nvb__json *j = c->j;
    if (j->want || !j->b) {
        double v = 0;
        for (unsigned i = n; i-- > 0;)
            v = v * 18446744073709551616.0 + (double)w[i];
        jo_num(c, key, v);
        return;
    }
    char buf[96];
    nvb__wide_to_dec(w, n, buf, sizeof buf);
    j_key(j, key);
    if (!key)
        c->idx[j->depth]++;
    if (as_str)
        nvb__json_write_str(j->b, buf);
    else
        nvb__buf_puts(j->b, buf);
}

/* true/false; a lookup sees 1/0. */
static void jo_bool(struct jctx *c, const char *key, int v)
{
    if (c->j->want || !c->j->b)
        jo_num(c, key, v ? 1 : 0);
    else
        jo_raw(c, key, v ? "true" : "false");
}

static void jo_str(struct jctx *c, const char *key, const char *s)
{
    struct nvb__json *j = c->j;
    j_key(j, key);
    if (!key)
        c->idx[j->depth]++;
    if (j->b)
        nvb__json_write_str(j->b, s ? s : "");
}

static void jo_raw(struct jctx *c, const char *key, const char *raw)
{
    struct nvb__json *j = c->j;
    j_key(j, key);
    if (!key)
        c->idx[j->depth]++;
    if (j->b)
        nvb__buf_puts(j->b, raw);
}

static const char *const pct_keys[] = {"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9", "p99.99", "p99.999"};
static const double pct_vals[] = {1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999};

/* One latency's figures (lat_ns, slat_ns, clat_ns). */
static void emit_lat(struct jctx *c, const char *key, const struct nvb__hist *h)
{
    int have = h && h->count;
    jo_open(c, key, '{');
    jo_u64(c, "min", have ? h->min : 0); /* exact, as the loader reads them */
    jo_num(c, "mean", have ? nvb__hist_mean(h) : 0);
    jo_u64(c, "max", have ? h->max : 0);
    jo_num(c, "stddev", have ? nvb__hist_stddev(h) : 0);
    for (size_t i = 0; i < sizeof pct_keys / sizeof pct_keys[0]; i++)
        jo_num(c, pct_keys[i], have ? nvb__hist_pct(h, pct_vals[i]) : 0);
    jo_close(c, '}');
}

/* Its whole histogram. Sparse buckets: [index, count] pairs; merging
 * results from JSON (hosts, repeats) stays exact. */
static void emit_hist(struct jctx *c, const char *key, const struct nvb__hist *h)
{
    int have = h && h->count;
    jo_open(c, key, '{');
    jo_u64(c, "sub_bits", NVB__HIST_SUB_BITS);
    jo_u64(c, "max_bits", NVB__HIST_MAX_BITS);
    jo_num(c, "rel_error", NVB__HIST_REL_ERROR);
    jo_u64(c, "count", have ? h->count : 0);
    /* Exact integers, so that merges of results read back stay exact: sum
     * a number (below 2^64 but in runs of extreme length), the sum of
     * squares a string of digits (most readers would round a number that
     * long); a rounded one, read from an older result, stays the number it
     * was. */
    const uint64_t sw[2] = {have ? (uint64_t)h->sum : 0, have ? (uint64_t)(h->sum >> 64) : 0};
    jo_wide(c, "sum", sw, 2, 0);
    if (have && h->sumsq_rounded) {
        jo_raw_num(c, "sumsq", h->sumsq_dbl);
    } else {
        const uint64_t qw[3] = {have ? (uint64_t)h->sumsq : 0, have ? (uint64_t)(h->sumsq >> 64) : 0,
                                have ? h->sumsq_hi : 0};
        jo_wide(c, "sumsq", qw, 3, 1);
    }
    jo_open(c, "buckets", '[');
    if (have && c->j->b) {
        for (unsigned i = 0; i < NVB__HIST_BUCKETS; i++)
            if (h->buckets[i]) {
                j_comma(c->j);
                nvb__buf_printf(c->j->b, "[%u,%" PRIu64 "]", i, h->buckets[i]);
            }
    }
    jo_close(c, ']');
    jo_close(c, '}');
}

static void emit_dstat(struct jctx *c, const char *key, const struct nvb__dstat *d, double dur, int unknown)
{
    jo_open(c, key, '{');
    jo_u64(c, "ios", d->ios);
    jo_u64(c, "bytes", d->bytes);
    jo_num(c, "iops", dur > 0 ? (double)d->ios / dur : 0);
    jo_num(c, "bw_bytes_s", dur > 0 ? (double)d->bytes / dur : 0);
    jo_num(c, "bw_gib_s", dur > 0 ? (double)d->bytes / dur / 1073741824.0 : 0);
    if (d->bsc) { /* bssplit: I/Os by size in bytes; absent without a split */
        jo_open(c, "bs_counts", '{');
        for (unsigned i = 0; i < d->bsc->n; i++) {
            char k[24];
            snprintf(k, sizeof k, "%" PRIu64, d->bsc->size[i]);
            jo_u64(c, k, d->bsc->count[i]);
        }
        jo_close(c, '}');
    } /* absent without a split: results of fixed bs stay as they were */
    /* lat, slat, clat: figures, then histograms; null when not measured
     * (slat of an engine that completes I/O inside submit) */
    static const char *const keys[2][3] = {{"lat_ns", "slat_ns", "clat_ns"}, {"lat_hist", "slat_hist", "clat_hist"}};
    const struct nvb__hist *const h[3] = {d->hist, d->slat, d->clat};
    const int none[3] = {0, (unknown & NVB__NO_SLAT) != 0, (unknown & NVB__NO_CLAT) != 0};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 3; i++) {
            if (none[i])
                jo_raw(c, keys[k][i], "null");
            else if (k == 0)
                emit_lat(c, keys[k][i], h[i]);
            else
                emit_hist(c, keys[k][i], h[i]);
        }
        if (k == 0) {
            /* whether each percentile of lat_ns rests on enough samples (hist.h) */
            jo_open(c, "lat_pct_supported", '{');
            for (size_t i = 0; i < sizeof pct_keys / sizeof pct_keys[0]; i++)
                jo_bool(c, pct_keys[i], d->hist && nvb__hist_pct_supported(d->hist->count, pct_vals[i]));
            jo_close(c, '}');
        }
    }
    jo_close(c, '}');
}

/* What rate_iops did (null without one): its mode and arrivals, and how
 * well an open-loop schedule was kept. */
/* read, write, and trim when the run trims (r->trim): d[] by enum nvb_dir. */
static void emit_dirs(struct jctx *c, const struct nvb_result *r, const struct nvb__dstat *d)
{
    for (int k = 0; k < nvb__result_ndir(r); k++)
        emit_dstat(c, nvb__dir_names[k], &d[k], r->duration_s, r->lat_unknown);
}

/* A mean (of a figure over submissions.ios, or the depth over the waits):
 * null when there is nothing to divide by (every I/O failed by fault.rate), not 0. */
static void sub_mean(struct jctx *c, const char *key, uint64_t sum, uint64_t ios)
{
    ios ? jo_num(c, key, (double)sum / (double)ios) : jo_raw(c, key, "null");
}

static void emit_rate(struct jctx *c, const struct nvb_result *r)
{
    static const char *const modes[] = {"open", "closed"}, *const procs[] = {"uniform", "poisson"};
    if (!r->rate_set) {
        jo_raw(c, "rate", "null");
        return;
    }
    int open = r->rate_mode == NVB__RATE_OPEN;
    jo_open(c, "rate", '{');
    jo_str(c, "mode", modes[r->rate_mode == NVB__RATE_CLOSED]);
    jo_str(c, "process", procs[r->rate_process == NVB__RATE_POISSON]);
    jo_u64(c, "target_iops", r->rate_iops);
    const struct nvb__submits *s = &r->sub;
    if (open) {
        jo_u64(c, "lagged_ios", s->lagged);
        jo_u64(c, "unissued_ios", s->unissued);
        jo_u64(c, "lag_sum_ns", s->lag_sum);
        sub_mean(c, "lag_mean_ns", s->lag_sum, s->ios);
        jo_u64(c, "lag_max_ns", s->lag_max);
        if (s->ext) {
            jo_u64(c, "late_sum_ns", s->late_sum);
            sub_mean(c, "late_mean_ns", s->late_sum, s->ios);
            jo_u64(c, "late_max_ns", s->late_max);
            jo_u64(c, "queue_full_sum_ns", s->qfull_sum);
            sub_mean(c, "queue_full_mean_ns", s->qfull_sum, s->ios);
            jo_u64(c, "queue_full_max_ns", s->qfull_max);
            jo_u64(c, "spin_ns", s->spin_ns);
        }
    } else {
        static const char *const keys[] = {"lagged_ios", "unissued_ios", "lag_sum_ns", "lag_mean_ns", "lag_max_ns",
                                           "late_sum_ns", "late_mean_ns", "late_max_ns", "queue_full_sum_ns",
                                           "queue_full_mean_ns", "queue_full_max_ns", "spin_ns"};
        for (size_t i = 0; i < (s->ext ? 12u : 5u); i++)
            jo_raw(c, keys[i], "null");
    }
    if (s->ext) { /* the arrivals as submitted: gaps between consecutive I/Os' submit calls */
        jo_u64(c, "gaps", s->gaps);
        jo_u64(c, "gap_sum_ns", s->gap_sum);
        jo_raw_num(c, "gap_sumsq_ns2", s->gap_sq);
        const double n = s->gaps ? (double)s->gaps : 1;
        const double m = (double)s->gap_sum / n, v = s->gap_sq / n - m * m;
        if (s->gaps >= 2 && m > 0)
            jo_num(c, "gap_cv", sqrt(v > 0 ? v : 0) / m);
        else
            jo_raw(c, "gap_cv", "null");
    }
    jo_close(c, '}');
}

/* The submit calls, and what one I/O's slat covers. */
static void emit_submissions(struct jctx *c, const struct nvb_result *r)
{
    static const char *const scopes[] = {"submit_call", "queue_only", "none", "mixed"};
    const struct nvb__submits *s = &r->sub;
    jo_open(c, "submissions", '{');
    jo_u64(c, "calls", s->calls);
    jo_u64(c, "ios", s->ios);
    if (s->ext) {
        jo_u64(c, "batch_max", s->batch_max);
        jo_str(c, "slat_scope", scopes[s->slat_scope & 3]);
        jo_u64(c, "waits", s->waits);
        jo_u64(c, "depth_sum", s->depth_sum);
        sub_mean(c, "depth_mean", s->depth_sum, s->waits);
    }
    jo_close(c, '}');
}

/* What a target held as the run began (examine.c): null where nobody
 * looked; absent from a result loaded from before these fields, so that it
 * reads back as the same text. */
static void emit_content(struct jctx *c, const struct nvb__tcontent *k)
{
    if (!k->present)
        return;
    if (!k->examined) {
        jo_raw(c, "page_cache", "null");
    } else {
        jo_open(c, "page_cache", '{');
        jo_raw(c, "invalidated", k->invalidated ? "true" : "false");
        if (k->cached_known) {
            jo_raw_num(c, "cached_pct", k->cached_pct);
            jo_u64(c, "examined_bytes", k->cached_examined);
        } else {
            jo_raw(c, "cached_pct", "null");
            jo_raw(c, "examined_bytes", "null");
        }
        jo_close(c, '}');
    }
    if (k->allocated_known)
        jo_raw_num(c, "allocated_pct", k->allocated_pct);
    else
        jo_raw(c, "allocated_pct", "null");
    if (!k->wc_present)
        return;
    if (!k->wc_known) {
        jo_raw(c, "write_cache", "null");
        return;
    }
    const char *const v[] = {k->wc_fs, k->wc_fs_mode, k->wc_disk, k->wc_disk_mode};
    const char *const key[] = {"fs", "fs_mode", "disk", "disk_mode"};
    jo_open(c, "write_cache", '{');
    for (int i = 0; i < 4; i++)
        if (v[i][0])
            jo_str(c, key[i], v[i]);
        else
            jo_raw(c, key[i], "null");
    jo_close(c, '}');
}

/* The per-host rows of a merged result; [] for a run on one host. */
static void emit_hosts(struct jctx *c, const struct nvb_result *r)
{
    const char *const *dn = nvb__dir_names;
    const int nd = nvb__result_ndir(r);
    uint64_t w0 = nvb__result_window_start(r);
    jo_open(c, "hosts", '[');
    for (unsigned i = 0; i < r->nhosts; i++) {
        const struct nvb__hostrow *h = &r->hosts[i];
        double dur = h->duration_s;
        jo_open(c, NULL, '{');
        jo_str(c, "host", h->host);
        jo_u64(c, "rank", i);
        jo_u64(c, "start_unix_ns", h->start_unix_ns);
        jo_raw_num(c, "ramp_s", h->ramp_s);
        jo_raw_num(c, "duration_s", dur);
        jo_u64(c, "first_done_unix_ns", h->first_done_unix_ns);
        jo_u64(c, "last_done_unix_ns", h->last_done_unix_ns);
        /* Since the merged window started: stragglers show here. */
        jo_num(c, "first_done_s", h->first_done_unix_ns > w0 ? (double)(h->first_done_unix_ns - w0) / 1e9 : 0);
        jo_num(c, "last_done_s", h->last_done_unix_ns > w0 ? (double)(h->last_done_unix_ns - w0) / 1e9 : 0);
        uint64_t ios = 0, bytes = 0;
        for (int d = 0; d < nd; d++) {
            ios += h->ios[d];
            bytes += h->bytes[d];
            jo_open(c, dn[d], '{');
            jo_u64(c, "ios", h->ios[d]);
            jo_u64(c, "bytes", h->bytes[d]);
            jo_num(c, "iops", dur > 0 ? (double)h->ios[d] / dur : 0);
            jo_num(c, "bw_bytes_s", dur > 0 ? (double)h->bytes[d] / dur : 0);
            jo_raw_num(c, "lat_mean_ns", h->lat_mean_ns[d]);
            jo_raw_num(c, "lat_p99_ns", h->lat_p99_ns[d]);
            jo_raw_num(c, "lat_max_ns", h->lat_max_ns[d]);
            jo_close(c, '}');
        }
        jo_open(c, "total", '{');
        jo_u64(c, "ios", ios);
        jo_u64(c, "bytes", bytes);
        jo_num(c, "iops", dur > 0 ? (double)ios / dur : 0);
        jo_num(c, "bw_bytes_s", dur > 0 ? (double)bytes / dur : 0);
        jo_close(c, '}');
        jo_u64(c, "errors", h->errors);
        double cpu_s = h->process_user_s + h->process_sys_s;
        jo_open(c, "cpu", '{');
        if (h->system_pct >= 0)
            jo_raw_num(c, "system_pct", h->system_pct);
        else
            jo_raw(c, "system_pct", "null");
        jo_u64(c, "ncpus", h->ncpus);
        jo_raw_num(c, "process_user_s", h->process_user_s);
        jo_raw_num(c, "process_sys_s", h->process_sys_s);
        jo_raw_num(c, "window_s", h->window_s);
        /* over the window the CPU was read at (matching edges); null where there is none */
        double hwin = h->window_s > 0 ? h->window_s : dur;
        jo_num(c, "process_cores", hwin > 0 ? cpu_s / hwin : NAN);
        jo_num(c, "cpu_us_per_io", ios ? cpu_s * 1e6 / (double)ios : NAN);
        jo_close(c, '}');
        jo_raw(c, "cancelled", h->cancelled ? "true" : "false");
        if (h->error)
            jo_str(c, "error", h->error);
        else
            jo_raw(c, "error", "null");
        jo_close(c, '}');
    }
    jo_close(c, ']');
}

/* The precondition phase and the steady-state judgement; null when the
 * workload asked for neither (docs/steady-state.md). */
static void emit_phases(struct jctx *c, const struct nvb_result *r)
{
    const struct nvb__precond_res *pre = &r->pre;
    if (pre->passes) {
        jo_open(c, "precondition", '{');
        jo_u64(c, "passes", pre->passes);
        jo_u64(c, "bs", pre->bs);
        jo_u64(c, "qd", pre->qd);
        jo_u64(c, "bytes", pre->bytes);
        jo_raw_num(c, "duration_s", pre->duration_s);
        jo_num(c, "bw_bytes_s", pre->duration_s > 0 ? (double)pre->bytes / pre->duration_s : 0);
        jo_close(c, '}');
    } else {
        jo_raw(c, "precondition", "null");
    }
    const struct nvb__ss_res *ss = &r->ss;
    if (!ss->metric) {
        jo_raw(c, "steady_state", "null");
        return;
    }
    jo_open(c, "steady_state", '{');
    jo_str(c, "metric", nvb__ss_metric_name(ss->metric));
    jo_raw(c, "reached", ss->reached ? "true" : "false");
    jo_raw(c, "stopped", ss->stopped ? "true" : "false");
    jo_raw_num(c, "at_s", ss->reached ? ss->at_s : NAN);
    jo_u64(c, "rounds", ss->rounds);
    jo_raw_num(c, "window_s", ss->window_s);
    jo_raw_num(c, "mean", ss->judged ? ss->fig.mean : NAN);
    jo_raw_num(c, "max_excursion_pct", ss->judged ? ss->fig.max_excursion_pct : NAN);
    jo_raw_num(c, "slope_pct", ss->judged ? ss->fig.slope_pct : NAN);
    jo_close(c, '}');
}

/* The whole machine's CPU and the process's (docs/cpu-accounting.md). */
static void emit_cpu(struct jctx *c, const struct nvb_result *r)
{
    struct nvb__cpu_derived cd;
    nvb__cpu_derive(r, &cd);
    jo_open(c, "cpu", '{');
    /* null, with system_null_reason, where the machine's counters could
     * not say (too few ticks in the window, or not readable) */
    const double unknown = NAN;
    const int v = r->cpu_valid;
    jo_raw_num(c, "system_pct", v ? r->system_pct : unknown);
    jo_raw_num(c, "user_pct", v ? r->user_pct : unknown);
    jo_raw_num(c, "sys_pct", v ? r->sys_pct : unknown);
    jo_raw_num(c, "irq_pct", v ? r->irq_pct : unknown);
    jo_raw_num(c, "iowait_pct", v ? r->iowait_pct : unknown);
    jo_raw_num(c, "steal_pct", v ? r->steal_pct : unknown);
    jo_raw_num(c, "idle_pct", v ? r->idle_pct : unknown);
    if (v || !r->cpu_null_reason[0])
        jo_raw(c, "system_null_reason", "null");
    else
        jo_str(c, "system_null_reason", r->cpu_null_reason);
    jo_raw_num(c, "tick_s", r->cpu_tick_s > 0 ? r->cpu_tick_s : unknown);
    jo_raw_num(c, "ticks_per_cpu", r->cpu_tick_s > 0 ? r->cpu_ticks : unknown);
    jo_raw_num(c, "raised_pct", v ? r->cpu_raised_pct : unknown);
    jo_u64(c, "ncpus", (uint64_t)(r->ncpu > 0 ? r->ncpu : r->ncpus_online));
    jo_open(c, "per_cpu_pct", '[');
    for (int i = 0; v && i < r->ncpu; i++)
        jo_raw_num(c, NULL, r->cpu_pct[i]);
    jo_close(c, ']');
    jo_raw_num(c, "process_user_s", r->process_user_s);
    jo_raw_num(c, "process_sys_s", r->process_sys_s);
    jo_num(c, "process_cores", cd.process_cores);
    jo_raw_num(c, "window_s", r->cpu_window_s);
    jo_num(c, "cpu_us_per_io", cd.cpu_us_per_io);
    jo_num(c, "iops_per_core", cd.iops_per_core);
    jo_num(c, "nvbench_pct", cd.nvbench_pct);
    jo_num(c, "background_pct", cd.background_pct);
    jo_u64(c, "maxrss_kib", (uint64_t)(r->maxrss_kib > 0 ? r->maxrss_kib : 0));
    jo_u64(c, "voluntary_ctxsw", (uint64_t)(r->nvcsw > 0 ? r->nvcsw : 0));
    jo_u64(c, "involuntary_ctxsw", (uint64_t)(r->nivcsw > 0 ? r->nivcsw : 0));
    jo_open(c, "threads", '[');
    for (unsigned i = 0; i < r->nthreads; i++) {
        const struct nvb__thread_row *t = &r->threads[i];
        jo_open(c, NULL, '{');
        jo_u64(c, "tid", (uint64_t)t->tid);
        jo_str(c, "name", t->name);
        jo_raw_num(c, "user_s", t->user_s);
        jo_raw_num(c, "sys_s", t->sys_s);
        jo_raw_num(c, "cpu_s", t->run_s);
        jo_close(c, '}');
    }
    jo_close(c, ']');
    jo_close(c, '}');
}

/* The errors counted, by errno and direction. */
static void emit_errors(struct jctx *c, const struct nvb_result *r)
{
    jo_open(c, "errors", '{');
    jo_u64(c, "count", r->errors);
    jo_u64(c, "short", r->short_ios);
    jo_open(c, "by_errno", '{');
    for (int e = 1; e < NVB__ERRNO_SLOTS; e++)
        if (r->by_errno[e]) {
            char nb[16];
            jo_u64(c, nvb__errno_name(e, nb, sizeof nb), r->by_errno[e]);
        }
    jo_close(c, '}');
    jo_u64(c, "read", r->errors_dir[0]);
    jo_u64(c, "write", r->errors_dir[1]);
    if (r->trim)
        jo_u64(c, "trim", r->errors_dir[NVB_TRIM]);
    jo_close(c, '}');
}

/* What the fault wrapper did to the counted I/Os: injected errors are
 * part of errors.count, injected short transfers part of errors.short. */
static void emit_fault(struct jctx *c, const struct nvb_result *r)
{
    {
        char nb[16];
        const char *en = nvb__errno_name(r->fault_errno ? r->fault_errno : EIO, nb, sizeof nb);
        const int nd = nvb__result_ndir(r);
        uint64_t err = 0, shrt = 0, delayed = 0;
        for (int d = 0; d < nd; d++) {
            err += r->fault_err[d];
            shrt += r->fault_short[d];
            delayed += r->fault_delayed[d];
        }
        jo_open(c, "fault", '{');
        jo_raw(c, "enabled", r->fault_enabled ? "true" : "false");
        jo_u64(c, "injected", err);
        jo_u64(c, "short", shrt);
        jo_u64(c, "delayed", delayed);
        jo_open(c, "by_errno", '{');
        if (err)
            jo_u64(c, en, err);
        jo_close(c, '}');
        for (int d = 0; d < nd; d++) {
            jo_open(c, nvb__dir_names[d], '{');
            jo_u64(c, "injected", r->fault_err[d]);
            jo_u64(c, "short", r->fault_short[d]);
            jo_u64(c, "delayed", r->fault_delayed[d]);
            jo_open(c, "by_errno", '{');
            if (r->fault_err[d])
                jo_u64(c, en, r->fault_err[d]);
            jo_close(c, '}');
            jo_close(c, '}');
        }
        jo_close(c, '}');
    }
}

/* verify=1: blocks checked, mismatches by field, the first ones. */
static void emit_verify(struct jctx *c, const struct nvb_result *r)
{
    jo_open(c, "verify", '{');
    jo_raw(c, "enabled", r->verify_enabled ? "true" : "false");
    jo_u64(c, "checked", r->verify_checked);
    jo_u64(c, "mismatches", r->verify_mismatches);
    jo_u64(c, "unchecked", r->verify_unchecked);
    jo_open(c, "by_field", '{');
    for (int f = NVB__VF_OK + 1; f < NVB__VF_COUNT; f++)
        jo_u64(c, nvb__vfield_name(f), r->verify_by_field[f]);
    jo_close(c, '}');
    jo_open(c, "first_mismatches", '[');
    for (unsigned i = 0; i < r->nfirst_mismatch; i++) {
        const struct nvb__vmismatch *m = &r->first_mismatch[i];
        jo_open(c, NULL, '{');
        jo_u64(c, "offset", m->offset);
        jo_u64(c, "target", m->target);
        jo_str(c, "field", nvb__vfield_name(m->field));
        jo_u64(c, "expected", m->expected);
        jo_u64(c, "found", m->found);
        jo_u64(c, "seq", m->seq);
        jo_close(c, '}');
    }
    jo_close(c, ']');
    jo_close(c, '}');
}

/* The device's utilisation (diskutil.c): none of the keys in a result from
 * before them. */
static void emit_util(struct jctx *c, const struct nvb__tutil *u)
{
    if (u->state == 0)
        return;
    jo_str(c, "util_dev", u->dev);
    if (u->state == 1) {
        jo_num(c, "util_pct", u->pct);
        jo_raw(c, "util_why", "null");
    } else {
        jo_raw(c, "util_pct", "null");
        jo_str(c, "util_why", u->why);
    }
}

/* One entry per target: its figures, device facts and content. */
static void emit_targets(struct jctx *c, const struct nvb_result *r)
{
    jo_open(c, "per_target", '[');
    for (unsigned t = 0; t < r->ntargets; t++) {
        const struct nvb__tstat *ts = &r->tg[t];
        jo_open(c, NULL, '{');
        jo_str(c, "path", ts->path);
        jo_str(c, "host", ts->host ? ts->host : r->host);
        jo_str(c, "file", ts->file ? ts->file : ts->path);
        jo_str(c, "kind", ts->kind);
        jo_str(c, "dev", ts->dev);
        jo_u64(c, "region_offset", ts->region_off);
        jo_u64(c, "region_size", ts->region_len);
        jo_u64(c, "logical_block_size", ts->lbs);
        jo_u64(c, "errors", ts->errors);
        emit_dirs(c, r, ts->d);
        if (ts->devf.valid) { /* docs/devices.md has the full picture */
            const struct nvb__tdev *f = &ts->devf;
            jo_open(c, "device", '{');
            jo_str(c, "name", f->name);
            jo_str(c, "kind", f->kind);
            jo_str(c, "model", f->model);
            jo_str(c, "serial", f->serial);
            jo_u64(c, "logical_block_size", f->lbs);
            jo_u64(c, "physical_block_size", f->pbs);
            if (f->iu)
                jo_u64(c, "indirection_unit", f->iu);
            else
                jo_raw(c, "indirection_unit", "null");
            jo_str(c, "indirection_unit_source", f->iu_source);
            if (f->link_gbs > 0)
                jo_num(c, "link_ceiling_gbs", f->link_gbs);
            else
                jo_raw(c, "link_ceiling_gbs", "null");
            jo_close(c, '}');
        } else {
            jo_raw(c, "device", "null");
        }
        emit_content(c, &ts->content);
        emit_util(c, &ts->util);
        { char *s = nvb__devlog_json(r, ts); if (s) jo_raw(c, "device_log", s); free(s); } /* devlog.c */
        jo_close(c, '}');
    }
    jo_close(c, ']');
}

/* An interval's latency percentiles (null without samples or without its
 * histogram) and its histogram, sparse (ihist.h); none of them for a point
 * of a result written before them (a loaded one stays what it was). */
static void emit_ihist(struct jctx *c, const struct nvb__ihist *h, int unknown)
{
    static const char *const keys[] = {"p50", "p99", "p99.9"};
    if (unknown == 2)
        return;
    static const double vals[] = {50, 99, 99.9};
    for (int i = 0; i < 3; i++) {
        if (h && h->count)
            jo_num(c, keys[i], nvb__ihist_pct(h, vals[i]));
        else
            jo_raw(c, keys[i], "null");
    }
    if (unknown) {
        jo_raw(c, "lat_hist", "null");
        return;
    }
    jo_open(c, "lat_hist", '{');
    jo_u64(c, "count", h ? h->count : 0);
    jo_open(c, "buckets", '[');
    for (unsigned i = 0; h && i < h->n && c->j->b; i++) {
        j_comma(c->j);
        nvb__buf_printf(c->j->b, "[%u,%" PRIu64 "]", h->b[i].i, h->b[i].c);
    }
    jo_close(c, ']');
    jo_close(c, '}');
}

/* The time series: one sample per interval. */
static void emit_series(struct jctx *c, const struct nvb_result *r)
{
    jo_open(c, "timeseries", '[');
    for (unsigned i = 0; i < r->nts; i++) {
        const struct nvb__tsample *s = &r->ts[i];
        jo_open(c, NULL, '{');
        jo_raw_num(c, "t_s", s->t_s);
        jo_raw_num(c, "dt_s", s->dt_s);
        jo_u64(c, "t_unix_ns", s->t_unix_ns);
        for (int d = 0; d < nvb__result_ndir(r); d++) {
            jo_open(c, nvb__dir_names[d], '{');
            jo_u64(c, "ios", s->ios[d]);
            jo_u64(c, "bytes", s->bytes[d]);
            jo_num(c, "iops", s->dt_s > 0 ? (double)s->ios[d] / s->dt_s : 0);
            jo_num(c, "bw_bytes_s", s->dt_s > 0 ? (double)s->bytes[d] / s->dt_s : 0);
            jo_num(c, "lat_mean_ns", s->ios[d] ? nvb__u128d(s->lat_sum[d]) / (double)s->ios[d] : 0);
            const uint64_t lw[2] = {(uint64_t)s->lat_sum[d], (uint64_t)(s->lat_sum[d] >> 64)};
            jo_wide(c, "lat_sum_ns", lw, 2, 0);
            emit_ihist(c, s->lh[d], s->lh_unknown);
            jo_close(c, '}');
        }
        jo_u64(c, "errors", s->errors);
        if (s->system_pct >= 0)
            jo_raw_num(c, "system_pct", s->system_pct);
        else
            jo_raw(c, "system_pct", "null");
        jo_close(c, '}');
    }
    jo_close(c, ']');
}

static void emit_object(struct jctx *c, const struct nvb_result *r, int group);

/* Job groups (nvb_run_groups): each group's result, named, without the
 * process CPU (the total's alone: one process ran every group). */
static void emit_groups(struct jctx *c, const struct nvb_result *r)
{
    if (!r->ngroups)
        return;
    jo_open(c, "groups", '[');
    for (unsigned i = 0; i < r->ngroups; i++)
        emit_object(c, r->groups[i], 1);
    jo_close(c, ']');
}

int nvb__result_emit(const struct nvb_result *r, struct nvb__json *j)
{
    struct jctx c;
    memset(&c, 0, sizeof c);
    c.j = j;
    j->depth = 0;
    j->path[0] = 0;
    emit_object(&c, r, 0);
    if (j->b && j->b->oom)
        return -ENOMEM;
    return 0;
}

/* One result's object; a group's (group 1) starts with its name and has no
 * "cpu". */
static void emit_object(struct jctx *cx, const struct nvb_result *r, int group)
{
    struct jctx c = *cx;
    struct nvb__json *j = c.j;
    jo_open(&c, NULL, '{');
    if (group)
        jo_str(&c, "name", r->group);
    jo_str(&c, "schema", NVB_SCHEMA_VERSION);
    jo_str(&c, "version", nvb_version());
    jo_str(&c, "engine", r->engine);
    jo_open(&c, "engine_used", '{');
    for (unsigned i = 0; i < r->used.n; i++)
        jo_str(&c, r->used.kv[i].key, r->used.kv[i].val);
    jo_close(&c, '}');
    if (j->b && r->wl) {
        j_key(j, "workload");
        nvb__workload_json(r->wl, j->b);
    } else if (j->b && r->wl_json) {
        j_key(j, "workload");
        nvb__buf_puts(j->b, r->wl_json);
    } else if (j->b) {
        jo_raw(&c, "workload", "{}");
    }
    jo_u64(&c, "qd_effective", r->qd_effective);
    jo_u64(&c, "start_unix_ns", r->start_wall_ns);
    {
        char ts[64] = "";
        time_t s = (time_t)(r->start_wall_ns / 1000000000ull);
        struct tm tm;
        if (r->start_wall_ns && gmtime_r(&s, &tm))
            strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
        jo_str(&c, "start_time", ts);
    }
    jo_str(&c, "host", r->host);
    jo_u64(&c, "end_unix_ns", nvb__result_window_end(r));
    jo_u64(&c, "first_done_unix_ns", r->first_done_wall_ns);
    jo_raw_num(&c, "duration_s", r->duration_s);
    jo_raw_num(&c, "ramp_s", r->ramp_s);
    emit_dirs(&c, r, r->tot); /* trim only in results of workloads that trim (docs/json-schema.md) */
    uint64_t ios = r->tot[0].ios + r->tot[1].ios + r->tot[NVB_TRIM].ios;
    uint64_t bytes = r->tot[0].bytes + r->tot[1].bytes + r->tot[NVB_TRIM].bytes;
    jo_open(&c, "total", '{');
    jo_u64(&c, "ios", ios);
    jo_u64(&c, "bytes", bytes);
    jo_num(&c, "iops", r->duration_s > 0 ? (double)ios / r->duration_s : 0);
    jo_num(&c, "bw_bytes_s", r->duration_s > 0 ? (double)bytes / r->duration_s : 0);
    jo_close(&c, '}');
    emit_submissions(&c, r);
    emit_rate(&c, r);

    if (!group)
        emit_cpu(&c, r);
    { char *s = group ? NULL : nvb__energy_json(r); if (s) jo_raw(&c, "energy", s); free(s); } /* energy.c */

    emit_errors(&c, r);

    emit_fault(&c, r);

    emit_verify(&c, r);

    emit_targets(&c, r);

    emit_hosts(&c, r);

    emit_series(&c, r);
    emit_phases(&c, r);
    emit_groups(&c, r);

    jo_open(&c, "warnings", '[');
    for (unsigned i = 0; i < r->nwarn; i++)
        jo_str(&c, NULL, r->warn[i]);
    jo_close(&c, ']');
    jo_raw(&c, "cancelled", r->cancelled ? "true" : "false");
    if (r->err) {
        char nb[16];
        jo_open(&c, "error", '{');
        jo_num(&c, "errno", -r->err);
        jo_str(&c, "name", nvb__errno_name(r->err, nb, sizeof nb));
        jo_str(&c, "message", r->errmsg);
        jo_close(&c, '}');
    } else {
        jo_raw(&c, "error", "null");
    }
    jo_raw_num(&c, "clock_cost_ns", r->clock_cost_ns);
    jo_num(&c, "hist_rel_error", NVB__HIST_REL_ERROR);
    jo_close(&c, '}');
    cx->idx[j->depth] = c.idx[j->depth];
}
