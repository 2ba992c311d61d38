/* See engine_harness.h. */
#include "engine_harness.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvbench.h"

int th_open(struct th *h, const char *name, int fd, unsigned qd, size_t bs, int direct, const struct th_kv *kv)
{
    memset(h, 0, sizeof *h);
    h->e = nvb__engine_find(name);
    if (!h->e) {
        snprintf(h->why, sizeof h->why, "no engine %s", name);
        h->harness_err = 1;
        return -ENOENT;
    }
    if (h->e->flags & NVB__ENG_SYNC)
        qd = 1;
    if (qd > TH_QMAX) {
        snprintf(h->why, sizeof h->why, "qd %u is above the harness's %u", qd, TH_QMAX);
        h->harness_err = 1;
        return -EINVAL;
    }
    h->qd = qd;
    h->bs = bs;
    h->fd = fd;
    for (unsigned i = 0; i < qd; i++) {
        if (posix_memalign(&h->bufs[i], 4096, bs) != 0) {
            h->bufs[i] = NULL;
            snprintf(h->why, sizeof h->why, "out of memory for %u buffers of %zu bytes", qd, bs);
            h->harness_err = 1;
            return -ENOMEM;
        }
        memset(h->bufs[i], 0, bs);
    }
    for (int i = 0; h->e->opts && h->e->opts[i].name; i++)
        h->opts[i] = h->e->opts[i].def;
    for (; kv && kv->k; kv++) {
        int i = nvb__engine_opt_index(h->e, kv->k);
        if (i < 0) {
            snprintf(h->why, sizeof h->why, "%s has no option %s", name, kv->k);
            h->harness_err = 1;
            return -EINVAL;
        }
        h->opts[i] = kv->v;
        h->set[i] = 1;
    }
    struct nvb__engine_ctx ctx = {
        .qd = qd, .nfds = 1, .fds = &h->fd, .direct = direct, .writes = 1, .bufs = h->bufs, .buf_len = bs,
        .cpu = -1, .opts = h->opts, .opts_set = h->set, .used = &h->used, .why = h->why, .why_len = sizeof h->why,
    };
    int r = h->e->setup(&ctx, &h->st);
    if (r < 0)
        h->st = NULL;
    return r;
}

void th_close(struct th *h)
{
    if (h->st)
        h->e->teardown(h->st);
    h->st = NULL;
    for (unsigned i = 0; i < h->qd; i++) {
        free(h->bufs[i]);
        h->bufs[i] = NULL;
    }
}

const char *th_used(const struct nvb__used *u, const char *key)
{
    for (unsigned i = 0; i < u->n; i++)
        if (strcmp(u->kv[i].key, key) == 0)
            return u->kv[i].val;
    return NULL;
}

void th_pattern(void *buf, size_t len, uint64_t off, uint64_t seed)
{
    uint64_t x = (off + 1) * 0x9e3779b97f4a7c15ull ^ seed * 0xbf58476d1ce4e5b9ull;
    uint64_t *w = buf;
    for (size_t i = 0; i < len / 8; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        w[i] = x ^ off;
    }
}

int th_transfer(struct th *h, int dir, uint64_t seed, uint64_t base, unsigned nblk, char *err, size_t elen)
{
    unsigned freel[TH_QMAX], nfree = h->qd, issued = 0, done = 0, inflight = 0, iter = 0;
    struct nvb__io *batch[TH_QMAX], *out[TH_QMAX];
    unsigned char *seen = calloc(nblk, 1);
    void *expect = NULL;
    int rc = -1;
    if (!seen || posix_memalign(&expect, 4096, h->bs) != 0) {
        snprintf(err, elen, "out of memory");
        expect = NULL;
        goto out;
    }
    for (unsigned i = 0; i < h->qd; i++)
        freel[i] = h->qd - 1 - i;
    while (done < nblk) {
        unsigned nb = 0;
        while (nfree && issued < nblk) {
            unsigned slot = freel[--nfree];
            struct nvb__io *io = &h->io[slot];
            uint64_t blk = (uint64_t)issued * 37u % nblk; /* 37: coprime with the powers of two used */
            memset(io, 0, sizeof *io);
            io->buf = h->bufs[slot];
            io->off = base + blk * h->bs;
            io->len = (uint32_t)h->bs;
            io->slot = slot;
            io->dir = (uint8_t)dir;
            io->res = INT64_MIN;
            if (dir == NVB_WRITE)
                th_pattern(io->buf, h->bs, io->off, seed);
            else
                memset(io->buf, 0xa5, h->bs);
            batch[nb++] = io;
            issued++;
        }
        if (nb) {
            int r = h->e->submit(h->st, batch, nb);
            if (r < 0) {
                snprintf(err, elen, "%s: submit: %s", h->e->name, strerror(-r));
                goto out;
            }
            inflight += nb;
        }
        unsigned min = iter % 3 == 0 ? 1 : iter % 3 == 1 ? inflight : 0;
        iter++;
        int r = h->e->reap(h->st, out, h->qd, min);
        if (r < (int)min || (unsigned)r > inflight) {
            snprintf(err, elen, "%s: reap(min %u) returned %d with %u in flight", h->e->name, min, r, inflight);
            goto out;
        }
        for (int i = 0; i < r; i++) {
            struct nvb__io *io = out[i];
            if (io < h->io || io >= h->io + h->qd) {
                snprintf(err, elen, "%s: reap returned a slot it was not given", h->e->name);
                goto out;
            }
            if (io->res != (int64_t)h->bs) {
                snprintf(err, elen, "%s: %s at %" PRIu64 ": res %" PRId64, h->e->name,
                         dir == NVB_WRITE ? "write" : "read", io->off, io->res);
                goto out;
            }
            uint64_t blk = (io->off - base) / h->bs;
            if (seen[blk]) {
                snprintf(err, elen, "%s: block %" PRIu64 " completed twice", h->e->name, blk);
                goto out;
            }
            seen[blk] = 1;
            if (dir == NVB_READ) {
                th_pattern(expect, h->bs, io->off, seed);
                if (memcmp(expect, io->buf, h->bs) != 0) {
                    snprintf(err, elen, "%s: the block at byte %" PRIu64 " differs from what was written",
                             h->e->name, io->off);
                    goto out;
                }
            }
            freel[nfree++] = io->slot;
        }
        inflight -= (unsigned)r;
        done += (unsigned)r;
    }
    if (h->e->reap(h->st, out, h->qd, 0) != 0) {
        snprintf(err, elen, "%s: a completion was left over", h->e->name);
        goto out;
    }
    rc = 0;
out:
    free(expect);
    free(seen);
    return rc;
}
