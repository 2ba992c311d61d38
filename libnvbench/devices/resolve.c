/*
 * From a path the user gave (/dev/..., /dev/disk/by-id/..., /dev/ngXnY) to
 * the kernel name of the block device it is.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"

static int parent_dir(const char *p, char *out, size_t len)
{
    nvb__copy(out, len, p);
    char *s = strrchr(out, '/');
    if (!s)
        return -EINVAL;
    if (s == out)
        s[1] = 0;
    else
        *s = 0;
    return 0;
}

int nvb__dev_resolve(const struct nvb__devctx *c, const struct nvb__devlist *l, const char *path, char *name,
                     size_t len)
{
    char mapped[PATH_MAX + 16];
    /* A recorded tree answers only for paths under /dev, from its own
     * dev/: a device node of the host must never be taken for one of its
     * devices. */
    int live_dev = !strcmp(c->dev, "/dev");
    if (!live_dev) {
        if (!c->dev[0] || strncmp(path, "/dev/", 5))
            return -ENODEV;
        snprintf(mapped, sizeof mapped, "%s/%s", c->dev, path + 5);
    } else {
        nvb__copy(mapped, sizeof mapped, path);
    }
    struct stat st;
    if (stat(mapped, &st) != 0)
        return -errno;
    const char *found = NULL;
    char kname[256] = "";
    if (live_dev && S_ISBLK(st.st_mode)) {
        char mm[32];
        snprintf(mm, sizeof mm, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
        struct nvb__dev *d = nvb__devlist_find_majmin(l, mm);
        if (!d)
            return -ENODEV;
        found = d->name;
    } else if (live_dev && S_ISCHR(st.st_mode)) {
        char link[NVB__DEV_PATH + 64], target[PATH_MAX];
        snprintf(link, sizeof link, "%s/dev/char/%u:%u", c->sys, major(st.st_rdev), minor(st.st_rdev));
        if (!realpath(link, target))
            return -ENODEV;
        nvb__copy(kname, sizeof kname, nvb__base(target));
    } else if (!live_dev && S_ISREG(st.st_mode)) {
        /* A recorded tree has no device nodes: its dev/ holds empty files
         * named like them, and the udev symlinks to those. */
        char r[PATH_MAX], dir[PATH_MAX], devr[PATH_MAX];
        if (!realpath(mapped, r) || parent_dir(r, dir, sizeof dir) < 0)
            return -ENODEV;
        if (!realpath(c->dev, devr) || strcmp(dir, devr))
            return -ENODEV;
        nvb__copy(kname, sizeof kname, nvb__base(r));
    } else {
        return -ENODEV;
    }
    if (!found) {
        /* An NVMe generic node stands for its namespace. */
        for (unsigned i = 0; i < l->n && !found; i++)
            if (l->d[i].nvme && l->d[i].nvme->generic_name[0] && !strcmp(l->d[i].nvme->generic_name, kname))
                found = l->d[i].name;
        if (!found && nvb__devlist_find(l, kname))
            found = kname;
        if (!found)
            return -ENODEV;
    }
    if (strlen(found) >= len)
        return -ENAMETOOLONG;
    nvb__copy(name, len, found);
    return 0;
}
