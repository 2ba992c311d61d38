/*
 * Data verification blocks (internal).
 *
 * With verify=1 every block a job writes (one I/O of bs bytes at a
 * bs-aligned offset of the region) starts with a header and carries a
 * checksum over the whole block:
 *
 *   offset size  field
 *        0    8  magic "NVBvrfy1"
 *        8    8  byte offset of the block in the target
 *       16    8  the workload's seed
 *       24    8  sequence: (job index + 1) << 40 | the job's write count;
 *                0 for blocks laid out with a scratch file
 *       32    4  target index (order of nvb_workload_add_target)
 *       36    4  block size
 *       40    4  header format (1)
 *       44    4  CRC32C (Castagnoli) of the whole block, these 4 bytes as 0
 *       48       payload: a stream derived from (seed, target, offset, sequence)
 *
 * All fields little-endian. A reader checks a block without knowing which
 * write landed last: the header says what the block claims to be, the
 * checksum proves it is intact, and offset, target, seed and size must be
 * what the reader expects at that place.
 */
#ifndef NVB_CORE_VERIFY_H
#define NVB_CORE_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#define NVB__VHDR_SIZE 48u
/* Mismatches described in a result (the first ones found). */
#define NVB__VERIFY_FIRST 8

/* What differed, in the order a block is checked. */
enum nvb__vfield {
    NVB__VF_OK = 0,
    NVB__VF_MAGIC,      /* no header at all: zeroes, foreign data, never written */
    NVB__VF_BS,         /* written with another block size */
    NVB__VF_CHECKSUM,   /* the block is not intact */
    NVB__VF_OFFSET,     /* an intact block of another offset (misdirected or copied) */
    NVB__VF_TARGET,     /* an intact block of another target */
    NVB__VF_SEED,       /* an intact block written with another seed */
    NVB__VF_DATA,       /* header and checksum agree, the payload does not */
    NVB__VF_SEQ,        /* an intact block this run's last write to it did not leave (a lost
                         * write, or a block from before the run): job.c checks it */
    NVB__VF_COUNT
};
const char *nvb__vfield_name(int f);

struct nvb__vmismatch {
    uint64_t offset;    /* of the block in the target */
    uint64_t expected, found;
    uint64_t seq;       /* the sequence the block claims (0 when no header) */
    uint32_t target;
    uint8_t  field;     /* enum nvb__vfield */
};

/* CRC32C of buf, continuing from crc (0 to start). Hardware instructions
 * where the CPU has them. Thread-safe. */
uint32_t nvb__crc32c(uint32_t crc, const void *buf, size_t len);

/* verify_pattern: the bytes a block's payload repeats, from the block's
 * start (the header covers the first ones); len 0: pseudo-random payload. */
struct nvb__vpat {
    unsigned char b[31];
    uint8_t       len;
};
/* "0x" and 2 to 62 hex digits, an even count (the bytes in the order
 * written, as fio reads a hex verify_pattern), or "" (none). 0 or -EINVAL. */
int nvb__vpat_parse(const char *text, struct nvb__vpat *out);

/* Write a verification block of len (>= NVB__VHDR_SIZE) bytes into buf. */
void nvb__vblock_fill(void *buf, uint32_t len, uint64_t seed, uint32_t target, uint64_t off, uint64_t seq);
/* Check a block read from (target, off). Returns NVB__VF_OK, or the first
 * field that differs with *mm filled. */
int nvb__vblock_check(const void *buf, uint32_t len, uint64_t seed, uint32_t target, uint64_t off,
                      struct nvb__vmismatch *mm);
/* The same with a payload of pattern pat (NULL or len 0: pseudo-random). */
void nvb__vblock_fill_pat(void *buf, uint32_t len, uint64_t seed, uint32_t target, uint64_t off, uint64_t seq,
                          const struct nvb__vpat *pat);
int nvb__vblock_check_pat(const void *buf, uint32_t len, uint64_t seed, uint32_t target, uint64_t off,
                          const struct nvb__vpat *pat, struct nvb__vmismatch *mm);

#endif
