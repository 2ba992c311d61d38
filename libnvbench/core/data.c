/* What written blocks carry: see data.h. */
#include "core/data.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "util/rand.h"

/* Zero bytes at the end of a sector of len bytes (<= 512): len x compress
 * / 100 rounded down to 8 bytes; all of it at 100. */
static uint32_t zero_bytes(uint32_t len, unsigned compress)
{
    return compress >= 100 ? len : (uint32_t)((uint64_t)len * compress / 100) & ~7u;
}

int nvb__data_init(struct nvb__data *d, uint32_t bs, uint64_t seed, unsigned compress, unsigned dedupe)
{
    memset(d, 0, sizeof *d);
    size_t alloc = ((size_t)bs + 4095) / 4096 * 4096;
    d->base = nvb__alloc_aligned(4096, alloc);
    if (!d->base)
        return -ENOMEM;
    d->seed = seed;
    d->bs = bs;
    d->compress = compress;
    d->dedupe = dedupe;
    uint64_t s = seed ^ 0xda7a5eedda7a5eedull;
    memset(d->base, 0, alloc);
    for (size_t k = 0; k < alloc / 8; k++)
        d->base[k] = nvb__splitmix64(&s);
    unsigned char *b = (unsigned char *)d->base;
    for (uint32_t so = 0; so < bs; so += NVB__DATA_SECTOR) {
        uint32_t len = bs - so < NVB__DATA_SECTOR ? bs - so : NVB__DATA_SECTOR;
        uint32_t z = zero_bytes(len, compress);
        memset(b + so + len - z, 0, z);
    }
    return 0;
}

int nvb__data_set(struct nvb__data *d, uint64_t set, uint64_t share, uint64_t first, int global, unsigned jobs)
{
    /* the counts of blocks each job wrote fresh: a job's own, its thread the only writer */
    if (!(d->uniq = calloc(jobs ? jobs : 1, sizeof *d->uniq)))
        return -ENOMEM;
    d->set = set, d->share = share, d->first = first, d->global = global;
    return 0;
}

void nvb__data_free(struct nvb__data *d)
{
    nvb__free_aligned(d->base);
    d->base = NULL;
    free(d->uniq);
    d->uniq = NULL;
}

/* Four 64-bit lanes: one AVX2 instruction, or two SSE2 (every x86-64) or
 * NEON ones. Loads and stores through memcpy: a block of the scratch
 * layout may start anywhere. */
typedef uint64_t v4u64 __attribute__((vector_size(32)));

/* Each sector of the block: its random part the base's XOR a key of its
 * own, the rest zeros. One body, compiled twice (below). */
static inline __attribute__((always_inline)) void fill_sectors(const struct nvb__data *d, unsigned char *o,
                                                               uint32_t n, uint64_t h)
{
    const unsigned char *b = (const unsigned char *)d->base;
    const uint32_t bs = d->bs;
    for (uint32_t so = 0; so < n; so += NVB__DATA_SECTOR) {
        uint32_t len = bs - so < NVB__DATA_SECTOR ? bs - so : NVB__DATA_SECTOR;
        uint32_t z = zero_bytes(len, d->compress);
        uint32_t r = len - z, i = 0;
        if (so + len > n) { /* the first n bytes only: cut the last sector */
            len = n - so;
            r = r < len ? r : len;
            z = len - r;
        }
        uint64_t key = nvb__splitmix64(&h);
        const v4u64 k = {key, key, key, key};
        for (; i + 32 <= r; i += 32) {
            v4u64 v;
            memcpy(&v, b + so + i, 32);
            v ^= k;
            memcpy(o + so + i, &v, 32);
        }
        for (; i < r; i++) /* the last bytes: byte lane i % 8 of the key */
            o[so + i] = (unsigned char)(b[so + i] ^ (unsigned char)(key >> (8 * (i & 7))));
        if (z)
            memset(o + so + r, 0, z);
    }
}

static void fill_plain(const struct nvb__data *d, unsigned char *o, uint32_t n, uint64_t h)
{
    fill_sectors(d, o, n, h);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_AVX2_FILL 1
__attribute__((target("avx2"))) static void fill_avx2(const struct nvb__data *d, unsigned char *o, uint32_t n,
                                                      uint64_t h)
{
    fill_sectors(d, o, n, h);
}
#endif

static uint64_t block_key(const struct nvb__data *d, uint64_t off, uint64_t ctr)
{
    uint64_t h = off * 0x9e3779b97f4a7c15ull + ctr;
    h = nvb__splitmix64(&h) ^ d->seed;
    return nvb__splitmix64(&h);
}

/* data_dedupe_set: the element a write carries, or UINT64_MAX for fresh
 * data. dup: the write is a duplicate (drawn by h's low bits). A job's
 * first share blocks that are not duplicates are its elements, so a
 * duplicate repeats a block written before (or by another job, global). */
static uint64_t element(const struct nvb__data *d, uint64_t h, uint64_t ctr, int dup)
{
    const uint64_t job = (ctr >> 40) - 1;
    if (dup) {
        const uint64_t k = (uint64_t)(((unsigned __int128)(uint32_t)h * d->set) >> 32);
        return d->global ? k : d->first + job * d->share + k;
    }
    if (ctr == NVB__DATA_ELEMENT || d->uniq[job] >= d->share)
        return UINT64_MAX;
    return d->first + job * d->share + d->uniq[job]++;
}

void nvb__data_fill(const struct nvb__data *d, void *dst, uint32_t n, uint64_t off, uint64_t ctr)
{
    /* global: the jobs of a group's workloads share the seed (and the set),
     * numbered apart (first), so that their other blocks differ */
    uint64_t h = block_key(d, off, ctr && d->global ? ctr + (d->first / d->share << 40) : ctr);
    /* the top 32 bits choose a duplicate, the key stream starts from all 64 */
    const int dup = d->dedupe && ctr != NVB__DATA_ELEMENT && (((h >> 32) * 100) >> 32) < d->dedupe;
    if (dup && (!d->set || !ctr)) { /* one block (the scratch layout's too) */
        memcpy(dst, d->base, n);
        return;
    }
    if (d->set && ctr) {
        const uint64_t e = element(d, h, ctr, dup);
        if (e != UINT64_MAX)
            h = block_key(d, e, NVB__DATA_ELEMENT);
    }
#ifdef HAVE_AVX2_FILL
    /* libgcc initialises the CPU model before main: a plain read here */
    if (__builtin_cpu_supports("avx2")) {
        fill_avx2(d, dst, n, h);
        return;
    }
#endif
    fill_plain(d, dst, n, h);
}
