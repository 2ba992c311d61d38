/* Targets that are not storage: a file on sysfs or procfs is a kernel
 * attribute (a write "benchmark" sets it), and a missing device under /dev
 * (or on any devtmpfs) must never become a RAM-backed file benchmarked as
 * the device. The file system under the path decides, not its spelling. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

/* nvb_run of w (psync, bs 4k, ios 1, direct 0, rw, size if set) on target:
 * its rc, the error in msg. */
static int run_on(const char *rw, const char *size, const char *target, char *msg, size_t len)
{
    struct nvb_workload *w = tu_workload((const char *[]){"engine", "psync", "rw", rw, "bs", "4k", "ios", "1",
                                                          "direct", "0", size ? "size" : NULL, size, NULL},
                                         (const char *[]){target, NULL});
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, NULL, &r);
    snprintf(msg, len, "%s", r && nvb_result_error(r) ? nvb_result_error(r) : "");
    nvb_result_free(r);
    nvb_workload_free(w);
    return rc;
}

static char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "re");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strdup(buf);
}

/* The attack: a write to a block queue attribute, no allow_destructive. */
START_TEST(sysfs_attribute_is_not_a_target)
{
    glob_t g;
    if (glob("/sys/block/*/queue/read_ahead_kb", 0, NULL, &g) != 0 || g.gl_pathc == 0) {
        fprintf(stderr, "no /sys/block/*/queue/read_ahead_kb here: sysfs case not run\n");
        return;
    }
    const char *attr = g.gl_pathv[0];
    char *before = slurp(attr), msg[1024];
    const char *rws[] = {"write", "read", "randrw"};
    for (size_t i = 0; i < sizeof rws / sizeof rws[0]; i++) {
        ck_assert_int_eq(run_on(rws[i], NULL, attr, msg, sizeof msg), -EINVAL);
        ck_assert_msg(strstr(msg, "is on sysfs, not storage") && strstr(msg, attr), "%s", msg);
    }
    char *after = slurp(attr);
    ck_assert_str_eq(before, after); /* the attribute was left as it was */
    free(before), free(after);
    /* nor is anything created there */
    ck_assert_int_eq(run_on("write", "1M", "/sys/nvb-no-such-attr", msg, sizeof msg), -ENOENT);
    ck_assert_msg(strstr(msg, "on sysfs, not storage"), "%s", msg);
    globfree(&g);
}
END_TEST

/* A procfs file given a size (it has none of its own) is refused for what it is. */
START_TEST(procfs_file_is_not_a_target)
{
    char msg[1024];
    ck_assert_int_eq(run_on("read", "4k", "/proc/self/environ", msg, sizeof msg), -EINVAL);
    ck_assert_msg(strstr(msg, "is on procfs, not storage"), "%s", msg);
    /* a directory there (the run would make its scratch file in it) */
    ck_assert_int_eq(run_on("read", "1M", "/proc", msg, sizeof msg), -EINVAL);
    ck_assert_msg(strstr(msg, "is on procfs"), "%s", msg);
}
END_TEST

/* A missing /dev path with size: the device is missing, nothing is created. */
START_TEST(missing_device_is_never_created)
{
    if (!tu_is_root())
        return; /* only root may create in /dev: the attack needs it */
    char dev[64], msg[1024];
    snprintf(dev, sizeof dev, "/dev/nvb-test-missing-%d", (int)getpid());
    int rc = run_on("randread", "1M", dev, msg, sizeof msg);
    struct stat st;
    int made = stat(dev, &st) == 0;
    if (made)
        unlink(dev);
    ck_assert_msg(!made, "a file was created at %s", dev);
    ck_assert_int_eq(rc, -ENOENT);
    ck_assert_msg(strstr(msg, "no such device") && strstr(msg, "devtmpfs"), "%s", msg);
    ck_assert_msg(!strstr(msg, "set size"), "no hint to set size: %s", msg);
    /* without size: the same, without the hint that would create it */
    ck_assert_int_eq(run_on("randread", NULL, dev, msg, sizeof msg), -ENOENT);
    ck_assert_msg(strstr(msg, "no such device") && !strstr(msg, "set size"), "%s", msg);
    /* a missing directory below /dev too: the nearest one that exists decides */
    char deep[96];
    snprintf(deep, sizeof deep, "/dev/nvb-no-dir-%d/nvme0n1", (int)getpid());
    ck_assert_int_eq(run_on("randread", NULL, deep, msg, sizeof msg), -ENOENT);
    ck_assert_msg(strstr(msg, "no such device") && !strstr(msg, "set size"), "%s", msg);
}
END_TEST

/* A devtmpfs mounted elsewhere is the same file system: its name in the
 * path does not matter. A regular file left on it is not the device. */
START_TEST(devtmpfs_mounted_elsewhere)
{
    if (!tu_is_root())
        return;
    char *mnt = tu_mkdtemp("devtmpfs");
    if (mount("devtmpfs", mnt, "devtmpfs", 0, NULL) != 0) {
        fprintf(stderr, "mount -t devtmpfs: %s: case not run\n", strerror(errno));
        rmdir(mnt);
        free(mnt);
        return;
    }
    char target[4200], msg[1024];
    snprintf(target, sizeof target, "%s/nvb-test-missing-%d", mnt, (int)getpid());
    int rc = run_on("write", "1M", target, msg, sizeof msg);
    struct stat st;
    int made = stat(target, &st) == 0;
    if (made)
        unlink(target);
    /* a regular file someone left there (an earlier run did) */
    char left[4200];
    snprintf(left, sizeof left, "%s/nvb-test-left-%d", mnt, (int)getpid());
    int fd = open(left, O_CREAT | O_EXCL | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
    close(fd);
    char msg2[1024];
    int rc2 = run_on("read", NULL, left, msg2, sizeof msg2);
    unlink(left);
    ck_assert_int_eq(umount(mnt), 0);
    rmdir(mnt);
    free(mnt);
    ck_assert_msg(!made, "a file was created on devtmpfs at %s", target);
    ck_assert_int_eq(rc, -ENOENT);
    ck_assert_msg(strstr(msg, "no such device") && strstr(msg, "devtmpfs"), "%s", msg);
    ck_assert_int_eq(rc2, -ENODEV);
    ck_assert_msg(strstr(msg2, "regular file on devtmpfs"), "%s", msg2);
}
END_TEST

/* What is storage stays a target: a tmpfs whose path begins with /dev
 * (/dev/shm) takes a created target as any directory does. */
START_TEST(tmpfs_under_dev_is_storage)
{
    struct stat st;
    if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode) || access("/dev/shm", W_OK) != 0) {
        fprintf(stderr, "no writable /dev/shm: case not run\n");
        return;
    }
    char target[96], msg[1024];
    snprintf(target, sizeof target, "/dev/shm/nvb-test-created-%d", (int)getpid());
    int rc = run_on("write", "64k", target, msg, sizeof msg);
    int made = stat(target, &st) == 0;
    unlink(target);
    ck_assert_msg(rc == 0, "%s", msg);
    ck_assert(made);
}
END_TEST

/* A directory on the way swapped between the plan and the creation: the
 * target's parent is a symlink flipped to /dev when the run logs that it
 * creates the target. Nothing is written there, and the file made is
 * removed. */
struct flip {
    const char *link, *tmp;
    int done;
};

static void flip_to_dev(int level, const char *msg, void *arg)
{
    struct flip *x = arg;
    (void)level;
    if (x->done || !strstr(msg, "creating target"))
        return;
    x->done = 1;
    ck_assert_int_eq(symlink("/dev", x->tmp), 0);
    ck_assert_int_eq(rename(x->tmp, x->link), 0);
}

START_TEST(parent_flipped_to_dev_before_creation)
{
    if (!tu_is_root())
        return;
    char *dir = tu_mkdtemp("targetfs");
    char sub[4200], link[4200], tmp[4200], target[4400], made[128];
    snprintf(sub, sizeof sub, "%s/real", dir);
    snprintf(link, sizeof link, "%s/lnk", dir);
    snprintf(tmp, sizeof tmp, "%s/lnk.new", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    ck_assert_int_eq(symlink(sub, link), 0);
    snprintf(made, sizeof made, "nvb-test-flip-%d", (int)getpid());
    snprintf(target, sizeof target, "%s/%s", link, made);
    struct flip x = {.link = link, .tmp = tmp};
    struct nvb_workload *w = tu_workload((const char *[]){"engine", "psync", "rw", "write", "bs", "4k", "ios", "4",
                                                          "size", "1M", NULL},
                                         (const char *[]){target, NULL});
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.log = flip_to_dev;
    o.log_arg = &x;
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, &o, &r);
    char in_dev[160];
    snprintf(in_dev, sizeof in_dev, "/dev/%s", made);
    struct stat st;
    int left = stat(in_dev, &st) == 0;
    if (left)
        unlink(in_dev);
    ck_assert(x.done);
    ck_assert_msg(!left, "%s was left", in_dev);
    ck_assert_int_eq(rc, -ENODEV);
    ck_assert_msg(strstr(nvb_result_error(r), "devtmpfs"), "%s", nvb_result_error(r));
    nvb_result_free(r);
    nvb_workload_free(w);
    ck_assert_int_eq(tu_sh("rm -rf '%s'", dir), 0);
    free(dir);
}
END_TEST

/* A read run leaves the file's access time as it was (the targets' descriptors
 * carry O_NOATIME, engines.md "Access times"): an access time two days old,
 * which a plain read moves on a relatime mount, is the same after the run,
 * its planning, its examination of the page cache and its reads. */
START_TEST(read_run_keeps_access_time)
{
    char *file = tu_scratch("nvb-atime", 1 << 20);
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec -= 2 * 86400;
    ts[1] = ts[0];
    ts[1].tv_sec -= 86400;
    ck_assert_int_eq(utimensat(AT_FDCWD, file, ts, 0), 0);
    struct stat a, b;
    ck_assert_int_eq(stat(file, &a), 0);
    char msg[512];
    ck_assert_msg(run_on("randread", NULL, file, msg, sizeof msg) == 0, "%s", msg);
    ck_assert_int_eq(stat(file, &b), 0);
    ck_assert(a.st_atim.tv_sec == b.st_atim.tv_sec && a.st_atim.tv_nsec == b.st_atim.tv_nsec);
    unlink(file);
    free(file);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("targetfs");
    TCase *tc = tcase_create("targetfs");
    tcase_add_test(tc, sysfs_attribute_is_not_a_target);
    tcase_add_test(tc, procfs_file_is_not_a_target);
    tcase_add_test(tc, missing_device_is_never_created);
    tcase_add_test(tc, devtmpfs_mounted_elsewhere);
    tcase_add_test(tc, tmpfs_under_dev_is_storage);
    tcase_add_test(tc, parent_flipped_to_dev_before_creation);
    tcase_add_test(tc, read_run_keeps_access_time);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
