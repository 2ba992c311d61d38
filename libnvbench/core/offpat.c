/*
 * Offset patterns of sequential I/O (core/offpat.h): a stride between one
 * I/O's end and the next one's start, and zones of the region that the
 * I/O moves through, fio's rw=read:N and zonemode=strided.
 */
#include "core/offpat.h"

#include <errno.h>
#include <stdio.h>

#include "core/internal.h"
#include "core/zbd.h"

int nvb__opat_used(const struct nvb_workload *w)
{
    return w->seq_stride != 0 || (w->zone_size != 0 && w->zone_mode != NVB__ZONE_ZBD); /* zbd's zones: core/zbd.c */
}

int nvb__opat_check(const struct nvb_workload *w, char *err, size_t len)
{
    const char *key = w->seq_stride ? "seq_stride" : "zone_size";
    if (w->zone_mode == NVB__ZONE_ZBD && (w->zone_range || w->zone_skip)) {
        snprintf(err, len, "%s=%llu with zone_mode=zbd: emulated zones cover the whole region, with no range or skip",
                 w->zone_range ? "zone_range" : "zone_skip",
                 (unsigned long long)(w->zone_range ? w->zone_range : w->zone_skip));
        return -EINVAL;
    }
    if (!w->zone_size && (w->zone_range || w->zone_skip)) {
        snprintf(err, len, "%s=%llu without zone_size: zones need their size (bytes done in each)",
                 w->zone_range ? "zone_range" : "zone_skip",
                 (unsigned long long)(w->zone_range ? w->zone_range : w->zone_skip));
        return -EINVAL;
    }
    if (!nvb__opat_used(w))
        return 0;
    const char *why = nvb__rw_random(w->rw) ? "random I/O draws its own offsets"
                      : w->bssplit.set      ? "a bssplit places its own offsets"
                      : w->verify && (w->zone_size || w->seq_stride % (int64_t)w->bs)
                          ? "verify=1 keeps each job to its own stripe of whole blocks: a seq_stride of whole bs only"
                      : w->zone_size && (w->zone_size % w->bs || (w->zone_range && w->zone_range % w->bs))
                          ? "zone_size and zone_range must be multiples of bs"
                          : NULL;
    if (!why)
        return 0;
    snprintf(err, len, "%s with rw=%s%s: only sequential I/O of one block size follows an offset pattern (%s)", key,
             nvb__rw_name(w->rw), w->bssplit.set ? " and bssplit" : w->verify ? " and verify=1" : "", why);
    return -EINVAL;
}

void nvb__opat_init(struct nvb__opat *p, const struct nvb_workload *w, uint64_t len, uint64_t first)
{
    *p = (struct nvb__opat){
        .len = len, .bs = w->bs, .stride = w->seq_stride, .zsize = w->zone_size,
        .zrange = w->zone_range ? w->zone_range : w->zone_size, .zskip = w->zone_skip,
        .last = NVB__OPAT_NONE, .first = first,
    };
}

/* The window [*ws, *we) the next I/O stays in: the zone, or the region.
 * A zone done (zone_size bytes issued) gives way to the next one. */
static void opat_window(struct nvb__opat *p, uint64_t *ws, uint64_t *we)
{
    *ws = 0;
    *we = p->len;
    if (!p->zsize)
        return;
    if (p->zbytes >= p->zsize) {
        p->zbytes = 0;
        p->zstart += p->zrange + p->zskip;
        if (p->zstart >= p->len || p->len - p->zstart < p->bs)
            p->zstart = 0;
        p->last = NVB__OPAT_NONE;
    }
    *ws = p->zstart;
    *we = p->len - p->zstart > p->zrange ? p->zstart + p->zrange : p->len;
    if (p->last != NVB__OPAT_NONE && p->last >= *we) /* a zone smaller than zone_size: again from its start */
        p->last = *ws;
}

uint64_t nvb__opat_next(struct nvb__opat *p)
{
    uint64_t ws, we, off;
    if (p->last == NVB__OPAT_NONE && !p->zsize) {
        off = p->first;
    } else {
        opat_window(p, &ws, &we);
        if (p->last == NVB__OPAT_NONE || p->last == ws) {
            off = ws; /* a window's first I/O is at its start, as fio's */
        } else {
            /* the stride's wrap: forward to the window's start; backward to
             * its end plus the stride (fio never reads the window's last
             * block then), or its start when that does not fit */
            const int64_t pos = (int64_t)p->last + p->stride;
            if (pos >= (int64_t)ws && (uint64_t)pos + p->bs <= we)
                off = (uint64_t)pos;
            else if (p->stride < 0 && (int64_t)we + p->stride >= (int64_t)ws &&
                     (uint64_t)((int64_t)we + p->stride) + p->bs <= we)
                off = (uint64_t)((int64_t)we + p->stride);
            else
                off = ws;
        }
    }
    p->zbytes += p->bs;
    p->last = off + p->bs;
    return off;
}

uint64_t nvb__opat_budget(const struct nvb__opat *p, uint64_t ios)
{
    if (p->stride <= 0 || p->zsize || p->len < p->bs || p->first)
        return ios;
    /* offsets k * step from the start: a pass ends at the I/O that ends at
     * the region's end; when none does, the stride wraps to the start and
     * the same offsets come again until the budget is spent */
    const uint64_t per = p->len / p->bs, step = p->bs + (uint64_t)p->stride;
    if ((p->len - p->bs) % step)
        return ios;
    const uint64_t in_pass = (p->len - p->bs) / step + 1;
    const uint64_t passes = ios / per + (ios % per != 0);
    return passes > ios / in_pass ? ios : passes * in_pass < ios ? passes * in_pass : ios;
}
