/*
 * Offsets of random workloads: the random_distribution and random_map keys
 * (core/dist.h). How each is drawn, with constant expected work per I/O:
 *
 * - random: a 64-bit draw times n, the top 64 bits (inline in dist.h).
 * - zipf:THETA: rank k in 1..n with probability k^-THETA / sum_j j^-THETA,
 *   by rejection-inversion (Hormann and Derflinger, 1996): invert the
 *   integral of the continuous x^-THETA over a bin of width 1 around each
 *   k, accept with a test that is exact for the discrete law; at most a
 *   few rounds are expected for any THETA > 0, THETA = 1 included.
 * - pareto:H: rank = floor(n * U^p), p = log(H) / log(1 - H), U uniform in
 *   (0, 1): the first fraction H of the ranks gets the share 1 - H of the
 *   I/O (pareto:0.2: 80 % of the I/O to 20 % of the blocks).
 * - normal:P: a normal variate of mean n/2 and deviation P % of n (the
 *   polar method, two variates per accepted pair), redrawn while outside
 *   the region: the normal law truncated to the region, nothing piled up at
 *   its ends; at most P = 100, so at least 38 % of the draws land inside.
 * - zoned:...: the zone by an alias table (one draw, one comparison, any
 *   number of zones), then a uniform block inside the zone.
 *
 * zipf and pareto give ranks (zipf's 0 the hottest); a fixed bijection of [0, n)
 * from the seed (struct nvb__perm) turns a rank into a block, so the hot
 * blocks are spread over the region rather than packed at its start.
 * normal and zoned are defined by where in the region the I/O goes: their
 * blocks are not scrambled. random_map=1 visits the blocks of a pass in the
 * order of such a bijection, a new one each pass.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dist.h"
#include "core/sprandom.h"
#include "core/internal.h"

#define KEY "random_distribution"

/* The refusal, the value cut at 200 characters so the reason is never lost. */
static int bad(char *why, size_t len, int rc, const char *value, const char *what)
{
    int n = (int)strlen(value);
    snprintf(why, len, "invalid value '%.*s%s' for key '" KEY "': %s", n > 200 ? 200 : n, value, n > 200 ? "..." : "",
             what);
    return rc;
}

/* A number of the value: [lo, hi], lo excluded when open_lo, no '%' unless pct. */
static int num(const char *s, size_t n, double lo, double hi, int open_lo, int pct, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -EINVAL;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (!pct && strchr(buf, '%'))
        return -EINVAL;
    double v;
    int rc = nvb__parse_pct(buf, &v); /* a plain decimal in [0, 100], no nan or inf */
    if (rc)
        return rc;
    if (v < lo || v > hi || (open_lo && v == lo))
        return -ERANGE;
    *out = v;
    return 0;
}

static int parse_zones(const char *value, const char *s, struct nvb__dist *d, char *why, size_t len)
{
    double sum_io = 0, sum_range = 0;
    d->nzones = 0;
    for (;;) {
        const char *end = strchr(s, ':'), *slash = strchr(s, '/');
        if (!end)
            end = s + strlen(s);
        if (d->nzones == NVB__DIST_MAX_ZONES)
            return bad(why, len, -EINVAL, value, "more than 32 zones");
        unsigned z = d->nzones;
        if (!slash || slash > end || num(s, (size_t)(slash - s), 0, 100, 0, 0, &d->zone_io[z]) ||
            num(slash + 1, (size_t)(end - slash - 1), 0, 100, 1, 0, &d->zone_range[z])) {
            char what[128];
            snprintf(what, sizeof what, "zone %u is not IO/RANGE, two percentages, RANGE above 0 "
                     "(example: zoned:60/10:30/20:10/70)", z + 1);
            return bad(why, len, -EINVAL, value, what);
        }
        sum_io += d->zone_io[z];
        sum_range += d->zone_range[z];
        d->nzones++;
        if (!*end)
            break;
        s = end + 1;
    }
    if (fabs(sum_io - 100) > 1e-9 || fabs(sum_range - 100) > 1e-9) {
        char what[128];
        snprintf(what, sizeof what, "the I/O percentages sum to %g and the range percentages to %g: both must "
                 "sum to 100", sum_io, sum_range);
        return bad(why, len, -EINVAL, value, what);
    }
    return 0;
}

/* sequence:B,B,...: up to NVB__DIST_MAX_SEQ block numbers, each below 2^32. */
static int parse_sequence(const char *value, const char *arg, struct nvb__dist *d, char *why, size_t len)
{
    const char *what = "sequence needs up to 64 block numbers, each below 2^32 (example: sequence:2,0,1)";
    for (const char *p = arg; p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
        size_t n = strcspn(p, ",");
        char *end;
        if (!n || n > 10 || strspn(p, "0123456789") != n || d->nseq == NVB__DIST_MAX_SEQ)
            return bad(why, len, -EINVAL, value, what);
        unsigned long long b = strtoull(p, &end, 10);
        if (b > UINT32_MAX)
            return bad(why, len, -ERANGE, value, what);
        d->seq[d->nseq++] = (uint32_t)b;
    }
    return d->nseq ? 0 : bad(why, len, -EINVAL, value, what);
}

int nvb__dist_parse(const char *value, struct nvb__dist *out, char *why, size_t len)
{
    struct nvb__dist d = {0};
    const char *colon = strchr(value, ':');
    size_t n = colon ? (size_t)(colon - value) : strlen(value);
    const char *arg = colon ? colon + 1 : NULL;
    static const struct {
        const char *name;
        int kind;
        double lo, hi;
        int open_lo, pct;
        const char *what;
    } kinds[] = {
        {"random", NVB__DIST_RANDOM, 0, 0, 0, 0, "random takes no parameter"},
        {"zipf", NVB__DIST_ZIPF, 0, 100, 1, 0, "zipf:THETA needs THETA in (0, 100] (example: zipf:1.2)"},
        {"pareto", NVB__DIST_PARETO, 0, 1, 1, 0, "pareto:H needs H in (0, 1) (example: pareto:0.9)"},
        {"normal", NVB__DIST_NORMAL, 0, 100, 1, 1, "normal:P needs the deviation P in (0, 100] percent of the "
                                                   "range (example: normal:10)"},
        {"gauss", NVB__DIST_NORMAL, 0, 100, 1, 1, "gauss:P needs the deviation P in (0, 100] percent of the "
                                                  "range (example: gauss:10)"},
        {"zoned", NVB__DIST_ZONED, 0, 0, 0, 0, NULL},
        {"sequence", NVB__DIST_SEQUENCE, 0, 0, 0, 0, NULL},
    };
    d.seq_stride = out->seq_stride;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strlen(kinds[i].name) != n || strncmp(kinds[i].name, value, n))
            continue;
        d.kind = kinds[i].kind;
        int rc = 0;
        if (d.kind == NVB__DIST_SEQUENCE)
            rc = parse_sequence(value, arg, &d, why, len);
        else if (d.kind == NVB__DIST_ZONED)
            rc = arg ? parse_zones(value, arg, &d, why, len)
                     : bad(why, len, -EINVAL, value, "zoned needs its zones (example: zoned:60/10:30/20:10/70)");
        else if (d.kind == NVB__DIST_RANDOM)
            rc = arg ? bad(why, len, -EINVAL, value, kinds[i].what) : 0;
        else {
            rc = arg ? num(arg, strlen(arg), kinds[i].lo, kinds[i].hi, kinds[i].open_lo, kinds[i].pct, &d.param)
                     : -EINVAL;
            if (!rc && d.kind == NVB__DIST_PARETO && d.param >= 1)
                rc = -ERANGE;
            if (rc)
                rc = bad(why, len, rc, value, kinds[i].what);
        }
        if (rc)
            return rc;
        *out = d;
        return 0;
    }
    return bad(why, len, -EINVAL, value, "expected random, zipf:THETA, pareto:H, normal:P (or gauss:P), "
               "zoned:IO/RANGE:IO/RANGE... or sequence:BLOCK,BLOCK...");
}

void nvb__dist_format(const struct nvb__dist *d, char *buf, size_t len)
{
    static const char *const names[] = {"random", "zipf", "pareto", "normal", "zoned"};
    int k = d->kind >= 0 && d->kind <= NVB__DIST_SEQUENCE ? d->kind : 0;
    if (k == NVB__DIST_SEQUENCE) {
        size_t at = (size_t)snprintf(buf, len, "sequence");
        for (unsigned i = 0; i < d->nseq && at < len; i++)
            at += (size_t)snprintf(buf + at, len - at, "%c%u", i ? ',' : ':', d->seq[i]);
    } else if (k == NVB__DIST_RANDOM) {
        snprintf(buf, len, "random");
    } else if (k != NVB__DIST_ZONED) {
        snprintf(buf, len, "%s:%.15g", names[k], d->param);
    } else {
        size_t at = (size_t)snprintf(buf, len, "zoned");
        for (unsigned z = 0; z < d->nzones && at < len; z++)
            at += (size_t)snprintf(buf + at, len - at, ":%.15g/%.15g", d->zone_io[z], d->zone_range[z]);
    }
}

/* ---- the bijection of [0, n) ---- */

void nvb__perm_init(struct nvb__perm *p, uint64_t n, uint64_t key)
{
    uint64_t mask = 0;
    unsigned bits = 0;
    while (mask < n - 1) {
        mask = mask << 1 | 1;
        bits++;
    }
    p->n = n;
    p->mask = mask;
    p->shift = bits / 2 + 1;
    p->add = nvb__splitmix64(&key) & mask;
    p->mul0 = nvb__splitmix64(&key) | 1;
    p->mul1 = nvb__splitmix64(&key) | 1;
}

/* A bijection of [0, mask]: each step is one (adding mod 2^k, multiplying
 * by an odd number mod 2^k, x ^ x >> s with s >= 1). */
static inline uint64_t perm_round(const struct nvb__perm *p, uint64_t x)
{
    x = ((x + p->add) * p->mul0) & p->mask;
    x ^= x >> p->shift;
    x = (x * p->mul1) & p->mask;
    return x ^ (x >> p->shift);
}

/* Cycle walking: the orbit of i < n comes back below n, at the latest at
 * i itself; as 2^k < 2n, fewer than 2 rounds are expected. */
uint64_t nvb__perm_apply(const struct nvb__perm *p, uint64_t i)
{
    uint64_t x = perm_round(p, i);
    while (x >= p->n)
        x = perm_round(p, x);
    return x;
}

/* ---- the draws ---- */

/* Uniform in (0, 1), 53 bits. */
static inline double unit(uint64_t *rng)
{
    return ((double)(nvb__splitmix64(rng) >> 11) + 0.5) * 0x1p-53;
}

/* log1p(x)/x and expm1(x)/x, continuous through 0. */
static double helper1(double x)
{
    return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}
static double helper2(double x)
{
    return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

/* The integral of x^-s from 1 to x, and its inverse. */
static double zipf_H(const struct nvb__dgen *g, double x)
{
    double lx = log(x);
    return helper2(g->z_oms * lx) * lx;
}
static double zipf_Hinv(const struct nvb__dgen *g, double u)
{
    double t = u * g->z_oms;
    if (t < -1)
        t = -1; /* rounding at the edge of the domain */
    return exp(helper1(t) * u);
}
static double zipf_h(const struct nvb__dgen *g, double x)
{
    return exp(-g->z_s * log(x));
}

static void zipf_init(struct nvb__dgen *g, double s)
{
    g->z_s = s;
    g->z_oms = 1 - s;
    g->z_hx1 = zipf_H(g, 1.5) - 1;
    g->z_hn = zipf_H(g, (double)g->n + 0.5);
    g->z_sc = 2 - zipf_Hinv(g, zipf_H(g, 2.5) - zipf_h(g, 2));
}

static uint64_t zipf_rank(struct nvb__dgen *g, uint64_t *rng)
{
    const double nd = (double)g->n;
    for (;;) {
        double u = g->z_hn + unit(rng) * (g->z_hx1 - g->z_hn);
        double x = zipf_Hinv(g, u);
        double k = floor(x + 0.5);
        if (k < 1)
            k = 1;
        else if (k > nd)
            k = nd;
        if (k - x <= g->z_sc || u >= zipf_H(g, k + 0.5) - zipf_h(g, k))
            return (uint64_t)k - 1;
    }
}

static uint64_t pareto_rank(struct nvb__dgen *g, uint64_t *rng)
{
    uint64_t r = (uint64_t)((double)g->n * exp(g->p_pow * log(unit(rng))));
    return r < g->n ? r : g->n - 1;
}

static uint64_t normal_block(struct nvb__dgen *g, uint64_t *rng)
{
    const double nd = (double)g->n;
    for (;;) {
        double z;
        if (g->has_spare) {
            g->has_spare = 0;
            z = g->spare;
        } else {
            double u, v, s;
            do {
                u = 2 * unit(rng) - 1;
                v = 2 * unit(rng) - 1;
                s = u * u + v * v;
            } while (s >= 1);
            double f = sqrt(-2 * log(s) / s);
            g->spare = v * f;
            g->has_spare = 1;
            z = u * f;
        }
        double x = g->mu + g->sigma * z;
        if (x >= 0 && x < nd)
            return (uint64_t)x;
    }
}

static uint64_t zoned_block(struct nvb__dgen *g, uint64_t *rng)
{
    unsigned __int128 m = (unsigned __int128)nvb__splitmix64(rng) * g->nz;
    unsigned col = (unsigned)(m >> 64);
    unsigned z = (uint64_t)m < g->a_thr[col] ? col : g->a_alias[col];
    return g->z_start[z] + (uint64_t)(((unsigned __int128)nvb__splitmix64(rng) * g->z_len[z]) >> 64);
}

/* sequence: the blocks in order, again and again; with
 * random_sequence_stride round r adds r * nseq, back to round 0 where a
 * block would pass the region (fio's job ends its file there). */
static uint64_t sequence_block(struct nvb__dgen *g)
{
    const struct nvb__dist *d = g->d;
    uint64_t i = g->ctr++, b = d->seq[i % d->nseq] + (d->seq_stride ? i / d->nseq * d->nseq : 0);
    if (b >= g->n) {
        g->ctr = 1;
        b = d->seq[0];
    }
    return b;
}

uint64_t nvb__dist_rank(struct nvb__dgen *g, uint64_t *rng)
{
    switch (g->kind) {
    case NVB__DIST_ZIPF: return zipf_rank(g, rng);
    case NVB__DIST_PARETO: return pareto_rank(g, rng);
    case NVB__DIST_NORMAL: return normal_block(g, rng);
    case NVB__DIST_ZONED: return zoned_block(g, rng);
    case NVB__DIST_SEQUENCE: return sequence_block(g);
    default: return (uint64_t)(((unsigned __int128)nvb__splitmix64(rng) * g->n) >> 64);
    }
}

/* The order of random_map's pass number pass. */
static void map_pass(struct nvb__dgen *g)
{
    nvb__perm_init(&g->order, g->n, g->map_seed + g->pass * 0x9e3779b97f4a7c15ull);
}

uint64_t nvb__dist_draw(struct nvb__dgen *g, uint64_t *rng)
{
    if (g->spr)
        return nvb__spr_next(g->spr);
    if (g->map) {
        if (g->ctr == g->n) {
            g->ctr = 0;
            g->pass++;
            map_pass(g);
        }
        return nvb__perm_apply(&g->order, g->ctr++);
    }
    uint64_t r = nvb__dist_rank(g, rng);
    return g->kind == NVB__DIST_ZIPF || g->kind == NVB__DIST_PARETO ? nvb__perm_apply(&g->scramble, r) : r;
}

/* floor(a * 2^64 / c) for a < c, by long division one bit at a time: at
 * setup only, and without a 128-bit division (libgcc's __udivti3, which
 * the Windows DLL must not import). */
static uint64_t frac64(uint64_t a, uint64_t c)
{
    uint64_t q = 0;
    for (int i = 0; i < 64; i++) {
        const uint64_t carry = a >> 63; /* a < c: 2a - c < c fits, whatever 2a wrapped to */
        a <<= 1;
        q <<= 1;
        if (carry || a >= c) {
            a -= c;
            q |= 1;
        }
    }
    return q;
}

/* Vose's alias table over the zones' shares of the I/O, in integers (the
 * shares to a millionth of a percent), so every column is filled exactly
 * and a zone without I/O is never drawn. */
static void zoned_alias(struct nvb__dgen *g, const struct nvb__dist *d)
{
    uint64_t s[NVB__DIST_MAX_ZONES], c = 0;
    unsigned small[NVB__DIST_MAX_ZONES], large[NVB__DIST_MAX_ZONES], ns = 0, nl = 0, k = d->nzones;
    for (unsigned z = 0; z < k; z++) {
        s[z] = (uint64_t)llround(d->zone_io[z] * 1e6) * k;
        c += s[z] / k;
    }
    for (unsigned z = 0; z < k; z++) {
        if (s[z] < c)
            small[ns++] = z;
        else
            large[nl++] = z;
    }
    while (ns && nl) {
        unsigned l = small[--ns], h = large[--nl];
        g->a_thr[l] = frac64(s[l], c);
        g->a_alias[l] = (uint8_t)h;
        s[h] = s[h] + s[l] - c;
        if (s[h] < c)
            small[ns++] = h;
        else
            large[nl++] = h;
    }
    /* what is left is full: the sum of s stays k * c */
    while (nl) {
        unsigned z = large[--nl];
        g->a_thr[z] = UINT64_MAX;
        g->a_alias[z] = (uint8_t)z;
    }
}

static int zoned_init(struct nvb__dgen *g, const struct nvb__dist *d, char *why, size_t len)
{
    double cum = 0;
    uint64_t start = 0;
    g->nz = d->nzones;
    for (unsigned z = 0; z < d->nzones; z++) {
        cum += d->zone_range[z];
        uint64_t end = z + 1 == d->nzones ? g->n : (uint64_t)llround((double)g->n * cum / 100.0);
        if (end > g->n)
            end = g->n;
        g->z_start[z] = start;
        g->z_len[z] = end > start ? end - start : 0;
        if (!g->z_len[z] && d->zone_io[z] > 0) {
            char text[NVB__DIST_TEXT_MAX];
            nvb__dist_format(d, text, sizeof text);
            snprintf(why, len, "random_distribution '%s': zone %u (%g %% of the range) holds no whole block of the "
                     "%llu blocks of bs in the region", text, z + 1, d->zone_range[z], (unsigned long long)g->n);
            return -EINVAL;
        }
        start = end > start ? end : start;
    }
    zoned_alias(g, d);
    return 0;
}

int nvb__dgen_init(struct nvb__dgen *g, const struct nvb__dist *d, int map, uint64_t n, uint64_t seed,
                   unsigned target, unsigned job, char *why, size_t len)
{
    memset(g, 0, sizeof *g);
    g->kind = d->kind;
    g->map = map;
    g->n = n ? n : 1;
    g->fast = d->kind == NVB__DIST_RANDOM && !map;
    if (map && d->kind != NVB__DIST_RANDOM) {
        snprintf(why, len, "random_map=1 needs random_distribution=random");
        return -EINVAL;
    }
    if (map) {
        g->map_seed = seed ^ 0x5851f42d4c957f2dull * (job + 1) ^ 0x2545f4914f6cdd1dull * (target + 1);
        map_pass(g);
    }
    nvb__perm_init(&g->scramble, g->n, seed ^ 0xd1b54a32d192ed03ull * (target + 1));
    switch (d->kind) {
    case NVB__DIST_ZIPF: zipf_init(g, d->param); break;
    case NVB__DIST_PARETO: g->p_pow = log(d->param) / log(1 - d->param); break;
    case NVB__DIST_NORMAL:
        g->mu = (double)g->n / 2;
        g->sigma = d->param / 100 * (double)g->n;
        break;
    case NVB__DIST_ZONED: return zoned_init(g, d, why, len);
    case NVB__DIST_SEQUENCE:
        g->d = d;
        for (unsigned i = 0; i < d->nseq; i++)
            if (d->seq[i] >= g->n) {
                snprintf(why, len, "random_distribution 'sequence': block %u is past the region's %llu blocks",
                         d->seq[i], (unsigned long long)g->n);
                return -EINVAL;
            }
        break;
    default: break;
    }
    return 0;
}

/* The workload's consistency (plan): a distribution or a map is for
 * random workloads, and a map visits every block alike. */
int nvb__dist_check(const struct nvb_workload *w, char *err, size_t len)
{
    char text[NVB__DIST_TEXT_MAX];
    nvb__dist_format(&w->dist, text, sizeof text);
    if (w->dist.kind != NVB__DIST_RANDOM && !nvb__rw_random(w->rw)) {
        snprintf(err, len, "random_distribution '%s' needs a random rw (randread, randwrite, randrw), not rw '%s'",
                 text, nvb__rw_name(w->rw));
        return -EINVAL;
    }
    if (w->dist.seq_stride && w->dist.kind != NVB__DIST_SEQUENCE) {
        snprintf(err, len, "random_sequence_stride=1 with random_distribution '%s': it moves the blocks of a "
                 "sequence (random_distribution=sequence:B,...)", text);
        return -EINVAL;
    }
    if (w->random_map && w->dist.kind != NVB__DIST_RANDOM) {
        snprintf(err, len, "random_map=1 with random_distribution '%s': a map touches every block once per pass, "
                 "which leaves no skew; use random_map=0 with a skewed distribution", text);
        return -EINVAL;
    }
    return 0;
}
