/* Windows data formats, portable (see winfmt.h). */
#include "platform/winfmt.h"

#include <errno.h>
#include <string.h>

#ifndef EPROTO
#define EPROTO 71
#endif

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

void nvb__win_cpu_times(uint64_t idle, uint64_t kernel, uint64_t user, uint64_t dpc, uint64_t intr,
                        struct nvb__cpu_times *o)
{
    memset(o, 0, sizeof *o);
    /* Kernel time includes the idle loop, and the DPC and interrupt time
     * spent on that CPU; a sampling race can make the parts exceed the
     * whole by a tick, hence the clamp. */
    uint64_t k = kernel > idle ? kernel - idle : 0;
    uint64_t irq = intr < k ? intr : k;
    k -= irq;
    uint64_t soft = dpc < k ? dpc : k;
    k -= soft;
    o->idle = idle * 100u;
    o->user = user * 100u;
    o->system = k * 100u;
    o->irq = irq * 100u;
    o->softirq = soft * 100u;
}

const char *nvb__win_bus_name(uint32_t bus)
{
    static const char *const names[] = {
        "unknown", "scsi", "atapi", "ata", "1394", "ssa", "fibre", "usb", "raid", "iscsi",
        "sas", "sata", "sd", "mmc", "virtual", "file_backed_virtual", "spaces", "nvme", "scm", "ufs",
        "nvmeof",
    };
    return bus < sizeof names / sizeof names[0] ? names[bus] : "unknown";
}

void nvb__win_storage_init(struct nvb__win_storage *s)
{
    memset(s, 0, sizeof *s);
    s->seek_penalty = -1;
}

/* Every descriptor starts with Version and Size. Size is what the full
 * descriptor would take, which may exceed what a small output buffer
 * received: parse only min(len, Size). */
static int header(const uint8_t *b, size_t len, size_t fixed, size_t *avail)
{
    if (!b || len < 8)
        return -EINVAL;
    uint32_t size = le32(b + 4);
    if (size < fixed)
        return -EPROTO;
    *avail = size < len ? size : len;
    return *avail >= fixed ? 0 : -EINVAL;
}

/* n bytes of an ASCII field, without the padding (spaces, NULs) drives put
 * around it, control bytes replaced, into out. */
static void ascii_field(const uint8_t *s, size_t n, char *out, size_t outlen)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == 0))
        n--;
    while (n && s[0] == ' ') {
        s++;
        n--;
    }
    if (n > outlen - 1)
        n = outlen - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)(s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?');
    out[n] = '\0';
}

/* The NUL-terminated ASCII string at offset off (0: absent) of a
 * descriptor of avail bytes. */
static void str_at(const uint8_t *b, size_t avail, uint32_t off, char *out, size_t outlen)
{
    out[0] = '\0';
    if (off == 0 || off >= avail || outlen == 0)
        return;
    size_t n = 0;
    while (off + n < avail && b[off + n])
        n++;
    ascii_field(b + off, n, out, outlen);
}

/* STORAGE_DEVICE_DESCRIPTOR: Version, Size, DeviceType, DeviceTypeModifier,
 * RemovableMedia, CommandQueueing, VendorIdOffset (12), ProductIdOffset
 * (16), ProductRevisionOffset (20), SerialNumberOffset (24), BusType (28),
 * RawPropertiesLength (32), RawDeviceProperties (36). */
static int device_desc(const uint8_t *b, size_t avail, struct nvb__win_storage *s)
{
    s->device_type = b[8];
    s->removable = b[10] != 0;
    s->command_queueing = b[11] != 0;
    s->bus_type = le32(b + 28);
    str_at(b, avail, le32(b + 12), s->vendor, sizeof s->vendor);
    str_at(b, avail, le32(b + 16), s->product, sizeof s->product);
    str_at(b, avail, le32(b + 20), s->revision, sizeof s->revision);
    str_at(b, avail, le32(b + 24), s->serial, sizeof s->serial);
    s->have_device = 1;
    return 0;
}

/* STORAGE_ADAPTER_DESCRIPTOR: Version, Size, MaximumTransferLength (8),
 * MaximumPhysicalPages (12), AlignmentMask (16), four BOOLEANs (20..23),
 * BusType (24, a BYTE), BusMajorVersion (26), BusMinorVersion (28),
 * SrbType and AddressType (30, 31; Windows 8+). */
static int adapter_desc(const uint8_t *b, size_t avail, struct nvb__win_storage *s)
{
    s->max_transfer = le32(b + 8);
    s->alignment_mask = le32(b + 16);
    s->adapter_bus_type = b[24];
    s->bus_major = le16(b + 26);
    s->bus_minor = le16(b + 28);
    s->have_adapter = 1;
    return 0;
}

/* STORAGE_ACCESS_ALIGNMENT_DESCRIPTOR: Version, Size, BytesPerCacheLine,
 * BytesOffsetForCacheAlignment, BytesPerLogicalSector (16),
 * BytesPerPhysicalSector (20), BytesOffsetForSectorAlignment (24). */
static int alignment_desc(const uint8_t *b, size_t avail, struct nvb__win_storage *s)
{
    uint32_t l = le32(b + 16), p = le32(b + 20);
    /* a sector size is a power of two of at least 512 */
    if (l < 512 || (l & (l - 1)) || (p && (p < l || (p & (p - 1)))))
        return -EINVAL;
    s->lbs = l;
    s->pbs = p ? p : l;
    s->align_offset = le32(b + 24);
    s->have_alignment = 1;
    return 0;
}

/* DEVICE_SEEK_PENALTY_DESCRIPTOR: Version, Size, IncursSeekPenalty (8). */
static int seek_penalty_desc(const uint8_t *b, size_t avail, struct nvb__win_storage *s)
{
    s->seek_penalty = b[8] != 0;
    return 0;
}

/* Each descriptor parsed here: its property, the size of its fixed part,
 * and the reader of that part. */
static const struct {
    uint32_t id;
    size_t fixed;
    int (*read)(const uint8_t *b, size_t avail, struct nvb__win_storage *s);
} descriptors[] = {
    {NVB__WIN_PROP_DEVICE, 36, device_desc},
    {NVB__WIN_PROP_ADAPTER, 30, adapter_desc},
    {NVB__WIN_PROP_ALIGNMENT, 28, alignment_desc},
    {NVB__WIN_PROP_SEEK_PENALTY, 9, seek_penalty_desc},
};

int nvb__win_parse_property(uint32_t property_id, const uint8_t *b, size_t len, struct nvb__win_storage *s)
{
    for (size_t i = 0; i < sizeof descriptors / sizeof descriptors[0]; i++) {
        if (descriptors[i].id != property_id)
            continue;
        size_t avail;
        int rc = header(b, len, descriptors[i].fixed, &avail);
        return rc < 0 ? rc : descriptors[i].read(b, avail, s);
    }
    return -EINVAL;
}

size_t nvb__win_property_query(uint8_t *buf, size_t len, uint32_t property_id)
{
    if (len < 12)
        return 0;
    memset(buf, 0, 12);
    put32(buf, property_id);
    put32(buf + 4, 0); /* PropertyStandardQuery */
    return 12;         /* PropertyId, QueryType, AdditionalParameters[1] padded */
}

/* STORAGE_PROTOCOL_SPECIFIC_DATA (40 bytes): ProtocolType (0),
 * DataType (4), ProtocolDataRequestValue (8), ProtocolDataRequestSubValue
 * (12), ProtocolDataOffset (16), ProtocolDataLength (20),
 * FixedProtocolReturnData (24), three more sub-values. The offset is
 * counted from the start of this structure. */
#define PSD_LEN 40u
#define PROTOCOL_NVME 3u
#define NVME_DATA_IDENTIFY 1u

size_t nvb__win_nvme_identify_query(uint8_t *buf, size_t len, unsigned cns, uint32_t nsid)
{
    if (len < NVB__WIN_NVME_QUERY_LEN)
        return 0;
    memset(buf, 0, NVB__WIN_NVME_QUERY_LEN);
    put32(buf, cns == 1 ? NVB__WIN_PROP_ADAPTER_PROTOCOL : NVB__WIN_PROP_DEVICE_PROTOCOL);
    put32(buf + 4, 0);
    uint8_t *p = buf + 8;
    put32(p + 0, PROTOCOL_NVME);
    put32(p + 4, NVME_DATA_IDENTIFY);
    put32(p + 8, cns);
    put32(p + 12, cns == 1 ? 0 : nsid);
    put32(p + 16, PSD_LEN);
    put32(p + 20, 4096);
    return NVB__WIN_NVME_QUERY_LEN;
}

/* STORAGE_PROTOCOL_DATA_DESCRIPTOR: Version, Size, then the
 * STORAGE_PROTOCOL_SPECIFIC_DATA at 8, its data at 8 + ProtocolDataOffset. */
int nvb__win_protocol_data(const uint8_t *b, size_t len, const uint8_t **data, size_t *dlen)
{
    if (!b || len < 8 + PSD_LEN)
        return -EINVAL;
    const uint8_t *p = b + 8;
    if (le32(p) != PROTOCOL_NVME || le32(p + 4) != NVME_DATA_IDENTIFY)
        return -EPROTO;
    uint64_t off = le32(p + 16), n = le32(p + 20);
    if (off < PSD_LEN || n == 0 || 8 + off + n > len)
        return -EINVAL;
    *data = p + off;
    *dlen = (size_t)n;
    return 0;
}

/* Identify Controller: VID (0), SSVID (2), SN (4, 20 bytes), MN (24, 40),
 * FR (64, 8), MDTS (77), NN (516). */
int nvb__win_parse_nvme_ctrl(const uint8_t *b, size_t len, struct nvb__win_nvme_ctrl *o)
{
    memset(o, 0, sizeof *o);
    if (!b || len < 520)
        return -EINVAL;
    o->vid = le16(b);
    o->ssvid = le16(b + 2);
    ascii_field(b + 4, 20, o->serial, sizeof o->serial);
    ascii_field(b + 24, 40, o->model, sizeof o->model);
    ascii_field(b + 64, 8, o->firmware, sizeof o->firmware);
    o->mdts = b[77];
    o->nn = le32(b + 516);
    return 0;
}

int nvb__win_prefix_ci(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++) {
        char x = *s, y = *prefix;
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x != y)
            return 0;
    }
    return 1;
}

const char *nvb__win_stack_name(const char *svc)
{
    if (!svc || !*svc)
        return "unknown";
    static const char *const stacks[][2] = {{"nvmedisk", "windows_native"}, {"disk", "windows_non_native"}};
    for (size_t i = 0; i < sizeof stacks / sizeof stacks[0]; i++)
        if (strlen(svc) == strlen(stacks[i][0]) && nvb__win_prefix_ci(svc, stacks[i][0]))
            return stacks[i][1];
    return "unknown";
}
