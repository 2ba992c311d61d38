/*
 * zbd.c - emulated zones (zone_mode=zbd; docs/zoned.md says what is
 * emulated and how it differs from a ZNS or SMR drive).
 *
 * A target's region is cut into zones of zone_size from its offset (a
 * multiple of zone_size: zones start at the target's offset 0), its length
 * rounded down to whole zones (with a warning, as fio does). Each zone
 * has a write pointer, the bytes written from its start, which the run
 * keeps for all its jobs on that target; every zone starts empty, as fio's
 * emulation on a file or a block device that is not zoned does. The
 * pointers are nvbench's bookkeeping only: nothing is sent to the target
 * to open, close or reset a zone.
 *
 * Per I/O (nvb__zbd_place, under the target's lock):
 * - a write goes at the pointer of the zone its offset falls in (with
 *   max_open_zones, of a zone of the open set when that one is not in it
 *   and the set is full); a zone whose capacity left is below bs is reset
 *   (its pointer back to its start) before the write, and so is the zone
 *   about to be written every 1/zone_reset_frequency writes once the data
 *   below the pointers reaches zone_reset_threshold of the region;
 * - a read goes below its zone's pointer, into another zone holding data
 *   when its own holds none (the next one for sequential reads, the
 *   nearest for random ones); with no data anywhere the job's I/O ends;
 * - a trim resets its zone (a random one a zone holding data) and is sent
 *   to the target as a discard.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/zbd.h"

struct zones {                  /* one target's */
    struct nvb__mutex *mu;
    uint64_t base, len;         /* the region: its offset (a zone's start) and length */
    uint64_t zsize, zcap, nz;   /* zone size, capacity, whole zones in the region */
    uint64_t *wp;               /* bytes written in each zone (0 .. zcap) */
    uint32_t *open;             /* max_open_zones: the zones taking writes */
    uint8_t  *is_open;
    unsigned nopen, max_open;
    uint64_t valid;             /* the sum of wp: data below the pointers */
    uint64_t write_cnt;         /* writes before the next reset over the threshold */
    uint64_t cnt_init;          /* 1 / zone_reset_frequency (0: no such resets) */
    uint64_t threshold;         /* valid bytes from which they happen */
    uint32_t bs;
    int      rbwp;              /* read_beyond_wp */
};

struct nvb__zbd {
    unsigned nt;
    struct zones t[];
};

/* ------------------------------------------------------------------ plan */

#define FAIL(rc, ...) do { snprintf(err, errlen, __VA_ARGS__); return (rc); } while (0)

/* A block device's queue/zoned (the device's own, or its disk's for a
 * partition): "none" for a device that is not zoned, "" when unknown. */
static void zoned_model(const char *dev, char *out, size_t len)
{
    char rel[160];
    snprintf(rel, sizeof rel, "/sys/class/block/%s/queue/zoned", dev);
    if (nvb__text_read(NULL, rel, out, len) < 0) {
        snprintf(rel, sizeof rel, "/sys/class/block/%s/../queue/zoned", dev);
        if (nvb__text_read(NULL, rel, out, len) < 0)
            out[0] = 0;
    }
    out[strcspn(out, "\n")] = 0;
}

/* files: the engine opens the target (the null engine opens nothing, its
 * region alone is cut into zones) */
static int zbd_plan_target(const struct nvb_workload *w, struct plan *p, struct ptarget *t, int files, char *err,
                           size_t errlen)
{
    char model[32];
    if (files && t->ti.kind == NVB__T_CHAR)
        FAIL(-EOPNOTSUPP, "zone_mode=zbd on '%s': a character device (NVMe passthrough) would need real zone "
             "commands (report, reset, append), which nvbench does not send yet", t->path);
    if (files && t->ti.kind == NVB__T_BLOCK && t->ti.dev[0]) {
        zoned_model(t->ti.dev, model, sizeof model);
        if (model[0] && strcmp(model, "none") != 0)
            FAIL(-EOPNOTSUPP, "zone_mode=zbd on '%s': it is a zoned block device (queue/zoned '%s'); nvbench "
                 "emulates zones on devices and files that are not zoned, and does not yet report or reset the "
                 "zones of a real one (writes off its write pointers would fail)", t->path, model);
    }
    if (t->off % w->zone_size)
        FAIL(-EINVAL, "zone_mode=zbd: the region of '%s' starts at offset %" PRIu64 ", not a multiple of "
             "zone_size '%" PRIu64 "' (zones start at the target's offset 0)", t->path, t->off, w->zone_size);
    if (t->len < w->zone_size)
        FAIL(-EINVAL, "zone_mode=zbd: the region of '%s' (%" PRIu64 " bytes) holds no whole zone of zone_size '%"
             PRIu64 "'", t->path, t->len, w->zone_size);
    if (t->len % w->zone_size) { /* as fio rounds a zoned job's io_size down to whole zones */
        nvb__plan_warn(p, "zone_mode=zbd: the region of '%s' rounded down from %" PRIu64 " to %" PRIu64 " bytes, its "
                       "whole zones of zone_size %" PRIu64, t->path, t->len, t->len - t->len % w->zone_size,
                       w->zone_size);
        t->len -= t->len % w->zone_size;
    }
    if (files && w->direct && t->ti.lbs > 1 && (w->zone_size % t->ti.lbs || w->zone_capacity % t->ti.lbs))
        FAIL(-EINVAL, "zone_mode=zbd with direct=1: zone_size '%" PRIu64 "' and zone_capacity '%" PRIu64 "' must be "
             "multiples of the logical block size of '%s' (%" PRIu32 ")", w->zone_size, w->zone_capacity, t->path,
             t->ti.lbs);
    return 0;
}

/* io_limit of a sequential write with zone_capacity: the bytes skipped past
 * each zone's capacity count as done, as fio counts them (fio 3.33: size=8M
 * with 1 MiB zones of 512 KiB capacity, bs=256k, wrote 16 blocks). */
static void zbd_budget(const struct nvb_workload *w, struct plan *p)
{
    if (!w->io_limit || !w->zone_capacity || w->zone_capacity == w->zone_size || w->rw != NVB__RW_WRITE)
        return;
    const uint64_t per = w->zone_capacity / w->bs, rem = (w->io_limit % w->zone_size) / w->bs;
    p->ios_total = w->io_limit / w->zone_size * per + (rem < per ? rem : per);
}

int nvb__zbd_plan(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    if (w->zone_mode != NVB__ZONE_ZBD) {
        if (w->zone_capacity || w->max_open_zones || w->zone_reset_frequency || w->read_beyond_wp)
            FAIL(-EINVAL, "zone_capacity, max_open_zones, zone_reset_* and read_beyond_wp need zone_mode=zbd "
                 "(zone_size alone is a sequential job's zones of offsets, core/offpat.h)");
        return 0;
    }
    if (w->zone_size < 512 || w->zone_size % 512)
        FAIL(-EINVAL, "zone_mode=zbd needs zone_size, a multiple of 512 bytes (got '%" PRIu64 "'): nvbench emulates "
             "zones on targets that are not zoned, where fio needs it too", w->zone_size);
    if (w->zone_capacity > w->zone_size)
        FAIL(-EINVAL, "zone_capacity '%" PRIu64 "' is larger than zone_size '%" PRIu64 "'", w->zone_capacity,
             w->zone_size);
    if (w->zone_capacity % 512)
        FAIL(-EINVAL, "zone_capacity '%" PRIu64 "' is not a multiple of 512 bytes", w->zone_capacity);
    uint64_t cap = w->zone_capacity ? w->zone_capacity : w->zone_size;
    if (w->bs > cap)
        FAIL(-EINVAL, "zone_mode=zbd: bs '%" PRIu64 "' is larger than a zone's capacity (%" PRIu64 " bytes)", w->bs,
             cap);
    if (w->bssplit.set)
        FAIL(-EINVAL, "zone_mode=zbd with bssplit: nvbench's zones take one block size (bs)");
    if ((nvb__rw_trims(w->rw) || w->rwmixtrim) && w->bs != w->zone_size)
        FAIL(-EINVAL, "zone_mode=zbd: a trim resets a whole zone, so bs '%" PRIu64 "' must be zone_size '%" PRIu64
             "'", w->bs, w->zone_size);
    if (w->verify && p->writes && (w->rw != NVB__RW_WRITE || w->jobs > 1 || w->zone_capacity))
        FAIL(-EINVAL, "zone_mode=zbd with verify=1: only rw=write by one job over whole zones (no zone_capacity), "
             "where each block is written where it would be without zones; a zone reset or a write moved to a "
             "pointer would overwrite blocks the check expects");
    if (w->zone_reset_frequency && !w->zone_reset_threshold)
        FAIL(-EINVAL, "zone_reset_frequency '%g' needs zone_reset_threshold above 0", w->zone_reset_frequency);
    const int files = !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES);
    for (unsigned i = 0; i < p->nt; i++) {
        int rc = zbd_plan_target(w, p, &p->t[i], files, err, errlen);
        if (rc < 0)
            return rc;
    }
    zbd_budget(w, p);
    return 0;
}

/* ------------------------------------------------------------------ state */

void nvb__zbd_free(struct nvb__zbd *z)
{
    if (!z)
        return;
    for (unsigned i = 0; i < z->nt; i++) {
        if (z->t[i].mu)
            nvb__mutex_free(z->t[i].mu);
        free(z->t[i].wp);
        free(z->t[i].open);
        free(z->t[i].is_open);
    }
    free(z);
}

static int zones_init(struct zones *s, const struct nvb_workload *w, const struct ptarget *pt)
{
    s->base = pt->off;
    s->zsize = w->zone_size;
    s->zcap = w->zone_capacity ? w->zone_capacity : w->zone_size;
    s->nz = pt->len / w->zone_size;
    s->len = pt->len;
    s->bs = (uint32_t)w->bs;
    s->rbwp = w->read_beyond_wp;
    s->max_open = w->max_open_zones && w->max_open_zones < s->nz ? w->max_open_zones : 0;
    if (w->zone_reset_frequency > 0) {
        double n = 1.0 / w->zone_reset_frequency;
        s->cnt_init = n < 4e18 ? (uint64_t)n : UINT64_MAX;
        s->write_cnt = s->cnt_init;
        s->threshold = (uint64_t)((double)(s->nz * s->zsize) * w->zone_reset_threshold);
    }
    s->wp = calloc(s->nz ? s->nz : 1, sizeof *s->wp);
    if (s->max_open) {
        s->open = calloc(s->max_open, sizeof *s->open);
        s->is_open = calloc(s->nz, 1);
    }
    if (!s->wp || (s->max_open && (!s->open || !s->is_open)))
        return -ENOMEM;
    return nvb__mutex_new(&s->mu);
}

int nvb__zbd_new(struct run *r)
{
    const struct plan *p = r->p;
    struct nvb__zbd *z = calloc(1, sizeof *z + p->nt * sizeof z->t[0]);
    if (!z)
        return -ENOMEM;
    z->nt = p->nt;
    for (unsigned i = 0; i < p->nt; i++) {
        int rc = zones_init(&z->t[i], r->w, &p->t[i]);
        if (rc < 0) {
            nvb__zbd_free(z);
            return rc;
        }
    }
    r->zbd = z;
    return 0;
}

/* ------------------------------------------------------------------ per I/O */

static void zone_reset(struct zones *s, uint64_t k, uint64_t *resets)
{
    if (!s->wp[k])
        return; /* an empty zone: nothing to reset, none counted (as fio) */
    s->valid -= s->wp[k];
    s->wp[k] = 0;
    (*resets)++;
}

/* The zone whose bytes [rel, rel + bs) of the region fall in. */
static uint64_t zone_of(const struct zones *s, uint64_t rel)
{
    uint64_t k = rel / s->zsize;
    return k < s->nz ? k : s->nz - 1;
}

/* max_open_zones: the zone a write to zone k goes to: k when it is open or
 * the set has room (it joins), else one of the set, by where the offset
 * lies in the region (so that random offsets spread over the set). */
static uint64_t open_zone(struct zones *s, uint64_t k, uint64_t rel)
{
    if (s->is_open[k])
        return k;
    if (s->nopen < s->max_open) {
        s->is_open[k] = 1;
        s->open[s->nopen++] = (uint32_t)k;
        return k;
    }
    return s->open[(unsigned)((unsigned __int128)rel * s->nopen / s->len)];
}

static void close_zone(struct zones *s, uint64_t k)
{
    for (unsigned i = 0; i < s->nopen; i++)
        if (s->open[i] == k) {
            s->open[i] = s->open[--s->nopen];
            s->is_open[k] = 0;
            return;
        }
}

/* A write: at the pointer of its zone (or the open set's), reset first when
 * full or when the threshold's countdown says so. Returns the zone. */
static uint64_t zone_write(struct zones *s, struct nvb__io *io, uint64_t rel, uint64_t *resets)
{
    uint64_t k = zone_of(s, rel);
    if (s->max_open)
        k = open_zone(s, k, rel);
    if (s->cnt_init && s->valid >= s->threshold && --s->write_cnt == 0) {
        s->write_cnt = s->cnt_init;
        zone_reset(s, k, resets);
    }
    if (s->zcap - s->wp[k] < s->bs)
        zone_reset(s, k, resets);
    io->off = s->base + k * s->zsize + s->wp[k];
    s->wp[k] += s->bs;
    s->valid += s->bs;
    if (s->max_open && s->zcap - s->wp[k] < s->bs)
        close_zone(s, k); /* full: it leaves the set, another zone may join */
    return k;
}

/* A zone holding at least need bytes below its pointer: k itself, else the
 * next ones (sequential: wrapping to the first), or the nearest on either
 * side (random). -1: none. */
static int64_t zone_with_data(const struct zones *s, uint64_t k, uint64_t need, int rnd)
{
    if (s->wp[k] >= need)
        return (int64_t)k;
    for (uint64_t d = 1; d < s->nz; d++) {
        if (!rnd) {
            uint64_t n = (k + d) % s->nz;
            if (s->wp[n] >= need)
                return (int64_t)n;
            continue;
        }
        if (k + d < s->nz && s->wp[k + d] >= need)
            return (int64_t)(k + d);
        if (d <= k && s->wp[k - d] >= need)
            return (int64_t)(k - d);
    }
    return -1;
}

/* A read below the pointers: in its zone when it holds the block (random:
 * its block folded into the zone's data), else in a zone with data. */
static int64_t zone_read(struct zones *s, struct nvb__io *io, uint64_t rel, int rnd)
{
    uint64_t k = zone_of(s, rel), in = rel - k * s->zsize;
    if (!rnd && in + s->bs <= s->wp[k])
        return (int64_t)k; /* where it would go anyway */
    int64_t n = zone_with_data(s, rnd ? k : (k + 1) % s->nz, s->bs, rnd);
    if (n < 0)
        return -1;
    uint64_t blocks = s->wp[n] / s->bs;
    io->off = s->base + (uint64_t)n * s->zsize + (rnd ? (in / s->bs) % blocks * s->bs : 0);
    return n;
}

/* The block after io in the region for a sequential job: the next zone's
 * start once io's zone has no capacity left (fio skips what lies beyond a
 * zone's capacity), wrapping to the region's start. */
static uint64_t next_block(const struct zones *s, const struct nvb__io *io, uint64_t k, uint64_t nblocks)
{
    uint64_t end = io->off + io->len - s->base, zend = k * s->zsize + s->zcap;
    if (zend - (end < zend ? end : zend) < s->bs)
        end = (k + 1) * s->zsize;
    end /= s->bs;
    return end < nblocks ? end : 0;
}

int nvb__zbd_place(struct nvb__zbd *z, unsigned pt, struct nvb__io *io, int rnd, uint64_t region_off,
                   uint64_t *seqpos, uint64_t nblocks, uint64_t *resets)
{
    struct zones *s = &z->t[pt];
    if (io->dir == NVB_READ && s->rbwp)
        return 0;
    const uint64_t rel = io->off - region_off;
    int64_t k;
    nvb__mutex_lock(s->mu);
    if (io->dir == NVB_WRITE) {
        k = (int64_t)zone_write(s, io, rel, resets);
    } else if (io->dir == NVB_READ) {
        k = zone_read(s, io, rel, rnd);
    } else { /* a trim: its zone (random: one with data) reset */
        k = zone_with_data(s, zone_of(s, rel), rnd ? 1 : 0, rnd);
        if (k >= 0) {
            io->off = s->base + (uint64_t)k * s->zsize;
            zone_reset(s, (uint64_t)k, resets);
        }
    }
    if (k >= 0 && !rnd)
        *seqpos = next_block(s, io, (uint64_t)k, nblocks);
    nvb__mutex_unlock(s->mu);
    return k < 0 ? -1 : 0;
}
