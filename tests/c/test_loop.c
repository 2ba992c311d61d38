/*
 * The measurement loop issues what it issued before a change to its own
 * cost: a fixed-seed run with ios=N sends the same offsets, sizes and
 * directions in the same order, and counts the same I/Os by direction.
 *
 * The psync engine's pread/pwrite are the C library's: this program defines
 * its own (the static library's calls bind to them), which fold every I/O a
 * job thread makes into a digest and then do it with the system call. The
 * expected digests were taken from the loop before its rework (commit
 * 5eb5230; the cases of the plain instance, one target and direction
 * without other features, from commit 63601c3 before the loop was built
 * per feature set); a change that moves one offset, size or direction
 * moves them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

static pthread_t g_main;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_digest, g_count;
static __thread uint64_t t_seq; /* this thread's I/Os so far: its own order */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The I/Os of one job thread in order; the threads' digests are summed, so
 * that two jobs' interleaving does not matter, only each job's sequence. */
static void note_io(int dir, uint64_t off, size_t len)
{
    if (pthread_equal(pthread_self(), g_main))
        return; /* the test's own reads and writes */
    uint64_t h = mix64(mix64(mix64(++t_seq) ^ off) ^ ((uint64_t)len << 2 | (uint64_t)dir));
    pthread_mutex_lock(&g_mu);
    g_digest += h;
    g_count++;
    pthread_mutex_unlock(&g_mu);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    note_io(0, (uint64_t)off, n);
    return syscall(SYS_pread64, fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    note_io(1, (uint64_t)off, n);
    return syscall(SYS_pwrite64, fd, buf, n, off);
}

static char *g_file;

static void digest_of(const char *const *kv, uint64_t *digest, uint64_t *count, uint64_t ios[3])
{
    const char *targets[] = {g_file, NULL};
    struct nvb_workload *w = tu_workload(kv, targets);
    g_main = pthread_self();
    g_digest = g_count = 0;
    t_seq = 0;
    struct nvb_result *r = tu_run_ok(w);
    *digest = g_digest;
    *count = g_count;
    static const char *const path[3] = {"read.ios", "write.ios", "trim.ios"};
    for (int d = 0; d < 3; d++) {
        double v = 0; /* a direction the workload does not use has no figure */
        ios[d] = nvb_result_get(r, path[d], &v) == 0 ? (uint64_t)v : 0;
    }
    nvb_result_free(r);
    nvb_workload_free(w);
}

struct golden {
    const char *kv[24];
    uint64_t digest, count, ios[3];
};

/* What the loop issued before its rework, case by case. */
static const struct golden g_cases[] = {
    {{"engine", "psync", "rw", "randrw", "rwmix", "70", "bs", "4k", "ios", "3000", "seed", "42", "size", "4M", NULL},
     0x42000ec8699fb9edull, 3000, {2128, 872, 0}},
    {{"engine", "psync", "rw", "randrw", "bssplit", "4k/50:16k/30:64k/20", "ios", "2000", "seed", "7", "size", "4M",
      NULL}, 0x448d96bc69362781ull, 2000, {951, 1049, 0}},
    {{"engine", "psync", "rw", "randrw", "verify", "1", "bs", "4k", "ios", "2000", "seed", "9", "size", "1M", "jobs",
      "2", NULL}, 0x8ab9fa720f68c8ffull, 2000, {942, 1058, 0}},
    {{"engine", "psync", "rw", "rw", "bs", "8k", "ios", "1000", "seed", "3", "size", "1M", NULL}, 0x848eb85bdfc46a96ull, 1000, {482, 518, 0}},
    {{"engine", "null", "rw", "randrw", "rwmixtrim", "20", "bs", "4k", "qd", "32", "submit_batch", "8", "ios",
      "100000", "seed", "11", NULL}, 0, 0, {40173, 39993, 19834}},
    {{"engine", "null", "rw", "randrw", "bs", "4k", "qd", "1", "ios", "50000", "seed", "5", NULL}, 0, 0, {24877, 25123, 0}},
    /* one target and direction, no other feature: the loop's plain instance */
    {{"engine", "psync", "rw", "randread", "bs", "4k", "ios", "3000", "seed", "13", "size", "4M", NULL},
     0xdaedf3c470b26b6aull, 3000, {3000, 0, 0}},
    {{"engine", "psync", "rw", "randwrite", "bs", "16k", "ios", "1500", "seed", "17", "size", "4M", NULL},
     0x2ae6aac8e059da66ull, 1500, {0, 1500, 0}},
    {{"engine", "psync", "rw", "read", "bs", "8k", "ios", "1000", "seed", "3", "size", "1M", NULL},
     0x4fbb37fcedc3f060ull, 1000, {1000, 0, 0}},
    {{"engine", "psync", "rw", "randread", "bs", "4k", "ios", "2000", "seed", "19", "size", "4M",
      "random_distribution", "zipf:1.2", NULL}, 0x05ac65ea9d6f628full, 2000, {2000, 0, 0}},
    {{"engine", "psync", "rw", "randread", "bs", "4k", "ios", "2000", "seed", "23", "size", "4M", "jobs", "2",
      NULL}, 0x0688604dc1a30623ull, 2000, {2000, 0, 0}},
    /* qd 1 with an engine that completes outside its submit call (slat,
     * three clock reads): the plain instance built for qd 1 counts them */
    {{"engine", "null", "rw", "randwrite", "bs", "4k", "qd", "1", "ios", "20000", "seed", "29", "ramp", "0", NULL},
     0, 0, {0, 20000, 0}},
};
#define NCASES (sizeof g_cases / sizeof g_cases[0])

START_TEST(same_ios_as_before)
{
    const struct golden *g = &g_cases[_i];
    uint64_t digest, count, ios[3];
    digest_of(g->kv, &digest, &count, ios);
    if (getenv("NVB_LOOP_PRINT"))
        fprintf(stderr, "case %d: 0x%016llxull, %llu, {%llu, %llu, %llu}\n", _i, (unsigned long long)digest,
                (unsigned long long)count, (unsigned long long)ios[0], (unsigned long long)ios[1],
                (unsigned long long)ios[2]);
    ck_assert_msg(digest == g->digest && count == g->count, "case %d: I/Os issued differ: digest %016llx of %llu, "
                  "expected %016llx of %llu", _i, (unsigned long long)digest, (unsigned long long)count,
                  (unsigned long long)g->digest, (unsigned long long)g->count);
    for (int d = 0; d < 3; d++)
        ck_assert_msg(ios[d] == g->ios[d], "case %d: direction %d counted %llu I/Os, expected %llu", _i, d,
                      (unsigned long long)ios[d], (unsigned long long)g->ios[d]);
}
END_TEST

int main(void)
{
    g_file = tu_scratch("loop", 4 << 20);
    Suite *s = suite_create("loop");
    TCase *tc = tcase_create("same");
    tcase_add_loop_test(tc, same_ios_as_before, 0, (int)NCASES);
    suite_add_tcase(s, tc);
    int rc = tu_run_suite(s);
    unlink(g_file);
    free(g_file);
    return rc;
}
