/*
 * The device list itself: finding a device in it by name or by device
 * number, and freeing it. Every discovery file and the guard look devices
 * up here, so none of them needs the scan that filled the list.
 */
#include <stdlib.h>
#include <string.h>

#include "devices/devices.h"
#include "devices/discover.h"

struct nvb__dev *nvb__devlist_find(const struct nvb__devlist *l, const char *name)
{
    for (unsigned i = 0; i < l->n; i++)
        if (!strcmp(l->d[i].name, name))
            return &l->d[i];
    return NULL;
}

struct nvb__dev *nvb__devlist_find_majmin(const struct nvb__devlist *l, const char *mm)
{
    for (unsigned i = 0; i < l->n; i++)
        if (l->d[i].majmin[0] && !strcmp(l->d[i].majmin, mm))
            return &l->d[i];
    return NULL;
}

void nvb__devlist_free(struct nvb__devlist *l)
{
    for (unsigned i = 0; i < l->n; i++) {
        struct nvb__dev *d = &l->d[i];
        nvb__strv_free(&d->partitions);
        nvb__strv_free(&d->holders);
        nvb__strv_free(&d->slaves);
        for (unsigned m = 0; m < d->nmounts; m++) {
            free(d->mounts[m].point);
            free(d->mounts[m].fstype);
            free(d->mounts[m].source);
        }
        free(d->mounts);
        if (d->nvme) {
            nvb__strv_free(&d->nvme->paths);
            free(d->nvme->ctrl);
            free(d->nvme);
        }
    }
    free(l->d);
    nvb__strv_free(&l->swapfiles);
    memset(l, 0, sizeof *l);
}
