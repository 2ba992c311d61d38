/* The run's point callback (nvb_run_opts.point) and the bounded time
 * series (timeseries_max): every point given once, in order, byte for byte
 * the result's; two runs at once keep their own; a failing callback stops
 * nothing and is named; a long series merges exactly, its totals kept. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvbench.h"
#include "testutil.h"

#define mk tu_workload

/* What one run's callback saw: every point's text. */
struct seen {
    char **pts;
    size_t n, cap;
    int fail;               /* answer this (nonzero: the callback fails) */
    unsigned long thread_calls_off_caller; /* calls not on the thread that called nvb_run() */
    pthread_t caller;
};

static int on_point(const char *json, size_t len, void *arg)
{
    struct seen *s = arg;
    ck_assert_uint_eq(strlen(json), len);
    if (!pthread_equal(pthread_self(), s->caller))
        s->thread_calls_off_caller++;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->pts = realloc(s->pts, s->cap * sizeof *s->pts);
        ck_assert_ptr_nonnull(s->pts);
    }
    s->pts[s->n++] = strdup(json);
    return s->fail;
}

static void seen_free(struct seen *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->pts[i]);
    free(s->pts);
}

static struct nvb_result *run_seen(const struct nvb_workload *w, struct seen *s)
{
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.point = on_point;
    o.point_arg = s;
    s->caller = pthread_self();
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, &o, &r);
    ck_assert_msg(rc == 0, "run: %d %s", rc, r ? nvb_result_error(r) : "");
    return r;
}

static size_t npoints(const struct nvb_result *r)
{
    size_t n = 0;
    char *js;
    while (nvb_result_point_json(r, n, &js) == 0) {
        nvb_free(js);
        n++;
    }
    return n;
}

/* Every point given once, in order, the same text as the result's: the
 * series is short enough that nothing merges. */
static void check_same(const struct nvb_result *r, const struct seen *s)
{
    ck_assert_uint_eq(s->thread_calls_off_caller, 0);
    size_t n = npoints(r); /* how many depends on the sampler's ticks: at least the last */
    ck_assert_uint_ge(n, 1);
    ck_assert_uint_eq(s->n, n);
    char *all;
    ck_assert_int_eq(nvb_result_json(r, &all), 0);
    for (size_t i = 0; i < n; i++) {
        char *js;
        ck_assert_int_eq(nvb_result_point_json(r, i, &js), 0);
        ck_assert_str_eq(s->pts[i], js);
        ck_assert_ptr_nonnull(strstr(all, js)); /* as timeseries[] writes it */
        ck_assert_ptr_null(strstr(js, "\"intervals\""));
        nvb_free(js);
    }
    nvb_free(all);
    char *js = (char *)1;
    ck_assert_int_eq(nvb_result_point_json(r, n, &js), -ERANGE);
    ck_assert_ptr_null(js);
    ck_assert_int_eq(nvb_result_point_json(NULL, 0, &js), -EINVAL);
}

struct thr {
    const struct nvb_workload *w;
    struct seen s;
    struct nvb_result *r;
};

static void *thr_run(void *arg)
{
    struct thr *t = arg;
    t->r = run_seen(t->w, &t->s);
    return NULL;
}

START_TEST(points_given_in_order_as_the_result_writes_them)
{
    /* two runs at once, in two threads: each callback sees its own run's points only */
    struct nvb_workload *w1 = mk((const char *[]){"engine", "null", "runtime", "300ms", "interval", "50ms",
                                                  "rate_iops", "20000", NULL}, NULL);
    struct nvb_workload *w2 = mk((const char *[]){"engine", "null", "rw", "randwrite", "runtime", "400ms",
                                                  "interval", "50ms", "rate_iops", "10000", NULL}, NULL);
    struct thr a = {.w = w1}, b = {.w = w2};
    pthread_t ta, tb;
    ck_assert_int_eq(pthread_create(&ta, NULL, thr_run, &a), 0);
    ck_assert_int_eq(pthread_create(&tb, NULL, thr_run, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    check_same(a.r, &a.s);
    check_same(b.r, &b.s);
    for (size_t i = 0; i < a.s.n; i++)
        ck_assert_ptr_nonnull(strstr(a.s.pts[i], "\"write\":{\"ios\":0,"));
    for (size_t i = 0; i < b.s.n; i++)
        ck_assert_ptr_nonnull(strstr(b.s.pts[i], "\"read\":{\"ios\":0,"));
    for (size_t i = 0; i < nvb_result_warning_count(a.r); i++)
        ck_assert_ptr_null(strstr(nvb_result_warning(a.r, i), "timeseries:"));
    seen_free(&a.s);
    seen_free(&b.s);
    nvb_result_free(a.r);
    nvb_result_free(b.r);
    nvb_workload_free(w1);
    nvb_workload_free(w2);
}
END_TEST

START_TEST(a_failing_callback_stops_nothing_and_is_named)
{
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "ios", "3000", "rate_iops", "10000",
                                                 "interval", "50ms", NULL}, NULL);
    struct seen s = {.fail = -EPIPE};
    struct nvb_result *r = run_seen(w, &s);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 3000);
    check_same(r, &s);
    char want[96];
    snprintf(want, sizeof want, "failed for %zu point%s (first answer %d)", s.n, s.n == 1 ? "" : "s", -EPIPE);
    int named = 0;
    for (size_t i = 0; i < nvb_result_warning_count(r); i++)
        named |= strstr(nvb_result_warning(r, i), want) != NULL;
    ck_assert_msg(named, "no warning with \"%s\"", want);
    seen_free(&s);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* Job groups: each group's points, on the calling thread, its name first,
 * then the group's own point as its timeseries[] writes it; a failing
 * callback stops nothing and is named in the run's warnings. */
START_TEST(job_groups_give_each_groups_points_named)
{
    struct nvb_workload *ws[2] = {
        mk((const char *[]){"engine", "null", "name", "r", "runtime", "300ms", "interval", "50ms", "rate_iops",
                            "20000", NULL}, NULL),
        mk((const char *[]){"engine", "null", "name", "w\"q", "rw", "write", "runtime", "300ms", "interval",
                            "50ms", "rate_iops", "20000", NULL}, NULL)};
    for (int fail = 0; fail <= 1; fail++) {
        struct seen s = {.fail = fail ? -EPIPE : 0, .caller = pthread_self()};
        struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
        o.point = on_point;
        o.point_arg = &s;
        struct nvb_result *r = NULL;
        ck_assert_int_eq(nvb_run_groups((const struct nvb_workload *const *)ws, 2, &o, &r), 0);
        ck_assert_uint_eq(s.thread_calls_off_caller, 0);
        char *all;
        ck_assert_int_eq(nvb_result_json(r, &all), 0);
        size_t per[2] = {0, 0};
        unsigned long long ios[2] = {0, 0};
        const char *pre[2] = {"{\"group\":\"r\",", "{\"group\":\"w\\\"q\","};
        for (size_t i = 0; i < s.n; i++) {
            int g = !strncmp(s.pts[i], pre[0], strlen(pre[0])) ? 0 : 1;
            ck_assert_msg(!strncmp(s.pts[i], pre[g], strlen(pre[g])), "%s", s.pts[i]);
            char *own = strdup(s.pts[i] + strlen(pre[g]) - 1);
            own[0] = '{';
            ck_assert_msg(strstr(all, own) != NULL, "not in the groups' series: %s", own);
            const char *key = g ? "\"write\":{\"ios\":" : "\"read\":{\"ios\":";
            ck_assert_ptr_nonnull(strstr(own, key));
            ios[g] += strtoull(strstr(own, key) + strlen(key), NULL, 10);
            per[g]++;
            free(own);
        }
        ck_assert_uint_ge(per[0], 1);
        ck_assert_uint_ge(per[1], 1);
        ck_assert_uint_eq(ios[0], nvb_result_ios(r, NVB_READ));
        ck_assert_uint_eq(ios[1], nvb_result_ios(r, NVB_WRITE));
        int named = 0;
        for (size_t i = 0; i < nvb_result_warning_count(r); i++)
            named |= strstr(nvb_result_warning(r, i), "point callback (--live) failed") != NULL;
        ck_assert_int_eq(named, fail);
        nvb_free(all);
        seen_free(&s);
        nvb_result_free(r);
    }
    nvb_workload_free(ws[0]);
    nvb_workload_free(ws[1]);
}
END_TEST

/* The sum of key's integers in text (every "key": n). */
static unsigned long long sum_key(const char *text, const char *key)
{
    unsigned long long t = 0;
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key))
        t += strtoull(p + strlen(key), NULL, 10);
    return t;
}

/* A long ios-bounded run, at most 16 points kept: totals unchanged, the
 * points' intervals add up to every interval the callback had, and the
 * kept series is smaller than the points given. */
START_TEST(a_long_series_stays_bounded_and_adds_up)
{
    size_t len[2];
    for (int k = 0; k < 2; k++) {
        const char *ios = k ? "16000" : "4000";
        struct nvb_workload *w = mk((const char *[]){"engine", "null", "rw", "randrw", "ios", ios,
                                                     "rate_iops", "20000", "interval", "10ms",
                                                     "timeseries_max", "16", NULL}, NULL);
        struct seen s = {0};
        struct nvb_result *r = run_seen(w, &s);
        const unsigned long long total = strtoull(ios, NULL, 10);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE), total);
        size_t n = npoints(r);
        ck_assert_uint_le(n, 16);
        /* the callback had every interval (how many the sampler's ticks made:
         * ~20 a run here, fewer on a starved machine, e.g. under valgrind) */
        ck_assert_uint_ge(s.n, n);
        unsigned long long given = 0, kept = 0, intervals = 0, hist = 0;
        len[k] = 0;
        size_t given_len = 0;
        for (size_t i = 0; i < s.n; i++) {
            given += sum_key(s.pts[i], "\"ios\":");
            given_len += strlen(s.pts[i]);
        }
        ck_assert_uint_eq(given, total);
        for (size_t i = 0; i < n; i++) {
            char *js;
            ck_assert_int_eq(nvb_result_point_json(r, i, &js), 0);
            kept += sum_key(js, "\"ios\":");
            len[k] += strlen(js);
            hist += sum_key(js, "\"lat_hist\":{\"count\":");
            unsigned long long iv = sum_key(js, "\"intervals\":");
            intervals += iv ? iv : 1;
            nvb_free(js);
        }
        ck_assert_uint_eq(kept, total);
        ck_assert_uint_eq(hist, total); /* histograms added exactly */
        ck_assert_uint_eq(intervals, s.n);
        /* the kept series is smaller than every interval's points */
        ck_assert_msg(len[k] < given_len, "kept %zu bytes, given %zu", len[k], given_len);
        int said = 0;
        for (size_t i = 0; i < nvb_result_warning_count(r); i++)
            said |= strstr(nvb_result_warning(r, i), "timeseries_max=16") != NULL;
        ck_assert_int_eq(said, s.n > 16); /* said exactly when points were merged */
        ck_assert_int_eq(n < s.n, s.n > 16);
        /* read back, written out the same (intervals included) */
        char *j1, *j2;
        struct nvb_result *back = NULL;
        ck_assert_int_eq(nvb_result_json(r, &j1), 0);
        ck_assert_int_eq(nvb_result_from_json(j1, &back), 0);
        ck_assert_int_eq(nvb_result_json(back, &j2), 0);
        ck_assert_str_eq(j1, j2);
        nvb_free(j1);
        nvb_free(j2);
        nvb_result_free(back);
        seen_free(&s);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    /* four times the intervals: no more points kept (their histograms hold
     * more I/Os over more buckets, bounded by the histogram's geometry) */
    fprintf(stderr, "series kept: %zu then %zu bytes\n", len[0], len[1]);
}
END_TEST

/* Two bounded runs merged (hosts, repeats): the merged points still say
 * how many intervals they span, and their ios add up to both totals. */
START_TEST(a_merge_of_bounded_series_keeps_intervals)
{
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "ios", "3000", "rate_iops", "20000",
                                                 "interval", "10ms", "timeseries_max", "4", NULL}, NULL);
    struct nvb_result *a = tu_run_ok(w), *b = tu_run_ok(w), *m = NULL;
    const struct nvb_result *parts[] = {a, b};
    ck_assert_int_eq(nvb_result_merge(&m, parts, 2), 0);
    unsigned long long ios = 0, intervals = 0;
    char *js;
    for (size_t i = 0; nvb_result_point_json(m, i, &js) == 0; i++) {
        ios += sum_key(js, "\"ios\":");
        intervals += sum_key(js, "\"intervals\":");
        nvb_free(js);
    }
    unsigned long long part_intervals = 0; /* ~15 intervals a run here: merged beyond 4 */
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; nvb_result_point_json(parts[k], i, &js) == 0; i++) {
            part_intervals += sum_key(js, "\"intervals\":");
            nvb_free(js);
        }
    ck_assert_uint_eq(ios, 6000);
    ck_assert_int_eq(intervals > 0, part_intervals > 0);
    nvb_result_free(m);
    nvb_result_free(a);
    nvb_result_free(b);
    nvb_workload_free(w);
}
END_TEST

START_TEST(intervals_read_back_checked)
{
    /* a point's intervals is 2 or more when present */
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "ios", "500", "rate_iops", "10000",
                                                 "interval", "10ms", NULL}, NULL);
    struct nvb_result *r = tu_run_ok(w);
    char *j;
    ck_assert_int_eq(nvb_result_json(r, &j), 0);
    char *p = strstr(j, "\"timeseries\":[");
    ck_assert_ptr_nonnull(p);
    p = strstr(p, "\"system_pct\":");
    ck_assert_ptr_nonnull(p);
    char *e = strchr(p, '}');
    ck_assert_ptr_nonnull(e);
    for (int k = 0; k < 2; k++) {
        const char *ins = k ? ",\"intervals\":1" : ",\"intervals\":2";
        size_t a = (size_t)(e - j);
        char *m = malloc(strlen(j) + 32);
        memcpy(m, j, a);
        strcpy(m + a, ins);
        strcat(m, e);
        struct nvb_result *back = NULL;
        int rc = nvb_result_from_json(m, &back);
        ck_assert_int_eq(rc, k ? -EINVAL : 0);
        nvb_result_free(back);
        free(m);
    }
    nvb_free(j);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live");
    TCase *tc = tcase_create("points");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, points_given_in_order_as_the_result_writes_them);
    tcase_add_test(tc, job_groups_give_each_groups_points_named);
    tcase_add_test(tc, a_failing_callback_stops_nothing_and_is_named);
    tcase_add_test(tc, a_long_series_stays_bounded_and_adds_up);
    tcase_add_test(tc, intervals_read_back_checked);
    tcase_add_test(tc, a_merge_of_bounded_series_keeps_intervals);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
