/*
 * The NVMe passthrough engine's SQEs (engines/nvme.c), internal: a command
 * of 128 bytes (SQE128: the 64-byte header, then struct nvme_uring_cmd in
 * the command area) made from a template decided at setup for each target
 * and direction, and the I/O's own fields.
 *
 * What a template holds is everything that is the same for every I/O of
 * its target and direction: the file (its index when registered, with
 * IOSQE_FIXED_FILE), IORING_URING_CMD_FIXED when the buffers are
 * registered, the namespace, the NVMe opcode, the LBA size, and whether
 * I/O of that direction is refused before reaching the ring (a write or a
 * trim through a descriptor opened read-only). Per I/O the fill writes
 * every 8-byte word of the 128 bytes (a ring slot holds an earlier
 * command's values), without a test on the target, the direction or the
 * registrations: a trim is the one exception (its range goes in the I/O's
 * buffer), tested on the template.
 */
#ifndef NVB_ENGINES_NVME_SQE_H
#define NVB_ENGINES_NVME_SQE_H

#include "core/engine.h"
#include "nvbench.h"

#if NVB_HAVE_LIBURING
#include <errno.h>
#include <liburing.h>
#include <linux/nvme_ioctl.h>
#include <stdint.h>
#include <string.h>

/* Debian 12's liburing 2.3 and linux-libc-dev 6.1 define these; older
 * headers may not, and the values are kernel ABI. */
#ifndef IORING_URING_CMD_FIXED
#define IORING_URING_CMD_FIXED (1U << 0)    /* sqe->uring_cmd_flags, 6.1 */
#endif
#ifndef NVME_URING_CMD_IO
#define NVME_URING_CMD_IO _IOWR('N', 0x80, struct nvme_uring_cmd) /* 5.19 */
#endif

#define NVB__NVME_CMD_WRITE 0x01
#define NVB__NVME_CMD_READ 0x02
#define NVB__NVME_CMD_WRITE_ZEROES 0x08
#define NVB__NVME_CMD_DSM 0x09      /* Dataset Management: a trim is one range with the deallocate attribute */
#define NVB__NVME_DSM_AD (1u << 2)  /* cdw11: attribute deallocate */
#define NVB__NVME_MAX_NLB 65536u    /* CDW12 NLB is 16 bits, 0-based */

_Static_assert(sizeof(struct nvme_uring_cmd) <= 80, "nvme_uring_cmd fits the SQE128 command area");

struct nvb__nvme_tmpl {
    uint8_t opcode, flags;   /* the SQE's first 8 bytes, in its layout: */
    uint16_t ioprio;
    int32_t fd;              /* the file, or its index when registered */
    uint8_t nvme_op, nvme_flags; /* the command's first 8 bytes, in its layout */
    uint16_t rsvd1;
    uint32_t nsid;
    uint32_t cmd_flags;      /* sqe->uring_cmd_flags: IORING_URING_CMD_FIXED or 0 */
    uint32_t lba_mask;       /* lba_size - 1 */
    uint8_t lba_shift;
    uint8_t trim;            /* 1: a Dataset Management command (the range goes in the buffer);
                              * 2: a Write Zeroes command (no data: write_zeroes=1) */
    int16_t refuse;          /* 0, or the -errno every I/O of it fails with before the ring */
    uint8_t pi;              /* the target's format moves metadata or PI: the engine adds it after the fill */
    uint8_t pad[3];          /* (32 bytes: an index is a shift) */
};
_Static_assert(sizeof(struct nvb__nvme_tmpl) == 32, "a template is 32 bytes");
_Static_assert(offsetof(struct io_uring_sqe, fd) == 4 && offsetof(struct io_uring_sqe, off) == 8 &&
               offsetof(struct nvme_uring_cmd, nsid) == 4 && offsetof(struct nvme_uring_cmd, cdw2) == 8,
               "a template's words are the SQE's and the command's first 8 bytes");

/* The template of direction dir (NVB_READ, NVB_WRITE, NVB_TRIM) on a
 * target: file fd (an index into the registered files when fixed_file),
 * registered buffers or not, the namespace's id and LBA size (a power of
 * two), and whether the descriptor was opened for writing. */
static inline void nvb__nvme_tmpl_make(struct nvb__nvme_tmpl *t, int fd, int fixed_file, int fixed_buf,
                                       uint32_t nsid, uint32_t lba_size, int dir, int writable)
{
    memset(t, 0, sizeof *t);
    t->opcode = IORING_OP_URING_CMD;
    t->flags = fixed_file ? IOSQE_FIXED_FILE : 0;
    t->fd = fd;
    t->nvme_op = dir == NVB_TRIM ? NVB__NVME_CMD_DSM : dir == NVB_WRITE ? NVB__NVME_CMD_WRITE : NVB__NVME_CMD_READ;
    t->nsid = nsid;
    t->cmd_flags = fixed_buf ? IORING_URING_CMD_FIXED : 0;
    t->lba_mask = lba_size - 1;
    t->lba_shift = (uint8_t)__builtin_ctz(lba_size);
    t->trim = dir == NVB_TRIM;
    /* A passthrough command is not bound by the descriptor's open mode on
     * kernels before 6.2 with CAP_SYS_ADMIN: the engine refuses it, as
     * pwrite would. */
    t->refuse = (int16_t)(dir != NVB_READ && !writable ? -EBADF : 0);
}

/* 0 when the I/O can go as a command of template t, else the -errno it
 * fails with: refused by the template, an empty or misaligned extent, more
 * blocks than one command carries. One branch for the lot. */
static inline int nvb__nvme_check(const struct nvb__nvme_tmpl *t, const struct nvb__io *io)
{
    if (__builtin_expect(t->refuse | !io->len | ((io->off | io->len) & t->lba_mask) |
                             ((io->len >> t->lba_shift) > NVB__NVME_MAX_NLB), 0))
        return t->refuse ? t->refuse : -EINVAL;
    return 0;
}

/* The 128 bytes of the command for io (checked by nvb__nvme_check) into
 * sqe; buf_index is the registered buffer's index (ignored by the kernel
 * without IORING_URING_CMD_FIXED). A trim writes its one range into the
 * I/O's buffer. */
static inline void nvb__nvme_fill(struct io_uring_sqe *sqe, const struct nvb__nvme_tmpl *t, uint16_t buf_index,
                                  const struct nvb__io *io)
{
    /* the I/O's and the template's fields read before the stores, which
     * the compiler cannot tell apart from them */
    const unsigned shift = t->lba_shift;
    const uint64_t slba = io->off >> shift;
    const uint32_t len = io->len;
    void *const buf = io->buf;
    struct nvme_uring_cmd *c = (struct nvme_uring_cmd *)sqe->cmd;
    uint64_t head, nvme;
    memcpy(&head, t, 8);
    memcpy(&nvme, &t->nvme_op, 8);
    const uint32_t cmd_flags = t->cmd_flags;
    const int trim = t->trim;
    memcpy(sqe, &head, 8);
    sqe->cmd_op = NVME_URING_CMD_IO;
    sqe->__pad1 = 0;
    sqe->addr = 0;
    sqe->len = 0;
    sqe->uring_cmd_flags = cmd_flags;
    sqe->user_data = (uintptr_t)io;
    sqe->buf_index = buf_index;
    sqe->personality = 0;
    sqe->file_index = 0;
    memcpy(c, &nvme, 8);
    c->cdw2 = 0;
    c->cdw3 = 0;
    c->metadata = 0;
    c->addr = (uint64_t)(uintptr_t)buf;
    c->metadata_len = 0;
    c->data_len = len;
    c->cdw10 = (uint32_t)slba;
    c->cdw11 = (uint32_t)(slba >> 32);
    c->cdw12 = (len >> shift) - 1; /* NLB, 0-based; no FUA, no PI */
    c->cdw13 = 0;
    c->cdw14 = 0;
    c->cdw15 = 0;
    c->timeout_ms = 0;
    c->rsvd2 = 0;
    memset((char *)sqe->cmd + sizeof *c, 0, 80 - sizeof *c);
    if (__builtin_expect(trim == 2, 0)) {
        /* Write Zeroes: no data, the range and NLB (0-based) as a write's */
        c->addr = 0;
        c->data_len = 0;
    } else if (__builtin_expect(trim, 0)) {
        /* one 16-byte range in the I/O's own buffer: context attributes,
         * length in blocks (a count, not 0-based), starting LBA; little
         * endian, as the host is */
        const uint32_t range[2] = {0, len >> shift};
        memcpy(buf, range, sizeof range);
        memcpy((char *)buf + sizeof range, &slba, sizeof slba);
        c->data_len = 16;
        c->cdw10 = 0;           /* number of ranges, 0-based: one */
        c->cdw11 = NVB__NVME_DSM_AD;
        c->cdw12 = 0;
    }
}
#endif /* NVB_HAVE_LIBURING */
#endif
