/* The per-I/O modes (uncached, atomic, fua): core/iomode.c. */
#ifndef NVB_CORE_IOMODE_H
#define NVB_CORE_IOMODE_H

#include <stddef.h>

/* The kernel's values (include/uapi/linux/fs.h), for headers older than the flags. */
#define NVB__RWF_DSYNC     0x00000002u
#define NVB__RWF_ATOMIC    0x00000040u /* Linux 6.11 */
#define NVB__RWF_DONTCACHE 0x00000080u /* Linux 6.14 */

struct nvb_workload;
struct plan;
/* The RWF_* flags of each read (dir NVB_READ) or write (NVB_WRITE). */
unsigned nvb__iomode_flags(const struct nvb_workload *w, int dir);
/* "RWF_DONTCACHE RWF_DSYNC", or "none". */
void nvb__iomode_name(unsigned flags, char *buf, size_t len);
/* Refuses what the engine or the targets cannot do: 0, or -EINVAL/-ENOTSUP
 * with the reason (naming the limits). */
int nvb__iomode_check(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen);
/* Whether the kernel takes the read flags on fd: a one-byte preadv2 at
 * offset 0 (the flags are checked before any data moves). 0, or -errno
 * with why (engines/psync.c). */
int nvb__iomode_probe(int fd, unsigned rflags, const char *engine, char *why, size_t whylen);

/* An engine's setup of the flags: the probe on each target, and the used
 * entries read_flags/write_flags (engines/psync.c). 0 or -errno with ctx->why. */
struct nvb__engine_ctx;
int nvb__iomode_setup(const struct nvb__engine_ctx *ctx, const char *engine);

/* write_zeroes=1: refused without trims or on an engine that cannot zero
 * (psync and nvme can). 0, or -EINVAL/-ENOTSUP with the reason. */
int nvb__zeroes_check(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen);

/* ---- protection information and metadata (core/pi.c) ---- */
struct nvb__pi;
/* fio's pi_chk syntax ("GUARD,REFTAG,APPTAG", any order and case; "" or
 * "none": nothing) to NVB__PI_* bits. 0 or -EINVAL. */
int nvb__pi_chk_parse(const char *s, unsigned *bits);
/* The workload's protection settings for the engine's context. */
void nvb__pi_of(const struct nvb_workload *w, struct nvb__pi *pi);
/* Refuses protection keys where the engine is not nvme (passthrough): 0,
 * or -ENOTSUP with the reason. The namespace's format is checked by the
 * engine's setup (engines/nvme_pi.c), which reads Identify. */
int nvb__pi_check(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen);

#endif
