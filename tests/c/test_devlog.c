/*
 * What the device did during a run (core/devlog.c) and the packages'
 * energy (core/energy.c):
 *  - the NVMe health log parsed from a log page laid out as the spec says
 *    (no NVMe hardware here; tests/vm reads a real controller's);
 *  - device_log in the result: before, after, delta and the derived
 *    figures, read back by nvb_result_from_json to the same JSON;
 *  - the warnings: temperature over the threshold, throttling, media errors;
 *  - "unavailable" with the reason on a scratch file and on a loop device;
 *  - the power state (device_log.power): a descriptor's maximum power at
 *    both scales, and the section read back to the same JSON, available
 *    or not, absent where it was not asked;
 *  - media writes (device_log.media): the endurance group log and OCP's
 *    C0h page parsed from bytes built here, a wrong GUID and a short page
 *    refused; write_amplification and its reason, read back to the same JSON;
 *  - RAPL from a recorded powercap tree (tests/data/powercap), a counter
 *    that wraps, and the reason on this machine when it has none.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/internal.h"
#include "testutil.h"

static void put_le(uint8_t *b, unsigned off, unsigned width, uint64_t v)
{
    for (unsigned i = 0; i < width && i < 8; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}

/* A health log page as a controller returns it: the values at the spec's offsets. */
static void make_log(uint8_t *b, uint64_t duw, uint64_t dur, uint64_t hwc, uint64_t hrc, unsigned temp_k)
{
    memset(b, 0, NVB__SMART_LOG_LEN);
    b[0] = 0;                  /* critical warning */
    put_le(b, 1, 2, temp_k);   /* composite temperature */
    b[3] = 100;                /* available spare */
    b[4] = 10;                 /* its threshold */
    b[5] = 3;                  /* percentage used */
    put_le(b, 32, 16, dur);
    put_le(b, 48, 16, duw);
    put_le(b, 64, 16, hrc);
    put_le(b, 80, 16, hwc);
    put_le(b, 96, 16, 42);     /* controller busy time, minutes */
    put_le(b, 112, 16, 7);     /* power cycles */
    put_le(b, 128, 16, 1234);  /* power on hours */
    put_le(b, 160, 16, 0);     /* media errors */
    put_le(b, 192, 4, 5);      /* warning composite temperature time */
    put_le(b, 216, 4, 2);      /* thermal management 1 transitions */
}

/* d as read through /dev/nvme0n1: health logs before and after, data units
 * written duw0 then duw1, the rest as make_log's. */
static void fake_read(struct nvb__devlog *d, uint64_t duw0, uint64_t duw1)
{
    uint8_t b[NVB__SMART_LOG_LEN];
    memset(d, 0, sizeof *d);
    d->state = 1;
    snprintf(d->node, sizeof d->node, "/dev/nvme0n1");
    make_log(b, duw0, 2, 3, 4, 310);
    nvb__smart_parse(b, sizeof b, d->before);
    make_log(b, duw1, 2, 3, 4, 310);
    nvb__smart_parse(b, sizeof b, d->after);
}

START_TEST(health_log_parses_at_the_spec_offsets)
{
    uint8_t b[NVB__SMART_LOG_LEN];
    uint64_t v[NVB__SM_N];
    make_log(b, 123456, 654321, 1000, 2000, 310);
    ck_assert_int_eq(nvb__smart_parse(b, sizeof b, v), 0);
    ck_assert_uint_eq(v[NVB__SM_DATA_UNITS_WRITTEN], 123456);
    ck_assert_uint_eq(v[NVB__SM_DATA_UNITS_READ], 654321);
    ck_assert_uint_eq(v[NVB__SM_HOST_WRITE_COMMANDS], 1000);
    ck_assert_uint_eq(v[NVB__SM_HOST_READ_COMMANDS], 2000);
    ck_assert_uint_eq(v[NVB__SM_TEMPERATURE_K], 310);
    ck_assert_uint_eq(v[NVB__SM_AVAILABLE_SPARE], 100);
    ck_assert_uint_eq(v[NVB__SM_AVAILABLE_SPARE_THRESHOLD], 10);
    ck_assert_uint_eq(v[NVB__SM_PERCENTAGE_USED], 3);
    ck_assert_uint_eq(v[NVB__SM_CONTROLLER_BUSY_TIME], 42);
    ck_assert_uint_eq(v[NVB__SM_POWER_CYCLES], 7);
    ck_assert_uint_eq(v[NVB__SM_POWER_ON_HOURS], 1234);
    ck_assert_uint_eq(v[NVB__SM_WARNING_TEMPERATURE_TIME], 5);
    ck_assert_uint_eq(v[NVB__SM_THERMAL_MGMT_1_TRANSITIONS], 2);
    /* a 128-bit counter past 64 bits saturates rather than wrapping */
    b[48 + 9] = 1;
    ck_assert_int_eq(nvb__smart_parse(b, sizeof b, v), 0);
    ck_assert_uint_eq(v[NVB__SM_DATA_UNITS_WRITTEN], UINT64_MAX);
    ck_assert_int_eq(nvb__smart_parse(b, 511, v), -EINVAL);
    for (unsigned i = 0; i < NVB__SM_N; i++)
        ck_assert_ptr_nonnull(nvb__smart_name(i));
    ck_assert_ptr_null(nvb__smart_name(NVB__SM_N));
}
END_TEST

static struct nvb_result *scratch_run(const char *rw, char **path)
{
    *path = tu_scratch("devlog.dat", 4 << 20);
    const char *kv[] = {"rw", rw, "bs", "4k", "size", "4m", "ios", "256", NULL};
    const char *tg[] = {*path, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    nvb_workload_free(w);
    return r;
}

static struct nvb__jv *result_tree(const struct nvb_result *r, char **text)
{
    ck_assert_int_eq(nvb_result_json(r, text), 0);
    struct nvb__jv *root = NULL;
    char why[200];
    ck_assert_int_eq(nvb__json_parse(*text, strlen(*text), &root, why, sizeof why), 0);
    return root;
}

static const struct nvb__jv *target_devlog(const struct nvb__jv *root)
{
    const struct nvb__jv *pt = nvb__json_get(root, "per_target");
    ck_assert_ptr_nonnull(pt);
    ck_assert_uint_ge(pt->n, 1);
    const struct nvb__jv *d = nvb__json_get(&pt->kid[0], "device_log");
    ck_assert_ptr_nonnull(d);
    return d;
}

START_TEST(a_file_not_on_nvme_says_why)
{
    char *path, *text;
    struct nvb_result *r = scratch_run("randwrite", &path);
    struct nvb__jv *root = result_tree(r, &text);
    const struct nvb__jv *d = target_devlog(root);
    ck_assert_int_eq(nvb__json_get(d, "available")->type, NVB__J_FALSE);
    const struct nvb__jv *why = nvb__json_get(d, "reason");
    ck_assert_int_eq(why->type, NVB__J_STR);
    ck_assert_msg(strstr(why->s, "not on an NVMe namespace") || strstr(why->s, "no block device"), "%s", why->s);
    ck_assert_ptr_null(nvb__json_get(d, "delta"));
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
    free(path);
}
END_TEST

START_TEST(a_loop_device_is_not_nvme)
{
    if (!tu_is_root())
        tu_skip("a loop device needs root");
    char *backing = tu_scratch("devlog-loop.img", 8 << 20), dev[64];
    if (tu_losetup(backing, dev, sizeof dev) < 0)
        tu_skip("losetup -f --show failed");
    const char *kv[] = {"rw", "randread", "bs", "4k", "ios", "64", NULL};
    const char *tg[] = {dev, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    char *text;
    struct nvb__jv *root = result_tree(r, &text);
    const struct nvb__jv *d = target_devlog(root);
    ck_assert_int_eq(nvb__json_get(d, "available")->type, NVB__J_FALSE);
    const char *why = nvb__json_get(d, "reason")->s;
    ck_assert_msg(strstr(why, dev) && strstr(why, "not an NVMe namespace"), "%s", why);
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
    nvb_workload_free(w);
    tu_sh("losetup -d %s", dev);
    free(backing);
}
END_TEST

/* A result whose target carries a health log read before and after: what
 * the JSON says, and that it reads back to the same JSON. */
START_TEST(deltas_and_derived_figures_round_trip)
{
    char *path, *text;
    struct nvb_result *r = scratch_run("randwrite", &path);
    struct nvb__tstat *ts = &r->tg[0];
    uint64_t host_bytes = ts->d[NVB_WRITE].bytes, host_ios = ts->d[NVB_WRITE].ios;
    ck_assert_uint_eq(host_bytes, 256 * 4096);
    uint8_t b[NVB__SMART_LOG_LEN];
    struct nvb__devlog *d = &ts->dlog;
    memset(d, 0, sizeof *d);
    d->state = 1;
    snprintf(d->node, sizeof d->node, "/dev/nvme0n1");
    d->warn_temp_k = 343;
    make_log(b, 1000, 500, 10, 20, 310);
    nvb__smart_parse(b, sizeof b, d->before);
    /* the device wrote 2 x the host's bytes (in data units of 512000), 256 commands */
    uint64_t units = 2 * host_bytes / NVB__SMART_DATA_UNIT;
    make_log(b, 1000 + units, 500, 10 + host_ios, 20, 312);
    nvb__smart_parse(b, sizeof b, d->after);
    struct nvb__jv *root = result_tree(r, &text);
    const struct nvb__jv *j = target_devlog(root);
    ck_assert_int_eq(nvb__json_get(j, "available")->type, NVB__J_TRUE);
    uint64_t x;
    ck_assert_int_eq(nvb__json_u64(nvb__json_get(nvb__json_get(j, "delta"), "data_units_written"), &x), 0);
    ck_assert_uint_eq(x, units);
    ck_assert_int_eq(nvb__json_u64(nvb__json_get(nvb__json_get(j, "delta"), "host_write_commands"), &x), 0);
    ck_assert_uint_eq(x, host_ios);
    ck_assert_int_eq(nvb__json_u64(nvb__json_get(nvb__json_get(j, "after"), "temperature_k"), &x), 0);
    ck_assert_uint_eq(x, 312);
    double ratio, cpi;
    ck_assert_int_eq(nvb__json_dbl(nvb__json_get(j, "device_bytes_per_host_byte"), &ratio), 0);
    ck_assert_double_eq_tol(ratio, (double)(units * NVB__SMART_DATA_UNIT) / (double)host_bytes, 1e-5);
    ck_assert_int_eq(nvb__json_dbl(nvb__json_get(j, "host_commands_per_io"), &cpi), 0);
    ck_assert_double_eq_tol(cpi, 1.0, 1e-9);
    ck_assert_int_eq(nvb__json_get(j, "device_read_bytes_per_host_byte")->type, NVB__J_NULL);
    /* read back: the same text */
    struct nvb_result *back = NULL;
    ck_assert_int_eq(nvb_result_from_json(text, &back), 0);
    char *text2;
    ck_assert_int_eq(nvb_result_json(back, &text2), 0);
    ck_assert_str_eq(text, text2);
    ck_assert_int_eq(back->tg[0].dlog.state, 1);
    nvb_free(text2);
    nvb_result_free(back);
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
    free(path);
}
END_TEST

START_TEST(power_state_and_back)
{
    /* Identify Controller: NPSS 1 (two states); state 0 2500 x 0.01 W, state 1 120000 x 0.0001 W */
    static uint8_t id[4096];
    memset(id, 0, sizeof id);
    id[263] = 1;
    put_le(id, 2048, 2, 2500);
    put_le(id, 2048 + 32, 2, 120000 & 0xffff);
    id[2048 + 32 + 3] = 1; /* MXPS */
    ck_assert_double_eq_tol(nvb__psd_max_w(id, 0), 25.0, 1e-9);
    ck_assert_double_eq_tol(nvb__psd_max_w(id, 1), (120000 & 0xffff) * 0.0001, 1e-9);
    ck_assert_double_eq(nvb__psd_max_w(id, 2), 0); /* past NPSS */
    char *path, *text;
    struct nvb_result *r = scratch_run("randread", &path);
    struct nvb__devlog *d = &r->tg[0].dlog;
    for (int k = 0; k < 3; k++) {
        fake_read(d, 1, 1);
        if (k == 1) {
            d->pw = 1, d->ps_before = 0, d->ps_after = 1, d->max_w = nvb__psd_max_w(id, 1);
        } else if (k == 2) {
            d->pw = 2;
            snprintf(d->pw_reason, sizeof d->pw_reason, "Get Features (power management, 02h) failed");
        }
        struct nvb__jv *root = result_tree(r, &text);
        const struct nvb__jv *p = nvb__json_get(target_devlog(root), "power");
        if (k == 0) {
            ck_assert_ptr_null(p); /* not asked: absent, as in results from before it */
        } else if (k == 1) {
            uint64_t x;
            double w;
            ck_assert_int_eq(nvb__json_get(p, "available")->type, NVB__J_TRUE);
            ck_assert_int_eq(nvb__json_u64(nvb__json_get(p, "state_after"), &x), 0);
            ck_assert_uint_eq(x, 1);
            ck_assert_int_eq(nvb__json_dbl(nvb__json_get(p, "max_power_w"), &w), 0);
            ck_assert_double_eq_tol(w, 5.4464, 1e-9);
            ck_assert_int_eq(nvb__json_get(p, "measured_w")->type, NVB__J_NULL);
            ck_assert_int_eq(nvb__json_get(p, "measured_reason")->type, NVB__J_STR);
        } else {
            ck_assert_int_eq(nvb__json_get(p, "available")->type, NVB__J_FALSE);
            ck_assert_str_eq(nvb__json_get(p, "reason")->s, "Get Features (power management, 02h) failed");
        }
        struct nvb_result *back = NULL;
        ck_assert_int_eq(nvb_result_from_json(text, &back), 0);
        char *text2;
        ck_assert_int_eq(nvb_result_json(back, &text2), 0);
        ck_assert_str_eq(text, text2);
        ck_assert_int_eq(back->tg[0].dlog.pw, k);
        nvb_free(text2);
        nvb_result_free(back);
        nvb__json_free(root);
        nvb_free(text);
    }
    nvb_result_free(r);
    unlink(path);
    free(path);
}
END_TEST

static int has_warning(const struct nvb_result *r, const char *what)
{
    for (unsigned i = 0; i < r->nwarn; i++)
        if (strstr(r->warn[i], what))
            return 1;
    return 0;
}

START_TEST(temperature_throttling_and_media_errors_warn)
{
    char *path;
    struct nvb_result *r = scratch_run("randread", &path);
    struct nvb__devlog *d = &r->tg[0].dlog;
    uint8_t b[NVB__SMART_LOG_LEN];
    memset(d, 0, sizeof *d);
    d->state = 1;
    d->warn_temp_k = 343;
    make_log(b, 0, 0, 0, 0, 320);
    nvb__smart_parse(b, sizeof b, d->before);
    memcpy(d->after, d->before, sizeof d->after);
    unsigned n0 = r->nwarn;
    nvb__devlog_warnings(r, 0);
    ck_assert_uint_eq(r->nwarn, n0); /* nothing changed: no warning */
    d->after[NVB__SM_TEMPERATURE_K] = 345;
    nvb__devlog_warnings(r, 0);
    ck_assert(has_warning(r, "crossed its warning threshold"));
    ck_assert(!has_warning(r, "throttled during the run"));
    d->after[NVB__SM_TEMPERATURE_K] = 320;
    d->after[NVB__SM_THERMAL_MGMT_2_TRANSITIONS] = 1;
    d->after[NVB__SM_MEDIA_ERRORS] = 3;
    nvb__devlog_warnings(r, 0);
    ck_assert(has_warning(r, "throttled during the run"));
    ck_assert(has_warning(r, "integrity errors grew by 3"));
    nvb_result_free(r);
    free(path);
}
END_TEST

/* ---- device_log written as before the table of figures ----
 * The writer devlog.c had before device_log became rows of the table
 * (c642c3c), kept here as the reference of the bytes results have: the
 * table's writer must give the same text for every value, and what it
 * writes must read back to the same text. */
static const char *const was_names[] = {
    "critical_warning", "temperature_k", "available_spare", "available_spare_threshold", "percentage_used",
    "data_units_read", "data_units_written", "host_read_commands", "host_write_commands",
    "controller_busy_time", "power_cycles", "power_on_hours", "unsafe_shutdowns", "media_errors",
    "error_information_log_entries", "warning_composite_temperature_time", "critical_composite_temperature_time",
    "thermal_management_temperature_1_transition_count", "thermal_management_temperature_2_transition_count",
    "thermal_management_temperature_1_total_time", "thermal_management_temperature_2_total_time"};

static void was_ratio(struct nvb__buf *b, const char *key, uint64_t num, uint64_t den, double scale)
{
    if (den == 0)
        nvb__buf_printf(b, ",\"%s\":null", key);
    else
        nvb__buf_printf(b, ",\"%s\":%.6g", key, (double)num * scale / (double)den);
}

static void was_power(struct nvb__buf *b, const struct nvb__devlog *d)
{
    if (d->pw == 2) {
        nvb__buf_puts(b, ",\"power\":{\"available\":false,\"reason\":");
        nvb__json_write_str(b, d->pw_reason);
        nvb__buf_puts(b, "}");
        return;
    }
    nvb__buf_printf(b, ",\"power\":{\"available\":true,\"reason\":null,\"state_before\":%u,\"state_after\":%u,"
                    "\"max_power_w\":", d->ps_before, d->ps_after);
    if (d->max_w > 0)
        nvb__buf_printf(b, "%.6g", d->max_w);
    else
        nvb__buf_puts(b, "null");
    nvb__buf_puts(b, ",\"measured_w\":null,\"measured_reason\":\"" NVB__POWER_NOT_MEASURED "\"}");
}

static char *was_json(const struct nvb_result *r, const struct nvb__tstat *ts)
{
    const struct nvb__devlog *d = &ts->dlog;
    struct nvb__buf b = {0};
    int ok = d->state == 1;
    nvb__buf_printf(&b, "\"device_log\":{\"available\":%s,\"reason\":", ok ? "true" : "false");
    if (ok)
        nvb__buf_puts(&b, "null,\"node\":");
    else
        nvb__json_write_str(&b, d->reason);
    if (ok) {
        nvb__json_write_str(&b, d->node);
        if (d->warn_temp_k)
            nvb__buf_printf(&b, ",\"warning_threshold_k\":%u", d->warn_temp_k);
        else
            nvb__buf_puts(&b, ",\"warning_threshold_k\":null");
        static const char *const part[] = {"before", "after", "delta"};
        for (int k = 0; k < 3; k++) {
            nvb__buf_printf(&b, ",\"%s\":{", part[k]);
            for (unsigned i = 0; i < NVB__SM_N; i++) {
                if (k < 2)
                    nvb__buf_printf(&b, "%s\"%s\":%" PRIu64, i ? "," : "", was_names[i], (k ? d->after : d->before)[i]);
                else
                    nvb__buf_printf(&b, "%s\"%s\":%" PRId64, i ? "," : "", was_names[i],
                                    (int64_t)(d->after[i] - d->before[i]));
            }
            nvb__buf_puts(&b, "}");
        }
        const uint64_t *a = d->after, *bf = d->before;
        uint64_t wr = ts->d[NVB_WRITE].bytes, rd = ts->d[NVB_READ].bytes;
        uint64_t ios = ts->d[NVB_READ].ios + ts->d[NVB_WRITE].ios;
        if (r->ramp_s > 0) {
            nvb__buf_puts(&b, ",\"device_bytes_per_host_byte\":null,\"device_read_bytes_per_host_byte\":null,"
                              "\"host_commands_per_io\":null,\"derived_reason\":\"the device's counters include "
                              "the ramp, the run's figures do not\"");
        } else {
            was_ratio(&b, "device_bytes_per_host_byte", a[NVB__SM_DATA_UNITS_WRITTEN] - bf[NVB__SM_DATA_UNITS_WRITTEN],
                      wr, (double)NVB__SMART_DATA_UNIT);
            was_ratio(&b, "device_read_bytes_per_host_byte", a[NVB__SM_DATA_UNITS_READ] - bf[NVB__SM_DATA_UNITS_READ],
                      rd, (double)NVB__SMART_DATA_UNIT);
            was_ratio(&b, "host_commands_per_io",
                      a[NVB__SM_HOST_READ_COMMANDS] - bf[NVB__SM_HOST_READ_COMMANDS] +
                      a[NVB__SM_HOST_WRITE_COMMANDS] - bf[NVB__SM_HOST_WRITE_COMMANDS], ios, 1.0);
            nvb__buf_puts(&b, ",\"derived_reason\":null");
        }
        if (d->pw)
            was_power(&b, d);
    }
    nvb__buf_puts(&b, "}");
    ck_assert(!b.oom);
    return b.s;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* A count as logs have them, and past them: 0, small, 32-bit, 2^53 + 1, any 64-bit, saturated. */
static uint64_t any_count(uint64_t *s)
{
    switch (rnd(s) % 8) {
    case 0: return 0;
    case 1: return rnd(s) % 1000;
    case 2: return rnd(s) & 0xffffffffu;
    case 3: return (1ull << 53) + 1;
    case 4: return UINT64_MAX;
    case 5: return UINT64_MAX - rnd(s) % 3;
    default: return rnd(s) >> (rnd(s) % 64);
    }
}

/* A double as max_power_w has them: 0, whole watts (2500000 is 2.5e+06 in
 * 6 digits), a descriptor's 0.0001 W steps, any magnitude. */
static double any_watts(uint64_t *s)
{
    switch (rnd(s) % 6) {
    case 0: return 0;
    case 1: return (double)(rnd(s) % 10000000);
    case 2: return (double)(rnd(s) % 65536) * 0.0001;
    case 3: return (double)(rnd(s) % 65536) * 0.01;
    default: return ldexp((double)(rnd(s) >> 11) / 9007199254740992.0, (int)(rnd(s) % 60) - 20);
    }
}

/* Text with what JSON escapes: quotes, backslashes, control characters, UTF-8. */
static void any_text(uint64_t *s, char *buf, size_t len)
{
    static const char *const bits[] = {"a", "Z", " ", "\"", "\\", "\n", "\t", "\x01", "\x1f", "/", "\xc3\xa9", ":"};
    size_t n = 0, want = rnd(s) % len;
    buf[0] = 0;
    while (n < want) {
        const char *b = bits[rnd(s) % 12];
        if (n + strlen(b) >= len)
            break;
        memcpy(buf + n, b, strlen(b) + 1);
        n += strlen(b);
    }
}

static void any_devlog(uint64_t *s, struct nvb__devlog *d)
{
    memset(d, 0, sizeof *d);
    d->state = (int)(rnd(s) % 10 < 7 ? 1 : rnd(s) % 2 ? 2 : 0);
    any_text(s, d->reason, sizeof d->reason);
    any_text(s, d->node, sizeof d->node);
    d->warn_temp_k = rnd(s) % 3 == 0 ? 0 : rnd(s) % 4 == 0 ? UINT32_MAX : (uint32_t)rnd(s);
    /* the fields results had then (a field added since is 0: absent, as in those results) */
    for (unsigned i = 0; i < sizeof was_names / sizeof *was_names; i++) {
        d->before[i] = any_count(s);
        /* mostly grown by a little, sometimes fallen, sometimes anything */
        d->after[i] = rnd(s) % 4 ? d->before[i] + rnd(s) % 100000 : any_count(s);
    }
    d->pw = (int)(rnd(s) % 3);
    any_text(s, d->pw_reason, sizeof d->pw_reason);
    d->ps_before = (unsigned)(rnd(s) % 32);
    d->ps_after = (unsigned)(rnd(s) % 32);
    d->max_w = any_watts(s);
    /* what results from before the power measurement said: read back as written */
    snprintf(d->pm_reason, sizeof d->pm_reason, "%s", NVB__POWER_NOT_MEASURED);
}

/* The table's writer against the old one over generated logs (N of them,
 * NVB_DEVLOG_CMP_N to ask for more): the same bytes, and each result read
 * back writes the same text; on runs that wrote, read, both, and a target
 * with no I/O (ratios over 0: written only), with and without a ramp. */
START_TEST(device_log_as_it_was_written_before_the_table)
{
    const char *env = getenv("NVB_DEVLOG_CMP_N");
    const long n = env ? atol(env) : 1000;
    static const char *const rws[] = {"randwrite", "randread", "randrw"};
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    long compared = 0, reloaded = 0;
    for (int k = 0; k < 4; k++) {
        char *path;
        struct nvb_result *r = scratch_run(rws[k % 3], &path);
        struct nvb__tstat *ts = &r->tg[0];
        struct nvb__dstat keep[2] = {ts->d[0], ts->d[1]};
        if (k == 3) /* no I/O to this target: each ratio over 0 */
            for (int d = 0; d < 2; d++)
                ts->d[d].ios = ts->d[d].bytes = 0;
        for (long i = 0; i < n; i++) {
            any_devlog(&seed, &ts->dlog);
            r->ramp_s = rnd(&seed) % 4 == 0 ? 0.5 : 0;
            char *text;
            ck_assert_int_eq(nvb_result_json(r, &text), 0);
            const char *at = strstr(text, "\"device_log\":");
            if (ts->dlog.state == 0) {
                ck_assert_ptr_null(at);
            } else {
                char *want = was_json(r, ts);
                ck_assert_msg(at, "#%ld: no device_log", i);
                size_t m = 0;
                while (want[m] && want[m] == at[m])
                    m++;
                ck_assert_msg(!want[m] && strchr(",}", at[m]), "#%ld: from byte %zu the old writer wrote\n%.80s\nthe "
                              "table's\n%.80s", i, m, want + (m > 20 ? m - 20 : 0), at + (m > 20 ? m - 20 : 0));
                free(want);
                compared++;
            }
            if (k < 3) { /* read back: the same text */
                struct nvb_result *back = NULL;
                char *text2;
                ck_assert_int_eq(nvb_result_from_json(text, &back), 0);
                ck_assert_int_eq(nvb_result_json(back, &text2), 0);
                ck_assert_str_eq(text, text2);
                nvb_free(text2);
                nvb_result_free(back);
                reloaded++;
            }
            nvb_free(text);
        }
        ts->d[0] = keep[0], ts->d[1] = keep[1];
        nvb_result_free(r);
        unlink(path);
        free(path);
    }
    ck_assert_int_gt(compared, n * 2);
    ck_assert_int_eq(reloaded, 3 * n);
}
END_TEST

/* The table's reader is strict as every object's: what the schema refuses
 * is refused naming the key (the reader before it took a missing node as
 * "", a malformed threshold or max_power_w as null); derived keys are not
 * read, so a result with them changed loads and has them written again. */
START_TEST(device_log_read_back_strictly)
{
    char *path, *text;
    struct nvb_result *r = scratch_run("randwrite", &path);
    struct nvb__devlog *d = &r->tg[0].dlog;
    memset(d, 0, sizeof *d);
    *d = (struct nvb__devlog){.state = 1, .node = "/dev/nvme0n1", .warn_temp_k = 343, .pw = 1, .ps_after = 3,
                              .max_w = 25};
    ck_assert_int_eq(nvb_result_json(r, &text), 0);
    static const char *const bad[][3] = {
        {"\"node\":\"/dev/nvme0n1\",", "", "'per_target.0.device_log.node': missing"},
        {"\"warning_threshold_k\":343", "\"warning_threshold_k\":\"343\"", "device_log.warning_threshold_k': expected a number"},
        {"\"state_after\":3", "\"state_after\":32", "device_log.power.state_after': not a power state"},
        {"\"max_power_w\":25", "\"max_power_w\":-25", "device_log.power.max_power_w': negative"},
        {"\"before\":{\"critical_warning\":0,", "\"before\":{", "device_log.before.critical_warning': missing"},
        {"\"device_log\":{\"available\":true,", "\"device_log\":{\"available\":1,", "'per_target.0.device_log': expected an object"},
        {"\"device_bytes_per_host_byte\":0,", "\"device_bytes_per_host_byte\":\"x\",", NULL},
        {"\"delta\":{\"critical_warning\":0,", "\"delta\":{\"critical_warning\":7,", NULL}};
    for (int i = 0; i < 8; i++) {
        char *edited = tu_edited(text, bad[i][0], bad[i][1]);
        struct nvb_result *back = NULL;
        char why[256] = "", *again = NULL;
        const int rc = nvb_result_parse(edited, strlen(edited), &back, why, sizeof why);
        if (bad[i][2]) {
            ck_assert_msg(rc == -EINVAL && strstr(why, bad[i][2]), "%s: %d %s", bad[i][2], rc, why);
        } else { /* derived: not read, written again as it was */
            ck_assert_msg(rc == 0, "%s", why);
            ck_assert_int_eq(nvb_result_json(back, &again), 0);
            ck_assert_str_eq(again, text);
            nvb_free(again);
            nvb_result_free(back);
        }
        free(edited);
    }
    nvb_free(text);
    nvb_result_free(r);
    unlink(path);
    free(path);
}
END_TEST

/* ---- energy ---- */
static char *powercap_tree(const char *uj0, const char *uj1)
{
    char *root = tu_mkdtemp("powercap");
    ck_assert_int_eq(tu_sh("cp -r %s/tests/data/powercap/. %s", NVB_SOURCE_DIR, root), 0);
    ck_assert_int_eq(tu_sh("echo %s > %s/intel-rapl:0/energy_uj && echo %s > %s/intel-rapl:1/energy_uj",
                           uj0, root, uj1, root), 0);
    return root;
}

START_TEST(rapl_from_a_recorded_tree)
{
    char *root = powercap_tree("1000000", "5000000");
    struct nvb__rapl a, b;
    char why[200];
    ck_assert_int_eq(nvb__rapl_read(root, &a, why, sizeof why), 0);
    ck_assert_uint_eq(a.n, 2); /* two packages; psys and the core/dram subzones are not summed */
    ck_assert_str_eq(a.name[0], "package-0");
    ck_assert_int_eq(tu_sh("echo 3500000 > %s/intel-rapl:0/energy_uj && echo 6000000 > %s/intel-rapl:1/energy_uj",
                           root, root), 0);
    ck_assert_int_eq(nvb__rapl_read(root, &b, why, sizeof why), 0);
    ck_assert_double_eq_tol(nvb__rapl_joules(&a, &b), 2.5 + 1.0, 1e-9);
    /* package-0 wraps at its max_energy_range_uj (262143328850 in the tree) */
    ck_assert_int_eq(tu_sh("echo 262143000000 > %s/intel-rapl:0/energy_uj", root), 0);
    ck_assert_int_eq(nvb__rapl_read(root, &a, why, sizeof why), 0);
    ck_assert_int_eq(tu_sh("echo 671149 > %s/intel-rapl:0/energy_uj", root), 0);
    ck_assert_int_eq(nvb__rapl_read(root, &b, why, sizeof why), 0);
    ck_assert_double_eq_tol(nvb__rapl_joules(&a, &b), 1.0 + 0.0, 1e-6);
    tu_sh("rm -rf %s", root);
    free(root);
}
END_TEST

START_TEST(energy_in_the_result_and_back)
{
    char *path, *text;
    struct nvb_result *r = scratch_run("randread", &path);
    /* this machine: measured, or unavailable with the reason */
    struct nvb__jv *root = result_tree(r, &text);
    const struct nvb__jv *e = nvb__json_get(root, "energy");
    ck_assert_ptr_nonnull(e);
    struct nvb__rapl here;
    char why[200];
    if (nvb__rapl_read(NVB__POWERCAP_ROOT, &here, why, sizeof why) < 0) {
        ck_assert_int_eq(nvb__json_get(e, "available")->type, NVB__J_FALSE);
        ck_assert_str_eq(nvb__json_get(e, "reason")->s, why);
    } else {
        ck_assert_int_eq(nvb__json_get(e, "available")->type, NVB__J_TRUE);
    }
    nvb__json_free(root);
    nvb_free(text);
    /* a run on the recorded tree: joules and joules per I/O */
    char *tree = powercap_tree("1000000", "2000000");
    struct nvb__rapl r0;
    nvb__energy_begin(r, tree, &r0);
    ck_assert_int_eq(r->energy.state, 1);
    ck_assert_int_eq(tu_sh("echo 1512000 > %s/intel-rapl:0/energy_uj", tree), 0);
    nvb__energy_end(r, tree, &r0);
    ck_assert_int_eq(r->energy.state, 1);
    ck_assert_double_eq_tol(r->energy.joules, 0.512, 1e-9);
    root = result_tree(r, &text);
    e = nvb__json_get(root, "energy");
    double jpi;
    ck_assert_int_eq(nvb__json_dbl(nvb__json_get(e, "joules_per_io"), &jpi), 0);
    ck_assert_double_eq_tol(jpi, 0.512 / 256, 1e-9);
    struct nvb_result *back = NULL;
    ck_assert_int_eq(nvb_result_from_json(text, &back), 0);
    char *text2;
    ck_assert_int_eq(nvb_result_json(back, &text2), 0);
    ck_assert_str_eq(text, text2);
    nvb_free(text2);
    nvb_result_free(back);
    nvb__json_free(root);
    nvb_free(text);
    /* no tree: unavailable, naming where it looked */
    nvb__energy_begin(r, "/nonexistent-powercap", &r0);
    ck_assert_int_eq(r->energy.state, 2);
    ck_assert_ptr_nonnull(strstr(r->energy.reason, "/nonexistent-powercap"));
    tu_sh("rm -rf %s", tree);
    free(tree);
    nvb_result_free(r);
    free(path);
}
END_TEST

/* A media log page as a controller returns it: the Endurance Group
 * Information log (Media Units Written at 80) or OCP's C0 page (Physical
 * Media Units Written at 0, its GUID at 496); guid 0 writes a wrong GUID. */
static void make_media(uint8_t *b, int src, uint64_t v, int guid)
{
    static const uint8_t c0[16] = {0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4,
                                   0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF};
    memset(b, 0, NVB__MEDIA_LOG_LEN);
    if (src == NVB__MEDIA_EG) {
        put_le(b, 64, 16, 777); /* the group's own data units written: not the one read */
        put_le(b, 80, 16, v);
        return;
    }
    put_le(b, 0, 16, v);
    put_le(b, 16, 16, 999); /* physical media units read: not the one read */
    memcpy(b + 496, c0, sizeof c0);
    if (!guid)
        b[511] ^= 0xff;
}

START_TEST(media_pages_parse_and_refuse)
{
    uint8_t b[NVB__MEDIA_LOG_LEN];
    uint64_t x = 0;
    char why[200];
    make_media(b, NVB__MEDIA_EG, 4321, 1);
    ck_assert_int_eq(nvb__media_parse(NVB__MEDIA_EG, b, sizeof b, &x, why, sizeof why), 0);
    ck_assert_uint_eq(x, 4321 * NVB__SMART_DATA_UNIT);
    b[80 + 7] = 0x40; /* 2^62 units: past 2^64 bytes, saturated */
    ck_assert_int_eq(nvb__media_parse(NVB__MEDIA_EG, b, sizeof b, &x, why, sizeof why), 0);
    ck_assert_uint_eq(x, UINT64_MAX);
    make_media(b, NVB__MEDIA_OCP, 123456789, 1);
    ck_assert_int_eq(nvb__media_parse(NVB__MEDIA_OCP, b, sizeof b, &x, why, sizeof why), 0);
    ck_assert_uint_eq(x, 123456789);
    /* another vendor's C0h log: refused, x untouched */
    make_media(b, NVB__MEDIA_OCP, 5, 0);
    ck_assert_int_eq(nvb__media_parse(NVB__MEDIA_OCP, b, sizeof b, &x, why, sizeof why), -EINVAL);
    ck_assert_msg(strstr(why, "GUID"), "%s", why);
    ck_assert_uint_eq(x, 123456789);
    /* a short page, of either source: refused */
    make_media(b, NVB__MEDIA_OCP, 5, 1);
    ck_assert_int_eq(nvb__media_parse(NVB__MEDIA_OCP, b, 511, &x, why, sizeof why), -EINVAL);
    ck_assert_msg(strstr(why, "511 bytes"), "%s", why);
    ck_assert_int_eq(nvb__media_parse(NVB__MEDIA_EG, b, 256, &x, why, sizeof why), -EINVAL);
    ck_assert_int_eq(nvb__media_parse(NVB__MEDIA_EG, NULL, 512, &x, why, sizeof why), -EINVAL);
    ck_assert_int_eq(nvb__media_parse(7, b, sizeof b, &x, why, sizeof why), -EINVAL);
    ck_assert_uint_eq(x, 123456789);
    /* the endurance group: CTRATT bit 4, then ENDGID */
    static uint8_t ctrl[4096], ns[4096];
    memset(ctrl, 0, sizeof ctrl);
    memset(ns, 0, sizeof ns);
    put_le(ns, 102, 2, 3);
    ck_assert_uint_eq(nvb__media_endgid(ctrl, ns, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "no endurance groups"), "%s", why);
    ctrl[96] = 0x10;
    ck_assert_uint_eq(nvb__media_endgid(ctrl, ns, why, sizeof why), 3);
    put_le(ns, 102, 2, 0);
    ck_assert_uint_eq(nvb__media_endgid(ctrl, ns, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "ENDGID 0"), "%s", why);
    ck_assert_int_eq(nvb__media_source(nvb__media_source_name(NVB__MEDIA_OCP)), NVB__MEDIA_OCP);
    ck_assert_int_eq(nvb__media_source("smart"), 0);
}
END_TEST

/* device_log with media writes: each source, unavailable, no host writes
 * counted, and not asked; what the JSON says and that it reads back to
 * the same JSON. */
START_TEST(write_amplification_in_the_result_and_back)
{
    char *path, *text;
    struct nvb_result *r = scratch_run("randwrite", &path);
    struct nvb__devlog *d = &r->tg[0].dlog;
    uint8_t m[NVB__MEDIA_LOG_LEN];
    char why[200];
    for (int k = 0; k < 5; k++) {
        fake_read(d, 1000, k == 3 ? 1000 : 1040); /* 40 data units, k 3 none */
        const int src = k == 1 ? NVB__MEDIA_OCP : NVB__MEDIA_EG;
        d->ms = k == 4 ? 0 : k == 2 ? 2 : 1;
        d->ms_src = src;
        d->endgid = src == NVB__MEDIA_EG ? 1 : 0;
        snprintf(d->ms_reason, sizeof d->ms_reason, "the controller reports no endurance groups");
        /* the media took 100 units of 512000 bytes (2.5 x 40), or 2.5 x 40 x 512000 bytes */
        make_media(m, src, src == NVB__MEDIA_EG ? 50 : 5000000, 1);
        ck_assert_int_eq(nvb__media_parse(src, m, sizeof m, &d->media_before, why, sizeof why), 0);
        make_media(m, src, src == NVB__MEDIA_EG ? 150 : 5000000 + 100 * NVB__SMART_DATA_UNIT, 1);
        ck_assert_int_eq(nvb__media_parse(src, m, sizeof m, &d->media_after, why, sizeof why), 0);
        struct nvb__jv *root = result_tree(r, &text);
        const struct nvb__jv *j = target_devlog(root), *media = nvb__json_get(j, "media");
        const struct nvb__jv *waf = nvb__json_get(j, "write_amplification");
        const struct nvb__jv *wr = nvb__json_get(j, "write_amplification_reason");
        if (k == 4) { /* not asked: none of the keys, as results before them */
            ck_assert_ptr_null(media);
            ck_assert_ptr_null(waf);
            ck_assert_ptr_null(wr);
        } else if (k == 0 || k == 1) {
            double x;
            uint64_t u;
            ck_assert_int_eq(nvb__json_get(media, "available")->type, NVB__J_TRUE);
            ck_assert_str_eq(nvb__json_get(media, "source")->s, nvb__media_source_name(src));
            ck_assert_int_eq(nvb__json_get(media, "endurance_group")->type, k ? NVB__J_NULL : NVB__J_NUM);
            ck_assert_int_eq(nvb__json_u64(nvb__json_get(media, "bytes_written"), &u), 0);
            ck_assert_uint_eq(u, 100 * NVB__SMART_DATA_UNIT);
            ck_assert_int_eq(nvb__json_dbl(waf, &x), 0);
            ck_assert_double_eq_tol(x, 2.5, 1e-9);
            ck_assert_int_eq(wr->type, NVB__J_NULL);
        } else {
            ck_assert_int_eq(waf->type, NVB__J_NULL);
            ck_assert_msg(strstr(wr->s, k == 2 ? "no endurance groups" : "no host writes"), "%s", wr->s);
            ck_assert_int_eq(nvb__json_get(media, "available")->type, k == 2 ? NVB__J_FALSE : NVB__J_TRUE);
        }
        struct nvb_result *back = NULL;
        ck_assert_int_eq(nvb_result_from_json(text, &back), 0);
        char *text2;
        ck_assert_int_eq(nvb_result_json(back, &text2), 0);
        ck_assert_str_eq(text, text2);
        ck_assert_int_eq(back->tg[0].dlog.ms, d->ms);
        nvb_free(text2);
        nvb_result_free(back);
        nvb__json_free(root);
        nvb_free(text);
    }
    /* a result whose media names another source, or lacks its counts, is refused naming the key */
    d->ms = 1;
    d->ms_src = NVB__MEDIA_OCP;
    ck_assert_int_eq(nvb_result_json(r, &text), 0);
    static const char *const edits[][3] = {
        {"\"ocp_smart_extended_log\"", "\"vendor_log\"", "device_log.media.source': not endurance_group_log"},
        {"\"bytes_written_after\":", "\"bytes_after\":", "device_log.media.bytes_written_after': missing"}};
    for (int i = 0; i < 2; i++) {
        struct nvb__buf e = {0};
        const char *at = strstr(text, edits[i][0]);
        ck_assert_ptr_nonnull(at);
        nvb__buf_putn(&e, text, (size_t)(at - text));
        nvb__buf_puts(&e, edits[i][1]);
        nvb__buf_puts(&e, at + strlen(edits[i][0]));
        struct nvb_result *back = NULL;
        ck_assert_int_eq(nvb_result_parse(e.s, e.len, &back, why, sizeof why), -EINVAL);
        ck_assert_msg(strstr(why, edits[i][2]), "%s", why);
        free(e.s);
    }
    nvb_free(text);
    nvb_result_free(r);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("devlog");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, health_log_parses_at_the_spec_offsets);
    tcase_add_test(tc, a_file_not_on_nvme_says_why);
    tcase_add_test(tc, a_loop_device_is_not_nvme);
    tcase_add_test(tc, deltas_and_derived_figures_round_trip);
    tcase_add_test(tc, power_state_and_back);
    tcase_add_test(tc, temperature_throttling_and_media_errors_warn);
    tcase_add_test(tc, device_log_as_it_was_written_before_the_table);
    tcase_add_test(tc, device_log_read_back_strictly);
    tcase_add_test(tc, rapl_from_a_recorded_tree);
    tcase_add_test(tc, energy_in_the_result_and_back);
    tcase_add_test(tc, media_pages_parse_and_refuse);
    tcase_add_test(tc, write_amplification_in_the_result_and_back);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
