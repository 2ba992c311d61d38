/*
 * psync: one pread()/pwrite() per I/O, done inside submit().
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
#include <unistd.h>

#include "engines/done.h"

static int psync_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    *state = nvb__sync_new(ctx, sizeof(struct nvb__sync), "psync");
    return *state ? 0 : -ENOMEM;
}

static int64_t do_io(void *state, const struct nvb__io *io)
{
    const struct nvb__sync *p = state;
    if (io->target >= p->nfds)
        return -EBADF;
    int fd = p->fds[io->target];
    ssize_t r;
    /* A short transfer is the result of this I/O, not something to finish
     * behind the runner's back: it is reported as is (EOF, device end). */
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

NVB__ENGINE_DEFINE(psync, NVB__ENG_SYNC, nvb__engine_no_opts, "pread(2)/pwrite(2), one synchronous I/O at a time",
    NVB__ENGINE_IF(NVB__POSIX, "not on Windows (no pread/pwrite): use engine wsync, its Windows analogue",
        .probe = nvb__engine_probe_ok, .setup = psync_setup, .submit = psync_submit, .reap = nvb__sync_reap,
        .teardown = nvb__sync_free));
