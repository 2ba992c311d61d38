/*
 * null: completes every I/O at once without touching any file.
 *
 * It measures the framework itself (runner loop, time stamps, histogram), so
 * its own cost must vanish next to those: submit() and reap() are a copy of
 * pointers through a power-of-two ring (engines/done.h, inline), no branches
 * per I/O beyond the loop, no system calls, no allocation after setup().
 */
#include "core/engine.h"

#include <errno.h>

#include "engines/done.h"

static int null_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    *state = nvb__sync_new(ctx, sizeof(struct nvb__sync), "null");
    return *state ? 0 : -ENOMEM;
}

static int64_t null_io(void *state, const struct nvb__io *io)
{
    (void)state;
    return io->len;
}

static int null_submit(void *state, struct nvb__io **ios, unsigned n)
{
    return nvb__sync_submit(state, ios, n, null_io);
}

NVB__ENGINE_DEFINE(null, NVB__ENG_NO_FILES | NVB__ENG_TRIM, nvb__engine_no_opts,
    "no I/O: completes every request at once, trims too (measures the framework)",
    .probe = nvb__engine_probe_ok, .setup = null_setup, .submit = null_submit, .reap = nvb__sync_reap,
    .teardown = nvb__sync_free);
