/*
 * The NVMe namespace behind a target of the passthrough engine (nvme).
 *
 * A user names a namespace however they know it: its generic node
 * /dev/ngXnY, its block device /dev/nvmeXnY (whose number can differ from
 * the generic node's: with multipath compiled in, block devices are named by
 * subsystem and generic nodes by controller), a multipath head, or a
 * /dev/disk/by-id symlink. Discovery already knows how these relate, so the
 * answer comes from it; only a namespace the block layer does not expose
 * (no block device, or one of capacity 0, as Linux does for formats it
 * cannot drive) is asked directly with Identify through its generic node.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "util/util.h"
#include "devices/devices.h"

/* Identify through the node itself: nsid, LBA size, NSZE. */
static int ns_from_identify(const char *node, struct nvb__nvme_ns *ns, char *msg, size_t len)
{
    int fd = open(node, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = -errno;
        snprintf(msg, len, "cannot open '%s' to identify its namespace: %s", node, nvb_strerror(e));
        return e;
    }
    int nsid = nvb__nvme_nsid(fd);
    if (nsid < 0) {
        close(fd);
        snprintf(msg, len, "'%s' is not an NVMe namespace node (NVME_IOCTL_ID: %s): the nvme engine drives NVMe "
                 "namespaces, through /dev/ngXnY or /dev/nvmeXnY", node, nvb_strerror(nsid));
        return -ENODEV;
    }
    uint8_t *b = NULL;
    if (posix_memalign((void **)&b, 4096, 4096) != 0) {
        close(fd);
        return -ENOMEM;
    }
    struct nvb__idns id;
    int rc = nvb__nvme_identify_ns(fd, nsid, b, 4096);
    if (rc == 0)
        rc = nvb__idns_parse(b, 4096, &id);
    free(b);
    close(fd);
    if (rc < 0) {
        snprintf(msg, len, "'%s' (nsid %d): Identify Namespace failed: %s%s", node, nsid, nvb_strerror(rc),
                 rc == -EACCES || rc == -EPERM ? " (NVMe passthrough needs CAP_SYS_ADMIN before Linux 6.2)" : "");
        return rc;
    }
    ns->nsid = nsid;
    ns->lba_size = id.lba_size;
    ns->size = id.nsze * id.lba_size;
    ns->metadata = id.ms;
    snprintf(ns->source, sizeof ns->source, "identify");
    return 0;
}

int nvb__nvme_ns_find_ctx(const struct nvb__devctx *c, const char *path, struct nvb__nvme_ns *ns, char *msg,
                          size_t len)
{
    memset(ns, 0, sizeof *ns);
    ns->nsid = -1;
    msg[0] = 0;
    int live = !strcmp(c->dev, "/dev");
    struct nvb__devlist l;
    int rc = nvb__dev_scan(c, &l);
    if (rc == -ENOMEM)
        return rc;
    char name[64];
    struct nvb__dev *d = NULL;
    if (rc == 0 && nvb__dev_resolve(c, &l, path, name, sizeof name) == 0)
        d = nvb__devlist_find(&l, name);

    if (d) {
        const char *what = d->path[0] ? d->path : d->name;
        rc = 0;
        if (!strcmp(d->kind, "partition")) {
            snprintf(msg, len, "'%s' is a partition of %s: passthrough commands address the whole namespace; "
                     "give the namespace (and offset/size for the region)", path, d->parent);
            rc = -EINVAL;
        } else if (!d->nvme) {
            snprintf(msg, len, "'%s'%s%s (kind %s) is not an NVMe namespace: the nvme engine drives NVMe "
                     "namespaces through their generic node /dev/ngXnY", path, strcmp(path, what) ? " = " : "",
                     strcmp(path, what) ? what : "", d->kind);
            rc = -ENODEV;
        } else if (!d->nvme->generic[0]) {
            snprintf(msg, len, "NVMe namespace %s has no generic node /dev/ngXnY (Linux 5.13 or later creates "
                     "them)", what);
            rc = -ENODEV;
        } else {
            snprintf(ns->generic, sizeof ns->generic, "%s", d->nvme->generic);
            snprintf(ns->block, sizeof ns->block, "%s", d->path);
            ns->nsid = d->nvme->nsid;
            ns->lba_size = d->lbs;
            ns->size = d->size;
            ns->max_transfer = d->max_transfer;
            snprintf(ns->source, sizeof ns->source, "sysfs");
            if (!ns->size && live) {
                /* Linux gives a namespace it cannot drive (metadata it does
                 * not handle, an unknown format) capacity 0. */
                char m2[256];
                if (ns_from_identify(ns->generic, ns, m2, sizeof m2) < 0)
                    ns->size = 0;
            }
            if (!ns->size || !ns->lba_size) {
                snprintf(msg, len, "NVMe namespace %s has no usable capacity (size %llu, block size %u)", what,
                         (unsigned long long)ns->size, ns->lba_size);
                rc = -EINVAL;
            }
        }
        nvb__devlist_free(&l);
        return rc;
    }
    nvb__devlist_free(&l);

    /* Not a block device discovery knows: a generic node of the live system
     * (say, with /sys unavailable) answers for itself. */
    struct stat st;
    if (stat(path, &st) != 0) {
        rc = -errno;
        snprintf(msg, len, "'%s': %s", path, nvb_strerror(rc));
        return rc;
    }
    if (!live || !S_ISCHR(st.st_mode)) {
        snprintf(msg, len, "'%s' is not an NVMe namespace (%s): the nvme engine drives NVMe namespaces through "
                 "their generic node /dev/ngXnY", path,
                 S_ISREG(st.st_mode) ? "a regular file" : S_ISDIR(st.st_mode) ? "a directory"
                 : S_ISBLK(st.st_mode) ? "a block device" : S_ISCHR(st.st_mode) ? "a character device" : "not a device");
        return -ENODEV;
    }
    snprintf(ns->generic, sizeof ns->generic, "%s", path);
    return ns_from_identify(path, ns, msg, len);
}

int nvb__nvme_ns_find(const char *path, struct nvb__nvme_ns *ns, char *msg, size_t len)
{
    struct nvb__devctx *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    nvb__devctx_init(c, NULL);
    int rc = nvb__nvme_ns_find_ctx(c, path, ns, msg, len);
    free(c);
    return rc;
}
