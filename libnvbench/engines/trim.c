/* Trims (discards): see trim.h. */
#include "engines/trim.h"

#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "nvbench.h"

#ifdef __linux__
#include <linux/falloc.h>
#include <linux/fs.h>
#endif

int nvb__trim_kinds(const struct nvb__engine_ctx *ctx, const char *engine, unsigned char **blk)
{
    *blk = NULL;
    if (!ctx->trims)
        return 0;
    unsigned char *k = calloc(ctx->nfds ? ctx->nfds : 1, 1);
    if (!k) {
        nvb__why(ctx->why, ctx->why_len, "%s: out of memory", engine);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < ctx->nfds; i++) {
        struct stat st;
        if (fstat(ctx->fds[i], &st) < 0) {
            int e = errno;
            nvb__why(ctx->why, ctx->why_len, "%s: fstat of target %u: %s", engine, i, nvb_strerror(-e));
            free(k);
            return -e;
        }
        k[i] = S_ISBLK(st.st_mode) ? 1 : 0;
    }
    *blk = k;
    return 0;
}

/* A range done now: the block device's ioctl, or the file's fallocate mode. */
static int64_t range_sync(int fd, int blk, uint64_t off, uint32_t len, int zero)
{
#ifdef __linux__
    int r;
    if (blk) {
        uint64_t range[2] = {off, len};
        r = ioctl(fd, zero ? BLKZEROOUT : BLKDISCARD, range);
    } else {
        const int mode = (zero ? FALLOC_FL_ZERO_RANGE : FALLOC_FL_PUNCH_HOLE) | FALLOC_FL_KEEP_SIZE;
        do
            r = fallocate(fd, mode, (off_t)off, (off_t)len);
        while (r < 0 && errno == EINTR);
    }
    return r < 0 ? -(int64_t)errno : (int64_t)len;
#else
    (void)fd, (void)blk, (void)off, (void)len, (void)zero;
    return -ENOTSUP;
#endif
}

int64_t nvb__trim_sync(int fd, int blk, uint64_t off, uint32_t len)
{
    return range_sync(fd, blk, off, len, 0);
}

int64_t nvb__zero_sync(int fd, int blk, uint64_t off, uint32_t len)
{
    return range_sync(fd, blk, off, len, 1);
}
#endif /* _WIN32 */
