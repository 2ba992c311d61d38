/*
 * null: completes every I/O at once without touching any file.
 *
 * It measures the framework itself (runner loop, time stamps, histogram), so
 * its own cost must vanish next to those: submit() and reap() are a copy of
 * pointers through a power-of-two ring, no branches per I/O beyond the loop,
 * no system calls, no allocation after setup().
 */
#include "core/engine.h"

#include <errno.h>
#include <stdlib.h>

struct null_eng {
    unsigned mask;
    unsigned head, tail;
    struct nvb__io *ring[];
};

static int null_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    unsigned cap = 1;
    unsigned qd = ctx->qd ? ctx->qd : 1;
    while (cap < qd)
        cap <<= 1;
    struct null_eng *z = calloc(1, sizeof(*z) + cap * sizeof(z->ring[0]));
    if (!z) {
        nvb__why(ctx->why, ctx->why_len, "null: out of memory");
        return -ENOMEM;
    }
    z->mask = cap - 1;
    *state = z;
    return 0;
}

static int null_submit(void *state, struct nvb__io **ios, unsigned n)
{
    struct null_eng *z = state;
    unsigned tail = z->tail;
    if (tail - z->head + n > z->mask + 1)
        return -EOVERFLOW;  /* the runner exceeded qd */
    for (unsigned i = 0; i < n; i++) {
        struct nvb__io *io = ios[i];
        io->res = io->len;
        z->ring[tail++ & z->mask] = io;
    }
    z->tail = tail;
    return 0;
}

static int null_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct null_eng *z = state;
    (void)min;  /* all submitted slots are complete: never blocks */
    unsigned head = z->head;
    unsigned n = z->tail - head;
    if (n > max)
        n = max;
    for (unsigned i = 0; i < n; i++)
        out[i] = z->ring[head++ & z->mask];
    z->head = head;
    return (int)n;
}

static void null_teardown(void *state)
{
    free(state);
}

NVB__ENGINE_DEFINE(null, NVB__ENG_NO_FILES, nvb__engine_no_opts,
    "no I/O: completes every request at once (measures the framework)",
    .probe = nvb__engine_probe_ok, NVB__ENGINE_OPS(null));
