/*
 * Protection information and metadata of the nvme engine's commands
 * (engines/nvme_pi.c): what a namespace's format allows for the workload's
 * pi_act, pi_chk and md_per_io_size, the command fields that follow, and
 * the PI nvbench generates for writes when the controller does not.
 * Plain C on purpose (no system headers): tested without a device.
 */
#ifndef NVB_ENGINES_NVME_PI_H
#define NVB_ENGINES_NVME_PI_H

#include <stddef.h>
#include <stdint.h>

struct nvb__idns;
struct nvb__pi;

#define NVB__CDW12_PRACT (1u << 29)
#define NVB__CDW12_PRCHK_GUARD (1u << 28)
#define NVB__CDW12_PRCHK_APPTAG (1u << 27)
#define NVB__CDW12_PRCHK_REFTAG (1u << 26)

struct nvb__pi_fmt {
    uint32_t lba_size, ms;      /* bytes per block: data, metadata */
    uint8_t  type;              /* PI type 1..3, 0 none */
    uint8_t  first;             /* the PI is the metadata's first 8 bytes, else its last */
    uint8_t  host_gen;          /* nvbench writes the PI of each write (PRACT clear on a PI format) */
    uint8_t  reftag;            /* CDW14 carries the first block's LBA (types 1 and 2) */
    uint32_t cdw12;             /* PRACT and PRCHK bits of every Read and Write */
    uint32_t cdw15;             /* application tag mask << 16 | application tag */
    uint64_t md_per_io;         /* bytes of metadata buffer each I/O carries; 0: none */
};

/* What namespace `id` (Identify, parsed) does with settings `pi` for I/Os of
 * at most max_len bytes: fills f, or refuses with the reason in why (the
 * key, the format's figures): -ENOTSUP (no metadata, no PI, extended LBAs,
 * REFTAG on type 3), -EINVAL (md_per_io_size too small). A format without
 * metadata and no settings: 0, f all zero but the LBA size. */
int nvb__nvme_pi_plan(const struct nvb__idns *id, const struct nvb__pi *pi, uint64_t max_len, struct nvb__pi_fmt *f,
                      char *why, size_t why_len);

/* The 16-bit guard of the NVMe PI format: CRC-16/T10-DIF (polynomial
 * 0x8BB7, initial value 0, not reflected) of n bytes, continuing from crc. */
uint16_t nvb__crc_t10dif(uint16_t crc, const void *p, size_t n);

/* The metadata of nlb blocks of `data` starting at LBA slba, into md
 * (nlb x ms bytes): for each block its PI (guard, application tag,
 * reference tag = the LBA's low 32 bits; big-endian, as the spec has them)
 * where the format puts it, the rest zero. */
void nvb__nvme_pi_fill(const struct nvb__pi_fmt *f, const void *data, uint32_t nlb, uint64_t slba, void *md);

#endif
