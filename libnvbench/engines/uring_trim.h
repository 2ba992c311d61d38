/*
 * io_uring's trims (engines/io_uring.c): a hole punched in a file
 * (IORING_OP_FALLOCATE, PUNCH_HOLE | KEEP_SIZE), a discard on a block
 * device (IORING_OP_URING_CMD with the block layer's discard command,
 * Linux 6.12; the planner opened it for writing, which the command needs).
 * With write_zeroes=1 a range zeroed instead, on files and block devices
 * alike (IORING_OP_FALLOCATE, ZERO_RANGE | KEEP_SIZE: on a block device
 * the kernel's blkdev_fallocate writes zeroes as BLKZEROOUT does, without
 * unmapping; io_uring has no write-zeroes opcode or block command of its
 * own). All complete with 0 on success.
 */
#ifndef NVB_ENGINES_URING_TRIM_H
#define NVB_ENGINES_URING_TRIM_H

#include "core/engine.h"

#if NVB_HAVE_LIBURING
#include <liburing.h>
#include <linux/falloc.h>
#include <string.h>

/* The block layer's io_uring discard command (uapi linux/fs.h, 6.12):
 * _IO(0x12, 0); liburing before 2.8 and older kernel headers lack it. */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD 0x1200u
#endif

/* Which targets are block devices (*blk, NULL without trims); the kernel
 * must have the opcodes the trims need. 0, or -errno with ctx->why. */
int nvb__uring_trim_setup(const struct nvb__engine_ctx *ctx, unsigned char **blk);

/* What a target's trim SQEs are (nvb__uring_prep_trim's kind). */
enum { NVB__UTRIM_HOLE = 0, NVB__UTRIM_DISCARD = 1, NVB__UTRIM_ZERO = 2 };
static inline int nvb__uring_trim_kind(int blk, int zeroes)
{
    return zeroes ? NVB__UTRIM_ZERO : blk ? NVB__UTRIM_DISCARD : NVB__UTRIM_HOLE;
}

static inline void nvb__uring_prep_trim(struct io_uring_sqe *sqe, int fd, int kind, uint64_t off, uint32_t len)
{
    if (kind != NVB__UTRIM_DISCARD) {
        io_uring_prep_fallocate(sqe, fd, (kind == NVB__UTRIM_ZERO ? FALLOC_FL_ZERO_RANGE : FALLOC_FL_PUNCH_HOLE) |
                                FALLOC_FL_KEEP_SIZE, off, len);
        return;
    }
    memset(sqe, 0, sizeof *sqe);
    sqe->opcode = IORING_OP_URING_CMD;
    sqe->fd = fd;
    sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
    sqe->addr = off;
    sqe->addr3 = len;
}
#endif

#endif
