/*
 * The run's hold on its targets: the guard decides on what was opened.
 *
 * Planning judged each target by its name (stat, sysfs). Between that and
 * the first write, the name can come to mean something else: a file
 * replaced by a symlink to a mounted device, a device mounted during a
 * long scratch-file layout. So before anything is created or written:
 *
 *  1. open each target once (a block device a run writes with O_EXCL: the
 *     kernel then refuses mounts, swapon, device-mapper and md on it, and
 *     the exclusive opens of other benchmark runs, for as long as it is
 *     held);
 *  2. fstat the descriptor: it must be the very file or device planning
 *     judged (st_dev, st_ino, st_rdev), or the run is refused (-ESTALE);
 *  3. lock it (open file description locks, F_OFD_SETLK): exclusive for a
 *     run that writes, shared for one that verifies, none for plain reads;
 *     another run's conflicting lock gives -EBUSY naming its process;
 *     A lock is on an inode, and one device can have many: a node made
 *     with mknod, a container's /dev, a partition and its disk. So a
 *     block device is also locked on its disk's node in /dev (the kernel's
 *     name, from sysfs), over the bytes it covers (alias_lock);
 *  4. check again, on the descriptor's identity, that nothing uses it
 *     through the storage stack (stack.c), and that nothing under it (the
 *     backing device or file of a loop device, at every depth) is claimed
 *     by the kernel or held by another run (nvb__claim_test: the test
 *     planning gives the target itself). A run that verifies gets the
 *     same walk, both ways, and is refused only by another run writing
 *     a layer under its target or a loop device stacked on it (a write
 *     lock): it would report those writes as mismatches. A run does not
 *     watch what is stacked on its target after it took it: a later run
 *     writing that finds this run's lock on the way down and is refused;
 *  5. keep it open until the run ends. Jobs open their own descriptors
 *     through /proc/self/fd/N of the held one (never through the name), and
 *     each is checked to be the same file or device before any I/O.
 *
 * All of this happens once per target before the run, never per I/O.
 * This file is the Linux half (one target: take_one); taking
 * them in order, letting them go and the wording of the two refusals are
 * devices/hold_common.c's, shared with the Windows half (devices/win/hold.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nvbench.h"
#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"
#include "devices/hold.h"
#include "platform/platform.h"

static const char *kind_name(mode_t m)
{
    return S_ISREG(m) ? "a regular file" : S_ISBLK(m) ? "a block device" : S_ISCHR(m) ? "a character device"
         : S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link" : "something else";
}

static int want_type(int kind, mode_t m)
{
    return kind == NVB__T_FILE ? S_ISREG(m) : kind == NVB__T_BLOCK ? S_ISBLK(m) : kind == NVB__T_CHAR ? S_ISCHR(m) : 0;
}

static const char *kind_of(int kind)
{
    return kind == NVB__T_FILE ? "a regular file" : kind == NVB__T_BLOCK ? "a block device" : "a character device";
}

static int same_as_judged(const struct nvb__hold *h, const struct stat *st)
{
    if (!want_type(h->kind, st->st_mode))
        return 0;
    if (h->kind == NVB__T_FILE)
        return (uint64_t)st->st_dev == h->id_dev && (uint64_t)st->st_ino == h->id_ino;
    return (uint64_t)st->st_rdev == h->id_rdev;
}

static void describe_id(char *out, size_t len, const struct stat *st)
{
    if (S_ISBLK(st->st_mode) || S_ISCHR(st->st_mode))
        snprintf(out, len, "%s %u:%u", kind_name(st->st_mode), major(st->st_rdev), minor(st->st_rdev));
    else
        snprintf(out, len, "%s (device %u:%u, inode %" PRIu64 ")", kind_name(st->st_mode), major(st->st_dev),
                 minor(st->st_dev), (uint64_t)st->st_ino);
}

static void describe_judged(char *out, size_t len, const struct nvb__hold *h)
{
    if (h->kind == NVB__T_FILE)
        snprintf(out, len, "a regular file (device %u:%u, inode %" PRIu64 ")", major((dev_t)h->id_dev),
                 minor((dev_t)h->id_dev), h->id_ino);
    else
        snprintf(out, len, "%s %u:%u", kind_of(h->kind), major((dev_t)h->id_rdev), minor((dev_t)h->id_rdev));
}

/* Every open descriptor of every process this one may look at: fn(pid,
 * "/proc/PID/fd/N", N, its stat, arg) for each until it returns nonzero,
 * which is returned (0 when none did). Only on refusal paths: it reads
 * every process's descriptor table. */
typedef int (*proc_fd_fn)(long pid, const char *fdpath, const char *fdname, const struct stat *st, void *arg);

static int each_proc_fd(proc_fd_fn fn, void *arg)
{
    DIR *pd = opendir("/proc");
    if (!pd)
        return 0;
    int r = 0;
    struct dirent *pe;
    while (!r && (pe = readdir(pd))) {
        char *end;
        long pid = strtol(pe->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char p[64];
        snprintf(p, sizeof p, "/proc/%ld/fd", pid);
        DIR *fd = opendir(p);
        if (!fd)
            continue;
        struct dirent *fe;
        while (!r && (fe = readdir(fd))) {
            char fp[96];
            struct stat st;
            snprintf(fp, sizeof fp, "/proc/%ld/fd/%s", pid, fe->d_name);
            if (fe->d_name[0] != '.' && stat(fp, &st) == 0)
                r = fn(pid, fp, fe->d_name, &st, arg);
        }
        closedir(fd);
    }
    closedir(pd);
    return r;
}

struct holder_search {
    const struct stat *want;
    pid_t self;
    char *out;
    size_t len;
    char first[128];
};

static int holder_fd(long pid, const char *fdpath, const char *fdname, const struct stat *st, void *arg)
{
    struct holder_search *h = arg;
    (void)fdpath;
    if ((st->st_mode & S_IFMT) != (h->want->st_mode & S_IFMT))
        return 0;
    int same = S_ISREG(st->st_mode) ? st->st_dev == h->want->st_dev && st->st_ino == h->want->st_ino
                                    : st->st_rdev == h->want->st_rdev;
    if (!same)
        return 0;
    char fp[96], comm[64] = "?";
    snprintf(fp, sizeof fp, "/proc/%ld/comm", pid);
    FILE *f = fopen(fp, "re");
    if (f) {
        if (fgets(comm, sizeof comm, f))
            comm[strcspn(comm, "\n")] = 0;
        fclose(f);
    }
    char who[128];
    snprintf(who, sizeof who, "pid %ld (%s)%s", pid, comm, pid == h->self ? ", this process" : "");
    /* prefer the descriptor that holds a lock */
    snprintf(fp, sizeof fp, "/proc/%ld/fdinfo/%s", pid, fdname);
    f = fopen(fp, "re");
    int locked = 0;
    if (f) {
        char line[256];
        while (!locked && fgets(line, sizeof line, f))
            locked = !strncmp(line, "lock:", 5);
        fclose(f);
    }
    if (locked) {
        snprintf(h->out, h->len, "%s", who);
        return 1;
    }
    if (!h->first[0] && pid != h->self)
        snprintf(h->first, sizeof h->first, "%s", who);
    return 0;
}

/* Who else has this file or device open with a lock on it: the first such
 * process found in /proc ("pid 1234 (nvbench)"), or "". OFD locks carry
 * no pid (F_OFD_GETLK and /proc/locks say -1), so the descriptors of each
 * process are matched by identity and their fdinfo asked for a lock. */
static void find_holder(const struct stat *want, char *out, size_t len)
{
    struct holder_search h = {.want = want, .self = getpid(), .out = out, .len = len};
    out[0] = 0;
    if (!each_proc_fd(holder_fd, &h) && h.first[0])
        snprintf(out, len, "%s", h.first);
}

static int lock_fd(int fd, int level)
{
    if (level == NVB__HOLD_READ)
        return 0;
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = level == NVB__HOLD_WRITE ? F_WRLCK : F_RDLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
        return 0;
    return errno == EAGAIN || errno == EACCES ? -EBUSY : -errno;
}

static int refuse_locked(const struct nvb__hold *h, const struct stat *st, char *msg, size_t len)
{
    char who[160];
    find_holder(st, who, sizeof who);
    return nvb__hold_refuse_locked(h, who, msg, len);
}

int nvb__lock_holder(const char *node, const char *path, int level, char *msg, size_t len)
{
    int fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = level == NVB__HOLD_WRITE ? F_WRLCK : F_RDLCK;
    fl.l_whence = SEEK_SET;
    int locked = fstat(fd, &st) == 0 && fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    close(fd);
    if (!locked)
        return 0;
    struct nvb__hold h = {.path = path, .level = level};
    return refuse_locked(&h, &st, msg, len);
}

/* The first line of sysfs_dir/uevent that starts with key ("DEVNAME="):
 * its value, or "". */
static void uevent_value(const char *dir, const char *key, char *out, size_t len)
{
    char p[160], line[256];
    out[0] = 0;
    snprintf(p, sizeof p, "%s/uevent", dir);
    FILE *f = fopen(p, "re");
    while (f && !out[0] && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, len, "%s", line + strlen(key));
        }
    if (f)
        fclose(f);
}

/* Where a block device's hold locks it besides its own node: the disk's
 * node the kernel made, /dev/DEVNAME, over the bytes the device covers
 * there (a partition: its range of the disk; size 0: to the end). 0 with
 * devnode, start and size, or -1 when there is no such node to lock
 * (no sysfs, a bare /dev, an empty partition). */
static int alias_node(dev_t rdev, char *devnode, size_t dlen, off_t *start, off_t *size)
{
    char dir[96], name[128], mm[32];
    *start = *size = 0;
    snprintf(dir, sizeof dir, "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
    snprintf(mm, sizeof mm, "%u:%u", major(rdev), minor(rdev));
    if (nvb__exists(dir, "partition")) {
        *start = (off_t)nvb__rd_u64(dir, "start") * 512;
        *size = (off_t)nvb__rd_u64(dir, "size") * 512;
        if (!*size)
            return -1;
        snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/..");
        if (nvb__rd_str(dir, "dev", mm, sizeof mm) <= 0)
            return -1;
    }
    uevent_value(dir, "DEVNAME=", name, sizeof name);
    if (!name[0])
        return -1;
    snprintf(devnode, dlen, "/dev/%s", name);
    struct stat st;
    if (stat(devnode, &st) != 0 || !S_ISBLK(st.st_mode))
        return -1;
    char got[32];
    snprintf(got, sizeof got, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
    return strcmp(got, mm) ? -1 : 0; /* not the kernel's node for that disk here */
}

/* Step 3 for a block device (rdev; node: the descriptor already locked
 * over the whole of it, when that is on a block node): the same lock on
 * the disk's node (alias_node). Two runs that name one device by two
 * nodes, or a partition and its disk, then conflict as if they named one.
 * Without sysfs or that node (a bare /dev), the lock on the target is all
 * there is. */
static int alias_lock(struct nvb__hold *h, dev_t rdev, const struct stat *node, char *msg, size_t len)
{
    char devnode[160];
    off_t start, size;
    if (alias_node(rdev, devnode, sizeof devnode, &start, &size) < 0)
        return 0;
    struct stat st;
    if (stat(devnode, &st) != 0)
        return 0;
    if (!size && node && S_ISBLK(node->st_mode) && node->st_dev == st.st_dev && node->st_ino == st.st_ino)
        return 0; /* the very node, locked already */
    /* a write lock needs a descriptor open for writing */
    int fd = open(devnode, (h->level == NVB__HOLD_WRITE ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return 0;
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = h->level == NVB__HOLD_WRITE ? F_WRLCK : F_RDLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = start;
    fl.l_len = size;
    if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && fcntl(fd, F_OFD_SETLK, &fl) != 0 &&
        (errno == EAGAIN || errno == EACCES)) {
        close(fd);
        return refuse_locked(h, &st, msg, len);
    }
    h->alias_fd = fd;
    return 0;
}

/* Whether any lock on fd's file over [start, start+size) would keep a
 * run of `level` out: for a writer, another run's hold of any level; for
 * a verifier, a writer's (a shared lock conflicts only with those). */
static int lock_conflicts(int fd, off_t start, off_t size, int level)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = level == NVB__HOLD_WRITE ? F_WRLCK : F_RDLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = start;
    fl.l_len = size;
    return fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

/* A block device or regular file is what `mm` (and `ino`) say: see
 * nvb__claim_test. */
static int is_expected(const struct stat *st, const char *mm, uint64_t ino)
{
    if (!mm)
        return S_ISBLK(st->st_mode) || S_ISREG(st->st_mode);
    char got[32];
    if (!ino && S_ISBLK(st->st_mode)) {
        snprintf(got, sizeof got, "%u:%u", major(st->st_rdev), minor(st->st_rdev));
        return !strcmp(got, mm);
    }
    if (ino && S_ISREG(st->st_mode)) {
        snprintf(got, sizeof got, "%u:%u", major(st->st_dev), minor(st->st_dev));
        return !strcmp(got, mm) && (uint64_t)st->st_ino == ino;
    }
    return 0;
}

static int claim_by_fd(const char *mm, uint64_t ino, int level, char *who, size_t wlen);

/* nvb__claim_test; by_fd: a file not found by its name is looked for
 * among open descriptors (claim_by_fd). */
static int claim_test(const char *node, const char *mm, uint64_t ino, int level, int by_fd, char *who, size_t wlen)
{
    who[0] = 0;
    struct stat st;
    if (stat(node, &st) != 0 || !is_expected(&st, mm, ino))
        return by_fd && mm && ino ? claim_by_fd(mm, ino, level, who, wlen) : NVB__CLAIM_NONE;
    int excl_busy = 0, fd = -1;
    if (S_ISBLK(st.st_mode) && level == NVB__HOLD_WRITE) {
        fd = open(node, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        excl_busy = fd < 0 && errno == EBUSY;
    }
    if (fd < 0)
        fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return excl_busy ? NVB__CLAIM_KERNEL : NVB__CLAIM_NONE;
    /* the descriptor's identity: the name may have moved since the stat */
    if (fstat(fd, &st) != 0 || !is_expected(&st, mm, ino)) {
        close(fd);
        return NVB__CLAIM_NONE;
    }
    int held = lock_conflicts(fd, 0, 0, level);
    close(fd);
    char devnode[160];
    off_t start, size;
    if (!held && S_ISBLK(st.st_mode) && alias_node(st.st_rdev, devnode, sizeof devnode, &start, &size) == 0 &&
        (fd = open(devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) >= 0) {
        held = fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && lock_conflicts(fd, start, size, level);
        close(fd);
    }
    if (held) {
        find_holder(&st, who, wlen);
        return NVB__CLAIM_RUN;
    }
    return excl_busy ? NVB__CLAIM_KERNEL : NVB__CLAIM_NONE;
}

int nvb__claim_test(const char *node, const char *mm, uint64_t ino, int level, char *who, size_t wlen)
{
    return claim_test(node, mm, ino, level, 1, who, wlen);
}

/* A regular file whose name no longer leads to it (a loop device's
 * backing file deleted or renamed while attached: the kernel keeps only
 * the old name): a run holding it has it open, so each process's open
 * descriptors are matched by identity, and one found is tested through
 * /proc/PID/fd/N, which opens the file itself. Only on this path: it
 * reads every process's descriptor table. */
struct claim_search {
    const char *mm;
    uint64_t ino;
    int level;
    char *who;
    size_t wlen;
};

static int claim_fd(long pid, const char *fdpath, const char *fdname, const struct stat *st, void *arg)
{
    struct claim_search *c = arg;
    (void)pid;
    (void)fdname;
    return is_expected(st, c->mm, c->ino) ? claim_test(fdpath, c->mm, c->ino, c->level, 0, c->who, c->wlen) : 0;
}

static int claim_by_fd(const char *mm, uint64_t ino, int level, char *who, size_t wlen)
{
    struct claim_search c = {mm, ino, level, who, wlen};
    int k = each_proc_fd(claim_fd, &c);
    return k ? k : NVB__CLAIM_NONE;
}

/* A block device an O_EXCL open found busy: another run's hold (it has a
 * lock on the node), or the kernel's claim (mounted, dm, md, swap). */
static int refuse_excl(const struct nvb__hold *h, const char *file, char *msg, size_t len)
{
    char who[160];
    if (nvb__claim_test(file, NULL, 0, NVB__HOLD_WRITE, who, sizeof who) == NVB__CLAIM_RUN)
        return nvb__hold_refuse_locked(h, who, msg, len);
    snprintf(msg, len, "target '%s'%s%s is in use: the kernel has it claimed (mounted, perhaps in another mount "
             "namespace, or held by device-mapper, MD, bcache, swap or another program's exclusive open); writing to "
             "it would corrupt that, and no option overrides this (not even allow_destructive=1)", h->path,
             strcmp(file, h->path) ? " as " : "", strcmp(file, h->path) ? file : "");
    return -EBUSY;
}

/* Step 4: in use through the storage stack, judged on the descriptor: for
 * a writer, anything that uses a layer; for a verifier, another run that
 * writes a layer under its target or stacked on it (it would report that
 * run's writes as mismatches). */
static int busy_now(const struct nvb__hold *h, const struct stat *st, char *msg, size_t len)
{
    /* With the block device held O_EXCL the kernel already refuses
     * mounts, holders and swap on it: what is left is the loop devices
     * on or under it, which the quick look rules out on most machines. */
    char dmm[24], rmm[24] = "";
    snprintf(dmm, sizeof dmm, "%u:%u", major(st->st_dev), minor(st->st_dev));
    if (S_ISBLK(st->st_mode))
        snprintf(rmm, sizeof rmm, "%u:%u", major(st->st_rdev), minor(st->st_rdev));
    if (!nvb__stack_maybe_used(dmm, (uint64_t)st->st_ino, rmm))
        return 0;
    struct nvb__devctx *c = malloc(sizeof *c);
    struct nvb__devlist *l = malloc(sizeof *l);
    if (!c || !l) {
        free(c);
        free(l);
        return -ENOMEM;
    }
    nvb__devctx_init(c, NULL);
    int rc = nvb__dev_scan(c, l);
    if (rc < 0) {
        free(c);
        free(l);
        return rc == -ENOMEM ? rc : 0; /* no sysfs: the O_EXCL claim is what the kernel tells */
    }
    char busy[1536] = "";
    char mm[24];
    if (S_ISBLK(st->st_mode)) {
        snprintf(mm, sizeof mm, "%u:%u", major(st->st_rdev), minor(st->st_rdev));
        for (unsigned i = 0; i < l->n; i++)
            if (!strcmp(l->d[i].majmin, mm)) {
                nvb__stack_busy_dev(c, l, &l->d[i], h->level, busy, sizeof busy);
                break;
            }
    } else if (S_ISREG(st->st_mode)) {
        char real[4096];
        if (!realpath(h->file, real))
            snprintf(real, sizeof real, "%s", h->file);
        snprintf(mm, sizeof mm, "%u:%u", major(st->st_dev), minor(st->st_dev));
        nvb__stack_busy_file(c, l, real, mm, (uint64_t)st->st_ino, h->level, busy, sizeof busy);
    }
    nvb__devlist_free(l);
    free(l);
    free(c);
    if (!busy[0])
        return 0;
    if (h->level == NVB__HOLD_WRITE)
        snprintf(msg, len, "target '%s' is in use: %s; writing to it would corrupt that, and no option overrides "
                 "this (not even allow_destructive=1)", h->path, busy);
    else
        snprintf(msg, len, "target '%s' is in use: %s; a run that verifies it would report the other run's writes "
                 "as mismatches (a plain read, without verify, is allowed)", h->path, busy);
    return -EBUSY;
}

static int open_judged(const struct nvb__hold *h, const char *file, int kind, int flags, char *msg, size_t len)
{
    int fd;
    do
        fd = open(file, flags | O_CLOEXEC | O_NOCTTY | (kind == NVB__T_FILE ? 0 : O_NONBLOCK));
    while (fd < 0 && errno == EINTR);
    if (fd >= 0)
        return fd;
    int e = errno;
    if (e == EBUSY && (flags & O_EXCL))
        return refuse_excl(h, file, msg, len);
    if (e == ETXTBSY)
        snprintf(msg, len, "target '%s' is in use: it is an active swap file or a running program (the kernel "
                 "refuses to open it for writing); writing to it would corrupt that, and no option overrides this",
                 h->path);
    else
        snprintf(msg, len, "cannot open target '%s'%s%s: %s", h->path, strcmp(file, h->path) ? " as " : "",
                 strcmp(file, h->path) ? file : "", nvb_strerror(-e));
    return e == ETXTBSY ? -EBUSY : -e;
}

static int take_one(struct nvb__hold *h, char *msg, size_t len)
{
    int writes = h->level == NVB__HOLD_WRITE;
    int flags = writes ? O_RDWR : O_RDONLY;
    if (writes && h->kind == NVB__T_BLOCK)
        flags |= O_EXCL;
    int fd = open_judged(h, h->file, h->kind, flags, msg, len);
    if (fd < 0)
        return fd;
    h->fd = fd;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = -errno;
        snprintf(msg, len, "target '%s': fstat: %s", h->path, nvb_strerror(e));
        return e;
    }
    if (!same_as_judged(h, &st)) {
        char was[160], now[160];
        describe_judged(was, sizeof was, h);
        describe_id(now, sizeof now, &st);
        return nvb__hold_refuse_changed(h, was, now, msg, len);
    }
    int rc = lock_fd(fd, h->level);
    if (rc == -EBUSY)
        return refuse_locked(h, &st, msg, len);
    if (rc < 0 && rc != -EINVAL && rc != -ENOLCK && rc != -EOPNOTSUPP) {
        snprintf(msg, len, "target '%s': cannot lock it: %s", h->path, nvb_strerror(rc));
        return rc;
    }
    if (h->level != NVB__HOLD_READ && h->kind == NVB__T_BLOCK && (rc = alias_lock(h, st.st_rdev, &st, msg, len)) < 0)
        return rc;
    if (h->claim && h->claim[0] && writes) {
        /* Passthrough: commands go to the generic node, which has no
         * exclusive open; the namespace's block device does. */
        int cfd = open_judged(h, h->claim, NVB__T_BLOCK, O_RDWR | O_EXCL, msg, len);
        if (cfd < 0)
            return cfd;
        h->claim_fd = cfd;
        struct stat cs;
        if (fstat(cfd, &cs) == 0 && (rc = lock_fd(cfd, h->level)) == -EBUSY)
            return refuse_locked(h, &cs, msg, len);
        if (fstat(cfd, &cs) == 0 && (rc = busy_now(h, &cs, msg, len)) < 0)
            return rc;
    }
    if (h->claim && h->claim[0] && h->level != NVB__HOLD_READ) {
        /* a passthrough target: its block device stands for it (locked
         * already when claimed for writing) */
        struct stat cs;
        int got = h->claim_fd >= 0 ? fstat(h->claim_fd, &cs) : stat(h->claim, &cs);
        if (got == 0 && S_ISBLK(cs.st_mode) &&
            (rc = alias_lock(h, cs.st_rdev, h->claim_fd >= 0 ? &cs : NULL, msg, len)) < 0)
            return rc;
    }
    if (h->level != NVB__HOLD_READ && (rc = busy_now(h, &st, msg, len)) < 0)
        return rc;
    return 0;
}

NVB__HOLD_TAKE_DEFINE(take_one)

int nvb__hold_share(const struct nvb__hold *from, struct nvb__hold *to)
{
    to->claim_fd = to->alias_fd = -1;
    to->fd = fcntl(from->fd, F_DUPFD_CLOEXEC, 0);
    return to->fd < 0 ? -errno : 0;
}

int nvb__hold_reopen(const struct nvb__hold *h, int flags)
{
    if (h->fd < 0)
        return nvb__target_open(h->file, flags);
    /* Through the held descriptor: the same inode whatever the name now
     * points at. Without /proc (a bare container), the name, checked below. */
    char p[48];
    snprintf(p, sizeof p, "/proc/self/fd/%d", h->fd);
    int fd = nvb__target_open(p, flags);
    if (fd == -ENOENT)
        fd = nvb__target_open(h->file, flags);
    if (fd < 0)
        return fd;
    struct stat a, b;
    if (fstat(fd, &a) != 0 || fstat(h->fd, &b) != 0 || (a.st_mode & S_IFMT) != (b.st_mode & S_IFMT) ||
        (S_ISREG(a.st_mode) ? a.st_dev != b.st_dev || a.st_ino != b.st_ino : a.st_rdev != b.st_rdev)) {
        nvb__target_close(fd);
        return -ESTALE;
    }
    return fd;
}
