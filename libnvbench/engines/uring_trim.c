/* io_uring's trims: see uring_trim.h. */
#include "engines/uring_trim.h"

#if NVB_HAVE_LIBURING
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>

#include "engines/ring.h"
#include "engines/trim.h"

/* The kernel's release is at least major.minor. */
static int kernel_at_least(int major, int minor)
{
    struct utsname u;
    int a = 0, b = 0;
    if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &a, &b) != 2)
        return 0;
    return a > major || (a == major && b >= minor);
}

int nvb__uring_trim_setup(const struct nvb__engine_ctx *ctx, unsigned char **blk)
{
    int rc = nvb__trim_kinds(ctx, "io_uring", blk);
    if (rc < 0 || !*blk)
        return rc;
    int files = 0, devices = 0;
    for (unsigned i = 0; i < ctx->nfds; i++)
        (*blk)[i] ? devices++ : files++;
    const int fall = IORING_OP_FALLOCATE, cmd = IORING_OP_URING_CMD;
    const char *why = NULL;
    if (ctx->zeroes && nvb__ring_probe(0, &fall, 1) != 1)
        why = "write_zeroes=1 needs IORING_OP_FALLOCATE (Linux 5.6); engine psync zeroes with BLKZEROOUT and "
              "fallocate(2)";
    else if (files && !ctx->zeroes && nvb__ring_probe(0, &fall, 1) != 1)
        why = "trims of a file need IORING_OP_FALLOCATE (Linux 5.6); engine psync punches holes with fallocate(2)";
    else if (devices && !ctx->zeroes && (nvb__ring_probe(0, &cmd, 1) != 1 || !kernel_at_least(6, 12)))
        why = "trims of a block device need io_uring's block discard command (Linux 6.12); engine psync "
              "discards with BLKDISCARD";
    if (!why) {
        if (ctx->zeroes)
            nvb__used_set(ctx->used, "trims", "write zeroes (IORING_OP_FALLOCATE with FALLOC_FL_ZERO_RANGE, on "
                          "block devices and files)");
        return 0;
    }
    nvb__why(ctx->why, ctx->why_len, "io_uring: rw=trim/randtrim: %s", why);
    free(*blk);
    *blk = NULL;
    return -ENOTSUP;
}
#endif
