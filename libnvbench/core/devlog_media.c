/*
 * Media writes: the bytes a controller wrote to its media during a run,
 * where it reports them, read before and after beside the health log
 * (devlog.c). Over the host writes the device itself counted (the health
 * log's data_units_written), they make the write amplification factor.
 * Two sources, the first the controller has:
 *  - the Endurance Group Information log (LID 09h) of the namespace's
 *    endurance group: Media Units Written, bytes 80-95, in units of
 *    1000 x 512 bytes, rounded up; only where Identify Controller says the
 *    controller supports endurance groups (CTRATT bit 4) and Identify
 *    Namespace names the group (ENDGID, bytes 102-103);
 *  - the OCP Datacenter NVMe SSD SMART / Health Information Extended log
 *    (LID C0h, 512 bytes): Physical Media Units Written, bytes 0-15, in
 *    bytes; taken only when the page ends with that log's GUID (bytes
 *    496-511), since other vendors use the same LID for other logs.
 * docs/device.md says what differs from nvme-cli and fio.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/run.h"

#define LID_ENDURANCE 0x09
#define LID_OCP_C0 0xC0
#define EG_MUW_AT 80
#define OCP_PMUW_AT 0
#define OCP_GUID_AT 496
#define CTRATT_AT 96      /* Identify Controller: bit 4, endurance groups supported */
#define ENDGID_AT 102     /* Identify Namespace: the endurance group, 0 none */

/* The GUID of OCP's SMART / Health Information Extended log as the page
 * holds it (bytes 496-511, least significant byte first). */
static const uint8_t ocp_c0_guid[16] = {0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4,
                                        0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF};
static const char *const src_names[] = {NULL, "endurance_group_log", "ocp_smart_extended_log"};

const char *nvb__media_source_name(int src)
{
    return src == NVB__MEDIA_EG || src == NVB__MEDIA_OCP ? src_names[src] : NULL;
}

int nvb__media_source(const char *name)
{
    for (int s = NVB__MEDIA_EG; s <= NVB__MEDIA_OCP; s++)
        if (name && !strcmp(name, src_names[s]))
            return s;
    return 0;
}

unsigned nvb__media_endgid(const uint8_t *id_ctrl, const uint8_t *id_ns, char *why, size_t whylen)
{
    if (!(id_ctrl[CTRATT_AT] & 0x10)) {
        snprintf(why, whylen, "%s", "the controller reports no endurance groups (Identify Controller CTRATT bit 4)");
        return 0;
    }
    unsigned g = (unsigned)id_ns[ENDGID_AT] | (unsigned)id_ns[ENDGID_AT + 1] << 8;
    if (!g)
        snprintf(why, whylen, "%s", "the namespace names no endurance group (Identify Namespace ENDGID 0)");
    return g;
}

int nvb__media_parse(int src, const uint8_t *buf, size_t len, uint64_t *bytes, char *why, size_t whylen)
{
    if (!nvb__media_source_name(src)) {
        snprintf(why, whylen, "unknown source of media writes %d", src);
        return -EINVAL;
    }
    if (!buf || len < NVB__MEDIA_LOG_LEN) {
        snprintf(why, whylen, "the %s page has %zu bytes, fewer than its %d", src_names[src], buf ? len : 0,
                 NVB__MEDIA_LOG_LEN);
        return -EINVAL;
    }
    if (src == NVB__MEDIA_OCP) {
        if (memcmp(buf + OCP_GUID_AT, ocp_c0_guid, sizeof ocp_c0_guid)) {
            snprintf(why, whylen, "%s", "log page C0h is not OCP's SMART / Health Information Extended log "
                     "(its GUID, bytes 496-511, differs): a vendor's own log");
            return -EINVAL;
        }
        *bytes = nvb__le_sat(buf + OCP_PMUW_AT, 16);
        return 0;
    }
    uint64_t units = nvb__le_sat(buf + EG_MUW_AT, 16);
    *bytes = units > UINT64_MAX / NVB__SMART_DATA_UNIT ? UINT64_MAX : units * NVB__SMART_DATA_UNIT;
    return 0;
}

static void media_none(struct nvb__devlog *d, const char *when, const char *why)
{
    d->ms = 2;
    snprintf(d->ms_reason, sizeof d->ms_reason, "%s%s", when, why);
}

#ifndef _WIN32
/* The source for d's node (ids: its Identify pages): its endurance group's
 * log, else OCP's log when the controller has it (its page then parsed into
 * media_before). 1 OCP's read, 0 the endurance group's to read, -1 none
 * (ms 2, the reasons). */
static int media_choose(struct nvb__devlog *d, const struct nvb__devids *ids)
{
    uint8_t buf[NVB__MEDIA_LOG_LEN];
    char why[160], egwhy[100];
    if (!ids->ok) {
        media_none(d, "", ids->why);
        return -1;
    }
    d->endgid = nvb__media_endgid(ids->ctrl, ids->ns, egwhy, sizeof egwhy);
    if (d->endgid) {
        d->ms_src = NVB__MEDIA_EG;
        return 0;
    }
    d->ms_src = NVB__MEDIA_OCP;
    if (nvb__nvme_log_read(d->node, LID_OCP_C0, 0, buf, sizeof buf, why, sizeof why) == 0 &&
        nvb__media_parse(NVB__MEDIA_OCP, buf, sizeof buf, &d->media_before, why, sizeof why) == 0)
        return 1;
    d->ms = 2;
    snprintf(d->ms_reason, sizeof d->ms_reason, "%s, and no OCP SMART / Health Information Extended log (%s)",
             egwhy, why);
    return -1;
}
#endif

void nvb__media_read(struct nvb__devlog *d, const struct nvb__devids *ids)
{
    const int after = ids == NULL;
    if (after && d->ms != 1)
        return;
#ifdef _WIN32
    media_none(d, "", "media writes are not read on Windows");
#else
    if (!after) {
        d->ms = 0;
        const int c = media_choose(d, ids);
        if (c > 0)
            d->ms = 1; /* OCP's page, read by the choice */
        if (c != 0)
            return;
    }
    uint8_t buf[NVB__MEDIA_LOG_LEN];
    char why[160];
    const int eg = d->ms_src == NVB__MEDIA_EG;
    if (nvb__nvme_log_read(d->node, eg ? LID_ENDURANCE : LID_OCP_C0, eg ? d->endgid : 0, buf, sizeof buf, why,
                           sizeof why) < 0 ||
        nvb__media_parse(d->ms_src, buf, sizeof buf, after ? &d->media_after : &d->media_before, why, sizeof why) < 0)
        media_none(d, after ? "after the run: " : "", why);
    else
        d->ms = 1;
#endif
}
