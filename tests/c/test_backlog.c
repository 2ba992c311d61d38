/*
 * verify_backlog (fio's option of that name): every N completed writes a
 * job reads back and checks the blocks they wrote, while it goes on
 * writing, and the rest when its writes end. And seq_stride with verify=1
 * (fio's rw=write:N with verify), each job striding through its own slice,
 * which fio's cross-stripe-verify example needs with both.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

#define BS 4096u
#define NBLK 1024u

static char *g_file;

static struct nvb_workload *workload(const char *const *kv)
{
    const char *base[] = {"engine", "psync", "verify", "1", "bs", "4k", "seed", "5", "rw", "write", NULL};
    struct nvb_workload *w = tu_workload(base, (const char *[]){g_file, NULL});
    for (; kv[0]; kv += 2)
        ck_assert_msg(nvb_workload_set(w, kv[0], kv[1]) == 0, "%s=%s: %s", kv[0], kv[1], nvb_workload_error(w));
    return w;
}

static struct nvb_result *run(const char *const *kv)
{
    struct nvb_workload *w = workload(kv);
    struct nvb_result *r = tu_run_ok(w);
    nvb_workload_free(w);
    return r;
}

/* Each job writes its slice of the region twice over: a read-back after
 * the writes would check each block once (NBLK checks), the backlog checks
 * every write as it goes (2 x NBLK), at any N and depth, the last writes
 * (fewer than N) when the writes end. */
START_TEST(checks_every_write_while_writing)
{
    static const char *const cases[][6] = {
        {"verify_backlog", "1", "qd", "1", "jobs", "1"},
        {"verify_backlog", "7", "qd", "4", "jobs", "1"},
        {"verify_backlog", "16", "qd", "32", "jobs", "3"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *const *c = cases[k];
        struct nvb_result *r = run((const char *[]){c[0], c[1], c[2], c[3], c[4], c[5], "ios", "2048", NULL});
        ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 2 * NBLK);
        ck_assert_msg(tu_get(r, "verify.checked") == 2 * NBLK, "backlog %s qd %s jobs %s: %f checked", c[1], c[3],
                      c[5], tu_get(r, "verify.checked"));
        ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "backlog %s: %f mismatched", c[1],
                      tu_get(r, "verify.mismatches"));
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 0); /* the checks' reads are in no throughput figure */
        nvb_result_free(r);
    }
}
END_TEST

/* fio's rw=write:N with verify: 4 jobs striding (3 blocks skipped after
 * each write) through their own slices, the checks finding every block
 * written as the job that wrote it left it: no false mismatch across the
 * slices. */
START_TEST(stride_with_verify_each_job_its_slice)
{
    struct nvb_result *r = run((const char *[]){"seq_stride", "12k", "jobs", "4", "qd", "2", "verify_backlog", "1",
                                                "ios", "512", NULL});
    ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 512);
    ck_assert(tu_get(r, "verify.checked") == 512);
    ck_assert(tu_get(r, "verify.mismatches") == 0);
    nvb_result_free(r);
    /* a read-only run of the same jobs over the region reads what they wrote:
     * the blocks they skipped hold the file's other data (mismatches), the
     * ones they wrote check out; with the stride the read run checks the
     * written ones only */
    r = run((const char *[]){"seq_stride", "12k", "jobs", "4", "rw", "read", "ios", "128", NULL});
    ck_assert(tu_get(r, "verify.checked") == 128);
    ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "%f mismatched", tu_get(r, "verify.mismatches"));
    nvb_result_free(r);
}
END_TEST

/* Refusals name the key: a backlog without verify or writes; a stride of
 * part of a block with verify. */
START_TEST(refusals)
{
    struct nvb_workload *w = tu_workload((const char *[]){"rw", "write", "verify_backlog", "4", "size", "1m", NULL},
                                         (const char *[]){g_file, NULL});
    tu_run_refused(w, (const char *[]){"verify_backlog=4", NULL});
    nvb_workload_free(w);
    w = workload((const char *[]){"seq_stride", "6k", "size", "1m", NULL});
    tu_run_refused(w, (const char *[]){"seq_stride", "whole bs", NULL});
    nvb_workload_free(w);
}
END_TEST

int main(void)
{
    g_file = tu_scratch("backlog", (uint64_t)BS * NBLK);
    Suite *s = suite_create("backlog");
    TCase *tc = tcase_create("backlog");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, checks_every_write_while_writing);
    tcase_add_test(tc, stride_with_verify_each_job_its_slice);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    unlink(g_file);
    free(g_file);
    return failed ? 1 : 0;
}
