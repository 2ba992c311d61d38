/*
 * Windows data formats (internal), in portable C: the storage property
 * descriptors that IOCTL_STORAGE_QUERY_PROPERTY returns, the NVMe
 * pass-through query that rides on it, how a disk's driver names its
 * storage stack, and the mapping of Windows CPU times onto struct
 * nvb__cpu_times. Compiled on every platform so the parsers are tested on
 * Linux on canned buffers (tests/c/test_win_parsers.c); platform/win/
 * feeds them real ones.
 *
 * Layouts are Microsoft's documented structures (winioctl.h), read byte by
 * byte, little-endian, bounded by both the buffer's length and the Size
 * the descriptor states, so a short or hostile buffer cannot make a
 * parser read past its end.
 */
#ifndef NVB_PLATFORM_WINFMT_H
#define NVB_PLATFORM_WINFMT_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"

/* ---- CPU times ---- */
/* Times in 100 ns units as Windows reports them. kernel includes idle
 * (both GetSystemTimes and SystemProcessorPerformanceInformation) and, for
 * the per-CPU figures, the DPC and interrupt times too; pass 0 for dpc and
 * intr where they are unknown. Result in ns: idle -> idle, user -> user,
 * DPC -> softirq, interrupts -> irq, the rest of kernel -> system, so that
 * busy = kernel - idle + user. */
void nvb__win_cpu_times(uint64_t idle, uint64_t kernel, uint64_t user, uint64_t dpc, uint64_t intr,
                        struct nvb__cpu_times *out);

/* ---- IOCTL_STORAGE_QUERY_PROPERTY ---- */
/* STORAGE_PROPERTY_ID values used here. */
enum {
    NVB__WIN_PROP_DEVICE = 0,            /* STORAGE_DEVICE_DESCRIPTOR */
    NVB__WIN_PROP_ADAPTER = 1,           /* STORAGE_ADAPTER_DESCRIPTOR */
    NVB__WIN_PROP_ALIGNMENT = 6,         /* STORAGE_ACCESS_ALIGNMENT_DESCRIPTOR */
    NVB__WIN_PROP_SEEK_PENALTY = 7,      /* DEVICE_SEEK_PENALTY_DESCRIPTOR */
    NVB__WIN_PROP_ADAPTER_PROTOCOL = 49, /* StorageAdapterProtocolSpecificProperty */
    NVB__WIN_PROP_DEVICE_PROTOCOL = 50,  /* StorageDeviceProtocolSpecificProperty */
};
/* STORAGE_BUS_TYPE values with a name of their own here. */
enum {
    NVB__WIN_BUS_SCSI = 0x01, NVB__WIN_BUS_ATA = 0x03, NVB__WIN_BUS_USB = 0x07, NVB__WIN_BUS_RAID = 0x08,
    NVB__WIN_BUS_ISCSI = 0x09, NVB__WIN_BUS_SAS = 0x0a, NVB__WIN_BUS_SATA = 0x0b, NVB__WIN_BUS_VIRTUAL = 0x0e,
    NVB__WIN_BUS_FILE_VIRTUAL = 0x0f, NVB__WIN_BUS_SPACES = 0x10, NVB__WIN_BUS_NVME = 0x11,
};
/* "nvme", "scsi", "sata", ... ("unknown" for 0 and unnamed values). */
const char *nvb__win_bus_name(uint32_t bus);

/* Everything the property queries say about one disk. */
struct nvb__win_storage {
    /* STORAGE_DEVICE_DESCRIPTOR */
    int      have_device;
    uint8_t  device_type;          /* SCSI peripheral type: 0 disk */
    int      removable, command_queueing;
    uint32_t bus_type;
    char     vendor[64], product[64], revision[32], serial[64];
    /* STORAGE_ADAPTER_DESCRIPTOR */
    int      have_adapter;
    uint32_t adapter_bus_type;
    uint32_t max_transfer;         /* bytes per request */
    uint32_t alignment_mask;       /* buffer alignment - 1 the adapter needs */
    uint16_t bus_major, bus_minor;
    /* STORAGE_ACCESS_ALIGNMENT_DESCRIPTOR */
    int      have_alignment;
    uint32_t lbs, pbs;             /* logical / physical sector bytes */
    uint32_t align_offset;         /* bytes the first sector is off alignment */
    /* DEVICE_SEEK_PENALTY_DESCRIPTOR: 1 rotating, 0 solid state, -1 unknown */
    int      seek_penalty;
};
void nvb__win_storage_init(struct nvb__win_storage *s);

/* The descriptor a query of property_id (NVB__WIN_PROP_DEVICE, _ADAPTER,
 * _ALIGNMENT or _SEEK_PENALTY) returned (len = bytes returned) fills its
 * part of s. 0, or -EINVAL (too short, a Size field that disagrees with the
 * buffer, implausible sector sizes, another property id), -EPROTO (a
 * different descriptor: its Size is smaller than the structure's fixed
 * part). */
int nvb__win_parse_property(uint32_t property_id, const uint8_t *b, size_t len, struct nvb__win_storage *s);

/* The 8-byte STORAGE_PROPERTY_QUERY for a standard query of property id. */
size_t nvb__win_property_query(uint8_t *buf, size_t len, uint32_t property_id);

/* NVMe Identify through StorageAdapterProtocolSpecificProperty (cns 1,
 * the controller) or StorageDeviceProtocolSpecificProperty (cns 0, the
 * namespace nsid): the query buffer (STORAGE_PROPERTY_QUERY whose
 * AdditionalParameters are a STORAGE_PROTOCOL_SPECIFIC_DATA, followed by
 * room for the 4096 bytes of data). Returns the size to pass as both input
 * and output length, or 0 when len is too small. */
#define NVB__WIN_NVME_QUERY_LEN (8u + 40u + 4096u)
size_t nvb__win_nvme_identify_query(uint8_t *buf, size_t len, unsigned cns, uint32_t nsid);
/* The data of a STORAGE_PROTOCOL_DATA_DESCRIPTOR (what that query
 * returns): *data points into b. 0, or -EINVAL (short, or the offset and
 * length point outside the buffer), -EPROTO (not NVMe Identify data). */
int nvb__win_protocol_data(const uint8_t *b, size_t len, const uint8_t **data, size_t *dlen);

/* Identify Controller, the fields a result names. */
struct nvb__win_nvme_ctrl {
    uint16_t vid, ssvid;
    char     serial[24], model[48], firmware[12];
    uint8_t  mdts;                 /* max transfer, 2^mdts min pages; 0 none */
    uint32_t nn;                   /* namespaces */
};
/* 0 or -EINVAL (shorter than 4096 bytes is accepted down to 520). */
int nvb__win_parse_nvme_ctrl(const uint8_t *b, size_t len, struct nvb__win_nvme_ctrl *o);

/* ---- the storage stack ---- */
/* The service (driver) that serves a disk device, as the device's
 * SPDRP_SERVICE names it, and its bus: "nvmedisk" is the native NVMe stack
 * of Windows Server 2025 (NVMeDisk.sys, requests straight to StorMQ);
 * "disk" is disk.sys, which speaks SCSI to a Storport miniport (stornvme
 * for NVMe). Returns "windows_native", "windows_non_native" or "unknown"
 * (NULL or unrecognised service). Case-insensitive. */
const char *nvb__win_stack_name(const char *disk_service);
/* Does s start with prefix, ASCII letters compared without case? */
int nvb__win_prefix_ci(const char *s, const char *prefix);

#endif
