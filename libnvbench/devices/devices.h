/*
 * Devices (internal): block-device discovery from sysfs, NVMe Identify,
 * filesystem signatures, and the destructive-write guard.
 *
 * Everything reads from a context of roots (sysfs, proc, dev) so that the
 * same code runs on the live system and on recorded trees
 * (tests/data/sysfs/<machine>/{sys,proc,dev,probe}). A device node is only
 * ever opened (blkid, Identify, O_EXCL) when it is a real device node whose
 * device number is the one sysfs gives for that name: in a recorded tree
 * there are none, so nothing on the host is touched, and recorded answers
 * come from the tree's probe/ directory instead.
 *
 * Linux only: sysfs, /proc/self/mountinfo, NVMe ioctls. This is the whole
 * of the devices layer for devices/ itself and its tests; the rest of the
 * library includes only devices/facts.h (the runner's targets) and
 * devices/nvme_ns.h (passthrough), which platform/win/ implements too.
 */
#ifndef NVB_DEVICES_H
#define NVB_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#include "devices/facts.h"
#include "devices/nvme_ns.h"

struct nvb__buf;

#define NVB__DEV_PATH 1024

struct nvb__devctx {
    char sys[NVB__DEV_PATH];    /* "/sys" */
    char proc[NVB__DEV_PATH];   /* "/proc", or "" when unknown */
    char dev[NVB__DEV_PATH];    /* "/dev", or "" when unknown */
    char probe[NVB__DEV_PATH];  /* recorded blkid/Identify answers, or "" */
};
/* sysfs_root NULL: the live system. Otherwise proc/, dev/ and probe/ are
 * taken from beside it when they exist (so "/sys" is the live system too).
 * 0, -ENOENT (no such directory), -ENAMETOOLONG. */
int nvb__devctx_init(struct nvb__devctx *c, const char *sysfs_root);

struct nvb__strv {
    char   **v;
    unsigned n, cap;
};

struct nvb__mount {
    char *point, *fstype, *source;
};

struct nvb__pcie_link {
    double cur_gts, max_gts;    /* GT/s, 0 unknown */
    int    cur_width, max_width;/* lanes, 0 unknown */
    double cur_gbs, max_gbs;    /* bandwidth ceiling GB/s (10^9 bytes/s), 0 unknown */
};

struct nvb__nvme_ctrl {
    char name[32];              /* "nvme0" */
    char model[64], serial[32], firmware_rev[16], transport[16], state[24];
    char address[160], subsysnqn[256];
    int  cntlid;                /* -1 unknown */
    int  numa_node;             /* -1 unknown */
    int  queue_count;           /* blk-mq hardware queues, -1 unknown */
    int  pcie;                  /* link below is valid */
    struct nvb__pcie_link link;
};

struct nvb__nvme {
    int  nsid;                  /* -1 unknown */
    char role[8];               /* "single" (no multipath), "head", "path" */
    char head[64];              /* path: the head it serves */
    struct nvb__strv paths;     /* head: its hidden paths */
    char subsystem[32];         /* "nvme-subsys0", or "" */
    char generic[64];           /* "/dev/ng0n1", or "" */
    char generic_name[32];      /* "ng0n1" */
    unsigned nctrl;
    struct nvb__nvme_ctrl *ctrl;
    /* Identify Namespace */
    int  id_state;              /* 0 not tried, 1 read, <0 -errno */
    char id_source[12];         /* "ioctl", "recorded", "" */
    char id_why[160];           /* why it was not read */
    struct nvb__idns id;
};

struct nvb__dev {
    char name[64];              /* kernel name, "nvme0n1p1" */
    char path[80];              /* "/dev/nvme0n1p1", "" for hidden paths */
    char kind[16];              /* nvme, nvme-path, loop, zram, virtio, scsi, dm, md, partition, other */
    char majmin[24];            /* "259:1" */
    char parent[64];            /* partition: the whole disk */
    char sysdir[NVB__DEV_PATH]; /* its sysfs directory (resolved) */
    char qdir[NVB__DEV_PATH];   /* directory holding queue/ (the parent's for a partition) */
    uint64_t size;              /* bytes */
    uint64_t start;             /* partition: first byte in the parent */
    int      partno;
    uint32_t lbs, pbs, min_io, opt_io;
    uint64_t max_transfer;      /* bytes (max_hw_sectors_kb) */
    uint64_t max_sectors;       /* bytes (max_sectors_kb, the soft limit) */
    int      rotational, io_poll, nr_requests, removable, ro, hidden; /* -1 unknown */
    int64_t  atomic_min, atomic_max; /* atomic_write_unit_{min,max}_bytes (Linux 6.11+), -1 unknown */
    char     zoned[24], scheduler[32], write_cache[24];
    char     model[128], serial[128], firmware_rev[32], vendor[64];
    char     backing_file[512]; /* loop */
    /* A loop device's backing, exactly (stack.c, read when first needed):
     * lo_state 0 not read, 1 from LOOP_GET_STATUS64 or stat, 2 only the
     * path (a recorded tree), -1 unknown or not an active loop. */
    int      lo_state;
    char     lo_dev[24];        /* "254:0": the file system holding a backing file */
    uint64_t lo_ino;
    char     lo_rdev[24];       /* "7:0" when the backing is a block device, else "" */
    char     dm_name[128], dm_uuid[160], md_level[24];
    struct nvb__strv partitions, holders, slaves;
    unsigned nmounts;
    struct nvb__mount *mounts;
    int      swap;
    /* signature */
    char sig_type[32], sig_usage[24], sig_label[128], sig_uuid[64];
    char sig_source[12];        /* "blkid", "recorded", "none" (probed, nothing), "" (not probed) */
    char sig_why[160];
    uint64_t iu;                /* indirection unit, bytes; 0 unknown */
    char     iu_source[12];     /* "identify", "sysfs", "unknown" */
    struct nvb__nvme *nvme;     /* NULL unless kind nvme / nvme-path */
    int probed;                 /* NVB__PROBE_* done */
};

struct nvb__devlist {
    unsigned n, cap;
    struct nvb__dev *d;
    struct nvb__strv swapfiles;  /* active swap files (<proc>/swaps, type file) */
};

/* Read every block device under <sys>/block (whole disks, their partitions,
 * hidden NVMe paths), with mounts and swap. Nothing is opened: call
 * nvb__dev_probe() for the signature and Identify of those that need it.
 * 0, -ENOENT (no <sys>/block), -ENOMEM. */
int  nvb__dev_scan(const struct nvb__devctx *c, struct nvb__devlist *l);
void nvb__devlist_free(struct nvb__devlist *l);
struct nvb__dev *nvb__devlist_find(const struct nvb__devlist *l, const char *name);
/* Signature (libblkid, or recorded) and/or NVMe Identify for one device;
 * NVB__PROBE_ID also sets the indirection unit. Each is done once per
 * device. Never fails: what could not be learned says why. */
#define NVB__PROBE_SIG 1
#define NVB__PROBE_ID  2
#define NVB__PROBE_ALL 3
void nvb__dev_probe(const struct nvb__devctx *c, struct nvb__devlist *l, struct nvb__dev *d, int what);
/* Open d's device node under the context's dev/, only when it is the device
 * sysfs names (never on a recorded tree). fd, or -ENODEV, -EACCES, ... */
int  nvb__dev_open(const struct nvb__devctx *c, const struct nvb__dev *d, int flags);
/* Sum of the current PCIe link ceilings of an NVMe device's controllers
 * (GB/s), 0 unknown. */
double nvb__dev_link_gbs(const struct nvb__dev *d);
/* The value at a dotted path of d's JSON ("nvme.controllers.0.model"):
 * strings raw, numbers and booleans as JSON text, objects and arrays as
 * JSON. Length, or -ENOENT, -ENODATA (null: unknown or not applicable),
 * -ENOSPC, -ENOMEM. */
int  nvb__dev_get(const struct nvb__devlist *l, const struct nvb__dev *d, const char *key, char *buf, size_t len);
/* The kernel name of the block device a path names, following symlinks
 * (/dev/disk/by-id/...); an NVMe generic node ngXnY maps to its namespace
 * nvmeXnY. 0, -ENOENT (no such path), -ENODEV (not a block device nor an
 * NVMe generic node), -ENAMETOOLONG. */
int nvb__dev_resolve(const struct nvb__devctx *c, const struct nvb__devlist *l, const char *path,
                     char *name, size_t len);
/* The device as a JSON object. */
void nvb__dev_json(const struct nvb__devlist *l, const struct nvb__dev *d, struct nvb__buf *b);

/* Bandwidth ceiling of a PCIe link in GB/s (10^9 bytes/s): GT/s x lanes x
 * line-code efficiency (8b/10b up to 5 GT/s, 128b/130b from 8 GT/s) / 8.
 * 0 when either is unknown. */
double nvb__pcie_ceiling_gbs(double gts, int width);

/* Signature: fills sig_* of d from libblkid on fd. 0 found, 1 none,
 * -ENOTSUP (built without libblkid), other -errno. */
int nvb__sig_probe_fd(int fd, struct nvb__dev *d);

/* nvb__nvme_ns_find (nvme_ns.h) on any context (recorded trees in the tests). */
int nvb__nvme_ns_find_ctx(const struct nvb__devctx *c, const char *path, struct nvb__nvme_ns *ns, char *msg,
                          size_t len);

/* ---- what is using a device (usage.c) ---- */
/* Every name under which a device's blocks can be in use: itself, its
 * disk, its partitions, its multipath head or paths. rel says
 * how each relates to d ("" itself, "its disk ", ...). */
#define NVB__MAX_FAMILY 64
struct nvb__fam {
    unsigned n;
    struct {
        const struct nvb__dev *d;
        const char *rel;
    } m[NVB__MAX_FAMILY];
};
void nvb__dev_family(const struct nvb__devlist *l, const struct nvb__dev *d, struct nvb__fam *f);
/* "/dev/loop0", or the kernel name of a hidden path. */
const char *nvb__dev_label(const struct nvb__dev *d);
/* A message built in pieces into a fixed buffer (truncated, never
 * overrun); items counts the pieces for separators. */
struct nvb__msg {
    char  *s;
    size_t len, used;
    int    items;
};
void nvb__msg_put(struct nvb__msg *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "; " before every piece but the first. */
void nvb__msg_sep(struct nvb__msg *o);
/* Why writing to d would corrupt something in use (mounts, holders, swap,
 * over its aliases), or "". No device node is opened. */
void nvb__dev_busy(const struct nvb__devlist *l, const struct nvb__dev *d, char *out, size_t len);

/* ---- the destructive-write guard ---- */
/* Would writing to path destroy something? 0 when allowed. -EBUSY when the
 * device (or an alias: its partitions, its parent, multipath head or paths,
 * its generic node) is mounted, held (dm, md, ...), active swap, or claimed
 * by the kernel: no option overrides that. -EPERM when it is a block
 * device and allow_destructive is 0: the message says what would be
 * destroyed. 0 for a path that is not a block device or an NVMe generic
 * node. The message (msg) names the mount point or holder. `what` is the
 * workload's rw, for the message. */
int nvb__guard_check(const struct nvb__devctx *c, struct nvb__devlist *l, const char *path,
                     int allow_destructive, const char *what, char *msg, size_t len);

/* ---- the claim test (hold.c) ---- */
/* What a run writing a block device or a regular file would meet when it
 * takes it (nvb__hold_take), tested without taking anything: the same
 * test for a target and for every layer under it (stack.c). A block
 * device is opened O_EXCL (EBUSY: the kernel has it claimed: mounted,
 * perhaps in another mount namespace, dm, md, swap, another program's
 * exclusive open, or another run writing it); then the locks of other
 * runs' holds of any level (a writer's or a verifier's) are looked for,
 * on the node and, for a block device, on its disk's node over the bytes
 * it covers (the hold's alias lock). mm: when not NULL, what node must be
 * (a block device numbered mm with ino 0, or the regular file of inode
 * ino on the file system numbered mm); anything else is not tested.
 * level is the tester's (NVB__HOLD_*): a writer's as above; a verifier's
 * only another run's write lock (a verifier writes nothing: a mount, a
 * reader or another verifier do not change what it checks), and no
 * O_EXCL open is tried. A regular file its name no longer leads to (a
 * loop device's backing file deleted or renamed while attached) is looked
 * for among the open descriptors of every process (/proc/PID/fd), where
 * a run holding it keeps it. NVB__CLAIM_RUN (who names the holding process,
 * or is ""), NVB__CLAIM_KERNEL, or NVB__CLAIM_NONE (free, or it cannot be
 * opened). */
enum { NVB__CLAIM_NONE = 0, NVB__CLAIM_RUN, NVB__CLAIM_KERNEL };
int nvb__claim_test(const char *node, const char *mm, uint64_t ino, int level, char *who, size_t wlen);

/* ---- the storage stack around a target (stack.c) ---- */
/* Why writing to the block device d would corrupt something in use,
 * following the stack both ways and through any number of layers: d's
 * own mounts, holders and swap (nvb__dev_busy), the loop devices stacked
 * on it and whatever uses those, and, when d is a loop device, what it is
 * backed by and whatever else uses that. "" when nothing. level
 * NVB__HOLD_WRITE; NVB__HOLD_VERIFY asks instead what writes the blocks a
 * verifier of d would check: another run writing any layer under d, or a
 * loop device stacked on d (at any depth), or what shares a layer under d. */
void nvb__stack_busy_dev(const struct nvb__devctx *c, struct nvb__devlist *l, struct nvb__dev *d, int level,
                         char *out, size_t len);
/* The same for a regular file (its st_dev as "maj:min" and inode; path is
 * its name, resolved, for recorded trees and the message): an active swap
 * file, or the backing file of loop devices and whatever uses those. */
void nvb__stack_busy_file(const struct nvb__devctx *c, struct nvb__devlist *l, const char *path, const char *devmm,
                          uint64_t ino, int level, char *out, size_t len);

/* On the live system: could anything be stacked on or under the target
 * (a regular file's st_dev "maj:min" and inode, or a block device's
 * "maj:min" in rdevmm)? An attached loop device backed by it, a swap file
 * anywhere (files), or the target being a loop device (devices). 0 only
 * when certainly not: the full scan above can then be skipped. */
int nvb__stack_maybe_used(const char *devmm, uint64_t ino, const char *rdevmm);

/* nvb__device_check and nvb__file_check (facts.h) on any context
 * (recorded trees in the tests). */
int nvb__device_check_ctx(const struct nvb__devctx *c, const char *path, int writes, int allow_destructive,
                          const char *what, struct nvb__tdev *facts, char *msg, size_t len);
int nvb__file_check_ctx(const struct nvb__devctx *c, const char *path, char *msg, size_t len);

#endif
