/*
 * verify_readback (fio's do_verify after writes that may not cover the
 * region) and the fio options mapped beside it: a job reads back exactly
 * the blocks it wrote, so blocks it did not write (a target full of other
 * data) are never read and never reported as mismatches, whatever ended
 * the writes (ios, a runtime, random writes that skip blocks); a job file
 * with a runtime-capped verify write maps to it. Also the options whose
 * meaning depends on this machine (numa_cpu_nodes, numa_mem_policy against
 * sysfs's nodes, as fio 3.33 reads them here) and allow_file_create=0.
 * And verify_pattern (the payload of a verification block, laid out as
 * fio lays out a hex pattern) with the options of fio's surface-scan.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/verify.h"
#include "testutil.h"

#define BS 4096u
#define NBLK 1024u

static char *g_file;
static char why[1024];

static struct nvb_result *run(const char *const *kv)
{
    const char *base[] = {"engine", "psync", "verify", "1", "verify_readback", "1", "bs", "4k", "seed", "99", NULL};
    struct nvb_workload *w = tu_workload(base, (const char *[]){g_file, NULL});
    for (; kv[0]; kv += 2)
        ck_assert_msg(nvb_workload_set(w, kv[0], kv[1]) == 0, "%s=%s: %s", kv[0], kv[1], nvb_workload_error(w));
    struct nvb_result *r = tu_run_ok(w);
    nvb_workload_free(w);
    return r;
}

/* Random writes of 300 blocks (the random map: each once) over a target
 * of 1024 blocks of other data: the read-back checks exactly those 300,
 * none of the 724 never written (a whole-region read-back would count
 * them all as mismatches). */
START_TEST(reads_back_only_the_blocks_written)
{
    static const char *const jobs[] = {"1", "3"};
    for (int k = 0; k < 2; k++) {
        struct nvb_result *r = run((const char *[]){"rw", "randwrite", "random_map", "1", "ios", "300", "qd", "8",
                                                    "jobs", jobs[k], NULL});
        ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 300);
        ck_assert_msg(tu_get(r, "verify.checked") == 300, "jobs %s: %f checked", jobs[k], tu_get(r, "verify.checked"));
        ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "jobs %s: %f mismatched", jobs[k],
                      tu_get(r, "verify.mismatches"));
        ck_assert(tu_get(r, "verify.unchecked") == 0);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 0); /* the read-back is in no throughput figure */
        nvb_result_free(r);
    }
    /* without the random map a block may be written twice: read back once, against its last write */
    struct nvb_result *r = run((const char *[]){"rw", "randwrite", "random_map", "0", "ios", "2000", "qd", "4", NULL});
    ck_assert(tu_get(r, "verify.checked") > 0 && tu_get(r, "verify.checked") <= NBLK);
    ck_assert(tu_get(r, "verify.mismatches") == 0);
    nvb_result_free(r);
}
END_TEST

/* A runtime that may end the writes anywhere: whatever was written is
 * read back, nothing else (no figure of time is asserted: only that the
 * checked blocks are some of those written and none mismatched). */
START_TEST(a_runtime_cut_write_checks_what_it_wrote)
{
    static const char *const rw[] = {"write", "randwrite"};
    for (int k = 0; k < 2; k++) {
        struct nvb_result *r = run((const char *[]){"rw", rw[k], "runtime", "300ms", "qd", "4", "jobs", "2", NULL});
        const double wrote = (double)nvb_result_ios(r, NVB_WRITE);
        ck_assert(tu_get(r, "verify.checked") <= wrote);
        ck_assert(wrote == 0 || tu_get(r, "verify.checked") > 0);
        ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "%s: %f of %f mismatched", rw[k],
                      tu_get(r, "verify.mismatches"), tu_get(r, "verify.checked"));
        nvb_result_free(r);
    }
}
END_TEST

/* verify_readback needs verify=1 and writes: refused naming both keys. */
START_TEST(readback_needs_verify_writes)
{
    struct nvb_workload *w = tu_workload((const char *[]){"rw", "randread", "verify_readback", "1", "size", "1m", NULL},
                                         (const char *[]){g_file, NULL});
    ck_assert_int_eq(tu_run_refused(w, (const char *[]){"verify_readback=1", NULL}), -EINVAL);
    nvb_workload_free(w);
}
END_TEST

static struct nvb_fiomap *map_text(const char *text, unsigned flags, int *rc)
{
    char path[600];
    snprintf(path, sizeof path, "%s.fio", g_file);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    struct nvb_fiojob *fj = NULL;
    struct nvb_fiomap *m = NULL;
    *rc = nvb_fiojob_read(path, NULL, &fj, why, sizeof why);
    if (*rc == 0)
        *rc = nvb_fiomap_new(fj, path, flags, &m, why, sizeof why);
    nvb_fiojob_free(fj);
    unlink(path);
    return m;
}

static const char *key(const struct nvb_fiomap *m, size_t w, const char *name)
{
    for (size_t k = 0; k < nvb_fiomap_count(m, w, NVB_FIOMAP_KEYS); k++) {
        const char *v, *n = nvb_fiomap_item(m, w, NVB_FIOMAP_KEYS, k, &v, NULL);
        if (strcmp(n, name) == 0)
            return v;
    }
    return NULL;
}

/* fio's basic-verify: random writes with a runtime and verify: one
 * workload whose jobs read back what they wrote (no read-back step of
 * the whole region); a size-bounded sequential write keeps its step. */
START_TEST(job_file_runtime_verify_reads_back_in_the_job)
{
    char text[1024];
    int rc;
    snprintf(text, sizeof text, "[w]\nfilename=%s\nsize=4m\nrw=randwrite\nbs=4k\nruntime=1\nverify=crc32c\n", g_file);
    struct nvb_fiomap *m = map_text(text, 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    ck_assert_uint_eq(nvb_fiomap_workloads(m), 1);
    ck_assert_str_eq(key(m, 0, "verify"), "1");
    ck_assert_str_eq(key(m, 0, "verify_readback"), "1");
    nvb_fiomap_free(m);
    snprintf(text, sizeof text, "[w]\nfilename=%s\nsize=4m\nrw=write\nbs=4k\nverify=crc32c\n", g_file);
    m = map_text(text, 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    ck_assert_uint_eq(nvb_fiomap_workloads(m), 2);
    ck_assert_ptr_null(key(m, 0, "verify_readback"));
    nvb_fiomap_free(m);
    /* do_verify=0: written with verify blocks, not read back */
    snprintf(text, sizeof text, "[w]\nfilename=%s\nsize=4m\nrw=randwrite\nruntime=1\nverify=md5\ndo_verify=0\n", g_file);
    m = map_text(text, 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    ck_assert_uint_eq(nvb_fiomap_workloads(m), 1);
    ck_assert_ptr_null(key(m, 0, "verify_readback"));
    nvb_fiomap_free(m);
}
END_TEST

/* The machine's NUMA nodes as sysfs lists them (fio's libnuma reads the same). */
static int node_count(void)
{
    FILE *f = fopen("/sys/devices/system/node/online", "r");
    int a = 0, b = -1, n = 0;
    if (!f)
        return 0;
    while (fscanf(f, "%d", &a) == 1) {
        b = a;
        if (fscanf(f, "-%d", &b) < 0)
            b = a;
        n += b - a + 1;
        if (fgetc(f) != ',')
            break;
    }
    fclose(f);
    return n;
}

/* numa_cpu_nodes / numa_mem_policy as fio 3.33 runs them here: a node the
 * machine lacks fails the job file (fio: "numa_parse_nodestring failed",
 * no job runs), in lenient mode too; on one node every node list is the
 * whole machine: the job floats over every CPU, with a note. */
START_TEST(numa_nodes_of_this_machine)
{
    int rc, nodes = node_count();
    if (nodes < 1)
        tu_skip("no NUMA nodes in sysfs");
    char text[512];
    snprintf(text, sizeof text, "[j]\nioengine=null\nsize=1m\nnuma_cpu_nodes=0-%d\n", nodes);
    for (unsigned fl = 0; fl < 2; fl++) {
        ck_assert_ptr_null(map_text(text, fl ? NVB_FIOMAP_LENIENT : 0, &rc));
        ck_assert_int_eq(rc, -EINVAL);
        char want[64];
        snprintf(want, sizeof want, "node %d does not exist", nodes);
        ck_assert_msg(strstr(why, "numa_cpu_nodes") && strstr(why, want), "%s", why);
    }
    snprintf(text, sizeof text, "[j]\nioengine=null\nsize=1m\nnuma_mem_policy=bind:%d\n", nodes);
    ck_assert_ptr_null(map_text(text, 0, &rc));
    ck_assert_ptr_nonnull(strstr(why, "numa_mem_policy"));
    snprintf(text, sizeof text, "[j]\nioengine=null\nsize=1m\nnuma_cpu_nodes=0-%d\nnuma_mem_policy=interleave:0-%d\n",
             nodes - 1, nodes - 1);
    struct nvb_fiomap *m = map_text(text, 0, &rc);
    if (nodes == 1) { /* every node: the whole machine, fio's job floats over all of it */
        ck_assert_msg(m != NULL, "%s", why);
        ck_assert_ptr_null(key(m, 0, "cpus"));
        ck_assert_uint_eq(nvb_fiomap_count(m, 0, NVB_FIOMAP_WARNINGS), 2);
        ck_assert_ptr_nonnull(strstr(nvb_fiomap_item(m, 0, NVB_FIOMAP_WARNINGS, 0, NULL, NULL), "floats over them"));
        ck_assert_ptr_nonnull(strstr(nvb_fiomap_item(m, 0, NVB_FIOMAP_WARNINGS, 1, NULL, NULL), "one NUMA node"));
    } else { /* nvbench sets no memory policy across nodes */
        ck_assert_ptr_null(m);
        ck_assert_ptr_nonnull(strstr(why, "numa_mem_policy"));
    }
    nvb_fiomap_free(m);
    ck_assert_ptr_null(map_text("[j]\nioengine=null\nsize=1m\nnuma_cpu_nodes=x\n", 0, &rc));
    ck_assert_ptr_nonnull(strstr(why, "not a list of NUMA nodes"));
    ck_assert_ptr_null(map_text("[j]\nioengine=null\nsize=1m\nnuma_mem_policy=bind\n", 0, &rc));
    ck_assert_ptr_nonnull(strstr(why, "needs nodes"));
}
END_TEST

/* allow_file_create=0: a file that exists runs; one that does not is
 * refused before anything is created (fio would not create it). */
START_TEST(allow_file_create_off)
{
    char text[1024], missing[600];
    int rc;
    snprintf(missing, sizeof missing, "%s.missing", g_file);
    snprintf(text, sizeof text, "[j]\nfilename=%s\nsize=1m\nallow_file_create=0\n", g_file);
    struct nvb_fiomap *m = map_text(text, 0, &rc);
    ck_assert_msg(m != NULL, "%s", why);
    nvb_fiomap_free(m);
    snprintf(text, sizeof text, "[j]\nfilename=%s\nsize=1m\nallow_file_create=0\n", missing);
    ck_assert_ptr_null(map_text(text, NVB_FIOMAP_LENIENT, &rc));
    ck_assert_msg(strstr(why, "allow_file_create") && strstr(why, "does not exist"), "%s", why);
    ck_assert_int_ne(access(missing, F_OK), 0);
    snprintf(text, sizeof text, "[j]\nfilename=%s\nsize=1m\nallow_file_create=1\n", missing);
    m = map_text(text, 0, &rc);
    ck_assert_msg(m != NULL, "%s", why);
    nvb_fiomap_free(m);
}
END_TEST

/* The pattern from the block's start (fio 3.33 wrote aa 55 5a a5 from
 * byte 0 of a block for verify_pattern=0xaa555aa5, its header over the
 * first bytes), the header and CRC32C kept; a changed byte of it found. */
START_TEST(pattern_block_format)
{
    static const char *const bad[] = {"0x", "0xabc", "0xzz", "aa55", "0x" "0011223344556677889900112233445566778899001122334455667788990011"};
    struct nvb__vpat pat, none;
    struct nvb__vmismatch mm;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(nvb__vpat_parse(bad[i], &pat) == -EINVAL, "%s", bad[i]);
    ck_assert_int_eq(nvb__vpat_parse("", &none), 0);
    ck_assert_uint_eq(none.len, 0);
    ck_assert_int_eq(nvb__vpat_parse("0xAA555aa5", &pat), 0);
    ck_assert_uint_eq(pat.len, 4);
    static unsigned char b[4096];
    nvb__vblock_fill_pat(b, sizeof b, 7, 1, 8192, 3, &pat);
    for (unsigned i = 48; i < sizeof b; i++)
        ck_assert_uint_eq(b[i], ((const unsigned char[]){0xaa, 0x55, 0x5a, 0xa5})[i % 4]);
    ck_assert_int_eq(nvb__vblock_check_pat(b, sizeof b, 7, 1, 8192, &pat, &mm), 0);
    ck_assert_int_ne(nvb__vblock_check_pat(b, sizeof b, 7, 1, 8192, &none, &mm), 0); /* not random data */
    ck_assert_int_ne(nvb__vblock_check_pat(b, sizeof b, 7, 1, 4096, &pat, &mm), 0);  /* another offset's */
    b[1000] ^= 1;
    ck_assert_int_ne(nvb__vblock_check_pat(b, sizeof b, 7, 1, 8192, &pat, &mm), 0);
}
END_TEST

/* Written with a pattern, read back with it: all checked, none mismatched;
 * the file holds the pattern after each header. Read without it: every
 * block mismatches (the data is the pattern, not nvbench's random data). */
START_TEST(pattern_written_and_read_back)
{
    struct nvb_result *r = run((const char *[]){"rw", "write", "verify_readback", "0", "verify_pattern", "0xaa555aa5",
                                                "ios", "64", NULL});
    nvb_result_free(r);
    unsigned char *head = tu_read_head(g_file, 2 * BS);
    for (unsigned i = 0; i < 2 * BS; i++)
        if (i % BS >= 48) /* after each block's header */
            ck_assert_uint_eq(head[i], ((const unsigned char[]){0xaa, 0x55, 0x5a, 0xa5})[i % 4]);
    free(head);
    r = run((const char *[]){"rw", "read", "verify_readback", "0", "verify_pattern", "0xaa555aa5", "ios", "64", NULL});
    ck_assert(tu_get(r, "verify.checked") == 64 && tu_get(r, "verify.mismatches") == 0);
    nvb_result_free(r);
    r = run((const char *[]){"rw", "read", "verify_readback", "0", "ios", "64", NULL});
    ck_assert(tu_get(r, "verify.mismatches") == 64 && tu_get(r, "verify.by_field.data") == 64);
    nvb_result_free(r);
    struct nvb_workload *w = tu_workload((const char *[]){"rw", "read", "verify_pattern", "0x55", "size", "1m", NULL},
                                         (const char *[]){g_file, NULL});
    ck_assert_int_eq(nvb_run(w, NULL, &r), -EINVAL);
    ck_assert_msg(strstr(nvb_result_error(r), "needs verify=1"), "%s", nvb_result_error(r));
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* fio's surface-scan: a write step with do_verify=0, then a read job with
 * do_verify=1 verifying it with the same settings (pattern, meta); the
 * interval, fill_device with a size and create_serialize with notes. */
START_TEST(surface_scan_mapping)
{
    char text[1024];
    int rc;
    snprintf(text, sizeof text, "[global]\nsize=1m\nbs=64k\nioengine=sync\nverify=meta\nverify_pattern=0xaa555aa5\n"
             "verify_interval=512\n[write-phase]\nfilename=%s\nrw=write\nfill_device=1\ndo_verify=0\n"
             "[verify-phase]\nstonewall\ncreate_serialize=0\nfilename=%s\nrw=read\ndo_verify=1\n", g_file, g_file);
    struct nvb_fiomap *m = map_text(text, 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    ck_assert_uint_eq(nvb_fiomap_workloads(m), 2);
    for (size_t w = 0; w < 2; w++) {
        ck_assert_int_eq(nvb_fiomap_step(m, w), (int)w);
        ck_assert_str_eq(key(m, w, "verify"), "1");
        ck_assert_str_eq(key(m, w, "verify_pattern"), "0xaa555aa5");
        ck_assert_ptr_null(key(m, w, "verify_readback"));
    }
    ck_assert_str_eq(key(m, 0, "rw"), "write");
    ck_assert_str_eq(key(m, 1, "rw"), "read");
    char all[4096] = "";
    for (size_t w = 0; w < 2; w++)
        for (size_t k = 0; k < nvb_fiomap_count(m, w, NVB_FIOMAP_WARNINGS); k++)
            strncat(all, nvb_fiomap_item(m, w, NVB_FIOMAP_WARNINGS, k, NULL, NULL), sizeof all - strlen(all) - 1);
    ck_assert_msg(strstr(all, "verify_interval=512") && strstr(all, "fill_device with a size") &&
                  strstr(all, "create_serialize=0"), "%s", all);
    nvb_fiomap_free(m);
    /* a pattern alone, or fill_device without a size: refused naming the option */
    ck_assert_ptr_null(map_text("[j]\nioengine=null\nsize=1m\nrw=write\nverify_pattern=0xaa\n", 0, &rc));
    ck_assert_ptr_nonnull(strstr(why, "'verify_pattern'"));
    ck_assert_ptr_null(map_text("[j]\nioengine=null\nsize=1m\nverify=md5\nverify_pattern=12\n", 0, &rc));
    ck_assert_ptr_nonnull(strstr(why, "'verify_pattern'"));
    snprintf(text, sizeof text, "[j]\nfilename=%s\nrw=write\nfill_device=1\n", g_file);
    ck_assert_ptr_null(map_text(text, 0, &rc));
    ck_assert_ptr_nonnull(strstr(why, "'fill_device'"));
}
END_TEST

int main(void)
{
    g_file = tu_scratch("readback", (uint64_t)BS * NBLK);
    Suite *s = suite_create("readback");
    TCase *tc = tcase_create("readback");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, reads_back_only_the_blocks_written);
    tcase_add_test(tc, a_runtime_cut_write_checks_what_it_wrote);
    tcase_add_test(tc, readback_needs_verify_writes);
    tcase_add_test(tc, job_file_runtime_verify_reads_back_in_the_job);
    tcase_add_test(tc, numa_nodes_of_this_machine);
    tcase_add_test(tc, allow_file_create_off);
    tcase_add_test(tc, pattern_block_format);
    tcase_add_test(tc, pattern_written_and_read_back);
    tcase_add_test(tc, surface_scan_mapping);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    unlink(g_file);
    free(g_file);
    return failed ? 1 : 0;
}
