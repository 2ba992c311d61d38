/*
 * A target's page cache and allocation (Linux): its cached pages dropped,
 * how much of a region is cached, and how much of a file's region is
 * allocated rather than holes.
 */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

/* cachestat(2), Linux 6.5+: one number for the new system calls on every
 * architecture. Declared here: older headers lack it. */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
struct nvb_cachestat_range {
    uint64_t off, len;
};
struct nvb_cachestat {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

/* mincore() looks at every page (15-110 ns each, measured): over a region
 * larger than this, evenly spaced windows of this total are examined. */
#define MINCORE_MAX_BYTES (16ull << 30)
#define MINCORE_WINDOWS 64u
/* A file in more pieces than this is judged by its allocated blocks. */
#define MAX_EXTENTS (1u << 20)

int nvb__cache_drop(int fd, uint64_t off, uint64_t len)
{
    /* POSIX_FADV_DONTNEED drops clean pages only (dirty ones it merely
     * starts writing back, and they stay): written back first, every
     * page of the region can go. Pages another process maps or locks
     * stay whatever is done. sync_file_range writes back the region's
     * pages and nothing else: fdatasync would also send the device a
     * cache flush (a write, on a block device, that a read run has no
     * business making) and commit the file system's journal. */
    if (sync_file_range(fd, (off64_t)off, (off64_t)len,
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0) {
        if (errno != EINVAL && errno != ESPIPE && errno != ENOSYS)
            return -errno;
        if (fdatasync(fd) != 0 && errno != EINVAL && errno != EROFS)
            return -errno;
    }
    int rc = posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
    return rc ? -rc : 0;
}

static uint64_t page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (uint64_t)ps : 4096;
}

/* mincore() answers for a file only to a process that owns it or may write
 * it (or has CAP_SYS_ADMIN); to others it reports every page resident. */
static int mincore_allowed(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return 0;
    if (geteuid() == 0 || st.st_uid == geteuid())
        return 1;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY)
        return 1;
    char p[48];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    return faccessat(AT_FDCWD, p, W_OK, AT_EACCESS) == 0;
}

/* Resident pages of [off, off+len) by mincore() on a mapping of it, in
 * windows of at most 1 GiB so that a huge target is never mapped whole. */
static int mincore_span(int fd, uint64_t off, uint64_t len, unsigned char *vec, uint64_t *resident)
{
    const uint64_t ps = page_size(), win = 1ull << 30;
    for (uint64_t pos = off / ps * ps, end = off + len; pos < end;) {
        uint64_t n = end - pos < win ? end - pos : win;
        void *m = mmap(NULL, (size_t)n, PROT_READ, MAP_SHARED, fd, (off_t)pos);
        if (m == MAP_FAILED)
            return -errno;
        int rc = mincore(m, (size_t)n, vec) == 0 ? 0 : -errno;
        munmap(m, (size_t)n);
        if (rc < 0)
            return rc;
        for (uint64_t i = 0; i < (n + ps - 1) / ps; i++) {
            if (!(vec[i] & 1))
                continue;
            /* only the part of the page inside the region */
            uint64_t a = pos + i * ps, b = a + ps;
            *resident += (b < end ? b : end) - (a > off ? a : off);
        }
        pos += n;
    }
    return 0;
}

int nvb__cache_resident_mincore(int fd, uint64_t off, uint64_t len, uint64_t *resident, uint64_t *examined)
{
    *resident = *examined = 0;
    if (!mincore_allowed(fd))
        return -EPERM;
    unsigned char *vec = malloc((size_t)((1ull << 30) / page_size()));
    if (!vec)
        return -ENOMEM;
    int rc = 0;
    if (len <= MINCORE_MAX_BYTES) {
        rc = mincore_span(fd, off, len, vec, resident);
        *examined = len;
    } else {
        /* windows spread evenly over the region, the last one at its end */
        const uint64_t w = MINCORE_MAX_BYTES / MINCORE_WINDOWS;
        for (unsigned i = 0; i < MINCORE_WINDOWS && rc == 0; i++) {
            uint64_t at = off + (len - w) / (MINCORE_WINDOWS - 1) * i;
            rc = mincore_span(fd, at, w, vec, resident);
            *examined += w;
        }
    }
    free(vec);
    return rc;
}

int nvb__cache_resident(int fd, uint64_t off, uint64_t len, uint64_t *resident, uint64_t *examined)
{
    *resident = *examined = 0;
    struct nvb_cachestat_range cr = {off, len};
    struct nvb_cachestat cs;
    if (len && syscall(__NR_cachestat, fd, &cr, &cs, 0) == 0) {
        /* whole pages: the first and last may reach outside the region */
        uint64_t b = cs.nr_cache * page_size();
        *resident = b < len ? b : len;
        *examined = len;
        return 0;
    }
    if (errno == EPERM)
        return -EPERM; /* mincore() would not tell the truth either */
    return nvb__cache_resident_mincore(fd, off, len, resident, examined);
}

/* Allocated blocks of the whole file, scaled to a region of len bytes: for
 * files SEEK_DATA cannot walk. */
static int allocated_by_blocks(int fd, uint64_t len, uint64_t *allocated)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return -ENOTSUP;
    if (st.st_size <= 0) {
        *allocated = 0;
        return 0;
    }
    long double a = (long double)st.st_blocks * 512 * len / (long double)st.st_size;
    *allocated = a >= len ? len : (uint64_t)a;
    return 0;
}

int nvb__file_allocated(int fd, uint64_t off, uint64_t len, uint64_t *allocated)
{
    *allocated = 0;
    const uint64_t end = off + len;
    unsigned n = 0;
    for (uint64_t pos = off; pos < end; n++) {
        if (n == MAX_EXTENTS)
            return allocated_by_blocks(fd, len, allocated);
        off_t d = lseek(fd, (off_t)pos, SEEK_DATA);
        if (d < 0) {
            if (errno == ENXIO) /* no data from pos to the end of the file */
                break;
            if (errno == EINVAL) /* no SEEK_DATA here */
                return allocated_by_blocks(fd, len, allocated);
            return -errno;
        }
        if ((uint64_t)d >= end)
            break;
        off_t h = lseek(fd, d, SEEK_HOLE);
        if (h < 0)
            return -errno;
        uint64_t he = (uint64_t)h < end ? (uint64_t)h : end;
        *allocated += he - (uint64_t)d;
        pos = he;
    }
    return 0;
}

/* The disk's write cache mode from sysfs dir (a disk's or a partition's:
 * a partition has no queue of its own, its disk's is one level up). */
static void disk_cache_mode(const char *dir, struct nvb__wcache *wc)
{
    char p[512], line[32];
    static const char *const rel[] = {"queue/write_cache", "../queue/write_cache"};
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, rel[k]);
        FILE *f = fopen(p, "re");
        if (!f)
            continue;
        if (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            snprintf(wc->disk_mode, sizeof wc->disk_mode, "%s", line);
        }
        fclose(f);
        return;
    }
}

int nvb__file_write_cache(int fd, struct nvb__wcache *wc)
{
    memset(wc, 0, sizeof *wc);
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return -ENOTSUP;
    char mm[32];
    snprintf(mm, sizeof mm, "%u:%u", major(st.st_dev), minor(st.st_dev));
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -errno;
    /* id parent maj:min root point options [optional...] - fstype source super */
    char line[4096], source[256] = "";
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *save = NULL, *fld[6] = {0};
        char *t = strtok_r(line, " \n", &save);
        for (int i = 0; i < 6 && t; i++, t = strtok_r(NULL, " \n", &save))
            fld[i] = t;
        if (!fld[5] || strcmp(fld[2], mm))
            continue;
        while (t && strcmp(t, "-"))
            t = strtok_r(NULL, " \n", &save);
        char *fstype = t ? strtok_r(NULL, " \n", &save) : NULL;
        char *src = fstype ? strtok_r(NULL, " \n", &save) : NULL;
        char *super = src ? strtok_r(NULL, " \n", &save) : NULL;
        if (!fstype)
            continue;
        found = 1;
        snprintf(wc->fstype, sizeof wc->fstype, "%s", fstype);
        snprintf(source, sizeof source, "%s", src ? src : "");
        char opts[1024];
        snprintf(opts, sizeof opts, ",%s,%s,", fld[5], super ? super : "");
        snprintf(wc->fs_mode, sizeof wc->fs_mode, "%s",
                 strstr(opts, ",sync,") ? "sync"
                 : strstr(opts, ",nobarrier,") || strstr(opts, ",barrier=0,") ? "nobarrier" : "default");
    }
    fclose(f);
    if (!found)
        return -ENOENT;
    /* the disk: the file system's own device number when it is a block
     * device's, else the mount's source when that is a device node */
    char dir[512];
    snprintf(dir, sizeof dir, "/sys/dev/block/%s", mm);
    if (major(st.st_dev) == 0 || access(dir, F_OK) != 0) {
        struct stat ss;
        if (strncmp(source, "/dev/", 5) || stat(source, &ss) != 0 || !S_ISBLK(ss.st_mode))
            return 0;
        snprintf(dir, sizeof dir, "/sys/dev/block/%u:%u", major(ss.st_rdev), minor(ss.st_rdev));
    }
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return 0;
    const char *b = strrchr(real, '/');
    snprintf(wc->disk, sizeof wc->disk, "%s", b ? b + 1 : real);
    disk_cache_mode(real, wc);
    return 0;
}
