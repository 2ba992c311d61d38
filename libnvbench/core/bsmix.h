/*
 * Block-size mixes (workload key bssplit, docs/api.md): the parsed split,
 * the per-size counts a result carries, and what the plan checks. The
 * loop's per-I/O steps are in core/loopmix.h.
 *
 * A split is up to NVB__BSSPLIT_MAX sizes per direction with integer
 * percentages summing to 100; a direction without a list of its own uses
 * the key bs. Each I/O draws its size from a 100-entry table (one random
 * number, one load: nvb__bssplit_table).
 */
#ifndef NVB_CORE_BSMIX_H
#define NVB_CORE_BSMIX_H

#include <stddef.h>
#include <stdint.h>

#define NVB__BSSPLIT_MAX 64 /* sizes per direction */
#define NVB__BSC_MAX 128    /* distinct sizes one count list holds (merged results may bring several splits) */

struct nvb__bsdir {
    unsigned n;                        /* 0: the direction uses bs */
    uint32_t size[NVB__BSSPLIT_MAX];
    uint8_t  pct[NVB__BSSPLIT_MAX];
};

struct nvb__bssplit {
    int  set;
    struct nvb__bsdir d[2];            /* by enum nvb_dir */
    char text[256];                    /* as given: the key's value in nvb_workload_get and the JSON */
};

/* "4k/50:64k/30:128k/20" or "READLIST,WRITELIST" into *out (unchanged on
 * error); 0, or -EINVAL/-ERANGE with a message naming key and value. An
 * entry without a percentage gets an even share of what the others leave
 * (the first ones one more while the shares do not divide evenly). */
int nvb__bssplit_parse(const char *value, struct nvb__bssplit *out, char *err, size_t errlen);

/* Direction d's sizes as used: its list, or bs alone at 100 %. */
void nvb__bssplit_dir(const struct nvb__bssplit *s, int d, uint64_t bs, struct nvb__bsdir *out);

/* The draw table: pick[i] for i in [0, 100) is an index into dir->size,
 * each index appearing pct times. */
void nvb__bssplit_table(const struct nvb__bsdir *dir, uint8_t pick[100]);

/* The smallest and largest size the directions in use (reads, writes)
 * issue; bs when the split is unset. */
uint64_t nvb__bs_min(const struct nvb__bssplit *s, uint64_t bs, int reads, int writes);
uint64_t nvb__bs_max(const struct nvb__bssplit *s, uint64_t bs, int reads, int writes);

struct nvb_workload;
/* The plan's checks of the keys a split does not combine with (verify
 * with files, io_limit): 0, or -EINVAL with the message in err. */
int nvb__bsmix_plan(const struct nvb_workload *w, int files, char *err, size_t errlen);
/* One target's: the largest size fits its region of len bytes and, when
 * needs names why I/O must be whole blocks (direct=1), every size of the
 * split is a multiple of lbs. */
int nvb__bsmix_target(const struct nvb_workload *w, uint32_t lbs, uint64_t len, const char *path, const char *needs,
                      char *err, size_t errlen);

/* Per-size counts of one direction: sizes ascending, no duplicates. */
struct nvb__bscount {
    unsigned n;
    uint64_t size[NVB__BSC_MAX];
    uint64_t count[NVB__BSC_MAX];
};

/* (*dst)[size] += count, *dst allocated when NULL; 0, -ENOMEM, or
 * -EOVERFLOW (a count would pass 2^64 - 1, or more than NVB__BSC_MAX
 * sizes). */
int nvb__bsc_add(struct nvb__bscount **dst, uint64_t size, uint64_t count);
/* Every size of src into *dst (nothing when src is NULL). */
int nvb__bsc_merge(struct nvb__bscount **dst, const struct nvb__bscount *src);

/* random_map with a split: one target's blocks of the map's unit done
 * this pass (bit i: unit i), and a word of level1 per 64 words of level0
 * with a bit set for each full one, so that the next free unit is found
 * in a few words. */
struct nvb__bsmap {
    uint64_t  n, left;                     /* units, units not yet done this pass */
    uint64_t *l0, *l1;
};

/* A job's mix, as its loop reads it (core/loopmix.h); sizes are indexed
 * as in the job's per-size counts (ascending). */
struct nvb__bsmix {
    uint8_t   pick[2][100];                /* a draw in [0, 100) -> size index */
    uint32_t  size[2][NVB__BSSPLIT_MAX];
    uint64_t  align[2];                    /* random offsets: multiples of the direction's smallest size, or blockalign */
    int       placed;                      /* random offsets from nvb__bsmix_place_off: a distribution or a map */
    uint64_t  unit;                        /* their unit: blockalign, or the smallest size of the directions used */
    struct nvb__bsmap *maps;               /* random_map: one per target, or NULL */
    uint64_t *slots;                       /* [(t * 2 + d) * NVB__BSSPLIT_MAX + k]: such offsets where size k fits */
    uint64_t *pos;                         /* sequential: the next offset in each target's region */
    uint64_t *len;                         /* each target's region */
    uint64_t  bytes_left;                  /* io_limit: this job's measured bytes still to issue; UINT64_MAX: none */
    int       spent;                       /* the byte budget is spent: no size of the drawn direction fits */
};

/* A random offset (from the region's start) for size index k of
 * direction d in target t, from a uniform 64-bit r: a multiple of
 * align[d] at which the size still fits in the region. Monotone in r, so
 * r = 0 and r = 2^64 - 1 give the first and the last offset. */
static inline uint64_t nvb__bsmix_rand_off(const struct nvb__bsmix *m, unsigned t, unsigned d, unsigned k, uint64_t r)
{
    const uint64_t n = m->slots[(t * 2 + d) * NVB__BSSPLIT_MAX + k];
    return (uint64_t)(((unsigned __int128)r * n) >> 64) * m->align[d];
}

struct nvb__dgen;
/* A random offset for size index *k of direction d in target t from a
 * random_distribution other than random (gens: the job's generators over
 * the region's units) or from the random map: the next unit not done this
 * pass from a uniform r, every unit once per pass, the size lowered (*k)
 * to the largest that covers only units not done (fio cuts the I/O at the
 * first done block, to any multiple of the smallest size). */
uint64_t nvb__bsmix_place_off(struct nvb__bsmix *m, struct nvb__dgen *gens, unsigned t, unsigned d, unsigned *k,
                              uint64_t r, uint64_t *rng);

struct job;
/* The job's mix and its per-size counts, when the workload has a split
 * (j->mix stays NULL otherwise); 0 or -ENOMEM with j->why set. */
int  nvb__bsmix_job(struct job *j);
void nvb__bsmix_job_free(struct job *j);

#endif
