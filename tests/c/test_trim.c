/* Trims (rw=trim, randtrim): counted exactly on the null engine; on a
 * scratch file through psync and io_uring the trimmed ranges read back as
 * zeros and become holes while the rest stays as it was; the "trim"
 * direction survives the JSON, reloading and merging; the engines that
 * cannot trim and the combinations that make no sense are refused naming
 * key and value; the hold treats a trim as a write. With root, a loop
 * device of the test's own: the guard asks allow_destructive=1 of a trim
 * as of a write, and the block-device discard paths run. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

#define FSIZE (4u << 20)
#define BS (64u << 10)

static int engine_ok(const char *e)
{
    char why[256];
    return nvb_engine_probe(e, why, sizeof why) == 0;
}

static struct nvb_result *run_rc(const char *const *kv, const char *const *tg, int *rc)
{
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = NULL;
    *rc = nvb_run(w, NULL, &r);
    nvb_workload_free(w);
    return r;
}

/* Run to completion (the test fails otherwise); the workload is freed. */
static struct nvb_result *run_ok(const char *const *kv, const char *const *tg)
{
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    nvb_workload_free(w);
    return r;
}

static int has_path(const struct nvb_result *r, const char *path)
{
    double v;
    return nvb_result_get(r, path, &v) == 0;
}

START_TEST(null_counts_trims_exactly)
{
    static const char *const rws[] = {"trim", "randtrim"};
    for (int k = 0; k < 2; k++) {
        /* 1001 over 3 jobs: every trim counted once, in the trim direction */
        const char *kv[] = {"engine", "null", "rw", rws[k], "bs", "8k", "qd", "8", "jobs", "3", "ios", "1001",
                            NULL};
        struct nvb_result *r = run_ok(kv, NULL);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_TRIM), 1001);
        ck_assert_uint_eq(nvb_result_bytes(r, NVB_TRIM), 1001ull * 8192);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 0);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 0);
        ck_assert(nvb_result_iops(r, NVB_TRIM) > 0);
        ck_assert(nvb_result_lat_pct(r, NVB_TRIM, 50) <= nvb_result_lat_pct(r, NVB_TRIM, 99));
        ck_assert(tu_get(r, "total.ios") == 1001);
        ck_assert(tu_get(r, "trim.lat_ns.max") >= nvb_result_lat_pct(r, NVB_TRIM, 99));
        ck_assert(tu_get(r, "per_target.0.trim.ios") == 1001);
        ck_assert(tu_get(r, "errors.trim") == 0);
        /* the JSON read back and merged with itself keeps the direction */
        char *js = NULL, *js2 = NULL;
        ck_assert_int_eq(nvb_result_json(r, &js), 0);
        ck_assert_ptr_nonnull(strstr(js, "\"trim\":{"));
        struct nvb_result *back = NULL, *m = NULL;
        ck_assert_int_eq(nvb_result_from_json(js, &back), 0);
        ck_assert_uint_eq(nvb_result_ios(back, NVB_TRIM), 1001);
        ck_assert_int_eq(nvb_result_json(back, &js2), 0);
        ck_assert_str_eq(js, js2);
        const struct nvb_result *parts[] = {r, back};
        ck_assert_int_eq(nvb_result_merge(&m, parts, 2), 0);
        ck_assert_uint_eq(nvb_result_ios(m, NVB_TRIM), 2002);
        ck_assert(tu_get(m, "trim.lat_ns.p99") == nvb_result_lat_pct(r, NVB_TRIM, 99));
        ck_assert(tu_get(m, "hosts.0.trim.ios") == 1001);
        nvb_free(js);
        nvb_free(js2);
        nvb_result_free(back);
        nvb_result_free(m);
        nvb_result_free(r);
    }
    /* a workload that does not trim has no trim direction in its result */
    const char *kv[] = {"engine", "null", "rw", "randrw", "ios", "100", NULL};
    struct nvb_result *r = run_ok(kv, NULL);
    ck_assert(!has_path(r, "trim.ios"));
    ck_assert(!has_path(r, "errors.trim"));
    ck_assert_uint_eq(nvb_result_ios(r, NVB_TRIM), 0);
    nvb_result_free(r);
}
END_TEST

/* The range [off, off + len) of path is a hole (SEEK_HOLE finds it at off). */
static int is_hole(const char *path, off_t off, off_t len)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    off_t h = lseek(fd, off, SEEK_HOLE), d = lseek(fd, off, SEEK_DATA);
    close(fd);
    /* the hole starts at off, and the next data (if any) lies past the range */
    return h == off && (d < 0 || d >= off + len);
}

START_TEST(trims_punch_holes)
{
    static const char *const engines[] = {"psync", "io_uring"};
    for (int e = 0; e < 2; e++) {
        if (!engine_ok(engines[e])) {
            fprintf(stderr, "note: engine %s unavailable: case skipped\n", engines[e]);
            continue;
        }
        for (int direct = 0; direct < 2; direct++) {
            char *f = tu_scratch("trim", FSIZE);
            unsigned char *before = tu_read_head(f, FSIZE);
            /* trim the middle MiB in sequence, whole: 16 blocks of 64 KiB */
            const char *kv[] = {"engine", engines[e], "rw", "trim", "bs", "64k", "qd", "4", "offset", "1M",
                                "size", "1M", "io_limit", "1M", "direct", direct ? "1" : "0", NULL};
            const char *tg[] = {f, NULL};
            struct nvb_result *r = run_ok(kv, tg);
            ck_assert_uint_eq(nvb_result_ios(r, NVB_TRIM), 16);
            ck_assert_uint_eq(nvb_result_bytes(r, NVB_TRIM), 1u << 20);
            ck_assert_uint_eq(nvb_result_errors(r), 0);
            nvb_result_free(r);
            struct stat st;
            ck_assert_int_eq(stat(f, &st), 0);
            ck_assert_uint_eq((uint64_t)st.st_size, FSIZE); /* KEEP_SIZE */
            unsigned char *after = tu_read_head(f, FSIZE);
            ck_assert_msg(tu_all_zero(after + (1u << 20), 1u << 20), "%s: the trimmed MiB reads back non-zero",
                          engines[e]);
            ck_assert_msg(!memcmp(after, before, 1u << 20) &&
                              !memcmp(after + (2u << 20), before + (2u << 20), FSIZE - (2u << 20)),
                          "%s: data outside the region changed", engines[e]);
            ck_assert_msg(is_hole(f, 1 << 20, 1 << 20), "%s: the trimmed MiB is not a hole", engines[e]);
            free(after);

            /* randtrim: every block of the region is a hole of zeros or as it was */
            const char *kr[] = {"engine", engines[e], "rw", "randtrim", "bs", "64k", "qd", "8", "ios", "40",
                                "direct", direct ? "1" : "0", NULL};
            r = run_ok(kr, tg);
            ck_assert_uint_eq(nvb_result_ios(r, NVB_TRIM), 40);
            nvb_result_free(r);
            after = tu_read_head(f, FSIZE);
            unsigned holes = 0;
            for (size_t b = 0; b < FSIZE / BS; b++) {
                const size_t o = b * BS;
                if (is_hole(f, (off_t)o, BS)) {
                    holes++;
                    ck_assert_msg(tu_all_zero(after + o, BS), "%s: hole at %zu reads non-zero", engines[e], o);
                } else {
                    ck_assert_msg(!memcmp(after + o, before + o, BS), "%s: block at %zu changed but is no hole",
                                  engines[e], o);
                }
            }
            ck_assert_uint_ge(holes, 16); /* the middle MiB at least */
            free(after);
            free(before);
            unlink(f);
            free(f);
        }
    }
}
END_TEST

START_TEST(refusals_name_key_and_value)
{
    char *f = tu_scratch("trim-refuse", 1 << 20);
    const char *tg[] = {f, NULL};
    /* an engine that cannot trim: named with the rw */
    if (engine_ok("libaio")) {
        const char *kv[] = {"engine", "libaio", "rw", "randtrim", "ios", "8", NULL};
        int rc;
        struct nvb_result *r = run_rc(kv, tg, &rc);
        ck_assert_int_eq(rc, -ENOTSUP);
        ck_assert_msg(strstr(nvb_result_error(r), "libaio") && strstr(nvb_result_error(r), "rw=randtrim"), "%s",
                      nvb_result_error(r));
        nvb_result_free(r);
    }
    /* verify has nothing to check after a trim */
    {
        const char *kv[] = {"engine", "psync", "rw", "trim", "verify", "1", "ios", "8", NULL};
        struct nvb_workload *w = tu_workload(kv, tg);
        ck_assert_int_eq(nvb_workload_validate(w), -EINVAL);
        ck_assert_msg(strstr(nvb_workload_error(w), "verify=1") && strstr(nvb_workload_error(w), "rw=trim"), "%s",
                      nvb_workload_error(w));
        nvb_workload_free(w);
    }
    /* a misspelt rw names the key and the value */
    {
        struct nvb_workload *w;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        ck_assert_int_eq(nvb_workload_set(w, "rw", "trimm"), -EINVAL);
        ck_assert_msg(strstr(nvb_workload_error(w), "rw") && strstr(nvb_workload_error(w), "trimm"), "%s",
                      nvb_workload_error(w));
        nvb_workload_free(w);
    }
    unlink(f);
    free(f);
}
END_TEST

/* rwmixtrim: that share of a mix's I/Os are trims, rwmix splits the rest;
 * each count within 5 standard deviations of its binomial expectation. */
static void assert_share(uint64_t got, uint64_t n, double p, const char *what)
{
    const double mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));
    ck_assert_msg(fabs((double)got - mean) <= 5 * sd + 1, "%s: %" PRIu64 " of %" PRIu64 ", expected %.0f +- %.0f",
                  what, got, n, mean, 5 * sd);
}

START_TEST(mix_share_of_trims)
{
    const char *kv[] = {"engine", "null", "rw", "randrw", "rwmix", "70", "rwmixtrim", "10", "ios", "200000", NULL};
    struct nvb_result *r = run_ok(kv, NULL);
    const uint64_t n = 200000;
    ck_assert_uint_eq(nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE) + nvb_result_ios(r, NVB_TRIM), n);
    assert_share(nvb_result_ios(r, NVB_TRIM), n, 0.10, "trims");
    assert_share(nvb_result_ios(r, NVB_READ), n, 0.63, "reads");
    assert_share(nvb_result_ios(r, NVB_WRITE), n, 0.27, "writes");
    nvb_result_free(r);
    /* on a file through psync: the trims punch holes, the reads and writes go on around them */
    char *f = tu_scratch("trim-mix", 1 << 20);
    const char *tg[] = {f, NULL};
    const char *kf[] = {"engine", "psync", "rw", "randrw", "rwmixtrim", "50", "bs", "4k", "ios", "400", NULL};
    r = run_ok(kf, tg);
    ck_assert_uint_gt(nvb_result_ios(r, NVB_TRIM), 0);
    ck_assert_uint_gt(nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE), 0);
    ck_assert_uint_eq(tu_get(r, "errors.count"), 0);
    int fd = open(f, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_lt(lseek(fd, 0, SEEK_HOLE), 1 << 20); /* a hole before the end */
    close(fd);
    nvb_result_free(r);
    /* refused: not a mix, an engine that cannot trim, verify */
    struct {
        const char *rw, *engine, *extra, *needle;
    } bad[] = {
        {"randread", "null", NULL, "rwmixtrim '10' needs a mixed rw"},
        {"randrw", "libaio", NULL, "cannot trim (rw=randrw, rwmixtrim)"},
        {"randrw", "psync", "verify", "with rwmixtrim"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!engine_ok(bad[i].engine))
            continue;
        const char *kb[] = {"engine", bad[i].engine, "rw", bad[i].rw, "rwmixtrim", "10", "ios", "8",
                            bad[i].extra, bad[i].extra ? "1" : NULL, NULL};
        struct nvb_workload *w = tu_workload(kb, tg);
        ck_assert_int_lt(nvb_workload_validate(w), 0);
        ck_assert_msg(strstr(nvb_workload_error(w), bad[i].needle), "%s", nvb_workload_error(w));
        nvb_workload_free(w);
    }
    unlink(f);
    free(f);
}
END_TEST

/* ---- the hold: a trim holds its target as a write does ---- */

/* What the second runs, beside the first: a trim, a write, a read. */
static const char *const second_rw[3] = {"randtrim", "randwrite", "randread"};

struct second {
    const char *target;
    int done, rc[3];
    char msg[3][1024];
};

static int one_run(const char *const *kv, const char *target, char *msg, size_t len)
{
    const char *tg[] = {target, NULL};
    int rc;
    struct nvb_result *r = run_rc(kv, tg, &rc);
    snprintf(msg, len, "%s", r ? nvb_result_error(r) : "");
    nvb_result_free(r);
    return rc;
}

/* The poll callback of the first run: the second runs, once; then it ends the first. */
static int second_runs(void *arg)
{
    struct second *s = arg;
    for (int i = 0; i < 3 && !s->done; i++) {
        const char *kv[] = {"engine", "psync", "rw", second_rw[i], "ios", "4", NULL};
        s->rc[i] = one_run(kv, s->target, s->msg[i], sizeof s->msg[i]);
    }
    s->done = 1;
    return 1;
}

START_TEST(hold_treats_trim_as_write)
{
    static const char *const first_rw[] = {"randtrim", "randwrite"};
    for (int k = 0; k < 2; k++) {
        char *f = tu_scratch("trim-hold", 8 << 20);
        struct second s = {.target = f};
        struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
        o.poll = second_runs;
        o.poll_arg = &s;
        o.poll_ms = 1;
        const char *kv[] = {"engine", "psync", "rw", first_rw[k], "runtime", "60s", NULL};
        const char *tg[] = {f, NULL};
        struct nvb_workload *w = tu_workload(kv, tg);
        struct nvb_result *r = NULL;
        int rc = nvb_run(w, &o, &r);
        ck_assert_msg(s.done, "the first run never polled");
        ck_assert_msg(rc == -ECANCELED, "first run (%s): rc %d: %s", first_rw[k], rc, nvb_result_error(r));
        /* while a trim or a write holds it, neither may start; a read may */
        for (int i = 0; i < 3; i++) {
            const int want = i < 2 ? -EBUSY : 0;
            ck_assert_msg(s.rc[i] == want, "a %s beside a %s: rc %d: %s", second_rw[i], first_rw[k], s.rc[i],
                          s.msg[i]);
            ck_assert_msg(!want || strstr(s.msg[i], "in use by another run"), "%s", s.msg[i]);
        }
        nvb_result_free(r);
        nvb_workload_free(w);
        unlink(f);
        free(f);
    }
}
END_TEST

/* ---- a loop device of the test's own (root): the guard and BLKDISCARD ---- */

static char g_loop[64];

static void loop_detach(void)
{
    if (g_loop[0])
        tu_sh("losetup -d '%s'", g_loop); /* this device only, by name */
    g_loop[0] = 0;
}

START_TEST(device_guard_and_discard)
{
    if (!tu_is_root() || tu_sh("command -v losetup") != 0) {
        fprintf(stderr, "note: needs root and losetup: case skipped\n");
        return;
    }
    char *img = tu_scratch("trim-loop.img", 16 << 20);
    if (tu_losetup(img, g_loop, sizeof g_loop) != 0) {
        fprintf(stderr, "note: losetup -f failed: case skipped\n");
        unlink(img);
        free(img);
        return;
    }
    const char *tg[] = {g_loop, NULL};
    /* the image backs the loop device: a trim of the file is refused as a write is,
     * allow_destructive or not */
    for (int k = 0; k < 2; k++) {
        const char *kf[] = {"engine", "psync", "rw", k ? "randwrite" : "randtrim", "ios", "8", "allow_destructive",
                            "1", NULL};
        char fm[1024];
        int frc = one_run(kf, img, fm, sizeof fm);
        ck_assert_msg(frc == -EBUSY && strstr(fm, "in use"), "%s of the backing file: rc %d: %s", kf[3], frc, fm);
    }
    /* without allow_destructive a trim of the device is refused as a write is, naming the rw */
    const char *kv[] = {"engine", "psync", "rw", "randtrim", "ios", "8", NULL};
    char msg[1024];
    int rc = one_run(kv, g_loop, msg, sizeof msg);
    ck_assert_msg(rc == -EPERM, "rc %d: %s", rc, msg);
    ck_assert_msg(strstr(msg, "allow_destructive") && strstr(msg, "randtrim"), "%s", msg);
    struct nvb_workload *w = tu_workload(kv, tg);
    ck_assert_int_eq(nvb_workload_validate(w), -EPERM);
    nvb_workload_free(w);
    /* allowed: the discards reach the loop device, which punches holes in its image */
    static const char *const engines[] = {"psync", "io_uring"};
    for (int e = 0; e < 2; e++) {
        if (!engine_ok(engines[e]))
            continue;
        const char *ka[] = {"engine", engines[e], "rw", "trim", "bs", "1M", "offset", "4M", "size", "4M",
                            "io_limit", "4M", "allow_destructive", "1", NULL};
        rc = one_run(ka, g_loop, msg, sizeof msg);
        if (rc == -ENOTSUP && e == 1) { /* a kernel without io_uring's block discard: refused clearly */
            ck_assert_msg(strstr(msg, "6.12"), "%s", msg);
            continue;
        }
        ck_assert_msg(rc == 0, "%s: rc %d: %s", engines[e], rc, msg);
    }
    loop_detach();
    unsigned char *b = tu_read_head(img, 16 << 20);
    ck_assert_msg(tu_all_zero(b + (4 << 20), 4 << 20), "the discarded range of the image reads non-zero");
    ck_assert_msg(!tu_all_zero(b, 4 << 20), "the image before the region was cleared");
    free(b);
    unlink(img);
    free(img);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trim");
    TCase *tc = tcase_create("trim");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, loop_detach);
    tcase_add_test(tc, null_counts_trims_exactly);
    tcase_add_test(tc, trims_punch_holes);
    tcase_add_test(tc, refusals_name_key_and_value);
    tcase_add_test(tc, mix_share_of_trims);
    tcase_add_test(tc, hold_treats_trim_as_write);
    tcase_add_test(tc, device_guard_and_discard);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
