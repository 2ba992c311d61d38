/* Emulated zones (zone_mode=zbd, core/zbd.c): on a file of zeros, what the
 * run wrote shows where each write went. Writes go at their zone's write
 * pointer (each zone's data is one run from its start), never past
 * zone_capacity; a full zone is reset (counted in zone_resets); at most
 * max_open_zones zones take writes; reads stay below the pointers (none in
 * a fresh run's empty zones, unless read_beyond_wp); a trim resets its
 * zone; what cannot be honoured is refused naming the key. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

#define ZONE (1u << 20)
#define BLK (256u << 10)
#define NZ 8u

/* A file of NZ zones of zeros (not sparse: no hole warnings). */
static char *zero_file(const char *name)
{
    char *p = NULL;
    ck_assert_int_ge(asprintf(&p, "%s/%s.%d", tu_tmpdir(), name, (int)getpid()), 0);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    ck_assert_int_ge(fd, 0);
    char *z = calloc(1, ZONE);
    for (unsigned i = 0; i < NZ; i++)
        ck_assert_int_eq(write(fd, z, ZONE), ZONE);
    free(z);
    close(fd);
    return p;
}

/* Per zone, how many whole blocks from its start hold data; -1 when a
 * block holding data follows one that does not (not written at a pointer). */
static void written_prefix(const char *path, int prefix[NZ])
{
    unsigned char *d = tu_read_head(path, (size_t)NZ * ZONE);
    for (unsigned z = 0; z < NZ; z++) {
        int n = 0, gap = 0;
        for (unsigned b = 0; b < ZONE / BLK; b++) {
            int full = !tu_all_zero(d + (size_t)z * ZONE + (size_t)b * BLK, BLK);
            if (full && gap)
                n = -1;
            else if (full && n >= 0)
                n++;
            gap |= !full;
        }
        prefix[z] = n;
    }
    free(d);
}

static struct nvb_result *run_zoned(const char *path, const char *const *extra)
{
    const char *kv[40] = {"engine", "psync", "bs", "256k", "direct", "0", "zone_mode", "zbd", "zone_size", "1m",
                          "runtime", "0", "fill", "random"};
    size_t n = 14;
    for (size_t i = 0; extra[i]; i++)
        kv[n++] = extra[i];
    kv[n] = NULL;
    const char *tg[] = {path, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    nvb_workload_free(w);
    return r;
}

static double resets(const struct nvb_result *r)
{
    double v = 0;
    return nvb_result_get(r, "zone_resets", &v) == 0 ? v : 0; /* absent when 0 */
}

START_TEST(random_writes_go_at_the_pointers)
{
    /* two passes of the random map: each zone filled from its start, then
     * found full and reset once (fio 3.33 on the same job: 64 writes, 8 resets) */
    char *p = zero_file("zbd-rw");
    const char *kv[] = {"rw", "randwrite", "random_map", "1", "io_limit", "16m", NULL};
    struct nvb_result *r = run_zoned(p, kv);
    ck_assert_uint_eq((uint64_t)tu_get(r, "write.ios"), 64);
    ck_assert_uint_eq((uint64_t)resets(r), NZ);
    int pre[NZ];
    written_prefix(p, pre);
    for (unsigned z = 0; z < NZ; z++)
        ck_assert_int_eq(pre[z], ZONE / BLK);
    nvb_result_free(r);
    unlink(p);
    free(p);
    /* half a pass: 16 blocks, each zone's a run from its start (without
     * zones the random map would leave gaps) */
    p = zero_file("zbd-half");
    const char *kv2[] = {"rw", "randwrite", "random_map", "1", "io_limit", "4m", "seed", "3", NULL};
    r = run_zoned(p, kv2);
    ck_assert_double_eq(resets(r), 0);
    written_prefix(p, pre);
    int blocks = 0;
    for (unsigned z = 0; z < NZ; z++) {
        ck_assert_int_ge(pre[z], 0);
        blocks += pre[z];
    }
    ck_assert_int_eq(blocks, 16);
    nvb_result_free(r);
    unlink(p);
    free(p);
}
END_TEST

START_TEST(capacity_is_never_passed)
{
    /* 512 KiB of each 1 MiB zone writable: a pass of 32 writes fills each
     * zone's two blocks, resets it when full, fills them again */
    char *p = zero_file("zbd-cap");
    const char *kv[] = {"rw", "randwrite", "random_map", "1", "io_limit", "8m", "zone_capacity", "512k", NULL};
    struct nvb_result *r = run_zoned(p, kv);
    ck_assert_uint_eq((uint64_t)tu_get(r, "write.ios"), 32);
    ck_assert_uint_eq((uint64_t)resets(r), NZ);
    int pre[NZ];
    written_prefix(p, pre);
    for (unsigned z = 0; z < NZ; z++)
        ck_assert_int_eq(pre[z], 2);
    nvb_result_free(r);
    /* sequential writes skip what lies past the capacity to the next zone,
     * and io_limit counts the skipped bytes as done (fio 3.33: 16 writes) */
    unlink(p);
    free(p);
    p = zero_file("zbd-seq");
    const char *kv2[] = {"rw", "write", "io_limit", "8m", "zone_capacity", "512k", NULL};
    r = run_zoned(p, kv2);
    ck_assert_uint_eq((uint64_t)tu_get(r, "write.ios"), 16);
    ck_assert_double_eq(resets(r), 0);
    written_prefix(p, pre);
    for (unsigned z = 0; z < NZ; z++)
        ck_assert_int_eq(pre[z], 2);
    nvb_result_free(r);
    unlink(p);
    free(p);
}
END_TEST

START_TEST(max_open_zones_bounds_the_zones_written)
{
    char *p = zero_file("zbd-open");
    const char *kv[] = {"rw", "randwrite", "ios", "6", "max_open_zones", "2", "seed", "7", NULL};
    struct nvb_result *r = run_zoned(p, kv);
    ck_assert_uint_eq((uint64_t)tu_get(r, "write.ios"), 6);
    int pre[NZ], zones = 0, blocks = 0;
    written_prefix(p, pre);
    for (unsigned z = 0; z < NZ; z++) {
        ck_assert_int_ge(pre[z], 0);
        zones += pre[z] > 0;
        blocks += pre[z];
    }
    /* 6 writes into at most 2 zones of 4 blocks: one may have filled and
     * closed (a third then opened) only after its 4 writes */
    ck_assert_int_le(zones, 3);
    ck_assert_int_ge(zones, 1);
    ck_assert_int_le(blocks, 6);
    nvb_result_free(r);
    unlink(p);
    free(p);
}
END_TEST

START_TEST(reads_stay_below_the_pointers)
{
    /* a run's zones start empty: nothing to read, the job's I/O ends (as fio's) */
    char *p = zero_file("zbd-rd");
    static const char *const rws[] = {"read", "randread"};
    for (int k = 0; k < 2; k++) {
        const char *kv[] = {"rw", rws[k], "ios", "10", NULL};
        struct nvb_result *r = run_zoned(p, kv);
        ck_assert_uint_eq((uint64_t)tu_get(r, "read.ios"), 0);
        nvb_result_free(r);
        const char *kv2[] = {"rw", rws[k], "ios", "10", "read_beyond_wp", "1", NULL};
        r = run_zoned(p, kv2);
        ck_assert_uint_eq((uint64_t)tu_get(r, "read.ios"), 10);
        nvb_result_free(r);
    }
    /* mixed: reads come once writes have put data below a pointer */
    const char *kv[] = {"rw", "randrw", "ios", "200", "rwmix", "50", NULL};
    struct nvb_result *r = run_zoned(p, kv);
    ck_assert_uint_gt((uint64_t)tu_get(r, "read.ios"), 0);
    ck_assert_uint_eq((uint64_t)tu_get(r, "errors.count"), 0);
    nvb_result_free(r);
    unlink(p);
    free(p);
}
END_TEST

START_TEST(trims_reset_zones)
{
    char *p = zero_file("zbd-trim");
    /* sequential trims of whole zones: sent, the empty zones' resets not counted */
    const char *kv[] = {"rw", "trim", "bs", "1m", "ios", "4", NULL};
    struct nvb_result *r = run_zoned(p, kv);
    ck_assert_uint_eq((uint64_t)tu_get(r, "trim.ios"), 4);
    ck_assert_double_eq(resets(r), 0);
    nvb_result_free(r);
    /* random trims want a zone with data: none in a fresh run */
    const char *kv2[] = {"rw", "randtrim", "bs", "1m", "ios", "4", NULL};
    r = run_zoned(p, kv2);
    ck_assert_uint_eq((uint64_t)tu_get(r, "trim.ios"), 0);
    nvb_result_free(r);
    unlink(p);
    free(p);
}
END_TEST

START_TEST(without_zones_no_figure)
{
    const char *kv[] = {"engine", "null", "rw", "randwrite", "ios", "100", "runtime", "0", NULL};
    struct nvb_workload *w = tu_workload(kv, NULL);
    struct nvb_result *r = tu_run_ok(w);
    double v;
    ck_assert_int_ne(nvb_result_get(r, "zone_resets", &v), 0);
    char *json = NULL;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_ptr_null(strstr(json, "\"zone_resets\""));
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

START_TEST(region_rounded_down_to_whole_zones)
{
    /* 2.5 zones: 2 used (fio rounds a zoned size down too), a warning says so;
     * 20 sequential writes of 4 blocks a zone wrap twice: 3 resets */
    const char *kv[] = {"engine", "null", "rw", "write", "bs", "256k", "zone_mode", "zbd", "zone_size", "1m",
                        "size", "2560k", "ios", "20", "runtime", "0", NULL};
    struct nvb_workload *w = tu_workload(kv, NULL);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq((uint64_t)tu_get(r, "per_target.0.region_size"), 2u << 20);
    ck_assert_uint_eq((uint64_t)tu_get(r, "zone_resets"), 3);
    char *json = NULL;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_ptr_nonnull(strstr(json, "rounded down from 2621440 to 2097152 bytes"));
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

START_TEST(what_cannot_be_honoured_is_refused)
{
    char *p = zero_file("zbd-bad");
    static const struct { const char *kv[12]; const char *why; int rc; } cases[] = {
        {{"zone_mode", "zbd", NULL}, "zone_mode=zbd needs zone_size", -EINVAL},
        {{"zone_size", "1m", "zone_capacity", "512k", "rw", "write", NULL}, "need zone_mode=zbd", -EINVAL},
        {{"zone_size", "1m", NULL}, "random I/O draws its own offsets", -EINVAL}, /* strided zones: sequential only */
        {{"zone_mode", "zbd", "zone_size", "1m", "zone_skip", "1m", NULL}, "with zone_mode=zbd", -EINVAL},
        {{"zone_mode", "zbd", "zone_size", "1m", "zone_capacity", "2m", NULL}, "is larger than zone_size", -EINVAL},
        {{"zone_mode", "zbd", "zone_size", "1m", "bs", "2m", NULL}, "bs '2097152' is larger than a zone", -EINVAL},
        {{"zone_mode", "zbd", "zone_size", "1m", "offset", "64k", NULL}, "not a multiple of zone_size", -EINVAL},
        {{"zone_mode", "zbd", "zone_size", "1m", "rw", "randtrim", NULL}, "must be zone_size", -EINVAL},
        {{"zone_mode", "zbd", "zone_size", "1m", "rw", "randwrite", "verify", "1", NULL}, "with verify=1", -EINVAL},
        {{"zone_mode", "zbd", "zone_size", "1m", "bssplit", "4k/50:8k/50", NULL}, "with bssplit", -EINVAL},
        {{"zone_mode", "zbd", "zone_size", "1m", "zone_reset_frequency", "0.5", NULL}, "needs zone_reset_threshold",
         -EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *tg[] = {p, NULL};
        struct nvb_workload *w = tu_workload(cases[i].kv, tg);
        ck_assert_int_eq(nvb_workload_set(w, "direct", "0"), 0);
        int rc = nvb_workload_validate(w);
        ck_assert_int_eq(rc, cases[i].rc);
        ck_assert_msg(strstr(nvb_workload_error(w), cases[i].why), "case %zu: %s", i, nvb_workload_error(w));
        nvb_workload_free(w);
    }
    unlink(p);
    free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("zbd");
    TCase *tc = tcase_create("zbd");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_writes_go_at_the_pointers);
    tcase_add_test(tc, capacity_is_never_passed);
    tcase_add_test(tc, max_open_zones_bounds_the_zones_written);
    tcase_add_test(tc, reads_stay_below_the_pointers);
    tcase_add_test(tc, trims_reset_zones);
    tcase_add_test(tc, without_zones_no_figure);
    tcase_add_test(tc, region_rounded_down_to_whole_zones);
    tcase_add_test(tc, what_cannot_be_honoured_is_refused);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
