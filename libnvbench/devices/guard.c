/*
 * The destructive-write guard: a benchmark must never destroy data by
 * accident.
 *
 *  - A device in use (mounted, holding a mounted partition, held by dm/md,
 *    active swap, or claimed by the kernel) is refused with -EBUSY: writing
 *    under a live filesystem corrupts it, and no option overrides that.
 *  - Any other block device needs allow_destructive=1 (-EPERM), and the
 *    refusal says what would be destroyed: the signature libblkid finds.
 *
 * A device has several names, and the guard looks at all of them: the
 * generic node /dev/ngXnY is namespace nvmeXnY; a whole disk shares its
 * flash with its partitions; a multipath head and its hidden paths are one
 * namespace; /dev/disk/by-id/... symlinks are resolved first.
 *
 * The sysfs/mountinfo view can miss a mount in another mount namespace (a
 * container), so on the live system the guard also asks the kernel: an
 * O_EXCL open of a block device fails with EBUSY while anything has it
 * claimed (mounts, dm, md, swap, and the partitions of a whole disk).
 * That test, and the look for another run's hold (its lock), is one
 * function (nvb__claim_test) that the target and every device and file
 * under it in a stack of loop devices get alike (stack.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "util/util.h"
#include "devices/devices.h"
#include "devices/hold.h"

/* "an ext4 filesystem labelled 'data'", "a gpt partition table and its 2
 * partitions (loop3p1, loop3p2)", or "the data on it". */
static void destroyed(const struct nvb__dev *d, char *s, size_t len)
{
    struct nvb__msg o = {s, len, 0, 0};
    s[0] = 0;
    const char *u = d->sig_usage, *t = d->sig_type;
    if (!t[0]) {
        nvb__msg_put(&o, "the data on it");
    } else if (!strcmp(t, "ambiguous")) {
        nvb__msg_put(&o, "the data on it (libblkid found more than one signature)");
    } else if (!strcmp(u, "filesystem")) {
        nvb__msg_put(&o, "an %s filesystem", t);
        if (d->sig_label[0])
            nvb__msg_put(&o, " labelled '%s'", d->sig_label);
    } else if (!strcmp(u, "partition_table")) {
        nvb__msg_put(&o, "a %s partition table", t);
    } else if (!strcmp(u, "raid")) {
        nvb__msg_put(&o, "a %s signature (a RAID member)", t);
    } else if (!strcmp(u, "crypto")) {
        nvb__msg_put(&o, "a %s volume (encrypted data)", t);
    } else if (!strcmp(t, "swap")) {
        nvb__msg_put(&o, "a swap area");
    } else {
        nvb__msg_put(&o, "a %s signature", t);
    }
    if (d->partitions.n) {
        nvb__msg_put(&o, " and its %u partition%s (", d->partitions.n, d->partitions.n > 1 ? "s" : "");
        for (unsigned i = 0; i < d->partitions.n && i < 8; i++)
            nvb__msg_put(&o, "%s%s", i ? ", " : "", d->partitions.v[i]);
        nvb__msg_put(&o, "%s)", d->partitions.n > 8 ? ", ..." : "");
    }
}

static int refuse_perm(const char *path, const char *alias, const struct nvb__dev *d, const char *what, char *msg,
                       size_t len)
{
    char des[512];
    destroyed(d, des, sizeof des);
    const char *unknown = d->sig_source[0] ? "" : d->sig_why;
    if (d->sig_type[0])
        snprintf(msg, len, "target '%s'%s holds %s: writing to it (rw=%s) destroys it; "
                 "set allow_destructive=1 to permit it", path, alias, des, what);
    else
        snprintf(msg, len, "target '%s'%s is a block device: writing to it (rw=%s) destroys %s%s%s%s; "
                 "set allow_destructive=1 to permit it", path, alias, what, des,
                 unknown[0] ? " (its content is unknown: " : "", unknown, unknown[0] ? ")" : "");
    return -EPERM;
}

/* The claim test a target and every layer under it get (nvb__claim_test,
 * stack.c for the layers): another run's hold, or the kernel's claim.
 * node is opened only when it is the device numbered mm (NULL: whatever
 * block device it is). */
static int refuse_claimed(const char *path, const char *alias, const char *node, const char *mm, char *msg,
                          size_t len)
{
    char who[160];
    int k = nvb__claim_test(node, mm, 0, NVB__HOLD_WRITE, who, sizeof who);
    if (k == NVB__CLAIM_RUN) {
        struct nvb__hold h = {.path = path, .level = NVB__HOLD_WRITE};
        return nvb__hold_refuse_locked(&h, who, msg, len);
    }
    if (k == NVB__CLAIM_NONE)
        return 0;
    snprintf(msg, len, "target '%s'%s is in use: the kernel has it claimed (mounted, perhaps in another mount "
             "namespace, or held by device-mapper, MD, bcache or swap); writing to it would corrupt that, "
             "and no option overrides this (not even allow_destructive=1)", path, alias);
    return -EBUSY;
}

/* A block device sysfs does not describe (no /sys in a container, say):
 * the kernel's claim and the signature of the node itself. */
static int guard_unlisted(const char *path, int allow, const char *what, char *msg, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISBLK(st.st_mode))
        return 0; /* not a block device: other rules apply */
    int rc = refuse_claimed(path, "", path, NULL, msg, len);
    if (rc < 0)
        return rc;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct nvb__dev *d = calloc(1, sizeof *d);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -ENOMEM;
    }
    if (fd >= 0) {
        int r = nvb__sig_probe_fd(fd, d);
        snprintf(d->sig_source, sizeof d->sig_source, "%s", r == 0 ? "blkid" : r == 1 ? "none" : "");
        if (r < 0)
            snprintf(d->sig_why, sizeof d->sig_why, "%s", r == -ENOTSUP ? "built without libblkid" : nvb_strerror(r));
        close(fd);
    } else {
        snprintf(d->sig_why, sizeof d->sig_why, "cannot open it: %s", nvb_strerror(-errno));
    }
    if (!allow)
        rc = refuse_perm(path, "", d, what, msg, len);
    free(d);
    return rc;
}

int nvb__guard_check(const struct nvb__devctx *c, struct nvb__devlist *l, const char *path, int allow,
                     const char *what, char *msg, size_t len)
{
    char name[64];
    msg[0] = 0;
    int rc = nvb__dev_resolve(c, l, path, name, sizeof name);
    struct nvb__dev *d = rc == 0 ? nvb__devlist_find(l, name) : NULL;
    if (!d) {
        if (rc == -ENODEV || rc == 0)
            return !strcmp(c->dev, "/dev") ? guard_unlisted(path, allow, what, msg, len) : 0;
        snprintf(msg, len, "target '%s': %s", path, nvb_strerror(rc));
        return rc;
    }
    char alias[160] = "";
    if (strcmp(path, d->path)) {
        const char *ng = d->nvme && d->nvme->generic[0] && !strcmp(path, d->nvme->generic) ? "NVMe namespace " : "";
        snprintf(alias, sizeof alias, " (%s%s)", ng, nvb__dev_label(d));
    }
    char busy[1536];
    nvb__stack_busy_dev(c, l, d, NVB__HOLD_WRITE, busy, sizeof busy);
    if (busy[0]) {
        snprintf(msg, len, "target '%s'%s is in use: %s; writing to it would corrupt that, and no option "
                 "overrides this (not even allow_destructive=1)", path, alias, busy);
        return -EBUSY;
    }
    if (d->path[0] && c->dev[0] && d->majmin[0]) {
        /* the context's node for it (a recorded tree opens nothing of the host's) */
        char node[NVB__DEV_PATH + 80];
        snprintf(node, sizeof node, "%s/%s", c->dev, d->name);
        if ((rc = refuse_claimed(path, alias, node, d->majmin, msg, len)) < 0)
            return rc;
    }
    if (allow)
        return 0;
    nvb__dev_probe(c, l, d, NVB__PROBE_SIG);
    return refuse_perm(path, alias, d, what, msg, len);
}

static void facts_of(const struct nvb__devlist *l, const struct nvb__dev *d, struct nvb__tdev *f)
{
    f->valid = 1;
    snprintf(f->name, sizeof f->name, "%s", d->name);
    snprintf(f->kind, sizeof f->kind, "%s", d->kind);
    snprintf(f->model, sizeof f->model, "%s", d->model);
    snprintf(f->serial, sizeof f->serial, "%s", d->serial);
    f->lbs = d->lbs;
    f->pbs = d->pbs;
    f->iu = d->iu;
    snprintf(f->iu_source, sizeof f->iu_source, "%s", d->iu_source);
    const struct nvb__dev *p = d->parent[0] ? nvb__devlist_find(l, d->parent) : NULL;
    f->link_gbs = nvb__dev_link_gbs(p ? p : d);
}

int nvb__device_check_ctx(const struct nvb__devctx *c, const char *path, int writes, int allow, const char *what,
                          struct nvb__tdev *facts, char *msg, size_t len)
{
    memset(facts, 0, sizeof *facts);
    msg[0] = 0;
    struct nvb__devlist l;
    int rc = nvb__dev_scan(c, &l);
    if (rc < 0) {
        if (rc == -ENOMEM)
            return rc;
        /* no sysfs (a container): the kernel can still say "in use" */
        return writes && !strcmp(c->dev, "/dev") ? guard_unlisted(path, allow, what, msg, len) : 0;
    }
    if (writes)
        rc = nvb__guard_check(c, &l, path, allow, what, msg, len);
    if (rc == 0) {
        char name[64];
        struct nvb__dev *d = nvb__dev_resolve(c, &l, path, name, sizeof name) == 0 ? nvb__devlist_find(&l, name) : NULL;
        if (d) {
            nvb__dev_probe(c, &l, d, NVB__PROBE_ID);
            facts_of(&l, d, facts);
        }
    }
    nvb__devlist_free(&l);
    return rc;
}

int nvb__device_check(const char *path, int writes, int allow, const char *what, struct nvb__tdev *facts,
                      char *msg, size_t len)
{
    struct nvb__devctx *c = malloc(sizeof *c);
    if (!c) {
        memset(facts, 0, sizeof *facts);
        return -ENOMEM;
    }
    nvb__devctx_init(c, NULL);
    int rc = nvb__device_check_ctx(c, path, writes, allow, what, facts, msg, len);
    free(c);
    return rc;
}

