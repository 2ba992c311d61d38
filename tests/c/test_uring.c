/*
 * The io_uring engine's own modes and paths (issue 25): nop=1 (the loop
 * and the ring alone, never a target touched), the submit path filled
 * from templates (the same fixed-seed run issues the same I/Os as the
 * psync engine, which does each I/O as asked, one system call each), and
 * the wait policy reported with the engine's options.
 *
 * Skips (77) when io_uring is not available here.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/engine.h"
#include "core/explain.h"
#include "core/internal.h"
#include "platform/platform.h"
#include "testutil.h"

#define QD 8u
#define BS 4096u

/* The engine's options with their defaults, then name=value pairs. */
static void opts_fill(const struct nvb__engine *e, int64_t *o, const char *const *kv, const int64_t *v)
{
    for (int i = 0; e->opts[i].name; i++)
        o[i] = e->opts[i].def;
    for (int k = 0; kv && kv[k]; k++) {
        int i = nvb__engine_opt_index(e, kv[k]);
        ck_assert_msg(i >= 0, "io_uring.%s missing", kv[k]);
        o[i] = v[k];
    }
}

static const char *used(const struct nvb__used *u, const char *key)
{
    for (unsigned i = 0; i < u->n; i++)
        if (strcmp(u->kv[i].key, key) == 0)
            return u->kv[i].val;
    return NULL;
}

/* nop=1 through the engine interface, as the runner drives it (no files:
 * nfds 0): reads, writes and trims all complete with their length. */
START_TEST(test_nop_engine)
{
    const struct nvb__engine *e = nvb__engine_find("io_uring");
    ck_assert_ptr_nonnull(e);
    ck_assert(nvb__engine_flags(e, (int64_t[NVB__ENGINE_MAX_OPTS]){0}) == e->flags);
    int64_t o[NVB__ENGINE_MAX_OPTS] = {0};
    static const char *const k_nop[] = { "nop", NULL };
    opts_fill(e, o, k_nop, (const int64_t[]){ 1 });
    ck_assert(nvb__engine_flags(e, o) & NVB__ENG_NO_FILES);

    void *bufs[QD];
    struct nvb__io io[QD], *ios[QD], *out[QD];
    for (unsigned i = 0; i < QD; i++) {
        ck_assert_int_eq(posix_memalign(&bufs[i], 4096, BS), 0);
        memset(bufs[i], 0xa5, BS);
    }
    struct nvb__used u = {0};
    char why[256] = "";
    struct nvb__engine_ctx ctx = { .qd = QD, .nfds = 0, .fds = NULL, .bufs = bufs, .buf_len = BS, .cpu = -1,
                                   .opts = o, .used = &u, .why = why, .why_len = sizeof why };
    void *st = NULL;
    ck_assert_msg(e->setup(&ctx, &st) == 0, "%s", why);
    ck_assert_str_eq(used(&u, "nop"), "1");
    ck_assert_str_eq(used(&u, "fixedbufs"), "0");
    ck_assert_str_eq(used(&u, "regfiles"), "0");
    ck_assert_str_eq(used(&u, "wait_min"), "1"); /* qd/8 */
    for (int round = 0; round < 50; round++) {
        for (unsigned i = 0; i < QD; i++) {
            io[i] = (struct nvb__io){ .buf = bufs[i], .off = (uint64_t)(round * QD + i) * BS,
                                      .len = BS - 512 * (i % 3), .slot = i, .target = (uint16_t)(i % 3),
                                      .dir = (uint8_t)(i % 3), .res = -1 };
            ios[i] = &io[i];
        }
        unsigned n = 1 + (unsigned)round % QD;
        ck_assert_int_eq(e->submit(st, ios, n), 0);
        int got = 0;
        while (got < (int)n) {
            int g = e->reap(st, out + got, QD - (unsigned)got, 1);
            ck_assert_int_gt(g, 0);
            got += g;
        }
        ck_assert_int_eq(got, n);
        for (unsigned i = 0; i < n; i++)
            ck_assert_int_eq(out[i]->res, out[i]->len);
        ck_assert_int_eq(e->reap(st, out, QD, 0), 0);
    }
    for (unsigned i = 0; i < QD; i++) /* nothing moved into or out of the buffers */
        for (unsigned b = 0; b < BS; b++)
            ck_assert_uint_eq(((unsigned char *)bufs[i])[b], 0xa5);
    e->teardown(st);

    /* wait_min above what is in flight waits for what is in flight (a wait
     * for more would never end). */
    static const char *const k_wm[] = { "nop", "wait_min", NULL };
    opts_fill(e, o, k_wm, (const int64_t[]){ 1, QD });
    u.n = 0;
    ck_assert_msg(e->setup(&ctx, &st) == 0, "%s", why);
    ck_assert_str_eq(used(&u, "wait_min"), "8");
    for (unsigned n = 1; n < QD; n++) {
        ck_assert_int_eq(e->submit(st, ios, n), 0);
        ck_assert_int_eq(e->reap(st, out, QD, 1), n);
    }
    e->teardown(st);

    /* A NOP has no buffer or file to register: asking for it is a mistake. */
    static const char *const k_fb[] = { "nop", "fixedbufs", NULL };
    opts_fill(e, o, k_fb, (const int64_t[]){ 1, 1 });
    why[0] = 0;
    u.n = 0;
    st = NULL;
    ck_assert_int_eq(e->setup(&ctx, &st), -EINVAL);
    ck_assert_msg(strstr(why, "fixedbufs=1") && strstr(why, "nop=0"), "%s", why);
    for (unsigned i = 0; i < QD; i++)
        free(bufs[i]);
}
END_TEST

static char *result_json(const struct nvb_result *r)
{
    char *j = NULL;
    ck_assert_int_eq(nvb_result_json(r, &j), 0);
    return j;
}

static void file_id(const char *path, struct stat *st)
{
    ck_assert_int_eq(stat(path, st), 0);
}

/* nop=1 through nvb_run(): no target needed; a target named is never
 * opened, so neither its content nor its times change, even for writes;
 * a missing one is not created; verify=1 has nothing to check. */
START_TEST(test_nop_run)
{
    static const char *const kv[] = { "engine", "io_uring", "io_uring.nop", "1", "rw", "randrw", "bs", "4k",
                                      "qd", "32", "ios", "5000", "seed", "7", NULL };
    struct nvb_workload *w = tu_workload(kv, NULL);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE), 5000);
    /* NOPs draw no offsets, but a mix's directions still come from the
     * seed: rwmixread's default 50 %, well inside 40-60 % of 5000 draws */
    ck_assert_msg(nvb_result_ios(r, NVB_READ) > 2000 && nvb_result_ios(r, NVB_WRITE) > 2000, "%" PRIu64 " reads",
                  nvb_result_ios(r, NVB_READ));
    char *j = result_json(r);
    ck_assert_msg(strstr(j, "\"nop\":\"1\"") && strstr(j, "\"wait_min\":\"4\""), "%.600s", j);
    nvb_free(j);
    nvb_result_free(r);
    nvb_workload_free(w);

    char *f = tu_scratch("uring_nop", 1 << 20);
    uint64_t sum = tu_file_sum(f);
    struct stat a, b;
    file_id(f, &a);
    sleep(1); /* a write would move mtime by at least this */
    static const char *const wr[] = { "engine", "io_uring", "io_uring.nop", "1", "rw", "randwrite", "bs", "4k",
                                      "qd", "16", "ios", "3000", NULL };
    const char *const tg[] = { f, NULL };
    w = tu_workload(wr, tg);
    r = tu_run_ok(w);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 3000);
    nvb_result_free(r);
    nvb_workload_free(w);
    ck_assert_uint_eq(tu_file_sum(f), sum);
    file_id(f, &b);
    ck_assert(a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
    ck_assert(a.st_size == b.st_size);

    static const char *const ver[] = { "engine", "io_uring", "io_uring.nop", "1", "rw", "randrw", "bs", "4k",
                                       "verify", "1", "ios", "100", NULL };
    w = tu_workload(ver, tg);
    r = NULL;
    ck_assert_int_eq(nvb_run(w, NULL, &r), -EINVAL);
    ck_assert_msg(r && strstr(nvb_result_error(r), "verify=1") && strstr(nvb_result_error(r), "io_uring.nop=1"),
                  "%s", r ? nvb_result_error(r) : "no result");
    nvb_result_free(r);
    nvb_workload_free(w);

    /* The I/O modes ride a read's or write's rw_flags; a NOP's are its own
     * flags (RWF_DSYNC reads as IORING_NOP_FILE): refused, naming both
     * keys, rather than every write failing. */
    static const char *const modes[][2] = { { "randwrite", "fua" }, { "randread", "uncached" } };
    for (unsigned m = 0; m < 2; m++) {
        const char *const md[] = { "engine", "io_uring", "io_uring.nop", "1", "rw", modes[m][0], "bs", "4k",
                                   "direct", "0", modes[m][1], "1", "ios", "100", NULL };
        w = tu_workload(md, NULL);
        r = NULL;
        int rc = nvb_run(w, NULL, &r);
        char want[32];
        snprintf(want, sizeof want, "%s=1", modes[m][1]);
        ck_assert_msg(rc == -EINVAL && r && strstr(nvb_result_error(r), want) && strstr(nvb_result_error(r), "nop=0"),
                      "%s: %d %s", modes[m][1], rc, r ? nvb_result_error(r) : "no result");
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    unlink(f);

    char missing[4096];
    snprintf(missing, sizeof missing, "%s.missing", f);
    static const char *const mk[] = { "engine", "io_uring", "io_uring.nop", "1", "rw", "write", "size", "1m",
                                      "ios", "100", NULL };
    const char *const tm[] = { missing, NULL };
    w = tu_workload(mk, tm);
    r = NULL;
    ck_assert_int_lt(nvb_run(w, NULL, &r), 0);
    ck_assert_int_eq(access(missing, F_OK), -1);
    nvb_result_free(r);
    nvb_workload_free(w);
    free(f);
}
END_TEST

/* One fixed-seed run on a fresh copy of the same file: its content after,
 * and the counts by direction. */
struct outcome {
    uint64_t sum, ios[3], bytes[3];
};

static struct outcome run_on_copy(const char *f, const char *const *kv, const char *const *extra)
{
    ck_assert_int_eq(tu_sh("cp --sparse=never '%s.orig' '%s'", f, f), 0);
    const char *const tg[] = { f, NULL };
    struct nvb_workload *w = tu_workload(kv, tg);
    for (; extra[0]; extra += 2)
        ck_assert_msg(nvb_workload_set(w, extra[0], extra[1]) == 0, "%s", nvb_workload_error(w));
    struct nvb_result *r = tu_run_ok(w);
    struct outcome o = { .sum = tu_file_sum(f) };
    for (int d = 0; d < 3; d++) {
        o.ios[d] = nvb_result_ios(r, d);
        static const char *const p[] = { "read.bytes", "write.bytes", "trim.bytes" };
        double v = 0;
        o.bytes[d] = nvb_result_get(r, p[d], &v) == 0 ? (uint64_t)v : 0;
    }
    nvb_result_free(r);
    nvb_workload_free(w);
    return o;
}

/*
 * The same fixed-seed run issues the same I/Os through io_uring (each
 * configuration: registered files and buffers, neither, SQPOLL) as through
 * psync: writes land at the same offsets with the same sizes and data (the
 * file's content after equals psync's byte for byte: random_map=1, so no
 * block is written twice and completion order cannot matter), trims punch
 * the same holes, and each direction counts the same I/Os and bytes (a
 * mix of sizes too).
 */
static const char *const same_kv[][20] = {
    { "rw", "randwrite", "bs", "4k", "random_map", "1", "ios", "700", "seed", "11", "fill", "random", "qd",
      "32", "direct", "1", NULL },
    { "rw", "randrw", "rwmix", "60", "bs", "4k", "random_map", "1", "ios", "600", "seed", "12", "qd", "16",
      "direct", "1", NULL },
    { "rw", "randread", "bssplit", "4k/50:8k/30:16k/20", "ios", "500", "seed", "14", "qd", "32", "direct", "0",
      NULL },
    { "rw", "randtrim", "bs", "8k", "random_map", "1", "ios", "150", "seed", "13", "qd", "8", NULL },
};

START_TEST(test_same_ios)
{
    char *f = tu_scratch("uring_same", 4 << 20);
    ck_assert_int_eq(tu_sh("mv '%s' '%s.orig'", f, f), 0);
    const char *const *kv = same_kv[_i];
    static const char *const ps[] = { "engine", "psync", NULL };
    struct outcome ref = run_on_copy(f, kv, ps);
    static const char *const cfg[][6] = {
        { "engine", "io_uring", NULL },
        { "engine", "io_uring", "io_uring.fixedbufs", "0", "io_uring.regfiles", "0" },
        { "engine", "io_uring", "io_uring.sqpoll", "1", NULL },
    };
    for (int c = 0; c < 3; c++) {
        const char *ex[8] = { 0 };
        memcpy(ex, cfg[c], sizeof cfg[c]);
        struct outcome o = run_on_copy(f, kv, ex);
        ck_assert_msg(o.sum == ref.sum, "case %d config %d: the file differs from psync's", _i, c);
        for (int d = 0; d < 3; d++) {
            ck_assert_uint_eq(o.ios[d], ref.ios[d]);
            ck_assert_uint_eq(o.bytes[d], ref.bytes[d]);
        }
    }
    ck_assert(ref.ios[0] + ref.ios[1] + ref.ios[2] > 0);
    unlink(f);
    ck_assert_int_eq(tu_sh("rm -f '%s.orig'", f), 0);
    free(f);
}
END_TEST

/* Two targets: each I/O goes to its own target's file (the templates are
 * per target): both files after equal psync's. */
START_TEST(test_same_ios_targets)
{
    char *f[2] = { tu_scratch("uring_t0", 2 << 20), tu_scratch("uring_t1", 2 << 20) };
    for (int k = 0; k < 2; k++)
        ck_assert_int_eq(tu_sh("mv '%s' '%s.orig'", f[k], f[k]), 0);
    static const char *const cfg[][8] = {
        { "engine", "psync", NULL },
        { "engine", "io_uring", NULL },
        { "engine", "io_uring", "io_uring.fixedbufs", "0", "io_uring.regfiles", "0", NULL },
    };
    uint64_t ref[2] = { 0, 0 };
    for (int c = 0; c < 3; c++) {
        for (int k = 0; k < 2; k++)
            ck_assert_int_eq(tu_sh("cp '%s.orig' '%s'", f[k], f[k]), 0);
        static const char *const kv[] = { "rw", "randwrite", "bs", "4k", "random_map", "1", "ios", "500", "seed",
                                          "21", "qd", "32", "direct", "1", NULL };
        const char *const tg[] = { f[0], f[1], NULL };
        struct nvb_workload *w = tu_workload(kv, tg);
        for (const char *const *e = cfg[c]; e[0]; e += 2)
            ck_assert_int_eq(nvb_workload_set(w, e[0], e[1]), 0);
        struct nvb_result *r = tu_run_ok(w);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 500);
        nvb_result_free(r);
        nvb_workload_free(w);
        for (int k = 0; k < 2; k++) {
            uint64_t sum = tu_file_sum(f[k]);
            if (c == 0)
                ref[k] = sum;
            else
                ck_assert_msg(sum == ref[k], "config %d: target %d differs from psync's", c, k);
        }
    }
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(tu_sh("rm -f '%s' '%s.orig'", f[k], f[k]), 0);
        free(f[k]);
    }
}
END_TEST

/* Reads of one file through the engine with priorities prio: how many of
 * n (a batch each round, rounds of every size up to QD, so that batches
 * wrap round the ring) completed with their length, and how many with
 * -EINVAL; nothing else is allowed. */
static void prio_reads(const char *f, struct nvb__prio prio, int fixed, unsigned *ok, unsigned *inval)
{
    const struct nvb__engine *e = nvb__engine_find("io_uring");
    int64_t o[NVB__ENGINE_MAX_OPTS] = {0};
    static const char *const k[] = { "fixedbufs", NULL };
    opts_fill(e, o, k, (const int64_t[]){ fixed });
    int fd = open(f, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    void *bufs[QD];
    struct nvb__io io[QD], *ios[QD], *out[QD];
    for (unsigned i = 0; i < QD; i++)
        ck_assert_int_eq(posix_memalign(&bufs[i], 4096, BS), 0);
    struct nvb__used u = {0};
    char why[256] = "";
    struct nvb__engine_ctx ctx = { .qd = QD, .nfds = 1, .fds = &fd, .bufs = bufs, .buf_len = BS, .cpu = -1,
                                   .opts = o, .used = &u, .prio = prio, .why = why, .why_len = sizeof why };
    void *st = NULL;
    ck_assert_msg(e->setup(&ctx, &st) == 0, "%s", why);
    *ok = *inval = 0;
    for (unsigned round = 0; round < 3 * QD; round++) {
        const unsigned n = 1 + round % QD;
        for (unsigned i = 0; i < n; i++) {
            io[i] = (struct nvb__io){ .buf = bufs[i], .off = (uint64_t)((round + i) % 64) * BS, .len = BS,
                                      .slot = i, .dir = NVB_READ, .res = 1 };
            ios[i] = &io[i];
        }
        ck_assert_int_eq(e->submit(st, ios, n), 0);
        for (int got = 0; got < (int)n;) {
            int g = e->reap(st, out, QD, 1);
            ck_assert_int_gt(g, 0);
            for (int i = 0; i < g; i++) {
                ck_assert_msg(out[i]->res == BS || out[i]->res == -EINVAL, "res %lld", (long long)out[i]->res);
                *(out[i]->res == BS ? ok : inval) += 1;
            }
            got += g;
        }
    }
    e->teardown(st);
    close(fd);
    for (unsigned i = 0; i < QD; i++)
        free(bufs[i]);
}

/* Each SQE carries its priority, whichever way the engine fills it: the
 * job's own from the template (one target, no per-I/O choice), a share of
 * cmd_pct per I/O. The kernel refuses a read whose ioprio names no class
 * (7 << 13) with -EINVAL, so the I/Os that fail are exactly those that
 * carried it, and a valid class (best effort, level 4) passes. */
START_TEST(test_prio_in_sqe)
{
    char *f = tu_scratch("uring_prio", 64 * BS);
    const uint16_t bad = 7u << 13, be4 = 2u << 13 | 4u;
    const unsigned all = 3 * QD * (QD + 1) / 2;
    unsigned ok, inval;
    for (int fixed = 0; fixed < 2; fixed++) {
        prio_reads(f, (struct nvb__prio){ 0 }, fixed, &ok, &inval);
        ck_assert_uint_eq(ok, all);
        prio_reads(f, (struct nvb__prio){ .dflt = be4 }, fixed, &ok, &inval);
        ck_assert_uint_eq(ok, all);
        prio_reads(f, (struct nvb__prio){ .dflt = bad }, fixed, &ok, &inval);
        ck_assert_uint_eq(inval, all); /* the template's */
        prio_reads(f, (struct nvb__prio){ .cmd = bad, .cmd_pct = 100 }, fixed, &ok, &inval);
        ck_assert_uint_eq(inval, all);
        prio_reads(f, (struct nvb__prio){ .dflt = bad, .cmd = be4, .cmd_pct = 100 }, fixed, &ok, &inval);
        ck_assert_uint_eq(ok, all);
        prio_reads(f, (struct nvb__prio){ .cmd = bad, .cmd_pct = 50, .rng = 5 }, fixed, &ok, &inval);
        ck_assert_msg(ok > all / 4 && inval > all / 4, "cmd_pct=50: %u ok, %u refused", ok, inval);
    }
    unlink(f);
    free(f);
}
END_TEST

/* A blocking reap is bounded by ctx->wait_ns (the watchdog's and a rate's
 * need, travelling with the reap's own io_uring_enter()): a read of an
 * empty pipe does not complete, so reap() returns 0 after about the bound
 * instead of waiting on; once the pipe has data the read completes with
 * it. Without the bound this test would hang (CTest's timeout fails it). */
START_TEST(test_wait_bound)
{
    const struct nvb__engine *e = nvb__engine_find("io_uring");
    int64_t o[NVB__ENGINE_MAX_OPTS] = {0};
    opts_fill(e, o, NULL, NULL);
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    void *buf;
    ck_assert_int_eq(posix_memalign(&buf, 4096, BS), 0);
    uint64_t wait_ns = 20000000; /* 20 ms */
    struct nvb__used u = {0};
    char why[256] = "";
    struct nvb__engine_ctx ctx = { .qd = 1, .nfds = 1, .fds = &p[0], .bufs = &buf, .buf_len = BS, .cpu = -1,
                                   .opts = o, .used = &u, .wait_ns = &wait_ns, .why = why, .why_len = sizeof why };
    void *st = NULL;
    ck_assert_msg(e->setup(&ctx, &st) == 0, "%s", why);
    struct nvb__io io = { .buf = buf, .off = 0, .len = BS, .dir = NVB_READ, .res = 1 }, *ios[1] = { &io }, *out[1];
    ck_assert_int_eq(e->submit(st, ios, 1), 0);
    for (int k = 0; k < 3; k++) /* the bound passes, nothing came: 0, and again */
        ck_assert_int_eq(e->reap(st, out, 1, 1), 0);
    ck_assert_int_eq(write(p[1], "hello", 5), 5);
    int got = 0;
    for (int k = 0; k < 100 && !got; k++)
        got = e->reap(st, out, 1, 1);
    ck_assert_int_eq(got, 1);
    ck_assert_ptr_eq(out[0], &io);
    ck_assert_int_eq(io.res, 5);
    e->teardown(st);
    close(p[0]);
    close(p[1]);
    free(buf);
}
END_TEST

/* A run with io_uring.sqpoll=1 and sqpoll_cpu=cpu on a scratch file: its
 * result, or NULL (skip) when the kernel refuses SQPOLL here. */
static struct nvb_result *sqpoll_run(const char *f, const char *cpu)
{
    static const char *const kv[] = { "engine", "io_uring", "io_uring.sqpoll", "1", "rw", "randread", "bs", "4k",
                                      "ios", "64", "qd", "4", "direct", "0", NULL };
    const char *const tg[] = { f, NULL };
    struct nvb_workload *w = tu_workload(kv, tg);
    ck_assert_msg(nvb_workload_set(w, "io_uring.sqpoll_cpu", cpu) == 0, "%s", nvb_workload_error(w));
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, NULL, &r);
    const char *err = r ? nvb_result_error(r) : NULL;
    if (rc == -EPERM || rc == -ENOTSUP || (err && strstr(err, "sqpoll not permitted"))) {
        fprintf(stderr, "skipped: the kernel refuses SQPOLL here: %s\n", err ? err : "");
        nvb_result_free(r);
        r = NULL;
    } else {
        ck_assert_msg(rc == 0, "sqpoll_cpu=%s: %d %s", cpu, rc, err ? err : "");
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 64);
    }
    nvb_workload_free(w);
    return r;
}

static int warned(const struct nvb_result *r, const char *what)
{
    for (size_t i = 0; i < nvb_result_warning_count(r); i++)
        if (strstr(nvb_result_warning(r, i), what))
            return 1;
    return 0;
}

/* io_uring.sqpoll_cpu=local (issue 27): the word parses (bad words are
 * refused naming key and value, leaving the value as it was); on a device
 * whose NUMA node sysfs does not give (a file here) the SQPOLL thread is
 * not pinned and a warning names the key and the reason, and engine_used
 * has no sqpoll_cpu; where the node is known the CPU used is in
 * engine_used. A number still pins the thread to that CPU. */
START_TEST(test_sqpoll_cpu_local)
{
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    char buf[64];
    ck_assert_int_eq(nvb_workload_set(w, "io_uring.sqpoll_cpu", "local"), 0);
    ck_assert_int_ge(nvb_workload_get(w, "io_uring.sqpoll_cpu", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "local");
    static const char *const bad[] = { "lokal", "-2", "4096", "", "1x" };
    for (int i = 0; i < 5; i++) {
        ck_assert_int_lt(nvb_workload_set(w, "io_uring.sqpoll_cpu", bad[i]), 0);
        const char *e = nvb_workload_error(w);
        ck_assert_msg(strstr(e, "io_uring.sqpoll_cpu") && strstr(e, bad[i]), "%s", e);
        ck_assert_int_ge(nvb_workload_get(w, "io_uring.sqpoll_cpu", buf, sizeof buf), 0);
        ck_assert_str_eq(buf, "local");
    }
    ck_assert_int_lt(nvb_workload_set(w, "io_uring.wait_min", "local"), 0); /* only a CPU option takes the word */
    nvb_workload_free(w);

    char *f = tu_scratch("uring_sqcpu", 1 << 20);
    /* local without sqpoll=1: refused, whether or not the node is known */
    static const char *const kv0[] = { "engine", "io_uring", "io_uring.sqpoll_cpu", "local", "ios", "8", NULL };
    const char *const tg[] = { f, NULL };
    w = tu_workload(kv0, tg);
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, NULL, &r), -EINVAL);
    ck_assert_msg(r && strstr(nvb_result_error(r), "sqpoll_cpu=local needs sqpoll=1"), "%s",
                  r ? nvb_result_error(r) : "no result");
    nvb_result_free(r);
    nvb_workload_free(w);

    r = sqpoll_run(f, "local");
    if (r) {
        char *j = result_json(r);
        ck_assert_msg(strstr(j, "\"io_uring.sqpoll_cpu\":\"local\""), "the echo keeps local: %s", j);
        const int fallback = warned(r, "io_uring.sqpoll_cpu=local");
        char dev[64], why[192];
        uint64_t ticks, bits[NVB__MAX_CPUS / 64];
        int node;
        const int known = nvb__disk_io_ticks(f, dev, sizeof dev, &ticks, why, sizeof why) == 0 &&
                          nvb__node_cpus(NULL, dev, bits, &node, why, sizeof why) == 0;
        ck_assert_int_eq(fallback, !known); /* this VM: no node for the file's device, the fallback */
        if (fallback) {
            ck_assert(warned(r, "the thread is not pinned"));
            ck_assert_msg(!strstr(j, "\"sqpoll_cpu\":"), "not pinned, yet engine_used names a CPU: %s", j);
        } else {
            ck_assert_msg(strstr(j, "\"sqpoll_cpu\":\""), "pinned, and engine_used names no CPU: %s", j);
        }
        ck_assert_msg(strstr(j, "\"sqpoll\":\"1\""), "%s", j);
        nvb_free(j);
        nvb_result_free(r);
        r = sqpoll_run(f, "0"); /* a number: that CPU, no warning */
        ck_assert_ptr_nonnull(r);
        j = result_json(r);
        ck_assert_msg(strstr(j, "\"sqpoll_cpu\":\"0\""), "%s", j);
        ck_assert(!warned(r, "sqpoll_cpu"));
        nvb_free(j);
        nvb_result_free(r);
    }
    unlink(f);
    free(f);
}
END_TEST

int main(void)
{
    char why[256];
    if (nvb_engine_probe("io_uring", why, sizeof why) != 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "io_uring unavailable: %s", why);
        tu_skip(msg);
    }
    Suite *s = suite_create("uring");
    TCase *tc = tcase_create("uring");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_nop_engine);
    tcase_add_test(tc, test_nop_run);
    tcase_add_loop_test(tc, test_same_ios, 0, 4);
    tcase_add_test(tc, test_same_ios_targets);
    tcase_add_test(tc, test_prio_in_sqe);
    tcase_add_test(tc, test_wait_bound);
    tcase_add_test(tc, test_sqpoll_cpu_local);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
