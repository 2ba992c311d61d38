/*
 * Block-device discovery from sysfs: the scan that builds a device list.
 *
 * The kernel's own layout is the model, so that recorded trees and the live
 * system go through the same code:
 *  - /sys/block/NAME links to the device directory; partitions are its
 *    subdirectories holding a `partition` file, and share its queue/.
 *  - What an NVMe namespace adds (controllers, subsystem, multipath) is read
 *    by nvme_sysfs.c; mounts and swap by mounts.c.
 *
 * Nothing is opened here: probe.c opens device nodes, and only when asked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"

static void read_queue(struct nvb__dev *d)
{
    char q[NVB__DEV_PATH + 8];
    if (nvb__pjoin(q, sizeof q, d->qdir, "queue") < 0)
        return;
    d->lbs = (uint32_t)nvb__rd_u64(q, "logical_block_size");
    d->pbs = (uint32_t)nvb__rd_u64(q, "physical_block_size");
    d->min_io = (uint32_t)nvb__rd_u64(q, "minimum_io_size");
    d->opt_io = (uint32_t)nvb__rd_u64(q, "optimal_io_size");
    d->max_transfer = nvb__rd_u64(q, "max_hw_sectors_kb") * 1024;
    d->max_sectors = nvb__rd_u64(q, "max_sectors_kb") * 1024;
    d->rotational = (int)nvb__rd_i64(q, "rotational", -1);
    d->nr_requests = (int)nvb__rd_i64(q, "nr_requests", -1);
    d->io_poll = (int)nvb__rd_i64(q, "io_poll", -1);
    d->atomic_min = nvb__rd_i64(q, "atomic_write_unit_min_bytes", -1); /* atomic=1 (core/iomode.c) */
    d->atomic_max = nvb__rd_i64(q, "atomic_write_unit_max_bytes", -1);
    nvb__rd_str(q, "zoned", d->zoned, sizeof d->zoned);
    nvb__rd_str(q, "write_cache", d->write_cache, sizeof d->write_cache);
    /* "mq-deadline kyber [bfq] none": the bracketed one is in use; a
     * bio-based device (multipath head, dm without mq) has just "none". */
    char s[256];
    if (nvb__rd_str(q, "scheduler", s, sizeof s) > 0) {
        char *o = strchr(s, '['), *e = o ? strchr(o, ']') : NULL;
        if (o && e) {
            *e = 0;
            nvb__copy(d->scheduler, sizeof d->scheduler, o + 1);
        } else {
            nvb__copy(d->scheduler, sizeof d->scheduler, s);
        }
    }
}

/* Unit Serial Number VPD page (0x80): a 4-byte header, then the serial
 * number, space-padded. */
static void read_vpd_serial(const char *devdir, char *out, size_t len)
{
    char p[NVB__DEV_PATH + 16];
    unsigned char b[256];
    out[0] = 0;
    if (nvb__pjoin(p, sizeof p, devdir, "vpd_pg80") < 0)
        return;
    FILE *f = fopen(p, "rbe");
    if (!f)
        return;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n < 4 || b[1] != 0x80)
        return;
    size_t sl = b[3] < n - 4 ? b[3] : n - 4;
    size_t o = 0;
    for (size_t i = 0; i < sl && o + 1 < len; i++)
        if (b[4 + i] >= 0x20 && b[4 + i] < 0x7f)
            out[o++] = (char)b[4 + i];
    out[o] = 0;
    nvb__rstrip(out);
    const char *s = out;
    while (*s == ' ')
        s++;
    memmove(out, s, strlen(s) + 1);
}

static void classify(struct nvb__dev *d)
{
    int a, b, cc;
    char devdir[NVB__DEV_PATH];
    const char *k = "other";
    nvb__resolve_at(d->sysdir, "device", devdir, sizeof devdir);
    if (d->parent[0])
        k = "partition";
    else if (nvb__parse_path_name(d->name, &a, &cc, &b))
        k = "nvme-path";
    else if (nvb__parse_ns_name(d->name, &a, &b))
        k = "nvme";
    else if (!strncmp(d->name, "loop", 4) || nvb__exists(d->sysdir, "loop"))
        k = "loop";
    else if (!strncmp(d->name, "zram", 4))
        k = "zram";
    else if (nvb__exists(d->sysdir, "dm"))
        k = "dm";
    else if (nvb__exists(d->sysdir, "md"))
        k = "md";
    else if (strstr(d->sysdir, "/virtio") || (devdir[0] && !strncmp(nvb__base(devdir), "virtio", 6)))
        k = "virtio";
    else if (devdir[0] && nvb__exists(devdir, "scsi_level"))
        k = "scsi";
    nvb__copy(d->kind, sizeof d->kind, k);
    if (!strcmp(k, "scsi")) {
        nvb__rd_str(devdir, "vendor", d->vendor, sizeof d->vendor);
        nvb__rd_str(devdir, "model", d->model, sizeof d->model);
        nvb__rd_str(devdir, "rev", d->firmware_rev, sizeof d->firmware_rev);
        read_vpd_serial(devdir, d->serial, sizeof d->serial);
    } else if (!strcmp(k, "virtio")) {
        nvb__rd_str(d->sysdir, "serial", d->serial, sizeof d->serial);
    } else if (!strcmp(k, "loop")) {
        nvb__rd_str(d->sysdir, "loop/backing_file", d->backing_file, sizeof d->backing_file);
    } else if (!strcmp(k, "dm")) {
        nvb__rd_str(d->sysdir, "dm/name", d->dm_name, sizeof d->dm_name);
        nvb__rd_str(d->sysdir, "dm/uuid", d->dm_uuid, sizeof d->dm_uuid);
    } else if (!strcmp(k, "md")) {
        nvb__rd_str(d->sysdir, "md/level", d->md_level, sizeof d->md_level);
    }
}

static struct nvb__dev *dev_new(struct nvb__devlist *l)
{
    if (l->n == l->cap) {
        unsigned cap = l->cap ? l->cap * 2 : 16;
        struct nvb__dev *n = realloc(l->d, cap * sizeof *n);
        if (!n)
            return NULL;
        l->d = n;
        l->cap = cap;
    }
    struct nvb__dev *d = &l->d[l->n++];
    memset(d, 0, sizeof *d);
    d->rotational = d->io_poll = d->nr_requests = d->removable = d->ro = d->hidden = -1;
    d->atomic_min = d->atomic_max = -1;
    return d;
}

static int read_dev(struct nvb__dev *d, const char *name, const char *sysdir, const char *qdir, const char *parent)
{
    nvb__copy(d->name, sizeof d->name, name);
    nvb__copy(d->sysdir, sizeof d->sysdir, sysdir);
    nvb__copy(d->qdir, sizeof d->qdir, qdir);
    nvb__copy(d->parent, sizeof d->parent, parent);
    nvb__rd_str(sysdir, "dev", d->majmin, sizeof d->majmin);
    d->size = nvb__rd_u64(sysdir, "size") * 512; /* always 512-byte units */
    d->ro = (int)nvb__rd_i64(sysdir, "ro", -1);
    d->removable = (int)nvb__rd_i64(parent ? qdir : sysdir, "removable", -1);
    d->hidden = (int)nvb__rd_i64(sysdir, "hidden", -1);
    int a, b, c;
    if (d->hidden < 0 && nvb__parse_path_name(name, &a, &c, &b))
        d->hidden = 1; /* kernels before 5.15 had no `hidden` attribute */
    if (d->hidden < 0)
        d->hidden = 0;
    if (!d->hidden)
        snprintf(d->path, sizeof d->path, "/dev/%s", name);
    if (parent) {
        d->partno = (int)nvb__rd_i64(sysdir, "partition", 0);
        d->start = nvb__rd_u64(sysdir, "start") * 512;
    }
    read_queue(d);
    char p[NVB__DEV_PATH + 16];
    int rc;
    if (nvb__pjoin(p, sizeof p, sysdir, "holders") < 0 || (rc = nvb__list_dir(p, &d->holders)) < 0)
        return -ENOMEM;
    if (nvb__pjoin(p, sizeof p, sysdir, "slaves") < 0 || (rc = nvb__list_dir(p, &d->slaves)) < 0)
        return -ENOMEM;
    classify(d);
    nvb__copy(d->iu_source, sizeof d->iu_source, "unknown");
    return 0;
}

int nvb__dev_scan(const struct nvb__devctx *c, struct nvb__devlist *l)
{
    memset(l, 0, sizeof *l);
    char bdir[NVB__DEV_PATH + 16];
    struct nvb__strv disks;
    snprintf(bdir, sizeof bdir, "%s/block", c->sys);
    if (!nvb__is_dir(bdir)) {
        snprintf(bdir, sizeof bdir, "%s/class/block", c->sys);
        if (!nvb__is_dir(bdir))
            return -ENOENT;
    }
    int rc = nvb__list_dir(bdir, &disks);
    if (rc < 0)
        return rc;
    for (unsigned i = 0; i < disks.n && rc == 0; i++) {
        char sysdir[NVB__DEV_PATH];
        nvb__resolve_at(bdir, disks.v[i], sysdir, sizeof sysdir);
        if (!sysdir[0] || nvb__exists(sysdir, "partition"))
            continue; /* class/block also lists partitions: they come with their disk */
        struct nvb__dev *d = dev_new(l);
        if (!d) {
            rc = -ENOMEM;
            break;
        }
        unsigned di = l->n - 1;
        if ((rc = read_dev(d, disks.v[i], sysdir, sysdir, NULL)) < 0)
            break;
        struct nvb__strv sub;
        if ((rc = nvb__list_dir(sysdir, &sub)) < 0)
            break;
        for (unsigned s = 0; s < sub.n && rc == 0; s++) {
            char pdir[NVB__DEV_PATH + 128];
            snprintf(pdir, sizeof pdir, "%s/%s", sysdir, sub.v[s]);
            if (!nvb__exists(pdir, "partition") || strlen(pdir) >= NVB__DEV_PATH)
                continue;
            struct nvb__dev *p = dev_new(l);
            if (!p) {
                rc = -ENOMEM;
                break;
            }
            d = &l->d[di]; /* dev_new may have moved it */
            if ((rc = read_dev(p, sub.v[s], pdir, sysdir, d->name)) < 0)
                break;
            if ((rc = nvb__strv_add(&d->partitions, p->name)) < 0)
                break;
        }
        nvb__strv_free(&sub);
    }
    nvb__strv_free(&disks);
    for (unsigned i = 0; i < l->n && rc == 0; i++)
        if (!strcmp(l->d[i].kind, "nvme") || !strcmp(l->d[i].kind, "nvme-path"))
            rc = nvb__read_nvme(c, l, &l->d[i]);
    /* A partition is described by its disk. */
    for (unsigned i = 0; i < l->n && rc == 0; i++) {
        struct nvb__dev *d = &l->d[i];
        struct nvb__dev *p = d->parent[0] ? nvb__devlist_find(l, d->parent) : NULL;
        if (p) {
            nvb__copy(d->model, sizeof d->model, p->model);
            nvb__copy(d->serial, sizeof d->serial, p->serial);
            nvb__copy(d->firmware_rev, sizeof d->firmware_rev, p->firmware_rev);
            nvb__copy(d->vendor, sizeof d->vendor, p->vendor);
            if (d->removable < 0)
                d->removable = p->removable;
        }
    }
    if (rc == 0)
        rc = nvb__read_mounts(c, l);
    if (rc == 0)
        nvb__read_swaps(c, l);
    if (rc < 0)
        nvb__devlist_free(l);
    return rc;
}
