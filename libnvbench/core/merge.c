/*
 * Merging the results of one workload run on several hosts (or processes)
 * into one (nvb_result_merge, docs/multihost.md). Counts add, histograms
 * add bucket by bucket, the window spans the hosts' windows by wall clock,
 * and what only means something per machine (CPU percentages, threads) is
 * kept per host in the "hosts" rows.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/ihist.h"

/* *dst += src, *dst allocated when missing; 0, -ENOMEM or -EOVERFLOW. */
static int hist_add(struct nvb__hist **dst, const struct nvb__hist *src)
{
    if (!src)
        return 0;
    if (!*dst) {
        *dst = malloc(sizeof **dst);
        if (!*dst)
            return -ENOMEM;
        nvb__hist_init(*dst);
    }
    return nvb__hist_merge(*dst, src);
}

/* Adding b's count to a's would pass 2^64 - 1. */
static int count_overflows(const struct nvb__hist *a, const struct nvb__hist *b)
{
    return a && b && a->count > UINT64_MAX - b->count;
}

/* Per-size counts (bssplit) add up to the direction's ios and bytes: a sum
 * keeps them only when every part that did I/O has them. A total of job
 * groups of which one ran without a split has none (each group keeps its
 * own); before, it held the split group's counts alone, and the library
 * refused to read back the JSON it had written. */
static int bsc_add(struct nvb__dstat *dst, const struct nvb__dstat *src, int dst_whole)
{
    if (dst_whole && (src->bsc || !src->ios))
        return nvb__bsc_merge(&dst->bsc, src->bsc);
    free(dst->bsc);
    dst->bsc = NULL;
    return 0;
}

int nvb__dstat_add(struct nvb__dstat *dst, const struct nvb__dstat *src)
{
    uint64_t ios, bytes;
    const int dst_whole = dst->bsc || !dst->ios;
    if (__builtin_add_overflow(dst->ios, src->ios, &ios) || __builtin_add_overflow(dst->bytes, src->bytes, &bytes) ||
        count_overflows(dst->hist, src->hist) || count_overflows(dst->slat, src->slat) ||
        count_overflows(dst->clat, src->clat))
        return -EOVERFLOW;
    dst->ios = ios;
    dst->bytes = bytes;
    int rc = hist_add(&dst->hist, src->hist);
    if (!rc)
        rc = hist_add(&dst->slat, src->slat);
    if (!rc)
        rc = hist_add(&dst->clat, src->clat);
    if (!rc)
        rc = bsc_add(dst, src, dst_whole);
    return rc;
}

/* CPU figures of a part are known when the system sample worked and saw
 * time pass: its percentages then add up to 100 (all zero otherwise). By
 * the figures alone, so that a result and its JSON merge the same way. */
static int cpu_known(const struct nvb_result *p)
{
    return p->system_pct + p->iowait_pct + p->steal_pct + p->idle_pct > 0;
}

static unsigned part_ncpus(const struct nvb_result *p)
{
    return (unsigned)(p->ncpu > 0 ? p->ncpu : (p->ncpus_online > 0 ? p->ncpus_online : 0));
}

static int row_from_part(struct nvb__hostrow *h, const struct nvb_result *p)
{
    memset(h, 0, sizeof *h);
    snprintf(h->host, sizeof h->host, "%s", p->host);
    h->start_unix_ns = p->start_wall_ns;
    h->ramp_s = p->ramp_s;
    h->duration_s = p->duration_s;
    h->last_done_unix_ns = nvb__result_window_end(p);
    h->first_done_unix_ns = p->first_done_wall_ns ? p->first_done_wall_ns : h->last_done_unix_ns;
    for (int d = 0; d < NVB__NDIR; d++) {
        const struct nvb__dstat *s = &p->tot[d];
        h->ios[d] = s->ios;
        h->bytes[d] = s->bytes;
        if (s->hist && s->hist->count) {
            h->lat_mean_ns[d] = nvb__hist_mean(s->hist);
            h->lat_p99_ns[d] = nvb__hist_pct(s->hist, 99);
            h->lat_max_ns[d] = (double)s->hist->max;
        }
    }
    h->errors = p->errors;
    h->system_pct = cpu_known(p) ? p->system_pct : -1;
    h->ncpus = part_ncpus(p);
    h->process_user_s = p->process_user_s;
    h->process_sys_s = p->process_sys_s;
    h->window_s = p->cpu_window_s > 0 ? p->cpu_window_s : p->duration_s;
    h->cancelled = p->cancelled;
    if (p->err && !(h->error = nvb__strdup(p->errmsg[0] ? p->errmsg : nvb_strerror(p->err))))
        return -ENOMEM;
    return 0;
}

static int row_copy(struct nvb__hostrow *dst, const struct nvb__hostrow *src)
{
    *dst = *src;
    dst->error = NULL;
    if (src->error && !(dst->error = nvb__strdup(src->error)))
        return -ENOMEM;
    return 0;
}

static int tstat_copy(struct nvb__tstat *dst, const struct nvb__tstat *src, const char *host)
{
    *dst = *src;
    dst->path = dst->file = dst->host = NULL;
    for (int d = 0; d < NVB__NDIR; d++)
        dst->d[d].hist = dst->d[d].slat = dst->d[d].clat = NULL, dst->d[d].bsc = NULL;
    for (int d = 0; d < NVB__NDIR; d++)
        dst->d[d].ios = dst->d[d].bytes = 0;
    if (!(dst->path = nvb__strdup(src->path ? src->path : "")))
        return -ENOMEM;
    if (src->file && !(dst->file = nvb__strdup(src->file)))
        return -ENOMEM;
    if (!(dst->host = nvb__strdup(src->host ? src->host : host)))
        return -ENOMEM;
    for (int d = 0; d < NVB__NDIR; d++) {
        int rc = nvb__dstat_add(&dst->d[d], &src->d[d]);
        if (rc)
            return rc;
    }
    return 0;
}

/* The workload object of a part as a JSON tree (results from nvb_run()
 * hold the workload itself; loaded and merged ones its JSON). */
static int workload_tree(const struct nvb_result *p, struct nvb__jv **out)
{
    *out = NULL;
    struct nvb__buf b = {0};
    if (p->wl)
        nvb__workload_json(p->wl, &b);
    else
        nvb__buf_puts(&b, p->wl_json ? p->wl_json : "{}");
    if (b.oom) {
        free(b.s);
        return -ENOMEM;
    }
    /* A parsed tree is read-only; the merge edits "targets", so it works
     * on a copy whose nodes are each their own allocation. */
    struct nvb__jv *parsed = NULL, *v = calloc(1, sizeof *v);
    int rc = v ? nvb__json_parse(b.s, b.len, &parsed, NULL, 0) : -ENOMEM;
    free(b.s);
    if (rc == 0 && nvb__json_copy(v, parsed))
        rc = -ENOMEM;
    nvb__json_free(parsed);
    if (rc < 0) {
        free(v);
        return rc;
    }
    *out = v;
    return 0;
}

/* The interval of a part's time series and whether it was aligned. */
static void part_interval(const struct nvb_result *p, uint64_t *iv, int *aligned)
{
    *iv = 0;
    *aligned = 0;
    if (p->wl) {
        *iv = p->wl->interval_ns;
        *aligned = p->wl->align_interval;
        return;
    }
    double s;
    uint64_t a;
    struct nvb__jv *wl = NULL;
    if (!p->wl_json || nvb__json_parse(p->wl_json, strlen(p->wl_json), &wl, NULL, 0) < 0)
        return;
    if (nvb__json_dbl(nvb__json_get(wl, "interval_s"), &s) == 0 && s > 0 && s < 1e7)
        *iv = (uint64_t)llround(s * 1e9);
    if (nvb__json_u64(nvb__json_get(wl, "align_interval"), &a) == 0)
        *aligned = a == 1;
    nvb__json_free(wl);
}

struct tsref {
    uint64_t key;               /* slot (aligned) or index */
    const struct nvb__tsample *s;
    unsigned ncpus;
};

static int tsref_cmp(const void *a, const void *b)
{
    const struct tsref *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Time series: points of different hosts that cover the same interval add
 * up. With aligned intervals (the same interval everywhere, ends on its
 * wall-clock multiples) a point belongs to the interval its end falls in;
 * otherwise the hosts started together at the barrier and the i-th points
 * cover about the same time. */
static int merge_series(struct nvb_result *m, const struct nvb_result *const *parts, size_t n, uint64_t w0,
                        uint64_t w1)
{
    size_t total = 0;
    int aligned = 1;
    uint64_t iv0 = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t iv;
        int al;
        part_interval(parts[i], &iv, &al);
        if (!al || !iv || (iv0 && iv != iv0))
            aligned = 0;
        iv0 = iv;
        total += parts[i]->nts;
        for (unsigned k = 0; k < parts[i]->nts; k++)
            if (!parts[i]->ts[k].t_unix_ns)
                aligned = 0;
    }
    if (!total)
        return 0;
    struct tsref *v = malloc(total * sizeof *v);
    if (!v)
        return -ENOMEM;
    size_t nv = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < parts[i]->nts; k++) {
            const struct nvb__tsample *s = &parts[i]->ts[k];
            v[nv].key = aligned ? s->t_unix_ns / iv0 + (s->t_unix_ns % iv0 != 0) : k;
            v[nv].s = s;
            v[nv].ncpus = part_ncpus(parts[i]);
            nv++;
        }
    qsort(v, nv, sizeof *v, tsref_cmp);
    int rc = 0;
    for (size_t a = 0; a < nv && !rc;) {
        size_t b = a;
        struct nvb__tsample o;
        memset(&o, 0, sizeof o);
        double busy = 0, weight = 0, max_dt = 0, max_t = 0;
        for (; b < nv && v[b].key == v[a].key; b++) {
            const struct nvb__tsample *s = v[b].s;
            for (int d = 0; d < NVB__NDIR; d++)
                if (__builtin_add_overflow(o.ios[d], s->ios[d], &o.ios[d]) ||
                    __builtin_add_overflow(o.bytes[d], s->bytes[d], &o.bytes[d]) ||
                    __builtin_add_overflow(o.lat_sum[d], s->lat_sum[d], &o.lat_sum[d]))
                    rc = -EOVERFLOW;
            if (__builtin_add_overflow(o.errors, s->errors, &o.errors))
                rc = -EOVERFLOW;
            /* the interval's histograms add exactly; a part without them
             * leaves the merged point's percentiles unknown */
            o.lh_unknown = s->lh_unknown > o.lh_unknown ? s->lh_unknown : o.lh_unknown;
            for (int d = 0; d < NVB__NDIR && !rc && !o.lh_unknown; d++)
                rc = nvb__ihist_add(&o.lh[d], s->lh[d]);
            if (s->t_unix_ns > o.t_unix_ns)
                o.t_unix_ns = s->t_unix_ns;
            if (s->n > o.n) /* merged series (timeseries_max): the most intervals a part's point spans */
                o.n = s->n;
            if (s->dt_s > max_dt)
                max_dt = s->dt_s;
            if (s->t_s > max_t)
                max_t = s->t_s;
            if (s->system_pct >= 0 && v[b].ncpus) {
                busy += s->system_pct * v[b].ncpus;
                weight += v[b].ncpus;
            }
        }
        o.system_pct = weight > 0 ? busy / weight : -1;
        o.dt_s = max_dt;
        o.t_s = max_t;
        if (w0 && o.t_unix_ns > w0)
            o.t_s = (double)(o.t_unix_ns - w0) / 1e9;
        if (aligned) {
            /* The interval as the merged window sees it. */
            uint64_t lo = (v[a].key - 1) * iv0;
            if (lo < w0)
                lo = w0;
            uint64_t hi = o.t_unix_ns < w1 || !w1 ? o.t_unix_ns : w1;
            if (hi > lo)
                o.dt_s = (double)(hi - lo) / 1e9;
        }
        if (!rc && !o.lh_unknown)
            rc = nvb__result_ts_push(m, &o);
        else if (!rc) {
            nvb__ihists_free(o.lh);
            rc = nvb__result_ts_push(m, &o);
        }
        if (rc)
            nvb__ihists_free(o.lh);
        a = b;
    }
    free(v);
    return rc;
}

static int same_str(const struct nvb__jv *a, const struct nvb__jv *b)
{
    if (!a || !b)
        return a == b;
    if (a->type != b->type)
        return 0;
    if (a->type == NVB__J_STR || a->type == NVB__J_NUM)
        return !strcmp(a->s, b->s);
    return 1;
}

static int concat_targets(struct nvb__jv *wl, struct nvb__jv *const *trees, size_t n)
{
    if (!wl || wl->type != NVB__J_OBJ)
        return 0;
    struct nvb__jv *t = (struct nvb__jv *)nvb__json_get(wl, "targets");
    if (!t)
        return 0;
    struct nvb__jv all;
    memset(&all, 0, sizeof all);
    all.type = NVB__J_ARR;
    all.key = t->key;
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++) {
        const struct nvb__jv *pt = nvb__json_get(trees[i], "targets");
        if (pt && pt->type == NVB__J_ARR)
            cnt += pt->n;
    }
    if (cnt) {
        all.kid = calloc(cnt, sizeof *all.kid);
        if (!all.kid)
            return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const struct nvb__jv *pt = nvb__json_get(trees[i], "targets");
        for (size_t k = 0; pt && pt->type == NVB__J_ARR && k < pt->n; k++) {
            if (nvb__json_copy(&all.kid[all.n], &pt->kid[k])) {
                all.key = NULL;
                nvb__json_clear(&all);
                return -ENOMEM;
            }
            all.n++;
        }
    }
    t->key = NULL;
    nvb__json_clear(t);
    *t = all;
    return 0;
}

/* What must be the same for a merge to describe one workload. */
static const char *const same_keys[] = {"engine", "rw", "rwmix", "bs", "qd", "jobs", "runtime_s", "ramp_s"};

static int merge_workload(struct nvb_result *m, const struct nvb_result *const *parts, size_t n)
{
    struct nvb__jv **trees = calloc(n, sizeof *trees);
    if (!trees)
        return -ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = workload_tree(parts[i], &trees[i]);
    for (size_t i = 1; i < n && !rc; i++)
        for (size_t k = 0; k < sizeof same_keys / sizeof same_keys[0]; k++)
            if (!same_str(nvb__json_get(trees[0], same_keys[k]), nvb__json_get(trees[i], same_keys[k]))) {
                nvb__result_warn(m, "merged runs of different workloads: key '%s' differs between %s (part 0) "
                                 "and %s (part %zu)", same_keys[k], parts[0]->host[0] ? parts[0]->host : "?",
                                 parts[i]->host[0] ? parts[i]->host : "?", i);
                break;
            }
    if (!rc)
        rc = concat_targets(trees[0], trees, n);
    if (!rc) {
        struct nvb__buf b = {0};
        nvb__json_write(trees[0], &b);
        rc = nvb__buf_take(&b, &m->wl_json);
    }
    for (size_t i = 0; i < n; i++)
        nvb__json_free(trees[i]);
    free(trees);
    return rc;
}

static void merge_verify(struct nvb_result *m, const struct nvb_result *p)
{
    m->verify_enabled |= p->verify_enabled; /* its counters: the meter's */
    for (unsigned k = 0; k < p->nfirst_mismatch && m->nfirst_mismatch < NVB__VERIFY_FIRST; k++)
        m->first_mismatch[m->nfirst_mismatch++] = p->first_mismatch[k];
}

/* The meter's words up to sub.batch_max are 64-bit counts that add, but
 * for the maxima and the double sum of squares: a counter appended to the
 * list adds without being named here. */
#define MW(f) (offsetof(struct nvb__meter, f) / sizeof(uint64_t))
_Static_assert(offsetof(struct nvb__meter, sub.batch_max) % sizeof(uint64_t) == 0, "the meter is whole words");
_Static_assert(sizeof(double) == sizeof(uint64_t), "gap_sq takes one word");
void nvb__meter_add(struct nvb__meter *d, const struct nvb__meter *s)
{
    uint64_t *dw = (uint64_t *)(void *)d;
    const uint64_t *sw = (const uint64_t *)(const void *)s;
    for (size_t i = 0; i < MW(sub.batch_max); i++)
        if (i != MW(sub.lag_max) && i != MW(sub.late_max) && i != MW(sub.qfull_max) && i != MW(sub.gap_sq))
            dw[i] += sw[i];
    d->sub.lag_max = s->sub.lag_max > d->sub.lag_max ? s->sub.lag_max : d->sub.lag_max;
    d->sub.late_max = s->sub.late_max > d->sub.late_max ? s->sub.late_max : d->sub.late_max;
    d->sub.qfull_max = s->sub.qfull_max > d->sub.qfull_max ? s->sub.qfull_max : d->sub.qfull_max;
    d->sub.gap_sq += s->sub.gap_sq;
}
#undef MW

/* Submission counts add (the meter's); a rate's targets add, its schedule's counts
 * too; a latency is known only when every part measured it. */
static void merge_timing(struct nvb_result *m, const struct nvb_result *p, int first)
{
    m->lat_unknown |= p->lat_unknown;
    /* what a slat covers and the batch: known when every part says it */
    if (first) {
        m->sub.ext = p->sub.ext;
        m->sub.slat_scope = p->sub.slat_scope;
        m->sub.batch_max = p->sub.batch_max;
    } else {
        m->sub.ext &= p->sub.ext;
        if (m->sub.slat_scope != p->sub.slat_scope)
            m->sub.slat_scope = NVB__SLAT_MIXED;
        if (p->sub.batch_max > m->sub.batch_max)
            m->sub.batch_max = p->sub.batch_max;
    }
    if (!p->rate_set)
        return;
    if (!m->rate_set || first) {
        m->rate_mode = p->rate_mode;
        m->rate_process = p->rate_process;
    }
    m->rate_set = 1;
    m->rate_iops += p->rate_iops;
}

/* The total's workload object: the groups' names (each group's result
 * holds its own workload). */
static int groups_workload(struct nvb_result *m, const struct nvb_result *const *parts, size_t n)
{
    struct nvb__buf b = {0};
    nvb__buf_puts(&b, "{\"groups\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            nvb__buf_puts(&b, ",");
        nvb__json_write_str(&b, parts[i]->group);
    }
    nvb__buf_puts(&b, "]}");
    return nvb__buf_take(&b, &m->wl_json);
}

/* The total's engine of job groups: theirs when they share one, else
 * "mixed" with no engine_used (each group has its own); qd_effective the
 * largest of theirs. */
static void groups_engine(struct nvb_result *m, const struct nvb_result *const *parts, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        if (strcmp(parts[i]->engine, m->engine)) {
            snprintf(m->engine, sizeof m->engine, "mixed");
            memset(&m->used, 0, sizeof m->used);
        }
        if (parts[i]->qd_effective > m->qd_effective)
            m->qd_effective = parts[i]->qd_effective;
    }
}

/* Groups of one run (nvb_run_groups) merge as hosts do, but for the
 * CPU: one process's, measured by each group over its own window, all of
 * which start at the run's one start; the total takes the figures of the
 * group whose window ends last (it saw every group's work), never a sum.
 * Warnings and the error name the group, not the host, and there are no
 * host rows. */
struct merge_how {
    int groups;
};

/* The CPU figures of p, as they are (groups: one process). */
static int cpu_copy(struct nvb_result *m, const struct nvb_result *p)
{
    m->cpu_valid = p->cpu_valid;
    m->system_pct = p->system_pct;
    m->user_pct = p->user_pct;
    m->sys_pct = p->sys_pct;
    m->irq_pct = p->irq_pct;
    m->iowait_pct = p->iowait_pct;
    m->steal_pct = p->steal_pct;
    m->idle_pct = p->idle_pct;
    m->process_user_s = p->process_user_s;
    m->process_sys_s = p->process_sys_s;
    m->cpu_window_s = p->cpu_window_s;
    m->cpu_tick_s = p->cpu_tick_s;
    m->cpu_ticks = p->cpu_ticks;
    m->cpu_raised_pct = p->cpu_raised_pct;
    memcpy(m->cpu_null_reason, p->cpu_null_reason, sizeof m->cpu_null_reason);
    m->maxrss_kib = p->maxrss_kib;
    m->minflt = p->minflt;
    m->majflt = p->majflt;
    m->nvcsw = p->nvcsw;
    m->nivcsw = p->nivcsw;
    m->ncpus_online = p->ncpus_online;
    m->ncpu = p->ncpu;
    if (p->ncpu > 0) {
        m->cpu_pct = malloc((size_t)p->ncpu * sizeof *m->cpu_pct);
        m->cpu_id = malloc((size_t)p->ncpu * sizeof *m->cpu_id);
        if (!m->cpu_pct || !m->cpu_id)
            return -ENOMEM;
        memcpy(m->cpu_pct, p->cpu_pct, (size_t)p->ncpu * sizeof *m->cpu_pct);
        if (p->cpu_id)
            memcpy(m->cpu_id, p->cpu_id, (size_t)p->ncpu * sizeof *m->cpu_id);
        else
            memset(m->cpu_id, 0, (size_t)p->ncpu * sizeof *m->cpu_id);
    }
    if (p->nthreads) {
        if (!(m->threads = malloc(p->nthreads * sizeof *m->threads)))
            return -ENOMEM;
        memcpy(m->threads, p->threads, p->nthreads * sizeof *m->threads);
        m->nthreads = p->nthreads;
    }
    return 0;
}

/* CPU of hosts: seconds add, percentages weighted by CPU count. */
static void cpu_add(struct nvb_result *m, const struct nvb_result *p, double busy[7], double *weight,
                    unsigned *ncpus_all)
{
    /* CPU: seconds add, percentages weighted by CPU count */
    m->process_user_s += p->process_user_s;
    m->process_sys_s += p->process_sys_s;
    double win = p->nhosts ? p->cpu_window_s : (p->cpu_window_s > 0 ? p->cpu_window_s : p->duration_s);
    if (win > m->cpu_window_s)
        m->cpu_window_s = win;
    if (p->maxrss_kib > m->maxrss_kib)
        m->maxrss_kib = p->maxrss_kib;
    m->minflt += p->minflt;
    m->majflt += p->majflt;
    m->nvcsw += p->nvcsw;
    m->nivcsw += p->nivcsw;
    unsigned nc = part_ncpus(p);
    *ncpus_all += nc;
    if (cpu_known(p) && nc) {
        const double f[7] = {p->system_pct, p->user_pct, p->sys_pct, p->irq_pct,
                             p->iowait_pct, p->steal_pct, p->idle_pct};
        for (int k = 0; k < 7; k++)
            busy[k] += f[k] * nc;
        *weight += nc;
        m->cpu_valid = 1;
    }
}

/* A part's label in the merged warnings and error: its group, or its host
 * (none for a merged part, whose own are labelled). */
static const char *part_label(const struct nvb_result *p, const struct merge_how *how)
{
    if (how->groups)
        return p->group;
    return p->nhosts ? "" : p->host;
}

/* The window: earliest start to latest end, by wall clock; *w0 and *w1
 * its measured part. */
static void merge_window(struct nvb_result *m, const struct nvb_result *const *parts, size_t n, uint64_t *w0_p,
                         uint64_t *w1_p)
{
    uint64_t start = 0, w0 = 0, w1 = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        const struct nvb_result *p = parts[i];
        if (!p->start_wall_ns)
            continue;  /* never started (failed in setup) */
        uint64_t a = nvb__result_window_start(p), b = nvb__result_window_end(p);
        if (!start || p->start_wall_ns < start)
            start = p->start_wall_ns;
        if (!w0 || a < w0)
            w0 = a;
        if (b > w1)
            w1 = b;
        uint64_t f = p->first_done_wall_ns ? p->first_done_wall_ns : b;
        if (!first || f < first)
            first = f;
    }
    m->start_wall_ns = start;
    m->ramp_s = start ? (double)(w0 - start) / 1e9 : 0;
    m->end_wall_ns = w1;
    m->first_done_wall_ns = first;
    m->duration_s = w1 > w0 ? (double)(w1 - w0) / 1e9 : 0;
    *w0_p = w0;
    *w1_p = w1;
}

/* The part's counters added: by direction (the histograms too), errors,
 * injected faults. 0, or what nvb__dstat_add returned. */
static int merge_counts(struct nvb_result *m, const struct nvb_result *p)
{
    m->trim |= p->trim;
    for (int d = 0; d < NVB__NDIR; d++) {
        int rc = nvb__dstat_add(&m->tot[d], &p->tot[d]);
        if (rc)
            return rc;
    }
    nvb__meter_add(&m->meter, &p->meter);
    if (p->fault_enabled && !m->fault_enabled) {
        m->fault_enabled = 1;
        m->fault_errno = p->fault_errno;
    }
    return 0;
}

/* The part's warnings, labelled, and its failure: the first; a failure of
 * its own beats a cancellation (the others were stopped because of it). */
static void merge_notes(struct nvb_result *m, const struct nvb_result *p, const struct merge_how *how,
                        int *err_cancelled)
{
    const char *label = part_label(p, how);
    for (unsigned k = 0; k < p->nwarn; k++) {
        if (label[0])
            nvb__result_warn(m, "%s: %s", label, p->warn[k]);
        else
            nvb__result_warn(m, "%s", p->warn[k]);
    }
    if (p->cancelled)
        m->cancelled = 1;
    if (p->err && (!m->err || (*err_cancelled && !p->cancelled))) {
        *err_cancelled = p->cancelled;
        char msg[512];
        if (label[0])
            snprintf(msg, sizeof msg, "%s: %s", label, p->errmsg);
        else
            snprintf(msg, sizeof msg, "%s", p->errmsg);
        nvb__result_seterr(m, p->err, msg);
    }
}

/* The CPU figures of the whole: a group run's from the group whose window
 * ends last (one process), else the parts' busy shares weighted. */
static int merge_cpu(struct nvb_result *m, const struct nvb_result *const *parts, size_t n,
                     const struct merge_how *how, const double busy[7], double weight, unsigned ncpus_all)
{
    if (how->groups) {
        const struct nvb_result *last = parts[0];
        for (size_t i = 1; i < n; i++)
            if (nvb__result_window_end(parts[i]) > nvb__result_window_end(last))
                last = parts[i];
        return cpu_copy(m, last);
    }
    if (weight > 0) {
        m->system_pct = busy[0] / weight;
        m->user_pct = busy[1] / weight;
        m->sys_pct = busy[2] / weight;
        m->irq_pct = busy[3] / weight;
        m->iowait_pct = busy[4] / weight;
        m->steal_pct = busy[5] / weight;
        m->idle_pct = busy[6] / weight;
    } else {
        snprintf(m->cpu_null_reason, sizeof m->cpu_null_reason, "%s",
                 parts[0]->cpu_null_reason[0] ? parts[0]->cpu_null_reason : "not measured on any part");
    }
    m->ncpus_online = (int)ncpus_all;
    return 0;
}

static int merge_into(struct nvb_result *m, const struct nvb_result *const *parts, size_t n,
                      const struct merge_how *how)
{
    const struct nvb_result *p0 = parts[0];
    snprintf(m->engine, sizeof m->engine, "%s", p0->engine);
    m->used = p0->used;
    m->qd_effective = p0->qd_effective;
    if (how->groups)
        groups_engine(m, parts, n);
    uint64_t w0, w1;
    merge_window(m, parts, n, &w0, &w1);

    unsigned rows = 0;
    unsigned ntg = 0;
    for (size_t i = 0; i < n; i++) {
        rows += parts[i]->nhosts ? parts[i]->nhosts : 1;
        ntg += parts[i]->ntargets;
    }
    if (!how->groups && !(m->hosts = calloc(rows, sizeof *m->hosts)))
        return -ENOMEM;
    if (ntg && !(m->tg = calloc(ntg, sizeof *m->tg)))
        return -ENOMEM;

    double busy[7] = {0}, weight = 0;
    int err_cancelled = 0;
    unsigned ncpus_all = 0;
    for (size_t i = 0; i < n; i++) {
        const struct nvb_result *p = parts[i];
        /* hosts rows */
        if (how->groups) {
            /* none: one host */
        } else if (p->nhosts) {
            for (unsigned k = 0; k < p->nhosts; k++)
                if (row_copy(&m->hosts[m->nhosts++], &p->hosts[k]))
                    return -ENOMEM;
        } else if (row_from_part(&m->hosts[m->nhosts++], p)) {
            return -ENOMEM;
        }
        int rc = merge_counts(m, p);
        if (rc)
            return rc;
        merge_verify(m, p);
        merge_timing(m, p, i == 0);
        if (!how->groups)
            cpu_add(m, p, busy, &weight, &ncpus_all);
        /* targets */
        for (unsigned t = 0; t < p->ntargets; t++)
            if ((rc = tstat_copy(&m->tg[m->ntargets++], &p->tg[t], p->host)))
                return rc;
        merge_notes(m, p, how, &err_cancelled);
        if (p->clock_cost_ns > m->clock_cost_ns)
            m->clock_cost_ns = p->clock_cost_ns;
        if (i == 0 || strcmp(m->clock_source, p->clock_source)) /* parts that read different clocks: "mixed"; one unknown: unknown */
            snprintf(m->clock_source, sizeof m->clock_source, "%s",
                     i == 0 ? p->clock_source : m->clock_source[0] && p->clock_source[0] ? "mixed" : "");
    }
    int rc = merge_cpu(m, parts, n, how, busy, weight, ncpus_all);
    if (!rc)
        rc = merge_series(m, parts, n, w0, w1);
    if (!rc)
        rc = how->groups ? groups_workload(m, parts, n) : merge_workload(m, parts, n);
    return rc;
}

/* The parts, checked: 0 or -EINVAL. */
static int merge_new(struct nvb_result **out, const struct nvb_result *const *parts, size_t n,
                     const struct merge_how *how)
{
    if (out)
        *out = NULL;
    if (!out || !parts || !n)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!parts[i])
            return -EINVAL;
    if (n > UINT32_MAX)
        return -EINVAL;
    struct nvb_result *m = nvb__result_new();
    if (!m)
        return -ENOMEM;
    int rc = merge_into(m, parts, n, how);
    if (rc == 0 && how->groups && !(m->groups = calloc(n, sizeof *m->groups)))
        rc = -ENOMEM;
    if (rc < 0) {
        nvb_result_free(m);
        return rc;
    }
    m->ngroups = how->groups ? (unsigned)n : 0;
    snprintf(m->host, sizeof m->host, "%s", how->groups ? parts[0]->host : "");
    *out = m;
    return 0;
}

int nvb__merge_groups(struct nvb_result **out, const struct nvb_result *const *parts, size_t n)
{
    const struct merge_how how = {.groups = 1};
    return merge_new(out, parts, n, &how);
}

NVB_API int nvb_result_merge(struct nvb_result **out, const struct nvb_result *const *parts, size_t n)
{
    const struct merge_how how = {.groups = 0};
    return merge_new(out, parts, n, &how);
}
