/*
 * Protection information (PI) and metadata on NVMe passthrough: the checks
 * of a namespace's format against the workload's keys, the Read/Write
 * command fields, and the PI of host-generated writes. The NVM Command Set
 * specification's 16-bit guard format: each block's metadata holds an
 * 8-byte tuple (guard CRC, application tag, reference tag), in its first
 * or last 8 bytes (DPS bit 3); PI types 1 and 2 check the reference tag
 * against the LBA, type 3 has none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/engine.h"
#include "devices/nvme_ns.h"
#include "engines/nvme_pi.h"

/* The CRC's remainder for each value of a 4-bit nibble (polynomial 0x8BB7). */
static const uint16_t crc_nibble[16] = {
    0x0000, 0x8bb7, 0x9cd9, 0x176e, 0xb205, 0x39b2, 0x2edc, 0xa56b,
    0xefbd, 0x640a, 0x7364, 0xf8d3, 0x5db8, 0xd60f, 0xc161, 0x4ad6,
};

uint16_t nvb__crc_t10dif(uint16_t crc, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        crc = (uint16_t)((crc << 4) ^ crc_nibble[((crc >> 12) ^ (b[i] >> 4)) & 0xf]);
        crc = (uint16_t)((crc << 4) ^ crc_nibble[((crc >> 12) ^ (b[i] & 0xf)) & 0xf]);
    }
    return crc;
}

static void be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void be32(uint8_t *p, uint32_t v) { be16(p, (uint16_t)(v >> 16)); be16(p + 2, (uint16_t)v); }

void nvb__nvme_pi_fill(const struct nvb__pi_fmt *f, const void *data, uint32_t nlb, uint64_t slba, void *md)
{
    memset(md, 0, (size_t)nlb * f->ms);
    if (!f->type || f->ms < 8)
        return;
    const uint8_t *d = data;
    for (uint32_t i = 0; i < nlb; i++) {
        uint8_t *t = (uint8_t *)md + (size_t)i * f->ms + (f->first ? 0 : f->ms - 8);
        be16(t, nvb__crc_t10dif(0, d + (size_t)i * f->lba_size, f->lba_size));
        be16(t + 2, (uint16_t)(f->cdw15 & 0xffff));
        be32(t + 4, (uint32_t)(slba + i));
    }
}

/* The settings as the user wrote them, for messages. */
static const char *key_of(const struct nvb__pi *pi)
{
    return pi->act ? "pi_act=1" : pi->chk ? "pi_chk" : "md_per_io_size";
}

/* A format with metadata: refuses what it cannot do, else fills f. */
static int plan_md(const struct nvb__idns *id, const struct nvb__pi *pi, uint64_t max_len, struct nvb__pi_fmt *f,
                   char *why, size_t len)
{
    const int set = pi->act || pi->chk || pi->md_per_io;
    if (id->extended) {
        snprintf(why, len, "formatted with %u bytes of metadata interleaved with each block's data (extended "
                 "LBAs, FLBAS bit 4): not supported; use a format with the metadata in a separate buffer",
                 (unsigned)id->ms);
        return -ENOTSUP;
    }
    if ((pi->act || pi->chk) && !f->type) {
        snprintf(why, len, "%s: formatted with %u bytes of metadata per block but no protection information "
                 "(DPS type 0): nothing to insert or check", key_of(pi), (unsigned)id->ms);
        return -ENOTSUP;
    }
    if ((pi->chk & NVB__PI_REFTAG) && f->type == 3) {
        snprintf(why, len, "pi_chk=REFTAG: protection information type 3 has no reference tag to check "
                 "(types 1 and 2 do); check GUARD and APPTAG");
        return -ENOTSUP;
    }
    /* PRACT with metadata that is only the PI: the controller inserts and
     * strips it, and no metadata crosses the bus */
    const int strip = pi->act && f->type && id->ms == 8;
    const uint64_t blocks = max_len / id->lba_size, need = blocks * id->ms;
    if (!strip && pi->md_per_io < need) {
        if (!set)
            snprintf(why, len, "formatted with %u bytes of metadata per block%s: set md_per_io_size=%" PRIu64
                     " (the metadata of the largest I/O, %" PRIu64 " blocks)%s", (unsigned)id->ms,
                     f->type ? " with protection information" : "", need, blocks,
                     f->type && id->ms == 8 ? ", or pi_act=1 to let the controller insert and strip it" : "");
        else
            snprintf(why, len, "md_per_io_size=%" PRIu64 " is smaller than the metadata of the largest I/O: %"
                     PRIu64 " blocks x %u bytes = %" PRIu64 " bytes", pi->md_per_io, blocks, (unsigned)id->ms,
                     need);
        return set ? -EINVAL : -ENOTSUP;
    }
    f->md_per_io = strip ? 0 : pi->md_per_io;
    f->host_gen = f->type && !pi->act;
    f->cdw12 = (pi->act ? NVB__CDW12_PRACT : 0) | (pi->chk & NVB__PI_GUARD ? NVB__CDW12_PRCHK_GUARD : 0) |
               (pi->chk & NVB__PI_APPTAG ? NVB__CDW12_PRCHK_APPTAG : 0) |
               (pi->chk & NVB__PI_REFTAG ? NVB__CDW12_PRCHK_REFTAG : 0);
    f->cdw15 = (uint32_t)pi->apptag_mask << 16 | pi->apptag;
    f->reftag = f->type == 1 || f->type == 2;
    return 0;
}

int nvb__nvme_pi_plan(const struct nvb__idns *id, const struct nvb__pi *pi, uint64_t max_len, struct nvb__pi_fmt *f,
                      char *why, size_t len)
{
    memset(f, 0, sizeof *f);
    f->lba_size = id->lba_size;
    f->ms = id->ms;
    f->type = (uint8_t)(id->ms ? id->dps & 7 : 0);
    f->first = (uint8_t)((id->dps >> 3) & 1);
    if (f->type > 3) {
        snprintf(why, len, "Identify Namespace states PI type %u (DPS 0x%x): not one the specification defines",
                 (unsigned)f->type, (unsigned)id->dps);
        return -ENOTSUP;
    }
    if (id->ms)
        return plan_md(id, pi, max_len, f, why, len);
    if (pi->act || pi->chk || pi->md_per_io) {
        snprintf(why, len, "%s: the namespace is formatted without metadata (its LBA format has 0 metadata "
                 "bytes per block), so it has no protection information either; format it with metadata "
                 "(nvme format --lbaf=N with ms > 0, --pi=1..3)", key_of(pi));
        return -ENOTSUP;
    }
    return 0;
}
