/* Targets, scratch files and pre-filling (Linux). */
#include "platform/platform.h"
#include "platform/common.h"
#include "platform/unix/unix.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <linux/fs.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* Direct-I/O alignment via statx(STATX_DIOALIGN) needs kernel 6.1+, and
 * the two fields only exist in recent <linux/stat.h>. With older headers,
 * ask for the bit anyway and read the fields at their fixed ABI offsets
 * (struct statx is 256 bytes everywhere; the offsets are checked below
 * wherever the header does declare them). */
#define DIO_MEM_ALIGN_OFF 0x98
#define DIO_OFFSET_ALIGN_OFF 0x9c
#ifdef STATX_DIOALIGN
#define HAVE_STATX_DIO_FIELDS 1
_Static_assert(offsetof(struct statx, stx_dio_mem_align) == DIO_MEM_ALIGN_OFF, "statx ABI");
_Static_assert(offsetof(struct statx, stx_dio_offset_align) == DIO_OFFSET_ALIGN_OFF, "statx ABI");
#else
#define STATX_DIOALIGN 0x00002000U
#endif
_Static_assert(sizeof(struct statx) >= DIO_OFFSET_ALIGN_OFF + 4, "statx too small");

/* Used where the kernel gives no better answer: the historical O_DIRECT
 * requirement and the logical block size of nearly every device. */
#define DEFAULT_LBS 512u

/* 0 in either output means the kernel did not say (old kernel, or a file
 * system without direct I/O). */
static void statx_dio(const char *path, uint32_t *offset_align, uint32_t *mem_align)
{
    struct statx stx;
    memset(&stx, 0, sizeof(stx));
    *offset_align = *mem_align = 0;
    if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &stx) != 0)
        return;
    if (!(stx.stx_mask & STATX_DIOALIGN))
        return;
#ifdef HAVE_STATX_DIO_FIELDS
    *offset_align = stx.stx_dio_offset_align;
    *mem_align = stx.stx_dio_mem_align;
#else
    memcpy(offset_align, (const char *)&stx + DIO_OFFSET_ALIGN_OFF, sizeof(*offset_align));
    memcpy(mem_align, (const char *)&stx + DIO_MEM_ALIGN_OFF, sizeof(*mem_align));
#endif
}

uint64_t nvb__unix_read_u64(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    unsigned long long v = 0;
    if (fscanf(f, "%llu", &v) != 1)
        v = 0;
    fclose(f);
    return v;
}

/* A queue attribute of the block device dev, from sysfs. A partition has
 * no queue/ of its own: it is in the parent's directory. 0 when unknown. */
static uint64_t queue_attr(dev_t dev, const char *attr)
{
    char p[128];
    snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/queue/%s", major(dev), minor(dev), attr);
    uint64_t v = nvb__unix_read_u64(p);
    if (v == 0) {
        snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../queue/%s", major(dev), minor(dev), attr);
        v = nvb__unix_read_u64(p);
    }
    return v;
}

/* Physical block size of the block device holding a file system. 0 when
 * the file system has no single backing device (tmpfs, overlay, btrfs,
 * network). */
static uint32_t backing_pbs(dev_t dev)
{
    uint64_t v = queue_attr(dev, "physical_block_size");
    return v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* The kernel's name for a block device ("nvme0n1p2", "loop3") is the last
 * component of the /sys/dev/block/MAJ:MIN symlink, whatever /dev node
 * (udev alias, bind mount, custom mknod) the user named. */
static void blockdev_name(dev_t rdev, char *out, size_t len)
{
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n <= 0)
        return;
    target[n] = '\0';
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    size_t bl = strlen(base);
    if (bl >= len)
        bl = len - 1;
    memcpy(out, base, bl);
    out[bl] = '\0';
}

/* The same facts from sysfs, which needs no permission on the device node:
 * like stat(), target_info should work for a user who may not open the
 * device (that user learns why when opening it for I/O). */
static int blockdev_sysfs(dev_t rdev, struct nvb__target_info *ti)
{
    char p[96];
    snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/size", major(rdev), minor(rdev));
    uint64_t sectors = nvb__unix_read_u64(p); /* always in 512-byte units */
    uint64_t lbs = queue_attr(rdev, "logical_block_size");
    if (lbs == 0 || lbs > UINT32_MAX)
        return -ENOENT;
    ti->size = sectors * 512u;
    ti->lbs = (uint32_t)lbs;
    ti->pbs = backing_pbs(rdev);
    if (ti->pbs == 0)
        ti->pbs = ti->lbs;
    return 0;
}

static int blockdev_info(const char *path, const struct stat *st, struct nvb__target_info *ti)
{
    /* O_NONBLOCK: removable media drivers otherwise wait for media. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int err = -errno;
        if (blockdev_sysfs(st->st_rdev, ti) != 0)
            return err;
        ti->mem_align = ti->lbs;
        blockdev_name(st->st_rdev, ti->dev, sizeof(ti->dev));
        return 0;
    }
    uint64_t bytes = 0;
    int lbs = 0;
    unsigned int pbs = 0;
    int rc = 0;
    struct stat fst;
    if (fstat(fd, &fst) != 0 || !S_ISBLK(fst.st_mode) || fst.st_rdev != st->st_rdev) {
        close(fd); /* the name changed between stat() and open() */
        return -ESTALE;
    }
    if (ioctl(fd, BLKGETSIZE64, &bytes) != 0 || ioctl(fd, BLKSSZGET, &lbs) != 0)
        rc = -errno;
    if (rc == 0 && ioctl(fd, BLKPBSZGET, &pbs) != 0)
        pbs = 0;
    close(fd);
    if (rc < 0)
        return rc;
    ti->size = bytes;
    ti->lbs = lbs > 0 ? (uint32_t)lbs : DEFAULT_LBS;
    ti->pbs = pbs ? pbs : ti->lbs;
    /* Kernels 6.11+ report a block device's DMA alignment (often 4 bytes
     * for NVMe) through statx; the logical block size is always safe. */
    uint32_t off_align, mem_align;
    statx_dio(path, &off_align, &mem_align);
    ti->mem_align = mem_align ? mem_align : ti->lbs;
    blockdev_name(st->st_rdev, ti->dev, sizeof(ti->dev));
    return 0;
}

int nvb__target_info(const char *path, struct nvb__target_info *ti)
{
    memset(ti, 0, sizeof(*ti));
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    ti->lbs = DEFAULT_LBS;
    ti->mem_align = DEFAULT_LBS;
    ti->id_dev = (uint64_t)st.st_dev;
    ti->id_ino = (uint64_t)st.st_ino;
    ti->id_rdev = (uint64_t)st.st_rdev;

    if (S_ISREG(st.st_mode)) {
        ti->kind = NVB__T_FILE;
        ti->size = (uint64_t)st.st_size;
        uint32_t off_align, mem_align;
        statx_dio(path, &off_align, &mem_align);
        if (off_align) {
            ti->lbs = off_align;
            ti->mem_align = mem_align ? mem_align : off_align;
        }
        ti->pbs = backing_pbs(st.st_dev);
        return 0;
    }
    if (S_ISBLK(st.st_mode)) {
        ti->kind = NVB__T_BLOCK;
        return blockdev_info(path, &st, ti);
    }
    if (S_ISDIR(st.st_mode)) {
        /* Alignment for files created here is only known once one exists:
         * callers ask again about the scratch file. */
        ti->kind = NVB__T_DIR;
        ti->pbs = backing_pbs(st.st_dev);
        return 0;
    }
    ti->kind = S_ISCHR(st.st_mode) ? NVB__T_CHAR : NVB__T_OTHER;
    return 0;
}

/* faccessat(AT_EACCESS) answers for the effective ids, as open() would, and
 * also reports read-only file systems (EROFS) and immutable files. It is
 * asked rather than open() itself because opening a FIFO or a tape device
 * has side effects. A directory target means creating a scratch file in it,
 * which needs write and search permission whatever the workload does. */
int nvb__target_access(const char *path, int want_write)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    int mode;
    if (S_ISDIR(st.st_mode))
        mode = W_OK | X_OK;
    else
        mode = R_OK | (want_write ? W_OK : 0);
    if (faccessat(AT_FDCWD, path, mode, AT_EACCESS) != 0)
        return -errno;
    return 0;
}

/* O_NOATIME: the run's reads leave a file's access time as it was (as a
 * backup tool's do), and the kernel makes no access-time check per read
 * (about 4 % of page-cached 4 KiB reads here, docs/benchmarks.md). Only
 * the file's owner (or CAP_FOWNER) may ask: refused with EPERM, the open
 * goes on without it. */
int nvb__target_open(const char *path, int flags)
{
    int of = ((flags & NVB__O_WRITE) ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOATIME;
    if (flags & NVB__O_DIRECT)
        of |= O_DIRECT;
    int fd;
    for (;;) {
        fd = open(path, of);
        if (fd < 0 && errno == EINTR)
            continue;
        if (fd < 0 && errno == EPERM && (of & O_NOATIME)) {
            of &= ~O_NOATIME;
            continue;
        }
        break;
    }
    return fd < 0 ? -errno : fd;
}

/* No retry on EINTR: Linux has released the descriptor by then, and a
 * retry could close one another thread just opened. */
void nvb__target_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

static uint64_t random_u64(void)
{
    uint64_t r;
    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
        return r;
    /* Uniqueness, not secrecy, is what matters; O_EXCL catches collisions. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec ^
        ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&r;
    return r;
}

/* A new file, created exclusively (O_EXCL: never an existing file, never
 * through a symlink) and sized. Its identity, from the descriptor that
 * created it, in *ti (kind, size, id_dev, id_ino) when ti is not NULL. */
static int create_new(const char *path, uint64_t size, mode_t mode, struct nvb__target_info *ti)
{
    if (size > (uint64_t)INT64_MAX)
        return -EFBIG;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return -errno;
    int rc = 0;
    if (size > 0) {
        /* fallocate(2) rather than posix_fallocate(3): glibc emulates the
         * latter by writing every block when the file system cannot
         * allocate, which would be a slow, silent pre-fill. Where it is
         * unsupported a sparse file will do; nvb__fill_file writes it. */
        if (fallocate(fd, 0, 0, (off_t)size) != 0) {
            rc = -errno;
            if (rc == -EOPNOTSUPP || rc == -ENOSYS)
                rc = ftruncate(fd, (off_t)size) == 0 ? 0 : -errno;
        }
    }
    struct stat st;
    if (rc == 0 && ti && fstat(fd, &st) != 0)
        rc = -errno;
    if (rc == 0 && ti) {
        memset(ti, 0, sizeof *ti);
        ti->kind = NVB__T_FILE;
        ti->size = (uint64_t)st.st_size;
        ti->id_dev = (uint64_t)st.st_dev;
        ti->id_ino = (uint64_t)st.st_ino;
    }
    if (close(fd) != 0 && errno != EINTR && rc == 0)
        rc = -errno;
    if (rc < 0)
        unlink(path);
    return rc;
}

int nvb__file_create(const char *path, uint64_t size, struct nvb__target_info *ti)
{
    return create_new(path, size, 0644, ti);
}

int nvb__symlink_target(const char *path, char *buf, size_t len)
{
    if (!len)
        return -EINVAL;
    ssize_t n = readlink(path, buf, len - 1);
    if (n < 0)
        return -errno;
    buf[n] = 0;
    return (int)n;
}

/* The name is recognisable (".nvbench-scratch-", pid) so leftovers from a
 * killed run can be identified and removed by hand or by a later run. */
int nvb__scratch_create(const char *dir, uint64_t size, char *path, size_t path_len)
{
    if (size > (uint64_t)INT64_MAX)
        return -EFBIG;
    int rc = -EEXIST;
    for (int attempt = 0; attempt < 16 && rc == -EEXIST; attempt++) {
        int n = snprintf(path, path_len, "%s/.nvbench-scratch-%ld-%016llx.tmp", dir,
                         (long)getpid(), (unsigned long long)random_u64());
        if (n < 0 || (size_t)n >= path_len) {
            if (path_len)
                path[0] = '\0';
            return -ENAMETOOLONG;
        }
        rc = create_new(path, size, 0600, NULL);
    }
    return rc;
}

int nvb__scratch_remove(const char *path)
{
    return unlink(path) == 0 ? 0 : -errno;
}

int nvb__file_remove_created(const char *path, const struct nvb__target_info *ti)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_dev != ti->id_dev || (uint64_t)st.st_ino != ti->id_ino)
        return -ESTALE;
    return unlink(path) == 0 ? 0 : -errno;
}

/* ".nvbench-scratch-<pid>-<16 hex digits>.tmp", exactly; the pid or -1. */
static long scratch_pid(const char *name)
{
    static const char pre[] = ".nvbench-scratch-", suf[] = ".tmp";
    if (strncmp(name, pre, sizeof pre - 1))
        return -1;
    const char *p = name + sizeof pre - 1;
    long pid = 0;
    int nd = 0;
    for (; isdigit((unsigned char)*p); p++, nd++) {
        if (nd >= 10 || (nd == 0 && *p == '0'))
            return -1;
        pid = pid * 10 + (*p - '0');
    }
    if (nd == 0 || *p++ != '-' || pid <= 0 || pid > INT_MAX)
        return -1;
    for (int i = 0; i < 16; i++, p++)
        if (!isdigit((unsigned char)*p) && !(*p >= 'a' && *p <= 'f'))
            return -1;
    return strcmp(p, suf) ? -1 : pid;
}

/* A scratch file whose process is gone was left by a run killed outright
 * (SIGKILL, power loss). Only names of the exact pattern, regular files
 * owned by this user, whose pid no longer exists here, are removed. */
int nvb__scratch_clean_stale(const char *dir, unsigned *removed)
{
    *removed = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = scratch_pid(e->d_name);
        if (pid < 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or not ours to judge (EPERM: it exists) */
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        if (unlinkat(dfd, e->d_name, 0) == 0)
            (*removed)++;
    }
    closedir(d);
    return 0;
}

/* pwrite all of [src, src+len) at off. An O_DIRECT descriptor rejects a
 * misaligned piece (a file size that is not a multiple of the block size
 * leaves a short tail) with EINVAL; that piece is then written through the
 * page cache, and the descriptor's flags restored. */
static int pwrite_full(int fd, const char *src, size_t len, uint64_t off)
{
    int dropped_direct = 0, saved_fl = 0, rc = 0;
    while (len > 0) {
        ssize_t n = pwrite(fd, src, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EINVAL && !dropped_direct) {
                saved_fl = fcntl(fd, F_GETFL);
                if (saved_fl >= 0 && (saved_fl & O_DIRECT) &&
                    fcntl(fd, F_SETFL, saved_fl & ~O_DIRECT) == 0) {
                    dropped_direct = 1;
                    continue;
                }
                errno = EINVAL;
            }
            rc = -errno;
            break;
        }
        if (n == 0) {
            rc = -EIO;
            break;
        }
        src += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    if (dropped_direct)
        fcntl(fd, F_SETFL, saved_fl);
    return rc;
}

/* The Linux half of nvb__fill_file and nvb__fill_file_cb (platform/fill.c). */
struct nvb__fill_sink {
    int fd;
};

int nvb__fill_sink_open(int fd, struct nvb__fill_sink **s)
{
    if (!(*s = malloc(sizeof **s)))
        return -ENOMEM;
    (*s)->fd = fd;
    return 0;
}

int nvb__fill_sink_write(struct nvb__fill_sink *s, const char *src, size_t len, uint64_t off)
{
    return pwrite_full(s->fd, src, len, off);
}

/* Character devices and pipes cannot be synced (EINVAL); nothing is lost
 * by not doing so. */
int nvb__fill_sink_close(struct nvb__fill_sink *s, int rc)
{
    if (rc == 0 && fdatasync(s->fd) != 0 && errno != EINVAL && errno != EROFS)
        rc = -errno;
    free(s);
    return rc;
}

static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

int nvb__file_read_regular(const char *path, size_t max, char **buf, size_t *len, const char **what)
{
    struct stat st;
    *buf = NULL;
    *len = 0;
    *what = NULL;
    /* stat first: a FIFO or a tape is never opened, not even briefly */
    if (stat(path, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode)) {
        *what = file_kind(st.st_mode);
        return -EINVAL;
    }
    /* and checked again on what was opened: it may have been swapped */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    int rc = 0;
    char *b = NULL;
    size_t n = 0, cap;
    if (fstat(fd, &st) < 0) {
        rc = -errno;
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        *what = file_kind(st.st_mode);
        rc = -EINVAL;
        goto out;
    }
    if ((uint64_t)st.st_size > max) {
        rc = -EFBIG;
        goto out;
    }
    cap = (size_t)st.st_size + 1;
    b = malloc(cap + 1);
    if (!b) {
        rc = -ENOMEM;
        goto out;
    }
    for (;;) {
        if (n == cap) { /* it grew since fstat: read on, up to max + 1 */
            if (cap > max) {
                rc = -EFBIG;
                goto out;
            }
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *nb = realloc(b, ncap + 1);
            if (!nb) {
                rc = -ENOMEM;
                goto out;
            }
            b = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            goto out;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (n > max) {
        rc = -EFBIG;
        goto out;
    }
    b[n] = 0;
    *buf = b;
    *len = n;
    b = NULL;
out:
    free(b);
    close(fd);
    return rc;
}
