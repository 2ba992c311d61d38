/* Preconditioning and steady state (docs/steady-state.md):
 *  - the detector (nvb__ss_judge) on synthetic series: steady, trending,
 *    noisy, degenerate, and against an independent least-squares fit;
 *  - rounds over a time series (nvb__ss_update) without a clock;
 *  - precondition=N: its bytes are N x the regions, the measured figures
 *    exclude them, and every block was written (verify reads check out);
 *  - runs with ss=... end to end: the logical relations between reached,
 *    the limits and the window's figures, recomputed from the time series;
 *  - the keys refused with their names;
 *  - as root, with a loop device of our own: precondition=N on a read
 *    workload is refused by the guard and takes the write hold exactly as
 *    a write does. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/internal.h"
#include "core/run.h"
#include "testutil.h"

#define mk tu_workload

static const char *g_engines[8];
static int g_nengines; /* real-I/O engines available here (nvme aside) */

/* ------------------------------------------------------------ detector */

static struct nvb__ss_fig judge(const double *x, unsigned n)
{
    struct nvb__ss_fig f;
    nvb__ss_judge(x, n, 20, 10, &f);
    return f;
}

START_TEST(judge_steady_series)
{
    const double flat[] = {100, 100, 100, 100, 100};
    struct nvb__ss_fig f = judge(flat, 5);
    ck_assert(f.reached);
    ck_assert_double_eq(f.mean, 100);
    ck_assert_double_eq(f.max_excursion_pct, 0);
    ck_assert_double_eq(f.slope_pct, 0);
    /* small noise around a level: range 6 of a mean of 101 */
    const double calm[] = {100, 104, 98, 102, 101};
    f = judge(calm, 5);
    ck_assert(f.reached);
    ck_assert_double_eq_tol(f.mean, 101, 1e-12);
    ck_assert_double_eq_tol(f.max_excursion_pct, 6.0 / 101 * 100, 1e-9);
    ck_assert(f.slope_pct < 10);
}
END_TEST

START_TEST(judge_trending_series)
{
    /* a steady climb: both criteria fail */
    const double climb[] = {100, 110, 120, 130, 140};
    struct nvb__ss_fig f = judge(climb, 5);
    ck_assert(!f.reached);
    ck_assert_double_eq_tol(f.mean, 120, 1e-12);
    ck_assert_double_eq_tol(f.max_excursion_pct, 40.0 / 120 * 100, 1e-9);
    /* slope 10 per round over 4 rounds: the line rises 40 */
    ck_assert_double_eq_tol(f.slope_pct, 40.0 / 120 * 100, 1e-9);
    /* a gentle trend inside the excursion limit still fails the slope one */
    const double drift[] = {100, 103, 106, 109, 112};
    f = judge(drift, 5);
    ck_assert(f.max_excursion_pct <= 20);
    ck_assert_double_eq_tol(f.slope_pct, 12.0 / 106 * 100, 1e-9);
    ck_assert(!f.reached);
}
END_TEST

START_TEST(judge_noisy_series)
{
    /* no trend at all (the fitted line is flat) but a 30 % swing */
    const double saw[] = {100, 130, 100, 130, 100};
    struct nvb__ss_fig f = judge(saw, 5);
    ck_assert_double_eq_tol(f.slope_pct, 0, 1e-9);
    ck_assert_double_eq_tol(f.max_excursion_pct, 30.0 / 112 * 100, 1e-9);
    ck_assert(!f.reached);
    /* the same swing passes a looser excursion limit */
    nvb__ss_judge(saw, 5, 30, 10, &f);
    ck_assert(f.reached);
}
END_TEST

START_TEST(judge_degenerate_series)
{
    struct nvb__ss_fig f;
    const double zero[] = {0, 0, 0};
    f = judge(zero, 3); /* no I/O: no relative figure, never steady */
    ck_assert(!f.reached);
    ck_assert_double_eq(f.mean, 0);
    ck_assert(isnan(f.max_excursion_pct) && isnan(f.slope_pct));
    const double hole[] = {100, NAN, 100};
    f = judge(hole, 3); /* a round without a value (latency of a round without I/O) */
    ck_assert(!f.reached);
    ck_assert(isnan(f.mean));
    f = judge(hole, 0);
    ck_assert(!f.reached && isnan(f.mean));
    const double one[] = {5};
    f = judge(one, 1);
    ck_assert(f.reached && f.slope_pct == 0 && f.max_excursion_pct == 0);
}
END_TEST

/* The least-squares line from the normal equations, and the range: another
 * way to the same figures, over pseudo-random series of every shape. */
START_TEST(judge_matches_an_independent_fit)
{
    uint64_t s = 42;
    int reached = 0, refused = 0;
    for (int k = 0; k < 2000; k++) {
        unsigned n = 3 + (unsigned)(nvb__splitmix64(&s) % 40);
        double x[64], level = 1 + (double)(nvb__splitmix64(&s) % 100000);
        double trend = ((double)(nvb__splitmix64(&s) % 2001) - 1000) / 1000 * level / n * 0.3;
        double noise = (double)(nvb__splitmix64(&s) % 40) / 100 * level;
        for (unsigned i = 0; i < n; i++)
            x[i] = level + trend * i + ((double)(nvb__splitmix64(&s) % 10001) / 10000 - 0.5) * noise;
        double st = 0, sx = 0, stt = 0, stx = 0, lo = x[0], hi = x[0];
        for (unsigned i = 0; i < n; i++) {
            st += i;
            sx += x[i];
            stt += (double)i * i;
            stx += i * x[i];
            lo = fmin(lo, x[i]);
            hi = fmax(hi, x[i]);
        }
        double b = (n * stx - st * sx) / (n * stt - st * st), a = (sx - b * st) / n;
        double mean = sx / n;
        double line_range = fabs((a + b * (n - 1)) - a);
        double exc = (hi - lo) / mean * 100, slope = line_range / mean * 100;
        double lim_e = (double)(nvb__splitmix64(&s) % 40), lim_s = (double)(nvb__splitmix64(&s) % 20);
        struct nvb__ss_fig f;
        nvb__ss_judge(x, n, lim_e, lim_s, &f);
        ck_assert_double_eq_tol(f.mean, mean, 1e-9 * mean);
        ck_assert_double_eq_tol(f.max_excursion_pct, exc, 1e-7);
        ck_assert_double_eq_tol(f.slope_pct, slope, 1e-6);
        ck_assert_int_eq(f.reached, f.max_excursion_pct <= lim_e && f.slope_pct <= lim_s);
        reached += f.reached;
        refused += !f.reached;
    }
    ck_assert(reached > 0 && refused > 0); /* both outcomes were exercised */
}
END_TEST

/* ------------------------------------------------------------ rounds */

static void push(struct nvb_result *r, double t, double dt, uint64_t ios, uint64_t lat_sum)
{
    struct nvb__tsample s;
    memset(&s, 0, sizeof s);
    s.t_s = t;
    s.dt_s = dt;
    s.ios[NVB_WRITE] = ios;
    s.bytes[NVB_WRITE] = ios * 4096;
    s.lat_sum[NVB_WRITE] = lat_sum;
    s.system_pct = -1;
    ck_assert_int_eq(nvb__result_ts_push(r, &s), 0);
}

/* A series that climbs, then levels off: the first steady window ends at
 * the round where the climb has left the window. */
START_TEST(rounds_over_a_time_series)
{
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "interval", "1s", "ss", "iops", "ss.window",
                                                 "5s", NULL}, NULL);
    struct nvb_result *r = nvb__result_new();
    nvb__ss_begin(r, w);
    ck_assert_uint_eq(r->ss.rounds, 5);
    ck_assert_double_eq(r->ss.window_s, 5);
    double buf[5];
    const uint64_t series[] = {1000, 2000, 3000, 4000, 5000, 5000, 5000, 5000, 5000, 5000, 5000};
    int reached_at = -1;
    for (int i = 0; i < 11; i++) {
        push(r, i + 1, 1, series[i], 0);
        if (nvb__ss_update(r, w, buf)) {
            ck_assert_int_eq(reached_at, -1); /* reported once */
            reached_at = i;
        }
        ck_assert_int_eq(r->ss.judged, i >= 4); /* a whole window first */
    }
    /* windows ending at round 7 (0-based) hold 4000 and four 5000: range 20 % of 4800, over the limit;
     * the one ending at round 8 is flat */
    ck_assert_int_eq(reached_at, 8);
    ck_assert(r->ss.reached);
    ck_assert_double_eq(r->ss.at_s, 9);
    ck_assert_double_eq_tol(r->ss.fig.mean, 5000, 1e-9);
    nvb_result_free(r);

    /* a partial interval (the tail after the last tick) is not a round */
    r = nvb__result_new();
    nvb__ss_begin(r, w);
    for (int i = 0; i < 4; i++)
        push(r, i + 1, 1, 1000, 0);
    push(r, 4.1, 0.1, 10, 0); /* 100 IOPS over 0.1 s */
    ck_assert(!nvb__ss_update(r, w, buf));
    ck_assert(!r->ss.judged); /* four rounds only */
    push(r, 5.1, 1, 1000, 0);
    ck_assert(nvb__ss_update(r, w, buf)); /* five full rounds, the short one skipped */
    ck_assert_double_eq(r->ss.at_s, 5.1);
    nvb_result_free(r);
    nvb_workload_free(w);

    /* latency: the mean of each round; a round without I/O has none */
    w = mk((const char *[]){"engine", "null", "interval", "100ms", "ss", "lat", "ss.window", "300ms", NULL}, NULL);
    r = nvb__result_new();
    nvb__ss_begin(r, w);
    ck_assert_uint_eq(r->ss.rounds, 3);
    ck_assert_double_eq(r->ss.window_s, 0.3); /* the JSON says 0.3, not 3 x 0.1 */
    double b3[3];
    push(r, 0.1, 0.1, 10, 10 * 5000);
    push(r, 0.2, 0.1, 0, 0);
    push(r, 0.3, 0.1, 20, 20 * 5000);
    ck_assert(!nvb__ss_update(r, w, b3));
    ck_assert(r->ss.judged && isnan(r->ss.fig.mean));
    push(r, 0.4, 0.1, 5, 5 * 5100);
    ck_assert(!nvb__ss_update(r, w, b3)); /* the empty round is still in the window */
    push(r, 0.5, 0.1, 7, 7 * 4900);
    ck_assert(nvb__ss_update(r, w, b3));
    ck_assert_double_eq_tol(r->ss.fig.mean, 5000, 1e-9);
    ck_assert_double_eq_tol(r->ss.fig.max_excursion_pct, 4, 1e-9);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* ------------------------------------------------------------ keys */

static void refused(const char *key, const char *value, int err, const char *needle)
{
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    int rc = nvb_workload_set(w, key, value);
    ck_assert_msg(rc == err, "%s=%s: %d (%s)", key, value, rc, nvb_workload_error(w));
    ck_assert_msg(strstr(nvb_workload_error(w), needle), "%s=%s: '%s' lacks '%s'", key, value,
                  nvb_workload_error(w), needle);
    nvb_workload_free(w);
}

static void invalid(const char *const *kv, const char *needle)
{
    struct nvb_workload *w = mk(kv, NULL);
    int rc = nvb_workload_validate(w);
    ck_assert_msg(rc == -EINVAL, "%d: %s", rc, nvb_workload_error(w));
    ck_assert_msg(strstr(nvb_workload_error(w), needle), "'%s' lacks '%s'", nvb_workload_error(w), needle);
    nvb_workload_free(w);
}

START_TEST(keys_checked_and_named)
{
    refused("ss", "iopss", -EINVAL, "off, iops, bw, lat");
    refused("ss.excursion", "150", -ERANGE, "'ss.excursion'");
    refused("ss.slope", "ten", -EINVAL, "'ss.slope'");
    refused("ss.slope", "nan", -EINVAL, "'ss.slope'");
    refused("ss.windw", "5m", -EINVAL, "ss.window");
    refused("precondition", "1001", -ERANGE, "'precondition'");
    refused("ss.stop", "maybe", -EINVAL, "'ss.stop'");
    invalid((const char *[]){"engine", "null", "ss.stop", "1", NULL}, "'ss'");
    invalid((const char *[]){"engine", "null", "ss", "bw", "ss.window", "250ms", "interval", "100ms", NULL},
            "at least 3 rounds");
    /* defaults and spellings read back */
    struct nvb_workload *w = NULL;
    char buf[64];
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_ge(nvb_workload_get(w, "ss", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "off");
    ck_assert_int_ge(nvb_workload_get(w, "ss.excursion", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "20");
    ck_assert_int_ge(nvb_workload_get(w, "ss.slope", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "10");
    ck_assert_int_ge(nvb_workload_get(w, "precondition", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "0");
    ck_assert_int_eq(nvb_workload_set(w, "ss.excursion", "12.5%"), 0);
    ck_assert_int_ge(nvb_workload_get(w, "ss.excursion", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "12.5");
    ck_assert_int_eq(nvb_workload_set(w, "ss.window", "5m"), 0);
    ck_assert_int_ge(nvb_workload_get(w, "ss.window", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "300s");
    nvb_workload_free(w);
}
END_TEST

/* ------------------------------------------------------------ precondition */

#define file_of tu_scratch

/* precondition=2 writes each region twice, before and outside the figures. */
START_TEST(precondition_writes_every_region_n_times)
{
    char *a = file_of("pre-a", 1u << 20), *b = file_of("pre-b", 2u << 20);
    const char *tg[] = {a, b, NULL};
    for (int e = -1; e < g_nengines; e++) {
        const char *eng = e < 0 ? "null" : g_engines[e];
        struct nvb_workload *w = mk((const char *[]){"engine", eng, "rw", "randread", "qd", "4", "jobs", "3",
                                                     "ios", "300", "precondition", "2", NULL}, tg);
        struct nvb_result *r = tu_run_ok(w);
        ck_assert_uint_eq(r->pre.passes, 2);
        ck_assert_uint_eq((uint64_t)tu_get(r, "precondition.passes"), 2);
        ck_assert_uint_eq((uint64_t)tu_get(r, "precondition.bs"), 128u << 10);
        ck_assert_uint_eq((uint64_t)tu_get(r, "precondition.qd"), r->qd_effective);
        /* bytes written by the phase: twice each region */
        ck_assert_msg((uint64_t)tu_get(r, "precondition.bytes") == 2ull * (3u << 20), "%s: %.0f", eng,
                      tu_get(r, "precondition.bytes"));
        ck_assert(tu_get(r, "precondition.duration_s") >= 0);
        /* the figures are the measured workload's alone */
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 300);
        ck_assert_uint_eq(nvb_result_bytes(r, NVB_READ), 300ull * 4096);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 0);
        ck_assert_uint_eq(nvb_result_bytes(r, NVB_WRITE), 0);
        ck_assert_uint_eq(r->tg[0].d[NVB_WRITE].bytes + r->tg[1].d[NVB_WRITE].bytes, 0);
        uint64_t ts = 0;
        for (unsigned i = 0; i < r->nts; i++)
            ts += r->ts[i].ios[0] + r->ts[i].ios[1];
        ck_assert_uint_eq(ts, 300); /* the series too */
        ck_assert(r->ss.metric == NVB__SS_OFF);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    /* a write workload: its own writes only, the precondition's apart */
    struct nvb_workload *w = mk((const char *[]){"engine", g_nengines ? g_engines[0] : "null", "rw", "write",
                                                 "bs", "64k", "io_limit", "1M", "precondition", "1", NULL}, tg);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(nvb_result_bytes(r, NVB_WRITE), 1u << 20);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 16);
    ck_assert_uint_eq(r->pre.bytes, 3u << 20);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
}
END_TEST

/* A region that is not a multiple of the precondition's block size: the
 * tail is said to be left out; a region below 128 KiB gets whole blocks of
 * bs. */
START_TEST(precondition_block_size_and_tail)
{
    char *a = file_of("pre-tail", (1u << 20) + (64u << 10));
    const char *tg[] = {a, NULL};
    struct nvb_workload *w = mk((const char *[]){"rw", "randread", "ios", "10", "precondition", "1", NULL}, tg);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(r->pre.bytes, 1u << 20);
    int said = 0;
    for (unsigned i = 0; i < r->nwarn; i++)
        said |= strstr(r->warn[i], "precondition: the last 65536 bytes") != NULL;
    ck_assert(said);
    nvb_result_free(r);
    nvb_workload_free(w);
    w = mk((const char *[]){"rw", "randread", "ios", "10", "precondition", "3", "size", "96k", NULL}, tg);
    r = tu_run_ok(w);
    ck_assert_uint_eq(r->pre.bs, 96u << 10);
    ck_assert_uint_eq(r->pre.bytes, 3 * (96u << 10));
    nvb_result_free(r);
    nvb_workload_free(w);
    /* bs above 128 KiB: the precondition writes with bs */
    w = mk((const char *[]){"rw", "read", "bs", "256k", "ios", "2", "precondition", "1", "size", "1M", NULL}, tg);
    r = tu_run_ok(w);
    ck_assert_uint_eq(r->pre.bs, 256u << 10);
    ck_assert_uint_eq(r->pre.bytes, 1u << 20);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(a);
    free(a);
}
END_TEST

/* Every block of the region was written: with verify=1 the precondition
 * writes verify blocks, and reading the whole region checks out, where
 * the same read without it finds the file's random bytes. */
START_TEST(precondition_covers_the_whole_region)
{
    if (!g_nengines)
        tu_skip("no engine doing real I/O works here");
    for (int e = 0; e < g_nengines; e++) {
        const char *eng = g_engines[e];
        char *a = file_of("pre-verify", 2u << 20); /* random bytes again: no verify block in it */
        const char *tg[] = {a, NULL};
        struct nvb_workload *w = mk((const char *[]){"engine", eng, "rw", "read", "verify", "1", "qd", "8",
                                                     "ios", "512", NULL}, tg);
        struct nvb_result *r = NULL;
        nvb_run(w, NULL, &r); /* stops at the first mismatch or not: either way some */
        ck_assert(r && r->verify_mismatches > 0);
        nvb_result_free(r);
        ck_assert_int_eq(nvb_workload_set(w, "precondition", "1"), 0);
        r = tu_run_ok(w);
        ck_assert_uint_eq(r->pre.bs, 4096); /* verify: blocks of bs, each with its header */
        ck_assert_uint_eq(r->pre.bytes, 2u << 20);
        ck_assert_uint_eq(r->verify_checked, 512);
        ck_assert_uint_eq(r->verify_mismatches, 0);
        nvb_result_free(r);
        nvb_workload_free(w);
        unlink(a);
        free(a);
    }
}
END_TEST

/* ------------------------------------------------------------ steady state, end to end */

/* The window the result reports, recomputed from its own time series: the
 * last `rounds` whole rounds ending at t_end. */
static void check_window(const struct nvb_result *r, double t_end)
{
    const double half = (double)r->wl->interval_ns / 2e9;
    double x[16];
    unsigned n = 0, rounds = r->ss.rounds;
    ck_assert_uint_le(rounds, 16);
    for (unsigned i = r->nts; i-- > 0 && n < rounds;) {
        const struct nvb__tsample *s = &r->ts[i];
        if (s->t_s > t_end + 1e-12 || s->dt_s < half)
            continue;
        x[rounds - 1 - n++] = (double)(s->ios[0] + s->ios[1]) / s->dt_s;
    }
    ck_assert_uint_eq(n, rounds);
    double sum = 0, lo = x[0], hi = x[0];
    for (unsigned i = 0; i < n; i++) {
        sum += x[i];
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    double mean = sum / n;
    ck_assert_double_eq_tol(r->ss.fig.mean, mean, 1e-9 * mean);
    ck_assert_double_eq_tol(r->ss.fig.max_excursion_pct, (hi - lo) / mean * 100, 1e-7);
}

/* The loader reads back what the writer wrote: the same JSON again. */
static void check_round_trip(const struct nvb_result *r)
{
    char *json = NULL, *again = NULL;
    struct nvb_result *back = NULL;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_int_eq(nvb_result_from_json(json, &back), 0);
    ck_assert_int_eq(nvb_result_json(back, &again), 0);
    ck_assert_str_eq(json, again);
    free(again);
    free(json);
    nvb_result_free(back);
}

START_TEST(steady_state_stops_the_run)
{
    /* a paced null engine, generous limits: steady soon, whatever the machine does */
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "rw", "randwrite", "runtime", "60s",
                                                 "interval", "100ms", "rate_iops", "20000", "ss", "iops",
                                                 "ss.window", "500ms", "ss.excursion", "100", "ss.slope", "100",
                                                 "ss.stop", "1", NULL}, NULL);
    struct nvb_result *r = tu_run_ok(w); /* ended by steady state: not a cancellation */
    ck_assert(!r->cancelled && !r->err);
    ck_assert(r->ss.reached && r->ss.stopped);
    ck_assert_uint_eq(r->ss.rounds, 5);
    ck_assert_double_eq(tu_get(r, "steady_state.window_s"), 0.5);
    double at = tu_get(r, "steady_state.at_s");
    ck_assert(at <= nvb_result_duration(r) + 1e-9);
    ck_assert(at >= 5 * 0.05); /* five rounds of at least half an interval */
    ck_assert(nvb_result_duration(r) < 60); /* it stopped */
    ck_assert(tu_get(r, "steady_state.max_excursion_pct") <= 100);
    ck_assert(tu_get(r, "steady_state.slope_pct") <= 100);
    check_window(r, r->ss.at_s);
    /* the usual figures are the whole run's */
    ck_assert_uint_eq(nvb_result_bytes(r, NVB_WRITE), nvb_result_ios(r, NVB_WRITE) * 4096);
    char *json = NULL;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"steady_state\":{\"metric\":\"iops\",\"reached\":true,\"stopped\":true"));
    free(json);
    check_round_trip(r);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* The loader refuses what the writer never writes, naming the key. */
static void refused_json(const char *json, const char *from, const char *to, const char *needle)
{
    const char *at = strstr(json, from);
    ck_assert_msg(at, "no '%s' in the JSON", from);
    char *bad = NULL;
    ck_assert_int_ge(asprintf(&bad, "%.*s%s%s", (int)(at - json), json, to, at + strlen(from)), 0);
    struct nvb_result *r = NULL;
    char why[256];
    ck_assert_int_eq(nvb_result_parse(bad, strlen(bad), &r, why, sizeof why), -EINVAL);
    ck_assert_msg(strstr(why, needle), "'%s' lacks '%s'", why, needle);
    free(bad);
}

START_TEST(loader_checks_the_new_objects)
{
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "rw", "randwrite", "size", "1M", "ios", "10",
                                                 "precondition", "1", "ss", "lat", NULL}, NULL);
    struct nvb_result *r = tu_run_ok(w);
    char *json = NULL;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    refused_json(json, "\"passes\":1", "\"passes\":0", "precondition.passes");
    refused_json(json, "\"metric\":\"lat\",\"reached\":false", "\"metric\":\"lag\",\"reached\":false",
                 "steady_state.metric");
    refused_json(json, "\"reached\":false", "\"reached\":true", "steady_state.at_s");
    refused_json(json, "\"steady_state\":{", "\"steady_state\":[],\"x\":{", "'steady_state'");
    /* an older result without them loads, and has neither */
    char *old = strdup(json);
    char *cut = strstr(old, ",\"precondition\":{");
    char *warn = strstr(old, ",\"warnings\":");
    ck_assert(cut && warn && cut < warn);
    memmove(cut, warn, strlen(warn) + 1);
    struct nvb_result *back = NULL;
    ck_assert_int_eq(nvb_result_from_json(old, &back), 0);
    ck_assert(back->pre.passes == 0 && back->ss.metric == NVB__SS_OFF);
    nvb_result_free(back);
    free(old);
    free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* Limits nothing meets: the run goes to its end, and the result reports
 * the last window's figures. Whatever happens, reached implies the limits. */
START_TEST(steady_state_not_reached_reports_the_last_window)
{
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "rw", "randread", "runtime", "1s",
                                                 "interval", "100ms", "ss", "iops", "ss.window", "300ms",
                                                 "ss.excursion", "0", "ss.slope", "0", "ss.stop", "1", NULL},
                                NULL);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert(r->ss.judged);
    if (r->ss.reached) { /* every round the very same IOPS: allowed, and then exactly so */
        ck_assert_double_eq(r->ss.fig.max_excursion_pct, 0);
        check_window(r, r->ss.at_s);
    } else {
        ck_assert(!r->ss.stopped);
        ck_assert(isnan(tu_get(r, "steady_state.at_s")));
        ck_assert(r->ss.fig.max_excursion_pct > 0 || r->ss.fig.slope_pct > 0);
        check_window(r, INFINITY);
    }
    check_round_trip(r);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* A file run: precondition first, then steady state over the measured
 * window only; no figure of the one leaks into the other. */
START_TEST(precondition_then_steady_state_on_a_file)
{
    char *a = file_of("pre-ss", 4u << 20);
    const char *tg[] = {a, NULL};
    struct nvb_workload *w = mk((const char *[]){"rw", "randwrite", "runtime", "30s", "interval", "100ms",
                                                 "precondition", "2", "ss", "bw", "ss.window", "300ms",
                                                 "ss.excursion", "100", "ss.slope", "100", "ss.stop", "1",
                                                 "rate_iops", "2000", NULL}, tg);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(r->pre.bytes, 8u << 20);
    ck_assert(r->ss.reached && r->ss.stopped);
    ck_assert(r->ss.at_s <= r->duration_s + 1e-9);
    ck_assert(r->ss.fig.max_excursion_pct <= 100 && r->ss.fig.slope_pct <= 100);
    uint64_t ts = 0;
    for (unsigned i = 0; i < r->nts; i++)
        ts += r->ts[i].bytes[NVB_WRITE];
    ck_assert_uint_eq(ts, nvb_result_bytes(r, NVB_WRITE));
    ck_assert_uint_eq(nvb_result_bytes(r, NVB_WRITE), nvb_result_ios(r, NVB_WRITE) * 4096);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(a);
    free(a);
}
END_TEST

/* Cancelled during the precondition: the run says so, and measures nothing. */
static int cancel_at_once(const struct nvb_progress *p, void *arg)
{
    int *calls = arg;
    ++*calls;
    ck_assert_double_eq(p->elapsed_s, 0); /* before the measured window */
    ck_assert_double_eq(p->done_fraction, 0);
    return 1;
}

START_TEST(cancel_during_precondition)
{
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "rw", "randread", "runtime", "1s", "size",
                                                 "64G", "precondition", "1000", "qd", "1", "interval",
                                                 "50ms", NULL}, NULL);
    int calls = 0;
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.progress = cancel_at_once;
    o.progress_arg = &calls;
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, &o, &r);
    ck_assert_int_eq(rc, -ECANCELED);
    ck_assert(r->cancelled);
    ck_assert_int_ge(calls, 1);
    ck_assert_ptr_nonnull(strstr(nvb_result_error(r), "precondition"));
    ck_assert(r->pre.bytes < 1000ull * (64ull << 30));
    ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 0);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* ------------------------------------------------------------ the guard (root) */

static char g_loop[64];
static char *g_img;

/* In the parent, around the case: the loop device is detached even when
 * the test fails half-way. */
static void loop_setup(void)
{
    g_img = tu_scratch("pre-loop.img", 16u << 20);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "losetup -f --show '%s' 2>/dev/null", g_img);
    FILE *f = popen(cmd, "r");
    if (!f || !fgets(g_loop, sizeof g_loop, f))
        g_loop[0] = 0;
    if (f)
        pclose(f);
    g_loop[strcspn(g_loop, "\n")] = 0;
}

static void loop_teardown(void)
{
    if (g_loop[0])
        tu_sh("losetup -d %s", g_loop);
    g_loop[0] = 0;
    unlink(g_img);
    free(g_img);
    g_img = NULL;
}

static int run_rc(const char *const *kv, const char *target, char *msg, size_t len)
{
    const char *tg[] = {target, NULL};
    struct nvb_workload *w = mk(kv, tg);
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, NULL, &r);
    snprintf(msg, len, "%s", r ? nvb_result_error(r) : "");
    nvb_result_free(r);
    nvb_workload_free(w);
    return rc;
}

START_TEST(guard_treats_precondition_as_a_write)
{
    ck_assert_msg(g_loop[0], "losetup -f --show %s failed", g_img);
    char msg[1024];
    /* a device without allow_destructive: refused as a write is, and said why */
    int wr = run_rc((const char *[]){"rw", "randwrite", "ios", "8", NULL}, g_loop, msg, sizeof msg);
    ck_assert_int_eq(wr, -EPERM);
    int pre = run_rc((const char *[]){"rw", "randread", "ios", "8", "precondition", "1", NULL}, g_loop, msg,
                     sizeof msg);
    ck_assert_int_eq(pre, wr);
    ck_assert_msg(strstr(msg, "precondition=1") && strstr(msg, "allow_destructive"), "%s", msg);
    ck_assert_int_eq(run_rc((const char *[]){"rw", "randread", "ios", "8", NULL}, g_loop, msg, sizeof msg), 0);
    /* the backing file of a loop device in use: refused as a write is */
    wr = run_rc((const char *[]){"rw", "write", "ios", "8", NULL}, g_img, msg, sizeof msg);
    ck_assert_int_eq(wr, -EBUSY);
    pre = run_rc((const char *[]){"rw", "read", "ios", "8", "precondition", "1", NULL}, g_img, msg, sizeof msg);
    ck_assert_int_eq(pre, -EBUSY);
    ck_assert_msg(strstr(msg, g_loop), "%s", msg);
    /* allowed: it runs, and it took the write hold (O_EXCL on the device),
     * which another holder of the device keeps it from */
    const char *ok[] = {"rw", "randread", "ios", "8", "precondition", "1", "allow_destructive", "1", NULL};
    ck_assert_int_eq(run_rc(ok, g_loop, msg, sizeof msg), 0);
    int fd = open(g_loop, O_RDONLY | O_EXCL);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(run_rc(ok, g_loop, msg, sizeof msg), -EBUSY);
    ck_assert_int_eq(run_rc((const char *[]){"rw", "randread", "ios", "8", NULL}, g_loop, msg, sizeof msg), 0);
    close(fd);
}
END_TEST

int main(void)
{
    for (int i = 0; i < nvb_engine_count(); i++) {
        const char *n = nvb_engine_name(i);
        char why[256];
        if (strcmp(n, "null") && strcmp(n, "nvme") && nvb_engine_probe(n, why, sizeof why) == 0)
            g_engines[g_nengines++] = n;
    }
    Suite *s = suite_create("steady");
    TCase *tc = tcase_create("detector");
    tcase_add_test(tc, judge_steady_series);
    tcase_add_test(tc, judge_trending_series);
    tcase_add_test(tc, judge_noisy_series);
    tcase_add_test(tc, judge_degenerate_series);
    tcase_add_test(tc, judge_matches_an_independent_fit);
    tcase_add_test(tc, rounds_over_a_time_series);
    tcase_add_test(tc, keys_checked_and_named);
    suite_add_tcase(s, tc);
    tc = tcase_create("runs");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, precondition_writes_every_region_n_times);
    tcase_add_test(tc, precondition_block_size_and_tail);
    tcase_add_test(tc, precondition_covers_the_whole_region);
    tcase_add_test(tc, steady_state_stops_the_run);
    tcase_add_test(tc, steady_state_not_reached_reports_the_last_window);
    tcase_add_test(tc, loader_checks_the_new_objects);
    tcase_add_test(tc, precondition_then_steady_state_on_a_file);
    tcase_add_test(tc, cancel_during_precondition);
    suite_add_tcase(s, tc);
    if (tu_is_root() && tu_sh("command -v losetup") == 0) {
        tc = tcase_create("guard");
        tcase_set_timeout(tc, 120);
        tcase_add_unchecked_fixture(tc, loop_setup, loop_teardown);
        tcase_add_test(tc, guard_treats_precondition_as_a_write);
        suite_add_tcase(s, tc);
    } else {
        fprintf(stderr, "note: the guard case needs root and losetup: skipped\n");
    }
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
