/*
 * io_uring's trims (engines/io_uring.c): a hole punched in a file
 * (IORING_OP_FALLOCATE, PUNCH_HOLE | KEEP_SIZE), a discard on a block
 * device (IORING_OP_URING_CMD with the block layer's discard command,
 * Linux 6.12; the planner opened it for writing, which the command needs).
 * Both complete with 0 on success.
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

static inline void nvb__uring_prep_trim(struct io_uring_sqe *sqe, int fd, int blk, uint64_t off, uint32_t len)
{
    if (!blk) {
        io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len);
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
