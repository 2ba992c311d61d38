/*
 * The loop's steps for block-size mixes (bssplit) and think time
 * (thinktime, thinktime_blocks): included by core/job.c alone, after its
 * LOOP_STEP, rng_below and struct loop_cfg, so that the compiler inlines
 * them into the loop. Without either key the loop takes one predictable
 * branch per I/O for each.
 */
#ifndef NVB_CORE_LOOPMIX_H
#define NVB_CORE_LOOPMIX_H

/* One I/O's direction, size and offset from the job's mix (core/bsmix.h):
 * the size drawn from the direction's 100-entry table; a random offset a
 * multiple of the direction's smallest size at which the size fits in the
 * region; a sequential one where the previous I/O of the target ended,
 * back to the region's start when the size no longer fits. io->bsk is the
 * size's index in the job's per-size counts. rng: the job's generator (the
 * loop's copy of j->rng). */
LOOP_STEP int bsmix_place(struct job *j, const struct loop_cfg *c, struct nvb__io *io, unsigned t, int measuring,
                          uint64_t *rng)
{
    struct nvb__bsmix *m = j->mix;
    const unsigned d = c->mixed ? (rng_below(rng, 100) < c->rwmix ? NVB_READ : NVB_WRITE) : (unsigned)c->wdir;
    unsigned k = m->pick[d][rng_below(rng, 100)];
    if (__builtin_expect(m->bytes_left != UINT64_MAX, 0) && measuring) {
        /* io_limit: the drawn size, or the largest smaller one that fits
         * what is left (sizes ascend); none: the budget is spent */
        while (k && m->size[d][k] > m->bytes_left)
            k--;
        if (m->size[d][k] > m->bytes_left) {
            m->spent = 1;
            return 0;
        }
        m->bytes_left -= m->size[d][k];
    }
    uint32_t len = m->size[d][k];
    uint64_t off;
    if (c->rnd) {
        const uint64_t r = nvb__splitmix64(rng);
        if (__builtin_expect(m->placed, 0)) { /* a distribution or the random map (may lower the size) */
            off = nvb__bsmix_place_off(m, j->dist, t, d, &k, r, rng);
            if (m->bytes_left != UINT64_MAX && measuring)
                m->bytes_left += len - m->size[d][k];
            len = m->size[d][k];
        } else {
            off = nvb__bsmix_rand_off(m, t, d, k, r);
        }
    } else {
        off = m->pos[t];
        if (off + len > m->len[t])
            off = 0;
        m->pos[t] = off + len;
    }
    io->off = j->st[t].region_off + off;
    io->dir = (uint8_t)d;
    io->len = len;
    io->bsk = (uint8_t)k;
    return 1;
}

/* A completed I/O counted by its size. */
LOOP_STEP void bsmix_count(const struct loop_cfg *c, struct nvb__dstat *ds, const struct nvb__io *io)
{
    if (c->mix)
        ds->bsc->count[io->bsk]++;
}

/* Think time: how many more I/Os may go before the next think. */
LOOP_STEP unsigned think_room(uint64_t think_ns, unsigned room, unsigned left)
{
    return think_ns && room > left ? left : room;
}

#endif
