/*
 * The result's time series as the sampler grows it: when a point is final
 * (no late fold at the run's end can change it), it goes to the run's
 * point callback (nvb_run_opts.point: --live, on_point), in order, once;
 * then it joins the points the result keeps, which stay at most
 * timeseries_max by merging neighbours exactly, two by two, so that every
 * kept point spans the same number of intervals (stride) but the last.
 * The newest points stay as measured for as long as steady state looks
 * back at them (hold). Runs on the sampler's thread, between its samples:
 * nothing here is on a job's I/O path.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/ihist.h"

void nvb__ts_add(struct nvb__tsample *a, struct nvb__tsample *b, int count)
{
    for (int d = 0; d < NVB__NDIR; d++) {
        a->ios[d] += b->ios[d];
        a->bytes[d] += b->bytes[d];
        a->lat_sum[d] += b->lat_sum[d];
        if (!a->lh_unknown && !b->lh_unknown && nvb__ihist_add(&a->lh[d], b->lh[d]))
            a->lh_unknown = 1; /* out of memory: this point's percentiles are unknown */
        free(b->lh[d]);
        b->lh[d] = NULL;
    }
    a->lh_unknown = b->lh_unknown > a->lh_unknown ? b->lh_unknown : a->lh_unknown;
    if (a->lh_unknown)
        nvb__ihists_free(a->lh);
    a->errors += b->errors;
    if (a->system_pct >= 0 && b->system_pct >= 0 && a->dt_s + b->dt_s > 0) {
        /* the weighted mean, kept between its two parts (two 100s can round to 100.00000000000001) */
        double lo = a->system_pct < b->system_pct ? a->system_pct : b->system_pct;
        double hi = a->system_pct < b->system_pct ? b->system_pct : a->system_pct;
        double m = (a->system_pct * a->dt_s + b->system_pct * b->dt_s) / (a->dt_s + b->dt_s);
        a->system_pct = m < lo ? lo : m > hi ? hi : m;
    } else if (a->system_pct >= 0 && b->system_pct >= 0) {
        a->system_pct = -1; /* no time to weigh them by */
    } else if (b->system_pct >= 0 && !count) {
        a->system_pct = b->system_pct; /* a late tail's own (a null: too few ticks in it) */
    } else if (count) {
        a->system_pct = -1; /* part of the time unknown: unknown */
    }
    if (count)
        a->n = (a->n ? a->n : 1) + (b->n ? b->n : 1);
    a->dt_s += b->dt_s;
    a->t_s = b->t_s;
    a->t_unix_ns = b->t_unix_ns;
}

void nvb__series_begin(struct nvb__series *ser, unsigned limit, unsigned hold)
{
    memset(ser, 0, sizeof *ser);
    ser->stride = 1;
    ser->limit = limit < 2 ? 2 : limit;
    ser->hold = hold;
}

/* The kept points halve: each pair becomes one point of twice the stride
 * (an odd last one stays, short of it); the measured ones follow them. */
static void series_halve(struct nvb__series *ser, struct nvb_result *res)
{
    unsigned k = 0;
    for (unsigned i = 0; i < ser->ncomp; i += 2, k++) {
        if (i != k)
            res->ts[k] = res->ts[i];
        if (i + 1 < ser->ncomp)
            nvb__ts_add(&res->ts[k], &res->ts[i + 1], 1);
    }
    memmove(res->ts + k, res->ts + ser->ncomp, (res->nts - ser->ncomp) * sizeof *res->ts);
    res->nts -= ser->ncomp - k;
    ser->ncomp = k;
    ser->stride *= 2;
}

/* The oldest measured point joins the kept ones: into the last when that
 * one spans less than the stride, else after it. */
static void series_keep_one(struct nvb__series *ser, struct nvb_result *res)
{
    struct nvb__tsample *p = &res->ts[ser->ncomp];
    struct nvb__tsample *last = ser->ncomp ? &res->ts[ser->ncomp - 1] : NULL;
    if (last && ser->stride > 1 && (last->n ? last->n : 1) < ser->stride) {
        nvb__ts_add(last, p, 1);
        memmove(p, p + 1, (res->nts - ser->ncomp - 1) * sizeof *p);
        res->nts--;
    } else {
        ser->ncomp++;
    }
    ser->seq0++;
    if (ser->ncomp >= ser->limit && ser->stride <= UINT32_MAX / 2)
        series_halve(ser, res);
}

/* Points before seq are final: each goes to the callback, then those
 * past the steady-state hold join the kept ones. */
static void series_settle(struct nvb__series *ser, const struct run *r, struct nvb_result *res, uint64_t seq,
                          unsigned hold)
{
    const struct nvb_run_opts *o = r->opts;
    for (; ser->seq_del < seq; ser->seq_del++) {
        if (!o->point)
            continue;
        struct nvb__buf b = {0};
        int rc = nvb__ts_point_json(res, &res->ts[ser->ncomp + (ser->seq_del - ser->seq0)], &b);
        if (rc == 0)
            rc = o->point(b.s, b.len, o->point_arg);
        free(b.s);
        if (rc && !ser->failed++)
            ser->first_rc = rc;
    }
    while (ser->seq0 < ser->seq_del && res->nts - ser->ncomp > hold)
        series_keep_one(ser, res);
}

void nvb__series_pushed(struct nvb__series *ser, const struct run *r, struct nvb_result *res, uint64_t ios_now)
{
    const uint64_t npushed = ser->seq0 + (res->nts - ser->ncomp);
    if (ios_now > ser->ios_cand)
        series_settle(ser, r, res, ser->seq_cand, ser->hold);
    ser->seq_cand = npushed;
    ser->ios_cand = ios_now;
}

void nvb__series_end(struct nvb__series *ser, const struct run *r, struct nvb_result *res)
{
    series_settle(ser, r, res, ser->seq0 + (res->nts - ser->ncomp), 0);
    if (ser->failed)
        nvb__result_warn(res, "timeseries: the point callback (--live) failed for %" PRIu64 " point%s (first "
                         "answer %d); the run went on", ser->failed, ser->failed == 1 ? "" : "s", ser->first_rc);
    if (ser->folded_given)
        nvb__result_warn(res, "timeseries: %" PRIu64 " point%s given to the point callback (--live) were then "
                         "folded into the last (the sampler ran late at the end)", ser->folded_given,
                         ser->folded_given == 1 ? "" : "s");
    if (ser->stride > 1)
        nvb__result_warn(res, "timeseries: %u points of %u intervals each (the last may hold fewer), "
                         "neighbours merged exactly as timeseries_max=%u was reached; the point callback "
                         "(--live) had every interval", res->nts, ser->stride, ser->limit);
}
