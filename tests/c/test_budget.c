/* What a run takes from the machine, estimated before it starts
 * (core/budget.c): the estimate bounds the peak RSS a run really reaches,
 * for shapes whose memory grows with different things (jobs x targets,
 * runtime / interval, job groups); the time series is counted; job groups
 * are checked summed, for memory and descriptors. */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/internal.h"
#include "core/run.h"
#include "testutil.h"

#define MiB (1ull << 20)

/* The summed needs of the workloads, as nvb_run_groups checks them. */
static struct nvb__need need_of(struct nvb_workload *const *ws, size_t n)
{
    struct nvb__need sum;
    memset(&sum, 0, sizeof sum);
    for (size_t i = 0; i < n; i++) {
        struct plan p;
        char err[1024];
        ck_assert_msg(nvb__plan_build(ws[i], &p, err, sizeof err) == 0, "%s", err);
        if (i == 0)
            sum = p.need;
        else
            nvb__need_add(&sum, &p.need);
        nvb__plan_free(&p);
    }
    return sum;
}

/* Runs the workloads (job groups when n > 1) in a child process and
 * returns how far its peak RSS rose during the run, in bytes. */
static uint64_t peak_rise(struct nvb_workload *const *ws, size_t n)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct rusage a, b;
        getrusage(RUSAGE_SELF, &a);
        struct nvb_result *r = NULL;
        int rc = n > 1 ? nvb_run_groups((const struct nvb_workload *const *)ws, n, NULL, &r) : nvb_run(ws[0], NULL, &r);
        getrusage(RUSAGE_SELF, &b);
        uint64_t rise = rc == 0 ? (uint64_t)(b.ru_maxrss - a.ru_maxrss) * 1024 : UINT64_MAX;
        if (rc)
            fprintf(stderr, "run failed: %s\n", r ? nvb_result_error(r) : "?");
        _exit(write(fd[1], &rise, sizeof rise) == (ssize_t)sizeof rise ? 0 : 1);
    }
    close(fd[1]);
    uint64_t rise = UINT64_MAX;
    ck_assert_int_eq(read(fd[0], &rise, sizeof rise), (ssize_t)sizeof rise);
    close(fd[0]);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert_msg(rise != UINT64_MAX, "the run failed");
    return rise;
}

/* What the estimate leaves out on purpose: each job's thread (its stack
 * pages and its malloc arena's first pages) and the result's JSON
 * besides the series, bounded generously. */
static uint64_t slack(unsigned threads)
{
    return 8 * MiB + (uint64_t)threads * 512 * 1024;
}

static void check_bound(const char *shape, struct nvb_workload *const *ws, size_t n, unsigned threads)
{
    struct nvb__need need = need_of(ws, n);
    ck_assert_uint_le(need.mem.floor, need.mem.total);
    if (tu_under_memory_tool()) {
        fprintf(stderr, "%s: under valgrind or ASan, peak RSS not measured\n", shape);
        return;
    }
    uint64_t rise = peak_rise(ws, n);
    fprintf(stderr, "%s: peak RSS rose %.1f MiB; estimate %.1f MiB at most (%.1f at least; series %" PRIu64
            " points)\n", shape, rise / (double)MiB, need.mem.total / (double)MiB, need.mem.floor / (double)MiB,
            need.mem.series_points);
    ck_assert_msg(rise <= need.mem.total + slack(threads), "%s: peak RSS rose %" PRIu64 " bytes, above the estimate "
                  "%" PRIu64 " + %" PRIu64, shape, rise, need.mem.total, slack(threads));
}

static const char *g_file;

START_TEST(estimate_bounds_jobs_by_targets)
{
    /* 16 jobs x 64 targets: every (job, target) pair's histograms and the
     * sampler's copy of them are what grows */
    const char *tg[65];
    for (int i = 0; i < 64; i++)
        tg[i] = g_file;
    tg[64] = NULL;
    struct nvb_workload *w = tu_workload((const char *[]){"engine", "null", "rw", "randrw", "jobs", "16",
                                                          "runtime", "300ms", NULL}, tg);
    check_bound("null 16 jobs x 64 targets randrw", &w, 1, 16);
    nvb_workload_free(w);
}
END_TEST

START_TEST(estimate_bounds_long_series)
{
    /* a time series of 400 points of 10 ms, each with its interval
     * histograms of two directions */
    struct nvb_workload *w = tu_workload((const char *[]){"engine", "psync", "direct", "0", "rw", "randrw",
                                                          "runtime", "4s", "interval", "10ms", NULL},
                                         (const char *[]){g_file, NULL});
    struct nvb__need need = need_of(&w, 1);
    ck_assert_uint_ge(need.mem.series_points, 400);
    ck_assert_uint_ge(need.mem.series_min, 400 * sizeof(struct nvb__tsample));
    check_bound("psync randrw 4 s at 10 ms intervals", &w, 1, 1);
    nvb_workload_free(w);
}
END_TEST

START_TEST(estimate_bounds_groups)
{
    const char *tg[33];
    for (int i = 0; i < 32; i++)
        tg[i] = g_file;
    tg[32] = NULL;
    struct nvb_workload *ws[2];
    ws[0] = tu_workload((const char *[]){"engine", "null", "name", "a", "rw", "randread", "jobs", "8",
                                         "runtime", "300ms", NULL}, tg);
    ws[1] = tu_workload((const char *[]){"engine", "null", "name", "b", "rw", "randwrite", "jobs", "8",
                                         "runtime", "300ms", NULL}, tg);
    struct nvb__need one = need_of(ws, 1), two = need_of(ws, 2);
    ck_assert_uint_eq(two.groups, 2);
    ck_assert_uint_gt(two.mem.total, one.mem.total); /* summed, not the largest group's */
    check_bound("2 groups of null 8 jobs x 32 targets", ws, 2, 16);
    nvb_workload_free(ws[0]);
    nvb_workload_free(ws[1]);
}
END_TEST

START_TEST(series_counted_and_saturating)
{
    struct nvb__run_mem m;
    nvb__run_mem_estimate(4096, 1, 1, 1, 1, &m);
    uint64_t base_floor = m.floor, base_total = m.total;
    /* a day at 10 ms: 8.64 million points, each at least its struct */
    nvb__run_mem_series(&m, 86400ull * 1000000000, 10000000, 1, 0);
    ck_assert_uint_eq(m.series_points, 8640002);
    ck_assert_uint_ge(m.series_min, 8640002ull * sizeof(struct nvb__tsample));
    ck_assert_uint_eq(m.floor, base_floor + m.series_min);
    ck_assert_uint_eq(m.total, base_total + m.series_max);
    ck_assert_uint_gt(m.series_max, m.series_min);
    /* the longest runtime at the shortest interval saturates instead of wrapping */
    nvb__run_mem_series(&m, 365ull * 86400 * 1000000000, 10000000, 3, 0);
    struct nvb__run_mem big = m;
    for (int i = 0; i < 64; i++)
        nvb__run_mem_add(&big, &m);
    ck_assert_uint_ge(big.total, m.total);
    nvb__run_mem_estimate(4096, 1, 1, 1, 1, &m);
    nvb__run_mem_series(&m, 0, 10000000, 1, 0); /* bounded by I/Os only: no known length */
    ck_assert_uint_eq(m.series_points, 0);
}
END_TEST

START_TEST(a_year_at_10ms_is_refused_by_its_series)
{
    /* 365 days at 10 ms, every point kept (timeseries_max at its most):
     * 3.2 billion points, at least ~1.8 TB: more than this machine has; the
     * message names the series */
    struct nvb_workload *w = tu_workload((const char *[]){"engine", "null", "rw", "randread", "runtime", "31536000s",
                                                          "interval", "10ms", "timeseries_max", "4294967295", NULL},
                                         (const char *[]){g_file, NULL});
    int rc = nvb_workload_validate(w);
    ck_assert_msg(rc == -ENOMEM, "rc %d: %s", rc, nvb_workload_error(w));
    ck_assert_msg(strstr(nvb_workload_error(w), "time-series points") &&
                  strstr(nvb_workload_error(w), "longer interval") &&
                  strstr(nvb_workload_error(w), "timeseries_max"), "%s", nvb_workload_error(w));
    nvb_workload_free(w);
    /* by default the series keeps at most timeseries_max points (merged
     * beyond): the same year fits */
    w = tu_workload((const char *[]){"engine", "null", "rw", "randread", "runtime", "31536000s", "interval", "10ms",
                                     NULL},
                    (const char *[]){g_file, NULL});
    rc = nvb_workload_validate(w);
    ck_assert_msg(rc == 0, "rc %d: %s", rc, nvb_workload_error(w));
    struct nvb__need n = need_of(&w, 1);
    ck_assert_uint_eq(n.mem.series_points, 1000 + 4);
    nvb_workload_free(w);
}
END_TEST

/* verify=1 with writes keeps a bit per block written (a mixed run checks
 * only what it wrote): counted in the estimate, a read-only run has none,
 * and a map larger than the machine is refused up front, named. */
START_TEST(verify_map_counted)
{
    static const char *const rws[] = {"randrw", "randread"};
    for (int k = 0; k < 2; k++) {
        struct nvb_workload *w = tu_workload((const char *[]){"engine", "psync", "rw", rws[k], "bs", "4k", "size",
                                                              "4M", "jobs", "3", "verify", "1", NULL},
                                             (const char *[]){g_file, NULL});
        struct nvb__need n = need_of(&w, 1);
        if (k == 0) /* 1024 blocks: 128 bytes, and a word's rounding per job */
            ck_assert_msg(n.mem.vmap_bytes >= 128 && n.mem.vmap_bytes <= 128 + 64 * 3, "%" PRIu64, n.mem.vmap_bytes);
        else
            ck_assert_uint_eq(n.mem.vmap_bytes, 0);
        nvb_workload_free(w);
    }
    /* a sparse 15 TiB file at bs 64: a 30 GiB map */
    char path[4200];
    snprintf(path, sizeof path, "%s/budget-vmap.img", tu_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    int big = ftruncate(fileno(f), (off_t)15 << 40) == 0;
    fclose(f);
    if (big && nvb__mem_total() && nvb__mem_total() < (30ull << 30)) {
        struct nvb_workload *w = tu_workload((const char *[]){"engine", "psync", "rw", "randrw", "bs", "64",
                                                              "direct", "0", "verify", "1", NULL},
                                             (const char *[]){path, NULL});
        int rc = nvb_workload_validate(w);
        ck_assert_msg(rc == -ENOMEM && strstr(nvb_workload_error(w), "maps of written blocks"), "rc %d: %s", rc,
                      nvb_workload_error(w));
        nvb_workload_free(w);
    } else {
        fprintf(stderr, "verify_map_counted: no sparse 15 TiB file here, or 30 GiB of memory: refusal not tested\n");
    }
    unlink(path);
}
END_TEST

START_TEST(groups_descriptors_summed)
{
    /* Two groups of 3 jobs x 8 targets: each fits under RLIMIT_NOFILE 64
     * alone (24 + the holds' 16 + the engines'), together they do not:
     * refused before anything is opened, with how many are needed. */
    char *f = tu_scratch("budget-fds", 1 << 20);
    const char *tg[] = {f, f, f, f, f, f, f, f, NULL};
    struct nvb_workload *ws[2];
    ws[0] = tu_workload((const char *[]){"engine", "psync", "name", "a", "rw", "randread", "jobs", "3",
                                         "ios", "8", NULL}, tg);
    ws[1] = tu_workload((const char *[]){"engine", "psync", "name", "b", "rw", "randread", "jobs", "3",
                                         "ios", "8", NULL}, tg);
    struct rlimit old, rl;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
    rl = old;
    rl.rlim_cur = 64;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    int alone = nvb_workload_validate(ws[0]);
    struct nvb_result *r = NULL;
    int rc = nvb_run_groups((const struct nvb_workload *const *)ws, 2, NULL, &r);
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
    ck_assert_msg(alone == 0, "one group alone: %s", nvb_workload_error(ws[0]));
    ck_assert_msg(rc == -EMFILE, "rc %d: %s", rc, r ? nvb_result_error(r) : "");
    const char *msg = nvb_result_error(r);
    ck_assert_msg(strstr(msg, "2 job groups together") && strstr(msg, "file descriptors") &&
                  strstr(msg, "48 for the groups' jobs") && strstr(msg, "ulimit -n"), "%s", msg);
    nvb_result_free(r);
    nvb_workload_free(ws[0]);
    nvb_workload_free(ws[1]);
    free(f);
}
END_TEST

int main(void)
{
    char *f = tu_scratch("budget", 8 * MiB);
    g_file = f;
    Suite *s = suite_create("budget");
    TCase *tc = tcase_create("budget");
    tcase_add_test(tc, series_counted_and_saturating);
    tcase_add_test(tc, a_year_at_10ms_is_refused_by_its_series);
    tcase_add_test(tc, groups_descriptors_summed);
    tcase_add_test(tc, estimate_bounds_jobs_by_targets);
    tcase_add_test(tc, estimate_bounds_long_series);
    tcase_add_test(tc, estimate_bounds_groups);
    tcase_add_test(tc, verify_map_counted);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    free(f);
    return failed ? 1 : 0;
}
