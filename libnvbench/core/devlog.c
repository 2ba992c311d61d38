/*
 * What the device did during a run: the NVMe health log (log page 02h)
 * before and after, per target, as deltas; the device's bytes written per
 * byte the run wrote, and its host commands per I/O the run issued (merges
 * below 1, splits above). Taken around the sampler, like the utilisation
 * (diskutil.c): from the jobs' release to their end, so a ramp is inside.
 * The log is the controller's: every namespace's and every process's I/O
 * counts, and two targets on one controller each see both.
 * docs/device.md says what each field means and how it differs from fio.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

static const struct smart_field {
    const char *name;
    unsigned    off, width;    /* bytes, little endian */
} smart_fields[NVB__SM_N] = {
    [NVB__SM_CRITICAL_WARNING] = {"critical_warning", 0, 1},
    [NVB__SM_TEMPERATURE_K] = {"temperature_k", 1, 2},
    [NVB__SM_AVAILABLE_SPARE] = {"available_spare", 3, 1},
    [NVB__SM_AVAILABLE_SPARE_THRESHOLD] = {"available_spare_threshold", 4, 1},
    [NVB__SM_PERCENTAGE_USED] = {"percentage_used", 5, 1},
    [NVB__SM_DATA_UNITS_READ] = {"data_units_read", 32, 16},
    [NVB__SM_DATA_UNITS_WRITTEN] = {"data_units_written", 48, 16},
    [NVB__SM_HOST_READ_COMMANDS] = {"host_read_commands", 64, 16},
    [NVB__SM_HOST_WRITE_COMMANDS] = {"host_write_commands", 80, 16},
    [NVB__SM_CONTROLLER_BUSY_TIME] = {"controller_busy_time", 96, 16},
    [NVB__SM_POWER_CYCLES] = {"power_cycles", 112, 16},
    [NVB__SM_POWER_ON_HOURS] = {"power_on_hours", 128, 16},
    [NVB__SM_UNSAFE_SHUTDOWNS] = {"unsafe_shutdowns", 144, 16},
    [NVB__SM_MEDIA_ERRORS] = {"media_errors", 160, 16},
    [NVB__SM_ERROR_LOG_ENTRIES] = {"error_information_log_entries", 176, 16},
    [NVB__SM_WARNING_TEMPERATURE_TIME] = {"warning_composite_temperature_time", 192, 4},
    [NVB__SM_CRITICAL_TEMPERATURE_TIME] = {"critical_composite_temperature_time", 196, 4},
    [NVB__SM_THERMAL_MGMT_1_TRANSITIONS] = {"thermal_management_temperature_1_transition_count", 216, 4},
    [NVB__SM_THERMAL_MGMT_2_TRANSITIONS] = {"thermal_management_temperature_2_transition_count", 220, 4},
    [NVB__SM_THERMAL_MGMT_1_TIME] = {"thermal_management_temperature_1_total_time", 224, 4},
    [NVB__SM_THERMAL_MGMT_2_TIME] = {"thermal_management_temperature_2_total_time", 228, 4},
};

const char *nvb__smart_name(unsigned i) { return i < NVB__SM_N ? smart_fields[i].name : NULL; }

int nvb__smart_parse(const uint8_t *buf, size_t len, uint64_t *v)
{
    if (!buf || len < NVB__SMART_LOG_LEN)
        return -EINVAL;
    for (unsigned i = 0; i < NVB__SM_N; i++) {
        const struct smart_field *f = &smart_fields[i];
        uint64_t x = 0;
        unsigned lo = f->width > 8 ? 8 : f->width;
        for (unsigned k = lo; k-- > 0;)
            x = x << 8 | buf[f->off + k];
        for (unsigned k = 8; k < f->width; k++)
            if (buf[f->off + k])
                x = UINT64_MAX; /* past 64 bits: saturated */
        v[i] = x;
    }
    return 0;
}

static void unavailable(struct nvb__devlog *d, const char *fmt, const char *a)
{
    d->state = 2;
    snprintf(d->reason, sizeof d->reason, fmt, a);
}

#ifndef _WIN32
/* The node to ask for a target: a block or character target itself; a
 * file's, the namespace under its file system (a partition's parent). */
static int devlog_node(const struct nvb__tstat *ts, struct nvb__devlog *d)
{
    const char *path = ts->file ? ts->file : ts->path;
    if (!strcmp(ts->kind, "block") || !strcmp(ts->kind, "char")) {
        snprintf(d->node, sizeof d->node, "%s", ts->path);
        return 0;
    }
    char name[64], why[160];
    uint64_t ticks;
    if (nvb__disk_io_ticks(path, name, sizeof name, &ticks, why, sizeof why) < 0 || !name[0]) {
        unavailable(d, "no block device under the file: %s", why);
        return -1;
    }
    unsigned c, n;
    int end = 0;
    if (sscanf(name, "nvme%un%u%n", &c, &n, &end) != 2) {
        unavailable(d, "the file is on %s, not on an NVMe namespace", name);
        return -1;
    }
    snprintf(d->node, sizeof d->node, "/dev/nvme%un%u", c, n);
    return 0;
}
#endif

static int devlog_read(struct nvb__devlog *d, uint64_t *v)
{
#ifdef _WIN32
    (void)v;
    unavailable(d, "%s", "the NVMe health log is not read on Windows");
    return -1;
#else
    uint8_t buf[NVB__SMART_LOG_LEN];
    char why[160];
    uint32_t thr = 0;
    if (nvb__nvme_smart_read(d->node, buf, &thr, why, sizeof why) < 0) {
        unavailable(d, "%s", why);
        return -1;
    }
    if (thr)
        d->warn_temp_k = thr;
    return nvb__smart_parse(buf, sizeof buf, v);
#endif
}

/* The power state (Get Features 02h) into *ps: pw 1, or 2 with the reason. */
static void power_read(struct nvb__devlog *d, unsigned *ps, const char *when)
{
#ifdef _WIN32
    (void)ps, (void)when;
    d->pw = 2;
    snprintf(d->pw_reason, sizeof d->pw_reason, "%s", "the NVMe power state is not read on Windows");
#else
    char why[140];
    double w = 0;
    if (nvb__nvme_power_read(d->node, ps, &w, why, sizeof why) < 0) {
        d->pw = 2;
        snprintf(d->pw_reason, sizeof d->pw_reason, "%s%s", when, why);
        return;
    }
    d->max_w = w;
    if (d->pw == 0)
        d->pw = 1;
#endif
}

void nvb__devlog_begin(struct nvb_result *res, int no_io)
{
    for (unsigned t = 0; t < res->ntargets; t++) {
        struct nvb__devlog *d = &res->tg[t].dlog;
        memset(d, 0, sizeof *d);
        if (no_io) {
            unavailable(d, "%s", "the null engine does no I/O to a device");
            continue;
        }
        if (!res->tg[t].path) {
            unavailable(d, "%s", "no target named in this phase's result");
            continue;
        }
#ifndef _WIN32
        if (devlog_node(&res->tg[t], d) < 0)
            continue;
#endif
        if (devlog_read(d, d->before) == 0) {
            d->state = 1;
            power_read(d, &d->ps_before, "");
        }
    }
}

void nvb__devlog_warnings(struct nvb_result *res, unsigned t)
{
    const struct nvb__devlog *d = &res->tg[t].dlog;
    if (d->state != 1)
        return;
    const uint64_t *b = d->before, *a = d->after;
    const char *p = res->tg[t].path;
    uint32_t thr = d->warn_temp_k;
    if (a[NVB__SM_WARNING_TEMPERATURE_TIME] > b[NVB__SM_WARNING_TEMPERATURE_TIME] ||
        (thr && (a[NVB__SM_TEMPERATURE_K] >= thr || b[NVB__SM_TEMPERATURE_K] >= thr)) ||
        ((a[NVB__SM_CRITICAL_WARNING] & 2) && !(b[NVB__SM_CRITICAL_WARNING] & 2)))
        nvb__result_warn(res, "%s: the device's temperature crossed its warning threshold during the run "
                         "(%" PRIu64 " K before, %" PRIu64 " K after, threshold %u K): its figures may be "
                         "throttled", p, b[NVB__SM_TEMPERATURE_K], a[NVB__SM_TEMPERATURE_K], (unsigned)thr);
    if (a[NVB__SM_THERMAL_MGMT_1_TRANSITIONS] > b[NVB__SM_THERMAL_MGMT_1_TRANSITIONS] ||
        a[NVB__SM_THERMAL_MGMT_2_TRANSITIONS] > b[NVB__SM_THERMAL_MGMT_2_TRANSITIONS])
        nvb__result_warn(res, "%s: the device throttled during the run (thermal management transitions: "
                         "%" PRIu64 " light, %" PRIu64 " heavy)", p,
                         a[NVB__SM_THERMAL_MGMT_1_TRANSITIONS] - b[NVB__SM_THERMAL_MGMT_1_TRANSITIONS],
                         a[NVB__SM_THERMAL_MGMT_2_TRANSITIONS] - b[NVB__SM_THERMAL_MGMT_2_TRANSITIONS]);
    if (a[NVB__SM_MEDIA_ERRORS] > b[NVB__SM_MEDIA_ERRORS])
        nvb__result_warn(res, "%s: the device's media and data integrity errors grew by %" PRIu64
                         " during the run", p, a[NVB__SM_MEDIA_ERRORS] - b[NVB__SM_MEDIA_ERRORS]);
}

void nvb__devlog_end(struct nvb_result *res)
{
    for (unsigned t = 0; t < res->ntargets; t++) {
        struct nvb__devlog *d = &res->tg[t].dlog;
        if (d->state != 1)
            continue;
        if (devlog_read(d, d->after) < 0) {
            char why[sizeof d->reason];
            snprintf(why, sizeof why, "after the run: %s", d->reason);
            snprintf(d->reason, sizeof d->reason, "%s", why);
            continue;
        }
        if (d->pw == 1)
            power_read(d, &d->ps_after, "after the run: ");
        nvb__devlog_warnings(res, t);
    }
}

static void put_ratio(struct nvb__buf *b, const char *key, uint64_t num, uint64_t den, double scale)
{
    if (den == 0)
        nvb__buf_printf(b, ",\"%s\":null", key);
    else
        nvb__buf_printf(b, ",\"%s\":%.6g", key, (double)num * scale / (double)den);
}

/* ,"power":{...}: the power state (docs/device.md), when it was asked. */
static void put_power(struct nvb__buf *b, const struct nvb__devlog *d)
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

char *nvb__devlog_json(const struct nvb_result *r, const struct nvb__tstat *ts)
{
    const struct nvb__devlog *d = &ts->dlog;
    if (d->state == 0)
        return NULL;
    struct nvb__buf b = {0};
    int ok = d->state == 1;
    nvb__buf_printf(&b, "{\"available\":%s,\"reason\":", ok ? "true" : "false");
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
                    nvb__buf_printf(&b, "%s\"%s\":%" PRIu64, i ? "," : "", smart_fields[i].name,
                                    (k ? d->after : d->before)[i]);
                else
                    nvb__buf_printf(&b, "%s\"%s\":%" PRId64, i ? "," : "", smart_fields[i].name,
                                    (int64_t)(d->after[i] - d->before[i]));
            }
            nvb__buf_puts(&b, "}");
        }
        const uint64_t *a = d->after, *bf = d->before;
        uint64_t wr = ts->d[NVB_WRITE].bytes, rd = ts->d[NVB_READ].bytes;
        uint64_t ios = ts->d[NVB_READ].ios + ts->d[NVB_WRITE].ios;
        if (r->ramp_s > 0) {
            /* the log covers the ramp, the target's figures do not */
            nvb__buf_puts(&b, ",\"device_bytes_per_host_byte\":null,\"device_read_bytes_per_host_byte\":null,"
                              "\"host_commands_per_io\":null,\"derived_reason\":\"the device's counters include "
                              "the ramp, the run's figures do not\"");
        } else {
            put_ratio(&b, "device_bytes_per_host_byte", a[NVB__SM_DATA_UNITS_WRITTEN] - bf[NVB__SM_DATA_UNITS_WRITTEN],
                      wr, (double)NVB__SMART_DATA_UNIT);
            put_ratio(&b, "device_read_bytes_per_host_byte", a[NVB__SM_DATA_UNITS_READ] - bf[NVB__SM_DATA_UNITS_READ],
                      rd, (double)NVB__SMART_DATA_UNIT);
            put_ratio(&b, "host_commands_per_io",
                      a[NVB__SM_HOST_READ_COMMANDS] - bf[NVB__SM_HOST_READ_COMMANDS] +
                      a[NVB__SM_HOST_WRITE_COMMANDS] - bf[NVB__SM_HOST_WRITE_COMMANDS], ios, 1.0);
            nvb__buf_puts(&b, ",\"derived_reason\":null");
        }
        if (d->pw)
            put_power(&b, d);
    }
    nvb__buf_puts(&b, "}");
    char *s = NULL;
    return nvb__buf_take(&b, &s) < 0 ? NULL : s;
}

static int ld_counts(const struct nvb__jv *o, const char *key, uint64_t *v, char *why, size_t whylen)
{
    const struct nvb__jv *x = nvb__json_get(o, key);
    if (!x || x->type != NVB__J_OBJ) {
        snprintf(why, whylen, "device_log.%s: missing or not an object", key);
        return -EINVAL;
    }
    for (unsigned i = 0; i < NVB__SM_N; i++) {
        const struct nvb__jv *f = nvb__json_get(x, smart_fields[i].name);
        if (!f || nvb__json_u64(f, &v[i]) < 0) {
            snprintf(why, whylen, "device_log.%s.%s: missing or not a count", key, smart_fields[i].name);
            return -EINVAL;
        }
    }
    return 0;
}

/* An {available, reason} member of parent: 0 absent (or -EINVAL with why),
 * 1 not available (its reason into reason), 2 available (*o the object). */
static int ld_avail(const struct nvb__jv *parent, const char *name, const struct nvb__jv **o, char *reason,
                    size_t rlen, char *why, size_t whylen)
{
    const char *r;
    int st = nvb__json_available(parent, name, o, &r, why, whylen);
    if (st == 1)
        snprintf(reason, rlen, "%s", r ? r : "not read");
    return st;
}

/* device_log.power back (absent: pw 0). 0 or -EINVAL with why. */
static int ld_power(const struct nvb__jv *o, struct nvb__devlog *d, char *why, size_t whylen)
{
    const struct nvb__jv *p;
    int st = ld_avail(o, "power", &p, d->pw_reason, sizeof d->pw_reason, why, whylen);
    if (st <= 1) {
        d->pw = st == 1 ? 2 : 0;
        return st < 0 ? st : 0;
    }
    uint64_t b = 0, a = 0;
    const struct nvb__jv *sb = nvb__json_get(p, "state_before"), *sa = nvb__json_get(p, "state_after");
    const struct nvb__jv *mw = nvb__json_get(p, "max_power_w");
    if (!sb || !sa || nvb__json_u64(sb, &b) < 0 || nvb__json_u64(sa, &a) < 0 || b > 31 || a > 31) {
        snprintf(why, whylen, "device_log.power: state_before and state_after must be power states (0..31)");
        return -EINVAL;
    }
    d->pw = 1;
    d->ps_before = (unsigned)b;
    d->ps_after = (unsigned)a;
    d->max_w = 0;
    if (mw && mw->type == NVB__J_NUM && (nvb__json_dbl(mw, &d->max_w) < 0 || !(d->max_w > 0)))
        d->max_w = 0;
    return 0;
}

int nvb__devlog_load(const struct nvb__jv *target, struct nvb__devlog *d, char *why, size_t whylen)
{
    memset(d, 0, sizeof *d);
    const struct nvb__jv *o;
    int st = ld_avail(target, "device_log", &o, d->reason, sizeof d->reason, why, whylen);
    if (st <= 1) {
        d->state = st == 1 ? 2 : 0;
        return st < 0 ? st : 0;
    }
    const struct nvb__jv *n = nvb__json_get(o, "node"), *th = nvb__json_get(o, "warning_threshold_k");
    snprintf(d->node, sizeof d->node, "%s", n && n->type == NVB__J_STR ? n->s : "");
    uint64_t t = 0;
    if (th && th->type == NVB__J_NUM && nvb__json_u64(th, &t) == 0 && t <= UINT32_MAX)
        d->warn_temp_k = (uint32_t)t;
    int rc = ld_counts(o, "before", d->before, why, whylen);
    if (rc == 0)
        rc = ld_counts(o, "after", d->after, why, whylen);
    if (rc == 0)
        rc = ld_power(o, d, why, whylen);
    if (rc == 0)
        d->state = 1;
    return rc;
}
