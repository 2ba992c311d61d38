/*
 * What written blocks carry (internal): fresh, incompressible data by
 * default, with a chosen share of each block compressible (data_compress)
 * and a chosen share of the blocks duplicates of one another (data_dedupe).
 *
 * The run keeps one base block of bs bytes: random bytes from the seed,
 * with the compressible share of every 512-byte sector zeroed. Each written
 * block is that base with every sector's random part XORed with a 64-bit
 * key of its own, derived from (seed, offset, a per-job write counter,
 * sector index): one pass of loads, XORs and stores over the block. Two
 * blocks share no run of 3 or more bytes at the same place (their keys
 * differ in every byte lane but by chance), so neither a block-level
 * deduplication nor a stream compressor with a window of many blocks finds
 * anything to take; a duplicate block is the base itself, unchanged.
 * Nothing here is part of the public API; docs/api.md says what the keys
 * mean.
 */
#ifndef NVB_CORE_DATA_H
#define NVB_CORE_DATA_H

#include <stddef.h>
#include <stdint.h>

#define NVB__DATA_SECTOR 512u

struct nvb__data {
    uint64_t *base;             /* bs bytes, page-aligned; NULL: writes carry their buffers unchanged */
    uint64_t  seed;
    uint32_t  bs;
    unsigned  compress;         /* percent of each sector that is zeros */
    unsigned  dedupe;           /* percent of written blocks that are duplicates */
    /* data_dedupe_set: a duplicate is one of a working set of distinct
     * blocks ("elements", each keyed by its index alone), not the base;
     * each job's first share blocks that are not duplicates are its
     * elements first + job x share ...; a duplicate is drawn from set
     * elements (from 0 with global, else from the job's own). uniq[job]:
     * the job's blocks written that were not duplicates (its own thread's). */
    uint64_t  set, share, first;
    int       global;
    uint64_t *uniq;
};

/* The base block for (bs, seed, compress, dedupe). 0 or -ENOMEM. */
int  nvb__data_init(struct nvb__data *d, uint32_t bs, uint64_t seed, unsigned compress, unsigned dedupe);
/* The working set (data_dedupe_set): set elements a duplicate is drawn
 * from, share of them each of jobs writes first, the run's first at
 * element first; global: one set for all. 0 or -ENOMEM. */
int  nvb__data_set(struct nvb__data *d, uint64_t set, uint64_t share, uint64_t first, int global, unsigned jobs);
void nvb__data_free(struct nvb__data *d);
/* The first n (<= bs) bytes of a written block's content into dst: off is
 * the block's offset in the target, ctr a number no other write of the run
 * uses (job index + 1 << 40 | the job's write count; 0 for the scratch
 * layout). */
void nvb__data_fill(const struct nvb__data *d, void *dst, uint32_t n, uint64_t off, uint64_t ctr);
/* The key of a block of the working set: its content is nvb__data_fill's
 * with off = element and this ctr, which no write uses. */
#define NVB__DATA_ELEMENT UINT64_MAX

#endif
