/*
 * psync: one pread()/pwrite() per I/O, done inside submit(); a trim is one
 * BLKDISCARD on a block device, one fallocate() punching a hole in a file
 * (engines/trim.h).
 *
 * The baseline every other engine is compared with, and the engine that works
 * everywhere. Completed slots wait in a small FIFO until reap() hands them
 * back, so the runner drives it through the same submit/reap loop as the
 * asynchronous engines.
 */
#include "core/engine.h"

#include <errno.h>

#include "nvbench.h"

#ifndef _WIN32
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/iomode.h"

#include "engines/done.h"
#include "engines/trim.h"

struct psync {
    struct nvb__sync s;      /* first: the shared submit/reap take it */
    unsigned char *blk;      /* trims: which targets are block devices */
    unsigned rflags, wflags; /* RWF_* per read, per write (uncached, atomic, fua) */
    int zeroes;              /* trims write zeroes (write_zeroes=1) */
};

int nvb__iomode_probe(int fd, unsigned rflags, const char *engine, char *why, size_t whylen)
{
    if (!rflags)
        return 0;
    char b[1];
    struct iovec v = {b, 1};
    if (preadv2(fd, &v, 1, 0, (int)rflags) >= 0)
        return 0;
    int e = -errno;
    char names[64];
    nvb__iomode_name(rflags, names, sizeof names);
    snprintf(why, whylen, "%s: the kernel refused %s on this target: %s%s", engine, names, nvb_strerror(e),
             e == -EOPNOTSUPP || e == -EINVAL ? " (RWF_DONTCACHE needs Linux 6.14+ and a file system or block "
             "device that supports it)" : "");
    return e;
}

/* Both directions' flags, the kernel asked once with a read (a write would
 * change the target): the used entry says what each I/O carries. */
int nvb__iomode_setup(const struct nvb__engine_ctx *ctx, const char *engine)
{
    char names[64];
    for (unsigned i = 0; i < ctx->nfds; i++) {
        int rc = nvb__iomode_probe(ctx->fds[i], ctx->rflags, engine, ctx->why, ctx->why_len);
        if (rc < 0)
            return rc;
    }
    if (ctx->rflags | ctx->wflags) {
        nvb__iomode_name(ctx->rflags, names, sizeof names);
        nvb__used_set(ctx->used, "read_flags", "%s", names);
        nvb__iomode_name(ctx->wflags, names, sizeof names);
        nvb__used_set(ctx->used, "write_flags", "%s", names);
    }
    return 0;
}

static void psync_teardown(void *state)
{
    struct psync *p = state;
    if (p)
        free(p->blk);
    nvb__sync_free(state);
}

static int psync_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    struct psync *p = nvb__sync_new(ctx, sizeof(struct psync), "psync");
    if (!p)
        return -ENOMEM;
    p->rflags = ctx->rflags;
    p->wflags = ctx->wflags;
    p->zeroes = ctx->zeroes;
    if (ctx->zeroes && ctx->trims)
        nvb__used_set(ctx->used, "trims", "write zeroes (BLKZEROOUT on block devices, fallocate ZERO_RANGE on files)");
    int rc = nvb__trim_kinds(ctx, "psync", &p->blk);
    if (rc == 0)
        rc = nvb__iomode_setup(ctx, "psync");
    if (rc < 0) {
        psync_teardown(p);
        return rc;
    }
    *state = p;
    return 0;
}

static int64_t do_io(void *state, const struct nvb__io *io)
{
    const struct nvb__sync *p = state;
    if (io->target >= p->nfds)
        return -EBADF;
    int fd = p->fds[io->target];
    if (__builtin_expect(io->dir == NVB_TRIM, 0)) {
        const struct psync *t = state;
        return (t->zeroes ? nvb__zero_sync : nvb__trim_sync)(fd, t->blk[io->target], io->off, io->len);
    }
    ssize_t r;
    /* A short transfer is the result of this I/O, not something to finish
     * behind the runner's back: it is reported as is (EOF, device end). */
    const struct psync *ps = state;
    unsigned fl = io->dir == NVB_WRITE ? ps->wflags : ps->rflags;
    if (__builtin_expect(fl != 0, 0)) {
        struct iovec v = {io->buf, io->len};
        do
            r = io->dir == NVB_WRITE ? pwritev2(fd, &v, 1, (off_t)io->off, (int)fl)
                                     : preadv2(fd, &v, 1, (off_t)io->off, (int)fl);
        while (r < 0 && errno == EINTR);
        return r < 0 ? -(int64_t)errno : (int64_t)r;
    }
    do {
        if (io->dir == NVB_WRITE)
            r = pwrite(fd, io->buf, io->len, (off_t)io->off);
        else
            r = pread(fd, io->buf, io->len, (off_t)io->off);
    } while (r < 0 && errno == EINTR);
    return r < 0 ? -(int64_t)errno : (int64_t)r;
}

static int psync_submit(void *state, struct nvb__io **ios, unsigned n)
{
    return nvb__sync_submit(state, ios, n, do_io);
}

#endif /* _WIN32 */

NVB__ENGINE_DEFINE(psync, NVB__ENG_SYNC | NVB__ENG_TRIM, nvb__engine_no_opts,
    "pread(2)/pwrite(2), one synchronous I/O at a time (trims: BLKDISCARD, fallocate punch-hole)",
    NVB__ENGINE_IF(NVB__POSIX, "not on Windows (no pread/pwrite): use engine wsync, its Windows analogue",
        .probe = nvb__engine_probe_ok, .setup = psync_setup, .submit = psync_submit, .reap = nvb__sync_reap,
        .teardown = psync_teardown));
