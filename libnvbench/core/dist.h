/*
 * Offsets of random workloads (keys random_distribution and random_map):
 * which block of a target's region the next random I/O goes to.
 *
 * The key's value, parsed (struct nvb__dist), lives in the workload; each
 * job keeps one generator per target (struct nvb__dgen), set up once with
 * the target's block count. nvb__dist_next() is the loop's step: the
 * uniform case (the default) is one multiply inline, every other case one
 * out-of-line call with constant expected work (dist.c says how each is
 * drawn). No generator searches the range or keeps memory per block.
 */
#ifndef NVB_CORE_DIST_H
#define NVB_CORE_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "util/rand.h"

enum nvb__dist_kind { NVB__DIST_RANDOM = 0, NVB__DIST_ZIPF, NVB__DIST_PARETO, NVB__DIST_NORMAL, NVB__DIST_ZONED,
                      NVB__DIST_SEQUENCE };

#define NVB__DIST_MAX_SEQ 64 /* blocks of a sequence, as fio's */

#define NVB__DIST_MAX_ZONES 32
/* The longest canonical text: "zoned" and 32 times ":IO/RANGE", each
 * number in [0, 100] at most 20 characters in %.15g. */
#define NVB__DIST_TEXT_MAX (8 + NVB__DIST_MAX_ZONES * 42)

/* random_distribution, parsed. */
struct nvb__dist {
    int      kind;                            /* enum nvb__dist_kind */
    double   param;                           /* zipf theta, pareto h, normal stddev (percent of the range) */
    unsigned nzones;
    double   zone_io[NVB__DIST_MAX_ZONES];    /* percent of the I/O ... */
    double   zone_range[NVB__DIST_MAX_ZONES]; /* ... to this percent of the range, zones in order */
    unsigned nseq;                            /* sequence: the blocks in order, repeated */
    uint32_t seq[NVB__DIST_MAX_SEQ];
    int      seq_stride;                      /* key random_sequence_stride: each round moves nseq blocks on */
};

/* A bijection of [0, n) (cycle walking over a keyed permutation of
 * [0, 2^k), 2^k < 2n): the order of a random_map pass, and the fixed
 * scramble that spreads zipf's and pareto's ranks over the region. */
struct nvb__perm {
    uint64_t n, mask, add, mul0, mul1;
    unsigned shift;
};

struct nvb__spr; /* core/sprandom.h */
void nvb__spr_unget(struct nvb__spr *s);

/* One target's generator in one job. */
struct nvb__dgen {
    struct nvb__spr *spr; /* sprandom: the planned sequence (owned by the job, core/sprandom.h), else NULL */
    int      fast;        /* uniform without a map: the inline draw */
    int      kind;
    int      map;         /* random_map=1: a permutation per pass */
    uint64_t n;           /* blocks */
    uint64_t ctr, pass, map_seed;
    struct nvb__perm order;    /* random_map: this pass's order */
    struct nvb__perm scramble; /* zipf, pareto: rank -> block */
    /* zipf (rejection-inversion) */
    double   z_oms, z_s, z_hx1, z_hn, z_sc;
    /* pareto: rank = floor(n * U^p_pow) */
    double   p_pow;
    /* normal: mean, deviation in blocks; the polar method's spare variate */
    double   mu, sigma, spare;
    int      has_spare;
    /* zoned: alias table over the zones, each zone's first block and length */
    unsigned nz;
    uint64_t a_thr[NVB__DIST_MAX_ZONES];
    uint8_t  a_alias[NVB__DIST_MAX_ZONES];
    uint64_t z_start[NVB__DIST_MAX_ZONES], z_len[NVB__DIST_MAX_ZONES];
    const struct nvb__dist *d; /* sequence: its blocks (the workload's, alive through the run) */
};

/* Parse a random_distribution value ("random", "zipf:1.2", "pareto:0.9",
 * "normal:10" or "gauss:10", "zoned:60/10:30/20:10/70", "sequence:2,0,1";
 * d->seq_stride, another key's, is kept). 0, or -EINVAL /
 * -ERANGE with the reason (naming key and value) in why. */
int nvb__dist_parse(const char *value, struct nvb__dist *d, char *why, size_t len);
/* The canonical text of d (what nvb__dist_parse reads back to d). */
void nvb__dist_format(const struct nvb__dist *d, char *buf, size_t len);

/* A generator for n >= 1 blocks. seed: the workload's; target: the plan's
 * index of the target (the scramble is the same in every job, so jobs
 * sharing a target agree on which blocks are hot); job: the job's index
 * (its own random_map order). 0, or -EINVAL with the reason in why (a zone
 * with I/O but no whole block). */
int nvb__dgen_init(struct nvb__dgen *g, const struct nvb__dist *d, int map, uint64_t n, uint64_t seed,
                   unsigned target, unsigned job, char *why, size_t len);

void nvb__perm_init(struct nvb__perm *p, uint64_t n, uint64_t key);
uint64_t nvb__perm_apply(const struct nvb__perm *p, uint64_t i);

/* The position before any scramble: the rank of zipf (0 the hottest) and
 * of pareto (hot at 0 for H < 0.5, at n - 1 for H > 0.5), the block of
 * normal, zoned and random. What the statistical tests check. */
uint64_t nvb__dist_rank(struct nvb__dgen *g, uint64_t *rng);
/* Every case but the inline one: the next block. */
uint64_t nvb__dist_draw(struct nvb__dgen *g, uint64_t *rng);

/* How a random workload draws its blocks, the loop's constant (nonzero:
 * the loop's "random" flag too): the inline uniform draw, which touches
 * nothing but rng, or a generator of dist.c. */
enum { NVB__RND_UNIFORM = 1, NVB__RND_DIST = 2 };
static inline int nvb__dist_rnd(const struct nvb__dist *d, int map)
{
    return d->kind == NVB__DIST_RANDOM && !map ? NVB__RND_UNIFORM : NVB__RND_DIST;
}

/* The loop's step: the next block of target t, in [0, n), from the
 * generators gens[] (one per target). */
static inline __attribute__((always_inline)) uint64_t nvb__dist_block(int rnd, struct nvb__dgen *gens, unsigned t,
                                                                      uint64_t n, uint64_t *rng)
{
    if (__builtin_expect(rnd == NVB__RND_UNIFORM, 1))
        return (uint64_t)(((unsigned __int128)nvb__splitmix64(rng) * n) >> 64);
    return nvb__dist_draw(&gens[t], rng);
}

/* The same from one generator. */
static inline uint64_t nvb__dist_next(struct nvb__dgen *g, uint64_t *rng)
{
    return nvb__dist_block(g->fast ? NVB__RND_UNIFORM : NVB__RND_DIST, g, 0, g->n, rng);
}

/* The block nvb__dist_next() just gave was not used (in flight: verify
 * waits for it): with random_map it comes again next, so no block of the
 * pass is skipped; other draws are independent and simply drawn anew. */
static inline __attribute__((always_inline)) void nvb__dist_unget(struct nvb__dgen *g)
{
    if (g->spr)
        nvb__spr_unget(g->spr);
    else if (g->map)
        g->ctr--;
}

#endif
