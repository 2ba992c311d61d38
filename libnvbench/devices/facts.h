/*
 * Device facts and checks the runner needs for its targets, and nothing
 * more: core/ includes this, never devices/devices.h. Implemented by
 * devices/guard.c, stack.c and hold.c on Linux and by devices/win/devices.c
 * on Windows.
 */
#ifndef NVB_DEVICES_FACTS_H
#define NVB_DEVICES_FACTS_H

#include <stddef.h>
#include <stdint.h>

/* ---- device facts a result carries for a target ---- */
struct nvb__tdev {
    int      valid;
    char     name[64], kind[16];
    char     model[64], serial[40];
    uint32_t lbs, pbs;
    uint64_t iu;                /* 0 unknown */
    char     iu_source[12];
    double   link_gbs;          /* sum of the current PCIe link ceilings, 0 unknown */
};

/* For a target of the run (live system): the guard (when writes) and its
 * device facts. 0, or the guard's -EBUSY / -EPERM with msg; facts->valid
 * is 0 when path is not a device nvbench knows. */
int nvb__device_check(const char *path, int writes, int allow_destructive, const char *what,
                      struct nvb__tdev *facts, char *msg, size_t len);

/* For a regular-file target of a run that writes: 0, or -EBUSY with msg
 * when the file is in use (nvb__stack_busy_file). */
int nvb__file_check(const char *path, char *msg, size_t len);

/* ---- the run's hold on its targets (hold.c) ----
 * The guard decides on what was opened, not on a name: each target is
 * opened once, checked to be the very file or device that planning judged
 * (st_dev, st_ino, st_rdev), locked against other runs, checked again for
 * use through the storage stack, and kept open until the run ends. Jobs
 * open their own descriptors through the held one (nvb__hold_reopen),
 * never through the name again. */
#define NVB__HOLD_READ   0      /* plain reads: nothing is locked, never refused for a lock */
#define NVB__HOLD_VERIFY 1      /* reads that check data: a shared lock (no writer at the same time) */
#define NVB__HOLD_WRITE  2      /* writes: O_EXCL on a block device, an exclusive lock on the file */
struct nvb__hold {
    /* in */
    const char *path;           /* the target as the user named it (messages) */
    const char *file;           /* what is opened: path, or a passthrough target's generic node */
    const char *claim;          /* a block device to hold O_EXCL for a passthrough writer, or NULL */
    int      kind;              /* NVB__T_FILE, NVB__T_BLOCK, NVB__T_CHAR (platform.h) */
    uint64_t id_dev, id_ino, id_rdev; /* file's identity when it was judged */
    int      level;             /* NVB__HOLD_* */
    /* out */
    int fd;                     /* the held descriptor, -1 none */
    int claim_fd;               /* Linux: O_EXCL on claim; Windows: the named record of which
                                 * process holds the lock (devices/win/hold.c); -1 none */
    int alias_fd;               /* Linux: the disk's kernel node, locked over the range this
                                 * device covers (devices/hold.c, alias_lock); -1 none */
};
/* Take the hold on n targets, in order. On failure nothing stays held.
 * 0, -ESTALE (a target is no longer what was judged), -EBUSY (in use,
 * claimed, or locked by another run: msg names the chain or the process),
 * or the open's -errno. */
int  nvb__hold_take(struct nvb__hold *h, unsigned n, char *msg, size_t len);
/* The same target named twice in one run: `to` shares from's hold (a
 * duplicate descriptor; no second lock, which would conflict with the
 * first). 0 or -errno. */
int  nvb__hold_share(const struct nvb__hold *from, struct nvb__hold *to);
/* A job's own descriptor for the held target (flags: NVB__O_WRITE,
 * NVB__O_DIRECT): opened through the held descriptor and checked to be the
 * same file or device. fd, or -ESTALE, or -errno. */
int  nvb__hold_reopen(const struct nvb__hold *h, int flags);
void nvb__hold_release(struct nvb__hold *h, unsigned n);
/* When another run holds the device or file node locked in a way that
 * conflicts with `level`: -EBUSY and a message naming its process (path
 * is the target's name for the message); else 0. */
int  nvb__lock_holder(const char *node, const char *path, int level, char *msg, size_t len);

/* ---- what a target lies on (stack.c) ----
 * The layers a target's bytes pass through, from the target down: a
 * partition to its disk, a loop device to its backing device or file, at
 * any depth. Two targets whose layers meet over overlapping bytes share
 * data (job groups compare them, core/groups.c). */
#define NVB__MAX_LAYERS 16
struct nvb__layer {
    int      file;              /* 1: a regular file (dev, ino); 0: a block device (rdev) */
    uint64_t dev, ino, rdev;
    uint64_t off, len;          /* the target's bytes in this layer; len 0: to its end */
    char     name[160];         /* "/dev/loop3", or the backing file's name as the kernel keeps it */
};
struct nvb__layers {
    unsigned n;                 /* l[0] is the target itself, over all of it */
    struct nvb__layer l[NVB__MAX_LAYERS];
};
/* Fills out for a target that is a regular file (file: dev, ino) or a
 * block device (rdev); name is the target's, for l[0]. Never fails: what
 * cannot be read (no sysfs, another OS) ends the list there. */
void nvb__stack_layers(int file, uint64_t dev, uint64_t ino, uint64_t rdev, const char *name,
                       struct nvb__layers *out);

/* A write of bs bytes to a device with a known indirection unit that bs is
 * below, or not a multiple of: 1 and the warning in out; else 0. */
int nvb__iu_warning(const struct nvb__tdev *facts, uint64_t bs, const char *path, char *out, size_t len);

/* ---- the NVMe health log (devices/nvme_smart.c, Linux; core/devlog.c keeps it) ---- */
#define NVB__SMART_LOG_LEN 512
/* The health log (controller-wide, NSID FFFFFFFFh) through the admin
 * passthrough on fd into buf (512 bytes), and the composite temperature's
 * over threshold (*thr_k, 0 when the controller does not say). 0, -errno
 * (-EACCES/-EPERM without CAP_SYS_ADMIN, -ENOTTY not NVMe), -EIO (the
 * controller refused). */
int nvb__nvme_smart_log(int fd, uint8_t *buf, uint32_t *thr_k);
/* The same through a node opened here (read-only): 0, or -errno with why
 * (-ENOTTY: not an NVMe namespace). */
int nvb__nvme_smart_read(const char *node, uint8_t *buf, uint32_t *thr_k, char *why, size_t whylen);
/* The controller's power state now (Get Features, Power Management 02h).
 * 0, or -errno with why. Its maximum power: nvb__psd_max_w() over the
 * Identify Controller structure the caller read (once: it is static). */
int nvb__nvme_power_read(const char *node, unsigned *ps, char *why, size_t whylen);
/* Power state ps's maximum power in watts from a 4096-byte Identify
 * Controller structure (MP in 0.01 W, or 0.0001 W with MXPS), 0 when ps is
 * past NPSS or the descriptor says none. Pure. */
double nvb__psd_max_w(const uint8_t *idctl, unsigned ps);
/* Media writes (core/devlog_media.c parses them): Identify Controller and
 * Identify Namespace of node's namespace, 4096 bytes each (*ctrl_ok 1 when
 * the first was read, even if the second failed); a log page lid
 * (lsi: its Log Specific Identifier, the endurance group for 09h) of len
 * bytes. 0, or -errno / -EIO (the controller refused) with why. */
int nvb__nvme_media_ids(const char *node, uint8_t *id_ctrl, uint8_t *id_ns, int *ctrl_ok, char *why,
                        size_t whylen);
int nvb__nvme_log_read(const char *node, unsigned lid, unsigned lsi, uint8_t *buf, size_t len, char *why,
                       size_t whylen);

#endif
