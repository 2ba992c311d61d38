/*
 * What is using a device, as discovery sees it: the names under which its
 * blocks can be in use (its family: disk, partitions, multipath head and
 * paths) and the mounts, holders and swap over them. The guard (guard.c),
 * the storage stack (stack.c) and the JSON (dev_json.c, "busy") all ask
 * here, so none of them depends on another.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "devices/devices.h"

static void fam_add(struct nvb__fam *f, const struct nvb__dev *d, const char *rel)
{
    if (!d)
        return;
    for (unsigned i = 0; i < f->n; i++)
        if (f->m[i].d == d)
            return;
    if (f->n < NVB__MAX_FAMILY) {
        f->m[f->n].d = d;
        f->m[f->n++].rel = rel;
    }
}

static void fam_partitions(struct nvb__fam *f, const struct nvb__devlist *l, const struct nvb__dev *d, const char *rel)
{
    for (unsigned i = 0; i < d->partitions.n; i++)
        fam_add(f, nvb__devlist_find(l, d->partitions.v[i]), rel);
}

void nvb__dev_family(const struct nvb__devlist *l, const struct nvb__dev *d, struct nvb__fam *f)
{
    f->n = 0;
    fam_add(f, d, "");
    const struct nvb__dev *p = d->parent[0] ? nvb__devlist_find(l, d->parent) : NULL;
    fam_add(f, p, "its disk ");
    fam_partitions(f, l, d, "its partition ");
    const struct nvb__nvme *n = d->nvme;
    if (n && !strcmp(n->role, "path")) {
        const struct nvb__dev *h = nvb__devlist_find(l, n->head);
        fam_add(f, h, "its multipath head ");
        if (h)
            fam_partitions(f, l, h, "a partition of its multipath head ");
    }
    if (n && !strcmp(n->role, "head"))
        for (unsigned i = 0; i < n->paths.n; i++)
            fam_add(f, nvb__devlist_find(l, n->paths.v[i]), "its path ");
}

void nvb__msg_put(struct nvb__msg *o, const char *fmt, ...)
{
    if (o->used >= o->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->s + o->used, o->len - o->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->used += (size_t)n < o->len - o->used ? (size_t)n : o->len - o->used - 1;
}

const char *nvb__dev_label(const struct nvb__dev *d) { return d->path[0] ? d->path : d->name; }

/* "dm-0 (vg0-data), mounted on /srv" / "md0 (raid1), held by dm-1 (...)" */
static void describe_holder(struct nvb__msg *o, const struct nvb__devlist *l, const char *name, int depth)
{
    const struct nvb__dev *h = nvb__devlist_find(l, name);
    nvb__msg_put(o, "%s", name);
    if (!h)
        return;
    if (h->dm_name[0])
        nvb__msg_put(o, " (%s)", h->dm_name);
    else if (h->md_level[0])
        nvb__msg_put(o, " (%s)", h->md_level);
    for (unsigned i = 0; i < h->nmounts; i++)
        nvb__msg_put(o, "%s %s", i ? "," : ", mounted on", h->mounts[i].point);
    if (h->swap)
        nvb__msg_put(o, ", active swap");
    if (depth < 4)
        for (unsigned i = 0; i < h->holders.n; i++) {
            nvb__msg_put(o, ", held by ");
            describe_holder(o, l, h->holders.v[i], depth + 1);
        }
}

void nvb__msg_sep(struct nvb__msg *o)
{
    if (o->items++)
        nvb__msg_put(o, "; ");
}

void nvb__dev_busy(const struct nvb__devlist *l, const struct nvb__dev *d, char *s, size_t len)
{
    struct nvb__msg o = {s, len, 0, 0};
    struct nvb__fam f;
    s[0] = 0;
    nvb__dev_family(l, d, &f);
    for (unsigned i = 0; i < f.n; i++) {
        const struct nvb__dev *m = f.m[i].d;
        for (unsigned k = 0; k < m->nmounts; k++) {
            nvb__msg_sep(&o);
            nvb__msg_put(&o, "%s%s is mounted on %s (%s)", f.m[i].rel, nvb__dev_label(m), m->mounts[k].point,
                m->mounts[k].fstype);
        }
        for (unsigned k = 0; k < m->holders.n; k++) {
            nvb__msg_sep(&o);
            nvb__msg_put(&o, "%s%s is held by ", f.m[i].rel, nvb__dev_label(m));
            describe_holder(&o, l, m->holders.v[k], 0);
        }
        if (m->swap) {
            nvb__msg_sep(&o);
            nvb__msg_put(&o, "%s%s is active swap", f.m[i].rel, nvb__dev_label(m));
        }
    }
}
