/*
 * Steady state over the time series, the SNIA PTS way (docs/steady-state.md).
 *
 * A round is one point of the time series (one interval, key `interval`);
 * a window is the last ss.window / interval rounds. The metric of a round
 * is its IOPS, its bandwidth, or its mean latency (both directions). A
 * window is steady when
 *   - its data excursion, (max - min of the rounds) / mean, is at most
 *     ss.excursion percent (PTS: 20), and
 *   - the excursion of its least-squares line over the window,
 *     |slope| x (rounds - 1) / mean, is at most ss.slope percent (PTS: 10).
 * nvb__ss_judge() is that test alone, on an array: no clock and no run, so
 * that it is tested on synthetic series. The sampler calls
 * nvb__ss_update() at every tick; the first steady window is the one the
 * result reports (and with ss.stop=1 the run ends there).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/run.h"

const char *nvb__ss_metric_name(int metric)
{
    static const char *const names[] = {"off", "iops", "bw", "lat"};
    return metric >= 0 && metric <= NVB__SS_LAT ? names[metric] : "?";
}

void nvb__ss_judge(const double *x, unsigned n, double excursion_pct, double slope_pct, struct nvb__ss_fig *out)
{
    out->mean = out->max_excursion_pct = out->slope_pct = NAN;
    out->reached = 0;
    if (!n)
        return;
    double sum = 0, lo = x[0], hi = x[0];
    for (unsigned i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return; /* a round without a value: the window says nothing */
        sum += x[i];
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    double mean = sum / n;
    out->mean = mean;
    if (!(mean > 0))
        return; /* no I/O: no relative figure, and never steady */
    /* least squares over t = 0 .. n-1: slope = sum((t - tm)(x - mean)) / sum((t - tm)^2) */
    double tm = (double)(n - 1) / 2, sxy = 0, sxx = 0;
    for (unsigned i = 0; i < n; i++) {
        double dt = (double)i - tm;
        sxy += dt * (x[i] - mean);
        sxx += dt * dt;
    }
    double slope = sxx > 0 ? sxy / sxx : 0;
    out->max_excursion_pct = (hi - lo) / mean * 100.0;
    out->slope_pct = fabs(slope) * (double)(n - 1) / mean * 100.0;
    out->reached = out->max_excursion_pct <= excursion_pct && out->slope_pct <= slope_pct;
}

unsigned nvb__ss_rounds(const struct nvb_workload *w)
{
    if (!w->ss_window_ns)
        return NVB__SS_DEFAULT_ROUNDS;
    uint64_t n = w->ss_window_ns / w->interval_ns;
    return n > NVB__SS_MAX_ROUNDS + 1 ? NVB__SS_MAX_ROUNDS + 1 : (unsigned)n;
}

#define FAIL(rc, ...) do { snprintf(err, errlen, __VA_ARGS__); return (rc); } while (0)

int nvb__ss_plan(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    if (!w->ss_metric) {
        if (w->ss_stop)
            FAIL(-EINVAL, "ss.stop=1 needs a steady-state metric: set ss to iops, bw or lat (key 'ss')");
        return 0;
    }
    unsigned n = nvb__ss_rounds(w);
    double iv = (double)w->interval_ns / 1e9;
    if (n < NVB__SS_MIN_ROUNDS)
        FAIL(-EINVAL, "ss.window '%gs' holds %u interval%s of %gs (key 'interval'): steady state is judged over at "
             "least %u rounds", (double)w->ss_window_ns / 1e9, n, n == 1 ? "" : "s", iv, NVB__SS_MIN_ROUNDS);
    if (n > NVB__SS_MAX_ROUNDS)
        FAIL(-EINVAL, "ss.window '%gs' holds more than %u intervals of %gs (key 'interval'): use a longer interval",
             (double)w->ss_window_ns / 1e9, NVB__SS_MAX_ROUNDS, iv);
    if (w->ss_window_ns % w->interval_ns)
        nvb__plan_warn(p, "ss.window %gs is not a multiple of interval %gs: the window is %u rounds (%gs)",
                       (double)w->ss_window_ns / 1e9, iv, n, n * iv);
    if (p->runtime_ns && (uint64_t)n * w->interval_ns > p->runtime_ns)
        nvb__plan_warn(p, "the steady-state window (%u rounds of %gs) is longer than runtime %gs: steady state "
                       "cannot be reached", n, iv, (double)p->runtime_ns / 1e9);
    return 0;
}
#undef FAIL

void nvb__ss_begin(struct nvb_result *res, const struct nvb_workload *w)
{
    memset(&res->ss, 0, sizeof res->ss);
    res->ss.metric = w->ss_metric;
    if (!w->ss_metric)
        return;
    res->ss.rounds = nvb__ss_rounds(w);
    res->ss.window_s = (double)((uint64_t)res->ss.rounds * w->interval_ns) / 1e9; /* 0.3, not 3 x 0.1 */
    res->ss.fig.mean = res->ss.fig.max_excursion_pct = res->ss.fig.slope_pct = NAN;
}

/* The metric of one round; NAN when it has none (latency without I/O). */
static double round_value(int metric, const struct nvb__tsample *t)
{
    uint64_t ios = t->ios[0] + t->ios[1] + t->ios[NVB_TRIM];
    switch (metric) {
    case NVB__SS_IOPS: return (double)ios / t->dt_s;
    case NVB__SS_BW: return (double)(t->bytes[0] + t->bytes[1] + t->bytes[NVB_TRIM]) / t->dt_s;
    default: return ios ? nvb__u128d(t->lat_sum[0] + t->lat_sum[1] + t->lat_sum[NVB_TRIM]) / (double)ios : NAN;
    }
}

int nvb__ss_update(struct nvb_result *res, const struct nvb_workload *w, double *buf)
{
    struct nvb__ss_res *ss = &res->ss;
    if (!buf || !ss->metric || ss->reached)
        return 0;
    /* An interval shorter than half the step is not a round: the first one
     * with align_interval=1, the tail after the last tick. */
    const double half = (double)w->interval_ns / 2e9;
    unsigned n = 0;
    double t_last = 0;
    for (unsigned i = res->nts; i-- > 0 && n < ss->rounds;) {
        const struct nvb__tsample *t = &res->ts[i];
        if (t->dt_s < half)
            continue;
        if (!n)
            t_last = t->t_s;
        buf[ss->rounds - 1 - n++] = round_value(ss->metric, t);
    }
    if (n < ss->rounds)
        return 0;
    nvb__ss_judge(buf, n, w->ss_excursion, w->ss_slope, &ss->fig);
    ss->judged = 1;
    if (!ss->fig.reached)
        return 0;
    ss->reached = 1;
    ss->at_s = t_last;
    return 1;
}
