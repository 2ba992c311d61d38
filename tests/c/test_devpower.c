/*
 * The device's measured power (core/devlog_power.c), without a device:
 *  - Identify Controller's CTRATT bit 21 read for support, the reason
 *    where it is clear (QEMU's controller: tests/vm checks it there);
 *  - Power Measurement log pages (LID 25h) built here byte by byte at the
 *    offsets the NVMe base specification gives them: the generation, the
 *    attributes, the count and the average interval power at both scales;
 *    a short page, an unreported and a reserved scale refused;
 *  - two readings to the average over the intervals between them, within
 *    the bound the rounding of each average allows; a stopped, restarted,
 *    vendor-typed or idle measurement, and one too coarse for its window,
 *    each refused with why;
 *  - device_log.power's measured_w, measured_intervals and
 *    measured_reason written and read back to the same JSON, and refused
 *    where they contradict each other.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/internal.h"
#include "testutil.h"

/* A Power Measurement log's fixed part: PMGN, PMA, PMC and AIPWR (value,
 * scale) at bytes 1, 2-3, 8-11 and 40-43, little endian; the rest 0. */
static void pm_page(uint8_t *b, unsigned gen, unsigned pma, uint32_t pmc, unsigned value, unsigned scale)
{
    memset(b, 0, NVB__PM_LOG_LEN);
    b[1] = (uint8_t)gen;
    b[2] = (uint8_t)pma, b[3] = (uint8_t)(pma >> 8);
    b[4] = NVB__PM_LOG_LEN; /* SZE: the page's size, no descriptors */
    for (int i = 0; i < 4; i++)
        b[8 + i] = (uint8_t)(pmc >> (8 * i));
    const uint32_t aipwr = (value & 0xffff) | scale << 16;
    for (int i = 0; i < 4; i++)
        b[40 + i] = (uint8_t)(aipwr >> (8 * i));
}

static struct nvb__pmlog parsed(unsigned gen, unsigned pma, uint32_t pmc, unsigned value, unsigned scale)
{
    uint8_t b[NVB__PM_LOG_LEN];
    struct nvb__pmlog l;
    char why[200];
    pm_page(b, gen, pma, pmc, value, scale);
    ck_assert_msg(nvb__pm_parse(b, sizeof b, &l, why, sizeof why) == 0, "%s", why);
    return l;
}

START_TEST(support_from_identify_controller)
{
    static uint8_t id[4096];
    char why[200] = "";
    memset(id, 0, sizeof id);
    id[96] = 0x10; /* CTRATT bit 4 (endurance groups) alone */
    ck_assert_int_eq(nvb__pm_supported(id, why, sizeof why), 0);
    ck_assert_str_eq(why, "the controller does not support power measurement (Identify Controller CTRATT bit 21 clear)");
    id[98] = 0x20; /* bit 21 */
    ck_assert_int_eq(nvb__pm_supported(id, why, sizeof why), 1);
}
END_TEST

START_TEST(pages_parse_at_the_spec_offsets)
{
    struct nvb__pmlog l = parsed(3, 0x0005, 1000, 850, 2); /* enabled, estimated; 8.50 W */
    ck_assert_uint_eq(l.gen, 3);
    ck_assert_uint_eq(l.pma, 5);
    ck_assert_uint_eq(l.count, 1000);
    ck_assert_double_eq_tol(l.avg_w, 8.5, 1e-9);
    ck_assert_double_eq_tol(l.step_w, 0.01, 1e-12);
    l = parsed(0, 1, 7, 54321, 1); /* 5.4321 W in 0.0001 W steps */
    ck_assert_double_eq_tol(l.avg_w, 5.4321, 1e-9);
    ck_assert_double_eq_tol(l.step_w, 0.0001, 1e-12);
    uint8_t b[NVB__PM_LOG_LEN];
    char why[200];
    pm_page(b, 0, 1, 7, 100, 2);
    ck_assert_int_eq(nvb__pm_parse(b, NVB__PM_LOG_LEN - 1, &l, why, sizeof why), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "fewer than its 64"));
    pm_page(b, 0, 1, 7, 100, 0);
    ck_assert_int_eq(nvb__pm_parse(b, sizeof b, &l, why, sizeof why), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "reports no average interval power (AIPWR scale 0)"));
    pm_page(b, 0, 1, 7, 100, 3);
    ck_assert_int_eq(nvb__pm_parse(b, sizeof b, &l, why, sizeof why), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "reserved scale"));
}
END_TEST

START_TEST(the_window_between_two_readings)
{
    double w;
    uint32_t n;
    char why[200] = "";
    /* 100 intervals at 8.50 W, then 60 at 12 W: the device's average after is
     * 9.8125 W, reported as 9.81; the window's figure is 12 W within the
     * rounding's bound (0.01 W x 260 / 60) */
    struct nvb__pmlog b = parsed(4, 1, 100, 850, 2), a = parsed(4, 1, 160, 981, 2);
    ck_assert_msg(nvb__pm_window(&b, &a, &w, &n, why, sizeof why) == 0, "%s", why);
    ck_assert_uint_eq(n, 60);
    ck_assert_msg(fabs(w - 12.0) <= 0.01 * 260 / 60, "%g W", w);
    /* from the measurement's first interval: the average after alone */
    b = parsed(5, 1, 0, 0, 1), a = parsed(5, 1, 30, 62500, 1);
    ck_assert_int_eq(nvb__pm_window(&b, &a, &w, &n, why, sizeof why), 0);
    ck_assert_uint_eq(n, 30);
    ck_assert_double_eq_tol(w, 6.25, 1e-9);
    static const struct {
        struct nvb__pmlog b, a;
        const char *why;
    } no[] = {
        {{4, 0, 100, 8.5, 0.01}, {4, 0, 160, 9.81, 0.01}, "power measurement is not running (Power Measurement log 25h: PMA bit 0 clear"},
        {{4, 1, 100, 8.5, 0.01}, {4, 0, 160, 9.81, 0.01}, "is not running"},
        {{4, 0xc001, 100, 8.5, 0.01}, {4, 0xc001, 160, 9.81, 0.01}, "a vendor-specific quantity (Power Measurement log 25h: PMA type 12)"},
        {{4, 1, 100, 8.5, 0.01}, {5, 1, 160, 9.81, 0.01}, "restarted during the run (generation 4 before, 5 after)"},
        {{4, 1, 100, 8.5, 0.01}, {4, 1, 100, 8.5, 0.01}, "no interval power measurement ended during the run (PMC 100 before, 100 after)"},
        /* a day's average moves by a step over 10 s: its rounding swamps the run's */
        {{4, 1, 86400, 8.5, 0.01}, {4, 1, 86410, 8.5, 0.01}, "too coarse for the 10 of the run"},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        why[0] = 0;
        ck_assert_int_eq(nvb__pm_window(&no[i].b, &no[i].a, &w, &n, why, sizeof why), -1);
        ck_assert_msg(strstr(why, no[i].why), "#%zu: %s", i, why);
        ck_assert(w == 0 && n == 0);
    }
}
END_TEST

/* A result of a run on a scratch file (gone again) whose first target's
 * device_log says the power state was read and the measured power is pm_w
 * over pm_n intervals, or pm_reason. */
static struct nvb_result *with_power(double pm_w, uint32_t pm_n, const char *pm_reason)
{
    char *path = tu_scratch("devpower.dat", 1 << 20);
    const char *kv[] = {"rw", "randread", "bs", "4k", "ios", "16", NULL}, *tg[] = {path, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    nvb_workload_free(w);
    unlink(path);
    free(path);
    struct nvb__devlog *d = &r->tg[0].dlog;
    *d = (struct nvb__devlog){.state = 1, .node = "/dev/nvme0n1", .pw = 1, .ps_after = 2, .max_w = 25,
                              .pm_w = pm_w, .pm_n = pm_n};
    snprintf(d->pm_reason, sizeof d->pm_reason, "%s", pm_reason);
    return r;
}

START_TEST(measured_power_in_the_result_and_back)
{
    static const char *const whys[] = {"", "the controller does not support power measurement (Identify "
                                       "Controller CTRATT bit 21 clear)", NVB__POWER_NOT_MEASURED};
    for (int k = 0; k < 3; k++) {
        char *text, *again = NULL;
        struct nvb_result *r = with_power(k ? 0 : 11.9933, k ? 0 : 60, whys[k]), *back = NULL;
        ck_assert_int_eq(nvb_result_json(r, &text), 0);
        if (k == 0)
            ck_assert_ptr_nonnull(strstr(text, "\"measured_w\":11.9933,\"measured_intervals\":60,\"measured_reason\":null}"));
        else
            ck_assert_msg(strstr(text, "\"measured_w\":null,\"measured_reason\":\"") &&
                          strstr(text, whys[k]) && !strstr(text, "measured_intervals"), "%s", text);
        char why[256] = "";
        ck_assert_msg(nvb_result_parse(text, strlen(text), &back, why, sizeof why) == 0, "%s", why);
        ck_assert_double_eq_tol(back->tg[0].dlog.pm_w, k ? 0 : 11.9933, 1e-9);
        ck_assert_int_eq(nvb_result_json(back, &again), 0);
        ck_assert_str_eq(again, text);
        double got = -1;
        if (k == 0) { /* the figure reaches nvb_result_get as any other */
            ck_assert_int_eq(nvb_result_get(back, "per_target.0.device_log.power.measured_w", &got), 0);
            ck_assert_double_eq_tol(got, 11.9933, 1e-9);
        }
        nvb_free(again);
        nvb_result_free(back);
        nvb_free(text);
        nvb_result_free(r);
    }
}
END_TEST

START_TEST(measured_power_read_back_strictly)
{
    char *text;
    struct nvb_result *r = with_power(9.5, 12, "");
    ck_assert_int_eq(nvb_result_json(r, &text), 0);
    static const char *const bad[][3] = {
        {"\"measured_reason\":null", "\"measured_reason\":\"why\"", "device_log.power.measured_reason': not null"},
        {"\"measured_intervals\":12,", "", "device_log.power.measured_intervals': missing where measured_w is"},
        {"\"measured_w\":9.5,\"measured_intervals\":12,\"measured_reason\":null",
         "\"measured_w\":null,\"measured_reason\":null", "device_log.power.measured_reason': not a string"},
        {"\"measured_w\":9.5,", "\"measured_w\":null,", "device_log.power.measured_intervals': present where"},
        {"\"measured_w\":9.5", "\"measured_w\":-9.5", "device_log.power.measured_w': "},
        {"\"measured_w\":9.5,", "", "device_log.power.measured_w': missing"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *edited = tu_edited(text, bad[i][0], bad[i][1]);
        tu_refused_naming(edited, bad[i][2]);
        free(edited);
    }
    nvb_free(text);
    nvb_result_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("devpower");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, support_from_identify_controller);
    tcase_add_test(tc, pages_parse_at_the_spec_offsets);
    tcase_add_test(tc, the_window_between_two_readings);
    tcase_add_test(tc, measured_power_in_the_result_and_back);
    tcase_add_test(tc, measured_power_read_back_strictly);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
