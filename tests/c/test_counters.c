/* The CPU's event counters (cpu.counters, docs/cpu.md): the platform layer
 * counts the threads started after the open and nothing while disabled;
 * a run's result has the counts and their ratios per I/O, or says why
 * not, and reads back unchanged. On a machine without hardware counters
 * (this project's VM) the software events check the same plumbing. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "nvbench.h"
#include "platform/platform.h"
#include "testutil.h"
#include "util/json.h"

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define SLEEPS 3

/* A thread started after the open: some CPU of its own, then SLEEPS
 * sleeps (each a voluntary context switch); its own CPU time out. */
static void *worker(void *arg)
{
    volatile uint64_t x = 0;
    while (thread_cpu_ns() < 20000000ull)
        for (int i = 0; i < 10000; i++)
            x += (uint64_t)i;
    for (int i = 0; i < SLEEPS; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    *(uint64_t *)arg = thread_cpu_ns();
    return NULL;
}

START_TEST(counts_threads_started_after_the_open)
{
    struct nvb__perf *p = NULL;
    char why[256] = "";
    int rc = nvb__perf_open(&p, why, sizeof why);
    if (rc < 0) {
        /* no perf events at all here: the reason names the call and errno */
        ck_assert_msg(strstr(why, "perf_event_open(task-clock) failed with E"), "%s", why);
        return;
    }
    struct nvb__perf_counts c0, c1, c2;
    ck_assert_int_eq(nvb__perf_read(p, &c0), 0);
    ck_assert_uint_eq(c0.v[NVB__PERF_TASK_CLOCK], 0); /* opened disabled */
    nvb__perf_enable(p, 1);
    uint64_t child_ns = 0;
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, worker, &child_ns), 0);
    pthread_join(t, NULL);
    nvb__perf_enable(p, 0);
    ck_assert_int_eq(nvb__perf_read(p, &c1), 0);
    ck_assert(c1.have[NVB__PERF_TASK_CLOCK] && c1.have[NVB__PERF_CTXSW] && c1.have[NVB__PERF_MIGR]);
    /* the worker's time on the CPU is in the count (it started after the
     * open: inherited); this thread only waited for it. The two clocks
     * account each switch at slightly different points (the task clock
     * read 0.5 % below the thread's own on this VM, with switches), so the
     * test asks for half: without inheritance the count is this thread's
     * wait alone, near 0 */
    ck_assert_msg(c1.v[NVB__PERF_TASK_CLOCK] >= child_ns / 2, "task clock %llu < half the thread's own %llu ns",
                  (unsigned long long)c1.v[NVB__PERF_TASK_CLOCK], (unsigned long long)child_ns);
    ck_assert_uint_ge(c1.v[NVB__PERF_CTXSW], SLEEPS);
    /* disabled: work now is not counted */
    volatile uint64_t x = 0;
    for (uint64_t start = thread_cpu_ns(); thread_cpu_ns() < start + 5000000ull;)
        x++;
    ck_assert_int_eq(nvb__perf_read(p, &c2), 0);
    ck_assert_uint_eq(c2.v[NVB__PERF_TASK_CLOCK], c1.v[NVB__PERF_TASK_CLOCK]);
    /* hardware: both counted, or neither with the reason */
    ck_assert_int_eq(c1.have[NVB__PERF_CYCLES], c1.have[NVB__PERF_INSTR]);
    if (c1.have[NVB__PERF_CYCLES]) {
        ck_assert_str_eq(c1.hw_why, "");
        ck_assert_uint_gt(c1.v[NVB__PERF_INSTR], 0);
    } else {
        ck_assert_msg(strstr(c1.hw_why, "perf_event_open(") && strstr(c1.hw_why, "failed with E"), "%s", c1.hw_why);
    }
    nvb__perf_close(p);
}
END_TEST

static double num(const struct nvb__jv *o, const char *key)
{
    const struct nvb__jv *v = nvb__json_get(o, key);
    double d = NAN;
    ck_assert_msg(v, "no %s", key);
    if (v->type == NVB__J_NUM)
        nvb__json_dbl(v, &d);
    return d;
}

/* ratio key is count key over `over` (the I/Os when over is NULL), times
 * scale; both null together */
static void per_io_is(const struct nvb__jv *c, const char *ratio, const char *count, const char *over, double ios,
                      double scale)
{
    double n = num(c, count), d = over ? num(c, over) : ios, v = num(c, ratio);
    if (isnan(n) || isnan(d)) {
        ck_assert_msg(isnan(v), "%s is %g without %s", ratio, v, count);
        return;
    }
    ck_assert_msg(fabs(v - n / d * scale) <= 1e-6 * fabs(v) + 1e-12, "%s %g != %g / %g", ratio, v, n, d);
}

START_TEST(run_has_counters_per_io)
{
    const char *kv[] = {"engine", "null", "rw", "randread", "bs", "4k", "qd", "8", "size", "64m", "runtime", "200ms",
                        NULL};
    struct nvb_workload *w = tu_workload(kv, NULL);
    struct nvb_result *r = tu_run_ok(w);
    char *text, why[256];
    struct nvb__jv *root = NULL;
    ck_assert_int_eq(nvb_result_json(r, &text), 0);
    ck_assert_msg(nvb__json_parse(text, strlen(text), &root, why, sizeof why) == 0, "%s", why);
    const struct nvb__jv *c = nvb__json_get(nvb__json_get(root, "cpu"), "counters");
    ck_assert_ptr_nonnull(c);
    const double ios = num(nvb__json_get(root, "total"), "ios");
    ck_assert(ios > 0);
    const struct nvb__jv *nr = nvb__json_get(c, "null_reason"), *hw = nvb__json_get(c, "hardware_null_reason");
    if (nr->type == NVB__J_STR) {
        ck_assert_msg(!strncmp(nr->s, "unavailable: ", 13), "%s", nr->s);
    } else {
        /* the job threads ran: their time is counted */
        ck_assert(num(c, "task_clock_ns") > 0);
        per_io_is(c, "task_clock_us_per_io", "task_clock_ns", NULL, ios, 1e-3);
        per_io_is(c, "context_switches_per_io", "context_switches", NULL, ios, 1);
        per_io_is(c, "cycles_per_io", "cycles", NULL, ios, 1);
        per_io_is(c, "instructions_per_io", "instructions", NULL, ios, 1);
        per_io_is(c, "instructions_per_cycle", "instructions", "cycles", ios, 1);
        if (isnan(num(c, "cycles"))) /* this VM: the reason, its errno and what it means */
            ck_assert_msg(hw->type == NVB__J_STR && !strncmp(hw->s, "unavailable: perf_event_open(cycles) failed with E", 50),
                          "%s", hw->type == NVB__J_STR ? hw->s : "(not a string)");
        else
            ck_assert_int_eq(hw->type, NVB__J_NULL);
        /* the same through nvb_result_get */
        ck_assert(fabs(tu_get(r, "cpu.counters.task_clock_us_per_io") - num(c, "task_clock_us_per_io")) <=
                  1e-9 * num(c, "task_clock_us_per_io"));
    }
    /* read back, written out the same */
    struct nvb_result *back = NULL;
    char *again = NULL;
    ck_assert_msg(nvb_result_parse(text, strlen(text), &back, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(nvb_result_json(back, &again), 0);
    ck_assert_str_eq(text, again);
    nvb_free(again);
    nvb_result_free(back);
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* A result that said why (no perf events) reads back the same, and one
 * with a count that is no number is refused naming the key. */
START_TEST(unavailable_reads_back)
{
    struct nvb_result *r = nvb__result_new();
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(nvb__explain_perf(r, NULL, "perf_event_open(task-clock) failed with ENOSYS: no perf events"), 0);
    char *text, *again = NULL, why[256];
    ck_assert_int_eq(nvb_result_json(r, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\"null_reason\":\"unavailable: perf_event_open(task-clock) failed with ENOSYS"));
    struct nvb_result *back = NULL;
    ck_assert_msg(nvb_result_parse(text, strlen(text), &back, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(nvb_result_json(back, &again), 0);
    ck_assert_str_eq(text, again);
    nvb_free(again);
    nvb_result_free(back);
    char *bad = strdup(text), *k = strstr(bad, "\"counters\":{\"cycles\":null");
    ck_assert_ptr_nonnull(k);
    memcpy(k + strlen("\"counters\":{\"cycles\":"), "\"x\" ", 4);
    /* null_reason set: the counts are not read; without it they are */
    char *n = strstr(bad, "\"null_reason\":\"unavailable");
    ck_assert_ptr_nonnull(n);
    memcpy(n, "\"null_reasoX\"", 13);
    ck_assert_int_eq(nvb_result_parse(bad, strlen(bad), &back, why, sizeof why), -EINVAL);
    ck_assert_msg(strstr(why, "cpu.counters"), "%s", why);
    free(bad);
    nvb_free(text);
    nvb_result_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("counters");
    TCase *tc = tcase_create("counters");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, counts_threads_started_after_the_open);
    tcase_add_test(tc, run_has_counters_per_io);
    tcase_add_test(tc, unavailable_reads_back);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
