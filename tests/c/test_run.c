/* The runner through the public API, the same behavioural tests for every
 * engine: exact counts for ios/io_limit runs, per-target sums, data written
 * through one engine read back intact through another, cancellation,
 * progress, ramp, scratch files, two runs at once in one process. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/resource.h>

#include "nvbench.h"
#include "core/hist.h"
#include "core/internal.h"
#include "core/run.h"
#include "testutil.h"

#define FILE_SIZE (8u << 20)

static char *g_files[3];
static const char *g_engines[8];
static int g_nengines;          /* available engines doing real I/O */

#define mk tu_workload



START_TEST(exact_counts_every_engine)
{
    const char *t1[] = {g_files[0], NULL};
    for (int e = 0; e < g_nengines + 1; e++) {
        const char *eng = e < g_nengines ? g_engines[e] : "null";
        static const char *const rws[] = {"randread", "randwrite", "randrw", "read", "write"};
        for (size_t k = 0; k < 5; k++) {
            /* 1001 over 3 jobs: the split is exact, not rounded */
            struct nvb_workload *w = mk((const char *[]){"engine", eng, "rw", rws[k], "qd", "8", "jobs", "3",
                                                         "ios", "1001", NULL}, t1);
            struct nvb_result *r = tu_run_ok(w);
            uint64_t n = nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE);
            ck_assert_msg(n == 1001, "%s %s: %llu ios", eng, rws[k], (unsigned long long)n);
            ck_assert_uint_eq(nvb_result_bytes(r, NVB_READ) + nvb_result_bytes(r, NVB_WRITE), 1001ull * 4096);
            if (!strcmp(rws[k], "randrw"))
                ck_assert(nvb_result_ios(r, NVB_READ) > 0 && nvb_result_ios(r, NVB_WRITE) > 0);
            ck_assert_uint_eq(nvb_result_errors(r), 0);
            ck_assert(nvb_result_duration(r) > 0);
            int d = strstr(rws[k], "write") ? NVB_WRITE : NVB_READ;
            ck_assert(nvb_result_lat_pct(r, d, 50) <= nvb_result_lat_pct(r, d, 99));
            ck_assert(nvb_result_lat_pct(r, d, 99.99) <= tu_get(r, d ? "write.lat_ns.max" : "read.lat_ns.max"));
            nvb_result_free(r);
            nvb_workload_free(w);
        }
        struct nvb_workload *w = mk((const char *[]){"engine", eng, "rw", "randread", "bs", "16k", "qd", "4",
                                                     "io_limit", "4M", NULL}, t1);
        struct nvb_result *r = tu_run_ok(w);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 256);
        ck_assert_uint_eq(nvb_result_bytes(r, NVB_READ), 4u << 20);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

START_TEST(per_target_sums_are_totals)
{
    const char *t3[] = {g_files[0], g_files[1], g_files[2], NULL};
    static const char *const modes[] = {"shared", "split"};
    static const char *const jobs[] = {"1", "2", "5"};
    for (int m = 0; m < 2; m++)
        for (int j = 0; j < 3; j++) {
            const char *eng = g_nengines ? g_engines[g_nengines - 1] : "null";
            struct nvb_workload *w = mk((const char *[]){"engine", eng, "rw", "randrw", "qd", "4", "jobs",
                                                         jobs[j], "target_mode", modes[m], "runtime", "200ms",
                                                         NULL}, t3);
            struct nvb_result *r = tu_run_ok(w);
            for (int d = 0; d < 2; d++) {
                const char *dn = d ? "write" : "read";
                char p[64];
                double ios = 0, bytes = 0;
                for (int t = 0; t < 3; t++) {
                    snprintf(p, sizeof p, "per_target.%d.%s.ios", t, dn);
                    ios += tu_get(r, p);
                    snprintf(p, sizeof p, "per_target.%d.%s.bytes", t, dn);
                    bytes += tu_get(r, p);
                    if (m == 0 || atoi(jobs[j]) >= 3)
                        ck_assert_msg(tu_get(r, p) > 0, "target %d idle (%s, jobs %s)", t, modes[m], jobs[j]);
                }
                ck_assert(ios == (double)nvb_result_ios(r, d));
                ck_assert(bytes == (double)nvb_result_bytes(r, d));
            }
            /* the time series adds up to the totals */
            double ts = 0;
            char p[64];
            for (int i = 0;; i++) {
                double v;
                snprintf(p, sizeof p, "timeseries.%d.read.ios", i);
                if (nvb_result_get(r, p, &v) < 0)
                    break;
                ts += v;
            }
            ck_assert_msg(ts == (double)nvb_result_ios(r, NVB_READ), "timeseries %f != %llu", ts,
                          (unsigned long long)nvb_result_ios(r, NVB_READ));
            nvb_result_free(r);
            nvb_workload_free(w);
        }
}
END_TEST

/* Data written through each engine reads back intact through every other. */
START_TEST(write_then_read_back_across_engines)
{
    const char *t1[] = {g_files[1], NULL};
    char nblocks[32];
    snprintf(nblocks, sizeof nblocks, "%u", FILE_SIZE / 4096);
    for (int a = 0; a < g_nengines; a++)
        for (int b = 0; b < g_nengines; b++) {
            char seed[32];
            snprintf(seed, sizeof seed, "%d", 1000 + a * 10 + b);
            struct nvb_workload *w = mk((const char *[]){"engine", g_engines[a], "rw", "write", "qd", "8",
                                                         "verify", "1", "seed", seed, "ios", nblocks, NULL}, t1);
            struct nvb_result *r = tu_run_ok(w);
            ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), FILE_SIZE / 4096);
            nvb_result_free(r);
            nvb_workload_free(w);
            w = mk((const char *[]){"engine", g_engines[b], "rw", "randread", "qd", "8", "verify", "1", "seed",
                                    seed, "ios", "3000", NULL}, t1);
            r = tu_run_ok(w);
            ck_assert_msg(tu_get(r, "verify.checked") == 3000, "%s->%s checked %f", g_engines[a], g_engines[b],
                          tu_get(r, "verify.checked"));
            ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "%s->%s: %f mismatches", g_engines[a], g_engines[b],
                          tu_get(r, "verify.mismatches"));
            nvb_result_free(r);
            nvb_workload_free(w);
        }
    /* and corruption behind nvbench's back is found, block by block */
    int fd = open(g_files[1], O_WRONLY);
    ck_assert_int_ge(fd, 0);
    char junk[4096];
    memset(junk, 0xa5, sizeof junk);
    ck_assert_int_eq(pwrite(fd, junk, sizeof junk, 4096 * 7), 4096);
    ck_assert_int_eq(pwrite(fd, junk, 100, 4096 * 300 + 1000), 100);
    fsync(fd);
    close(fd);
    char seed[32];
    snprintf(seed, sizeof seed, "%d", 1000 + (g_nengines - 1) * 11);
    struct nvb_workload *w = mk((const char *[]){"engine", g_nengines ? g_engines[0] : "psync", "rw", "read",
                                                 "verify", "1", "seed", seed, "ios", nblocks, "direct", "0", NULL}, t1);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_msg(tu_get(r, "verify.mismatches") == 2, "found %f corrupted blocks, expected 2", tu_get(r, "verify.mismatches"));
    ck_assert(tu_get(r, "verify.first_mismatches.0.offset") == 4096 * 7);
    ck_assert(tu_get(r, "verify.first_mismatches.1.offset") == 4096 * 300);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

struct canceller {
    struct nvb_cancel *c;
    unsigned ms;
};

static void *cancel_later(void *arg)
{
    struct canceller *k = arg;
    usleep(k->ms * 1000);
    nvb_cancel_request(k->c);
    return NULL;
}

START_TEST(cancel_from_another_thread)
{
    char *dir = tu_mkdtemp("cancel");
    const char *eng = g_nengines ? g_engines[g_nengines - 1] : "null";
    struct nvb_workload *w = mk((const char *[]){"engine", eng, "rw", "randread", "qd", "4", "runtime", "60s",
                                                 "size", "4M", NULL}, (const char *[]){dir, NULL});
    struct nvb_cancel *c;
    ck_assert_int_eq(nvb_cancel_new(&c), 0);
    struct canceller k = {c, 300};
    pthread_t th;
    pthread_create(&th, NULL, cancel_later, &k);
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.cancel = c;
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, &o, &r);
    pthread_join(th, NULL);
    ck_assert_int_eq(rc, -ECANCELED);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(nvb_result_cancelled(r), 1);
    ck_assert(nvb_result_ios(r, NVB_READ) > 0);
    ck_assert(nvb_result_duration(r) < 30);
    char *json;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"cancelled\":true"));
    nvb_free(json);
    nvb_result_free(r);
    /* the scratch file is gone */
    ck_assert_int_eq(tu_count_entries(dir), 0);
    /* a reset handle runs normally again */
    nvb_cancel_reset(c);
    nvb_workload_set(w, "runtime", "100ms");
    r = tu_run_ok(w);
    nvb_result_free(r);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    nvb_cancel_free(c);
    nvb_workload_free(w);
    rmdir(dir);
    free(dir);
}
END_TEST

struct pstate {
    int calls, stop_after;
    double last_elapsed;
    uint64_t last_ios;
    int monotonic;
};

static int on_progress(const struct nvb_progress *p, void *arg)
{
    struct pstate *s = arg;
    if (p->size < sizeof *p)
        return 1;
    if (p->elapsed_s < s->last_elapsed || p->ios[0] < s->last_ios)
        s->monotonic = 0;
    s->last_elapsed = p->elapsed_s;
    s->last_ios = p->ios[0];
    s->calls++;
    return s->stop_after && s->calls >= s->stop_after;
}

static int on_poll(void *arg)
{
    int *n = arg;
    return ++*n >= 3;
}

START_TEST(progress_callback)
{
    const char *t1[] = {g_files[0], NULL};
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "rw", "randread", "runtime", "550ms",
                                                 "interval", "100ms", NULL}, t1);
    struct pstate s = {0, 0, -1e9, 0, 1};
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.progress = on_progress;
    o.progress_arg = &s;
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, &o, &r), 0);
    ck_assert_msg(s.calls >= 3, "progress called %d times", s.calls);
    ck_assert(s.monotonic);
    ck_assert(tu_get(r, "timeseries.2.read.ios") > 0);
    nvb_result_free(r);
    /* returning nonzero cancels */
    nvb_workload_set(w, "runtime", "60s");
    struct pstate s2 = {0, 2, -1e9, 0, 1};
    o.progress_arg = &s2;
    ck_assert_int_eq(nvb_run(w, &o, &r), -ECANCELED);
    ck_assert_int_eq(s2.calls, 2);
    ck_assert_int_eq(nvb_result_cancelled(r), 1);
    nvb_result_free(r);
    /* the poll hook runs between intervals and can cancel too */
    struct nvb_run_opts o2 = NVB_RUN_OPTS_INIT;
    int polls = 0;
    o2.poll = on_poll;
    o2.poll_arg = &polls;
    o2.poll_ms = 20;
    ck_assert_int_eq(nvb_run(w, &o2, &r), -ECANCELED);
    ck_assert_int_eq(polls, 3);
    ck_assert(nvb_result_duration(r) < 30);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

START_TEST(ramp_is_excluded)
{
    const char *t1[] = {g_files[0], NULL};
    const char *eng = g_nengines ? g_engines[0] : "null";
    struct nvb_workload *w = mk((const char *[]){"engine", eng, "rw", "randread", "qd", "2", "ramp", "200ms",
                                                 "ios", "500", NULL}, t1);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 500);
    ck_assert(tu_get(r, "ramp_s") > 0.19);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

START_TEST(directory_target_scratch)
{
    char *dir = tu_mkdtemp("scratch");
    const char *eng = g_nengines ? g_engines[0] : "null";
    struct nvb_workload *w = mk((const char *[]){"engine", eng, "rw", "randrw", "size", "2M", "ios", "300", NULL},
                                (const char *[]){dir, NULL});
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE), 300);
    char *json;
    nvb_result_json(r, &json);
    ck_assert_ptr_nonnull(strstr(json, ".nvbench-scratch-"));
    ck_assert_ptr_nonnull(strstr(json, "\"kind\":\"scratch\""));
    nvb_free(json);
    nvb_result_free(r);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    nvb_workload_free(w);
    rmdir(dir);
    free(dir);
}
END_TEST

struct twin {
    const char *target;
    const char *engine;
    int rc;
    uint64_t ios;
};

static void *twin_run(void *arg)
{
    struct twin *t = arg;
    struct nvb_workload *w;
    nvb_workload_new(&w);
    nvb_workload_set(w, "engine", t->engine);
    nvb_workload_set(w, "rw", "randrw");
    nvb_workload_set(w, "qd", "4");
    nvb_workload_set(w, "jobs", "2");
    nvb_workload_set(w, "ios", "2000");
    nvb_workload_add_target(w, t->target);
    struct nvb_result *r = NULL;
    t->rc = nvb_run(w, NULL, &r);
    t->ios = r ? nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE) : 0;
    nvb_result_free(r);
    nvb_workload_free(w);
    return NULL;
}

START_TEST(two_runs_at_once)
{
    struct twin a = {g_files[0], g_nengines ? g_engines[0] : "null", 1, 0};
    struct twin b = {g_files[2], g_nengines ? g_engines[g_nengines - 1] : "null", 1, 0};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, twin_run, &a);
    pthread_create(&tb, NULL, twin_run, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    ck_assert_int_eq(a.rc, 0);
    ck_assert_int_eq(b.rc, 0);
    ck_assert_uint_eq(a.ios, 2000);
    ck_assert_uint_eq(b.ios, 2000);
}
END_TEST

struct logbook {
    int warnings, errors;
    char last[512];
};

static void on_log(int level, const char *msg, void *arg)
{
    struct logbook *b = arg;
    if (level == 1)
        b->warnings++;
    if (level == 0)
        b->errors++;
    snprintf(b->last, sizeof b->last, "%s", msg);
}

START_TEST(rate_cap_and_warnings)
{
    const char *t1[] = {g_files[0], NULL};
    struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randread", "qd", "8", "jobs", "2",
                                                 "rate_iops", "400", "runtime", "500ms", "io_uring.sqpoll", "1",
                                                 NULL}, t1);
    struct logbook book = {0, 0, ""};
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.log = on_log;
    o.log_arg = &book;
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, &o, &r), 0);
    /* warnings reach the log callback as well as the result */
    ck_assert_int_ge(book.warnings, 2);
    ck_assert_int_eq(book.errors, 0);
    /* a cap, not a timing: at most one I/O per 1/rate slot per job, plus the first */
    uint64_t n = nvb_result_ios(r, NVB_READ);
    ck_assert_msg(n <= (uint64_t)(400 * nvb_result_duration(r)) + 2, "%llu ios in %.3fs at rate 400",
                  (unsigned long long)n, nvb_result_duration(r));
    ck_assert(n > 0);
    char *json;
    nvb_result_json(r, &json);
    ck_assert_msg(strstr(json, "synchronous"), "no warning that psync runs at qd 1");
    ck_assert_msg(strstr(json, "io_uring.sqpoll=1 ignored"), "no warning for a foreign engine option");
    ck_assert_ptr_nonnull(strstr(json, "\"qd_effective\":1"));
    /* the same warnings through the C accessors, in the JSON's order */
    size_t nw = nvb_result_warning_count(r);
    ck_assert_uint_ge(nw, 2);
    int sync = 0;
    for (size_t i = 0; i < nw; i++) {
        const char *t = nvb_result_warning(r, i);
        ck_assert_ptr_nonnull(t);
        ck_assert_msg(strstr(json, t), "warning %zu not in the JSON: %s", i, t);
        sync += strstr(t, "synchronous") != NULL;
    }
    ck_assert_int_eq(sync, 1);
    ck_assert_ptr_null(nvb_result_warning(r, nw));
    ck_assert_uint_eq(nvb_result_warning_count(NULL), 0);
    ck_assert_ptr_null(nvb_result_warning(NULL, 0));
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

START_TEST(cpu_figures)
{
    const char *t1[] = {g_files[0], NULL};
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "rw", "randread", "qd", "16", "runtime",
                                                 "300ms", NULL}, t1);
    struct nvb_result *r = tu_run_ok(w);
    double sys = tu_get(r, "cpu.system_pct"), cores = tu_get(r, "cpu.process_cores");
    ck_assert(sys >= 0 && sys <= 100);
    /* a busy loop thread: well above zero, never more than the machine */
    ck_assert_msg(cores > 0.05 && cores <= 64, "process_cores %f", cores); /* loose: CI machines are shared */
    ck_assert(tu_get(r, "cpu.cpu_us_per_io") > 0);
    ck_assert(tu_get(r, "cpu.iops_per_core") > 0);
    ck_assert(tu_get(r, "cpu.background_pct") >= 0);
    /* the CPU figures are over the measured window: read at its edges,
     * divided by the span between the reads (matching edges,
     * docs/cpu-accounting.md) */
    double cpu_s = tu_get(r, "cpu.process_user_s") + tu_get(r, "cpu.process_sys_s");
    ck_assert(fabs(cores * tu_get(r, "cpu.window_s") - cpu_s) <= 1e-9 * cpu_s + 1e-12);
    /* this process's share is part of the machine's, never above it */
    ck_assert(tu_get(r, "cpu.nvbench_pct") <= sys);
    ck_assert(fabs(tu_get(r, "cpu.cpu_us_per_io") * tu_get(r, "cpu.iops_per_core") - 1e6) < 1e-3);
    /* without a ramp the two reads bracket the window */
    ck_assert_msg(tu_get(r, "cpu.window_s") >= nvb_result_duration(r), "window_s %.9f duration_s %.9f",
                  tu_get(r, "cpu.window_s"), nvb_result_duration(r));
    /* the job thread is named in the per-thread breakdown */
    char *json;
    nvb_result_json(r, &json);
    ck_assert_ptr_nonnull(strstr(json, "\"name\":\"nvb-job-0\""));
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

START_TEST(cpu_window_edges)
{
    /* Each edge is read once, by the first thread there; an end taken
     * before any start (a run stopped during its ramp) makes an empty
     * window, never a negative one. */
    struct run *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    nvb__cpu_edge(r, NVB__EDGE_END);
    ck_assert_int_eq(r->cpu_edge[NVB__EDGE_START], 2);
    ck_assert_int_eq(r->cpu_edge[NVB__EDGE_END], 2);
    uint64_t t0 = r->cpu_t[NVB__EDGE_START], t1 = r->cpu_t[NVB__EDGE_END];
    ck_assert(t0 > 0 && t0 <= t1);
    nvb__cpu_edge(r, NVB__EDGE_START);
    nvb__cpu_edge(r, NVB__EDGE_END);
    ck_assert(r->cpu_t[NVB__EDGE_START] == t0 && r->cpu_t[NVB__EDGE_END] == t1);
    nvb__sys_sample_free(&r->cpu_sys[NVB__EDGE_START]);
    nvb__sys_sample_free(&r->cpu_sys[NVB__EDGE_END]);
    free(r);

    /* With a ramp and bounded by I/O count: the same figures over the
     * measured window */
    const char *t1p[] = {g_files[0], NULL};
    struct nvb_workload *w = mk((const char *[]){"engine", "null", "rw", "randread", "qd", "8", "jobs", "2",
                                                 "ramp", "50ms", "ios", "2000000", NULL}, t1p);
    struct nvb_result *res = tu_run_ok(w);
    double cpu_s = tu_get(res, "cpu.process_user_s") + tu_get(res, "cpu.process_sys_s");
    ck_assert(fabs(tu_get(res, "cpu.process_cores") * tu_get(res, "cpu.window_s") - cpu_s) <= 1e-9 * cpu_s + 1e-12);
    ck_assert(fabs(tu_get(res, "cpu.cpu_us_per_io") * tu_get(res, "cpu.iops_per_core") - 1e6) < 1e-3);
    nvb_result_free(res);
    nvb_workload_free(w);
}
END_TEST

START_TEST(descriptors_checked_up_front)
{
    /* 8 jobs on 8 targets need 64 descriptors for the jobs alone: with
     * RLIMIT_NOFILE at 64 the run is refused before anything is opened,
     * with a message that says how many and what to raise. */
    struct rlimit old, rl;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
    char *f = tu_scratch("fds", 1 << 20);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "8", "jobs", "8", NULL};
    const char *tg[] = {f, f, f, f, f, f, f, f, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    rl = old;
    rl.rlim_cur = 64;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    int rc = nvb_workload_validate(w);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", nvb_workload_error(w));
    nvb_workload_free(w);
    /* one job on one target fits */
    const char *kv1[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "8", NULL};
    const char *tg1[] = {f, NULL};
    struct nvb_workload *w1 = tu_workload(kv1, tg1);
    int rc1 = nvb_workload_validate(w1);
    nvb_workload_free(w1);
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
    ck_assert_msg(rc == -EMFILE, "rc %d: %s", rc, msg);
    ck_assert_msg(strstr(msg, "file descriptors") && strstr(msg, "ulimit -n") && strstr(msg, "limit of 64") &&
                  strstr(msg, "8 x 8"), "%s", msg);
    ck_assert_int_eq(rc1, 0);
    free(f);
}
END_TEST

START_TEST(memory_estimate_counts_histograms)
{
    /* 64 targets x 512 jobs: the histograms, not the buffers, are what
     * takes the memory, and the estimate the run checks counts them. */
    struct nvb__run_mem m;
    nvb__run_mem_estimate(4096, 1, 512, 64, 1, &m);
    ck_assert_uint_eq(m.buffers, 4096ull * 512);
    ck_assert_uint_ge(m.histograms, 512ull * 64 * 3); /* lat, slat, clat */
    ck_assert_uint_ge(m.hist_bytes, 512ull * 64 * 3 * sizeof(struct nvb__hist));
    ck_assert_uint_gt(m.hist_bytes, 600ull << 20);
    /* and the sampler's copy of every lat histogram's counts (each direction used) */
    ck_assert_uint_ge(m.sampler_bytes, 512ull * 64 * NVB__HIST_BUCKETS * 8);
    ck_assert_uint_eq(m.total, m.buffers + m.hist_bytes + m.sampler_bytes + m.table_bytes + m.json_bytes);
    ck_assert_uint_eq(m.floor, m.buffers + m.hist_bytes + m.table_bytes);
    /* reads and writes: twice the histograms */
    struct nvb__run_mem m2;
    nvb__run_mem_estimate(4096, 1, 512, 64, 2, &m2);
    ck_assert_uint_eq(m2.histograms, 2 * m.histograms);
    ck_assert_uint_ge(m2.sampler_bytes, 2 * 512ull * 64 * NVB__HIST_BUCKETS * 8);
    /* a product past 2^64 saturates instead of wrapping to a small number */
    nvb__run_mem_estimate(UINT64_MAX / 2, 65535, 4096, 1, 1, &m);
    ck_assert_uint_eq(m.total, UINT64_MAX);
}
END_TEST

/* A file that shrank between planning and the run (another process
 * truncated it: the io-error case of test_json_schema under load) is
 * noticed: a warning names it and its holes are not measured (the region
 * past its new end read as holes, allocated_pct 6.25). The truncation is
 * done from the library's debug log line "opening N targets", which comes
 * after planning sized the region and before the run examines it. */
static void shrink_on_open(int level, const char *msg, void *arg)
{
    (void)level;
    if (strncmp(msg, "opening ", 8) == 0)
        ck_assert_int_eq(truncate((const char *)arg, 64 * 1024), 0);
}

START_TEST(file_shrunk_after_planning_is_noticed)
{
    char *file = tu_scratch("run-shrink", 1 << 20);
    struct nvb_workload *w = tu_workload((const char *[]){"engine", "psync", "rw", "randread", "bs", "4k", "ios",
                                                          "64", "continue_on_error", "1", NULL},
                                         (const char *[]){file, NULL});
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.log = shrink_on_open;
    o.log_arg = file;
    struct nvb_result *r = NULL;
    nvb_run(w, &o, &r); /* reads past the new end fail: counted (continue_on_error) */
    ck_assert_ptr_nonnull(r);
    int warned = 0;
    for (size_t i = 0; i < nvb_result_warning_count(r); i++)
        warned |= strstr(nvb_result_warning(r, i), "shrank") != NULL &&
                  strstr(nvb_result_warning(r, i), file) != NULL;
    ck_assert_msg(warned, "no warning that '%s' shrank after planning", file);
    char *json = NULL;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_msg(strstr(json, "\"allocated_pct\":null"), "the holes of a file that shrank were measured: %.300s",
                  strstr(json, "\"allocated_pct\"") ? strstr(json, "\"allocated_pct\"") : json);
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(file);
    free(file);
}
END_TEST

int main(void)
{
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "run-%d", i);
        g_files[i] = tu_scratch(name, FILE_SIZE);
    }
    for (int i = 0; i < nvb_engine_count(); i++) {
        const char *n = nvb_engine_name(i);
        char why[256];
        if (!strcmp(n, "nvme")) /* NVMe namespaces only: tests/vm runs these tests on them */
            continue;
        if (strcmp(n, "null") && nvb_engine_probe(n, why, sizeof why) == 0)
            g_engines[g_nengines++] = n;
        else if (strcmp(n, "null"))
            fprintf(stderr, "note: engine %s not tested here: %s\n", n, why);
    }
    Suite *s = suite_create("run");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, exact_counts_every_engine);
    tcase_add_test(tc, per_target_sums_are_totals);
    tcase_add_test(tc, write_then_read_back_across_engines);
    tcase_add_test(tc, cancel_from_another_thread);
    tcase_add_test(tc, file_shrunk_after_planning_is_noticed);
    tcase_add_test(tc, progress_callback);
    tcase_add_test(tc, ramp_is_excluded);
    tcase_add_test(tc, directory_target_scratch);
    tcase_add_test(tc, two_runs_at_once);
    tcase_add_test(tc, rate_cap_and_warnings);
    tcase_add_test(tc, cpu_figures);
    tcase_add_test(tc, cpu_window_edges);
    tcase_add_test(tc, descriptors_checked_up_front);
    tcase_add_test(tc, memory_estimate_counts_histograms);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    for (int i = 0; i < 3; i++) {
        unlink(g_files[i]);
        free(g_files[i]);
    }
    return failed ? 1 : 0;
}
