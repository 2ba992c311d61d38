/* CPU arithmetic on synthetic counters: what "Total CPU Usage" means,
 * guest time not counted twice, steal apart, derived per-I/O figures. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cpu.h"
#include "core/internal.h"
#include "nvbench.h"
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
    ck_assert_int_eq(nvb__cpu_fill(r, &a, &b, 0, 0), 0);
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
    r->cpu_valid = 1;
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
    /* Ratios over matching edges: the CPU was read at the two edges of
     * window_s, so cores are that CPU over window_s (not over duration_s,
     * which a failed first I/O makes far shorter: process_cores read 1.85
     * for one thread), and CPU per I/O and I/Os per core agree. */
    struct nvb_result *r = nvb__result_new();
    r->duration_s = 0.0004;
    r->cpu_window_s = 0.002;
    r->tot[0].ios = 1;
    r->process_user_s = 0.0005;
    r->process_sys_s = 0.0010;
    struct nvb__cpu_derived d;
    nvb__cpu_derive(r, &d);
    ck_assert_msg(fabs(d.process_cores - 0.75) < 1e-12, "process_cores %.17g", d.process_cores);
    ck_assert(d.process_cores <= 1.0);
    ck_assert(fabs(d.cpu_us_per_io * d.iops_per_core - 1e6) < 1e-6);
    nvb_result_free(r);
}
END_TEST

/* No measurement is null (NaN), never 0: no I/O counted, no window. */
START_TEST(derived_figures_null_without_measurement)
{
    struct nvb_result *r = nvb__result_new();
    r->duration_s = 0;
    r->cpu_window_s = 0.001;
    r->process_user_s = 0.0002;
    struct nvb__cpu_derived d;
    nvb__cpu_derive(r, &d); /* no I/O completed */
    ck_assert_msg(isnan(d.cpu_us_per_io), "cpu_us_per_io %g", d.cpu_us_per_io);
    ck_assert_msg(isnan(d.iops_per_core), "iops_per_core %g", d.iops_per_core);
    ck_assert_msg(isnan(d.background_pct), "background_pct %g without system figures", d.background_pct);
    r->cpu_window_s = 0; /* no window */
    nvb__cpu_derive(r, &d);
    ck_assert(isnan(d.process_cores));
    nvb_result_free(r);
}
END_TEST

#define TICK 10000000ull /* 10 ms: USER_HZ 100 */

/* A window of one tick: the io_uring run of 10 I/Os (0.65 ms) had every
 * share 0 and parts summing to 0; psync's (1.2 ms) had system_pct 100 and
 * a "machine not quiet" warning. With too few ticks the shares are not
 * valid, and the reason names the tick and USER_HZ. */
START_TEST(too_few_ticks_are_no_share)
{
    struct nvb__sys_sample a = {0, T(0, 0, 0, 0, 0, 0, 0, 0, 0), NULL, NULL, TICK};
    struct nvb__sys_sample b = {0, T(0, 0, 0, 0, 0, 0, 0, 0, 0), NULL, NULL, TICK};
    struct nvb_result *r = nvb__result_new();
    r->ncpus_online = 2;
    ck_assert_int_eq(nvb__cpu_fill(r, &a, &b, 300000, 50000), 0); /* no tick at all */
    ck_assert_int_eq(r->cpu_valid, 0);
    ck_assert_msg(strstr(r->cpu_null_reason, "USER_HZ 100") && strstr(r->cpu_null_reason, "10 ms"), "reason: %s",
                  r->cpu_null_reason);
    b.total = T(TICK, 0, 0, TICK, 0, 0, 0, 0, 0); /* one tick busy, one idle: 50 % from 2 ticks */
    ck_assert_int_eq(nvb__cpu_fill(r, &a, &b, 300000, 50000), 0);
    ck_assert_int_eq(r->cpu_valid, 0);
    ck_assert(fabs(r->cpu_ticks - 1.0) < 1e-9);
    ck_assert_msg(nvb__cpu_busy_pct(&a, &b) < 0, "a share from one tick per CPU");
    /* enough ticks: measured */
    b.total = T(10 * TICK, 0, 0, 30 * TICK, 0, 0, 0, 0, 0);
    ck_assert_int_eq(nvb__cpu_fill(r, &a, &b, 300000, 50000), 0);
    ck_assert_int_eq(r->cpu_valid, 1);
    ck_assert(fabs(r->system_pct - 25) < 1e-9);
    ck_assert(fabs(nvb__cpu_busy_pct(&a, &b) - 25) < 1e-9);
    nvb_result_free(r);
}
END_TEST

/* The first cell of make run: Total 17.51, of which nvbench 22.40, other
 * processes 0.00 (clamped). Measured over one window the process's own CPU
 * (precise) is busy time of the machine: the total is raised to cover it,
 * its parts still sum to 100, and this process's share is never above it. */
START_TEST(process_share_never_above_total)
{
    /* 2 CPUs, 1 s: ticks counted 0.35 s busy; the process used 0.448 s */
    struct nvb__sys_sample a = {0, T(0, 0, 0, 0, 0, 0, 0, 0, 0), NULL, NULL, TICK};
    struct nvb__sys_sample b = {0, T(25 * TICK, 0, 10 * TICK, 165 * TICK, 0, 0, 0, 0, 0), NULL, NULL, TICK};
    struct nvb_result *r = nvb__result_new();
    r->ncpus_online = 2;
    ck_assert_int_eq(nvb__cpu_fill(r, &a, &b, 348000000, 100000000), 0);
    ck_assert_int_eq(r->cpu_valid, 1);
    r->process_user_s = 0.348;
    r->process_sys_s = 0.100;
    r->cpu_window_s = 1.0;
    r->tot[0].ios = 1000;
    struct nvb__cpu_derived d;
    nvb__cpu_derive(r, &d);
    ck_assert_msg(d.nvbench_pct <= r->system_pct + 1e-9, "nvbench %.2f %% of a total of %.2f %%", d.nvbench_pct,
                  r->system_pct);
    ck_assert(fabs(r->system_pct - 22.4) < 1e-9);
    ck_assert(fabs(r->cpu_raised_pct - 4.9) < 1e-9);
    ck_assert(d.background_pct >= 0);
    ck_assert(fabs(r->system_pct + r->iowait_pct + r->steal_pct + r->idle_pct - 100) < 1e-9);
    ck_assert(fabs(r->user_pct + r->sys_pct + r->irq_pct - r->system_pct) < 1e-9);
    /* more CPU than the counters saw elapse: not one window, not reconcilable */
    ck_assert_int_eq(nvb__cpu_fill(r, &a, &b, 3000000000ull, 0), 0);
    ck_assert_int_eq(r->cpu_valid, 0);
    ck_assert(r->cpu_null_reason[0]);
    nvb_result_free(r);
}
END_TEST

/* Runs: a failed first I/O (fault.rate=1) and a run of 10 I/Os, each far
 * shorter than a tick. Null where there is no measurement, ratios over
 * matching edges, no whole-machine share or warning from a tick or two. */
static struct nvb_result *run_kv(const char *const *kv, const char *file)
{
    struct nvb_workload *w = tu_workload(kv, (const char *[]){file, NULL});
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    struct nvb_result *r = NULL;
    nvb_run(w, &o, &r); /* fault.rate=1 fails: its result is what is checked */
    nvb_workload_free(w);
    ck_assert_ptr_nonnull(r);
    return r;
}

static void check_cpu_of_run(const struct nvb_result *r)
{
    double cpu_s = tu_get(r, "cpu.process_user_s") + tu_get(r, "cpu.process_sys_s");
    double win = tu_get(r, "cpu.window_s"), cores = tu_get(r, "cpu.process_cores");
    double ncpus = tu_get(r, "cpu.ncpus"), sys = tu_get(r, "cpu.system_pct");
    /* matching edges: the CPU read across window_s, divided by it */
    ck_assert_msg(win > 0 && fabs(cores * win - cpu_s) <= 1e-9 * cpu_s + 1e-12, "cores %g window %g cpu %g", cores,
                  win, cpu_s);
    ck_assert_msg(cores <= ncpus, "process_cores %g on %g CPUs", cores, ncpus);
    double ticks = tu_get(r, "cpu.ticks_per_cpu");
    if (isnan(sys)) {
        ck_assert_msg(ticks < NVB__CPU_MIN_TICKS, "system_pct null with %g ticks per CPU", ticks);
        ck_assert(isnan(tu_get(r, "cpu.background_pct")) && isnan(tu_get(r, "cpu.nvbench_pct")));
        ck_assert(isnan(tu_get(r, "cpu.idle_pct")));
    } else {
        ck_assert_msg(ticks >= NVB__CPU_MIN_TICKS, "system_pct %g from %g ticks per CPU", sys, ticks);
        ck_assert(tu_get(r, "cpu.nvbench_pct") <= sys);
    }
    for (size_t i = 0; i < nvb_result_warning_count(r); i++)
        ck_assert_msg(!strstr(nvb_result_warning(r, i), "not quiet") || ticks >= NVB__CPU_MIN_TICKS, "%s",
                      nvb_result_warning(r, i));
}

START_TEST(failed_first_io_has_null_ratios)
{
    char *file = tu_scratch("cpu-fault", 1 << 20);
    struct nvb_result *r = run_kv((const char *[]){"engine", "psync", "rw", "randread", "bs", "4k", "runtime", "1s",
                                                   "fault.rate", "1", NULL}, file);
    ck_assert_int_eq(tu_get(r, "total.ios"), 0);
    ck_assert_msg(isnan(tu_get(r, "cpu.cpu_us_per_io")), "cpu_us_per_io %g, not null", tu_get(r, "cpu.cpu_us_per_io"));
    ck_assert_msg(isnan(tu_get(r, "cpu.iops_per_core")), "iops_per_core %g, not null", tu_get(r, "cpu.iops_per_core"));
    check_cpu_of_run(r);
    nvb_result_free(r);
    unlink(file);
    free(file);
}
END_TEST

START_TEST(short_run_has_no_share_from_a_tick)
{
    char *file = tu_scratch("cpu-short", 1 << 20);
    static const char *const engines[] = {"psync", "io_uring", "null"};
    for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++) {
        struct nvb_result *r = run_kv((const char *[]){"engine", engines[e], "rw", "randread", "bs", "4k", "ios",
                                                       "10", NULL}, file);
        if (nvb_result_error(r) && nvb_result_errors(r) == 0) { /* engine not available here */
            nvb_result_free(r);
            continue;
        }
        check_cpu_of_run(r);
        /* the nulls read back as nulls: the same text written again */
        char *a = NULL, *b = NULL, why[256];
        struct nvb_result *back = NULL;
        ck_assert_int_eq(nvb_result_json(r, &a), 0);
        ck_assert_msg(nvb_result_parse(a, strlen(a), &back, why, sizeof why) == 0, "%s", why);
        ck_assert_int_eq(nvb_result_json(back, &b), 0);
        ck_assert_msg(!strcmp(a, b), "%s: not the same after a round trip", engines[e]);
        nvb_free(a);
        nvb_free(b);
        nvb_result_free(back);
        nvb_result_free(r);
    }
    unlink(file);
    free(file);
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
    tcase_add_test(tc, derived_figures_null_without_measurement);
    tcase_add_test(tc, too_few_ticks_are_no_share);
    tcase_add_test(tc, process_share_never_above_total);
    suite_add_tcase(s, tc);
    tc = tcase_create("runs");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, failed_first_io_has_null_ratios);
    tcase_add_test(tc, short_run_has_no_share_from_a_tick);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    return failed ? 1 : 0;
}
