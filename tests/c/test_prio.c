/*
 * Priorities by I/O size (cmdprio_bssplit): the key's parsing and
 * refusals, the share of I/Os each entry's priority gets over many draws
 * (within binomial bounds, fixed seed), and runs on the engines that set a
 * priority per I/O, refused on the others.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvbench.h"
#include "core/run.h"
#include "testutil.h"

static char *g_file; /* 4 MiB of data */

static int set(struct nvb_workload *w, const char *v)
{
    return nvb_workload_set(w, "cmdprio_bssplit", v);
}

#define VAL(cls, level, hint) ((uint16_t)((cls) << 13 | (hint) << 3 | (level)))

START_TEST(parses_fio_forms)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    /* fio's simple form, per direction: the entries at cmdprio_class/cmdprio */
    ck_assert_int_eq(set(w, "64k/100:1m/0,1m/0"), 0);
    ck_assert_uint_eq(w->psplit.n[0], 2);
    ck_assert_uint_eq(w->psplit.n[1], 1);
    ck_assert_uint_eq(w->psplit.e[0][0].len, 65536);
    ck_assert_uint_eq(w->psplit.e[0][0].pct, 100);
    ck_assert_uint_eq(w->psplit.e[0][0].value, NVB__PRIO_FROM_CMD);
    ck_assert_uint_eq(w->psplit.e[1][0].len, 1048576);
    /* the advanced form, with a hint; one list is both directions' */
    ck_assert_int_eq(set(w, "1048576/10/2/0/1:1048576/90/3/7"), 0);
    ck_assert_uint_eq(w->psplit.n[0], 2);
    ck_assert_uint_eq(w->psplit.n[1], 2);
    ck_assert_uint_eq(w->psplit.e[0][0].value, VAL(2, 0, 1));
    ck_assert_uint_eq(w->psplit.e[1][1].value, VAL(3, 7, 0));
    char v[300];
    ck_assert_int_ge(nvb_workload_get(w, "cmdprio_bssplit", v, sizeof v), 0);
    ck_assert_str_eq(v, "1048576/10/2/0/1:1048576/90/3/7");
    /* refusals name the key and the entry, and keep the value before */
    static const char *const bad[][2] = {
        {"64k/60:64k/50", "more than 100"}, {"64k", "SIZE/PCT"}, {"64k/50/1", "SIZE/PCT"},
        {"64k/101", "percent"}, {"64k/50/4/0", "class 1-3"}, {"64k/50/0/0", "class 1-3"},
        {"64k/50/1/8", "level 0-7"}, {"64k/50/1/0/8", "hint 0-7"}, {"0/50", "size"},
        {"64k/50,64k/50,64k/50", "two lists at most"}, {"64k/50/1/0/1/1", "more than 5"}, {"x/5", "size"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(set(w, bad[i][0]), -EINVAL);
        ck_assert_msg(strstr(nvb_workload_error(w), bad[i][1]) && strstr(nvb_workload_error(w), "cmdprio_bssplit"),
                      "%s: %s", bad[i][0], nvb_workload_error(w));
        ck_assert_int_ge(nvb_workload_get(w, "cmdprio_bssplit", v, sizeof v), 0);
        ck_assert_str_eq(v, "1048576/10/2/0/1:1048576/90/3/7");
    }
    nvb_workload_free(w);
}
END_TEST

/* For each (direction, size, priority) the share of n draws: within 6
 * standard deviations of the binomial's mean (p(1-p)/n); a draw that
 * ignored the running sum, the direction or the size falls far outside. */
START_TEST(draws_follow_the_split)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(set(w, "64k/25/1/1:64k/75/3/2:4k/10/2/0/3,4k/40/1/0"), 0);
    struct nvb__prio p = {.dflt = VAL(2, 7, 0), .rng = 42, .split_on = 1, .split = w->psplit};
    static const struct {
        unsigned dir;
        uint32_t len;
        uint16_t value;
        double share;
    } want[] = {
        {NVB_READ, 65536, VAL(1, 1, 0), 0.25}, {NVB_READ, 65536, VAL(3, 2, 0), 0.75},
        {NVB_READ, 4096, VAL(2, 0, 3), 0.10}, {NVB_READ, 4096, VAL(2, 7, 0), 0.90},
        {NVB_READ, 8192, VAL(2, 7, 0), 1.0}, {NVB_WRITE, 4096, VAL(1, 0, 0), 0.40},
        {NVB_WRITE, 4096, VAL(2, 7, 0), 0.60}, {NVB_WRITE, 65536, VAL(2, 7, 0), 1.0},
        {NVB_TRIM, 4096, VAL(2, 7, 0), 1.0},
    };
    const unsigned n = 100000;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        unsigned hit = 0;
        for (unsigned k = 0; k < n; k++)
            hit += nvb__prio_next(&p, want[i].dir, want[i].len) == want[i].value;
        const double q = want[i].share, sd = sqrt(q * (1 - q) / n);
        ck_assert_msg(fabs((double)hit / n - q) <= 6 * sd + 1e-12, "dir %u len %u value %#x: %u of %u, want %.2f",
                      want[i].dir, want[i].len, want[i].value, hit, n, q);
    }
    nvb_workload_free(w);
}
END_TEST

static struct nvb_result *run(const char *engine, const char *split, const char *extra_key, const char *extra)
{
    const char *t[] = {g_file, NULL};
    struct nvb_workload *w = tu_workload((const char *[]){"engine", engine, "rw", "randrw", "bssplit",
                                                         "4k/50:64k/50", "ios", "400", "direct", "0", NULL}, t);
    ck_assert_int_eq(set(w, split), 0);
    if (extra_key)
        ck_assert_int_eq(nvb_workload_set(w, extra_key, extra), 0);
    struct nvb_result *r = NULL;
    nvb_run(w, NULL, &r);
    nvb_workload_free(w);
    return r;
}

/* A run at best effort and idle (no privilege needed) completes, and says
 * what it used; an engine without per-I/O priorities, and cmdprio_pct
 * beside it, are refused by name before any I/O. */
START_TEST(runs_where_engines_set_priorities)
{
    static const char *const engines[] = {"libaio", "io_uring"};
    for (size_t i = 0; i < 2; i++) {
        struct nvb_result *r = run(engines[i], "4k/50/2/3:64k/100/3/0", "cmdprio_class", "2");
        ck_assert_ptr_nonnull(r);
        const char *err = nvb_result_error(r);
        if (err && (strstr(err, "not available") || strstr(err, "probe"))) {
            nvb_result_free(r);
            continue; /* an engine this kernel lacks */
        }
        ck_assert_msg(!err || !*err, "%s: %s", engines[i], err);
        ck_assert_double_eq(tu_get(r, "total.ios"), 400);
        char *json = NULL;
        ck_assert_int_eq(nvb_result_json(r, &json), 0);
        ck_assert_msg(strstr(json, "by size (cmdprio_bssplit 4k/50/2/3:64k/100/3/0)"), "%s", json);
        nvb_free(json);
        nvb_result_free(r);
    }
    struct nvb_result *r = run("psync", "4k/50", NULL, NULL);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(nvb_result_error(r) && strstr(nvb_result_error(r), "cmdprio_bssplit '4k/50': engine 'psync'"),
                  "%s", nvb_result_error(r));
    nvb_result_free(r);
    r = run("libaio", "4k/50", "cmdprio_pct", "10");
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(nvb_result_error(r) && strstr(nvb_result_error(r), "one or the other"), "%s", nvb_result_error(r));
    nvb_result_free(r);
}
END_TEST

int main(void)
{
    g_file = tu_scratch("prio.dat", 4u << 20);
    Suite *s = suite_create("prio");
    TCase *tc = tcase_create("cmdprio_bssplit");
    tcase_add_test(tc, parses_fio_forms);
    tcase_add_test(tc, draws_follow_the_split);
    tcase_add_test(tc, runs_where_engines_set_priorities);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    free(g_file);
    return failed ? 1 : 0;
}
