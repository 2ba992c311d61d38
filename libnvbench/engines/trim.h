/*
 * Trims (discards) for the engines that issue them (psync, io_uring): what
 * each target is, and the one synchronous trim.
 *
 * A trim of [off, off + len) on a block device is a discard (BLKDISCARD, or
 * io_uring's block discard command); on a regular file it punches a hole
 * (fallocate PUNCH_HOLE | KEEP_SIZE): the range reads back as zeros and the
 * file keeps its size. A trim that succeeds transfers its whole length.
 */
#ifndef NVB_ENGINES_TRIM_H
#define NVB_ENGINES_TRIM_H

#include <stdint.h>

#include "core/engine.h"

#ifndef _WIN32
/* Which of ctx's targets are block devices: *blk gets ctx->nfds bytes
 * (1: block device, 0: anything else), NULL when the workload does not
 * trim. 0, or -errno with ctx->why naming the engine. */
int nvb__trim_kinds(const struct nvb__engine_ctx *ctx, const char *engine, unsigned char **blk);
/* One trim, done now: len, or -errno. */
int64_t nvb__trim_sync(int fd, int blk, uint64_t off, uint32_t len);
/* One write of zeroes over [off, off + len), done now (write_zeroes=1):
 * BLKZEROOUT on a block device, fallocate ZERO_RANGE | KEEP_SIZE on a
 * file. len, or -errno (-EOPNOTSUPP: a file system without ZERO_RANGE). */
int64_t nvb__zero_sync(int fd, int blk, uint64_t off, uint32_t len);
#endif

#endif
