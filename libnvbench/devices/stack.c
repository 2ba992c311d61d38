/*
 * The storage stack around a write target, in both directions.
 *
 * Up: what is built on the target. A loop device backed by it (a regular
 * file or a block device) reads and writes its blocks, and whatever uses
 * that loop device (a mount, swap, device-mapper, another loop device)
 * uses them too. Down: what the target is built on. Writing to a loop
 * device writes into its backing file or device, so whatever else uses
 * that is written under as well. Each layer down is also tested as the
 * target itself is (nvb__claim_test): the kernel's claim (a mount in
 * another mount namespace shows nowhere else) and another run's hold.
 *
 * The guard refuses a write when anything along either chain is in use,
 * and names the chain: "fs.img backs /dev/loop0: /dev/loop0 is mounted on
 * /srv/data (ext4)". Chains are followed through any number of layers; the
 * depth bound only stops a cycle.
 *
 * A loop device's backing is identified exactly by LOOP_GET_STATUS64 (the
 * backing file's st_dev/st_ino, or the backing device's number), not by
 * the name sysfs shows, which goes stale when the file is renamed or
 * deleted. In a recorded tree (tests) only the name is known.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/loop.h>
#endif

#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"

#define MAX_DEPTH 16

static void majmin(char *out, size_t len, unsigned ma, unsigned mi) { snprintf(out, len, "%u:%u", ma, mi); }

/* The kernel's 64-bit device encoding (huge_encode_dev). */
static void from_kernel_dev(char *out, size_t len, uint64_t v)
{
    majmin(out, len, (unsigned)((v & 0xfff00) >> 8), (unsigned)((v & 0xff) | ((v >> 12) & 0xfff00)));
}

static int live(const struct nvb__devctx *c) { return !strcmp(c->dev, "/dev"); }

/* One walk of the stack: where it looks, and for whom. A writer
 * (NVB__HOLD_WRITE) is refused by anything that uses a layer: mounts,
 * holders, swap, an attached loop device, the kernel's claim, another
 * run's hold of any level. A verifier (NVB__HOLD_VERIFY) writes nothing
 * and is refused only by what writes the blocks it checks: another run
 * writing a layer under it or stacked on it (that run's write lock); a
 * mount, a loop device nobody writes, a reader or another verifier leave
 * it alone, as they leave its target alone. */
struct walk {
    const struct nvb__devctx *c;
    struct nvb__devlist *l;
    int level;
};

/* sysfs shows " (deleted)" after a backing file that was unlinked: the
 * name without it (1 when it was there). */
static int backing_name(const struct nvb__dev *d, char *out, size_t len)
{
    snprintf(out, len, "%s", d->backing_file);
    size_t n = strlen(out), k = strlen(" (deleted)");
    if (n > k && !strcmp(out + n - k, " (deleted)")) {
        out[n - k] = 0;
        return 1;
    }
    return 0;
}

/* What an open loop device is backed by, from the kernel: the backing
 * file's file system and inode ("254:0", ino), and the backing device's
 * number when it is a block device (else ""). 0, or -1 (not attached, not
 * a loop device, or no LOOP_GET_STATUS64 here). Closes fd. */
static int loop_status(int fd, char dev[24], uint64_t *ino, char rdev[24])
{
#ifdef LOOP_GET_STATUS64
    struct loop_info64 li;
    memset(&li, 0, sizeof li); /* valgrind does not know this ioctl */
    int rc = ioctl(fd, LOOP_GET_STATUS64, &li);
    close(fd);
    if (rc != 0)
        return -1;
    from_kernel_dev(dev, 24, li.lo_device);
    *ino = li.lo_inode;
    rdev[0] = 0;
    if (li.lo_rdevice)
        from_kernel_dev(rdev, 24, li.lo_rdevice);
    return 0;
#else
    close(fd);
    (void)dev;
    (void)ino;
    (void)rdev;
    return -1;
#endif
}

static void loop_identity(const struct nvb__devctx *c, const struct nvb__devlist *l, struct nvb__dev *d)
{
    if (d->lo_state)
        return;
    d->lo_state = -1;
    if (strcmp(d->kind, "loop") || !d->backing_file[0])
        return;
    int fd = nvb__dev_open(c, d, O_RDONLY | O_NONBLOCK);
    if (fd >= 0 && loop_status(fd, d->lo_dev, &d->lo_ino, d->lo_rdev) == 0) {
        d->lo_state = 1;
        return;
    }
    char name[512];
    int deleted = backing_name(d, name, sizeof name);
    struct stat st;
    /* a deleted backing file's old name may lead to another file now */
    if (live(c) && !deleted && stat(name, &st) == 0) {
        majmin(d->lo_dev, sizeof d->lo_dev, major(st.st_dev), minor(st.st_dev));
        d->lo_ino = st.st_ino;
        d->lo_rdev[0] = 0;
        if (S_ISBLK(st.st_mode))
            majmin(d->lo_rdev, sizeof d->lo_rdev, major(st.st_rdev), minor(st.st_rdev));
        d->lo_state = 1;
        return;
    }
    if (live(c) && deleted)
        return; /* unknown: not taken for whatever has its old name now */
    /* A recorded tree: a backing device is named under /dev. */
    d->lo_state = 2;
    if (!strncmp(name, "/dev/", 5)) {
        const struct nvb__dev *b = nvb__devlist_find(l, name + 5);
        if (b)
            snprintf(d->lo_rdev, sizeof d->lo_rdev, "%s", b->majmin);
    }
}

static int backed_by_dev(const struct nvb__dev *loop, const struct nvb__dev *b)
{
    return loop->lo_state > 0 && loop->lo_rdev[0] && b->majmin[0] && !strcmp(loop->lo_rdev, b->majmin);
}

static int backed_by_file(const struct nvb__dev *loop, const char *path, const char *devmm, uint64_t ino)
{
    if (loop->lo_state == 1)
        return !loop->lo_rdev[0] && devmm && devmm[0] && !strcmp(loop->lo_dev, devmm) && loop->lo_ino == ino;
    if (loop->lo_state == 2 && !loop->lo_rdev[0]) {
        char name[512];
        backing_name(loop, name, sizeof name);
        return !strcmp(name, path);
    }
    return 0;
}

static void up_dev(const struct walk *w, const struct nvb__dev *d, const struct nvb__dev *skip, int depth,
                   struct nvb__msg *o);

/* The loop devices backed by `what` (a device, or the file path/devmm/ino)
 * other than skip, each with whatever uses it: "X backs /dev/loop0: ...".
 * For a verifier, only those something writes are named. */
static void up_loops(const struct walk *w, const char *name, const struct nvb__dev *dev, const char *path,
                     const char *devmm, uint64_t ino, const struct nvb__dev *skip, int depth, struct nvb__msg *o)
{
    struct nvb__devlist *l = w->l;
    for (unsigned i = 0; i < l->n; i++) {
        struct nvb__dev *lp = &l->d[i];
        if (lp == skip || lp == dev || strcmp(lp->kind, "loop") || !lp->backing_file[0])
            continue;
        loop_identity(w->c, l, lp);
        if (dev ? !backed_by_dev(lp, dev) : !backed_by_file(lp, path, devmm, ino))
            continue;
        char sub[1024];
        struct nvb__msg so = {sub, sizeof sub, 0, 0};
        sub[0] = 0;
        if (depth < MAX_DEPTH)
            up_dev(w, lp, NULL, depth + 1, &so);
        if (!sub[0] && w->level != NVB__HOLD_WRITE)
            continue; /* attached, and nothing writes it */
        nvb__msg_sep(o);
        nvb__msg_put(o, "%s backs %s", name, nvb__dev_label(lp));
        if (sub[0])
            nvb__msg_put(o, ": %s", sub);
        else
            nvb__msg_put(o, " (an attached loop device: detach it with losetup -d first)");
    }
}

static void claimed(const struct walk *w, const char *node, const char *mm, uint64_t ino, const char *label,
                    struct nvb__msg *o);

/* A layer's claim test under its device node (see claimed()). */
static void claimed_dev(const struct walk *w, const struct nvb__dev *d, struct nvb__msg *o)
{
    if (!w->c->dev[0] || !d->majmin[0])
        return;
    char node[NVB__DEV_PATH + 80];
    snprintf(node, sizeof node, "%s/%s", w->c->dev, d->name);
    claimed(w, node, d->majmin, 0, nvb__dev_label(d), o);
}

/* d's users and those of its family (mounts, holders, swap), and the loop
 * devices stacked on any of them (other than skip), recursively. For a
 * verifier, a layer above the target (depth > 0) is claim-tested instead:
 * its own test covers its disk over its bytes and, for a disk, the
 * writers of its partitions (each locks its range of the disk's node). */
static void up_dev(const struct walk *w, const struct nvb__dev *d, const struct nvb__dev *skip, int depth,
                   struct nvb__msg *o)
{
    if (w->level == NVB__HOLD_WRITE) {
        char b[1024];
        nvb__dev_busy(w->l, d, b, sizeof b);
        if (b[0]) {
            nvb__msg_sep(o);
            nvb__msg_put(o, "%s", b);
        }
    } else if (depth > 0) {
        claimed_dev(w, d, o);
    }
    struct nvb__fam f;
    nvb__dev_family(w->l, d, &f);
    for (unsigned i = 0; i < f.n; i++)
        up_loops(w, nvb__dev_label(f.m[i].d), f.m[i].d, NULL, NULL, 0, skip, depth, o);
}

static void up_file(const struct walk *w, const char *path, const char *devmm, uint64_t ino,
                    const struct nvb__dev *skip, int depth, struct nvb__msg *o)
{
    for (unsigned i = 0; w->level == NVB__HOLD_WRITE && i < w->l->swapfiles.n; i++) {
        const char *sw = w->l->swapfiles.v[i];
        struct stat st;
        int same;
        if (live(w->c) && devmm && devmm[0] && stat(sw, &st) == 0) {
            char mm[24];
            majmin(mm, sizeof mm, major(st.st_dev), minor(st.st_dev));
            same = !strcmp(mm, devmm) && (uint64_t)st.st_ino == ino;
        } else {
            same = !strcmp(sw, path);
        }
        if (same) {
            nvb__msg_sep(o);
            nvb__msg_put(o, "%s is an active swap file", path);
        }
    }
    up_loops(w, path, NULL, path, devmm, ino, skip, depth, o);
}

/* A layer under the target, tested as the target itself is (guard.c,
 * nvb__claim_test): the kernel's claim (a mount in another mount
 * namespace shows nowhere else) and the holds of other runs, which a run
 * that took its target before the loop device was stacked on it cannot
 * see; for a verifier, only another run's write lock. node is the layer's
 * name in the context's dev/ (a device), or its path (a file, on the live
 * system only); mm and ino what it must be. */
static void claimed(const struct walk *w, const char *node, const char *mm, uint64_t ino, const char *label,
                    struct nvb__msg *o)
{
    char who[160];
    int k = nvb__claim_test(node, mm, ino, w->level, who, sizeof who);
    if (k == NVB__CLAIM_NONE)
        return;
    nvb__msg_sep(o);
    if (k == NVB__CLAIM_RUN)
        nvb__msg_put(o, "%s is in use by another run%s%s%s: it is being written%s", label, who[0] ? " (" : "", who,
                     who[0] ? ")" : "", w->level == NVB__HOLD_WRITE ? " or verified" : "");
    else
        nvb__msg_put(o, "the kernel has %s claimed (mounted, perhaps in another mount namespace, or held by "
                     "device-mapper, MD, bcache, swap or another program's exclusive open)", label);
}

/* Down from a loop device: what it is backed by, and who else uses that
 * or has it claimed or held (for a verifier: writes it). */
static void down(const struct walk *w, struct nvb__dev *d, int depth, struct nvb__msg *o)
{
    struct nvb__devlist *l = w->l;
    if (depth >= MAX_DEPTH)
        return;
    if (d->parent[0]) {
        /* a partition of a loop device writes into the loop device's backing */
        struct nvb__dev *disk = nvb__devlist_find(l, d->parent);
        if (disk && disk != d)
            down(w, disk, depth + 1, o);
        return;
    }
    if (strcmp(d->kind, "loop") || !d->backing_file[0])
        return;
    loop_identity(w->c, l, d);
    char sub[1024];
    struct nvb__msg so = {sub, sizeof sub, 0, 0};
    sub[0] = 0;
    struct nvb__dev *b = NULL;
    if (d->lo_rdev[0])
        for (unsigned i = 0; i < l->n && !b; i++)
            if (!strcmp(l->d[i].majmin, d->lo_rdev))
                b = &l->d[i];
    char name[512];
    backing_name(d, name, sizeof name);
    if (b) {
        /* a verifier's up_dev claim-tests b itself (depth > 0) */
        up_dev(w, b, d, depth + 1, &so);
        if (w->level == NVB__HOLD_WRITE)
            claimed_dev(w, b, &so);
        if (sub[0]) {
            nvb__msg_sep(o);
            nvb__msg_put(o, "%s is backed by %s: %s", nvb__dev_label(d), nvb__dev_label(b), sub);
        }
        down(w, b, depth + 1, o);
    } else if (d->lo_state > 0 && !d->lo_rdev[0]) {
        /* a deleted backing file is named as the kernel shows it, "(deleted)"
         * and all; its claim test finds it among open descriptors */
        const char *shown = d->backing_file;
        up_file(w, name, d->lo_state == 1 ? d->lo_dev : NULL, d->lo_ino, d, depth + 1, &so);
        if (live(w->c) && d->lo_state == 1)
            claimed(w, name, d->lo_dev, d->lo_ino, shown, &so);
        if (sub[0]) {
            nvb__msg_sep(o);
            nvb__msg_put(o, "%s is backed by %s: %s", nvb__dev_label(d), shown, sub);
        }
    }
}

void nvb__stack_busy_dev(const struct nvb__devctx *c, struct nvb__devlist *l, struct nvb__dev *d, int level,
                         char *out, size_t len)
{
    struct walk w = {c, l, level};
    struct nvb__msg o = {out, len, 0, 0};
    out[0] = 0;
    up_dev(&w, d, NULL, 0, &o);
    down(&w, d, 0, &o);
}

void nvb__stack_busy_file(const struct nvb__devctx *c, struct nvb__devlist *l, const char *path, const char *devmm,
                          uint64_t ino, int level, char *out, size_t len)
{
    struct walk w = {c, l, level};
    struct nvb__msg o = {out, len, 0, 0};
    out[0] = 0;
    up_file(&w, path, devmm, ino, NULL, 0, &o);
}

/* ---- what a target lies on ---- */

static uint64_t kernel_dev(uint64_t v)
{
    return (uint64_t)makedev((unsigned)((v & 0xfff00) >> 8), (unsigned)((v & 0xff) | ((v >> 12) & 0xfff00)));
}

/* from's bytes [off, off+len) (len 0: to its end) as seen in the layer
 * under it, where from lies at `at`, size bytes long (0: to that layer's
 * end). */
static void shift(struct nvb__layer *to, const struct nvb__layer *from, uint64_t at, uint64_t size)
{
    to->off = at + from->off;
    to->len = from->len ? from->len : !size ? 0 : size > from->off ? size - from->off : 1;
}

static int push(struct nvb__layers *out, int file, uint64_t dev, uint64_t ino, uint64_t rdev, const char *name)
{
    if (out->n >= NVB__MAX_LAYERS)
        return -1;
    struct nvb__layer *y = &out->l[out->n++];
    y->file = file;
    y->dev = dev;
    y->ino = ino;
    y->rdev = rdev;
    snprintf(y->name, sizeof y->name, "%s", name);
    return 0;
}

void nvb__stack_layers(int file, uint64_t dev, uint64_t ino, uint64_t rdev, const char *name,
                       struct nvb__layers *out)
{
    memset(out, 0, sizeof *out);
    push(out, file, dev, ino, rdev, name);
    while (!out->l[out->n - 1].file && out->n < NVB__MAX_LAYERS) {
        const struct nvb__layer *y = &out->l[out->n - 1];
        char link[96], dir[NVB__DEV_PATH], mm[24];
        snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major((dev_t)y->rdev), minor((dev_t)y->rdev));
        if (!realpath(link, dir))
            return;
        if (nvb__exists(dir, "partition")) {
            /* a partition: its bytes in its disk */
            uint64_t start = nvb__rd_u64(dir, "start") * 512, size = nvb__rd_u64(dir, "size") * 512;
            char *slash = strrchr(dir, '/');
            if (!slash)
                return;
            *slash = 0;
            unsigned ma, mi;
            if (nvb__rd_str(dir, "dev", mm, sizeof mm) <= 0 || sscanf(mm, "%u:%u", &ma, &mi) != 2)
                return;
            char dn[96];
            snprintf(dn, sizeof dn, "/dev/%s", strrchr(dir, '/') + 1);
            struct nvb__layer from = *y;
            if (push(out, 0, 0, 0, (uint64_t)makedev(ma, mi), dn) < 0)
                return;
            shift(&out->l[out->n - 1], &from, start, size);
            continue;
        }
        char back[NVB__DEV_PATH + 16];
        snprintf(back, sizeof back, "%s/loop", dir);
        if (!nvb__exists(back, "backing_file"))
            return; /* neither: the bottom */
#ifdef LOOP_GET_STATUS64
        /* a loop device: its node, checked to be this device, asked exactly */
        char node[96];
        snprintf(node, sizeof node, "/dev/%s", strrchr(dir, '/') + 1);
        struct stat st;
        int fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct loop_info64 li;
        memset(&li, 0, sizeof li);
        int ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && (uint64_t)st.st_rdev == y->rdev &&
                 ioctl(fd, LOOP_GET_STATUS64, &li) == 0;
        if (fd >= 0)
            close(fd);
        if (!ok)
            return;
        struct nvb__layer from = *y;
        int r;
        if (li.lo_rdevice) {
            char dn[96] = "";
            uint64_t b = kernel_dev(li.lo_rdevice);
            snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major((dev_t)b), minor((dev_t)b));
            if (realpath(link, dir))
                snprintf(dn, sizeof dn, "/dev/%s", strrchr(dir, '/') + 1);
            r = push(out, 0, 0, 0, b, dn);
        } else {
            char bname[512] = "";
            nvb__rd_str(back, "backing_file", bname, sizeof bname);
            r = push(out, 1, kernel_dev(li.lo_device), li.lo_inode, 0, bname);
        }
        if (r < 0)
            return;
        shift(&out->l[out->n - 1], &from, li.lo_offset, li.lo_sizelimit);
#else
        return;
#endif
    }
}

/* Most machines have no loop device on the target and no swap file at all:
 * asking the kernel that (one LOOP_GET_STATUS64 per attached loop device,
 * /proc/swaps) costs a fraction of the whole scan, which then only runs to
 * describe the chain. 1 when the full answer is needed (or this could not
 * tell), 0 when nothing can be stacked on or under the target. */
int nvb__stack_maybe_used(const char *devmm, uint64_t ino, const char *rdevmm)
{
#ifdef LOOP_GET_STATUS64
    char p[128], disk[24] = "";
    if (rdevmm && rdevmm[0]) {
        /* a partition is looked at as its disk too (a partition of a loop
         * device writes into its backing; a loop device on the disk
         * covers the partition) */
        snprintf(p, sizeof p, "/sys/dev/block/%s/..", rdevmm);
        char q[160];
        snprintf(q, sizeof q, "/sys/dev/block/%s", rdevmm);
        if (nvb__exists(q, "partition") && nvb__rd_str(p, "dev", disk, sizeof disk) <= 0)
            return 1;
        /* a loop device itself: what it is backed by must be looked at */
        snprintf(p, sizeof p, "/sys/dev/block/%s/loop/backing_file", disk[0] ? disk : rdevmm);
        if (access(p, F_OK) == 0)
            return 1;
    } else {
        FILE *f = fopen("/proc/swaps", "re");
        if (!f)
            return 1;
        char line[1024];
        int swapfile = 0;
        while (!swapfile && fgets(line, sizeof line, f)) {
            char name[512], type[32];
            swapfile = sscanf(line, "%511s %31s", name, type) == 2 && !strcmp(type, "file");
        }
        fclose(f);
        if (swapfile)
            return 1;
    }
    struct nvb__strv blocks;
    if (nvb__list_dir("/sys/block", &blocks) < 0 || !blocks.n) {
        nvb__strv_free(&blocks);
        return 1;
    }
    int used = 0;
    for (unsigned k = 0; !used && k < blocks.n; k++) {
        const char *name = blocks.v[k];
        if (strncmp(name, "loop", 4))
            continue;
        snprintf(p, sizeof p, "/sys/block/%s/loop/backing_file", name);
        if (access(p, F_OK) != 0)
            continue; /* not attached */
        snprintf(p, sizeof p, "/dev/%s", name);
        int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        char a[24], b[24];
        uint64_t i;
        if (fd < 0 || loop_status(fd, a, &i, b) != 0)
            used = 1; /* cannot tell */
        else if (rdevmm && rdevmm[0])
            used = b[0] && (!strcmp(b, rdevmm) || (disk[0] && !strcmp(b, disk)));
        else
            used = !b[0] && devmm && !strcmp(a, devmm) && i == ino;
    }
    nvb__strv_free(&blocks);
    return used;
#else
    (void)devmm;
    (void)ino;
    (void)rdevmm;
    return 1;
#endif
}

int nvb__file_check_ctx(const struct nvb__devctx *c, const char *path, char *msg, size_t len)
{
    msg[0] = 0;
    struct stat st;
    char real[4096];
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* planning reports what is wrong with it */
    char mm[24], busy[1536];
    majmin(mm, sizeof mm, major(st.st_dev), minor(st.st_dev));
    if (live(c) && !nvb__stack_maybe_used(mm, (uint64_t)st.st_ino, NULL))
        return 0;
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    struct nvb__devlist l;
    int rc = nvb__dev_scan(c, &l);
    if (rc < 0)
        return rc == -ENOMEM ? rc : 0; /* no sysfs: no loop devices to know of */
    nvb__stack_busy_file(c, &l, real, live(c) ? mm : NULL, (uint64_t)st.st_ino, NVB__HOLD_WRITE, busy, sizeof busy);
    nvb__devlist_free(&l);
    if (busy[0]) {
        snprintf(msg, len, "target '%s' is in use: %s; writing to it would corrupt that, and no option overrides "
                 "this (not even allow_destructive=1)", path, busy);
        return -EBUSY;
    }
    return 0;
}

int nvb__file_check(const char *path, char *msg, size_t len)
{
    struct nvb__devctx *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    nvb__devctx_init(c, NULL);
    int rc = nvb__file_check_ctx(c, path, msg, len);
    free(c);
    return rc;
}
