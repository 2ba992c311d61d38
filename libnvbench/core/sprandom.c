/*
 * Random preconditioning with planned invalidation: the plan's arithmetic
 * and the generator of its writes (core/sprandom.h says what they are).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sprandom.h"

/* ---- the model ----
 * Greedy garbage collection picks the least valid erase block; at steady
 * state its validity is 1 - 1/WA, with WA ~ 0.5 / op + 0.7 for
 * over-provisioning op (the usual approximation of Desnoyers' exact
 * formula). Between that validity and 1 the model takes m levels evenly
 * spaced; at each, the share of the drive is proportional to 1/validity (the
 * product of the two is constant). Regions are equal shares of the drive:
 * region r's validity is the level found at the r-th of m evenly spaced
 * points of the cumulated shares, interpolated linearly, region 0 (the
 * oldest written) at the least valid end. */
static int model(double *inv, unsigned m, double op)
{
    const double wa = 0.5 / op + 0.7, vgc = 1.0 - 1.0 / wa;
    double *v = malloc(m * sizeof *v), *x = malloc(m * sizeof *x);
    if (!v || !x) {
        free(v);
        free(x);
        return -ENOMEM;
    }
    double acc = 0;
    for (unsigned i = 0; i < m; i++) {
        v[i] = 1.0 - (1.0 - vgc) * i / (m - 1);
        acc += 1.0 / v[i];
        x[i] = acc;
    }
    unsigned seg = 0; /* the segment [x[seg], x[seg + 1]] holding the point */
    for (unsigned k = 0; k < m; k++) {
        const double at = x[0] + (x[m - 1] - x[0]) * k / (m - 1);
        while (seg + 2 < m && x[seg + 1] < at)
            seg++;
        const double span = x[seg + 1] - x[seg];
        double val = span > 0 ? v[seg] + (v[seg + 1] - v[seg]) * (at - x[seg]) / span : v[seg];
        if (at >= x[m - 1])
            val = v[m - 1];
        inv[m - 1 - k] = 1.0 - val; /* the least valid point is region 0 */
    }
    free(v);
    free(x);
    return 0;
}

double nvb__spr_model_invalid(unsigned r, unsigned regions, double op)
{
    double *inv = regions >= 2 && r < regions ? malloc(regions * sizeof *inv) : NULL;
    if (!inv || model(inv, regions, op) < 0) {
        free(inv);
        return NAN;
    }
    double out = inv[r];
    free(inv);
    return out;
}

uint64_t nvb__spr_region_writes(const struct nvb__spr_plan *pl, unsigned r)
{
    return r + 1 < pl->regions ? pl->per_region : pl->total - (uint64_t)(pl->regions - 1) * pl->per_region;
}

/* ---- the plan ---- */

struct share {
    double frac;
    unsigned r;
};

static int by_frac_desc(const void *a, const void *b)
{
    const struct share *x = a, *y = b;
    return x->frac < y->frac ? 1 : x->frac > y->frac ? -1 : (x->r > y->r) - (x->r < y->r);
}

/* k_r: the rewrites past the logical blocks (total - n) shared out in
 * proportion to the model's invalid writes of each region, rounded by
 * largest remainder so that they add up exactly. The last region's writes
 * stay valid (nothing comes after it). */
static int apportion(struct nvb__spr_plan *pl, const double *inv)
{
    const unsigned m = pl->regions;
    const uint64_t extra = pl->total - pl->n;
    struct share *sh = malloc(m * sizeof *sh);
    if (!sh)
        return -ENOMEM;
    double sum = 0;
    for (unsigned r = 0; r + 1 < m; r++)
        sum += inv[r] * (double)nvb__spr_region_writes(pl, r);
    uint64_t given = 0;
    for (unsigned r = 0; r < m; r++) {
        const double want = r + 1 < m && sum > 0 ? (double)extra * inv[r] * (double)nvb__spr_region_writes(pl, r) / sum : 0;
        pl->k[r] = (uint64_t)floor(want);
        if (given + pl->k[r] > extra) /* rounding of a huge plan: never more than the extra writes */
            pl->k[r] = extra - given;
        given += pl->k[r];
        sh[r] = (struct share){want - floor(want), r};
    }
    qsort(sh, m, sizeof *sh, by_frac_desc);
    for (unsigned i = 0; given < extra && sum > 0; i = (i + 1) % m)
        if (sh[i].r + 1 < m) { /* the last region keeps its writes valid */
            pl->k[sh[i].r]++;
            given++;
        }
    free(sh);
    return 0;
}

static int plan_fail(struct nvb__spr_plan *pl, int rc, char *why, size_t wl, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int plan_fail(struct nvb__spr_plan *pl, int rc, char *why, size_t wl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, wl, fmt, ap);
    va_end(ap);
    nvb__spr_plan_free(pl);
    return rc;
}

/* Every region's rewrites fit in the next region, and with a cache, a
 * block's rewrite comes at least cache bytes of other writes after it. */
static int plan_fits(struct nvb__spr_plan *pl, uint64_t bs, uint64_t cache, char *why, size_t wl)
{
    for (unsigned r = 0; r + 1 < pl->regions; r++) {
        const uint64_t next = nvb__spr_region_writes(pl, r + 1);
        pl->kmax = pl->k[r] > pl->kmax ? pl->k[r] : pl->kmax;
        if (pl->k[r] > next || pl->k[r] > nvb__spr_region_writes(pl, r))
            return plan_fail(pl, -EINVAL, why, wl, "sprandom.op: region %u's %" PRIu64 " rewrites do not fit in "
                             "the %" PRIu64 " writes of the next region (fewer sprandom.regions, or a smaller op)",
                             r, pl->k[r], next);
        if (cache && (next - pl->k[r]) * bs < cache)
            return plan_fail(pl, -EINVAL, why, wl, "sprandom.cache=%" PRIu64 ": a rewrite would come only %" PRIu64
                             " bytes after the block it overwrites (regions of %" PRIu64 " bytes, %" PRIu64
                             " of them rewrites): set fewer sprandom.regions or a smaller cache",
                             cache, (next - pl->k[r]) * bs, next * bs, pl->k[r] * bs);
    }
    return 0;
}

int nvb__spr_plan(struct nvb__spr_plan *pl, uint64_t len, uint64_t bs, double op, unsigned regions,
                  uint64_t cache, char *why, size_t wl)
{
    memset(pl, 0, sizeof *pl);
    if (!(op > 0 && op < 1))
        return plan_fail(pl, -EINVAL, why, wl, "sprandom.op=%g: the over-provisioning must be above 0 and below 1",
                         op);
    if (regions < 2 || regions > NVB__SPR_MAX_REGIONS)
        return plan_fail(pl, -EINVAL, why, wl, "sprandom.regions=%u: must be 2 to %u (a region's invalid blocks "
                         "are rewritten in the next)", regions, NVB__SPR_MAX_REGIONS);
    if (!bs || len / bs == 0)
        return plan_fail(pl, -EINVAL, why, wl, "sprandom: the region of %" PRIu64 " bytes holds no block of %"
                         PRIu64 " bytes", len, bs);
    /* the physical size, as fio computes it: len + ceil(len x op), whole blocks */
    const double extra = ceil((double)len * op);
    uint64_t phys = len + (uint64_t)extra;
    phys -= phys % bs;
    pl->n = len / bs;
    pl->total = phys / bs;
    pl->regions = regions;
    pl->defer = cache > 0;
    pl->per_region = phys / regions / bs;
    if (pl->per_region == 0)
        return plan_fail(pl, -EINVAL, why, wl, "sprandom.regions=%u: more regions than the %" PRIu64 " writes of "
                         "%" PRIu64 " bytes the plan has", regions, pl->total, bs);
    if (pl->total < pl->n) /* len not a multiple of bs and op tiny: the tail block is left out */
        pl->total = pl->n;
    double *inv = malloc(regions * sizeof *inv);
    pl->k = calloc(regions, sizeof *pl->k);
    int rc = inv && pl->k ? model(inv, regions, op) : -ENOMEM;
    if (rc == 0)
        rc = apportion(pl, inv);
    free(inv);
    if (rc < 0)
        return plan_fail(pl, rc, why, wl, "sprandom: out of memory for a plan of %u regions", regions);
    return plan_fits(pl, bs, cache, why, wl);
}

void nvb__spr_plan_free(struct nvb__spr_plan *pl)
{
    free(pl->k);
    pl->k = NULL;
}

/* ---- the generator ---- */

struct nvb__spr *nvb__spr_new(struct nvb__spr_plan *pl, uint64_t seed)
{
    struct nvb__spr *s = calloc(1, sizeof *s);
    uint64_t cap = 2 * pl->kmax + 1;
    uint64_t *ring = s ? malloc(cap * sizeof *ring) : NULL;
    if (!ring) {
        free(s);
        nvb__spr_plan_free(pl);
        return NULL;
    }
    s->pl = *pl;
    s->ring = ring;
    s->cap = cap;
    s->key = seed ^ 0x7f4a7c159e3779b9ull;
    s->rng = seed ^ 0x94d049bb133111ebull;
    nvb__perm_init(&s->order, s->pl.n, s->key);
    s->picks_left = s->pl.k[0];
    return s;
}

void nvb__spr_free(struct nvb__spr *s)
{
    if (!s)
        return;
    nvb__spr_plan_free(&s->pl);
    free(s->ring);
    free(s);
}

/* The next region; after the last, the plan again in another order. */
static void next_region(struct nvb__spr *s)
{
    s->pos = 0;
    if (++s->r == s->pl.regions) {
        s->r = 0;
        s->fresh = 0;
        s->head = s->len = 0;
        nvb__perm_init(&s->order, s->pl.n, s->key + ++s->pass * 0x9e3779b97f4a7c15ull);
    }
    s->picks_left = s->pl.k[s->r];
}

void nvb__spr_unget(struct nvb__spr *s)
{
    s->again = 1;
}

uint64_t nvb__spr_next(struct nvb__spr *s)
{
    if (s->again) {
        s->again = 0;
        return s->last;
    }
    uint64_t w = nvb__spr_region_writes(&s->pl, s->r);
    if (s->pos == w) {
        next_region(s);
        w = nvb__spr_region_writes(&s->pl, s->r);
    }
    const uint64_t rew = s->r ? s->pl.k[s->r - 1] : 0;
    const int is_rew = s->pl.defer ? s->pos >= w - rew : s->pos < rew;
    uint64_t blk;
    if (is_rew && s->len) {
        blk = s->ring[s->head];
        s->head = s->head + 1 == s->cap ? 0 : s->head + 1;
        s->len--;
    } else {
        blk = nvb__perm_apply(&s->order, s->fresh++ % s->pl.n);
    }
    /* selection sampling: exactly k_r of the region's writes are picked,
     * each set of k_r alike */
    const uint64_t left = w - s->pos;
    if (s->picks_left && (uint64_t)(((unsigned __int128)nvb__splitmix64(&s->rng) * left) >> 64) < s->picks_left) {
        uint64_t at = s->head + s->len;
        s->ring[at >= s->cap ? at - s->cap : at] = blk;
        s->len++;
        s->picks_left--;
    }
    s->pos++;
    s->last = blk;
    return blk;
}
