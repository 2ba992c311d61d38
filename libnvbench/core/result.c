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
#include "core/result_write.h"
#include "util/json.h"
#include "core/ihist.h"
#include "core/figures.h"

/* The key writer explain.h's sections use (explain_*.c): key NULL inside arrays. */
void nvb__json_key(struct nvb__json *j, const char *key)
{
    j_key(j, key);
}

/* The code a row of the figures table (figures.h) leaves to code, NVB__FT_PART:
 * the part named key of the object at base; arg what the writer passed. */
typedef void part_fn(struct jctx *c, const char *key, const void *base, const void *arg);
static void emit_figs(struct jctx *c, int sec, const void *base, double per, unsigned when, part_fn *part,
                      const void *arg);

/* A histogram's parts (NVB__FS_HIST): the geometry, and exact integers,
 * so that merges of results read back stay exact: count and sum numbers
 * (sum below 2^64 but in runs of extreme length), the sum of squares a
 * string of digits (most readers would round a number that long; a
 * rounded one, read from an older result, stays the number it was), the
 * sparse buckets as [index, count] pairs. arg: the histogram, NULL for
 * none (all 0). */
static void hist_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__hist *h = arg;
    const int have = h && h->count;
    (void)base;
    if (!strcmp(key, "sub_bits") || !strcmp(key, "max_bits")) {
        jo_u64(c, key, key[0] == 's' ? NVB__HIST_SUB_BITS : NVB__HIST_MAX_BITS);
    } else if (!strcmp(key, "rel_error")) {
        jo_num(c, key, NVB__HIST_REL_ERROR);
    } else if (!strcmp(key, "count")) {
        jo_u64(c, key, have ? h->count : 0);
    } else if (!strcmp(key, "sum")) {
        const uint64_t sw[2] = {have ? (uint64_t)h->sum : 0, have ? (uint64_t)(h->sum >> 64) : 0};
        jo_wide(c, key, sw, 2, 0);
    } else if (!strcmp(key, "sumsq") && have && h->sumsq_rounded) {
        jo_raw_num(c, key, h->sumsq_dbl);
    } else if (!strcmp(key, "sumsq")) {
        const uint64_t qw[3] = {have ? (uint64_t)h->sumsq : 0, have ? (uint64_t)(h->sumsq >> 64) : 0,
                                have ? h->sumsq_hi : 0};
        jo_wide(c, key, qw, 3, 1);
    } else {
        jo_open(c, key, '[');
        for (unsigned i = 0; have && c->j->b && i < NVB__HIST_BUCKETS; i++)
            if (h->buckets[i]) {
                j_comma(c->j);
                nvb__buf_printf(c->j->b, "[%u,%" PRIu64 "]", i, h->buckets[i]);
            }
        jo_close(c, ']');
    }
}

/* One latency of a direction: its figures (lat_ns, slat_ns, clat_ns:
 * NVB__FS_LAT, from the histogram) or its whole histogram (a key ending in
 * _hist: NVB__FS_HIST). */
static void emit_lat(struct jctx *c, const char *key, const struct nvb__hist *h)
{
    jo_open(c, key, '{');
    if (strstr(key, "_hist")) {
        emit_figs(c, NVB__FS_HIST, NULL, 0, 0, hist_part, h);
    } else {
        struct nvb__latfig lf;
        nvb__figs_lat(h, &lf);
        emit_figs(c, NVB__FS_LAT, &lf, 0, 0, NULL, NULL);
    }
    jo_close(c, '}');
}

/* A mean (of a figure over submissions.ios, or the depth over the waits):
 * null when there is nothing to divide by (every I/O failed by fault.rate), not 0. */
static void sub_mean(struct jctx *c, const char *key, uint64_t sum, uint64_t ios)
{
    ios ? jo_num(c, key, (double)sum / (double)ios) : jo_raw(c, key, "null");
}

/* Whether a row's value is 0 (NVB__FF_NZ, NVB__FF_ZERO): a double's unless above 0. */
static int row_zero(const struct nvb__fig *f, const void *v)
{
    if (f->type == NVB__FT_U32)
        return !*(const uint32_t *)v;
    if (f->type == NVB__FT_DBL)
        return !(*(const double *)v > 0);
    return !*(const uint64_t *)v;
}

/* An object's rows of section sec (figures.c), in the table's order: base is
 * its struct, per the window its rates divide by, when the conditions that
 * hold (nvb__figs_when): a row of another condition is left out, or null
 * (NVB__FF_OPEN). */
static void emit_figs(struct jctx *c, int sec, const void *base, double per, unsigned when, part_fn *part,
                      const void *arg)
{
    for (size_t i = 0; i < nvb__nfigs; i++) {
        const struct nvb__fig *f = &nvb__figs[i];
        const void *v = (const char *)base + f->off;
        if (f->sec != sec || (f->flags & (NVB__FF_TRIM | NVB__FF_EXT | NVB__FF_AV) & ~when))
            continue;
        if (f->flags & NVB__FF_OPEN & ~when) {
            jo_raw(c, f->key, "null");
            continue;
        }
        if (f->flags & NVB__FF_NZ && row_zero(f, v))
            continue;
        if ((f->flags & NVB__FF_IF && !*(const int *)((const char *)base + f->off2) && f->type != NVB__FT_DBL) ||
            (f->flags & NVB__FF_ZERO && row_zero(f, v))) {
            jo_raw(c, f->key, "null");
            continue;
        }
        const int unknown = (f->flags & (NVB__FF_CPU | NVB__FF_TICK) & ~when) ||
                            (f->flags & NVB__FF_IF && !*(const int *)((const char *)base + f->off2));
        const double x = f->type == NVB__FT_DBL && !unknown ? *(const double *)v : NAN; /* null, NaN to a lookup */
        switch (f->type) {
        case NVB__FT_U64:
        case NVB__FT_SUM: jo_u64(c, f->key, *(const uint64_t *)v); break;
        case NVB__FT_NUM: jo_num(c, f->key, *(const double *)v); break;
        case NVB__FT_U32: jo_u64(c, f->key, *(const uint32_t *)v); break;
        case NVB__FT_LONG: jo_u64(c, f->key, *(const long *)v > 0 ? (uint64_t)*(const long *)v : 0); break;
        case NVB__FT_DBL:
            if (x < 0 && (f->flags & NVB__FF_NEG))
                jo_raw(c, f->key, "null");
            else
                f->flags & NVB__FF_G6 ? jo_g6(c, f->key, x) : jo_raw_num(c, f->key, x);
            break;
        case NVB__FT_DERIV: (f->flags & NVB__FF_G6 ? jo_g6 : jo_num)(c, f->key, *(const double *)((const char *)arg + f->off)); break;
        case NVB__FT_I64: jo_i64(c, f->key, *(const int64_t *)v); break;
        case NVB__FT_BOOL: jo_bool(c, f->key, *(const int *)v); break;
        case NVB__FT_STR: jo_str(c, f->key, v); break;
        case NVB__FT_STRP: jo_str(c, f->key, *(char *const *)v); break;
        case NVB__FT_RATE: jo_num(c, f->key, per > 0 ? (double)*(const uint64_t *)v / per : 0); break;
        case NVB__FT_GIB: jo_num(c, f->key, per > 0 ? (double)*(const uint64_t *)v / per / 1073741824.0 : 0); break;
        case NVB__FT_DIRSUM: jo_u64(c, f->key, nvb__figs_dirsum(base, f, when)); break;
        case NVB__FT_MEAN: sub_mean(c, f->key, *(const uint64_t *)v, *(const uint64_t *)((const char *)base + f->off2)); break;
        default: part(c, f->key, base, arg);
        }
    }
}

/* An array of n objects of section sec, size bytes apart from rows. */
static void emit_rows(struct jctx *c, const char *key, int sec, const void *rows, size_t size, unsigned n,
                      const struct nvb_result *r, part_fn *part)
{
    jo_open(c, key, '[');
    for (unsigned i = 0; i < n; i++) {
        jo_open(c, NULL, '{');
        emit_figs(c, sec, (const char *)rows + i * size, r->duration_s, nvb__figs_when(r), part, r);
        jo_close(c, '}');
    }
    jo_close(c, ']');
}

/* A direction's parts: bs_counts (absent without a split, so results of
 * fixed bs stay as they were); lat, slat, clat: figures and histograms,
 * null when not measured (slat of an engine that completes I/O inside
 * submit), and whether each percentile of lat_ns rests on enough samples
 * (hist.h). arg: the result's lat_unknown. */
static void dstat_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__dstat *d = base;
    const int unknown = *(const int *)arg;
    if (!strcmp(key, "bs_counts")) {
        if (!d->bsc)
            return;
        jo_open(c, "bs_counts", '{');
        for (unsigned i = 0; i < d->bsc->n; i++) {
            char k[24];
            snprintf(k, sizeof k, "%" PRIu64, d->bsc->size[i]);
            jo_u64(c, k, d->bsc->count[i]);
        }
        jo_close(c, '}');
    } else if (!strcmp(key, "lat_pct_supported")) {
        jo_open(c, key, '{'); /* lat_ns's percentiles (NVB__FS_LAT) */
        for (size_t i = 0; i < nvb__nfigs; i++)
            if (nvb__figs_pct(&nvb__figs[i]) >= 0)
                jo_bool(c, nvb__figs[i].key, d->hist && nvb__hist_pct_supported(d->hist->count, nvb__figs_pct(&nvb__figs[i])));
        jo_close(c, '}');
    } else {
        const int i = key[0] == 'l' ? 0 : key[0] == 's' ? 1 : 2; /* lat, slat, clat */
        const struct nvb__hist *const h[3] = {d->hist, d->slat, d->clat};
        if ((i == 1 && (unknown & NVB__NO_SLAT)) || (i == 2 && (unknown & NVB__NO_CLAT)))
            jo_raw(c, key, "null");
        else
            emit_lat(c, key, h[i]);
    }
}

/* total (of the result, or of a host row): ios and bytes added up over the
 * directions, its rates over dur (figures.c's NVB__FS_TOTAL rows); r, for a
 * result's total, gives the mean latency of all its I/Os: the histograms'
 * exact sums over their counts (a host row has none: NULL). */
static void emit_total(struct jctx *c, uint64_t ios, uint64_t bytes, double dur, const struct nvb_result *r)
{
    unsigned __int128 sum = 0;
    uint64_t n = 0;
    for (int d = 0; r && d < NVB__NDIR; d++)
        if (r->tot[d].hist) {
            sum += r->tot[d].hist->sum;
            n += r->tot[d].hist->count;
        }
    const struct nvb__total t = {ios, bytes, n ? nvb__u128d(sum) / (double)n : NAN};
    jo_open(c, "total", '{');
    emit_figs(c, NVB__FS_TOTAL, &t, dur, r ? NVB__FF_AV : 0, NULL, NULL);
    jo_close(c, '}');
}

static void emit_dstat(struct jctx *c, const char *key, const struct nvb__dstat *d, double dur, const int *unknown)
{
    jo_open(c, key, '{');
    emit_figs(c, NVB__FS_DIR, d, dur, 0, dstat_part, unknown);
    jo_close(c, '}');
}

/* What rate_iops did (null without one): its mode and arrivals, and how
 * well an open-loop schedule was kept. */
/* read, write, and trim when the run trims (r->trim): d[] by enum nvb_dir. */
static void emit_dirs(struct jctx *c, const struct nvb_result *r, const struct nvb__dstat *d)
{
    for (int k = 0; k < nvb__result_ndir(r); k++)
        emit_dstat(c, nvb__dir_names[k], &d[k], r->duration_s, &r->lat_unknown);
}


/* The parts of rate (null without one) and of submissions: the rate's mode
 * and arrivals, the gaps' coefficient of variation, what a slat covers. */
static void timing_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    static const char *const modes[] = {"open", "closed"}, *const procs[] = {"uniform", "poisson"};
    static const char *const scopes[] = {"submit_call", "queue_only", "none", "mixed"};
    const struct nvb_result *r = base;
    const struct nvb__submits *s = &r->sub;
    (void)arg;
    if (!strcmp(key, "mode")) {
        jo_str(c, key, modes[r->rate_mode == NVB__RATE_CLOSED]);
    } else if (!strcmp(key, "process")) {
        jo_str(c, key, procs[r->rate_process == NVB__RATE_POISSON]);
    } else if (!strcmp(key, "slat_scope")) {
        jo_str(c, key, scopes[s->slat_scope & 3]);
    } else { /* gap_cv */
        const double n = s->gaps ? (double)s->gaps : 1;
        const double m = (double)s->gap_sum / n, v = s->gap_sq / n - m * m;
        if (s->gaps >= 2 && m > 0)
            jo_num(c, key, sqrt(v > 0 ? v : 0) / m);
        else
            jo_raw(c, key, "null");
    }
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
        emit_figs(c, NVB__FS_PCACHE, k, 0, 0, NULL, NULL);
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

/* A host row's parts (hosts[] of a merged result): its rank, when its first
 * and last job finished since the merged window started (stragglers show
 * here), its directions and total over its own window, its machine's CPU
 * and its error. */
static void host_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__hostrow *h = base;
    const struct nvb_result *r = arg;
    const int nd = nvb__result_ndir(r);
    const double dur = h->duration_s;
    const uint64_t w0 = nvb__result_window_start(r);
    uint64_t ios = 0, bytes = 0;
    for (int d = 0; d < nd; d++) {
        ios += h->ios[d];
        bytes += h->bytes[d];
        if (!strcmp(key, nvb__dir_names[d])) {
            jo_open(c, key, '{');
            emit_figs(c, NVB__FS_HOSTDIR, (const char *)h + d * sizeof(uint64_t), dur, 0, NULL, NULL);
            jo_close(c, '}');
            return;
        }
    }
    if (!strcmp(key, "rank")) {
        jo_u64(c, key, (uint64_t)(h - r->hosts));
    } else if (!strcmp(key, "first_done_s") || !strcmp(key, "last_done_s")) {
        const uint64_t t = key[0] == 'f' ? h->first_done_unix_ns : h->last_done_unix_ns;
        jo_num(c, key, t > w0 ? (double)(t - w0) / 1e9 : 0);
    } else if (!strcmp(key, "total")) {
        emit_total(c, ios, bytes, dur, NULL);
    } else if (!strcmp(key, "cpu")) {
        /* over the window the CPU was read at (matching edges); null where there is none */
        const double cpu_s = h->process_user_s + h->process_sys_s, hwin = h->window_s > 0 ? h->window_s : dur;
        const struct nvb__cpu_derived cd = {.process_cores = hwin > 0 ? cpu_s / hwin : NAN,
                                            .cpu_us_per_io = ios ? cpu_s * 1e6 / (double)ios : NAN};
        jo_open(c, key, '{');
        emit_figs(c, NVB__FS_HOSTCPU, h, 0, 0, NULL, &cd);
        jo_close(c, '}');
    } else if (h->error) {
        jo_str(c, key, h->error);
    } else {
        jo_raw(c, key, "null");
    }
}

/* steady_state's part: the metric by name. */
static void ss_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    (void)arg;
    jo_str(c, key, nvb__ss_metric_name(((const struct nvb__ss_res *)base)->metric));
}

/* The precondition phase and the steady-state judgement; null when the
 * workload asked for neither (docs/steady-state.md). */
static void emit_phases(struct jctx *c, const struct nvb_result *r)
{
    const struct nvb__precond_res *pre = &r->pre;
    if (pre->passes) {
        jo_open(c, "precondition", '{');
        emit_figs(c, NVB__FS_PRECOND, pre, pre->duration_s, 0, NULL, NULL);
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
    emit_figs(c, NVB__FS_SS, ss, 0, 0, ss_part, NULL);
    jo_close(c, '}');
}

/* An {available, reason} object's first two keys: true and null, or false
 * and the reason (energy, device_log, device_log.power). */
static void avail_part(struct jctx *c, const char *key, int ok, const char *reason)
{
    if (!strcmp(key, "available"))
        jo_bool(c, key, ok);
    else
        ok ? jo_raw(c, key, "null") : jo_str(c, key, reason);
}

/* energy's parts: whether it was measured, why not, the joules in the
 * shortest of 15 to 17 digits that reads back (whole joules too, which
 * jo_raw_num would write as %.0f), and the joules per I/O and per second,
 * written to 6 digits; both null with a ramp (the counters include it) or
 * without I/O. All as energy.c wrote them before the table. arg: the result. */
static void energy_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__energy *e = base;
    const struct nvb_result *r = arg;
    const uint64_t ios = r->tot[NVB_READ].ios + r->tot[NVB_WRITE].ios + r->tot[NVB_TRIM].ios;
    if (!strcmp(key, "available") || !strcmp(key, "reason")) {
        avail_part(c, key, e->state == 1, e->reason);
    } else if (!strcmp(key, "joules")) { /* an integer too (jo_raw_num writes one as %.0f) */
        char buf[40];
        j_shortest(buf, sizeof buf, e->joules);
        c->j->want || !c->j->b ? jo_num(c, key, e->joules) : jo_raw(c, key, buf);
    } else if (r->ramp_s > 0 || ios == 0) {
        jo_raw(c, key, "null");
    } else {
        jo_g6(c, key, key[0] == 'w' ? (r->duration_s > 0 ? e->joules / r->duration_s : 0.0) : e->joules / (double)ios);
    }
}

/* cpu's parts: why the machine's shares are null (null when they are not,
 * or nobody said), the CPUs, each one's share, the threads. */
static void cpu_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb_result *r = base;
    (void)arg;
    if (!strcmp(key, "system_null_reason")) {
        if (r->cpu_valid || !r->cpu_null_reason[0])
            jo_raw(c, key, "null");
        else
            jo_str(c, key, r->cpu_null_reason);
    } else if (!strcmp(key, "ncpus")) {
        jo_u64(c, key, (uint64_t)(r->ncpu > 0 ? r->ncpu : r->ncpus_online));
    } else if (!strcmp(key, "per_cpu_pct")) {
        jo_open(c, key, '[');
        for (int i = 0; r->cpu_valid && i < r->ncpu; i++)
            jo_raw_num(c, NULL, r->cpu_pct[i]);
        jo_close(c, ']');
    } else {
        emit_rows(c, key, NVB__FS_THREAD, r->threads, sizeof *r->threads, r->nthreads, r, NULL);
    }
}

/* The whole machine's CPU and the process's (docs/cpu-accounting.md): the
 * table's rows (NVB__FS_CPU), then the explanation's. */
static void emit_cpu(struct jctx *c, const struct nvb_result *r)
{
    struct nvb__cpu_derived cd;
    nvb__cpu_derive(r, &cd);
    jo_open(c, "cpu", '{');
    emit_figs(c, NVB__FS_CPU, r, 0, nvb__figs_when(r), cpu_part, &cd);
    nvb__explain_emit_cpu(c->j, r); /* per_io_us, per_cpu: explain_cpu.c */
    jo_close(c, '}');
    nvb__explain_emit_top(c->j, r); /* environment: explain_env.c */
}

/* errors.by_errno: the errors counted, by errno. */
static void errors_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb_result *r = base;
    (void)arg;
    jo_open(c, key, '{');
    for (int e = 1; e < NVB__ERRNO_SLOTS; e++)
        if (r->by_errno[e]) {
            char nb[16];
            jo_u64(c, nvb__errno_name(e, nb, sizeof nb), r->by_errno[e]);
        }
    jo_close(c, '}');
}

/* What the fault wrapper did to the counted I/Os: injected errors are
 * part of errors.count, injected short transfers part of errors.short. */
/* fault's parts: its directions, and the injected errors by errno (all
 * under fault.errno's name), of all directions (dir -1) or of one. */
struct fault_arg {
    const struct nvb_result *r;
    int dir;
};

static void fault_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct fault_arg *a = arg;
    const struct nvb_result *r = a->r;
    int d;
    (void)base;
    for (d = 0; d < NVB__NDIR && strcmp(key, nvb__dir_names[d]); d++)
        ;
    if (d < NVB__NDIR) {
        const struct fault_arg da = {r, d};
        jo_open(c, key, '{');
        emit_figs(c, NVB__FS_FAULTDIR, (const char *)r + d * sizeof(uint64_t), 0, 0, fault_part, &da);
        jo_close(c, '}');
        return;
    }
    char nb[16];
    uint64_t err = 0;
    for (d = 0; d < nvb__result_ndir(r); d++)
        err += a->dir < 0 || a->dir == d ? r->fault_err[d] : 0;
    jo_open(c, key, '{');
    if (err)
        jo_u64(c, nvb__errno_name(r->fault_errno ? r->fault_errno : EIO, nb, sizeof nb), err);
    jo_close(c, '}');
}

/* verify=1: the mismatches by field, the first ones (their field by name). */
static void verify_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    if (!strcmp(key, "field")) {
        jo_str(c, key, nvb__vfield_name(((const struct nvb__vmismatch *)base)->field));
        return;
    }
    const struct nvb_result *r = base;
    if (!strcmp(key, "first_mismatches")) {
        emit_rows(c, key, NVB__FS_VMISMATCH, r->first_mismatch, sizeof r->first_mismatch[0], r->nfirst_mismatch,
                  arg, verify_part);
        return;
    }
    jo_open(c, key, '{');
    for (int f = NVB__VF_OK + 1; f < NVB__VF_COUNT; f++)
        jo_u64(c, nvb__vfield_name(f), r->verify_by_field[f]);
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

/* A target's device facts (docs/devices.md has the full picture): null
 * for other targets; the link's ceiling, a part, null when unknown. */
static void device_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__tdev *f = base;
    (void)arg;
    if (f->link_gbs > 0)
        jo_num(c, key, f->link_gbs);
    else
        jo_raw(c, key, "null");
}

static void emit_device(struct jctx *c, const struct nvb__tdev *f)
{
    if (f->valid) {
        jo_open(c, "device", '{');
        emit_figs(c, NVB__FS_DEVICE, f, 0, 0, device_part, NULL);
        jo_close(c, '}');
    } else {
        jo_raw(c, "device", "null");
    }
}

/* device_log.power's parts: whether it was read, the power measured over
 * the run (devlog_power.c) or why there is none. */
static void power_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__devlog *d = base;
    (void)arg;
    if (!strcmp(key, "measured_w"))
        jo_g6(c, key, d->pm_w > 0 ? d->pm_w : NAN);
    else if (!strcmp(key, "measured_reason"))
        d->pm_w > 0 ? jo_raw(c, key, "null") : jo_str(c, key, d->pm_reason[0] ? d->pm_reason : "not measured");
    else
        avail_part(c, key, d->pw == 1, d->pw_reason);
}

/* device_log.media's parts: whether it was read, its source, after - before. */
static void media_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__devlog *d = base;
    (void)arg;
    if (!strcmp(key, "source"))
        jo_str(c, key, nvb__media_source_name(d->ms_src));
    else if (!strcmp(key, "bytes_written"))
        jo_i64(c, key, (int64_t)(d->media_after - d->media_before));
    else
        avail_part(c, key, d->ms == 1, d->ms_reason);
}

/* device_log's media writes and the write amplification factor, when they
 * were asked (absent in results from before them). */
static void devlog_media(struct jctx *c, const char *key, const struct nvb__devlog *d,
                         const struct nvb__devlog_derived *dd)
{
    if (!d->ms)
        return;
    if (!strcmp(key, "media")) {
        jo_open(c, key, '{');
        emit_figs(c, NVB__FS_DEVMEDIA, d, 0, d->ms == 1 ? NVB__FF_AV : 0, media_part, NULL);
        jo_close(c, '}');
    } else if (!strcmp(key, "write_amplification")) {
        jo_g6(c, key, dd->waf);
    } else {
        dd->waf_reason ? jo_str(c, key, dd->waf_reason) : jo_raw(c, key, "null");
    }
}

/* device_log's parts: whether the log was read, before and after (the
 * log's fields, NVB__FS_HEALTH), delta (NVB__FS_HEALTHD) and why the
 * derived figures are null, from what the writer derived (arg); the power
 * state, when it was asked (absent in results from before it). */
static void devlog_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__devlog *d = base;
    const struct nvb__devlog_derived *dd = arg;
    if (!strcmp(key, "available") || !strcmp(key, "reason")) {
        avail_part(c, key, d->state == 1, d->reason);
    } else if (!strcmp(key, "derived_reason")) {
        dd->reason ? jo_str(c, key, dd->reason) : jo_raw(c, key, "null");
    } else if (!strcmp(key, "power")) {
        if (d->pw) {
            jo_open(c, key, '{');
            emit_figs(c, NVB__FS_DEVPOWER, d, 0, d->pw == 1 ? NVB__FF_AV : 0, power_part, NULL);
            jo_close(c, '}');
        }
    } else if (!strncmp(key, "media", 5) || !strncmp(key, "write_amp", 9)) {
        devlog_media(c, key, d, dd);
    } else {
        const int delta = !strcmp(key, "delta");
        jo_open(c, key, '{');
        emit_figs(c, delta ? NVB__FS_HEALTHD : NVB__FS_HEALTH, delta ? (const void *)dd :
                  key[0] == 'b' ? d->before : d->after, 0, 0, NULL, NULL);
        jo_close(c, '}');
    }
}

/* device_log (devlog.c measures it): absent where it was not asked. */
static void emit_devlog(struct jctx *c, const struct nvb_result *r, const struct nvb__tstat *t)
{
    if (!t->dlog.state)
        return;
    struct nvb__devlog_derived dd;
    nvb__devlog_derive(r, t, &dd);
    jo_open(c, "device_log", '{');
    emit_figs(c, NVB__FS_DEVLOG, &t->dlog, 0, t->dlog.state == 1 ? NVB__FF_AV : 0, devlog_part, &dd);
    jo_close(c, '}');
}

/* A target's parts: its host and file (the result's host, its path when
 * the same), its directions, its device's facts, and its content and device utilisation, each written
 * whole at its first key. */
static void target_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__tstat *t = base;
    const struct nvb_result *r = arg;
    int d;
    for (d = 0; d < NVB__NDIR && strcmp(key, nvb__dir_names[d]); d++)
        ;
    if (d < NVB__NDIR) {
        emit_dstat(c, key, &t->d[d], r->duration_s, &r->lat_unknown);
    } else if (!strcmp(key, "host")) {
        jo_str(c, key, t->host ? t->host : r->host);
    } else if (!strcmp(key, "file")) {
        jo_str(c, key, t->file ? t->file : t->path);
    } else if (!strcmp(key, "device")) {
        emit_device(c, &t->devf);
    } else if (!strcmp(key, "page_cache")) {
        emit_content(c, &t->content);
    } else if (!strcmp(key, "util_dev")) {
        emit_util(c, &t->util);
    } else if (!strcmp(key, "device_log")) {
        emit_devlog(c, r, t);
    }
}

/* A point's direction's parts (timeseries[].read, ...): the mean and the
 * exact sum of its latencies; its percentiles (null without samples or
 * without its histogram) and its histogram, sparse (ihist.h), none of them
 * for a point of a result written before them (a loaded one stays what it
 * was). */
struct ts_arg {
    const struct nvb__tsample *s;
    int d;
};

static void tsdir_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__tsample *s = ((const struct ts_arg *)arg)->s;
    const int d = ((const struct ts_arg *)arg)->d;
    const struct nvb__ihist *h = s->lh[d];
    (void)base;
    if (!strcmp(key, "lat_mean_ns")) {
        jo_num(c, key, s->ios[d] ? nvb__u128d(s->lat_sum[d]) / (double)s->ios[d] : 0);
    } else if (!strcmp(key, "lat_sum_ns")) {
        const uint64_t lw[2] = {(uint64_t)s->lat_sum[d], (uint64_t)(s->lat_sum[d] >> 64)};
        jo_wide(c, key, lw, 2, 0);
    } else if (s->lh_unknown == 2) {
        return;
    } else if (key[0] == 'p') {
        if (h && h->count)
            jo_num(c, key, nvb__ihist_pct(h, strtod(key + 1, NULL)));
        else
            jo_raw(c, key, "null");
    } else if (s->lh_unknown) {
        jo_raw(c, key, "null");
    } else {
        jo_open(c, key, '{');
        jo_u64(c, "count", h ? h->count : 0);
        jo_open(c, "buckets", '[');
        for (unsigned i = 0; h && i < h->n && c->j->b; i++) {
            j_comma(c->j);
            nvb__buf_printf(c->j->b, "[%u,%" PRIu64 "]", h->b[i].i, h->b[i].c);
        }
        jo_close(c, ']');
        jo_close(c, '}');
    }
}

/* A point's directions (its rows of NVB__FS_TSDIR, over dt_s). */
static void ts_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb__tsample *s = base;
    (void)arg;
    for (int d = 0; d < NVB__NDIR; d++)
        if (!strcmp(key, nvb__dir_names[d])) {
            jo_open(c, key, '{');
            emit_figs(c, NVB__FS_TSDIR, (const char *)s + d * sizeof(uint64_t), s->dt_s, 0, tsdir_part,
                      &(const struct ts_arg){s, d});
            jo_close(c, '}');
        }
    if (!strcmp(key, "intervals") && s->n > 1) /* absent for one: results written before merges read back the same */
        jo_u64(c, "intervals", s->n);
}

/* One point of the time series (its rows of NVB__FS_TS): the result's
 * timeseries[] and the run's point callback write the same text. */
static void emit_point(struct jctx *c, const struct nvb_result *r, const struct nvb__tsample *s)
{
    jo_open(c, NULL, '{');
    emit_figs(c, NVB__FS_TS, s, r->duration_s, nvb__figs_when(r), ts_part, r);
    jo_close(c, '}');
}

int nvb__ts_point_json(const struct nvb_result *r, const struct nvb__tsample *s, struct nvb__buf *b)
{
    struct nvb__json j;
    struct jctx c;
    memset(&j, 0, sizeof j);
    memset(&c, 0, sizeof c);
    j.b = b;
    c.j = &j;
    emit_point(&c, r, s);
    return b->oom ? -ENOMEM : 0;
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

/* The top level's scalars the table leaves to code: the start as text, the
 * end of the window. */
static void run_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb_result *r = base;
    (void)arg;
    if (!strcmp(key, "end_unix_ns")) {
        jo_u64(c, key, nvb__result_window_end(r));
        return;
    }
    char ts[64] = "";
    time_t s = (time_t)(r->start_wall_ns / 1000000000ull);
    struct tm tm;
    if (r->start_wall_ns && gmtime_r(&s, &tm))
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    jo_str(c, key, ts);
}

/* The top level's last keys the table leaves to code: the warnings, the
 * failure, the clock, the histograms' stated error. */
static void end_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb_result *r = base;
    (void)arg;
    if (!strcmp(key, "warnings")) {
        jo_open(c, key, '[');
        for (unsigned i = 0; i < r->nwarn; i++)
            jo_str(c, NULL, r->warn[i]);
        jo_close(c, ']');
    } else if (!strcmp(key, "error") && r->err) {
        char nb[16];
        jo_open(c, key, '{');
        jo_num(c, "errno", -r->err);
        jo_str(c, "name", nvb__errno_name(r->err, nb, sizeof nb));
        jo_str(c, "message", r->errmsg);
        jo_close(c, '}');
    } else if (!strcmp(key, "error")) {
        jo_raw(c, key, "null");
    } else if (!strcmp(key, "clock_cost_ns")) {
        jo_raw_num(c, key, r->clock_cost_ns);
    } else if (!strcmp(key, "clock_source")) {
        if (r->clock_source[0]) /* absent where unknown: an older result reads back as it was */
            jo_str(c, key, r->clock_source);
    } else {
        jo_num(c, key, NVB__HIST_REL_ERROR);
    }
}

/* The top level's first keys the table leaves to code: the schema and the
 * library's version, what the engine used, the workload's echo (core/keys.c's). */
static void head_part(struct jctx *c, const char *key, const void *base, const void *arg)
{
    const struct nvb_result *r = base;
    struct nvb__json *j = c->j;
    (void)arg;
    if (!strcmp(key, "schema")) {
        jo_str(c, key, NVB_SCHEMA_VERSION);
    } else if (!strcmp(key, "version")) {
        jo_str(c, key, nvb_version());
    } else if (!strcmp(key, "engine_used")) {
        jo_open(c, key, '{');
        for (unsigned i = 0; i < r->used.n; i++)
            jo_str(c, r->used.kv[i].key, r->used.kv[i].val);
        jo_close(c, '}');
    } else if (j->b && r->wl) {
        j_key(j, key);
        nvb__workload_json(r->wl, j->b);
    } else if (j->b && r->wl_json) {
        j_key(j, key);
        nvb__buf_puts(j->b, r->wl_json);
    } else if (j->b) {
        jo_raw(c, key, "{}");
    }
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
    emit_figs(&c, NVB__FS_HEAD, r, 0, 0, head_part, NULL);
    emit_figs(&c, NVB__FS_RUN, r, 0, 0, run_part, NULL);
    emit_dirs(&c, r, r->tot); /* trim only in results of workloads that trim (docs/json-schema.md) */
    uint64_t ios = r->tot[0].ios + r->tot[1].ios + r->tot[NVB_TRIM].ios;
    uint64_t bytes = r->tot[0].bytes + r->tot[1].bytes + r->tot[NVB_TRIM].bytes;
    emit_total(&c, ios, bytes, r->duration_s, r);
    jo_open(&c, "submissions", '{');
    emit_figs(&c, NVB__FS_SUBMIT, r, 0, nvb__figs_when(r), timing_part, NULL);
    jo_close(&c, '}');
    if (r->rate_set) {
        jo_open(&c, "rate", '{');
        emit_figs(&c, NVB__FS_RATE, r, 0, nvb__figs_when(r), timing_part, NULL);
        jo_close(&c, '}');
    } else {
        jo_raw(&c, "rate", "null");
    }

    if (!group)
        emit_cpu(&c, r);
    if (!group && r->energy.state) { /* absent when not asked; {available: false, reason} when not measured */
        jo_open(&c, "energy", '{');
        emit_figs(&c, NVB__FS_ENERGY, &r->energy, 0, r->energy.state == 1 ? NVB__FF_AV : 0, energy_part, r);
        jo_close(&c, '}');
    }

    jo_open(&c, "errors", '{');
    emit_figs(&c, NVB__FS_ERRORS, r, 0, nvb__figs_when(r), errors_part, NULL);
    jo_close(&c, '}');

    jo_open(&c, "fault", '{');
    emit_figs(&c, NVB__FS_FAULT, r, 0, nvb__figs_when(r), fault_part, &(const struct fault_arg){r, -1});
    jo_close(&c, '}');

    jo_open(&c, "verify", '{');
    emit_figs(&c, NVB__FS_VERIFY, r, 0, 0, verify_part, r);
    jo_close(&c, '}');

    emit_rows(&c, "per_target", NVB__FS_TARGET, r->tg, sizeof *r->tg, r->ntargets, r, target_part);

    emit_rows(&c, "hosts", NVB__FS_HOST, r->hosts, sizeof *r->hosts, r->nhosts, r, host_part);

    emit_rows(&c, "timeseries", NVB__FS_TS, r->ts, sizeof *r->ts, r->nts, r, ts_part);
    emit_phases(&c, r);
    emit_groups(&c, r);

    emit_figs(&c, NVB__FS_END, r, 0, 0, end_part, NULL);
    jo_close(&c, '}');
    cx->idx[j->depth] = c.idx[j->depth];
}
