/*
 * What uses a device, as the kernel lists it: mounts come from
 * <proc>/self/mountinfo by device number, swap from <proc>/swaps by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"

/* mountinfo and swaps escape blanks and backslashes as \ooo. */
static void unescape(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
            p[3] <= '7') {
            *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
}

static int add_mount(struct nvb__dev *d, const char *point, const char *fstype, const char *source)
{
    struct nvb__mount *m = realloc(d->mounts, (d->nmounts + 1) * sizeof *m);
    if (!m)
        return -ENOMEM;
    d->mounts = m;
    m = &m[d->nmounts];
    m->point = nvb__strdup(point);
    m->fstype = nvb__strdup(fstype);
    m->source = nvb__strdup(source);
    if (!m->point || !m->fstype || !m->source) {
        free(m->point);
        free(m->fstype);
        free(m->source);
        return -ENOMEM;
    }
    d->nmounts++;
    return 0;
}

int nvb__read_mounts(const struct nvb__devctx *c, struct nvb__devlist *l)
{
    if (!c->proc[0])
        return 0;
    char p[NVB__DEV_PATH + 32];
    snprintf(p, sizeof p, "%s/self/mountinfo", c->proc);
    FILE *f = fopen(p, "re");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        /* id parent maj:min root point options [optional...] - fstype source super */
        char *save = NULL, *fld[6] = {0};
        char *t = strtok_r(line, " \n", &save);
        for (int i = 0; t && i < 6; i++) {
            fld[i] = t;
            t = i < 5 ? strtok_r(NULL, " \n", &save) : NULL;
        }
        if (!fld[4])
            continue;
        while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-"))
            ;
        char *fstype = t ? strtok_r(NULL, " \n", &save) : NULL;
        char *source = fstype ? strtok_r(NULL, " \n", &save) : NULL;
        if (!source)
            continue;
        unescape(fld[4]);
        unescape(source);
        struct nvb__dev *d = nvb__devlist_find_majmin(l, fld[2]);
        if (!d && !strncmp(fld[2], "0:", 2) && !strncmp(source, "/dev/", 5)) {
            /* btrfs and others mount with an anonymous device number */
            char name[64];
            if (nvb__dev_resolve(c, l, source, name, sizeof name) == 0)
                d = nvb__devlist_find(l, name);
        }
        if (d)
            rc = add_mount(d, fld[4], fstype, source);
    }
    free(line);
    fclose(f);
    return rc;
}

void nvb__read_swaps(const struct nvb__devctx *c, struct nvb__devlist *l)
{
    if (!c->proc[0])
        return;
    char p[NVB__DEV_PATH + 16];
    snprintf(p, sizeof p, "%s/swaps", c->proc);
    FILE *f = fopen(p, "re");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char file[512], type[32];
        if (sscanf(line, "%511s %31s", file, type) != 2)
            continue;
        unescape(file);
        if (!strcmp(type, "file")) {
            /* a swap file is not a block device, but writing into it is
             * writing into swap (the guard, stack.c) */
            if (nvb__strv_add(&l->swapfiles, file) < 0)
                break;
            continue;
        }
        if (strcmp(type, "partition"))
            continue; /* the header */
        char name[64];
        struct nvb__dev *d = NULL;
        if (nvb__dev_resolve(c, l, file, name, sizeof name) == 0)
            d = nvb__devlist_find(l, name);
        else if (!strncmp(file, "/dev/", 5))
            d = nvb__devlist_find(l, nvb__base(file));
        if (d)
            d->swap = 1;
    }
    fclose(f);
}
