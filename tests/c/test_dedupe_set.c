/*
 * data_dedupe_set and data_dedupe_global (fio's dedupe_mode=working_set,
 * dedupe_working_set_percentage, dedupe_global): duplicates drawn from a
 * working set of distinct blocks, each job's first blocks being the set's,
 * shared by the jobs of a group with global. The written files are read
 * back and their 4 KiB blocks hashed: how many are distinct, and how often
 * the most repeated one is there.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

#define BS 4096u
#define NBLK 4096u /* 16 MiB a file */

struct counts {
    size_t blocks, distinct, most; /* most: copies of the most repeated block */
};

static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static int cmp64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The blocks of the files together. */
static struct counts count(const char *const *files)
{
    size_t cap = 0, n = 0;
    uint64_t *h = NULL;
    unsigned char buf[BS];
    for (; *files; files++) {
        FILE *f = fopen(*files, "rb");
        ck_assert_ptr_nonnull(f);
        while (fread(buf, 1, BS, f) == BS) {
            if (n == cap)
                ck_assert_ptr_nonnull(h = realloc(h, (cap = cap ? 2 * cap : 4096) * sizeof *h));
            h[n++] = fnv(buf, BS);
        }
        fclose(f);
    }
    qsort(h, n, sizeof *h, cmp64);
    struct counts c = {n, 0, 0};
    for (size_t i = 0, k; i < n; i = k) {
        for (k = i + 1; k < n && h[k] == h[i]; k++)
            ;
        c.distinct++;
        c.most = k - i > c.most ? k - i : c.most;
    }
    free(h);
    return c;
}

static struct nvb_workload *writer(const char *file, const char *set, const char *global)
{
    return tu_workload((const char *[]){"engine", "psync", "rw", "write", "bs", "4k", "direct", "0", "size", "16m",
                                        "io_limit", "16m", "data_dedupe", "50", "data_dedupe_set", set, "data_dedupe_global", global,
                                        "data_compress", "50", NULL},
                       (const char *[]){file, NULL});
}

/* One job, every block written once, half of them duplicates: a working
 * set of half the region's blocks is the job's first 2048 fresh blocks, so
 * the duplicates repeat those and about half the blocks are distinct, none
 * more than a few times over; without a set (0) the duplicates are one
 * block, 2048 times over. */
START_TEST(working_set_of_one_job)
{
    char *f = tu_scratch("ddset", (uint64_t)BS * NBLK);
    const char *files[] = {f, NULL};
    static const char *const sets[] = {"50", "0"};
    for (int k = 0; k < 2; k++) {
        struct nvb_workload *w = writer(f, sets[k], "0");
        nvb_result_free(tu_run_ok(w));
        nvb_workload_free(w);
        struct counts c = count(files);
        ck_assert_uint_eq(c.blocks, NBLK);
        const double share = (double)c.distinct / (double)c.blocks;
        ck_assert_msg(share > 0.47 && share < 0.53, "set %s: %zu of %zu distinct", sets[k], c.distinct, c.blocks);
        if (k == 0)
            ck_assert_msg(c.most < 20, "a block %zu times over", c.most);
        else
            ck_assert_msg(c.most > 1500, "the one duplicate %zu times", c.most);
    }
    unlink(f);
    free(f);
}
END_TEST

/* fio's dedupe-global example: two writers of 16 MiB each, run together,
 * 50% duplicates from a shared working set of 50%. Each file alone
 * dedupes less (its duplicates of the other's blocks are new to it: about
 * 0.66 distinct; fio's t/fio-dedupe found 16817 of 25600 on its own run),
 * both together at the asked 50% (fio: 25747 of 51200). Not shared (0):
 * each file at 50% alone and together. */
START_TEST(global_set_over_a_group)
{
    char *a = tu_scratch("dda", (uint64_t)BS * NBLK), *b = tu_scratch("ddb", (uint64_t)BS * NBLK);
    static const char *const global[] = {"1", "0"};
    for (int k = 0; k < 2; k++) {
        struct nvb_workload *ws[2] = {writer(a, "50", global[k]), writer(b, "50", global[k])};
        ck_assert_int_eq(nvb_workload_set(ws[0], "name", "a"), 0);
        ck_assert_int_eq(nvb_workload_set(ws[1], "name", "b"), 0);
        if (k == 1) /* not shared: the seeds differ, as fio's jobs' buffers do (one seed, one stream) */
            ck_assert_int_eq(nvb_workload_set(ws[1], "seed", "6"), 0);
        struct nvb_result *r = NULL;
        int rc = nvb_run_groups((const struct nvb_workload *const *)ws, 2, NULL, &r);
        ck_assert_msg(rc == 0, "%s", r ? nvb_result_error(r) : "");
        nvb_result_free(r);
        nvb_workload_free(ws[0]);
        nvb_workload_free(ws[1]);
        struct counts ca = count((const char *[]){a, NULL}), cb = count((const char *[]){b, NULL});
        struct counts both = count((const char *[]){a, b, NULL});
        const double sa = (double)ca.distinct / NBLK, sb = (double)cb.distinct / NBLK;
        const double sboth = (double)both.distinct / (2.0 * NBLK);
        ck_assert_msg(sboth > 0.47 && sboth < 0.53, "global %s: together %zu of %zu distinct", global[k],
                      both.distinct, both.blocks);
        if (k == 0)
            ck_assert_msg(sa > 0.6 && sa < 0.72 && sb > 0.6 && sb < 0.72, "alone: %.3f and %.3f distinct", sa, sb);
        else
            ck_assert_msg(sa > 0.47 && sa < 0.53 && sb > 0.47 && sb < 0.53, "alone: %.3f, %.3f", sa, sb);
    }
    unlink(a);
    unlink(b);
    free(a);
    free(b);
}
END_TEST

/* A set without duplicates, or global without a set: refused naming the key. */
START_TEST(refusals)
{
    char *f = tu_scratch("ddref", (uint64_t)BS * 16);
    struct nvb_workload *w = tu_workload((const char *[]){"rw", "write", "size", "64k", "data_dedupe_set", "5", NULL},
                                         (const char *[]){f, NULL});
    struct nvb_result *r = NULL;
    ck_assert_int_lt(nvb_run(w, NULL, &r), 0);
    ck_assert_msg(strstr(nvb_result_error(r), "data_dedupe_set=5 needs data_dedupe"), "%s", nvb_result_error(r));
    nvb_result_free(r);
    ck_assert_int_eq(nvb_workload_set(w, "data_dedupe", "20"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "data_dedupe_set", "0"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "data_dedupe_global", "1"), 0);
    r = NULL;
    ck_assert_int_lt(nvb_run(w, NULL, &r), 0);
    ck_assert_msg(strstr(nvb_result_error(r), "data_dedupe_global=1"), "%s", nvb_result_error(r));
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(f);
    free(f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dedupe_set");
    TCase *tc = tcase_create("dedupe_set");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, working_set_of_one_job);
    tcase_add_test(tc, global_set_over_a_group);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
