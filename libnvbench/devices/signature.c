/*
 * What a block device holds, from libblkid: a filesystem, a partition
 * table, a RAID member, swap... The guard names it in its refusal. libblkid
 * is optional at build time; without it the signature is "unknown" and the
 * guard says so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "devices/devices.h"

#if NVB_HAVE_LIBBLKID
#include <blkid/blkid.h>

static void value(blkid_probe pr, const char *name, char *out, size_t len)
{
    const char *v = NULL;
    size_t n = 0;
    if (blkid_probe_lookup_value(pr, name, &v, &n) == 0 && v)
        snprintf(out, len, "%s", v);
}

int nvb__sig_probe_fd(int fd, struct nvb__dev *d)
{
    blkid_probe pr = blkid_new_probe();
    if (!pr)
        return -ENOMEM;
    int rc = -EIO;
    if (blkid_probe_set_device(pr, fd, 0, 0) != 0)
        goto out;
    blkid_probe_enable_superblocks(pr, 1);
    blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE | BLKID_SUBLKS_LABEL |
                                              BLKID_SUBLKS_UUID);
    blkid_probe_enable_partitions(pr, 1);
    /* Ambiguous results (two signatures) are reported, not resolved: the
     * device holds something either way. */
    int r = blkid_do_safeprobe(pr);
    if (r == 1) {
        rc = 1;
        goto out;
    }
    if (r == -2) {
        snprintf(d->sig_type, sizeof d->sig_type, "ambiguous");
        snprintf(d->sig_usage, sizeof d->sig_usage, "other");
        rc = 0;
        goto out;
    }
    if (r < 0)
        goto out;
    value(pr, "TYPE", d->sig_type, sizeof d->sig_type);
    value(pr, "USAGE", d->sig_usage, sizeof d->sig_usage);
    value(pr, "LABEL", d->sig_label, sizeof d->sig_label);
    value(pr, "UUID", d->sig_uuid, sizeof d->sig_uuid);
    if (!d->sig_type[0]) {
        value(pr, "PTTYPE", d->sig_type, sizeof d->sig_type);
        if (d->sig_type[0])
            snprintf(d->sig_usage, sizeof d->sig_usage, "partition_table");
        if (!d->sig_uuid[0])
            value(pr, "PTUUID", d->sig_uuid, sizeof d->sig_uuid);
    }
    rc = d->sig_type[0] ? 0 : 1;
out:
    blkid_free_probe(pr);
    return rc;
}

#else

int nvb__sig_probe_fd(int fd, struct nvb__dev *d)
{
    (void)fd;
    (void)d;
    return -ENOTSUP;
}

#endif
