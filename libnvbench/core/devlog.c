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

/* Where the log page keeps each field (devlog.h's list). */
static const struct smart_field {
    const char *name;
    unsigned    off, width;    /* bytes, little endian */
} smart_fields[NVB__SM_N] = {
#define FIELD(id, name, at, width, flags, unit, doc) [NVB__SM_##id] = {name, at, width},
    NVB__SMART_FIELDS(FIELD)
#undef FIELD
};

const char *nvb__smart_name(unsigned i) { return i < NVB__SM_N ? smart_fields[i].name : NULL; }

uint64_t nvb__le_sat(const uint8_t *p, unsigned width)
{
    uint64_t x = 0;
    unsigned lo = width > 8 ? 8 : width;
    for (unsigned k = lo; k-- > 0;)
        x = x << 8 | p[k];
    for (unsigned k = 8; k < width; k++)
        if (p[k])
            x = UINT64_MAX; /* past 64 bits: saturated */
    return x;
}

int nvb__smart_parse(const uint8_t *buf, size_t len, uint64_t *v)
{
    if (!buf || len < NVB__SMART_LOG_LEN)
        return -EINVAL;
    for (unsigned i = 0; i < NVB__SM_N; i++)
        v[i] = nvb__le_sat(buf + smart_fields[i].off, smart_fields[i].width);
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

/* The power state (Get Features 02h) into *ps: pw 1, or 2 with the reason;
 * its maximum power from the descriptors read before the run. */
static void power_read(struct nvb__devlog *d, unsigned *ps, const char *when)
{
#ifdef _WIN32
    (void)ps, (void)when;
    d->pw = 2;
    snprintf(d->pw_reason, sizeof d->pw_reason, "%s", "the NVMe power state is not read on Windows");
#else
    char why[140];
    if (nvb__nvme_power_read(d->node, ps, why, sizeof why) < 0) {
        d->pw = 2;
        snprintf(d->pw_reason, sizeof d->pw_reason, "%s%s", when, why);
        return;
    }
    d->max_w = d->psd_w[*ps & 31]; /* 0 when Identify Controller was not read: the figure is optional */
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
            /* Identify once, for the power states' maximum power, the power
             * measurement's support and the media writes' source */
            struct nvb__devids ids = { .ok = 0 };
#ifdef _WIN32
            snprintf(ids.why, sizeof ids.why, "%s", "Identify is not read on Windows");
#else
            ids.ok = nvb__nvme_media_ids(d->node, ids.ctrl, ids.ns, &ids.ctrl_ok, ids.why, sizeof ids.why) == 0;
            for (unsigned ps = 0; ids.ctrl_ok && ps < 32; ps++)
                d->psd_w[ps] = nvb__psd_max_w(ids.ctrl, ps);
#endif
            power_read(d, &d->ps_before, "");
            if (d->pw == 1)
                nvb__pm_read(d, &ids);
            nvb__media_read(d, &ids);
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
        if (d->pw == 1)
            nvb__pm_read(d, NULL);
        nvb__media_read(d, NULL);
        nvb__devlog_warnings(res, t);
    }
}

/* A ratio of two counts, NaN (null) over 0: as results have always had it,
 * the count's difference taken modulo 2^64 before the division. */
static double ratio(uint64_t num, uint64_t den, double scale)
{
    return den ? (double)num * scale / (double)den : NAN;
}

/* The write amplification factor: the media's bytes over the host's bytes
 * as the device counted them (the health log's data units), both over the
 * same window, so a ramp is in both. */
static void media_derive(const struct nvb__devlog *d, struct nvb__devlog_derived *out)
{
    const uint64_t units = d->after[NVB__SM_DATA_UNITS_WRITTEN] - d->before[NVB__SM_DATA_UNITS_WRITTEN];
    out->waf = NAN;
    out->waf_reason = d->ms == 2 ? d->ms_reason : NULL;
    if (d->ms == 1 && !units)
        out->waf_reason = "the device counted no host writes during the run (data_units_written did not grow)";
    else if (d->ms == 1)
        out->waf = (double)(d->media_after - d->media_before) / ((double)units * (double)NVB__SMART_DATA_UNIT);
}

void nvb__devlog_derive(const struct nvb_result *r, const struct nvb__tstat *ts, struct nvb__devlog_derived *out)
{
    const struct nvb__devlog *d = &ts->dlog;
    const uint64_t *a = d->after, *b = d->before;
    for (unsigned i = 0; i < NVB__SM_N; i++)
        out->delta[i] = (int64_t)(a[i] - b[i]);
    out->dev_w = out->dev_r = out->cmds = NAN;
    out->reason = NULL;
    media_derive(d, out);
    if (r->ramp_s > 0) { /* the log covers the ramp, the target's figures do not */
        out->reason = "the device's counters include the ramp, the run's figures do not";
        return;
    }
    out->dev_w = ratio(a[NVB__SM_DATA_UNITS_WRITTEN] - b[NVB__SM_DATA_UNITS_WRITTEN], ts->d[NVB_WRITE].bytes,
                       (double)NVB__SMART_DATA_UNIT);
    out->dev_r = ratio(a[NVB__SM_DATA_UNITS_READ] - b[NVB__SM_DATA_UNITS_READ], ts->d[NVB_READ].bytes,
                       (double)NVB__SMART_DATA_UNIT);
    out->cmds = ratio(a[NVB__SM_HOST_READ_COMMANDS] - b[NVB__SM_HOST_READ_COMMANDS] + a[NVB__SM_HOST_WRITE_COMMANDS] -
                      b[NVB__SM_HOST_WRITE_COMMANDS], ts->d[NVB_READ].ios + ts->d[NVB_WRITE].ios, 1.0);
}
