/*
 * zbd.h - emulated zones (zone_mode=zbd, docs/zoned.md): each target's
 * region cut into zones with a write pointer the run keeps, shared by the
 * jobs on that target. The loop asks nvb__zbd_place() where each I/O of a
 * zoned run goes; a run without zones never calls it (job.c's LF_ZBD).
 */
#ifndef NVB_CORE_ZBD_H
#define NVB_CORE_ZBD_H

#include <stddef.h>
#include <stdint.h>

enum nvb__zone_mode { NVB__ZONE_NONE = 0, NVB__ZONE_ZBD };

struct nvb_workload;
struct plan;
struct run;
struct nvb__io;
struct nvb__zbd;

/* The plan's checks of the zone keys against the workload and each
 * target (a real zoned block device is refused): 0, or -EINVAL /
 * -EOPNOTSUPP with the message in err naming the key and value. A
 * sequential write's I/O count (p->ios_total) counts, as fio's, the bytes
 * past each zone's capacity as done. */
int nvb__zbd_plan(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen);

/* r->zbd for the plan's targets, every zone empty (its pointer at its
 * start): 0 or -ENOMEM. nvb__zbd_free(NULL) does nothing. */
int  nvb__zbd_new(struct run *r);
void nvb__zbd_free(struct nvb__zbd *z);

/* Where io goes on plan target pt, its direction and length set and
 * io->off where it would go without zones: a write at its zone's write
 * pointer (the zone reset first when full, or when zone_reset_threshold
 * and zone_reset_frequency say so), a read below a pointer (unless
 * read_beyond_wp), a trim resets its zone. rnd: random I/O; seqpos (the
 * job's next block of a sequential pattern, in bs units from region_off,
 * below nblocks) follows the I/O. *resets counts the zones reset.
 * Returns 0, or -1 when no zone holds data to read or trim (the job's
 * I/O ends, as fio's does). Thread-safe (one lock per target). */
int nvb__zbd_place(struct nvb__zbd *z, unsigned pt, struct nvb__io *io, int rnd, uint64_t region_off,
                   uint64_t *seqpos, uint64_t nblocks, uint64_t *resets);

#endif
