/*
 * Random offsets of block-size mixes placed by a distribution or by the
 * random map (core/bsmix.h, nvb__bsmix_place_off): with random_map=1 every
 * unit of the smallest size is done once per pass whatever the sizes drawn
 * (fio's map with a bssplit; fio 3.33's own I/O log of such a job is
 * checked for the same property when fio is installed), blockalign's
 * checks, and runs of fio's jesd219 and iometer shapes.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bsmix.h"
#include "core/dist.h"
#include "nvbench.h"
#include "testutil.h"

#define UNIT 512u
#define LEN (1u << 20)

/* Two passes of a 512/4k/64k mix over 1 MiB through the map: after each,
 * every unit done exactly once more, and the bytes of a pass are the
 * region's. */
START_TEST(map_does_every_unit_once_per_pass)
{
    struct nvb__bsmix m;
    memset(&m, 0, sizeof m);
    static const uint32_t sizes[] = {512, 4096, 65536};
    uint64_t slots[2 * NVB__BSSPLIT_MAX] = {0}, len = LEN;
    for (unsigned k = 0; k < 3; k++) {
        m.size[0][k] = sizes[k];
        slots[k] = (LEN - sizes[k]) / UNIT + 1;
    }
    m.slots = slots;
    m.len = &len;
    m.align[0] = m.unit = UNIT;
    m.placed = 1;
    struct nvb__bsmap map = {.n = LEN / UNIT, .left = LEN / UNIT};
    map.l0 = calloc(LEN / UNIT / 64, sizeof *map.l0);
    map.l1 = calloc(1, sizeof *map.l1);
    m.maps = &map;
    unsigned *done = calloc(LEN / UNIT, sizeof *done);
    uint64_t rng = 42, cut = 0;
    for (unsigned pass = 1; pass <= 2; pass++) {
        uint64_t bytes = 0;
        while (bytes < LEN) {
            unsigned k = (unsigned)(nvb__splitmix64(&rng) % 3), k0 = k;
            uint64_t off = nvb__bsmix_place_off(&m, NULL, 0, 0, &k, nvb__splitmix64(&rng), &rng);
            ck_assert_uint_le(k, k0);
            cut += k < k0;
            ck_assert_uint_eq(off % UNIT, 0);
            ck_assert_uint_le(off + sizes[k], LEN);
            for (uint64_t u = off / UNIT; u < (off + sizes[k]) / UNIT; u++) {
                done[u]++;
                ck_assert_msg(done[u] == pass, "unit %llu done %u times in pass %u", (unsigned long long)u, done[u],
                              pass);
            }
            bytes += sizes[k];
        }
        ck_assert_uint_eq(bytes, LEN);
        for (unsigned u = 0; u < LEN / UNIT; u++)
            ck_assert_uint_eq(done[u], pass);
    }
    ck_assert_uint_gt(cut, 0); /* sizes were cut at done units: the check above could fail */
    free(done);
    free(map.l0);
    free(map.l1);
}
END_TEST

/* A direction whose only size is larger than the map's unit (the other
 * direction's smallest: fio's cmdprio-bssplit example, reads 64k/1m, writes
 * 1m): every I/O inside the region, and the map's passes still end (left
 * counts each unit once when an I/O at the end covers done ones). */
START_TEST(map_keeps_large_sizes_inside)
{
    struct nvb__bsmix m;
    memset(&m, 0, sizeof m);
    uint64_t slots[2 * NVB__BSSPLIT_MAX] = {0}, len = LEN;
    m.size[1][0] = 65536;
    slots[NVB__BSSPLIT_MAX] = (LEN - 65536) / UNIT + 1;
    m.slots = slots;
    m.len = &len;
    m.align[1] = m.unit = UNIT;
    m.placed = 1;
    struct nvb__bsmap map = {.n = LEN / UNIT, .left = LEN / UNIT};
    map.l0 = calloc(LEN / UNIT / 64, sizeof *map.l0);
    map.l1 = calloc(1, sizeof *map.l1);
    m.maps = &map;
    uint64_t rng = 7, at_end = 0;
    for (unsigned i = 0; i < 20000; i++) {
        unsigned k = 0;
        uint64_t off = nvb__bsmix_place_off(&m, NULL, 0, 1, &k, nvb__splitmix64(&rng), &rng);
        ck_assert_uint_eq(k, 0);
        ck_assert_msg(off + 65536 <= LEN, "I/O %u at %llu runs past the region's end", i, (unsigned long long)off);
        at_end += off + 65536 == LEN;
        ck_assert_uint_le(map.left, LEN / UNIT);
    }
    ck_assert_uint_gt(at_end, 0); /* I/Os were moved to the end: the check above could fail */
    free(map.l0);
    free(map.l1);
}
END_TEST

/* fio's own map with the same kind of split: its I/O log of a 1 MiB
 * randread job touches every 512-byte unit exactly once. */
START_TEST(fio_map_does_every_unit_once)
{
    char *dir = tu_mkdtemp("bsplace");
    char path[600], line[512];
    snprintf(path, sizeof path, "%s/j.fio", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "[j]\nioengine=psync\nrw=randread\nbssplit=512/10:4k/60:64k/30\nfilename=%s/f.dat\nsize=1m\n", dir);
    fclose(f);
    ck_assert_int_eq(tu_sh("truncate -s 1m '%s/f.dat' && cd '%s' && fio --write_iolog=log j.fio", dir, dir), 0);
    snprintf(path, sizeof path, "%s/log", dir);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    unsigned *done = calloc(LEN / UNIT, sizeof *done);
    unsigned long long off, len, bytes = 0;
    while (fgets(line, sizeof line, f)) {
        char *r = strstr(line, " read ");
        if (!r || sscanf(r, " read %llu %llu", &off, &len) != 2)
            continue;
        for (unsigned long long u = off / UNIT; u < (off + len) / UNIT; u++)
            done[u]++;
        bytes += len;
    }
    fclose(f);
    ck_assert_uint_eq(bytes, LEN);
    for (unsigned u = 0; u < LEN / UNIT; u++)
        ck_assert_msg(done[u] == 1, "fio did unit %u %u times", u, done[u]);
    free(done);
    tu_sh("rm -rf '%s'", dir);
    free(dir);
}
END_TEST

/* blockalign: only with a split (or equal to bs), a multiple of the
 * map's unit with random_map; runs of jesd219's and iometer's shapes. */
START_TEST(blockalign_and_runs)
{
    char *t = tu_scratch("bsplace.dat", 4 << 20);
    const char *targets[] = {t, NULL};
    struct nvb_result *r = NULL;
    const char *bad[][2] = {{"bs", "8k"}, {"random_map", "1"}};
    for (int i = 0; i < 2; i++) {
        const char *kv[] = {"engine", "psync", "rw", "randread", "blockalign", "4k", bad[i][0], bad[i][1],
                            "bssplit", i ? "512/50:4k/50" : "8k/100", "ios", "10", NULL};
        if (!i)
            kv[8] = NULL; /* no split */
        struct nvb_workload *w = tu_workload(kv, targets);
        ck_assert_int_eq(nvb_run(w, NULL, &r), -EINVAL);
        ck_assert_ptr_nonnull(strstr(nvb_result_error(r), "blockalign=4096"));
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    /* jesd219's shape: a split with blockalign and a zoned distribution */
    const char *jesd[] = {"engine", "psync", "rw", "randrw", "rwmix", "40", "bssplit",
                          "512/4:1024/1:1536/1:2048/1:2560/1:3072/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3",
                          "blockalign", "4k", "random_distribution", "zoned:50/5:30/15:20/80", "io_limit", "4m",
                          "runtime", "0", NULL};
    struct nvb_workload *w = tu_workload(jesd, targets);
    r = tu_run_ok(w);
    ck_assert_double_eq(tu_get(r, "read.bytes") + tu_get(r, "write.bytes"), 4 << 20);
    nvb_result_free(r);
    nvb_workload_free(w);
    /* iometer's shape: the map, a pass of the region's bytes */
    const char *iom[] = {"engine", "psync", "rw", "randrw", "rwmix", "80", "bssplit",
                         "512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10", "random_map", "1", "io_limit", "4m",
                         "runtime", "0", "jobs", "2", NULL};
    w = tu_workload(iom, targets);
    r = tu_run_ok(w);
    ck_assert_double_eq(tu_get(r, "read.bytes") + tu_get(r, "write.bytes"), 4 << 20);
    nvb_result_free(r);
    nvb_workload_free(w);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bsplace");
    TCase *tc = tcase_create("bsplace");
    tcase_add_test(tc, map_does_every_unit_once_per_pass);
    tcase_add_test(tc, map_keeps_large_sizes_inside);
    if (tu_sh("command -v fio") == 0)
        tcase_add_test(tc, fio_map_does_every_unit_once);
    else
        fprintf(stderr, "note: fio is not installed: its map is not checked\n");
    tcase_add_test(tc, blockalign_and_runs);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
