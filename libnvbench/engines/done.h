/*
 * Slots an engine has completed before reap() hands them back (internal):
 * a FIFO of pointers whose size is a power of two >= qd. null completes
 * every I/O at once and psync and wsync inside submit() (the "sync"
 * engines below); libaio and iocp keep here the I/Os that failed at issue
 * or finished without a completion event. Inline, since null, psync and
 * wsync go through it once per I/O.
 */
#ifndef NVB_ENGINES_DONE_H
#define NVB_ENGINES_DONE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/engine.h"

struct nvb__done {
    unsigned mask, head, tail;
    struct nvb__io **io;
};

/* Room for qd slots (at least one): 0 or -ENOMEM. */
static inline int nvb__done_init(struct nvb__done *d, unsigned qd)
{
    unsigned cap = 1;
    while (cap < qd)
        cap <<= 1;
    d->mask = cap - 1;
    d->head = d->tail = 0;
    d->io = calloc(cap, sizeof *d->io);
    return d->io ? 0 : -ENOMEM;
}

static inline void nvb__done_free(struct nvb__done *d)
{
    free(d->io);
    d->io = NULL;
}

/* Slots waiting. */
static inline unsigned nvb__done_len(const struct nvb__done *d)
{
    return d->tail - d->head;
}

/* Is there room for n more? */
static inline int nvb__done_room(const struct nvb__done *d, unsigned n)
{
    return d->tail - d->head + n <= d->mask + 1;
}

/* io completed with res (bytes, or -errno). */
static inline void nvb__done_push(struct nvb__done *d, struct nvb__io *io, int64_t res)
{
    io->res = res;
    d->io[d->tail++ & d->mask] = io;
}

/* Hand back up to max of the waiting slots, oldest first, into out: the
 * count. */
static inline unsigned nvb__done_pop(struct nvb__done *d, struct nvb__io **out, unsigned max)
{
    unsigned head = d->head, n = d->tail - head;
    if (n > max)
        n = max;
    for (unsigned i = 0; i < n; i++)
        out[i] = d->io[head++ & d->mask];
    d->head = head;
    return n;
}

/*
 * The engines that finish every I/O inside submit() (psync, wsync, null):
 * their state starts with a struct nvb__sync, submit() does each I/O and
 * queues it, reap() hands back what is queued and never blocks.
 */
struct nvb__sync {
    struct nvb__done done;
    const int *fds;          /* ctx->fds, one per target */
    unsigned nfds;
};

/* A state of `size` bytes (the engine's struct, starting with a struct
 * nvb__sync) for ctx, zeroed but for that start; NULL with ctx->why
 * "<name>: out of memory". */
void *nvb__sync_new(const struct nvb__engine_ctx *ctx, size_t size, const char *name);
/* The teardown() of a state from nvb__sync_new() that holds nothing else. */
void nvb__sync_free(void *state);
/* The reap() of these engines. */
int nvb__sync_reap(void *state, struct nvb__io **out, unsigned max, unsigned min);

/* The submit() of these engines: io->res = do_io(state, io) for each,
 * -EOVERFLOW when the runner exceeds qd. do_io is a constant at every
 * call site, so the compiler inlines it. */
typedef int64_t nvb__sync_io_fn(void *state, const struct nvb__io *io);
static inline __attribute__((always_inline)) int nvb__sync_submit(void *state, struct nvb__io **ios, unsigned n,
                                                                  nvb__sync_io_fn *do_io)
{
    struct nvb__done *d = &((struct nvb__sync *)state)->done;
    if (!nvb__done_room(d, n))
        return -EOVERFLOW; /* the runner exceeded qd: a bug, stop the run */
    for (unsigned i = 0; i < n; i++)
        nvb__done_push(d, ios[i], do_io(state, ios[i]));
    return 0;
}

#endif
