/*
 * The NVMe namespace behind a passthrough target: what the nvme engine
 * needs (Identify, the namespace id, the generic node), without the rest of
 * discovery. Implemented by devices/nvme_id.c and nvme_ns.c, on Linux only:
 * the engine is built with liburing only.
 */
#ifndef NVB_DEVICES_NVME_NS_H
#define NVB_DEVICES_NVME_NS_H

#include <stddef.h>
#include <stdint.h>

/* Identify Namespace (CNS 0), the fields nvbench uses. */
struct nvb__idns {
    uint64_t nsze;
    uint8_t  nsfeat, nlbaf, flbas;
    int      optperf;           /* NSFEAT bit 4: NPWG..NOWS are valid */
    uint32_t lba_size;          /* bytes, of the format in use */
    uint16_t ms;                /* metadata bytes per LBA of that format */
    uint8_t  dps;               /* bits 2:0 PI type (0 none), bit 3 PI in the metadata's first 8 bytes */
    uint8_t  extended;          /* FLBAS bit 4: metadata interleaved with the data (extended LBAs) */
    uint32_t npwg, npwa, npdg, npda, nows; /* 1-based, in logical blocks (0: not given) */
};
/* Parse a 4096-byte (at least 384) Identify Namespace structure.
 * 0 or -EINVAL (too short, or the format in use is not described). */
int nvb__idns_parse(const uint8_t *buf, size_t len, struct nvb__idns *out);

/* Identify Namespace through NVME_IOCTL_ADMIN_CMD on fd. 0 or -errno. */
int nvb__nvme_identify_ns(int fd, int nsid, uint8_t *buf, size_t len);
/* The namespace id of an open namespace node (NVME_IOCTL_ID), or -errno
 * (-ENOTTY on a controller node). */
int nvb__nvme_nsid(int fd);

/* ---- the namespace behind a passthrough target (nvme_ns.c) ---- */
struct nvb__nvme_ns {
    char     generic[64];       /* the node passthrough I/O goes to, "/dev/ng0n1" */
    char     block[80];         /* its block device, "/dev/nvme0n1", or "" */
    int      nsid;              /* -1 unknown */
    uint32_t lba_size;          /* bytes */
    uint32_t metadata;          /* metadata bytes per block (Identify only; 0 from sysfs) */
    uint64_t size;              /* bytes */
    uint64_t max_transfer;      /* bytes per command, 0 unknown */
    char     source[12];        /* "sysfs" or "identify" */
};
/* The NVMe namespace a path names (/dev/ngXnY, /dev/nvmeXnY, a multipath
 * head, a symlink to one), from discovery, else from Identify through the
 * node itself. 0, or -ENODEV (not an NVMe namespace, or no generic node),
 * -EINVAL (a partition; no capacity), -ENOENT, -EACCES, -ENOMEM, with msg. */
int nvb__nvme_ns_find(const char *path, struct nvb__nvme_ns *ns, char *msg, size_t len);

#endif
