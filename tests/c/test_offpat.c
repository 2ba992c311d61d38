/*
 * Offset patterns of sequential I/O (core/offpat.h, keys seq_stride and
 * zone_*): the offsets a pattern gives, the same as fio's own I/O log of
 * the same job when fio is installed (fio 3.33's --write_iolog), the fio
 * job-file mapping of rw=...:N, rw_sequencer and zonemode=strided, the
 * refusals, and runs whose I/O counts are fio's. Also the block sequence of
 * random_distribution=sequence with random_sequence_stride (fio 3.42's
 * meaning from its source: fio 3.33 has neither).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/offpat.h"
#include "nvbench.h"
#include "testutil.h"

#define MAXIO 64

/* One sequential job over a file of len bytes: its fio options, the keys
 * of the same, and fio's offsets in 4k blocks (fio 3.33, --write_iolog),
 * -1 ending the list. */
static const struct pcase {
    const char *fio, *keys[8];
    uint64_t    len;
    int         want[MAXIO];
} cases[] = {
    {"rw=read:-8k", {"seq_stride", "-8k"}, 64 << 10, {0, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1}},
    {"rw=read:8k", {"seq_stride", "8k"}, 64 << 10, {0, 3, 6, 9, 12, 15, -1}},
    {"rw=read:4k", {"seq_stride", "4k"}, 64 << 10, {0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14, -1}},
    {"rw=read:-12k", {"seq_stride", "-12k"}, 64 << 10, {0, 13, 11, 9, 7, 5, 3, 1, 13, 11, 9, 7, 5, 3, 1, 13, -1}},
    {"rw=read\nzonemode=strided\nzonesize=16k\nzoneskip=16k", {"zone_size", "16k", "zone_skip", "16k"}, 128 << 10,
     {0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26,
      27, -1}},
    {"rw=read\nzonemode=strided\nzonesize=8k\nzonerange=16k", {"zone_size", "8k", "zone_range", "16k"}, 128 << 10,
     {0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29, 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28,
      29, -1}},
    {"rw=read\nzonemode=strided\nzonesize=32k\nzonerange=16k\nzoneskip=16k",
     {"zone_size", "32k", "zone_range", "16k", "zone_skip", "16k"}, 128 << 10,
     {0, 1, 2, 3, 0, 1, 2, 3, 8, 9, 10, 11, 8, 9, 10, 11, 16, 17, 18, 19, 16, 17, 18, 19, 24, 25, 26, 27, 24, 25, 26,
      27, -1}},
    {"rw=read\nzonemode=strided\nzonesize=12k\nzonerange=16k\nzoneskip=20k",
     {"zone_size", "12k", "zone_range", "16k", "zone_skip", "20k"}, 128 << 10,
     {0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 28, 29, 0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 28, 29, 0, 1, 2, 9, 10, 11, 18,
      19, -1}},
};

/* The offsets (in 4k blocks) of case c's job bounded to its region's
 * bytes, as the library's pattern gives them: how many in out. */
static int pattern_blocks(const struct pcase *c, int *out)
{
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "rw", "read"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "bs", "4k"), 0);
    for (const char *const *kv = c->keys; kv[0]; kv += 2)
        ck_assert_msg(nvb_workload_set(w, kv[0], kv[1]) == 0, "%s=%s: %s", kv[0], kv[1], nvb_workload_error(w));
    char err[256];
    ck_assert_msg(nvb__opat_check(w, err, sizeof err) == 0, "%s", err);
    struct nvb__opat p;
    nvb__opat_init(&p, w, c->len, 0);
    uint64_t n = nvb__opat_budget(&p, c->len / 4096);
    ck_assert_uint_le(n, MAXIO);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t off = nvb__opat_next(&p);
        ck_assert_uint_eq(off % 4096, 0);
        ck_assert_uint_lt(off, c->len);
        out[i] = (int)(off / 4096);
    }
    nvb_workload_free(w);
    return (int)n;
}

static int want_count(const struct pcase *c)
{
    int n = 0;
    while (c->want[n] >= 0)
        n++;
    return n;
}

START_TEST(offsets_of_each_pattern)
{
    const struct pcase *c = &cases[_i];
    int got[MAXIO], n = pattern_blocks(c, got), nw = want_count(c);
    ck_assert_msg(n == nw, "%s: %d I/Os, fio %d", c->fio, n, nw);
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i] == c->want[i], "%s: I/O %d at block %d, fio's at %d", c->fio, i, got[i], c->want[i]);
}
END_TEST

/* The same jobs through fio itself, when it is installed: its I/O log
 * gives the offsets and their number (so the table above is fio's). */
START_TEST(offsets_as_fio_logs_them)
{
    const struct pcase *c = &cases[_i];
    char *dir = tu_mkdtemp("offpat");
    char path[600], line[512];
    snprintf(path, sizeof path, "%s/j.fio", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "[j]\nioengine=psync\nbs=4k\nfilename=%s/f.dat\nsize=%llu\n%s\n", dir, (unsigned long long)c->len,
            c->fio);
    fclose(f);
    ck_assert_int_eq(tu_sh("truncate -s %llu '%s/f.dat' && cd '%s' && fio --write_iolog=log j.fio",
                           (unsigned long long)c->len, dir, dir), 0);
    snprintf(path, sizeof path, "%s/log", dir);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    int got[MAXIO], n = pattern_blocks(c, got), k = 0;
    unsigned long long off, len;
    while (fgets(line, sizeof line, f)) {
        char *r = strstr(line, " read ");
        if (!r || sscanf(r, " read %llu %llu", &off, &len) != 2)
            continue;
        ck_assert_msg(k < n, "%s: fio does more than %d I/Os", c->fio, n);
        ck_assert_msg(off / 4096 == (unsigned long long)got[k], "%s: I/O %d: fio at block %llu, nvbench at %d",
                      c->fio, k, off / 4096, got[k]);
        k++;
    }
    fclose(f);
    ck_assert_msg(k == n, "%s: fio did %d I/Os, nvbench %d", c->fio, k, n);
    tu_sh("rm -rf '%s'", dir);
    free(dir);
}
END_TEST

/* Keys against the rest of the workload: refused with the key and why. */
START_TEST(keys_refused_where_no_pattern_applies)
{
    static const char *const bad[][6] = {
        {"rw", "randread", "seq_stride", "8k", "random I/O"},
        {"rw", "read", "zone_skip", "8k", "without zone_size"},
        {"rw", "write", "seq_stride", "-6k", "verify=1", }, /* with verify only whole blocks */
        {"rw", "read", "zone_size", "6k", "multiples of bs"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct nvb_workload *w = NULL;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        ck_assert_int_eq(nvb_workload_set(w, bad[i][0], bad[i][1]), 0);
        ck_assert_int_eq(nvb_workload_set(w, bad[i][2], bad[i][3]), 0);
        if (i == 2)
            ck_assert_int_eq(nvb_workload_set(w, "verify", "1"), 0);
        char err[256] = "";
        ck_assert_int_eq(nvb__opat_check(w, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, bad[i][2]) && strstr(err, bad[i][4]), "%s", err);
        nvb_workload_free(w);
    }
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "seq_stride", "-8k"), 0);
    char buf[32];
    ck_assert_int_ge(nvb_workload_get(w, "seq_stride", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "-8192");
    ck_assert_int_eq(nvb_workload_set(w, "seq_stride", "-8192p"), -ERANGE);
    ck_assert_int_eq(nvb_workload_set(w, "seq_stride", "--8k"), -EINVAL);
    nvb_workload_free(w);
}
END_TEST

static char why[1024];

static const char *key_of(const struct nvb_fiomap *m, size_t wi, const char *name)
{
    for (size_t k = 0; k < nvb_fiomap_count(m, wi, NVB_FIOMAP_KEYS); k++) {
        const char *v, *o, *n = nvb_fiomap_item(m, wi, NVB_FIOMAP_KEYS, k, &v, &o);
        if (strcmp(n, name) == 0)
            return v;
    }
    return "(none)";
}

/* The map of the job file at path, or NULL with *rc and why. */
static struct nvb_fiomap *map_path(const char *path, unsigned flags, int *rc)
{
    struct nvb_fiojob *j = NULL;
    struct nvb_fiomap *m = NULL;
    *rc = nvb_fiojob_read(path, NULL, &j, why, sizeof why);
    if (*rc == 0)
        *rc = nvb_fiomap_new(j, path, flags, &m, why, sizeof why);
    nvb_fiojob_free(j);
    return m;
}

static struct nvb_fiomap *map_text(const char *dir, const char *text, unsigned flags, int *rc)
{
    char path[600];
    snprintf(path, sizeof path, "%s/t.fio", dir);
    FILE *f = fopen(path, "w");
    ck_assert(f && fputs(text, f) >= 0 && fclose(f) == 0);
    return map_path(path, flags, rc);
}

/* The project's job file maps to the keys; the refusals name the option. */
START_TEST(job_file_maps_to_the_keys)
{
    char path[600];
    snprintf(path, sizeof path, "%s/tests/data/fio_jobs/offset-patterns.fio", NVB_SOURCE_DIR);
    int rc;
    struct nvb_fiomap *m = map_path(path, 0, &rc);
    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_str_eq(key_of(m, 0, "seq_stride"), "-8192");
    ck_assert_str_eq(key_of(m, 1, "seq_stride"), "8192");
    ck_assert_str_eq(key_of(m, 2, "zone_size"), "16384");
    ck_assert_str_eq(key_of(m, 2, "zone_skip"), "16384");
    ck_assert_str_eq(key_of(m, 2, "seq_stride"), "(none)");
    ck_assert_str_eq(key_of(m, 3, "random_distribution"), "sequence:2,0,1");
    ck_assert_str_eq(key_of(m, 3, "random_sequence_stride"), "1");
    ck_assert_str_eq(key_of(m, 3, "random_map"), "0"); /* fio's map does not steer a sequence */
    nvb_fiomap_free(m);

    char *dir = tu_mkdtemp("offpatmap");
    static const char *const bad[][3] = {
        {"[j]\nioengine=null\nsize=1m\nrw=randread:8\n", "'rw'", "new random offset every 8"},
        {"[j]\nioengine=null\nsize=1m\nrw=randread\nzonemode=strided\nzonesize=64k\n", "'zonemode'", "random I/O"},
        {"[j]\nioengine=null\nsize=1m\nrw=read\nzonemode=strided\n", "'zonemode'", "needs zonesize"},
        {"[j]\nioengine=null\nsize=1m\nrw=read\nrw_sequencer=sideways\n", "'rw_sequencer'", "sequential and identical"},
        {"[j]\nioengine=null\nsize=1m\nrw=read:8q\n", "'rw'", "8q"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = map_text(dir, bad[i][0], 0, &rc);
        ck_assert_msg(rc == -EINVAL && !m, "%s: %d", bad[i][0], rc);
        ck_assert_msg(strstr(why, bad[i][1]) && strstr(why, bad[i][2]), "%s", why);
    }
    /* lenient: the random modifier left out with a warning, the rest kept */
    m = map_text(dir, bad[0][0], NVB_FIOMAP_LENIENT, &rc);
    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_uint_eq(nvb_fiomap_count(m, 0, NVB_FIOMAP_DROPPED), 1);
    ck_assert_str_eq(key_of(m, 0, "rw"), "randread");
    nvb_fiomap_free(m);
    tu_sh("rm -rf '%s'", dir);
    free(dir);
}
END_TEST

/* Runs on a file: a backwards job reads its region's bytes; a skipping
 * one stops where fio's pass ends (6 of 16 I/Os); zones keep the count. */
START_TEST(runs_count_as_fio)
{
    char *t = tu_scratch("offpat.dat", 128 << 10);
    static const struct { const char *k, *v, *size; double ios; } runs[] = {
        {"seq_stride", "-8k", "64k", 16}, {"seq_stride", "8k", "64k", 6}, {"zone_size", "16k", "128k", 32},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const char *kv[] = {"engine", "psync", "rw", "read", "bs", "4k", "size", runs[i].size, "io_limit",
                            runs[i].size, "runtime", "0", runs[i].k, runs[i].v, "zone_skip", i == 2 ? "16k" : "0",
                            NULL};
        const char *targets[] = {t, NULL};
        struct nvb_workload *w = tu_workload(kv, targets);
        struct nvb_result *r = tu_run_ok(w);
        ck_assert_double_eq(tu_get(r, "read.ios"), runs[i].ios);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    free(t);
}
END_TEST

/* sequence:2,0,1 over 12 blocks: repeated; with the stride each round
 * three blocks on, and round 0 again where a block would pass the end. */
START_TEST(sequence_blocks_and_stride)
{
    static const int plain[] = {2, 0, 1, 2, 0, 1, 2}, strided[] = {2, 0, 1, 5, 3, 4, 8, 6, 7, 11, 9, 10, 2, 0, 1};
    for (int stride = 0; stride < 2; stride++) {
        struct nvb_workload *w = NULL;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        ck_assert_int_eq(nvb_workload_set(w, "rw", "randread"), 0);
        ck_assert_int_eq(nvb_workload_set(w, "random_sequence_stride", stride ? "1" : "0"), 0);
        ck_assert_int_eq(nvb_workload_set(w, "random_distribution", "sequence:2,0,1"), 0); /* keeps the stride */
        char buf[64], err[256];
        ck_assert_int_ge(nvb_workload_get(w, "random_distribution", buf, sizeof buf), 0);
        ck_assert_str_eq(buf, "sequence:2,0,1");
        struct nvb__dgen g;
        ck_assert_int_eq(nvb__dgen_init(&g, &w->dist, 0, 12, 1, 0, 0, err, sizeof err), 0);
        uint64_t rng = 7;
        const int *want = stride ? strided : plain;
        int n = stride ? 15 : 7;
        for (int i = 0; i < n; i++)
            ck_assert_uint_eq(nvb__dist_next(&g, &rng), (uint64_t)want[i]);
        ck_assert_int_eq(nvb__dgen_init(&g, &w->dist, 0, 2, 1, 0, 0, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "block 2 is past the region's 2 blocks"), "%s", err);
        nvb_workload_free(w);
    }
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    static const char *const bad[] = {"sequence", "sequence:", "sequence:1,,2", "sequence:-1", "sequence:4294967296"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(nvb_workload_set(w, "random_distribution", bad[i]) < 0, "%s accepted", bad[i]);
    ck_assert_int_eq(nvb_workload_set(w, "random_sequence_stride", "1"), 0);
    char err[256];
    ck_assert_int_eq(nvb__dist_check(w, err, sizeof err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "random_sequence_stride=1"));
    nvb_workload_free(w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("offpat");
    TCase *tc = tcase_create("offpat");
    tcase_add_loop_test(tc, offsets_of_each_pattern, 0, (int)(sizeof cases / sizeof cases[0]));
    if (tu_sh("command -v fio") == 0) /* fio's own log of the same jobs */
        tcase_add_loop_test(tc, offsets_as_fio_logs_them, 0, (int)(sizeof cases / sizeof cases[0]));
    else
        fprintf(stderr, "note: fio is not installed: the offsets are not compared with fio's log\n");
    tcase_add_test(tc, keys_refused_where_no_pattern_applies);
    tcase_add_test(tc, job_file_maps_to_the_keys);
    tcase_add_test(tc, runs_count_as_fio);
    tcase_add_test(tc, sequence_blocks_and_stride);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
