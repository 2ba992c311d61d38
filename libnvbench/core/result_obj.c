/*
 * The result object: creating and freeing it, its warnings and failure,
 * its time-series points, the window it measured and the CPU figures
 * derived from it. Its JSON form (and nvb_result_get()) is result.c's,
 * reading it back result_load.c's, its accessors result_get.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/ihist.h"

struct nvb_result *nvb__result_new(void)
{
    struct nvb_result *r = calloc(1, sizeof *r);
    return r;
}

void nvb__dstat_free(struct nvb__dstat *d)
{
    free(d->hist);
    free(d->slat);
    free(d->clat);
    free(d->bsc);
    d->hist = d->slat = d->clat = NULL;
    d->bsc = NULL;
}

NVB_API void nvb_result_free(struct nvb_result *r)
{
    if (!r)
        return;
    nvb_workload_free(r->wl);
    for (int d = 0; d < NVB__NDIR; d++)
        nvb__dstat_free(&r->tot[d]);
    for (unsigned t = 0; t < r->ntargets && r->tg; t++) {
        free(r->tg[t].path);
        free(r->tg[t].file);
        free(r->tg[t].host);
        for (int d = 0; d < NVB__NDIR; d++)
            nvb__dstat_free(&r->tg[t].d[d]);
    }
    free(r->tg);
    nvb__explain_free(r->ex);
    free(r->cpu_pct);
    free(r->cpu_id);
    free(r->threads);
    for (unsigned i = 0; i < r->nts; i++)
        nvb__ihists_free(r->ts[i].lh);
    free(r->ts);
    for (unsigned i = 0; i < r->nwarn; i++)
        free(r->warn[i]);
    free(r->warn);
    for (unsigned i = 0; i < r->nhosts; i++)
        nvb__hostrow_clear(&r->hosts[i]);
    free(r->hosts);
    for (unsigned i = 0; i < r->ngroups && r->groups; i++)
        nvb_result_free(r->groups[i]);
    free(r->groups);
    free(r->wl_json);
    free(r);
}

void nvb__hostrow_clear(struct nvb__hostrow *h)
{
    free(h->error);
    h->error = NULL;
}

uint64_t nvb__result_window_start(const struct nvb_result *r)
{
    if (!r->start_wall_ns)
        return 0;
    return r->start_wall_ns + (uint64_t)llround(r->ramp_s > 0 ? r->ramp_s * 1e9 : 0);
}

uint64_t nvb__result_window_end(const struct nvb_result *r)
{
    if (r->end_wall_ns || !r->start_wall_ns)
        return r->end_wall_ns;
    return nvb__result_window_start(r) + (uint64_t)llround(r->duration_s > 0 ? r->duration_s * 1e9 : 0);
}

/* A warning of any length: one quoting a path of PATH_MAX bytes is kept
 * whole, not cut where a fixed buffer ends. */
void nvb__result_warn(struct nvb_result *r, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    if (!s)
        return;
    if (r->nwarn == r->warn_cap) {
        unsigned cap = r->warn_cap ? r->warn_cap * 2 : 4;
        char **w = realloc(r->warn, cap * sizeof *w);
        if (!w) {
            free(s);
            return;
        }
        r->warn = w;
        r->warn_cap = cap;
    }
    r->warn[r->nwarn++] = s;
}

/* The JSON shows U+FFFD for each byte that is not UTF-8 (json.h), so a
 * target or a name with such bytes reads differently from what was run;
 * the warning says which one, so nobody takes the JSON's text for it. */
void nvb__result_warn_utf8(struct nvb_result *r, const struct nvb_workload *w)
{
    static const char tail[] = "has bytes that are not UTF-8: the JSON shows each of them as U+FFFD";
    for (unsigned i = 0; i < w->ntargets; i++)
        if (!nvb__utf8_valid(w->targets[i]))
            nvb__result_warn(r, "target %u ('%s') %s", i, w->targets[i], tail);
    if (!nvb__utf8_valid(w->name))
        nvb__result_warn(r, "name= value '%s' %s", w->name, tail);
    for (unsigned i = 0; i < w->neopts; i++)
        if (!nvb__utf8_valid(w->eopts[i].text))
            nvb__result_warn(r, "%s= value '%s' %s", w->eopts[i].key, w->eopts[i].text, tail);
}

void nvb__result_seterr(struct nvb_result *r, int err, const char *msg)
{
    r->err = err;
    snprintf(r->errmsg, sizeof r->errmsg, "%s", msg && *msg ? msg : nvb_strerror(err));
}

int nvb__result_ts_push(struct nvb_result *r, const struct nvb__tsample *s)
{
    if (r->nts == r->ts_cap) {
        unsigned cap = r->ts_cap ? r->ts_cap * 2 : 64;
        struct nvb__tsample *n = realloc(r->ts, cap * sizeof *n);
        if (!n)
            return -ENOMEM;
        r->ts = n;
        r->ts_cap = cap;
    }
    r->ts[r->nts++] = *s;
    return 0;
}

void nvb__cpu_derive(const struct nvb_result *r, struct nvb__cpu_derived *d)
{
    double cpu_s = r->process_user_s + r->process_sys_s;
    uint64_t ios = r->tot[0].ios + r->tot[1].ios + r->tot[NVB_TRIM].ios;
    /* Every ratio over matching edges: the CPU time was read at the two
     * edges of window_s (sampler.c), so cores are that CPU over window_s,
     * and the I/Os counted in the window over that CPU. duration_s (the
     * counted I/O's span) can be far shorter: a run whose first I/O failed. */
    d->process_cores = r->cpu_window_s > 0 ? cpu_s / r->cpu_window_s : NAN;
    if (r->nhosts) {
        /* Merged: each host's CPU over its own window, summed. */
        double sum = 0;
        int any = 0;
        for (unsigned i = 0; i < r->nhosts; i++) {
            const struct nvb__hostrow *h = &r->hosts[i];
            double win = h->window_s > 0 ? h->window_s : h->duration_s;
            if (win > 0) {
                sum += (h->process_user_s + h->process_sys_s) / win;
                any = 1;
            }
        }
        d->process_cores = any ? sum : NAN;
    }
    d->cpu_us_per_io = ios ? cpu_s * 1e6 / (double)ios : NAN;
    d->iops_per_core = ios && cpu_s > 0 ? (double)ios / cpu_s : NAN;
    /* This process's share of all CPUs, and the rest of the machine's busy
     * share. Both are over the window of system_pct, which was raised to
     * cover the process's CPU (cpu.c): what is left between them is the
     * ticks' resolution, and a share is never above its total. */
    double ncpu = r->ncpu > 0 ? r->ncpu : (r->ncpus_online > 0 ? r->ncpus_online : 1);
    double own = 100.0 * d->process_cores / ncpu;
    /* Without the machine's figures (too few ticks) no share either: over
     * such a window even the process's own reads above 100 % of the
     * machine, its two reads being some microseconds apart. */
    d->nvbench_pct = NAN;
    d->background_pct = NAN;
    if (r->cpu_valid && isfinite(own)) {
        d->nvbench_pct = own;
        if (own > r->system_pct)
            d->nvbench_pct = r->system_pct;
        d->background_pct = r->system_pct - d->nvbench_pct;
    }
}
