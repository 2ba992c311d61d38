/*
 * Engine behaviour through the internal interface (core/engine.h).
 *
 * A small harness stands in for the runner: it owns the slots and the
 * buffers, fills the options with the engine's defaults, and drives
 * setup/submit/reap/teardown. Every available engine (and the io_uring
 * variants that take different code paths) runs the same tests; data written
 * by one engine is read back by every other one.
 *
 * The "denied" cases go through the public API instead: when the kernel
 * refuses io_uring (a seccomp filter) or the buffers it would pin
 * (RLIMIT_MEMLOCK as an unprivileged user), what matters is what a caller
 * of nvb_run() is told.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/engine.h"
#include "util/json.h"
#include "testutil.h"
#include "engine_harness.h"
#if NVB_HAVE_LIBURING
#include "engines/ring.h"
#endif

#define QMAX TH_QMAX
#define BS 4096u
#define REGION (4u << 20)
#define NBLK (REGION / BS)

/* The shared harness (tests/common/engine_harness.c), with this suite's
 * assertions: an unknown engine or option is a bug in the test, a failed
 * setup must say why. Returns setup()'s result. */
static int h_open(struct th *h, const char *name, int fd, unsigned qd, size_t bs, int direct,
                  const struct th_kv *kv)
{
    int r = th_open(h, name, fd, qd, bs, direct, kv);
    ck_assert_msg(!h->harness_err, "%s: %s", name, h->why);
    if (r < 0)
        ck_assert_msg(h->why[0] != '\0', "%s: setup failed (%d) without a reason", name, r);
    return r;
}

#define h_close th_close
#define used_get th_used
#define pattern th_pattern

static void h_transfer(struct th *h, int dir, uint64_t seed)
{
    char err[256];
    ck_assert_msg(th_transfer(h, dir, seed, 0, NBLK, err, sizeof err) == 0, "%s", err);
}


/* The configurations every behavioural test runs on. */
struct cfg {
    const char *engine;
    const char *label;
    struct th_kv kv[3];
};

static const struct cfg cfgs[] = {
    { "psync", "psync", { { NULL, 0 } } },
    { "libaio", "libaio", { { NULL, 0 } } },
    { "io_uring", "io_uring", { { NULL, 0 } } },
    { "io_uring", "io_uring fixedbufs=0 regfiles=0", { { "fixedbufs", 0 }, { "regfiles", 0 }, { NULL, 0 } } },
    { "io_uring", "io_uring sqpoll=1", { { "sqpoll", 1 }, { NULL, 0 } } },
};
#define NCFG ((int)(sizeof(cfgs) / sizeof(cfgs[0])))


/* Set up engine `name` like the runner would. Returns setup()'s result. */


/* Content of block `off` for test `seed`: differs per block and per test. */

static int cfg_available(int c, char *why, size_t len)
{
    return nvb_engine_probe(cfgs[c].engine, why, len) == 0;
}

/*
 * Move NBLK blocks (in a scattered order) through the engine, like the
 * runner: refill free slots, submit the batch, reap with a varying `min`
 * (1, everything, or 0 = poll). Writes carry pattern(off); reads are
 * compared with it byte for byte. Every block must complete exactly once.
 */

/* ------------------------------------------------------------------ */

START_TEST(test_registry)
{
    /* The Linux engines first, in this order, then null; engines for other
     * systems (listed everywhere, probing why not) may follow. */
    static const char *const want[] = { "psync", "libaio", "io_uring", "nvme", "null" };
    const int count = nvb_engine_count();
    ck_assert_int_ge(count, 5);
    ck_assert_int_le(count, 16);
    for (int i = 0; i < count; i++) {
        ck_assert_ptr_nonnull(nvb__engines[i]);
        if (i < 5) {
            ck_assert_str_eq(nvb__engines[i]->name, want[i]);
            ck_assert_str_eq(nvb_engine_name(i), want[i]);
        }
        ck_assert_str_eq(nvb_engine_name(i), nvb__engines[i]->name);
        ck_assert_int_eq(nvb__engine_index(nvb__engines[i]->name), i);
        ck_assert_ptr_eq(nvb__engine_find(nvb__engines[i]->name), nvb__engines[i]);

        const struct nvb__engine *e = nvb__engines[i];
        ck_assert(e->desc && e->desc[0]);
        ck_assert(e->probe && e->setup && e->submit && e->reap && e->teardown);
        ck_assert_ptr_nonnull(e->opts);
        int n = 0;
        for (; e->opts[n].name; n++) {
            const struct nvb__optdef *o = &e->opts[n];
            ck_assert_int_lt(n, NVB__ENGINE_MAX_OPTS);
            ck_assert(o->def >= o->min && o->def <= o->max);
            ck_assert(o->doc && o->doc[0]);
            ck_assert_int_eq(nvb__engine_opt_index(e, o->name), n);
        }
        ck_assert_int_eq(nvb__engine_opt_index(e, "no_such_option"), -1);
    }
    ck_assert_ptr_null(nvb__engines[count]);
    ck_assert_ptr_null(nvb_engine_name(count));
    ck_assert_ptr_null(nvb_engine_name(-1));
    ck_assert_uint_eq(nvb__engine_psync.flags & NVB__ENG_SYNC, NVB__ENG_SYNC);
    ck_assert_uint_eq(nvb__engine_null.flags & NVB__ENG_NO_FILES, NVB__ENG_NO_FILES);

    const struct nvb__engine *u = nvb__engine_find("io_uring");
    static const char *const uopts[] = { "fixedbufs", "regfiles", "sqpoll", "sqpoll_cpu", "iopoll",
                                         "entries", "coop_taskrun", "defer_taskrun", "register_ring" };
    for (size_t i = 0; i < sizeof(uopts) / sizeof(uopts[0]); i++)
        ck_assert_msg(nvb__engine_opt_index(u, uopts[i]) >= 0, "io_uring.%s missing", uopts[i]);
    ck_assert_int_eq(u->opts[nvb__engine_opt_index(u, "fixedbufs")].type, NVB__OPT_AUTOBOOL);
    ck_assert_int_eq(u->opts[nvb__engine_opt_index(u, "sqpoll")].def, 0);
}
END_TEST

START_TEST(test_unknown)
{
    char why[128] = "x";
    ck_assert_int_eq(nvb_engine_probe("no_such_engine", why, sizeof(why)), -ENOENT);
    ck_assert_ptr_nonnull(strstr(why, "no_such_engine"));
    ck_assert_int_eq(nvb_engine_probe("no_such_engine", NULL, 0), -ENOENT);
    ck_assert_int_eq(nvb_engine_probe("", why, sizeof(why)), -ENOENT);
    ck_assert_int_lt(nvb_engine_probe(NULL, why, sizeof(why)), 0);
    ck_assert_ptr_null(nvb__engine_find("no_such_engine"));
    ck_assert_ptr_null(nvb__engine_find(NULL));
    ck_assert_int_eq(nvb__engine_index("PSYNC"), -1);
    ck_assert_int_eq(nvb__engine_opt_index(NULL, "x"), -1);
}
END_TEST

struct probe_res {
    int rc[16];
    char why[16][192];
};

static void *probe_thread(void *arg)
{
    struct probe_res *p = arg;
    for (int i = 0; i < nvb_engine_count() && i < 16; i++)
        p->rc[i] = nvb_engine_probe(nvb_engine_name(i), p->why[i], sizeof(p->why[i]));
    return NULL;
}

/* Runs in a fresh process (CK_FORK), so the threads race on a cold cache. */
START_TEST(test_probe_cache)
{
    enum { NT = 8 };
    pthread_t t[NT];
    static struct probe_res res[NT];
    for (int i = 0; i < NT; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, probe_thread, &res[i]), 0);
    for (int i = 0; i < NT; i++)
        pthread_join(t[i], NULL);

    for (int e = 0; e < nvb_engine_count() && e < 16; e++) {
        char w1[192], w2[192], direct[192] = "";
        int r1 = nvb_engine_probe(nvb_engine_name(e), w1, sizeof(w1));
        int r2 = nvb_engine_probe(nvb_engine_name(e), w2, sizeof(w2));
        ck_assert_int_eq(r1, r2);
        ck_assert_str_eq(w1, w2);
        ck_assert_int_le(r1, 0);
        ck_assert_int_ne(r1, -ENOENT);
        if (r1 == 0)
            ck_assert_str_eq(w1, "");
        else
            ck_assert_msg(w1[0] != '\0', "%s unavailable without a reason", nvb_engine_name(e));
        /* The cache answers what the engine itself answers. */
        ck_assert_int_eq(nvb__engines[e]->probe(direct, sizeof(direct)), r1);
        for (int i = 0; i < NT; i++) {
            ck_assert_int_eq(res[i].rc[e], r1);
            ck_assert_str_eq(res[i].why[e], w1);
        }
        /* Truncation keeps the string terminated. */
        char tiny[4] = "zzz";
        nvb_engine_probe(nvb_engine_name(e), tiny, sizeof(tiny));
        ck_assert_uint_lt(strlen(tiny), sizeof(tiny));
    }
    ck_assert_int_eq(nvb_engine_probe("psync", NULL, 0), 0);
    ck_assert_int_eq(nvb_engine_probe("null", NULL, 0), 0);
}
END_TEST

/* An engine that is not available must fail setup with a reason, the same
 * way on every call. */
START_TEST(test_unavailable_engines_explain)
{
    int checked = 0;
    for (int e = 0; e < nvb_engine_count(); e++) {
        char why[192];
        if (nvb_engine_probe(nvb_engine_name(e), why, sizeof(why)) == 0)
            continue;
        int fd = open("/dev/null", O_RDWR);
        struct th h;
        int r = h_open(&h, nvb_engine_name(e), fd, 4, BS, 0, NULL);
        ck_assert_int_lt(r, 0);
        ck_assert_str_ne(h.why, "");
        h_close(&h);
        close(fd);
        checked++;
    }
    /* psync and null are always there; the others depend on the build, the
     * kernel and (nvme) the hardware. Count what was covered so the test
     * always asserts. */
    ck_assert_int_le(checked, nvb_engine_count() - 2);
    ck_assert_int_eq(nvb_engine_probe("psync", NULL, 0), 0);
}
END_TEST

START_TEST(test_used_set)
{
    struct nvb__used u;
    memset(&u, 0, sizeof(u));
    nvb__used_set(&u, "a", "%d", 1);
    nvb__used_set(&u, "b", "%s", "two");
    nvb__used_set(&u, "a", "%d", 3);
    ck_assert_uint_eq(u.n, 2);
    ck_assert_str_eq(used_get(&u, "a"), "3");
    ck_assert_str_eq(used_get(&u, "b"), "two");
    for (int i = 0; i < 40; i++) {
        char k[16];
        snprintf(k, sizeof(k), "k%d", i);
        nvb__used_set(&u, k, "%d", i);
    }
    ck_assert_uint_eq(u.n, NVB__USED_MAX);
    char longv[300];
    memset(longv, 'v', sizeof(longv) - 1);
    longv[sizeof(longv) - 1] = '\0';
    nvb__used_set(&u, "a", "%s", longv);
    ck_assert_uint_eq(strlen(used_get(&u, "a")), sizeof(u.kv[0].val) - 1);
    nvb__used_set(NULL, "a", "x");

    char why[8];
    nvb__why(why, sizeof(why), "%s", "a long reason");
    ck_assert_str_eq(why, "a long ");
    nvb__why(NULL, 10, "x");
}
END_TEST

static int open_scratch(const char *name, uint64_t size, int flags, char **path)
{
    *path = tu_scratch(name, size);
    int fd = open(*path, flags);
    ck_assert_msg(fd >= 0, "open %s: %s", *path, strerror(errno));
    return fd;
}

/* Pair i: written by cfgs[i / NCFG], read back by cfgs[i % NCFG]. */
START_TEST(test_roundtrip)
{
    int a = _i / NCFG, b = _i % NCFG;
    char why[192];
    if (!cfg_available(a, why, sizeof(why)) || !cfg_available(b, why, sizeof(why))) {
        /* Nothing to move: at least the reason must be there. */
        ck_assert_str_ne(why, "");
        return;
    }
    char *path;
    int fd = open_scratch("engines_rt", REGION, O_RDWR | O_DIRECT, &path);
    struct th h;

    ck_assert_msg(h_open(&h, cfgs[a].engine, fd, 8, BS, 1, cfgs[a].kv) == 0, "%s: %s", cfgs[a].label, h.why);
    h_transfer(&h, NVB_WRITE, (uint64_t)_i + 1);
    h_close(&h);

    ck_assert_msg(h_open(&h, cfgs[b].engine, fd, 8, BS, 1, cfgs[b].kv) == 0, "%s: %s", cfgs[b].label, h.why);
    h_transfer(&h, NVB_READ, (uint64_t)_i + 1);
    h_close(&h);

    close(fd);
    unlink(path);
    free(path);
}
END_TEST

/* Reads that straddle or start past EOF: a short count or 0, never a hang. */
START_TEST(test_eof)
{
    char why[192];
    if (!cfg_available(_i, why, sizeof(why))) {
        ck_assert_str_ne(why, "");
        return;
    }
    char *path;
    int fd = open_scratch("engines_eof", (1u << 20) + 100, O_RDONLY | O_DIRECT, &path);
    struct th h;
    ck_assert_msg(h_open(&h, cfgs[_i].engine, fd, 4, BS, 1, cfgs[_i].kv) == 0, "%s", h.why);

    static const uint64_t offs[] = { 1u << 20, 8u << 20, (1u << 20) - BS };
    for (unsigned k = 0; k < 3; k++) {
        struct nvb__io *io = &h.io[0], *out[QMAX];
        memset(io, 0, sizeof(*io));
        io->buf = h.bufs[0];
        io->off = offs[k];
        io->len = BS;
        io->dir = NVB_READ;
        io->res = INT64_MIN;
        ck_assert_int_eq(h.e->submit(h.st, &io, 1), 0);
        ck_assert_int_eq(h.e->reap(h.st, out, h.qd, 1), 1);
        ck_assert_ptr_eq(out[0], io);
        if (k == 0)
            ck_assert_msg(io->res >= 0 && io->res < BS, "%s: res %lld", cfgs[_i].label, (long long)io->res);
        else if (k == 1)
            ck_assert_int_eq(io->res, 0);
        else
            ck_assert_int_eq(io->res, BS);
    }
    h_close(&h);
    close(fd);
    unlink(path);
    free(path);
}
END_TEST

/* A failing I/O is a per-I/O result (-errno in res), not an engine error. */
START_TEST(test_io_error)
{
    char why[192];
    if (!cfg_available(_i, why, sizeof(why))) {
        ck_assert_str_ne(why, "");
        return;
    }
    char *path;
    int fd = open_scratch("engines_err", 1u << 20, O_RDONLY, &path);
    struct th h;
    ck_assert_msg(h_open(&h, cfgs[_i].engine, fd, 4, BS, 0, cfgs[_i].kv) == 0, "%s", h.why);
    struct nvb__io *ios[QMAX], *out[QMAX];
    for (unsigned i = 0; i < h.qd; i++) {
        struct nvb__io *io = &h.io[i];
        memset(io, 0, sizeof(*io));
        io->buf = h.bufs[i];
        io->off = (uint64_t)i * BS;
        io->len = BS;
        io->slot = i;
        io->dir = NVB_WRITE;
        io->res = INT64_MIN;
        ios[i] = io;
    }
    ck_assert_int_eq(h.e->submit(h.st, ios, h.qd), 0);
    unsigned got = 0;
    while (got < h.qd) {
        int r = h.e->reap(h.st, out + got, h.qd - got, h.qd - got);
        ck_assert_int_gt(r, 0);
        got += (unsigned)r;
    }
    for (unsigned i = 0; i < got; i++)
        ck_assert_msg(out[i]->res == -EBADF, "%s: write to O_RDONLY fd: res %lld", cfgs[_i].label,
                      (long long)out[i]->res);
    h_close(&h);
    close(fd);
    unlink(path);
    free(path);
}
END_TEST

/* reap() honours max: with max=1 each call hands back exactly one slot. */
START_TEST(test_reap_max)
{
    char why[192];
    if (!cfg_available(_i, why, sizeof(why))) {
        ck_assert_str_ne(why, "");
        return;
    }
    char *path;
    int fd = open_scratch("engines_max", 1u << 20, O_RDONLY, &path);
    struct th h;
    ck_assert_msg(h_open(&h, cfgs[_i].engine, fd, 8, BS, 0, cfgs[_i].kv) == 0, "%s", h.why);
    struct nvb__io *ios[QMAX], *out[QMAX];
    for (unsigned i = 0; i < h.qd; i++) {
        struct nvb__io *io = &h.io[i];
        memset(io, 0, sizeof(*io));
        io->buf = h.bufs[i];
        io->off = (uint64_t)i * BS;
        io->len = BS;
        io->slot = i;
        io->dir = NVB_READ;
        io->res = INT64_MIN;
        ios[i] = io;
    }
    ck_assert_int_eq(h.e->submit(h.st, ios, h.qd), 0);
    unsigned mask = 0;
    for (unsigned i = 0; i < h.qd; i++) {
        out[1] = NULL;
        ck_assert_int_eq(h.e->reap(h.st, out, 1, 1), 1);
        ck_assert_ptr_null(out[1]);
        ck_assert_int_eq(out[0]->res, BS);
        mask |= 1u << out[0]->slot;
    }
    ck_assert_uint_eq(mask, (1u << h.qd) - 1);
    ck_assert_int_eq(h.e->reap(h.st, out, h.qd, 0), 0);
    h_close(&h);
    close(fd);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(test_iopoll_needs_direct)
{
    int fd = open("/dev/null", O_RDWR);
    struct th h;
    const struct th_kv kv[] = { { "iopoll", 1 }, { NULL, 0 } };
    ck_assert_int_eq(h_open(&h, "io_uring", fd, 4, BS, 0, kv), -ENOTSUP);
    ck_assert_str_ne(h.why, "");
    h_close(&h);
    close(fd);
}
END_TEST

#if NVB_HAVE_LIBURING
/* n NOPs through the ring, user_data 1..n, in rounds of up to 3 so that the
 * ring (4 entries) wraps: each comes back once, with its own user_data (a
 * ring with an SQ array whose slots are not mapped would run slot 0 each time). */
static void ring_nops(struct nvb__ring *r, unsigned n)
{
    unsigned seen[16] = { 0 };
    ck_assert_uint_le(n, 16);
    for (unsigned done = 0; done < n;) {
        unsigned k = n - done < 3 ? n - done : 3;
        for (unsigned i = 0; i < k; i++) {
            struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
            ck_assert_ptr_nonnull(sqe);
            io_uring_prep_nop(sqe);
            sqe->user_data = done + i + 1;
        }
        ck_assert_int_eq(io_uring_submit_and_wait(&r->ring, k), (int)k);
        for (unsigned i = 0; i < k; i++) {
            struct io_uring_cqe *cqe;
            ck_assert_int_eq(io_uring_wait_cqe(&r->ring, &cqe), 0);
            ck_assert_int_eq(cqe->res, 0);
            ck_assert_uint_ge(cqe->user_data, 1);
            ck_assert_uint_le(cqe->user_data, n);
            seen[cqe->user_data - 1]++;
            io_uring_cqe_seen(&r->ring, cqe);
        }
        done += k;
    }
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_eq(seen[i], 1);
}

/* The ring's optional setup flags: taken with the candidate, or, refused,
 * the candidate alone with the refusal said; with and without an SQ array
 * (liburing 2.3 knows only the latter) every slot runs its own entry. */
START_TEST(test_ring_optional_flags)
{
    char why[192];
    if (nvb_engine_probe("io_uring", why, sizeof(why)) != 0)
        return;
    const unsigned cand[] = { 0 };
    const unsigned unknown = 1U << 31; /* no kernel has this setup flag */
    const struct { unsigned optional; } cases[] = { { 0 }, { IORING_SETUP_NO_SQARRAY }, { unknown } };
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct nvb__engine_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        struct nvb__ring r;
        memset(&r, 0, sizeof r);
        unsigned flags = 0;
        char fallback[160] = "";
        ck_assert_int_eq(nvb__ring_init(&r, &ctx, 4, 0, cases[c].optional, cand, 1, 0, &flags, fallback,
                                        sizeof fallback), 0);
        if (cases[c].optional == unknown) {
            ck_assert_uint_eq(flags, 0);
            ck_assert_str_eq(fallback, "kernel refused 0x80000000");
        } else if (cases[c].optional && !(flags & IORING_SETUP_NO_SQARRAY))
            ck_assert_str_eq(fallback, "kernel refused NO_SQARRAY"); /* before Linux 6.6 */
        else {
            ck_assert_uint_eq(flags, cases[c].optional);
            ck_assert_str_eq(fallback, "");
        }
        ring_nops(&r, 10);
        io_uring_queue_exit(&r.ring);
    }
}
END_TEST
#endif

START_TEST(test_uring_options)
{
    char why[192];
    if (nvb_engine_probe("io_uring", why, sizeof(why)) != 0) {
        ck_assert_str_ne(why, "");
        return;
    }
    int fd = open("/dev/null", O_RDWR);
    struct th h;

    ck_assert_msg(h_open(&h, "io_uring", fd, 6, BS, 0, NULL) == 0, "%s", h.why);
    const char *v = used_get(&h.used, "setup_flags");
    ck_assert_ptr_nonnull(v);
    ck_assert_str_ne(v, "");
    ck_assert_ptr_nonnull(used_get(&h.used, "fixedbufs"));
    ck_assert_ptr_nonnull(used_get(&h.used, "regfiles"));
    ck_assert_ptr_nonnull(used_get(&h.used, "sqpoll"));
    ck_assert_ptr_nonnull(used_get(&h.used, "iopoll"));
    ck_assert_str_eq(used_get(&h.used, "entries"), "8");  /* qd 6 rounded up */
    h_close(&h);

    const struct th_kv noauto[] = { { "defer_taskrun", 0 }, { "coop_taskrun", 0 }, { "register_ring", 0 },
                                 { "entries", 64 }, { NULL, 0 } };
    ck_assert_msg(h_open(&h, "io_uring", fd, 4, BS, 0, noauto) == 0, "%s", h.why);
    /* NO_SQARRAY is taken where the kernel has it (6.6), else said refused */
    const char *sf = used_get(&h.used, "setup_flags"), *sw = used_get(&h.used, "setup_flags_why");
    ck_assert_msg(strcmp(sf, "NO_SQARRAY") == 0 ||
                      (strcmp(sf, "none") == 0 && sw && strcmp(sw, "kernel refused NO_SQARRAY") == 0),
                  "%s / %s", sf, sw ? sw : "-");
    ck_assert_str_eq(used_get(&h.used, "register_ring"), "0");
    ck_assert_str_eq(used_get(&h.used, "entries"), "64");
    h_close(&h);

    const struct th_kv small[] = { { "entries", 2 }, { NULL, 0 } };
    ck_assert_int_eq(h_open(&h, "io_uring", fd, 4, BS, 0, small), -EINVAL);
    h_close(&h);

    const struct th_kv cpu_only[] = { { "sqpoll_cpu", 0 }, { NULL, 0 } };
    ck_assert_int_eq(h_open(&h, "io_uring", fd, 4, BS, 0, cpu_only), -EINVAL);
    h_close(&h);

    const struct th_kv sq_defer[] = { { "sqpoll", 1 }, { "defer_taskrun", 1 }, { NULL, 0 } };
    ck_assert_int_eq(h_open(&h, "io_uring", fd, 4, BS, 0, sq_defer), -EINVAL);
    h_close(&h);

    const struct th_kv sq[] = { { "sqpoll", 1 }, { "sqpoll_cpu", 0 }, { NULL, 0 } };
    ck_assert_msg(h_open(&h, "io_uring", fd, 4, BS, 0, sq) == 0, "%s", h.why);
    ck_assert_str_eq(used_get(&h.used, "sqpoll"), "1");
    ck_assert_ptr_nonnull(strstr(used_get(&h.used, "setup_flags"), "SQPOLL"));
    ck_assert_ptr_null(strstr(used_get(&h.used, "setup_flags"), "TASKRUN"));
    h_close(&h);
    close(fd);
}
END_TEST

/* Lower what may be pinned so registering buffers fails: auto falls back and
 * says why, an explicit fixedbufs=1 fails setup. Root is exempt from
 * RLIMIT_MEMLOCK through CAP_IPC_LOCK, so that is dropped first. Runs in a
 * child process so the limits never leak into other tests. */
static int memlock_child(void)
{
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) == 0) {
        data[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
        if (syscall(SYS_capset, &hdr, data) != 0)
            return 10;
    }
    struct rlimit rl = { 64 << 10, 64 << 10 };
    if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0)
        return 11;

    int fd = open("/dev/null", O_RDWR);
    struct th h;
    const size_t big = 256 << 10;  /* 8 x 256 KiB: far above 64 KiB */
    if (h_open(&h, "io_uring", fd, 8, big, 0, NULL) != 0)
        return 12;
    const char *fb = used_get(&h.used, "fixedbufs");
    const char *fw = used_get(&h.used, "fixedbufs_why");
    if (!fb || strcmp(fb, "0") != 0)
        return 13;
    if (!fw || !fw[0])
        return 14;
    h_close(&h);

    const struct th_kv on[] = { { "fixedbufs", 1 }, { NULL, 0 } };
    int r = h_open(&h, "io_uring", fd, 8, big, 0, on);
    if (r >= 0)
        return 15;
    if (!h.why[0])
        return 16;
    h_close(&h);
    return 0;
}

START_TEST(test_uring_fixedbufs_fallback)
{
    char why[192];
    if (nvb_engine_probe("io_uring", why, sizeof(why)) != 0) {
        ck_assert_str_ne(why, "");
        return;
    }
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(memlock_child());
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_msg(WEXITSTATUS(st) == 0, "memlock child failed at step %d", WEXITSTATUS(st));
}
END_TEST

/* ------------------------------------------------------------------ */
/* A hostile environment, seen through the public API: what a caller of
 * nvb_run() gets when the kernel refuses io_uring or the buffers it would
 * pin. The children report the first failed check through their exit
 * status (a step number), since Check's assertions cannot cross a fork. */

/* The whole file, for comparing before and after a run that must not write. */
static char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *b = NULL;
    if (fstat(fd, &st) == 0 && (b = malloc((size_t)st.st_size + 1)) != NULL) {
        size_t got = 0;
        ssize_t n;
        while (got < (size_t)st.st_size && (n = read(fd, b + got, (size_t)st.st_size - got)) > 0)
            got += (size_t)n;
        *len = got;
    }
    close(fd);
    return b;
}

static int same_bytes(const char *path, const char *before, size_t len)
{
    size_t n = 0;
    char *now = slurp(path, &n);
    int same = now && n == len && memcmp(now, before, len) == 0;
    free(now);
    return same;
}

/* One run through the public API: nvb_run()'s return, *r the result it
 * built (NULL when none). kv is key, value, ..., NULL. */
static int public_run(const char *const *kv, const char *target, struct nvb_result **r)
{
    struct nvb_workload *w;
    *r = NULL;
    if (nvb_workload_new(&w) != 0)
        return INT32_MIN;
    for (; kv && kv[0]; kv += 2)
        if (nvb_workload_set(w, kv[0], kv[1]) != 0) {
            nvb_workload_free(w);
            return INT32_MIN;
        }
    if (nvb_workload_add_target(w, target) != 0) {
        nvb_workload_free(w);
        return INT32_MIN;
    }
    int rc = nvb_run(w, NULL, r);
    nvb_workload_free(w);
    return rc;
}

/* engine_used.<key> of a result, through its JSON (the public form); NULL
 * when absent. The caller frees the string. */
static char *used_of(const struct nvb_result *r, const char *key)
{
    char *json = NULL, *val = NULL;
    struct nvb__jv *root = NULL;
    if (nvb_result_json(r, &json) != 0)
        return NULL;
    if (nvb__json_parse(json, strlen(json), &root, NULL, 0) == 0) {
        const struct nvb__jv *v = nvb__json_get(nvb__json_get(root, "engine_used"), key);
        if (v && v->type == NVB__J_STR)
            val = strdup(v->s);
    }
    nvb__json_free(root);
    nvb_free(json);
    return val;
}

/* The words a reason for a refused io_uring_setup must contain. */
static int says_why(const char *msg, int err)
{
    if (err == EPERM)
        return strstr(msg, "io_uring is disabled or denied") && strstr(msg, "seccomp");
    return strstr(msg, "the kernel has no io_uring") && strstr(msg, "seccomp/container policy hides it");
}

#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#if defined(TEST_AUDIT_ARCH) && defined(__NR_io_uring_setup)
#define HAVE_DENY_FILTER 1
/* A seccomp filter, as a container runtime would install, answering err to
 * the three io_uring system calls. Returns 0, or the step that failed; 100
 * when this kernel has no seccomp filters. */
static int deny_io_uring(int err)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW), /* another ABI: not used here */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_enter, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_register, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])), f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return 2;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        return errno == EINVAL ? 100 : 3;
    /* The filter is in force: the raw call fails with err (the argument
     * is a zeroed struct io_uring_params, so nothing else could refuse). */
    static unsigned char params[256];
    if (syscall(__NR_io_uring_setup, 4, params) != -1 || errno != err)
        return 4;
    return 0;
}
#endif

/*
 * A fresh process (exec'd under the filter, so nothing is cached yet): the
 * probes of io_uring and nvme fail with the kernel's errno and a reason, a
 * run with engine=io_uring (or nvme) is refused before any target is opened
 * with a message naming the engine and the reason, and other engines still
 * work in the same process.
 */
static int denied_fresh(int err, const char *file)
{
    char why[256] = "";
    struct nvb_result *r;
    int rc = nvb_engine_probe("io_uring", why, sizeof(why));
    if (rc != -err)
        return 30;
    if (strncmp(why, "io_uring: ", 10) != 0 || !says_why(why, err))
        return 31;
    why[0] = '\0';
    if (nvb_engine_probe("nvme", why, sizeof(why)) >= 0)
        return 32;
    if (strncmp(why, "nvme: ", 6) != 0 || !says_why(why, err))
        return 33;

    static const char *const wr[] = { "engine", "io_uring", "rw", "randwrite", "ios", "64", NULL };
    rc = public_run(wr, file, &r);
    if (rc != -err)
        return 34;
    if (!r || nvb_result_errno(r) != -err)
        return 35;
    const char *msg = nvb_result_error(r);
    if (!strstr(msg, "engine 'io_uring'") || !says_why(msg, err))
        return 36;
    double v = 0;
    if (nvb_result_get(r, "error.errno", &v) != 0 || v != err)
        return 37;
    if (nvb_result_ios(r, NVB_WRITE) != 0)
        return 38;
    nvb_result_free(r);

    static const char *const nv[] = { "engine", "nvme", "rw", "randwrite", "ios", "64", NULL };
    rc = public_run(nv, file, &r);
    if (rc >= 0 || !r || !strstr(nvb_result_error(r), "engine 'nvme'") || !says_why(nvb_result_error(r), err))
        return 39;
    nvb_result_free(r);

    /* Only io_uring is refused: psync still runs here. */
    static const char *const ps[] = { "engine", "psync", "rw", "randread", "ios", "16", NULL };
    rc = public_run(ps, file, &r);
    if (rc != 0 || !r || nvb_result_ios(r, NVB_READ) != 16)
        return 40;
    nvb_result_free(r);
    return 0;
}

/*
 * The child: the filter goes in after this process probed io_uring (and was
 * told it works), as when a host application sandboxes itself after start.
 * The cached answer is stale, so the refusal comes from the engine's
 * setup(): the run must still fail cleanly, naming the engine and the
 * reason, and remove the scratch file it laid out. Then the same checks in
 * a fresh process, where the probe itself sees the filter.
 */
static int denied_child(int err, const char *file, const char *dir)
{
#ifdef HAVE_DENY_FILTER
    int s = deny_io_uring(err);
    if (s)
        return s;
    if (nvb_engine_probe("io_uring", NULL, 0) != 0)
        return 10;  /* cached before the filter: still "works" */

    struct nvb_result *r;
    static const char *const wr[] = { "engine", "io_uring", "rw", "randwrite", "qd", "8", "ios", "64", NULL };
    int rc = public_run(wr, file, &r);
    if (rc != -err)
        return 11;
    if (!r || nvb_result_errno(r) != -err)
        return 12;
    const char *msg = nvb_result_error(r);
    if (!strstr(msg, "engine io_uring: ") || !strstr(msg, "io_uring_queue_init") || !says_why(msg, err))
        return 13;
    if (nvb_result_ios(r, NVB_WRITE) != 0 || nvb_result_cancelled(r))
        return 14;
    nvb_result_free(r);

    static const char *const sc[] = { "engine", "io_uring", "rw", "randwrite", "size", "1M", "ios", "64", NULL };
    rc = public_run(sc, dir, &r);
    if (rc != -err || !r || !says_why(nvb_result_error(r), err))
        return 15;
    nvb_result_free(r);
    if (tu_count_entries(dir) != 0)
        return 16;

    /* Filters survive execve(); /proc/self/exe read through readlink() so
     * that under valgrind this is the test program, not the tool. */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 17;
    self[n] = '\0';
    char es[16];
    snprintf(es, sizeof(es), "%d", err);
    char *const argv[] = { self, "--uring-denied", es, (char *)file, NULL };
    execv(self, argv);
    return 18;
#else
    (void)err;
    (void)file;
    (void)dir;
    return 100;
#endif
}

START_TEST(test_uring_setup_denied)
{
    static const int errs[] = { EPERM, ENOSYS };
    const int err = errs[_i];
    char why[192];
    if (nvb_engine_probe("io_uring", why, sizeof(why)) != 0) {
        ck_assert_str_ne(why, "");
        return;
    }
    char *file = tu_scratch("engines_denied", 1u << 20);
    char *dir = tu_mkdtemp("engines_denied");
    size_t len = 0;
    char *before = slurp(file, &len);
    ck_assert_ptr_nonnull(before);
    ck_assert_uint_eq(len, 1u << 20);

    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(120);  /* a hang fails the test instead of blocking it */
        _exit(denied_child(err, file, dir));
    }
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st), "%s child killed by signal %d", strerror(err), WTERMSIG(st));
    if (WEXITSTATUS(st) == 100)
        fprintf(stderr, "note: no seccomp filters here (kernel or architecture): io_uring denial not tested\n");
    else
        ck_assert_msg(WEXITSTATUS(st) == 0, "%s child failed at step %d", strerror(err), WEXITSTATUS(st));
    /* Nothing reached the target, and no scratch file was left behind. */
    ck_assert_msg(same_bytes(file, before, len), "%s: the target changed", file);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    free(before);
    unlink(file);
    rmdir(dir);
    free(file);
    free(dir);
}
END_TEST

/*
 * RLIMIT_MEMLOCK as a real user would meet it: not root (no CAP_IPC_LOCK,
 * so the registered buffers are charged to the limit), a 64 KiB limit, and
 * a run asking for 8 x 256 KiB. With fixedbufs left at auto the run works
 * and the result says the buffers were not registered and why; with
 * io_uring.fixedbufs=1 the run is refused, naming the option, before any
 * write. The nvme engine has the same option but needs an NVMe generic
 * node, so it is covered by tests/vm only.
 */
static int memlock_user_child(const char *file)
{
    struct rlimit rl = { 64 << 10, 64 << 10 };
    if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0)
        return 10;
    if (geteuid() == 0) {
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
            return 11;
        if (geteuid() != 65534 || setuid(0) == 0)
            return 12;
    }
    /* No capability is left (setuid from root clears them): nothing
     * exempts this process from the limit. */
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) != 0)
        return 13;
    if (data[CAP_IPC_LOCK / 32].effective & (1u << (CAP_IPC_LOCK % 32)))
        return 14;

    struct nvb_result *r;
    static const char *const autobufs[] = { "engine", "io_uring", "rw", "randrw", "bs", "256k", "qd", "8",
                                            "ios", "64", NULL };
    int rc = public_run(autobufs, file, &r);
    if (rc != 0 || !r)
        return 20;
    if (nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE) != 64 || nvb_result_errors(r) != 0)
        return 21;
    char *fb = used_of(r, "fixedbufs"), *fw = used_of(r, "fixedbufs_why");
    int bad = !fb || strcmp(fb, "0") != 0 ? 22
            : !fw || !strstr(fw, "io_uring_register_buffers") ? 23
            : !strstr(fw, "RLIMIT_MEMLOCK 64 KiB, buffers 2048 KiB") ? 24 : 0;
    free(fb);
    free(fw);
    nvb_result_free(r);
    if (bad)
        return bad;

    size_t len = 0;
    char *before = slurp(file, &len);
    if (!before)
        return 30;
    static const char *const fixed[] = { "engine", "io_uring", "io_uring.fixedbufs", "1", "rw", "randwrite",
                                         "bs", "256k", "qd", "8", "ios", "64", NULL };
    rc = public_run(fixed, file, &r);
    if (rc != -ENOMEM || !r || nvb_result_errno(r) != -ENOMEM)
        bad = 31;
    else if (!strstr(nvb_result_error(r), "engine io_uring: ") || !strstr(nvb_result_error(r), "fixedbufs=1") ||
             !strstr(nvb_result_error(r), "RLIMIT_MEMLOCK 64 KiB"))
        bad = 32;
    else if (nvb_result_ios(r, NVB_WRITE) != 0 || !same_bytes(file, before, len))
        bad = 33;
    nvb_result_free(r);
    free(before);
    return bad;
}

START_TEST(test_uring_memlock_unprivileged)
{
    char why[192];
    if (nvb_engine_probe("io_uring", why, sizeof(why)) != 0) {
        ck_assert_str_ne(why, "");
        return;
    }
    if (!tu_is_root())
        fprintf(stderr, "note: not root: the RLIMIT_MEMLOCK test runs as this user, not as 65534\n");
    char *dir = tu_mkdtemp_public("engines-memlock"); /* user 65534 must reach it */
    char path[4200];
    snprintf(path, sizeof(path), "%s/target.XXXXXX", dir);
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    static char fill[1 << 20];
    memset(fill, 0x5a, sizeof(fill));  /* not zeroes, so that a stray write shows */
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(write(fd, fill, sizeof(fill)), (ssize_t)sizeof(fill));
    if (tu_is_root())
        ck_assert_int_eq(fchown(fd, 65534, 65534), 0);
    close(fd);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        free(dir); /* not needed here: valgrind would count it lost at _exit */
        alarm(120);
        _exit(memlock_user_child(path));
    }
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st), "memlock child killed by signal %d", WTERMSIG(st));
    ck_assert_msg(WEXITSTATUS(st) == 0, "unprivileged memlock child failed at step %d", WEXITSTATUS(st));
    ck_assert_int_eq(tu_count_entries(dir), 1);
    unlink(path);
    rmdir(dir);
    free(dir);
}
END_TEST

START_TEST(test_null)
{
    struct th h;
    ck_assert_int_eq(h_open(&h, "null", -1, 16, 512, 0, NULL), 0);
    struct nvb__io *ios[QMAX], *out[QMAX];
    uint64_t total = 0;
    for (int round = 0; round < 100; round++) {
        unsigned n = 1 + (unsigned)round % 16;
        for (unsigned i = 0; i < n; i++) {
            struct nvb__io *io = &h.io[i];
            memset(io, 0, sizeof(*io));
            io->slot = i;
            io->len = 512 + i;
            io->res = INT64_MIN;
            ios[i] = io;
        }
        ck_assert_int_eq(h.e->submit(h.st, ios, n), 0);
        unsigned got = 0;
        /* Hand back in pieces to exercise max. */
        while (got < n) {
            int r = h.e->reap(h.st, out + got, 3, 1);
            ck_assert_int_ge(r, 1);
            ck_assert_int_le(r, 3);
            got += (unsigned)r;
        }
        ck_assert_uint_eq(got, n);
        for (unsigned i = 0; i < n; i++) {
            ck_assert_ptr_eq(out[i], &h.io[i]);  /* FIFO */
            ck_assert_int_eq(out[i]->res, out[i]->len);
        }
        ck_assert_int_eq(h.e->reap(h.st, out, 16, 0), 0);
        total += n;
    }
    ck_assert_uint_eq(total, 6 * 136 + 10);  /* sum of 1 + r % 16 for r < 100 */
    /* More than qd in flight is a runner bug the engine refuses. */
    for (unsigned i = 0; i < 16; i++)
        ios[i] = &h.io[i];
    ck_assert_int_eq(h.e->submit(h.st, ios, 16), 0);
    ck_assert_int_lt(h.e->submit(h.st, ios, 1), 0);
    ck_assert_int_eq(h.e->reap(h.st, out, QMAX, 0), 16);
    h_close(&h);
}
END_TEST

static Suite *engines_suite(void)
{
    Suite *s = suite_create("engines");
    TCase *tc = tcase_create("registry");
    tcase_add_test(tc, test_registry);
    tcase_add_test(tc, test_unknown);
    tcase_add_test(tc, test_probe_cache);
    tcase_add_test(tc, test_unavailable_engines_explain);
    tcase_add_test(tc, test_used_set);
    suite_add_tcase(s, tc);

    tc = tcase_create("io");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_roundtrip, 0, NCFG * NCFG);
    tcase_add_loop_test(tc, test_eof, 0, NCFG);
    tcase_add_loop_test(tc, test_io_error, 0, NCFG);
    tcase_add_loop_test(tc, test_reap_max, 0, NCFG);
    suite_add_tcase(s, tc);

    tc = tcase_create("specific");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_iopoll_needs_direct);
    tcase_add_test(tc, test_uring_options);
#if NVB_HAVE_LIBURING
    tcase_add_test(tc, test_ring_optional_flags);
#endif
    tcase_add_test(tc, test_uring_fixedbufs_fallback);
    tcase_add_test(tc, test_null);
    suite_add_tcase(s, tc);

    tc = tcase_create("denied");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_uring_setup_denied, 0, 2);
    tcase_add_test(tc, test_uring_memlock_unprivileged);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    /* test_uring_setup_denied re-executes this program under its seccomp
     * filter: a fresh process, whose probe cache is still empty. */
    if (argc == 4 && strcmp(argv[1], "--uring-denied") == 0)
        return denied_fresh(atoi(argv[2]), argv[3]);

    /* The I/O tests need O_DIRECT in the scratch directory (not tmpfs). */
    char path[4096];
    snprintf(path, sizeof(path), "%s/engines_probe.%ld", tu_tmpdir(), (long)getpid());
    int fd = open(path, O_CREAT | O_RDWR | O_DIRECT, 0644);
    if (fd < 0) {
        char why[4200];
        snprintf(why, sizeof(why), "O_DIRECT not supported in %s (%s); set NVB_TEST_TMP", tu_tmpdir(),
                 strerror(errno));
        unlink(path);
        tu_skip(why);
    }
    close(fd);
    unlink(path);

    for (int e = 0; e < nvb_engine_count(); e++) {
        char why[192];
        if (nvb_engine_probe(nvb_engine_name(e), why, sizeof(why)) != 0)
            fprintf(stderr, "note: engine %s unavailable: %s\n", nvb_engine_name(e), why);
    }

    int failed = tu_run_suite(engines_suite());
    return failed ? 1 : 0;
}
