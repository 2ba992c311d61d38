/*
 * The device's measured power over a run, where the controller measures it:
 * the NVMe Power Measurement log (Get Log Page, LID 25h) read before and
 * after the run, beside the power state (devlog.c). Identify Controller's
 * CTRATT bit 21 says whether the controller supports power measurement.
 * The Power Measurement feature (FID 25h) only configures it: Get Features
 * returns its Action (bits 3:0, 1 running), the type measured (bits 7:4)
 * and the Stop Measurement Time (bits 31:16), no figure; nvbench neither
 * starts nor stops it (that would reset what another tool measures).
 * The log page, from byte 0: version, PMGN (the generation: a restart
 * changes it), PMA (16 bits: bit 0 measurement enabled, bit 2 estimated,
 * bits 15:12 the type, 0 the NVM subsystem's total power), its size, PMC
 * (bytes 8-11: interval measurements since the start), ..., AIPWR (bytes
 * 40-43: their average; bits 15:0 the value, bits 17:16 the scale, 1 for
 * 0.0001 W, 2 for 0.01 W, 0 not reported).
 * Two readings of one measurement give the average over the intervals that
 * ended between them: (AIPWR_after x PMC_after - AIPWR_before x PMC_before)
 * / (PMC_after - PMC_before). Each average is rounded to its scale, so the
 * window's figure is only as good as that step times the counts over the
 * window's intervals: refused (with the bound) above a tenth of the figure.
 * docs/device.md says what is read and what is not.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/run.h"

#define LID_POWER_MEASUREMENT 0x25
#define CTRATT_AT 96 /* Identify Controller, 32 bits: bit 21, power measurement supported */
#define PMGN_AT 1
#define PMA_AT 2
#define PMC_AT 8
#define AIPWR_AT 40
#define PM_WORST 0.1 /* the largest rounding bound accepted, as a share of the figure */

int nvb__pm_supported(const uint8_t *id_ctrl, char *why, size_t whylen)
{
    if (id_ctrl[CTRATT_AT + 2] & 0x20) /* bit 21: bit 5 of the third byte */
        return 1;
    snprintf(why, whylen, "%s", "the controller does not support power measurement (Identify Controller CTRATT "
             "bit 21 clear)");
    return 0;
}

int nvb__pm_parse(const uint8_t *buf, size_t len, struct nvb__pmlog *out, char *why, size_t whylen)
{
    if (!buf || len < NVB__PM_LOG_LEN) {
        snprintf(why, whylen, "the Power Measurement log page has %zu bytes, fewer than its %d", buf ? len : 0,
                 NVB__PM_LOG_LEN);
        return -EINVAL;
    }
    const uint32_t aipwr = (uint32_t)nvb__le_sat(buf + AIPWR_AT, 4);
    const unsigned scale = aipwr >> 16 & 3;
    if (scale == 0 || scale == 3) {
        snprintf(why, whylen, "the Power Measurement log reports %s average interval power (AIPWR scale %u)",
                 scale ? "a reserved scale of its" : "no", scale);
        return -EINVAL;
    }
    out->gen = buf[PMGN_AT];
    out->pma = (unsigned)nvb__le_sat(buf + PMA_AT, 2);
    out->count = (uint32_t)nvb__le_sat(buf + PMC_AT, 4);
    out->step_w = scale == 1 ? 0.0001 : 0.01;
    out->avg_w = (double)(aipwr & 0xffff) * out->step_w;
    return 0;
}

int nvb__pm_window(const struct nvb__pmlog *b, const struct nvb__pmlog *a, double *w, uint32_t *n, char *why,
                   size_t whylen)
{
    *w = 0;
    *n = 0;
    if (!(b->pma & 1) || !(a->pma & 1)) {
        snprintf(why, whylen, "%s", "the controller's power measurement is not running (Power Measurement log "
                 "25h: PMA bit 0 clear; Set Features 25h with Action 1 starts it)");
        return -1;
    }
    if ((a->pma >> 12 & 0xf) != 0) {
        snprintf(why, whylen, "the controller measures a vendor-specific quantity (Power Measurement log 25h: PMA "
                 "type %u), not the NVM subsystem's total power", a->pma >> 12 & 0xf);
        return -1;
    }
    if (a->gen != b->gen) {
        snprintf(why, whylen, "the power measurement was restarted during the run (generation %u before, %u after)",
                 b->gen, a->gen);
        return -1;
    }
    if (a->count <= b->count) {
        snprintf(why, whylen, "no interval power measurement ended during the run (PMC %u before, %u after)",
                 (unsigned)b->count, (unsigned)a->count);
        return -1;
    }
    const uint32_t k = a->count - b->count;
    const double x = (a->avg_w * a->count - b->avg_w * b->count) / k;
    const double bound = (a->step_w * a->count + b->step_w * b->count) / k;
    if (!(x > 0) || bound > PM_WORST * x) {
        snprintf(why, whylen, "the log's average over %u intervals is too coarse for the %u of the run: %.3g W "
                 "within %.3g W", (unsigned)a->count, (unsigned)k, x, bound);
        return -1;
    }
    *w = x;
    *n = k;
    return 0;
}

static void pm_none(struct nvb__devlog *d, const char *when, const char *why)
{
    d->pm_w = 0;
    d->pm_n = 0;
    snprintf(d->pm_reason, sizeof d->pm_reason, "%s%s", when, why);
}

void nvb__pm_read(struct nvb__devlog *d, const struct nvb__devids *ids)
{
    const int after = ids == NULL;
    if (after && d->pm_reason[0])
        return;
#ifdef _WIN32
    pm_none(d, "", "the NVMe power measurement is not read on Windows");
#else
    char why[160];
    uint8_t buf[NVB__PM_LOG_LEN];
    if (!after) {
        d->pm_reason[0] = 0;
        if (!ids->ok || !nvb__pm_supported(ids->ctrl, why, sizeof why)) {
            pm_none(d, "", ids->ok ? why : ids->why);
            return;
        }
    }
    struct nvb__pmlog now;
    if (nvb__nvme_log_read(d->node, LID_POWER_MEASUREMENT, 0, buf, sizeof buf, why, sizeof why) < 0 ||
        nvb__pm_parse(buf, sizeof buf, after ? &now : &d->pm_before, why, sizeof why) < 0) {
        pm_none(d, after ? "after the run: " : "", why);
        return;
    }
    if (after && nvb__pm_window(&d->pm_before, &now, &d->pm_w, &d->pm_n, why, sizeof why) < 0)
        pm_none(d, "", why);
#endif
}
