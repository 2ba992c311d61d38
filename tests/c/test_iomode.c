/*
 * The per-I/O modes (core/iomode.c): uncached=1 (RWF_DONTCACHE), atomic=1
 * (RWF_ATOMIC), fua=1 (RWF_DSYNC), each by what it does and by its refusals:
 *  - uncached reads leave the file's pages out of the page cache, plain
 *    buffered reads keep them (psync and io_uring, an ext4 scratch file);
 *    with direct=1, on libaio, and where the kernel refuses the flag
 *    (tmpfs) the run is refused with the reason;
 *  - fua writes to a loop device (a write-back cache without FUA) each end
 *    in a flush the device counts; without fua none; a workload without
 *    writes is refused;
 *  - atomic: refused naming the limits where bs does not fit them (a loop
 *    device and this VM's disk do no atomic writes: limits 0), and with
 *    direct=0. No device here takes atomic writes: the accepted path is
 *    not run (docs/engines.md says so).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

static int have_engine(const char *name)
{
    char why[256];
    return nvb_engine_probe(name, why, sizeof why) == 0;
}

/* Share of path's pages in the page cache, in percent (mincore). */
static double cached_pct(const char *path)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = ((size_t)st.st_size + pg - 1) / pg;
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    unsigned char *vec = calloc(n, 1);
    ck_assert_int_eq(mincore(m, (size_t)st.st_size, vec), 0);
    size_t in = 0;
    for (size_t i = 0; i < n; i++)
        in += vec[i] & 1;
    free(vec);
    munmap(m, (size_t)st.st_size);
    close(fd);
    return 100.0 * (double)in / (double)n;
}

static void drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
}

/* Runs kv on target; returns the run's rc, its result (or NULL) in *out. */
static int run(const char *const *kv, const char *target, struct nvb_result **out)
{
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    for (int i = 0; kv[i]; i += 2)
        ck_assert_msg(nvb_workload_set(w, kv[i], kv[i + 1]) == 0, "%s=%s: %s", kv[i], kv[i + 1], nvb_workload_error(w));
    ck_assert_int_eq(nvb_workload_add_target(w, target), 0);
    int rc = nvb_run(w, NULL, out);
    nvb_workload_free(w);
    return rc;
}

static double read_pass_cached(const char *engine, const char *uncached, const char *path)
{
    drop_cache(path);
    ck_assert_double_lt(cached_pct(path), 5.0);
    const char *kv[] = {"engine", engine, "rw", "read", "bs", "64k", "direct", "0", "invalidate", "0",
                        "uncached", uncached, "ios", "128", NULL};
    struct nvb_result *r = NULL;
    int rc = run(kv, path, &r);
    ck_assert_msg(rc == 0, "engine %s uncached=%s: %s", engine, uncached, r ? nvb_result_error(r) : "");
    nvb_result_free(r);
    return cached_pct(path);
}

START_TEST(uncached_reads_leave_no_pages_behind)
{
    char *path = tu_scratch("uncached.dat", 8 << 20); /* 128 x 64k: the whole file once */
    const char *engines[] = {"psync", "io_uring"};
    for (int e = 0; e < 2; e++) {
        if (!have_engine(engines[e]))
            continue;
        double kept = read_pass_cached(engines[e], "0", path);
        double dropped = read_pass_cached(engines[e], "1", path);
        ck_assert_msg(kept >= 90.0, "%s: plain buffered reads kept %.1f %% cached", engines[e], kept);
        ck_assert_msg(dropped <= 10.0, "%s: uncached reads left %.1f %% cached", engines[e], dropped);
    }
    unlink(path);
    free(path);
}
END_TEST

static void refused(const char *const *kv, const char *target, int want_rc, const char *want_msg)
{
    struct nvb_result *r = NULL;
    int rc = run(kv, target, &r);
    ck_assert_int_eq(rc, want_rc);
    ck_assert_ptr_nonnull(r);
    const char *msg = nvb_result_error(r);
    ck_assert_msg(msg && strstr(msg, want_msg), "'%s' lacks '%s'", msg ? msg : "(none)", want_msg);
    nvb_result_free(r);
}

START_TEST(uncached_refusals_say_why)
{
    char *path = tu_scratch("uncached-r.dat", 1 << 20);
    const char *direct[] = {"engine", "psync", "rw", "read", "direct", "1", "uncached", "1", "ios", "4", NULL};
    refused(direct, path, -EINVAL, "uncached=1: RWF_DONTCACHE is buffered I/O");
    const char *aio[] = {"engine", "libaio", "rw", "read", "direct", "0", "uncached", "1", "ios", "4", NULL};
    if (have_engine("libaio"))
        refused(aio, path, -ENOTSUP, "engine libaio does not pass RWF_* flags");
    /* tmpfs has no uncached I/O: the kernel's answer, through the engine */
    struct stat st;
    if (stat("/dev/shm", &st) == 0) {
        const char *shm = "/dev/shm/nvb-uncached-test.dat";
        ck_assert_int_eq(tu_sh("dd if=/dev/zero of=%s bs=1M count=1 status=none", shm), 0);
        const char *kv[] = {"engine", "psync", "rw", "read", "direct", "0", "uncached", "1", "ios", "4", NULL};
        refused(kv, shm, -EOPNOTSUPP, "the kernel refused RWF_DONTCACHE on this target");
        unlink(shm);
    }
    unlink(path);
    free(path);
}
END_TEST

/* flush requests the block device completed (/sys/block/DEV/stat field 16) */
static unsigned long long flushes(const char *dev)
{
    char p[128], line[512];
    snprintf(p, sizeof p, "/sys/block/%s/stat", dev + strlen("/dev/"));
    FILE *f = fopen(p, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    unsigned long long v[17] = {0};
    int n = sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12],
                   &v[13], &v[14], &v[15], &v[16]);
    if (n < 17)
        tu_skip("the kernel's block stat has no flush counts (before 5.5)");
    return v[15];
}

START_TEST(fua_writes_each_end_durable)
{
    if (!tu_is_root())
        tu_skip("a loop device needs root");
    char *backing = tu_scratch("fua-loop.img", 8 << 20), dev[64];
    if (tu_losetup(backing, dev, sizeof dev) < 0)
        tu_skip("losetup -f --show failed");
    const char *engines[] = {"psync", "io_uring"};
    for (int e = 0; e < 2; e++) {
        if (!have_engine(engines[e]))
            continue;
        for (int fua = 0; fua <= 1; fua++) {
            const char *kv[] = {"engine", engines[e], "rw", "randwrite", "bs", "4k", "qd", "1", "ios", "64",
                                "allow_destructive", "1", "fua", fua ? "1" : "0", NULL};
            unsigned long long f0 = flushes(dev);
            struct nvb_result *r = NULL;
            int rc = run(kv, dev, &r);
            ck_assert_msg(rc == 0, "%s fua=%d: %s", engines[e], fua, r ? nvb_result_error(r) : "");
            unsigned long long got = flushes(dev) - f0;
            if (fua)
                ck_assert_msg(got >= 64, "%s: 64 fua writes, %llu flushes", engines[e], got);
            else
                ck_assert_msg(got == 0, "%s: 64 plain writes, %llu flushes", engines[e], got);
            nvb_result_free(r);
        }
    }
    const char *rd[] = {"engine", "psync", "rw", "randread", "fua", "1", "ios", "4", NULL};
    refused(rd, dev, -EINVAL, "fua=1: applies to writes, and rw=randread issues none");
    /* atomic: a loop device does no atomic writes: refused naming its limits */
    const char *at[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "atomic", "1", "ios", "4",
                        "allow_destructive", "1", NULL};
    refused(at, dev, -EINVAL, "atomic_write_unit_max_bytes 0 (the device does no atomic writes)");
    tu_sh("losetup -d %s", dev);
    unlink(backing);
    free(backing);
}
END_TEST

START_TEST(atomic_refusals_name_the_limits)
{
    char *path = tu_scratch("atomic.dat", 1 << 20);
    const char *buffered[] = {"engine", "psync", "rw", "randwrite", "direct", "0", "atomic", "1", "ios", "4", NULL};
    refused(buffered, path, -EINVAL, "atomic=1: RWF_ATOMIC needs direct=1");
    const char *kv[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "atomic", "1", "ios", "4", NULL};
    struct nvb_result *r = NULL;
    int rc = run(kv, path, &r);
    const char *msg = r ? nvb_result_error(r) : NULL;
    /* this VM's disk: limits 0; a disk that takes 4k atomic writes runs it */
    if (rc < 0)
        ck_assert_msg(msg && strstr(msg, "atomic=1:") && strstr(msg, "atomic_write"), "%s", msg ? msg : "");
    nvb_result_free(r);
    unlink(path);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("iomode");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, uncached_reads_leave_no_pages_behind);
    tcase_add_test(tc, uncached_refusals_say_why);
    tcase_add_test(tc, fua_writes_each_end_durable);
    tcase_add_test(tc, atomic_refusals_name_the_limits);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
