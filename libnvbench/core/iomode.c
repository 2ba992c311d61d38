/*
 * The per-I/O modes of reads and writes (uncached, atomic, fua): which
 * RWF_* flags each direction's preadv2/pwritev2 (psync) or io_uring
 * request carries, and the checks before the run that refuse what the
 * engine, the target or the kernel cannot do, naming why.
 *   uncached=1  RWF_DONTCACHE: buffered I/O whose pages are dropped once
 *               done (Linux 6.14+, file systems and block devices that
 *               support it); needs direct=0.
 *   atomic=1    RWF_ATOMIC on writes: each write lands whole or not at all
 *               (Linux 6.11+); needs direct=1 and every write size a power
 *               of two within the target's atomic write unit limits
 *               (/sys/block/DEV/queue/atomic_write_unit_{min,max}_bytes).
 *   fua=1       RWF_DSYNC on writes: each write is durable when it
 *               completes (FUA where the device has it, else a flush).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/run.h"
#include "core/iomode.h"

int nvb__zeroes_check(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen)
{
    if (!w->write_zeroes)
        return 0;
    if (!p->trims) {
        snprintf(err, errlen, "write_zeroes=1: makes the workload's trims write zeroes, and rw=%s issues none "
                 "(use rw=trim, randtrim, or a share with rwmixtrim)", nvb__rw_name(w->rw));
        return -EINVAL;
    }
    const char *eng = p->eng->name;
    if (strcmp(eng, "psync") && strcmp(eng, "nvme") && strcmp(eng, "io_uring")) {
        snprintf(err, errlen, "write_zeroes=1: engine %s cannot write zeroes; engine psync does (BLKZEROOUT on "
                 "block devices, fallocate FALLOC_FL_ZERO_RANGE on files), engine io_uring (IORING_OP_FALLOCATE "
                 "with FALLOC_FL_ZERO_RANGE), and engine nvme (the NVMe Write Zeroes command)", eng);
        return -ENOTSUP;
    }
    return 0;
}

unsigned nvb__iomode_flags(const struct nvb_workload *w, int dir)
{
    unsigned f = 0;
    if (w->uncached)
        f |= NVB__RWF_DONTCACHE;
    if (dir == NVB_WRITE && w->atomic)
        f |= NVB__RWF_ATOMIC;
    if (dir == NVB_WRITE && w->fua)
        f |= NVB__RWF_DSYNC;
    return f;
}

void nvb__iomode_name(unsigned f, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s", f & NVB__RWF_DONTCACHE ? "RWF_DONTCACHE " : "",
             f & NVB__RWF_ATOMIC ? "RWF_ATOMIC " : "", f & NVB__RWF_DSYNC ? "RWF_DSYNC " : "", f ? "" : "none");
    size_t n = strlen(buf);
    if (n && buf[n - 1] == ' ')
        buf[n - 1] = 0;
}

static int read_u64_file(const char *path, uint64_t *v)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    unsigned long long x;
    int ok = fscanf(f, "%llu", &x) == 1;
    fclose(f);
    if (!ok)
        return -EINVAL;
    *v = x;
    return 0;
}

/* A block device's atomic write unit limits from sysfs: 0, or -ENOENT
 * (a kernel before 6.11 has no such files). */
static int atomic_limits(const char *dev, uint64_t *lo, uint64_t *hi)
{
    char path[200];
    int rc = -ENOENT;
    /* a whole device's queue, else (a partition) its parent's */
    static const char *const fmt[][2] = {
        {"/sys/class/block/%s/queue/atomic_write_unit_min_bytes", "/sys/class/block/%s/queue/atomic_write_unit_max_bytes"},
        {"/sys/class/block/%s/../queue/atomic_write_unit_min_bytes", "/sys/class/block/%s/../queue/atomic_write_unit_max_bytes"},
    };
    for (int k = 0; k < 2 && rc < 0; k++) {
        snprintf(path, sizeof path, fmt[k][0], dev);
        rc = read_u64_file(path, lo);
        if (rc == 0) {
            snprintf(path, sizeof path, fmt[k][1], dev);
            rc = read_u64_file(path, hi);
        }
    }
    return rc;
}

int nvb__iomode_check(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen)
{
    if (!w->uncached && !w->atomic && !w->fua)
        return 0;
    const char *eng = p->eng->name;
    int ok_engine = !strcmp(eng, "psync") || !strcmp(eng, "io_uring");
    const char *which = w->uncached ? "uncached" : w->atomic ? "atomic" : "fua";
    if (!ok_engine) {
        snprintf(err, errlen, "%s=1: engine %s does not pass RWF_* flags per I/O; use engine psync or io_uring", which, eng);
        return -ENOTSUP;
    }
    if (w->uncached && w->direct) {
        snprintf(err, errlen, "uncached=1: RWF_DONTCACHE is buffered I/O whose pages are dropped when done; "
                 "it needs direct=0 (direct=1 bypasses the page cache already)");
        return -EINVAL;
    }
    if ((w->atomic || w->fua) && !p->writes) {
        snprintf(err, errlen, "%s=1: applies to writes, and rw=%s issues none", w->atomic ? "atomic" : "fua",
                 nvb__rw_name(w->rw));
        return -EINVAL;
    }
    if (!w->atomic)
        return 0;
    if (!w->direct) {
        snprintf(err, errlen, "atomic=1: RWF_ATOMIC needs direct=1 (the kernel refuses it on buffered writes)");
        return -EINVAL;
    }
    struct nvb__bsdir ws;
    nvb__bssplit_dir(&w->bssplit, NVB_WRITE, w->bs, &ws);
    for (unsigned i = 0; i < p->nt; i++) {
        const struct ptarget *t = &p->t[i];
        uint64_t lo = 0, hi = 0, ticks;
        char dev[64] = "", why[160];
        /* a file: the block device under its file system (whose limits bound the file system's) */
        if (t->ti.dev[0])
            snprintf(dev, sizeof dev, "%s", t->ti.dev);
        else if (nvb__disk_io_ticks(t->path, dev, sizeof dev, &ticks, why, sizeof why) < 0)
            dev[0] = 0;
        if (!dev[0] || atomic_limits(dev, &lo, &hi) < 0) {
            snprintf(err, errlen, "atomic=1: no atomic write limits for '%s' (%s): the kernel (6.11+) states them "
                     "in /sys/block/DEV/queue/atomic_write_unit_{min,max}_bytes", t->path,
                     dev[0] ? dev : "no block device under it");
            return -ENOTSUP;
        }
        for (unsigned k = 0; k < ws.n; k++) {
            uint64_t bs = ws.size[k];
            if (hi == 0 || bs < lo || bs > hi || (bs & (bs - 1))) {
                snprintf(err, errlen, "atomic=1: bs %" PRIu64 " does not fit '%s' (%s): atomic_write_unit_min_bytes "
                         "%" PRIu64 ", atomic_write_unit_max_bytes %" PRIu64 "%s", bs, t->path, dev, lo, hi,
                         hi == 0 ? " (the device does no atomic writes)" : "; a write must be a power of two between them");
                return -EINVAL;
            }
        }
    }
    return 0;
}
