/*
 * verify_readback: a job's read-back of what it wrote (fio's do_verify,
 * which reads back the pieces of I/O its write pass logged). The job's map
 * of written blocks (job_setup.c: job_verify_stripes, set by each whole
 * write that completed) says which blocks to read: a write pass cut short
 * by its runtime, or random writes that skipped blocks, read back exactly
 * what they wrote, and a block never written is never read, so it can
 * never count as a mismatch. The reads are checked as the loop's are
 * (nvb__job_readback_done); they come after the measured window, so no
 * figure but verify's counts them.
 *
 * verify_backlog reads back, the same way, the blocks of the last N writes
 * (j->blog): in the loop, once it has let what was in flight complete, and
 * once more for what is left when the writes end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "core/run.h"

/* The next written block from (*t, *blk) on: 1 and the position, or 0. */
static int next_written(const struct job *j, unsigned *t, uint64_t *blk)
{
    for (; *t < j->nt; (*t)++, *blk = 0) {
        const uint64_t *map = j->vmap + j->vmapo[*t];
        for (uint64_t b = *blk; b < j->nblocks[*t];) {
            const uint64_t word = map[b / 64] >> (b % 64);
            if (!word) {
                b = (b / 64 + 1) * 64;
                continue;
            }
            *blk = b + (uint64_t)__builtin_ctzll(word);
            if (*blk >= j->nblocks[*t])
                break;
            return 1;
        }
    }
    return 0;
}

/* Where a read-back is: the map's next block (*t, *blk), or the backlog's
 * next entry (i, with backlog set). */
struct rb_pos {
    unsigned t;
    uint64_t blk, i;
    int      backlog;
};

/* The next block to read: 1 and the position in p->t and p->blk, or 0. */
static int next_block(const struct job *j, struct rb_pos *p)
{
    if (!p->backlog)
        return next_written(j, &p->t, &p->blk);
    if (p->i == j->blog_n)
        return 0;
    const uint64_t key = j->blog[p->i++] - 1; /* loopverify.h's vkey_of */
    p->t = (unsigned)(key >> 48);
    p->blk = key & ((1ull << 48) - 1);
    return 1;
}

/* Up to room reads of the next blocks into j->batch; their count. */
static unsigned prepare(struct job *j, unsigned room, unsigned *nfree, struct rb_pos *p)
{
    const uint32_t bs = (uint32_t)j->run->w->bs;
    unsigned n = 0;
    while (n < room && next_block(j, p)) {
        struct nvb__io *io = j->freel[--*nfree];
        io->target = (uint16_t)p->t;
        io->dir = NVB_READ;
        io->len = bs;
        io->off = j->st[p->t].region_off + (j->vrank[p->t] + j->vstride[p->t] * p->blk) * bs;
        io->flags = NVB__IOF_RAMP | NVB__IOF_INFLIGHT;
        io->res = 0;
        io->t_done = 0;
        j->batch[n++] = io;
        ++p->blk;
    }
    return n;
}

/* The engine failed outside an I/O: the job and the run stop. */
static void engine_failed(struct job *j, const char *what, int rc)
{
    j->rc = rc;
    snprintf(j->why, sizeof j->why, "engine %s: verify_readback: %s failed: %s", j->run->p->eng->name, what,
             nvb_strerror(rc));
    __atomic_store_n(&j->run->stop, 1, __ATOMIC_RELAXED);
}

static void readback(struct job *j, struct rb_pos *pos)
{
    const unsigned qd = j->run->p->qd;
    unsigned nfree = 0, inflight = 0;
    for (unsigned i = 0; i < qd; i++) /* the loop ended with nothing in flight: every I/O is free */
        j->freel[nfree++] = &j->ios[i];
    for (;;) {
        const int stopping = nvb__run_stopping(j->run);
        unsigned n = stopping ? 0 : prepare(j, nfree, &nfree, pos);
        if (n) {
            int rc = j->submit(j->io_state, j->batch, n);
            if (rc < 0) {
                engine_failed(j, "submit", rc);
                return;
            }
            inflight += n;
        }
        if (!inflight)
            return;
        int got = j->reap(j->io_state, j->done, qd, 1);
        if (got == -EINTR || got == -EAGAIN)
            continue;
        if (got < 0) {
            engine_failed(j, "reaping completions", got); /* in-flight I/O is the engine's teardown's */
            return;
        }
        for (int i = 0; i < got; i++) {
            struct nvb__io *io = j->done[i];
            io->flags &= (uint8_t)~NVB__IOF_INFLIGHT;
            j->freel[nfree++] = io;
            nvb__job_readback_done(j, io);
        }
        inflight -= (unsigned)got;
    }
}

void nvb__job_readback(struct job *j)
{
    struct rb_pos pos = {0};
    readback(j, &pos);
}

void nvb__job_backlog(struct job *j)
{
    struct rb_pos pos = {.backlog = 1};
    readback(j, &pos);
    j->blog_n = 0;
}
