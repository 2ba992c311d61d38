/* The sync engines' shared state, reap() and teardown(): see done.h. */
#include "engines/done.h"

void *nvb__sync_new(const struct nvb__engine_ctx *ctx, size_t size, const char *name)
{
    struct nvb__sync *s = calloc(1, size < sizeof *s ? sizeof *s : size);
    if (!s || nvb__done_init(&s->done, ctx->qd) < 0) {
        free(s);
        nvb__why(ctx->why, ctx->why_len, "%s: out of memory", name);
        return NULL;
    }
    s->fds = ctx->fds;
    s->nfds = ctx->nfds;
    return s;
}

void nvb__sync_free(void *state)
{
    struct nvb__sync *s = state;
    if (!s)
        return;
    nvb__done_free(&s->done);
    free(s);
}

int nvb__sync_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    (void)min; /* everything submitted is already complete: never blocks */
    return (int)nvb__done_pop(&((struct nvb__sync *)state)->done, out, max);
}
