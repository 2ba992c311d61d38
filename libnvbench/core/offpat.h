/*
 * Offset patterns of sequential I/O (keys seq_stride, zone_size,
 * zone_range, zone_skip): where a sequential job's next I/O goes when it
 * does not simply follow the previous one. A job keeps one per target,
 * only when a key is set; the loop then calls nvb__opat_next() for each
 * I/O instead of advancing its block counter (core/job.c), so plain
 * sequential runs pay nothing for it.
 */
#ifndef NVB_CORE_OFFPAT_H
#define NVB_CORE_OFFPAT_H

#include <stddef.h>
#include <stdint.h>

struct nvb_workload;

/* One target's pattern in one job; offsets relative to the region. */
struct nvb__opat {
    uint64_t len, bs;      /* the region's bytes; every I/O's size */
    int64_t  stride;       /* seq_stride */
    uint64_t zsize, zrange, zskip; /* zone_size (0: no zones), zone_range, zone_skip */
    uint64_t zstart, zbytes;       /* the zone now used; bytes issued in it */
    uint64_t last;         /* end of the previous I/O, or NVB__OPAT_NONE */
    uint64_t first;        /* the first I/O's offset */
};
#define NVB__OPAT_NONE UINT64_MAX

/* Is any pattern key set? */
int nvb__opat_used(const struct nvb_workload *w);
/* The keys against the rest of the workload: 0 or -EINVAL with err. */
int nvb__opat_check(const struct nvb_workload *w, char *err, size_t len);
/* A pattern over len bytes (len >= bs), its first I/O at first. */
void nvb__opat_init(struct nvb__opat *p, const struct nvb_workload *w, uint64_t len, uint64_t first);
/* A job bounded to ios I/Os (a whole number of passes over the region,
 * rounded up): the I/Os of as many passes of the pattern, fewer when a
 * positive stride ends a pass before the region's blocks are done: fio's
 * job ends its pass after an I/O that ends at the region's end, and
 * otherwise wraps to the start. */
uint64_t nvb__opat_budget(const struct nvb__opat *p, uint64_t ios);
/* The next I/O's offset in the region. */
uint64_t nvb__opat_next(struct nvb__opat *p);

#endif
