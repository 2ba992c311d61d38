/* Block-size mixes: parsing, draw tables, per-size counts (bsmix.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/dist.h"

#define BS_MAX (1ull << 30) /* as the key bs */

static int bad(char *err, size_t errlen, int rc, const char *value, const char *why, const char *item)
{
    snprintf(err, errlen, "invalid value '%s' for key 'bssplit': %s%s%s%s (example: 4k/50:64k/30:128k/20, "
             "or READLIST,WRITELIST)", value, why, item ? " ('" : "", item ? item : "", item ? "')" : "");
    return rc;
}

/* One direction's list "4k/50:64k/30:128k" in s (cut at the ',' already). */
static int parse_dir(const char *value, char *s, struct nvb__bsdir *d, char *err, size_t errlen)
{
    unsigned blanks = 0, sum = 0;
    int given[NVB__BSSPLIT_MAX];
    memset(d, 0, sizeof *d);
    if (!*s)
        return 0; /* this direction uses bs */
    for (char *it = s, *next; it; it = next) {
        if ((next = strchr(it, ':')))
            *next++ = 0;
        if (d->n == NVB__BSSPLIT_MAX)
            return bad(err, errlen, -ERANGE, value, "more than 64 sizes in one direction", NULL);
        char *slash = strchr(it, '/');
        if (slash)
            *slash = 0;
        uint64_t sz, pct = 0;
        int rc = nvb__parse_size(it, &sz);
        if (rc || sz < 1 || sz > BS_MAX)
            return bad(err, errlen, rc == -EINVAL ? -EINVAL : -ERANGE, value,
                       rc == -EINVAL ? "not a size" : "size out of range [1, 1G]", it);
        for (unsigned k = 0; k < d->n; k++)
            if (d->size[k] == sz)
                return bad(err, errlen, -EINVAL, value, "a size listed twice in one direction", it);
        if (slash && slash[1]) {
            rc = nvb__parse_u64(slash + 1, &pct);
            if (rc || pct > 100)
                return bad(err, errlen, rc == -EINVAL ? -EINVAL : -ERANGE, value,
                           "a percentage is an integer in [0, 100]", slash + 1);
        }
        given[d->n] = slash && slash[1];
        blanks += !given[d->n];
        sum += (unsigned)pct;
        d->size[d->n] = (uint32_t)sz;
        d->pct[d->n++] = (uint8_t)pct;
    }
    if (!d->n)
        return bad(err, errlen, -EINVAL, value, "an empty list of sizes", NULL);
    if (sum > 100)
        return bad(err, errlen, -ERANGE, value, "the percentages add up to more than 100", NULL);
    if (!blanks && sum != 100)
        return bad(err, errlen, -EINVAL, value, "the percentages add up to less than 100 (leave one blank to give "
                   "it the rest)", NULL);
    unsigned left = 100 - sum, share = blanks ? left / blanks : 0, extra = blanks ? left % blanks : 0;
    for (unsigned k = 0; k < d->n; k++)
        if (!given[k]) {
            d->pct[k] = (uint8_t)(share + (extra ? 1 : 0));
            extra -= extra ? 1 : 0;
        }
    return 0;
}

int nvb__bssplit_parse(const char *value, struct nvb__bssplit *out, char *err, size_t errlen)
{
    struct nvb__bssplit s;
    memset(&s, 0, sizeof s);
    if (strlen(value) >= sizeof s.text)
        return bad(err, errlen, -EINVAL, value, "longer than 255 characters", NULL);
    strcpy(s.text, value);
    if (!*value) { /* "": no split, bs alone */
        *out = s;
        return 0;
    }
    char buf[sizeof s.text];
    strcpy(buf, value);
    char *comma = strchr(buf, ',');
    if (comma) {
        *comma = 0;
        if (strchr(comma + 1, ','))
            return bad(err, errlen, -EINVAL, value, "a third (trim) list is not supported: READLIST,WRITELIST", NULL);
    }
    int rc = parse_dir(value, buf, &s.d[0], err, errlen);
    if (!rc && comma)
        rc = parse_dir(value, comma + 1, &s.d[1], err, errlen);
    if (rc)
        return rc;
    if (!comma)
        s.d[1] = s.d[0];
    if (!s.d[0].n && !s.d[1].n)
        return bad(err, errlen, -EINVAL, value, "no sizes", NULL);
    s.set = 1;
    *out = s;
    return 0;
}

void nvb__bssplit_dir(const struct nvb__bssplit *s, int d, uint64_t bs, struct nvb__bsdir *out)
{
    if (s && s->set && s->d[d].n) {
        *out = s->d[d];
        return;
    }
    memset(out, 0, sizeof *out);
    out->n = 1;
    out->size[0] = (uint32_t)bs;
    out->pct[0] = 100;
}

void nvb__bssplit_table(const struct nvb__bsdir *dir, uint8_t pick[100])
{
    unsigned i = 0;
    for (unsigned k = 0; k < dir->n; k++)
        for (unsigned p = 0; p < dir->pct[k] && i < 100; p++)
            pick[i++] = (uint8_t)k;
}

static uint64_t bs_edge(const struct nvb__bssplit *s, uint64_t bs, int reads, int writes, int want_max)
{
    uint64_t v = 0;
    for (int d = 0; d < 2; d++) {
        if (!(d ? writes : reads))
            continue;
        struct nvb__bsdir x;
        nvb__bssplit_dir(s, d, bs, &x);
        for (unsigned k = 0; k < x.n; k++)
            if (!v || (want_max ? x.size[k] > v : x.size[k] < v))
                v = x.size[k];
    }
    return v ? v : bs;
}

uint64_t nvb__bs_min(const struct nvb__bssplit *s, uint64_t bs, int reads, int writes)
{
    return bs_edge(s, bs, reads, writes, 0);
}

uint64_t nvb__bs_max(const struct nvb__bssplit *s, uint64_t bs, int reads, int writes)
{
    return bs_edge(s, bs, reads, writes, 1);
}

int nvb__bsc_add(struct nvb__bscount **dst, uint64_t size, uint64_t count)
{
    struct nvb__bscount *c = *dst;
    if (!c && !(c = *dst = calloc(1, sizeof *c)))
        return -ENOMEM;
    unsigned k = 0;
    while (k < c->n && c->size[k] < size)
        k++;
    if (k < c->n && c->size[k] == size) {
        if (c->count[k] > UINT64_MAX - count)
            return -EOVERFLOW;
        c->count[k] += count;
        return 0;
    }
    if (c->n == NVB__BSC_MAX)
        return -EOVERFLOW;
    memmove(&c->size[k + 1], &c->size[k], (c->n - k) * sizeof c->size[0]);
    memmove(&c->count[k + 1], &c->count[k], (c->n - k) * sizeof c->count[0]);
    c->size[k] = size;
    c->count[k] = count;
    c->n++;
    return 0;
}

int nvb__bsc_merge(struct nvb__bscount **dst, const struct nvb__bscount *src)
{
    for (unsigned k = 0; src && k < src->n; k++) {
        int rc = nvb__bsc_add(dst, src->size[k], src->count[k]);
        if (rc)
            return rc;
    }
    return 0;
}

int nvb__bsmix_plan(const struct nvb_workload *w, int files, char *err, size_t errlen)
{
    const uint64_t least = nvb__bs_min(&w->bssplit, w->bs, 1, 1);
    if (w->blockalign && !w->bssplit.set && w->blockalign != w->bs && nvb__rw_random(w->rw)) {
        snprintf(err, errlen, "blockalign=%" PRIu64 " with bs=%" PRIu64 ": random offsets of one block size are "
                 "whole blocks of bs; blockalign places those of a bssplit", w->blockalign, w->bs);
        return -EINVAL;
    }
    if (!w->bssplit.set)
        return 0;
    if (w->blockalign && w->random_map && w->blockalign != least) {
        snprintf(err, errlen, "blockalign=%" PRIu64 " with random_map=1 and bssplit '%s': the map counts units of "
                 "the smallest size (%" PRIu64 "), so its offsets are multiples of it", w->blockalign,
                 w->bssplit.text, least);
        return -EINVAL;
    }
    if (w->verify && files) {
        snprintf(err, errlen, "bssplit '%s' needs verify=0: verify=1 writes and checks blocks of one size (bs)",
                 w->bssplit.text);
        return -EINVAL;
    }
    if (nvb__rw_trims(w->rw) || w->rwmixtrim) {
        snprintf(err, errlen, "bssplit '%s' with rw=%s%s: a split gives sizes to reads and writes only; trims use bs",
                 w->bssplit.text, nvb__rw_name(w->rw), w->rwmixtrim ? " and rwmixtrim" : "");
        return -EINVAL;
    }
    return 0;
}

int nvb__bsmix_target(const struct nvb_workload *w, uint32_t lbs, uint64_t len, const char *path, const char *needs,
                      char *err, size_t errlen)
{
    char b1[32];
    uint64_t big = nvb__bs_max(&w->bssplit, w->bs, 1, 1);
    if (big > len) {
        snprintf(err, errlen, "%s '%s' is larger than the region of target '%s' (%" PRIu64 " bytes)",
                 w->bssplit.set ? "the largest size of bssplit" : "bs", nvb__fmt_size(big, b1, sizeof b1), path, len);
        return -EINVAL;
    }
    if (needs && w->bssplit.set && w->blockalign % lbs) {
        snprintf(err, errlen, "blockalign=%" PRIu64 " is not a multiple of the logical block size %u of target "
                 "'%s' (%s)", w->blockalign, lbs, path, needs);
        return -EINVAL;
    }
    for (int d = 0; d < 2 && needs && w->bssplit.set; d++)
        for (unsigned k = 0; k < w->bssplit.d[d].n; k++)
            if (w->bssplit.d[d].size[k] % lbs) {
                snprintf(err, errlen, "bssplit '%s': size %s is not a multiple of the logical block size %u of "
                         "target '%s' (%s)", w->bssplit.text, nvb__fmt_size(w->bssplit.d[d].size[k], b1, sizeof b1),
                         lbs, path, needs);
                return -EINVAL;
            }
    return 0;
}

/* ---- a job's mix (the loop's side: core/loopmix.h) ---- */

/* Direction d's sizes in the job's per-size counts of every target (all
 * alike, ascending), and its draw table mapped onto them. */
static int job_dir(struct job *j, struct nvb__bsmix *m, int d)
{
    const struct nvb_workload *w = j->run->w;
    struct nvb__bsdir x;
    uint8_t pick[100];
    nvb__bssplit_dir(&w->bssplit, d, w->bs, &x);
    nvb__bssplit_table(&x, pick);
    for (unsigned t = 0; t < j->nt; t++)
        for (unsigned k = 0; k < x.n; k++)
            if (nvb__bsc_add(&j->st[t].d[d].bsc, x.size[k], 0))
                return -ENOMEM;
    const struct nvb__bscount *c = j->st[0].d[d].bsc;
    unsigned at[NVB__BSSPLIT_MAX];
    for (unsigned k = 0; k < x.n; k++)
        for (at[k] = 0; c->size[at[k]] != x.size[k]; at[k]++)
            ;
    for (unsigned i = 0; i < 100; i++)
        m->pick[d][i] = (uint8_t)at[pick[i]];
    m->align[d] = w->blockalign ? w->blockalign : c->size[0];
    for (unsigned i = 0; i < c->n; i++)
        m->size[d][i] = (uint32_t)c->size[i];
    for (unsigned t = 0; t < j->nt; t++)
        for (unsigned i = 0; i < c->n; i++) /* the plan made sure every size fits */
            m->slots[(t * 2 + (unsigned)d) * NVB__BSSPLIT_MAX + i] = (m->len[t] - c->size[i]) / m->align[d] + 1;
    return 0;
}

/* A distribution or the random map places the random offsets: the units
 * of the region (blockalign, or the smallest size the job issues), the
 * job's generators over them, the maps. */
static int mix_placed(struct job *j, struct nvb__bsmix *m)
{
    const struct nvb_workload *w = j->run->w;
    const struct plan *p = j->run->p;
    char why[256];
    m->placed = 1;
    m->unit = w->blockalign ? w->blockalign : nvb__bs_min(&w->bssplit, w->bs, p->reads, p->writes);
    if (w->random_map && !(m->maps = calloc(j->nt, sizeof *m->maps)))
        return -ENOMEM;
    for (unsigned t = 0; t < j->nt; t++) {
        const uint64_t n = m->len[t] / m->unit;
        if (!w->random_map) { /* the generator over the units: no zone without a unit (plan checked bs's) */
            if (nvb__dgen_init(&j->dist[t], &w->dist, 0, n, w->seed, j->tmap[t], j->idx, why, sizeof why) < 0)
                return -ENOMEM;
            continue;
        }
        struct nvb__bsmap *mp = &m->maps[t];
        mp->n = mp->left = n;
        mp->l0 = calloc((n + 63) / 64, sizeof *mp->l0);
        mp->l1 = calloc((n + 4095) / 4096, sizeof *mp->l1);
        if (!mp->l0 || !mp->l1)
            return -ENOMEM;
    }
    return 0;
}

/* The first unit not done at or after u, wrapping; a full map starts a
 * new pass (cleared). Level 1 skips 64 full words at a time. */
static uint64_t map_free_from(struct nvb__bsmap *mp, uint64_t u)
{
    if (!mp->left) {
        memset(mp->l0, 0, (mp->n + 63) / 64 * sizeof *mp->l0);
        memset(mp->l1, 0, (mp->n + 4095) / 4096 * sizeof *mp->l1);
        mp->left = mp->n;
    }
    const uint64_t nw = (mp->n + 63) / 64;
    for (uint64_t w = u / 64, first = 1;; first = 0) {
        if (w == nw)
            w = 0;
        uint64_t bits = ~mp->l0[w];
        if (first)
            bits &= ~0ull << (u % 64);
        if (w == nw - 1 && mp->n % 64)
            bits &= (1ull << (mp->n % 64)) - 1;
        if (bits)
            return w * 64 + (uint64_t)__builtin_ctzll(bits);
        w++;
        while (w < nw && w % 64 == 0 && mp->l1[w / 64] == ~0ull) /* 64 full words */
            w += 64;
        if (w > nw)
            w = nw;
    }
}

/* Units done: left counts only those not done before (an I/O that ends at
 * the region's end may cover done ones, below). */
static void map_set(struct nvb__bsmap *mp, uint64_t u, uint64_t nu)
{
    for (uint64_t i = u; i < u + nu; i++) {
        const uint64_t bit = 1ull << (i % 64);
        mp->left -= !(mp->l0[i / 64] & bit);
        mp->l0[i / 64] |= bit;
        if (mp->l0[i / 64] == ~0ull)
            mp->l1[i / 4096] |= 1ull << (i / 64 % 64);
    }
}

uint64_t nvb__bsmix_place_off(struct nvb__bsmix *m, struct nvb__dgen *gens, unsigned t, unsigned d, unsigned *k,
                              uint64_t r, uint64_t *rng)
{
    const uint64_t a = m->align[d];
    if (!m->maps) { /* a distribution over the units; where the size no longer fits, its last offset */
        const uint64_t last = m->slots[(t * 2 + d) * NVB__BSSPLIT_MAX + *k] - 1;
        const uint64_t i = nvb__dist_next(&gens[t], rng) * m->unit / a;
        return (i < last ? i : last) * a;
    }
    struct nvb__bsmap *mp = &m->maps[t];
    uint64_t u = map_free_from(mp, (uint64_t)(((unsigned __int128)r * mp->n) >> 64));
    uint64_t free_run = 1;
    const uint64_t want = (m->size[d][*k] + m->unit - 1) / m->unit;
    while (free_run < want && u + free_run < mp->n && !(mp->l0[(u + free_run) / 64] >> ((u + free_run) % 64) & 1))
        free_run++;
    while (*k && (m->size[d][*k] + m->unit - 1) / m->unit > free_run)
        (*k)--;
    const uint64_t nu = (m->size[d][*k] + m->unit - 1) / m->unit;
    if (u + nu > mp->n && mp->n >= nu) /* the direction's smallest size, larger than the unit (another
                                        * direction's size), would run past the region's end: it ends there */
        u = mp->n - nu;
    map_set(mp, u, nu);
    return u * m->unit;
}

int nvb__bsmix_job(struct job *j)
{
    const struct nvb_workload *w = j->run->w;
    if (!w->bssplit.set)
        return 0;
    struct nvb__bsmix *m = j->mix = calloc(1, sizeof *m);
    if (m) {
        m->slots = calloc((size_t)j->nt * 2 * NVB__BSSPLIT_MAX, sizeof *m->slots);
        m->pos = calloc(j->nt, sizeof *m->pos);
        m->len = calloc(j->nt, sizeof *m->len);
    }
    if (!m || !m->slots || !m->pos || !m->len)
        goto oom;
    for (unsigned t = 0; t < j->nt; t++) {
        m->len[t] = j->run->p->t[j->tmap[t]].len;
        m->pos[t] = j->seqpos[t] * w->bs; /* jobs sharing a target start where they would with bs */
    }
    const struct plan *p = j->run->p;
    if ((p->reads && job_dir(j, m, NVB_READ) < 0) || (p->writes && job_dir(j, m, NVB_WRITE) < 0))
        goto oom;
    if (nvb__rw_random(w->rw) && (w->random_map || w->dist.kind != NVB__DIST_RANDOM) && mix_placed(j, m) < 0)
        goto oom;
    m->bytes_left = UINT64_MAX;
    if (p->bytes_total) { /* io_limit: the job's share, in whole units of the smallest size */
        const uint64_t unit = nvb__bs_min(&w->bssplit, w->bs, p->reads, p->writes), units = p->bytes_total / unit;
        m->bytes_left = (units / p->jobs + (j->idx < units % p->jobs ? 1 : 0)) * unit;
    }
    return 0;
oom:
    snprintf(j->why, sizeof j->why, "out of memory for the block-size mix of job %u", j->idx);
    return -ENOMEM;
}

void nvb__bsmix_job_free(struct job *j)
{
    if (!j->mix)
        return;
    for (unsigned t = 0; j->mix->maps && t < j->nt; t++)
        free(j->mix->maps[t].l0), free(j->mix->maps[t].l1);
    free(j->mix->maps);
    free(j->mix->slots);
    free(j->mix->pos);
    free(j->mix->len);
    free(j->mix);
    j->mix = NULL;
}
