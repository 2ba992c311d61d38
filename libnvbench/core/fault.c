/* Fault injection around any engine: see fault.h. */
#include "core/fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/rand.h"
#include "platform/platform.h"

/* While delayed completions wait and the engine still has I/O in flight,
 * the engine is polled at this period: its reap() has no timeout, so a
 * blocking wait could sleep through a due completion. */
#define POLL_NS 50000ull
/* Longest sleep before reap() returns (maybe with fewer than min) so the
 * runner can notice a stop and expire what is held back. */
#define MAX_SLEEP_NS 10000000ull

struct held {
    struct nvb__io *io;
    uint64_t due;
};

struct nvb__fault {
    const struct nvb__engine *inner;
    void *ist;
    unsigned qd, cap;              /* cap: power of two >= qd */
    uint64_t rng;
    uint64_t err_thr, short_thr, delay_thr; /* probabilities as thresholds on a 64-bit draw */
    int      err;
    uint64_t delay_ns;
    uint32_t align;
    const uint64_t *wait_ns;
    unsigned in_engine;            /* slots the engine holds */
    unsigned rhead, rtail;         /* completed, waiting to be handed back (FIFO) */
    unsigned dhead, dtail;         /* held back; the delay is constant, so due order is FIFO order */
    uint32_t *orig_len;            /* per slot: the length the runner asked for */
    struct nvb__io **ready;
    struct held *held;
    struct nvb__io **pass;         /* the part of a batch the engine sees */
    struct nvb__io **got;          /* what the engine's reap returned */
};

static uint64_t threshold(double p)
{
    if (!(p > 0))
        return 0;
    if (p >= 1)
        return UINT64_MAX;
    return (uint64_t)(p * 18446744073709551616.0);
}

static inline int happens(uint64_t *s, uint64_t thr)
{
    if (!thr)
        return 0;
    uint64_t r = nvb__splitmix64(s); /* the runner's generator, its own state */
    return thr == UINT64_MAX || r < thr;
}

int nvb__fault_new(const struct nvb__fault_cfg *cfg, const struct nvb__engine *inner, void *inner_state,
                   unsigned qd, struct nvb__fault **out)
{
    *out = NULL;
    struct nvb__fault *f = calloc(1, sizeof *f);
    if (!f)
        return -ENOMEM;
    unsigned cap = 1;
    while (cap < qd)
        cap <<= 1;
    f->inner = inner;
    f->ist = inner_state;
    f->qd = qd;
    f->cap = cap;
    f->rng = cfg->seed;
    f->err_thr = threshold(cfg->rate);
    f->short_thr = threshold(cfg->short_rate);
    f->delay_thr = cfg->delay_ns ? threshold(cfg->delay_rate) : 0;
    f->err = cfg->err > 0 ? cfg->err : EIO;
    f->delay_ns = cfg->delay_ns;
    f->align = cfg->align ? cfg->align : 1;
    f->wait_ns = cfg->wait_ns;
    f->orig_len = calloc(qd, sizeof *f->orig_len);
    f->ready = calloc(cap, sizeof *f->ready);
    f->held = calloc(cap, sizeof *f->held);
    f->pass = calloc(qd, sizeof *f->pass);
    f->got = calloc(qd, sizeof *f->got);
    if (!f->orig_len || !f->ready || !f->held || !f->pass || !f->got) {
        nvb__fault_free(f);
        return -ENOMEM;
    }
    *out = f;
    return 0;
}

void nvb__fault_free(struct nvb__fault *f)
{
    if (!f)
        return;
    free(f->orig_len);
    free(f->ready);
    free(f->held);
    free(f->pass);
    free(f->got);
    free(f);
}

int nvb__fault_submit(void *state, struct nvb__io **ios, unsigned n)
{
    struct nvb__fault *f = state;
    unsigned np = 0, failed = 0;
    for (unsigned i = 0; i < n; i++) {
        struct nvb__io *io = ios[i];
        io->flags &= (uint8_t)~NVB__IOF_FAULT_ALL;
        if (happens(&f->rng, f->err_thr)) {
            io->res = -(int64_t)f->err;
            io->flags |= NVB__IOF_FAULT_ERR;
            f->ready[f->rtail++ & (f->cap - 1)] = io;
            failed++;
            continue;
        }
        if (happens(&f->rng, f->short_thr)) {
            f->orig_len[io->slot] = io->len;
            uint32_t half = io->len / 2 / f->align * f->align;
            if (half)
                io->len = half; /* else the engine's answer is cut in reap() */
            io->flags |= NVB__IOF_FAULT_SHORT;
        }
        if (happens(&f->rng, f->delay_thr))
            io->flags |= NVB__IOF_FAULT_DELAY;
        f->pass[np++] = io;
    }
    if (np) {
        int rc = f->inner->submit(f->ist, f->pass, np);
        if (rc < 0) {
            /* The runner takes the whole batch back: forget this batch's
             * failed slots and give the shortened ones their length back. */
            f->rtail -= failed;
            for (unsigned i = 0; i < np; i++)
                if (f->pass[i]->flags & NVB__IOF_FAULT_SHORT)
                    f->pass[i]->len = f->orig_len[f->pass[i]->slot];
            return rc;
        }
        f->in_engine += np;
    }
    return (int)failed; /* the runner leaves these out of its submissions */
}

/* Hand back what is ready; `out` overflow (a caller asking for fewer than
 * it has in flight) stays queued for the next call. */
static void put(struct nvb__fault *f, struct nvb__io **out, unsigned max, unsigned *got, struct nvb__io *io)
{
    if (*got < max)
        out[(*got)++] = io;
    else
        f->ready[f->rtail++ & (f->cap - 1)] = io;
}

unsigned nvb__fault_in_engine(const struct nvb__fault *f)
{
    return f->in_engine;
}

int nvb__fault_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct nvb__fault *f = state;
    unsigned got = 0;
    int polled = 0;
    uint64_t deadline = 0; /* of the wait bound, set at the first sleep */
    if (min > max)
        min = max;
    for (;;) {
        while (got < max && f->rhead != f->rtail)
            out[got++] = f->ready[f->rhead++ & (f->cap - 1)];
        if (f->dhead != f->dtail) {
            uint64_t now = nvb__now_ns();
            while (got < max && f->dhead != f->dtail && f->held[f->dhead & (f->cap - 1)].due <= now)
                out[got++] = f->held[f->dhead++ & (f->cap - 1)].io;
        }
        /* The engine is asked at least once: its reap() also submits what
         * its submit() deferred. */
        if (polled && got >= min)
            return (int)got;
        if (polled && !f->in_engine && f->dhead == f->dtail && f->rhead == f->rtail)
            return (int)got; /* nothing left anywhere */
        unsigned want = 0;
        if (got < min && f->dhead == f->dtail)
            want = min - got; /* only the engine can deliver: block in it */
        if (want > f->in_engine)
            want = f->in_engine;
        int n = f->inner->reap(f->ist, f->got, f->qd, want);
        polled = 1;
        if (n < 0)
            return got ? (int)got : n;
        f->in_engine -= (unsigned)n;
        uint64_t now = 0;
        for (int i = 0; i < n; i++) {
            struct nvb__io *io = f->got[i];
            if (io->flags & NVB__IOF_FAULT_SHORT) {
                uint32_t want_len = f->orig_len[io->slot];
                if (io->len == want_len) {
                    /* not shortened on the way in: cut the answer */
                    int64_t half = want_len / 2 / f->align * f->align;
                    if (io->res > half)
                        io->res = half;
                }
                io->len = want_len;
            }
            if (io->flags & NVB__IOF_FAULT_DELAY) {
                io->t_done = 0; /* completes when handed back: the runner stamps it then */
                if (!now)
                    now = nvb__now_ns();
                struct held *h = &f->held[f->dtail++ & (f->cap - 1)];
                h->io = io;
                h->due = now + f->delay_ns;
            } else {
                put(f, out, max, &got, io);
            }
        }
        if (got >= min)
            continue; /* hand back what is due too, then return */
        if (f->dhead != f->dtail) {
            uint64_t t = nvb__now_ns(), due = f->held[f->dhead & (f->cap - 1)].due;
            if (due > t) {
                uint64_t s = due - t, bound = nvb__wait_bound(f->wait_ns);
                if (bound) {
                    if (!deadline)
                        deadline = t + bound;
                    if (t >= deadline)
                        return (int)got;
                    if (s > deadline - t)
                        s = deadline - t;
                }
                if (f->in_engine && s > POLL_NS)
                    s = POLL_NS;
                if (s > MAX_SLEEP_NS) {
                    nvb__sleep_ns(MAX_SLEEP_NS);
                    return (int)got;
                }
                nvb__sleep_ns(s);
            }
        }
    }
}

void nvb__fault_expire(struct nvb__fault *f)
{
    for (unsigned i = f->dhead; i != f->dtail; i++)
        f->held[i & (f->cap - 1)].due = 0;
}
