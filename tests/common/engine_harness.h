/*
 * Driving one engine directly, as the runner would (tests only): the
 * harness shared by the Check suite tests/c/test_engines.c and the QEMU
 * rig's tests/vm/vmtest.c. Plain C, no test framework: failures come back
 * as return values with the reason in text, and each caller reports them
 * its own way.
 */
#ifndef NVB_TESTS_ENGINE_HARNESS_H
#define NVB_TESTS_ENGINE_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine.h"

#define TH_QMAX 64

/* An engine option by name: {"sqpoll", 1}; lists end with {NULL, 0}. */
struct th_kv {
    const char *k;
    int64_t v;
};

/* One engine set up on one target. */
struct th {
    const struct nvb__engine *e;
    void *st;                  /* the engine's state; NULL when setup failed */
    unsigned qd;               /* 1 for a synchronous engine */
    size_t bs;
    int fd;
    void *bufs[TH_QMAX];       /* qd buffers of bs bytes, 4 KiB aligned, zeroed */
    struct nvb__io io[TH_QMAX];
    int64_t opts[NVB__ENGINE_MAX_OPTS];
    unsigned char set[NVB__ENGINE_MAX_OPTS];
    struct nvb__used used;     /* what the engine says it used */
    char why[256];             /* why a step failed */
    int harness_err;           /* th_open() failed before setup() (no engine, option, memory) */
};

/* Set up engine `name` on fd with qd buffers of bs bytes (direct: the
 * target is O_DIRECT) and the options kv (may be NULL). Returns setup()'s
 * result, or -ENOENT (no such engine), -EINVAL (no such option, qd above
 * TH_QMAX), -ENOMEM; why says what failed. th_close() in every case. */
int th_open(struct th *h, const char *name, int fd, unsigned qd, size_t bs, int direct, const struct th_kv *kv);
void th_close(struct th *h);

/* What the engine reported it used under `key`, or NULL. */
const char *th_used(const struct nvb__used *u, const char *key);

/* Content of the block at byte `off` for test `seed`: differs per block
 * and per test. */
void th_pattern(void *buf, size_t len, uint64_t off, uint64_t seed);

/* Move nblk blocks of bs bytes from byte `base` on (in a scattered order)
 * through the engine, like the runner: refill free slots, submit the
 * batch, reap with a varying min (1, everything in flight, 0 = poll).
 * Writes carry th_pattern(); reads are compared with it byte for byte.
 * Every block must complete exactly once and nothing may be left over.
 * 0, or -1 with the first problem in err. */
int th_transfer(struct th *h, int dir, uint64_t seed, uint64_t base, unsigned nblk, char *err, size_t elen);

#endif
