/* A target's block device and its busy time (io_ticks), for the device
 * utilisation of a run (core/diskutil.c). */
#include "platform/platform.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int nvb__disk_io_ticks(const char *path, char *name, size_t namelen, uint64_t *ticks_ms, char *why, size_t whylen)
{
    struct stat st;
    name[0] = 0;
    if (stat(path, &st) != 0) {
        int e = errno;
        snprintf(why, whylen, "cannot stat the target (%s)", strerror(e));
        return -e;
    }
    if (S_ISCHR(st.st_mode)) {
        snprintf(why, whylen, "a character device: its I/O (NVMe passthrough) is not counted in the block "
                              "layer's io_ticks");
        return -ENOTSUP;
    }
    /* a block device node: the device itself; anything else: its file system's device */
    dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
    char p[96], link[512];
    snprintf(p, sizeof p, "/sys/dev/block/%u:%u", major(dev), minor(dev));
    ssize_t n = readlink(p, link, sizeof link - 1);
    if (n <= 0) {
        snprintf(why, whylen, "the file system is on no block device (device %u:%u: tmpfs, overlay, NFS, ...)",
                 major(dev), minor(dev));
        return -ENODEV;
    }
    link[n] = 0;
    const char *base = strrchr(link, '/');
    snprintf(name, namelen, "%s", base ? base + 1 : link);
    snprintf(p, sizeof p, "/sys/dev/block/%u:%u/stat", major(dev), minor(dev));
    FILE *f = fopen(p, "re");
    if (!f) {
        int e = errno;
        snprintf(why, whylen, "cannot read %s (%s)", p, strerror(e));
        return -e;
    }
    /* reads, merges, sectors, ms; writes, merges, sectors, ms; in flight; io_ticks */
    uint64_t v[10];
    int got = fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                        " %" SCNu64 " %" SCNu64 " %" SCNu64, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                     &v[7], &v[8], &v[9]);
    fclose(f);
    if (got != 10) {
        snprintf(why, whylen, "%s has no io_ticks field", p);
        return -EPROTO;
    }
    *ticks_ms = v[9];
    return 0;
}
