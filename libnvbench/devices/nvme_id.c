/*
 * NVMe Identify Namespace: the admin command through the kernel's
 * passthrough ioctl, and the parse of the fields nvbench uses. The
 * preferred write granularity (NPWG) is the flash's indirection unit: a
 * write smaller than it costs the drive a read-modify-write.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/nvme_ioctl.h>

#include "devices/devices.h"

#define NVME_ADMIN_IDENTIFY 0x06
#define NVME_CNS_NS 0x00

int nvb__nvme_identify_ns(int fd, int nsid, uint8_t *buf, size_t len)
{
    if (len < 4096 || nsid <= 0)
        return -EINVAL;
    struct nvme_admin_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    memset(buf, 0, 4096);
    cmd.opcode = NVME_ADMIN_IDENTIFY;
    cmd.nsid = (uint32_t)nsid;
    cmd.addr = (uint64_t)(uintptr_t)buf;
    cmd.data_len = 4096;
    cmd.cdw10 = NVME_CNS_NS;
    cmd.timeout_ms = 5000;
    int rc = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
    if (rc < 0)
        return -errno;
    if (rc > 0)
        return -EIO; /* an NVMe status code: the controller refused */
    return 0;
}

int nvb__nvme_nsid(int fd)
{
    int id = ioctl(fd, NVME_IOCTL_ID);
    return id > 0 ? id : (id < 0 ? -errno : -ENODEV);
}

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

int nvb__idns_parse(const uint8_t *b, size_t len, struct nvb__idns *o)
{
    memset(o, 0, sizeof *o);
    if (len < 384)
        return -EINVAL;
    o->nsze = le64(b + 0);
    o->nsfeat = b[24];
    o->nlbaf = b[25];   /* 0's based */
    o->flbas = b[26];
    /* FLBAS bits 3:0 and, with more than 16 formats, bits 6:5 above them */
    unsigned fmt = (o->flbas & 0x0f) | (o->nlbaf >= 16 ? ((o->flbas >> 5) & 0x3) << 4 : 0);
    if (fmt > o->nlbaf || 128 + 4 * (fmt + 1) > len)
        return -EINVAL;
    uint32_t lbaf = le32(b + 128 + 4 * fmt);
    unsigned lbads = (lbaf >> 16) & 0xff;
    if (lbads < 9 || lbads > 31)
        return -EINVAL;
    o->lba_size = 1u << lbads;
    o->ms = (uint16_t)(lbaf & 0xffff);
    o->dps = b[29];
    o->extended = (o->flbas >> 4) & 1;
    /* NSFEAT bit 4 (OPTPERF): NPWG, NPWA, NPDG, NPDA and NOWS are
     * defined, each a 0's based count of logical blocks. */
    o->optperf = (o->nsfeat >> 4) & 1;
    if (o->optperf) {
        o->npwg = le16(b + 64) + 1u;
        o->npwa = le16(b + 66) + 1u;
        o->npdg = le16(b + 68) + 1u;
        o->npda = le16(b + 70) + 1u;
        o->nows = le16(b + 72) + 1u;
    }
    return 0;
}
