/* CPU arithmetic on synthetic counters: what "Total CPU Usage" means,
 * guest time not counted twice, steal apart, derived per-I/O figures. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/internal.h"
#include "testutil.h"

static struct nvb__cpu_times T(uint64_t user, uint64_t nice, uint64_t sys, uint64_t idle, uint64_t iowait,
                               uint64_t irq, uint64_t softirq, uint64_t steal, uint64_t guest)
{
    struct nvb__cpu_times t = {user, nice, sys, idle, iowait, irq, softirq, steal, guest, 0};
    return t;
}

START_TEST(busy_is_user_nice_system_irq_softirq)
{
    struct nvb__cpu_times a = T(100, 0, 50, 1000, 0, 0, 0, 0, 0);
    struct nvb__cpu_times b = T(400, 100, 150, 1200, 100, 50, 50, 0, 0);
    struct nvb__cpu_times d;
    nvb__cpu_times_delta(&a, &b, &d);
    /* busy 300+100+100+50+50 = 600; total 600 + 200 idle + 100 iowait */
    ck_assert_uint_eq(nvb__cpu_busy(&d), 600);
    ck_assert_uint_eq(nvb__cpu_total(&d), 900);
    struct nvb__cpu_split s;
    nvb__cpu_split(&d, &s);
    ck_assert(fabs(s.busy - 600.0 / 9) < 1e-9);
    ck_assert(fabs(s.iowait - 100.0 / 9) < 1e-9);
    ck_assert(fabs(s.busy + s.iowait + s.idle + s.steal - 100) < 1e-9);
}
END_TEST

START_TEST(guest_not_counted_twice)
{
    /* a VM on this host: 300 of the 400 user ticks were guest time */
    struct nvb__cpu_times a = T(0, 0, 0, 0, 0, 0, 0, 0, 0);
    struct nvb__cpu_times b = T(400, 0, 100, 500, 0, 0, 0, 0, 300);
    struct nvb__cpu_times d;
    nvb__cpu_times_delta(&a, &b, &d);
    ck_assert_uint_eq(nvb__cpu_busy(&d), 500);
    ck_assert_uint_eq(nvb__cpu_total(&d), 1000);
}
END_TEST

START_TEST(steal_is_apart)
{
    struct nvb__cpu_times a = T(0, 0, 0, 0, 0, 0, 0, 0, 0);
    struct nvb__cpu_times b = T(300, 0, 100, 400, 0, 0, 0, 200, 0);
    struct nvb__cpu_times d;
    nvb__cpu_times_delta(&a, &b, &d);
    struct nvb__cpu_split s;
    nvb__cpu_split(&d, &s);
    ck_assert(fabs(s.busy - 40) < 1e-9);
    ck_assert(fabs(s.steal - 20) < 1e-9);
    ck_assert(fabs(s.idle - 40) < 1e-9);
}
END_TEST

START_TEST(backwards_counters_clamp)
{
    struct nvb__cpu_times a = T(500, 0, 0, 500, 0, 0, 0, 0, 0);
    struct nvb__cpu_times b = T(100, 0, 0, 900, 0, 0, 0, 0, 0);
    struct nvb__cpu_times d;
    nvb__cpu_times_delta(&a, &b, &d);
    ck_assert_uint_eq(d.user, 0);
    ck_assert_uint_eq(d.idle, 400);
}
END_TEST

START_TEST(per_cpu_rows_match_by_number)
{
    struct nvb__cpu_times a_rows[2] = {T(0, 0, 0, 100, 0, 0, 0, 0, 0), T(0, 0, 0, 100, 0, 0, 0, 0, 0)};
    int a_ids[2] = {0, 2};
    /* CPU 1 came online during the run; CPU 2 was fully busy */
    struct nvb__cpu_times b_rows[3] = {T(50, 0, 0, 150, 0, 0, 0, 0, 0), T(10, 0, 0, 10, 0, 0, 0, 0, 0),
                                       T(100, 0, 0, 100, 0, 0, 0, 0, 0)};
    int b_ids[3] = {0, 1, 2};
    struct nvb__sys_sample a = {2, T(0, 0, 0, 200, 0, 0, 0, 0, 0), a_rows, a_ids};
    struct nvb__sys_sample b = {3, T(160, 0, 0, 260, 0, 0, 0, 0, 0), b_rows, b_ids};
    struct nvb_result *r = nvb__result_new();
    ck_assert_int_eq(nvb__cpu_fill(r, &a, &b), 0);
    ck_assert_int_eq(r->ncpu, 2);
    ck_assert_int_eq(r->cpu_id[0], 0);
    ck_assert(fabs(r->cpu_pct[0] - 50) < 1e-9);
    ck_assert_int_eq(r->cpu_id[1], 2);
    ck_assert(fabs(r->cpu_pct[1] - 100) < 1e-9);
    ck_assert(fabs(r->system_pct - 160.0 / 220 * 100) < 1e-9);
    nvb_result_free(r);
}
END_TEST

START_TEST(derived_per_io_figures)
{
    struct nvb_result *r = nvb__result_new();
    r->duration_s = 2.0;
    r->cpu_window_s = 2.0;
    r->tot[0].ios = 2000000; /* 1 M IOPS */
    r->process_user_s = 0.5;
    r->process_sys_s = 1.0; /* 0.75 cores */
    r->ncpu = 4;
    r->system_pct = 50;
    struct nvb__cpu_derived d;
    nvb__cpu_derive(r, &d);
    ck_assert(fabs(d.process_cores - 0.75) < 1e-12);
    ck_assert(fabs(d.cpu_us_per_io - 0.75) < 1e-12);
    ck_assert(fabs(d.iops_per_core - 1e6 / 0.75) < 1e-6);
    /* 50% of 4 CPUs busy, 0.75 of them ours: 31.25% background */
    ck_assert(fabs(d.background_pct - 31.25) < 1e-9);
    r->system_pct = 10;
    nvb__cpu_derive(r, &d);
    ck_assert(d.background_pct == 0);
    nvb_result_free(r);
}
END_TEST

START_TEST(derived_figures_are_over_the_measured_window)
{
    /* The CPU was read 20 ms after the window ended (the thread taking the
     * read was late, and idle): the figures are those of the 2 s window,
     * and CPU per I/O and I/Os per core agree. */
    struct nvb_result *r = nvb__result_new();
    r->duration_s = 2.0;
    r->cpu_window_s = 2.02;
    r->tot[0].ios = 2000000;
    r->process_user_s = 0.5;
    r->process_sys_s = 1.0;
    struct nvb__cpu_derived d;
    nvb__cpu_derive(r, &d);
    ck_assert_msg(fabs(d.process_cores - 0.75) < 1e-12, "process_cores %.17g", d.process_cores);
    ck_assert(fabs(d.cpu_us_per_io - 0.75) < 1e-12);
    ck_assert(fabs(d.cpu_us_per_io * d.iops_per_core - 1e6) < 1e-6);
    nvb_result_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cpu");
    TCase *tc = tcase_create("arithmetic");
    tcase_add_test(tc, busy_is_user_nice_system_irq_softirq);
    tcase_add_test(tc, guest_not_counted_twice);
    tcase_add_test(tc, steal_is_apart);
    tcase_add_test(tc, backwards_counters_clamp);
    tcase_add_test(tc, per_cpu_rows_match_by_number);
    tcase_add_test(tc, derived_per_io_figures);
    tcase_add_test(tc, derived_figures_are_over_the_measured_window);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    return failed ? 1 : 0;
}
