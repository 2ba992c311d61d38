/* Results of several hosts: nvb_result_merge() adds exactly (counts, bytes,
 * histograms bucket by bucket, so merged percentiles are those of one
 * histogram fed every sample), nvb_result_from_json() gives back every
 * figure of nvb_result_json(), hostile JSON is refused cleanly, the start
 * barrier is called once on every path, and aligned time series end on
 * wall-clock multiples of the interval. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/internal.h"
#include "platform/platform.h"
#include "testutil.h"

static char *g_file;

static struct nvb_workload *mk(const char *const *kv, const char *target)
{
    const char *targets[] = {target, NULL};
    return tu_workload(kv, targets);
}

static struct nvb_result *run_kv(const char *const *kv, const char *target)
{
    struct nvb_workload *w = mk(kv, target);
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, NULL, &r);
    ck_assert_msg(rc == 0, "run failed %d: %s", rc, r ? nvb_result_error(r) : "");
    nvb_workload_free(w);
    return r;
}

static char *json_of(const struct nvb_result *r)
{
    char *j = NULL;
    ck_assert_int_eq(nvb_result_json(r, &j), 0);
    return j;
}

static struct nvb_result *reload(const struct nvb_result *r)
{
    char *j = json_of(r), why[512];
    struct nvb_result *back = NULL;
    int rc = nvb_result_parse(j, strlen(j), &back, why, sizeof why);
    ck_assert_msg(rc == 0, "reload failed %d: %s", rc, why);
    nvb_free(j);
    return back;
}

static void assert_same_json(const char *a, const char *b, const char *what)
{
    if (strcmp(a, b)) {
        size_t i = 0;
        while (a[i] && a[i] == b[i])
            i++;
        size_t from = i > 80 ? i - 80 : 0;
        ck_abort_msg("%s differs at byte %zu:\n  %.160s\n  %.160s", what, i, a + from, b + from);
    }
}

/* from_json(json(r)) == r for every figure: the same JSON text. */
static void assert_round_trip(const struct nvb_result *r)
{
    char *a = json_of(r);
    struct nvb_result *back = reload(r);
    char *b = json_of(back);
    assert_same_json(a, b, "round trip");
    static const char *const paths[] = {"read.iops", "read.lat_ns.p99", "write.lat_ns.p99.9", "total.iops",
                                        "cpu.cpu_us_per_io", "cpu.process_cores", "duration_s"};
    for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
        double x = -1, y = -2;
        ck_assert_int_eq(nvb_result_get(r, paths[k], &x), 0);
        ck_assert_int_eq(nvb_result_get(back, paths[k], &y), 0);
        ck_assert_msg(x == y || (isnan(x) && isnan(y)), "%s: %.17g vs %.17g", paths[k], x, y); /* null both */
    }
    for (int d = 0; d < 2; d++)
        for (double p = 0; p <= 100; p += 0.5)
            ck_assert(nvb_result_lat_pct(r, d, p) == nvb_result_lat_pct(back, d, p));
    ck_assert_str_eq(nvb_result_host(r), nvb_result_host(back));
    nvb_free(a);
    nvb_free(b);
    nvb_result_free(back);
}

/* ------------------------------------------------------------ synthetic */

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A latency with a long tail: most around 80 us, some ms, a few 100s of ms. */
static uint64_t latency(uint64_t *s)
{
    uint64_t x = rng(s);
    switch (x % 100) {
    case 0: return 50000000 + rng(s) % 400000000;
    case 1: case 2: case 3: return 1000000 + rng(s) % 9000000;
    default: return 20000 + rng(s) % 120000 + (x % 7 == 0 ? rng(s) % 63 : 0);
    }
}

/* A result as one host would report it: nios samples in each direction. */
static struct nvb_result *synth(const char *host, uint64_t seed, uint64_t nios, uint64_t start, double dur,
                                struct nvb__hist *all[2])
{
    struct nvb_result *r = nvb__result_new();
    ck_assert_ptr_nonnull(r);
    snprintf(r->engine, sizeof r->engine, "null");
    snprintf(r->host, sizeof r->host, "%s", host);
    r->start_wall_ns = start;
    r->duration_s = dur;
    r->end_wall_ns = start + (uint64_t)llround(dur * 1e9);
    r->first_done_wall_ns = r->end_wall_ns - 1000;
    r->ncpus_online = 4;
    r->system_pct = 40;
    r->user_pct = 10;
    r->sys_pct = 25;
    r->irq_pct = 5;
    r->idle_pct = 60;
    r->cpu_valid = 1;
    r->process_user_s = 0.25 * dur;
    r->process_sys_s = 0.5 * dur;
    r->cpu_window_s = dur;
    uint64_t s = seed;
    for (int d = 0; d < 2; d++) {
        r->tot[d].hist = malloc(sizeof(struct nvb__hist));
        nvb__hist_init(r->tot[d].hist);
        for (uint64_t i = 0; i < nios + (uint64_t)d * 7; i++) {
            uint64_t l = latency(&s);
            nvb__hist_add(r->tot[d].hist, l);
            nvb__hist_add(all[d], l);
        }
        r->tot[d].ios = r->tot[d].hist->count;
        r->tot[d].bytes = r->tot[d].ios * 4096;
    }
    r->errors = seed % 5;
    r->by_errno[EIO] = r->errors;
    r->errors_dir[1] = r->errors;
    r->verify_checked = 10 * seed;
    return r;
}

/* Every counter of the meter sums through a merge (the maxima take the
 * larger): the merge adds the meter as one, so a counter added to its list
 * is merged without being named here. */
START_TEST(every_meter_counter_merges)
{
    struct nvb__hist *all[2] = {malloc(sizeof(struct nvb__hist)), malloc(sizeof(struct nvb__hist))};
    nvb__hist_init(all[0]);
    nvb__hist_init(all[1]);
    struct nvb_result *p[2] = {synth("a", 3, 100, 1000000000ull, 1.0, all),
                               synth("b", 4, 100, 1000000000ull, 1.0, all)};
    const size_t nw = offsetof(struct nvb__meter, sub.batch_max) / sizeof(uint64_t);
    const size_t skip = offsetof(struct nvb__meter, sub.gap_sq) / sizeof(uint64_t);
    const size_t maxw[3] = {offsetof(struct nvb__meter, sub.lag_max) / 8, offsetof(struct nvb__meter, sub.late_max) / 8,
                            offsetof(struct nvb__meter, sub.qfull_max) / 8};
    for (int k = 0; k < 2; k++) {
        uint64_t *w = (uint64_t *)&p[k]->meter;
        for (size_t i = 0; i < nw; i++)
            if (i != skip)
                w[i] = (uint64_t)(i + 1) * (k ? 1000 : 1) + (uint64_t)k * 7;
    }
    struct nvb_result *m = NULL;
    ck_assert_int_eq(nvb_result_merge(&m, (const struct nvb_result *const *)p, 2), 0);
    const uint64_t *a = (const uint64_t *)&p[0]->meter, *b = (const uint64_t *)&p[1]->meter,
                   *w = (const uint64_t *)&m->meter;
    for (size_t i = 0; i < nw; i++) {
        if (i == skip)
            continue;
        const int is_max = i == maxw[0] || i == maxw[1] || i == maxw[2];
        const uint64_t want = is_max ? (a[i] > b[i] ? a[i] : b[i]) : a[i] + b[i];
        ck_assert_msg(w[i] == want, "meter word %zu: %llu, expected %llu", i, (unsigned long long)w[i],
                      (unsigned long long)want);
    }
    nvb_result_free(m);
    nvb_result_free(p[0]);
    nvb_result_free(p[1]);
    free(all[0]);
    free(all[1]);
}
END_TEST

/* The clock a result's time stamps read goes through the JSON and a
 * merge: one clock stays named, two make "mixed", an unknown one unknown. */
START_TEST(clock_source_through_json_and_merge)
{
    static const char *const cases[][3] = {
        {"tsc", "tsc", "tsc"}, {"tsc", "clock_monotonic", "mixed"}, {"clock_monotonic", "", ""}};
    for (int k = 0; k < 3; k++) {
        struct nvb__hist *all[2] = {malloc(sizeof(struct nvb__hist)), malloc(sizeof(struct nvb__hist))};
        nvb__hist_init(all[0]);
        nvb__hist_init(all[1]);
        struct nvb_result *p[2] = {synth("a", 3, 50, 1000000000ull, 1.0, all), synth("b", 4, 50, 1000000000ull, 1.0, all)};
        for (int i = 0; i < 2; i++)
            snprintf(p[i]->clock_source, sizeof p[i]->clock_source, "%s", cases[k][i]);
        struct nvb_result *back = reload(p[0]);
        ck_assert_str_eq(back->clock_source, cases[k][0]);
        nvb_result_free(back);
        struct nvb_result *m = NULL;
        ck_assert_int_eq(nvb_result_merge(&m, (const struct nvb_result *const *)p, 2), 0);
        ck_assert_str_eq(m->clock_source, cases[k][2]);
        nvb_result_free(m);
        nvb_result_free(p[0]);
        nvb_result_free(p[1]);
        free(all[0]);
        free(all[1]);
    }
}
END_TEST

START_TEST(merged_percentiles_equal_one_histogram)
{
    const unsigned n = 7;
    struct nvb__hist *all[2];
    for (int d = 0; d < 2; d++) {
        all[d] = malloc(sizeof *all[d]);
        nvb__hist_init(all[d]);
    }
    struct nvb_result *parts[7];
    uint64_t t0 = 1796000000000000000ull, ios = 0, bytes = 0, errors = 0;
    for (unsigned i = 0; i < n; i++) {
        char host[32];
        snprintf(host, sizeof host, "node%u", i);
        /* hosts start up to 3 ms apart and last different times */
        parts[i] = synth(host, 1000 + i, 5000 + 1731 * i, t0 + i * 500000, 2.0 + 0.01 * i, all);
        ios += parts[i]->tot[0].ios + parts[i]->tot[1].ios;
        bytes += parts[i]->tot[0].bytes + parts[i]->tot[1].bytes;
        errors += parts[i]->errors;
    }
    struct nvb_result *m = NULL;
    ck_assert_int_eq(nvb_result_merge(&m, (const struct nvb_result *const *)parts, n), 0);
    for (int d = 0; d < 2; d++) {
        /* bucket for bucket the histogram of every sample */
        const struct nvb__hist *h = m->tot[d].hist;
        ck_assert_ptr_nonnull(h);
        ck_assert_uint_eq(h->count, all[d]->count);
        ck_assert_uint_eq(h->sum, all[d]->sum);
        ck_assert_uint_eq(h->min, all[d]->min);
        ck_assert_uint_eq(h->max, all[d]->max);
        ck_assert(memcmp(h->buckets, all[d]->buckets, sizeof h->buckets) == 0);
        for (double p = 0; p <= 100; p += 0.125)
            ck_assert_msg(nvb_result_lat_pct(m, d, p) == nvb__hist_pct(all[d], p), "p%g", p);
        ck_assert(nvb_result_lat_pct(m, d, 99.999) == nvb__hist_pct(all[d], 99.999));
        ck_assert(fabs(nvb_result_lat_mean(m, d) - nvb__hist_mean(all[d])) < 1e-6);
    }
    ck_assert_uint_eq(nvb_result_ios(m, 0) + nvb_result_ios(m, 1), ios);
    ck_assert_uint_eq(nvb_result_bytes(m, 0) + nvb_result_bytes(m, 1), bytes);
    ck_assert_uint_eq(nvb_result_errors(m), errors);
    ck_assert_uint_eq(m->by_errno[EIO], errors);
    ck_assert_uint_eq(m->errors_dir[1], errors);
    /* the window: earliest start to latest end, and IOPS over it */
    uint64_t end = t0 + 6 * 500000 + (uint64_t)llround(2.06 * 1e9);
    ck_assert_uint_eq(m->start_wall_ns, t0);
    ck_assert_uint_eq(m->end_wall_ns, end);
    ck_assert(fabs(nvb_result_duration(m) - (double)(end - t0) / 1e9) < 1e-12);
    double iops = -1;
    ck_assert_int_eq(nvb_result_get(m, "total.iops", &iops), 0);
    ck_assert(fabs(iops - (double)ios / nvb_result_duration(m)) <= 1e-9 * iops);
    /* CPU: seconds and cores add; per I/O over every I/O */
    double cores = 0, usio = 0, busy = 0;
    ck_assert_int_eq(nvb_result_get(m, "cpu.process_cores", &cores), 0);
    ck_assert(fabs(cores - 0.75 * n) < 1e-9);
    ck_assert_int_eq(nvb_result_get(m, "cpu.cpu_us_per_io", &usio), 0);
    double cpu_s = 0;
    for (unsigned i = 0; i < n; i++)
        cpu_s += parts[i]->process_user_s + parts[i]->process_sys_s;
    ck_assert(fabs(usio - cpu_s * 1e6 / (double)ios) < 1e-6);
    ck_assert_int_eq(nvb_result_get(m, "cpu.system_pct", &busy), 0);
    ck_assert(fabs(busy - 40) < 1e-9);
    ck_assert_int_eq(nvb_result_get(m, "cpu.ncpus", &busy), 0);
    ck_assert(busy == 4.0 * n);
    /* one row per host, with its own figures */
    ck_assert_uint_eq(m->nhosts, n);
    for (unsigned i = 0; i < n; i++) {
        char path[64];
        double v;
        ck_assert_str_eq(m->hosts[i].host, parts[i]->host);
        snprintf(path, sizeof path, "hosts.%u.read.ios", i);
        ck_assert_int_eq(nvb_result_get(m, path, &v), 0);
        ck_assert(v == (double)parts[i]->tot[0].ios);
        snprintf(path, sizeof path, "hosts.%u.read.lat_p99_ns", i);
        ck_assert_int_eq(nvb_result_get(m, path, &v), 0);
        ck_assert(v == nvb_result_lat_pct(parts[i], 0, 99));
        snprintf(path, sizeof path, "hosts.%u.last_done_s", i);
        ck_assert_int_eq(nvb_result_get(m, path, &v), 0);
        ck_assert(fabs(v - (i * 0.0005 + 2.0 + 0.01 * i)) < 1e-9);
    }
    ck_assert_str_eq(nvb_result_host(m), "");
    assert_round_trip(m);

    /* associative: ((0..2) + (3..6)) gives the same JSON as (0..6) */
    struct nvb_result *a = NULL, *b = NULL, *ab = NULL;
    ck_assert_int_eq(nvb_result_merge(&a, (const struct nvb_result *const *)parts, 3), 0);
    ck_assert_int_eq(nvb_result_merge(&b, (const struct nvb_result *const *)parts + 3, 4), 0);
    const struct nvb_result *two[2] = {a, b};
    ck_assert_int_eq(nvb_result_merge(&ab, two, 2), 0);
    char *j1 = json_of(m), *j2 = json_of(ab);
    assert_same_json(j1, j2, "merge of merges");
    nvb_free(j1);
    nvb_free(j2);
    nvb_result_free(a);
    nvb_result_free(b);
    nvb_result_free(ab);
    nvb_result_free(m);
    for (unsigned i = 0; i < n; i++)
        nvb_result_free(parts[i]);
    free(all[0]);
    free(all[1]);
}
END_TEST

/* --------------------------------------------------------------- real runs */

START_TEST(merge_real_runs_exactly)
{
    /* four "ranks" of the null engine, each its own I/O count, and the same
     * after a trip through JSON (what MPI ranks send) */
    static const char *const ios[] = {"3001", "2000", "4567", "1"};
    struct nvb_result *parts[4], *loaded[4];
    uint64_t sum_ios = 0, sum_bytes = 0;
    for (int i = 0; i < 4; i++) {
        char seed[16];
        snprintf(seed, sizeof seed, "%d", 17 + i);
        parts[i] = run_kv((const char *[]){"engine", "null", "rw", "randrw", "bs", "8k", "qd", "4", "jobs", "2",
                                           "ios", ios[i], "seed", seed, NULL}, NULL);
        loaded[i] = reload(parts[i]);
        sum_ios += nvb_result_ios(parts[i], 0) + nvb_result_ios(parts[i], 1);
        sum_bytes += nvb_result_bytes(parts[i], 0) + nvb_result_bytes(parts[i], 1);
    }
    ck_assert_uint_eq(sum_ios, 3001 + 2000 + 4567 + 1);
    struct nvb_result *m = NULL, *ml = NULL;
    ck_assert_int_eq(nvb_result_merge(&m, (const struct nvb_result *const *)parts, 4), 0);
    ck_assert_int_eq(nvb_result_merge(&ml, (const struct nvb_result *const *)loaded, 4), 0);
    ck_assert_uint_eq(nvb_result_ios(m, 0) + nvb_result_ios(m, 1), sum_ios);
    ck_assert_uint_eq(nvb_result_bytes(m, 0) + nvb_result_bytes(m, 1), sum_bytes);
    for (int d = 0; d < 2; d++) {
        struct nvb__hist h;
        nvb__hist_init(&h);
        for (int i = 0; i < 4; i++)
            if (parts[i]->tot[d].hist)
                nvb__hist_merge(&h, parts[i]->tot[d].hist);
        ck_assert(memcmp(h.buckets, m->tot[d].hist->buckets, sizeof h.buckets) == 0);
        for (double p = 0; p <= 100; p += 0.25)
            ck_assert(nvb_result_lat_pct(m, d, p) == nvb__hist_pct(&h, p));
    }
    /* per_target concatenated, each with its host */
    ck_assert_uint_eq(m->ntargets, 4);
    double v;
    ck_assert_int_eq(nvb_result_get(m, "per_target.2.read.ios", &v), 0);
    ck_assert(v == (double)nvb_result_ios(parts[2], 0));
    /* the time series adds up to the totals */
    uint64_t ts_ios = 0;
    for (unsigned k = 0; k < m->nts; k++)
        ts_ios += m->ts[k].ios[0] + m->ts[k].ios[1];
    ck_assert_uint_eq(ts_ios, sum_ios);
    /* the JSON trip changes nothing */
    char *a = json_of(m), *b = json_of(ml);
    assert_same_json(a, b, "merge of loaded results");
    nvb_free(a);
    nvb_free(b);
    assert_round_trip(m);
    nvb_result_free(m);
    nvb_result_free(ml);
    for (int i = 0; i < 4; i++) {
        nvb_result_free(parts[i]);
        nvb_result_free(loaded[i]);
    }
}
END_TEST

START_TEST(round_trip_every_figure)
{
    /* a file run with a time series, two targets, injected errors counted
     * by errno, and verification: every section of the JSON populated */
    char *t2 = tu_scratch("merge-b", 4u << 20);
    struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randrw", "bs", "4k", "direct", "0",
                                                 "runtime", "250ms", "interval", "50ms", "jobs", "2",
                                                 "fault.rate", "0.01", "continue_on_error", "1", NULL}, g_file);
    ck_assert_int_eq(nvb_workload_add_target(w, t2), 0);
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, NULL, &r);
    ck_assert_msg(rc == 0, "%d %s", rc, nvb_result_error(r));
    ck_assert_uint_gt(r->nts, 2);
    ck_assert_uint_gt(r->errors, 0);
    assert_round_trip(r);
    nvb_result_free(r);
    nvb_workload_free(w);

    /* verify=1 and a write run */
    r = run_kv((const char *[]){"engine", "psync", "rw", "randwrite", "bs", "4k", "direct", "0", "ios", "500",
                                "verify", "1", NULL}, g_file);
    assert_round_trip(r);
    nvb_result_free(r);
    /* a failed run, a cancelled one */
    w = mk((const char *[]){"engine", "psync", NULL}, "/nonexistent/nvbench/target");
    ck_assert_int_lt(nvb_run(w, NULL, &r), 0);
    ck_assert_ptr_nonnull(r);
    assert_round_trip(r);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(t2);
    free(t2);
}
END_TEST

/* ------------------------------------------------------------ hostile */

static void refuse(const char *text, size_t len, const char *what)
{
    struct nvb_result *r = (struct nvb_result *)1;
    char why[512] = "x";
    int rc = nvb_result_parse(text, len, &r, why, sizeof why);
    ck_assert_msg(rc == -EINVAL, "%s: accepted or wrong error (%d)", what, rc);
    ck_assert_msg(r == NULL, "%s: *out not NULL", what);
    ck_assert_msg(why[0] && strcmp(why, "x"), "%s: no reason given", what);
}

/* s with its first `from` replaced by `to` (malloc'd); the test fails when
 * there is no `from`. */
static char *replaced(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    ck_assert_msg(at, "no '%s' in the result", from);
    size_t pre = (size_t)(at - s), ol = strlen(from), nl = strlen(to);
    char *t = malloc(strlen(s) + nl + 1);
    ck_assert_ptr_nonnull(t);
    memcpy(t, s, pre);
    memcpy(t + pre, to, nl);
    strcpy(t + pre + nl, at + ol);
    return t;
}

START_TEST(hostile_json_refused)
{
    static const char *const bad[] = {
        "", " ", "{", "}", "[", "nul", "tru", "01", "-", "1.", ".5", "1e", "+1", "NaN", "Infinity",
        "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00x\"", "\"\\u0000\"", "\"a\nb\"", "\"\xff\"",
        "\"\xc0\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"abc", "{\"a\" 1}", "{\"a\":1,}",
        "[1,]", "[1 2]", "{1:2}", "{\"a\":1,\"a\":2}", "{} x", "{}{}", "[]", "42", "\"str\"", "null",
        "{\"schema\":\"nvbench.result/2\"}", "{\"schema\":1}", "{\"schema\":\"nvbench.result/1\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refuse(bad[i], strlen(bad[i]), bad[i]);
    refuse("{\"a\":\0}", 7, "NUL byte");
    ck_assert_int_eq(nvb_result_from_json(NULL, NULL), -EINVAL);

    /* nesting far deeper than the limit: refused, not a stack overflow */
    size_t deep = 1000000;
    char *d = malloc(2 * deep + 1);
    memset(d, '[', deep);
    memset(d + deep, ']', deep);
    d[2 * deep] = 0;
    refuse(d, 2 * deep, "deep nesting");
    free(d);

    /* a valid result, then broken in the figures it carries */
    struct nvb_result *r = run_kv((const char *[]){"engine", "null", "rw", "randrw", "ios", "3000", NULL}, NULL);
    char *good = json_of(r);
    nvb_result_free(r);
    struct nvb_result *ok = NULL;
    ck_assert_int_eq(nvb_result_from_json(good, &ok), 0);
    nvb_result_free(ok);
    static const char *const edits[][2] = {
        {"\"sub_bits\":6", "\"sub_bits\":7"},          /* another geometry */
        {"\"buckets\":[[", "\"buckets\":[[99999,1],["}, /* index out of range */
        {"\"read\":{\"ios\":", "\"read\":{\"ios\":-"},    /* negative count */
        {"\"read\":{\"ios\":", "\"read\":{\"ios\":1e3,\"x\":"}, /* count as a float */
        {"\"count\":", "\"count\":1"},                  /* buckets do not add up */
        {"\"engine\":\"null\"", "\"engine\":\"an engine name far longer than the field it goes to\""},
        {"\"per_target\":[", "\"per_target\":[7,"},
        {"\"timeseries\":[", "\"timeseries\":[{}"},
        {"\"cpu\":{", "\"cpu\":{\"ncpus\":1,"},         /* duplicate key */
        {"\"error\":null", "\"error\":{\"errno\":0,\"name\":\"E0\",\"message\":\"\"}"},
        {"\"by_errno\":{}", "\"by_errno\":{\"ENOTANERRNO\":1}"},
        {"\"duration_s\":", "\"duration_s\":-"},
        {"\"min\":", "\"min\":18446744073709551616,\"y\":"},  /* 2^64 */
        {"{\"schema\"", "{\"schema\":\"nvbench.result/1\",\"schema\""},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char *t = replaced(good, edits[i][0], edits[i][1]);
        refuse(t, strlen(t), edits[i][1]);
        free(t);
    }
    /* every prefix of a valid result is refused (a truncated message) */
    size_t len = strlen(good);
    for (size_t n = 0; n + 1 < len; n += (n < 4096 ? 1 : 97))
        refuse(good, n, "prefix");
    /* random damage: refused cleanly or, when still valid, usable */
    uint64_t s = 0x1234567;
    char *t = malloc(len + 1);
    for (int k = 0; k < 3000; k++) {
        memcpy(t, good, len + 1);
        for (int e = 0; e < 1 + (int)(rng(&s) % 4); e++)
            t[rng(&s) % len] = (char)(rng(&s) % 256);
        struct nvb_result *x = NULL;
        char why[256];
        int rc = nvb_result_parse(t, len, &x, why, sizeof why);
        ck_assert_msg(rc == 0 || rc == -EINVAL, "damaged input: %d", rc);
        if (rc == 0) {
            char *j = json_of(x);
            nvb_free(j);
            nvb_result_free(x);
        } else {
            ck_assert(why[0]);
        }
    }
    free(t);
    nvb_free(good);
}
END_TEST

/* ------------------------------------------------------------ exact sums */

/* A part whose reads are n latencies near 2^62 ns (the latency sum passes
 * 2^64 after four, the sum of squares 2^128), also added to all. */
static struct nvb_result *huge_part(const char *host, unsigned n, uint64_t start, struct nvb__hist *all[2])
{
    struct nvb__hist *scratch[2] = {all[1], all[1]};
    struct nvb_result *r = synth(host, 77, 10, start, 1.0, scratch);
    nvb__hist_init(r->tot[0].hist);
    for (unsigned i = 0; i < n; i++) {
        uint64_t v = (UINT64_C(1) << 62) + i * 1000003u;
        nvb__hist_add(r->tot[0].hist, v);
        nvb__hist_add(all[0], v);
    }
    r->tot[0].ios = n;
    r->tot[0].bytes = 4096ull * n;
    return r;
}

START_TEST(exact_sums_through_merge_and_json)
{
    struct nvb__hist *all[2];
    for (int d = 0; d < 2; d++) {
        all[d] = malloc(sizeof *all[d]);
        nvb__hist_init(all[d]);
    }
    struct nvb_result *parts[3], *loaded[3], *m = NULL, *ml = NULL;
    for (int i = 0; i < 3; i++) {
        parts[i] = huge_part(i ? "b" : "a", 5 + 3 * (unsigned)i, 1796000000000000000ull + (uint64_t)i, all);
        loaded[i] = reload(parts[i]);
        assert_round_trip(parts[i]);
    }
    ck_assert_int_eq(nvb_result_merge(&m, (const struct nvb_result *const *)parts, 3), 0);
    ck_assert_int_eq(nvb_result_merge(&ml, (const struct nvb_result *const *)loaded, 3), 0);
    const struct nvb__hist *h = ml->tot[0].hist;
    ck_assert(h->sum == all[0]->sum && h->sum > UINT64_MAX);
    ck_assert(h->sumsq == all[0]->sumsq && h->sumsq_hi == all[0]->sumsq_hi && h->sumsq_hi > 0);
    ck_assert(!h->sumsq_rounded);
    double sd = -1;
    ck_assert_int_eq(nvb_result_get(ml, "read.lat_ns.stddev", &sd), 0);
    ck_assert_double_eq(sd, nvb__hist_stddev(all[0]));
    char *a = json_of(m), *b = json_of(ml);
    assert_same_json(a, b, "merge of loaded results");
    /* the sum a number, the sum of squares a string of digits */
    char want[160], digits[96];
    const uint64_t sw[2] = {(uint64_t)h->sum, (uint64_t)(h->sum >> 64)};
    snprintf(want, sizeof want, "\"sum\":%s,", nvb__wide_to_dec(sw, 2, digits, sizeof digits));
    ck_assert_msg(strstr(a, want), "no %s", want);
    ck_assert_ptr_nonnull(strstr(a, "\"sumsq\":\""));
    assert_round_trip(m);
    nvb_free(a);
    nvb_free(b);
    nvb_result_free(ml);
    /* a count past 2^64 - 1 is refused, never wrapped */
    parts[1]->tot[0].hist->count = UINT64_MAX - 3;
    ml = (struct nvb_result *)1;
    ck_assert_int_eq(nvb_result_merge(&ml, (const struct nvb_result *const *)parts, 3), -EOVERFLOW);
    ck_assert_ptr_null(ml);
    nvb_result_free(m);
    for (int i = 0; i < 3; i++) {
        nvb_result_free(parts[i]);
        nvb_result_free(loaded[i]);
    }
    free(all[0]);
    free(all[1]);
}
END_TEST

/* The first read.lat_hist.sumsq of a result's JSON, key and value. */
static const char *sumsq_of(const char *json, char *buf, size_t len)
{
    const char *at = strstr(json, "\"sumsq\":\"");
    ck_assert_ptr_nonnull(at);
    snprintf(buf, len, "%.*s", (int)(strchr(at + 9, '"') + 1 - at), at);
    return buf;
}

START_TEST(older_sums_still_load)
{
    struct nvb_result *r = run_kv((const char *[]){"engine", "null", "rw", "read", "ios", "3000", NULL}, NULL);
    const struct nvb__hist *h = r->tot[0].hist;
    char *good = json_of(r), num[96], buf[128];
    /* results before the exact sums wrote the sum of squares as a number:
     * exact below 2^53 ... */
    const uint64_t qw[3] = {(uint64_t)h->sumsq, (uint64_t)(h->sumsq >> 64), h->sumsq_hi};
    ck_assert(h->sumsq < ((unsigned __int128)1 << 53) && !h->sumsq_hi);
    snprintf(buf, sizeof buf, "\"sumsq\":%s", nvb__wide_to_dec(qw, 3, num, sizeof num));
    char sq[128], *old = replaced(good, sumsq_of(good, sq, sizeof sq), buf);
    struct nvb_result *x = NULL;
    ck_assert_int_eq(nvb_result_from_json(old, &x), 0);
    ck_assert(!x->tot[0].hist->sumsq_rounded && x->tot[0].hist->sumsq == h->sumsq);
    char *again = json_of(x);
    assert_same_json(good, again, "an older exact sumsq");
    nvb_free(again);
    nvb_result_free(x);
    free(old);
    /* ... rounded above: loaded, kept as it was, its stddev approximate */
    old = replaced(good, sq, "\"sumsq\":1.2345678901234567e+20");
    ck_assert_int_eq(nvb_result_from_json(old, &x), 0);
    ck_assert(x->tot[0].hist->sumsq_rounded);
    again = json_of(x);
    ck_assert_ptr_nonnull(strstr(again, "\"sumsq\":1.2345678901234567e+20"));
    nvb_free(again);
    nvb_result_free(x);
    free(old);
    nvb_free(good);
    nvb_result_free(r);
}
END_TEST

/* Broken in one place, a result is refused with the path of that place. */
START_TEST(refusal_names_the_place)
{
    struct nvb_result *r = run_kv((const char *[]){"engine", "null", "rw", "randrw", "ios", "3000", NULL}, NULL);
    char *good = json_of(r);
    nvb_result_free(r);
    char many[64 * 3 + 32] = "\"first_mismatches\":[", sq[128];
    for (int i = 0; i < 64; i++)
        strcat(many, i ? ",{}" : "{}");
    strcat(many, "]");
    sumsq_of(good, sq, sizeof sq);
    const char *const edits[][3] = {
        /* latency sums that do not fit, or cannot belong to the histogram */
        {"\"sum\":", "\"sum\":340282366920938463463374607431768211456,\"x\":", "'read.lat_hist.sum': does not fit"},
        {"\"sum\":", "\"sum\":1000000000000000000000000,\"x\":", "'read.lat_hist': sum / count is outside"},
        {sq, "\"sumsq\":\"1\"", "'read.lat_hist': sumsq is outside"},
        {sq, "\"sumsq\":\"12a\"", "'read.lat_hist.sumsq': expected a non-negative integer"},
        {"\"lat_sum_ns\":", "\"lat_sum_ns\":99999999999999999999999999999999,\"x\":", "'timeseries.0.read.lat_sum_ns'"},
        {"\"per_target\":[", "\"per_target\":[7,", "'per_target.0': expected an object"},
        {"\"timeseries\":[", "\"timeseries\":[[],", "'timeseries.0': expected an object"},
        {"\"threads\":[", "\"threads\":[\"t\",", "'cpu.threads.0': expected an object"},
        {"\"warnings\":[", "\"warnings\":[1],\"x\":[", "'warnings': expected strings"},
        {"\"error\":null", "\"error\":7", "'error': expected null or an object"},
        {"\"device\":null", "\"device\":[]", "'per_target.0.device': expected null or an object"},
        {"\"engine_used\":{", "\"engine_used\":7,\"x\":{", "'engine_used': expected an object"},
        {"\"first_mismatches\":[]", many, "'verify.first_mismatches': too many entries"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char *t = replaced(good, edits[i][0], edits[i][1]), why[512] = "";
        struct nvb_result *x = NULL;
        ck_assert_int_eq(nvb_result_parse(t, strlen(t), &x, why, sizeof why), -EINVAL);
        ck_assert_msg(strstr(why, edits[i][2]), "'%s': '%s' does not say '%s'", edits[i][1], why, edits[i][2]);
        free(t);
    }
    nvb_free(good);
}
END_TEST

/* A bad interval histogram in the write direction of a point whose read
 * one was read already: refused with its place, nothing leaked (the
 * sanitizer build checks that), and a point without them loads as unknown. */
START_TEST(interval_histograms_refused_or_unknown)
{
    struct nvb_result *r = run_kv((const char *[]){"engine", "null", "rw", "randrw", "ios", "3000", NULL}, NULL);
    char *good = json_of(r);
    nvb_result_free(r);
    const char *key = "\"lat_hist\":{\"count\":";
    const char *first = strstr(good, key);
    ck_assert_ptr_nonnull(first);
    const char *second = strstr(first + 1, key); /* timeseries.0.write */
    ck_assert_ptr_nonnull(second);
    char *t = replaced(second, key, "\"lat_hist\":{\"count\":1,\"buckets\":[[3,1],[2,1]]},\"y\":{\"count\":");
    size_t pre = (size_t)(second - good);
    char *whole = malloc(pre + strlen(t) + 1);
    ck_assert_ptr_nonnull(whole);
    memcpy(whole, good, pre);
    strcpy(whole + pre, t);
    char why[512] = "";
    struct nvb_result *x = NULL;
    ck_assert_int_eq(nvb_result_parse(whole, strlen(whole), &x, why, sizeof why), -EINVAL);
    ck_assert_msg(strstr(why, "timeseries.0.write.lat_hist.buckets") && strstr(why, "must ascend"), "%s", why);
    free(t);
    free(whole);
    /* null: not measured; its point's percentiles are null when written back */
    t = replaced(good, "\"lat_hist\":{\"count\":", "\"lat_hist\":null,\"y\":{\"count\":");
    int rc = nvb_result_parse(t, strlen(t), &x, why, sizeof why);
    free(t);
    nvb_free(good);
    ck_assert_int_eq(rc, 0);
    char *back = json_of(x);
    nvb_result_free(x);
    ck_assert_ptr_nonnull(strstr(back, "\"p99\":null,\"p99.9\":null,\"lat_hist\":null"));
    nvb_free(back);
}
END_TEST

/* ------------------------------------------------------------ barrier */

struct bar {
    int calls, status, ret;
    uint64_t wall;
};

static int barrier(int status, void *arg)
{
    struct bar *b = arg;
    b->calls++;
    b->status = status;
    b->wall = nvb__wall_ns();
    return b->ret;
}

START_TEST(start_barrier_once_on_every_path)
{
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    struct bar b = {0, 1, 0, 0};
    o.start_barrier = barrier;
    o.start_barrier_arg = &b;
    struct nvb_result *r = NULL;
    /* success: once, status 0, before the jobs were released */
    struct nvb_workload *w = mk((const char *[]){"engine", "psync", "direct", "0", "ios", "200", NULL}, g_file);
    ck_assert_int_eq(nvb_run(w, &o, &r), 0);
    ck_assert_int_eq(b.calls, 1);
    ck_assert_int_eq(b.status, 0);
    ck_assert_uint_le(b.wall, r->start_wall_ns);
    nvb_result_free(r);
    /* the callback says no: cancelled, no I/O */
    b = (struct bar){0, 1, 1, 0};
    ck_assert_int_eq(nvb_run(w, &o, &r), -ECANCELED);
    ck_assert_int_eq(b.calls, 1);
    ck_assert(nvb_result_cancelled(r));
    ck_assert_uint_eq(nvb_result_ios(r, 0), 0);
    nvb_result_free(r);
    nvb_workload_free(w);
    /* a run that fails before setup still calls it, with its error */
    w = mk((const char *[]){"engine", "psync", NULL}, "/nonexistent/nvbench/target");
    b = (struct bar){0, 1, 0, 0};
    ck_assert_int_eq(nvb_run(w, &o, &r), -ENOENT);
    ck_assert_int_eq(b.calls, 1);
    ck_assert_int_eq(b.status, -ENOENT);
    ck_assert_str_ne(nvb_result_host(r), "");
    nvb_result_free(r);
    nvb_workload_free(w);
    /* a directory target: called after the scratch file is laid out */
    char *dir = tu_mkdtemp("merge-dir");
    w = mk((const char *[]){"engine", "psync", "direct", "0", "size", "1M", "ios", "10", NULL}, dir);
    b = (struct bar){0, 1, 0, 0};
    ck_assert_int_eq(nvb_run(w, &o, &r), 0);
    ck_assert_int_eq(b.calls, 1);
    nvb_result_free(r);
    nvb_workload_free(w);
    rmdir(dir);
    free(dir);
}
END_TEST

START_TEST(host_name_recorded)
{
    char h[256] = "";
    gethostname(h, sizeof h - 1);
    struct nvb_result *r = run_kv((const char *[]){"engine", "null", "ios", "10", NULL}, NULL);
    ck_assert_str_eq(nvb_result_host(r), h);
    char *j = json_of(r);
    char want[300];
    snprintf(want, sizeof want, "\"host\":\"%s\"", h);
    ck_assert_ptr_nonnull(strstr(j, want));
    nvb_free(j);
    nvb_result_free(r);
}
END_TEST

/* ------------------------------------------------------------ time series */

START_TEST(aligned_series_on_wall_clock_multiples)
{
    const uint64_t iv = 20000000; /* 20 ms */
    struct nvb_result *p[2];
    for (int i = 0; i < 2; i++) {
        p[i] = run_kv((const char *[]){"engine", "null", "runtime", "130ms", "interval", "20ms", "align_interval",
                                       "1", "rate_iops", "20000", NULL}, NULL);
        /* How many ticks the sampler caught depends on scheduling (a late
         * sampler skips ticks): what is asserted holds for any number. */
        ck_assert_uint_ge(p[i]->nts, 1);
        uint64_t prev = 0, ios = 0;
        for (unsigned k = 0; k < p[i]->nts; k++) {
            const struct nvb__tsample *s = &p[i]->ts[k];
            if (k + 1 < p[i]->nts)
                ck_assert_msg(s->t_unix_ns % iv == 0, "point %u at %llu", k, (unsigned long long)s->t_unix_ns);
            ck_assert_uint_gt(s->t_unix_ns, prev);
            ck_assert_uint_ge(s->t_unix_ns, nvb__result_window_start(p[i]));
            prev = s->t_unix_ns;
            ios += s->ios[0] + s->ios[1];
        }
        ck_assert_uint_eq(prev, p[i]->end_wall_ns); /* the last point ends with the window */
        ck_assert_uint_eq(ios, nvb_result_ios(p[i], 0));
        /* the first interval runs from the window start to the first
         * multiple sampled, and no sample is taken before its tick (how
         * late it is taken is the scheduler's business) */
        double first = (double)(p[i]->ts[0].t_unix_ns - nvb__result_window_start(p[i])) / 1e9;
        ck_assert_msg(p[i]->ts[0].dt_s >= first - 1e-6, "first interval %g s, its tick %g s", p[i]->ts[0].dt_s, first);
    }
    struct nvb_result *m = NULL;
    ck_assert_int_eq(nvb_result_merge(&m, (const struct nvb_result *const *)p, 2), 0);
    uint64_t ios = 0, prev = 0;
    for (unsigned k = 0; k < m->nts; k++) {
        ios += m->ts[k].ios[0];
        ck_assert_uint_gt(m->ts[k].t_unix_ns, prev);
        prev = m->ts[k].t_unix_ns;
    }
    ck_assert_uint_eq(ios, nvb_result_ios(m, 0));
    ck_assert_uint_eq(ios, nvb_result_ios(p[0], 0) + nvb_result_ios(p[1], 0));
    /* two runs one after the other: slots of both, one point per slot */
    ck_assert_uint_le(m->nts, p[0]->nts + p[1]->nts);
    assert_round_trip(m);
    nvb_result_free(m);
    nvb_result_free(p[0]);
    nvb_result_free(p[1]);

    /* unaligned (default): t_unix_ns is the tick the sample was taken for
     * (the latest one passed: a late sampler skips ticks), never after the
     * sample itself; every point but the last is on a tick */
    struct nvb_result *r = run_kv((const char *[]){"engine", "null", "runtime", "100ms", "interval", "20ms", NULL},
                                  NULL);
    double prev_off = 0;
    for (unsigned k = 0; k < r->nts; k++) {
        double off = (double)(r->ts[k].t_unix_ns - nvb__result_window_start(r)) / 1e9;
        ck_assert_msg(off <= r->ts[k].t_s + 1e-6, "t_unix %g vs t_s %g", off, r->ts[k].t_s);
        ck_assert_msg(off > prev_off, "point %u: tick %g after %g", k, off, prev_off);
        if (k + 1 < r->nts) {
            double ticks = off / 0.02;
            ck_assert_msg(ticks >= 1 - 1e-6 && fabs(ticks - round(ticks)) < 1e-4, "point %u: tick %g", k, off);
        }
        prev_off = off;
    }
    nvb_result_free(r);
}
END_TEST

START_TEST(merge_bad_arguments)
{
    struct nvb_result *m = (struct nvb_result *)1;
    ck_assert_int_eq(nvb_result_merge(&m, NULL, 1), -EINVAL);
    ck_assert_ptr_null(m);
    const struct nvb_result *none[2] = {NULL, NULL};
    ck_assert_int_eq(nvb_result_merge(&m, none, 2), -EINVAL);
    ck_assert_int_eq(nvb_result_merge(NULL, none, 2), -EINVAL);
    struct nvb_result *r = run_kv((const char *[]){"engine", "null", "ios", "10", NULL}, NULL);
    const struct nvb_result *one[1] = {r};
    ck_assert_int_eq(nvb_result_merge(&m, one, 0), -EINVAL);
    ck_assert_int_eq(nvb_result_merge(&m, one, 1), 0);
    ck_assert_uint_eq(nvb_result_ios(m, 0), 10);
    ck_assert_uint_eq(m->nhosts, 1);
    nvb_result_free(m);
    nvb_result_free(r);
}
END_TEST

static Suite *merge_suite(void)
{
    Suite *s = suite_create("merge");
    TCase *tc = tcase_create("merge");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, merged_percentiles_equal_one_histogram);
    tcase_add_test(tc, every_meter_counter_merges);
    tcase_add_test(tc, clock_source_through_json_and_merge);
    tcase_add_test(tc, merge_real_runs_exactly);
    tcase_add_test(tc, merge_bad_arguments);
    tcase_add_test(tc, aligned_series_on_wall_clock_multiples);
    suite_add_tcase(s, tc);
    tc = tcase_create("json");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, round_trip_every_figure);
    tcase_add_test(tc, hostile_json_refused);
    tcase_add_test(tc, exact_sums_through_merge_and_json);
    tcase_add_test(tc, older_sums_still_load);
    tcase_add_test(tc, refusal_names_the_place);
    tcase_add_test(tc, interval_histograms_refused_or_unknown);
    suite_add_tcase(s, tc);
    tc = tcase_create("run");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, start_barrier_once_on_every_path);
    tcase_add_test(tc, host_name_recorded);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    g_file = tu_scratch("merge-a", 8u << 20);
    int failed = tu_run_suite(merge_suite());
    unlink(g_file);
    free(g_file);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
