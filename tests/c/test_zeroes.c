/*
 * write_zeroes=1: the workload's trims zero their ranges instead of
 * discarding them (engines/trim.c, core/iomode.c).
 *  - psync and io_uring (IORING_OP_FALLOCATE) on an ext4 scratch file:
 *    fallocate ZERO_RANGE; the trimmed range reads back as zeros, the rest
 *    as it was, the size unchanged, and engine_used says the trims were
 *    write-zeroes;
 *  - on a file system without ZERO_RANGE (tmpfs) the first one fails the
 *    run with EOPNOTSUPP, named;
 *  - refused: an engine that cannot (libaio, null), a workload without
 *    trims;
 *  - with root, a loop device of the test's own: BLKZEROOUT (psync) and
 *    IORING_OP_FALLOCATE ZERO_RANGE (io_uring) zero the range of its image.
 * Write Zeroes on NVMe passthrough runs under QEMU (tests/vm).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

#define FSIZE (4u << 20)

static int run(const char *const *kv, const char *target, char *msg, size_t len, char **json)
{
    const char *tg[] = {target, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, NULL, &r);
    snprintf(msg, len, "%s", r ? nvb_result_error(r) : nvb_workload_error(w));
    if (json) {
        *json = NULL;
        char *j = NULL;
        if (r && nvb_result_json(r, &j) == 0) {
            *json = strdup(j);
            nvb_free(j);
        }
    }
    nvb_result_free(r);
    nvb_workload_free(w);
    return rc;
}

/* The engines that write zeroes on files and block devices (engine nvme:
 * under QEMU); io_uring's case is left out, said, where it cannot run. */
static const char *const zero_engines[] = {"psync", "io_uring"};

static int engine_here(const char *engine)
{
    char why[256];
    if (nvb_engine_probe(engine, why, sizeof why) < 0) {
        fprintf(stderr, "note: engine %s: %s: its case skipped\n", engine, why);
        return 0;
    }
    return 1;
}

START_TEST(file_range_zeroed)
{
    const char *engine = zero_engines[_i];
    if (!engine_here(engine))
        return;
    char *f = tu_scratch("zeroes", FSIZE);
    unsigned char *before = tu_read_head(f, FSIZE);
    ck_assert(!tu_all_zero(before + (1u << 20), 1u << 20));
    const char *kv[] = {"engine", engine, "rw", "trim", "write_zeroes", "1", "bs", "64k", "offset", "1M",
                        "size", "1M", "io_limit", "1M", NULL};
    char msg[1024], *json;
    int rc = run(kv, f, msg, sizeof msg, &json);
    ck_assert_msg(rc == 0 && json, "rc %d: %s", rc, msg);
    ck_assert_msg(strstr(json, "\"trims\":\"write zeroes"), "engine_used names the write-zeroes");
    ck_assert_msg(strstr(json, _i ? "IORING_OP_FALLOCATE" : "BLKZEROOUT"), "engine_used names how: %s", json);
    ck_assert_msg(strstr(json, "\"write_zeroes\":1"), "the workload echo carries write_zeroes");
    free(json);
    struct stat st;
    ck_assert_int_eq(stat(f, &st), 0);
    ck_assert_uint_eq((uint64_t)st.st_size, FSIZE);
    unsigned char *after = tu_read_head(f, FSIZE);
    ck_assert_msg(tu_all_zero(after + (1u << 20), 1u << 20), "the zeroed MiB reads back non-zero");
    ck_assert(!memcmp(after, before, 1u << 20));
    ck_assert(!memcmp(after + (2u << 20), before + (2u << 20), FSIZE - (2u << 20)));
    free(after);
    free(before);
    unlink(f);
    free(f);
}
END_TEST

START_TEST(tmpfs_says_why)
{
    struct stat st;
    if (stat("/dev/shm", &st) != 0) {
        fprintf(stderr, "note: no /dev/shm: case skipped\n");
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/dev/shm/nvb-zeroes-%d", (int)getpid());
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
    close(fd);
    const char *kv[] = {"engine", "psync", "rw", "trim", "write_zeroes", "1", "direct", "0", "bs", "64k",
                        "io_limit", "64k", NULL};
    char msg[1024];
    int rc = run(kv, path, msg, sizeof msg, NULL);
    unlink(path);
    ck_assert_msg(rc == -EOPNOTSUPP, "rc %d: %s", rc, msg);
}
END_TEST

START_TEST(refusals)
{
    char *f = tu_scratch("zeroes-ref", 1 << 20);
    static const char *const engines[] = {"libaio", "null"};
    char msg[1024];
    for (int e = 0; e < 2; e++) {
        char why[256];
        if (nvb_engine_probe(engines[e], why, sizeof why) < 0)
            continue;
        const char *kv[] = {"engine", engines[e], "rw", "randtrim", "write_zeroes", "1", "ios", "4", NULL};
        int rc = run(kv, f, msg, sizeof msg, NULL);
        /* libaio cannot trim at all: that refusal comes first */
        ck_assert_msg(rc == -ENOTSUP && strstr(msg, engines[e]) &&
                          (e == 0 ? strstr(msg, "cannot trim") != NULL
                                  : strstr(msg, "write_zeroes=1") && strstr(msg, "BLKZEROOUT")),
                      "%s: rc %d: %s", engines[e], rc, msg);
    }
    const char *kr[] = {"engine", "psync", "rw", "randread", "write_zeroes", "1", "ios", "4", NULL};
    int rc = run(kr, f, msg, sizeof msg, NULL);
    ck_assert_msg(rc == -EINVAL && strstr(msg, "write_zeroes=1") && strstr(msg, "randread"), "rc %d: %s", rc, msg);
    unlink(f);
    free(f);
}
END_TEST

static char g_loop[64];

START_TEST(loop_device_zeroout)
{
    const char *engine = zero_engines[_i];
    if (!engine_here(engine))
        return;
    if (!tu_is_root() || tu_sh("command -v losetup") != 0) {
        fprintf(stderr, "note: needs root and losetup: case skipped\n");
        return;
    }
    char *img = tu_scratch("zeroes-loop.img", 16 << 20);
    if (tu_losetup(img, g_loop, sizeof g_loop) != 0) {
        fprintf(stderr, "note: losetup -f failed: case skipped\n");
        unlink(img);
        free(img);
        return;
    }
    const char *kv[] = {"engine", engine, "rw", "trim", "write_zeroes", "1", "bs", "1M", "offset", "4M",
                        "size", "4M", "io_limit", "4M", "allow_destructive", "1", "qd", "4", NULL};
    char msg[1024];
    int rc = run(kv, g_loop, msg, sizeof msg, NULL);
    tu_sh("losetup -d '%s'", g_loop); /* this device only, by name */
    ck_assert_msg(rc == 0, "rc %d: %s", rc, msg);
    unsigned char *b = tu_read_head(img, 16 << 20);
    ck_assert_msg(tu_all_zero(b + (4 << 20), 4 << 20), "the zeroed range of the image reads non-zero");
    ck_assert_msg(!tu_all_zero(b, 4 << 20) && !tu_all_zero(b + (8 << 20), 8 << 20), "data outside the range was cleared");
    free(b);
    unlink(img);
    free(img);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("zeroes");
    TCase *tc = tcase_create("zeroes");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, file_range_zeroed, 0, 2);
    tcase_add_test(tc, tmpfs_says_why);
    tcase_add_test(tc, refusals);
    tcase_add_loop_test(tc, loop_device_zeroout, 0, 2);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    return failed ? 1 : 0;
}
