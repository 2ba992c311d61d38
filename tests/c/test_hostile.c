/* Hostile targets and values: paths with spaces, quotes, control characters
 * and non-ASCII; symlinks (to files, to directories, dangling, looping);
 * FIFOs; /dev/null; read-only files and file systems; a full file system;
 * sizes and offsets at 2^63. Each must run, or be refused with a negative
 * errno and a message naming the culprit, never hang, and never write
 * outside the declared region. The mounts need root (skipped otherwise). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "util/json.h"
#include "nvbench.h"
#include "testutil.h"

static const char *g_engines[8];
static int g_n;
static int g_direct = 1;        /* O_DIRECT works under tu_tmpdir() */

struct outcome {
    int rc;
    char msg[512];
    char *json;                  /* NULL when no result */
    uint64_t ios, errors;
};

static struct outcome run(const char *const *kv, const char *const *targets)
{
    struct outcome o;
    memset(&o, 0, sizeof o);
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    for (; kv && kv[0]; kv += 2)
        ck_assert_msg(nvb_workload_set(w, kv[0], kv[1]) == 0, "set %s=%s: %s", kv[0], kv[1], nvb_workload_error(w));
    for (; targets && *targets; targets++)
        ck_assert_int_eq(nvb_workload_add_target(w, *targets), 0);
    struct nvb_result *r = NULL;
    alarm(60); /* a run that hangs (a FIFO opened for reading) fails the test instead */
    o.rc = nvb_run(w, NULL, &r);
    alarm(0);
    if (r) {
        snprintf(o.msg, sizeof o.msg, "%s", nvb_result_error(r));
        nvb_result_json(r, &o.json);
        o.ios = nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE);
        o.errors = nvb_result_errors(r);
        nvb_result_free(r);
    }
    nvb_workload_free(w);
    return o;
}

static void done(struct outcome *o) { nvb_free(o->json); }

static void expect_refused(struct outcome *o, int rc, const char *needle)
{
    ck_assert_msg(o->rc == rc, "rc %d (%s), expected %d", o->rc, o->msg, rc);
    ck_assert_msg(strstr(o->msg, needle), "message '%s' does not say '%s'", o->msg, needle);
}

/* No raw control character may reach the JSON text. */
static void json_is_clean(const char *json)
{
    for (const unsigned char *p = (const unsigned char *)json; *p; p++)
        ck_assert_msg(*p >= 0x20 || *p == '\n', "raw control character 0x%02x in the JSON", *p);
}

static char *mkfile(const char *dir, const char *name, size_t size)
{
    char *p;
    ck_assert_int_ge(asprintf(&p, "%s/%s", dir, name), 0);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    ck_assert_msg(fd >= 0, "create %s", p);
    char buf[65536];
    memset(buf, 0x3c, sizeof buf);
    for (size_t off = 0; off < size; off += sizeof buf)
        ck_assert_int_eq(write(fd, buf, size - off < sizeof buf ? size - off : sizeof buf) > 0, 1);
    close(fd);
    return p;
}

START_TEST(odd_path_names)
{
    char *base = tu_mkdtemp("hostile names");
    static const char *const names[] = {"with space", "ünïcödé ✓ 日本", "quote\"back\\slash", "tab\tnew\nline",
                                        "-leading-dash", "=equals=1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", base, names[i]);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        char *file = mkfile(dir, names[i], 1 << 20);
        for (int e = 0; e < g_n; e++) {
            char d[8];
            snprintf(d, sizeof d, "%d", g_direct);
            /* a file and a directory (scratch file) of that name, with verify */
            struct outcome o = run((const char *[]){"engine", g_engines[e], "rw", "randrw", "ios", "200",
                                                    "size", "1M", "verify", "0", "direct", d, NULL},
                                   (const char *[]){file, dir, NULL});
            ck_assert_msg(o.rc == 0, "%s on '%s': %s", g_engines[e], names[i], o.msg);
            ck_assert_uint_eq(o.ios, 200);
            json_is_clean(o.json);
            done(&o);
        }
        /* only the file is left: the scratch file was removed */
        ck_assert_int_eq(tu_count_entries(dir), 1);
        unlink(file);
        rmdir(dir);
        free(file);
    }
    /* the JSON escapes what it must */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", base, "q\"\\\n");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    struct outcome o = run((const char *[]){"engine", "null", "ios", "10", NULL}, (const char *[]){dir, NULL});
    ck_assert_int_eq(o.rc, 0);
    ck_assert_msg(strstr(o.json, "q\\\"\\\\\\u000a\""), "path not escaped in %.1500s", o.json);
    done(&o);
    rmdir(dir);
    rmdir(base);
    free(base);
}
END_TEST

START_TEST(symlinks)
{
    char *base = tu_mkdtemp("hostile-links");
    char *file = mkfile(base, "data", 1 << 20);
    char sub[4096], l_file[4096], l_dir[4096], l_dangling[4096], l_loop[4096];
    snprintf(sub, sizeof sub, "%s/sub", base);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    snprintf(l_file, sizeof l_file, "%s/link-to-file", base);
    snprintf(l_dir, sizeof l_dir, "%s/link-to-dir", base);
    snprintf(l_dangling, sizeof l_dangling, "%s/dangling", base);
    snprintf(l_loop, sizeof l_loop, "%s/loop", base);
    ck_assert_int_eq(symlink("data", l_file), 0);
    ck_assert_int_eq(symlink("sub", l_dir), 0);
    ck_assert_int_eq(symlink("nowhere", l_dangling), 0);
    ck_assert_int_eq(symlink("loop", l_loop), 0);
    char d[8];
    snprintf(d, sizeof d, "%d", g_direct);
    for (int e = 0; e < g_n; e++) {
        struct outcome o = run((const char *[]){"engine", g_engines[e], "rw", "randread", "ios", "100", "direct", d,
                                                NULL}, (const char *[]){l_file, NULL});
        ck_assert_msg(o.rc == 0, "%s: %s", g_engines[e], o.msg);
        ck_assert_ptr_nonnull(strstr(o.json, "link-to-file"));
        done(&o);
        o = run((const char *[]){"engine", g_engines[e], "rw", "randwrite", "ios", "100", "size", "1M", "direct",
                                 d, NULL}, (const char *[]){l_dir, NULL});
        ck_assert_msg(o.rc == 0, "%s: %s", g_engines[e], o.msg);
        done(&o);
        ck_assert_int_eq(tu_count_entries(sub), 0);
    }
    struct outcome o = run((const char *[]){"rw", "randread", "ios", "10", NULL}, (const char *[]){l_dangling, NULL});
    expect_refused(&o, -ENOENT, "dangling");
    done(&o);
    o = run((const char *[]){"rw", "randread", "ios", "10", NULL}, (const char *[]){l_loop, NULL});
    expect_refused(&o, -ELOOP, "loop");
    done(&o);
    unlink(l_file);
    unlink(l_dir);
    unlink(l_dangling);
    unlink(l_loop);
    unlink(file);
    rmdir(sub);
    rmdir(base);
    free(file);
    free(base);
}
END_TEST

/* A FIFO is never opened (opening one for reading blocks until a writer
 * comes); /dev/null is a character device: refused, except by the null
 * engine, which opens nothing. */
START_TEST(fifo_and_dev_null)
{
    char *base = tu_mkdtemp("hostile-fifo");
    char fifo[4096];
    snprintf(fifo, sizeof fifo, "%s/fifo", base);
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    for (int e = 0; e < g_n; e++) {
        static const char *const rws[] = {"randread", "write"};
        for (int k = 0; k < 2; k++) {
            struct outcome o = run((const char *[]){"engine", g_engines[e], "rw", rws[k], "ios", "10", NULL},
                                   (const char *[]){fifo, NULL});
            expect_refused(&o, -EINVAL, "fifo");
            done(&o);
            o = run((const char *[]){"engine", g_engines[e], "rw", rws[k], "ios", "10", NULL},
                    (const char *[]){"/dev/null", NULL});
            ck_assert_msg(o.rc == -EINVAL, "%s /dev/null: %d %s", g_engines[e], o.rc, o.msg);
            ck_assert_ptr_nonnull(strstr(o.msg, "/dev/null"));
            done(&o);
        }
    }
    struct outcome o = run((const char *[]){"engine", "null", "ios", "10", NULL}, (const char *[]){"/dev/null", NULL});
    ck_assert_msg(o.rc == 0, "%s", o.msg);
    done(&o);
    unlink(fifo);
    rmdir(base);
    free(base);
}
END_TEST

START_TEST(sizes_at_two_to_the_63)
{
    char *base = tu_mkdtemp("hostile-sizes");
    char *file = mkfile(base, "f", 1 << 20);
    struct outcome o;
    o = run((const char *[]){"size", "9223372036854775808", "ios", "10", NULL}, (const char *[]){file, NULL});
    expect_refused(&o, -EINVAL, "exceeds target");
    done(&o);
    o = run((const char *[]){"offset", "9223372036854775808", "ios", "10", NULL}, (const char *[]){file, NULL});
    expect_refused(&o, -EINVAL, "beyond the end");
    done(&o);
    o = run((const char *[]){"offset", "18446744073709551615", "size", "4k", "ios", "10", NULL},
            (const char *[]){file, NULL});
    ck_assert_int_eq(o.rc, -EINVAL);
    done(&o);
    o = run((const char *[]){"size", "9223372036854775808", "ios", "10", NULL}, (const char *[]){base, NULL});
    expect_refused(&o, -EFBIG, "scratch file");
    done(&o);
    ck_assert_int_eq(tu_count_entries(base), 1);
    /* the null engine does no I/O, but its region still ends by 2^63 */
    o = run((const char *[]){"engine", "null", "size", "9223372036854775808", "ios", "1000", NULL}, NULL);
    ck_assert_int_eq(o.rc, 0);
    ck_assert_uint_eq(o.ios, 1000);
    done(&o);
    o = run((const char *[]){"engine", "null", "offset", "9223372036854775808", "size", "4k", "ios", "10", NULL},
            NULL);
    expect_refused(&o, -EINVAL, "2^63");
    done(&o);
    o = run((const char *[]){"engine", "null", "offset", "4611686018427387904", "size", "13835058055282163712",
                             "ios", "10", NULL}, NULL);
    expect_refused(&o, -EINVAL, "2^63");
    done(&o);
    /* values past 2^64 do not parse; 2^64-1 counts are accepted */
    struct nvb_workload *w;
    nvb_workload_new(&w);
    ck_assert_int_eq(nvb_workload_set(w, "size", "18446744073709551616"), -ERANGE);
    ck_assert_int_eq(nvb_workload_set(w, "size", "16E"), -EINVAL);
    ck_assert_int_eq(nvb_workload_set(w, "size", "16384P"), -ERANGE);
    ck_assert_int_eq(nvb_workload_set(w, "ios", "18446744073709551615"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "bs", "2G"), -ERANGE);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "'bs'"));
    nvb_workload_free(w);
    /* buffers bigger than the machine: refused before anything is allocated */
    o = run((const char *[]){"engine", "null", "bs", "1G", "qd", "16384", "jobs", "4096", "ios", "10", NULL}, NULL);
    expect_refused(&o, -ENOMEM, "bs x qd x jobs");
    done(&o);
    unlink(file);
    rmdir(base);
    free(file);
    free(base);
}
END_TEST

/* Read-only: as an unprivileged user (root ignores permission bits). */
START_TEST(read_only_file)
{
    if (!tu_is_root()) {
        fprintf(stderr, "note: read_only_file needs root to drop to an unprivileged user\n");
        return;
    }
    char *base = tu_mkdtemp_public("hostile-ro"); /* user 65534 must reach it */
    char *file = mkfile(base, "ro", 1 << 20);
    chmod(file, 0444);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(3);
        struct outcome o = run((const char *[]){"rw", "randwrite", "ios", "10", NULL}, (const char *[]){file, NULL});
        if (o.rc != -EACCES || !strstr(o.msg, "writing") || !strstr(o.msg, file))
            _exit(4);
        done(&o);
        o = run((const char *[]){"rw", "randread", "ios", "10", "direct", "0", NULL}, (const char *[]){file, NULL});
        if (o.rc != 0 || o.ios != 10)
            _exit(5);
        done(&o);
        /* a directory this user cannot write: no scratch file */
        o = run((const char *[]){"rw", "randread", "ios", "10", NULL}, (const char *[]){base, NULL});
        if (o.rc != -EACCES || !strstr(o.msg, "scratch"))
            _exit(6);
        done(&o);
        _exit(0);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "unprivileged child failed at step %d",
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    ck_assert_int_eq(tu_count_entries(base), 1);
    unlink(file);
    rmdir(base);
    free(file);
    free(base);
}
END_TEST

static uint64_t sum_range(const char *path, off_t off, size_t len)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    unsigned char buf[65536];
    uint64_t h = 1469598103934665603ull;
    while (len) {
        size_t n = len < sizeof buf ? len : sizeof buf;
        ck_assert_int_eq(pread(fd, buf, n, off), (ssize_t)n);
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ull;
        off += (off_t)n;
        len -= n;
    }
    close(fd);
    return h;
}

/* A small file system, filled: write workloads into holes fail with
 * ENOSPC (stopping the run, or counted with continue_on_error=1), a scratch
 * file that does not fit is refused, and nothing outside the region, nor
 * any other file, changes. Also the same file system read-only: EROFS. */
static void fill_with(int fd, int byte, off_t from, off_t to)
{
    char buf[65536];
    memset(buf, byte, sizeof buf);
    for (off_t off = from; off < to; off += sizeof buf)
        ck_assert_int_eq(pwrite(fd, buf, sizeof buf, off), (ssize_t)sizeof buf);
}

/* target: 16 MiB, [0, 4M) and [12M, 16M) written, a hole between; then
 * the file system filled but for about 2 MiB. */
static void reset_full(const char *file, const char *filler)
{
    int fd = open(file, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    fill_with(fd, 0x55, 0, 4 << 20);
    ck_assert_int_eq(ftruncate(fd, 16 << 20), 0);
    fill_with(fd, 0x77, 12 << 20, 16 << 20);
    fsync(fd);
    close(fd);
    fd = open(filler, O_WRONLY | O_TRUNC | O_CREAT, 0644);
    ck_assert_int_ge(fd, 0);
    char buf[65536];
    memset(buf, 0x11, sizeof buf);
    while (write(fd, buf, sizeof buf) == (ssize_t)sizeof buf)
        ;
    fsync(fd);
    off_t end = lseek(fd, 0, SEEK_END);
    ck_assert_int_eq(ftruncate(fd, end > (2 << 20) ? end - (2 << 20) : 0), 0);
    fsync(fd);
    close(fd);
}

/* A small file system, filled: write workloads into holes fail with
 * ENOSPC (stopping the run, or counted with continue_on_error=1), a scratch
 * file that does not fit is refused, and nothing outside the region, nor
 * any other file, changes. Also the same file system read-only: EROFS. */
static void full_fs(const char *mnt, int direct)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/scratch", mnt);
    ck_assert_int_eq(mkdir(dir, 0755), 0); /* now: a full ext4 has no block for it later */
    char *sentinel = mkfile(mnt, "sentinel", 1 << 20);
    char *file = mkfile(mnt, "target", 0);
    char *filler = mkfile(mnt, "filler", 0);
    uint64_t s_sentinel = sum_range(sentinel, 0, 1 << 20);
    char d[8];
    snprintf(d, sizeof d, "%d", direct);
    for (int e = 0; e < g_n; e++) {
        for (int coe = 0; coe < 2; coe++) {
            reset_full(file, filler);
            uint64_t s_head = sum_range(file, 0, 4 << 20), s_tail = sum_range(file, 12 << 20, 4 << 20);
            struct outcome o = run((const char *[]){"engine", g_engines[e], "rw", "write", "qd", "4", "offset",
                                                    "4M", "size", "8M", "ios", "2048", "direct", d,
                                                    "continue_on_error", coe ? "1" : "0", NULL},
                                   (const char *[]){file, NULL});
            if (!coe) {
                /* stopped at the first ENOSPC, a partial result saying so */
                ck_assert_msg(o.rc == -ENOSPC, "%s: rc %d %s", g_engines[e], o.rc, o.msg);
                ck_assert_ptr_nonnull(strstr(o.msg, "target"));
                ck_assert_ptr_nonnull(strstr(o.json, "\"name\":\"ENOSPC\""));
                ck_assert_msg(o.ios > 0 && o.ios < 2048, "%s: %llu writes before ENOSPC", g_engines[e],
                              (unsigned long long)o.ios);
            } else {
                /* counted, and the run goes on to the end */
                ck_assert_msg(o.rc == 0, "%s: %s", g_engines[e], o.msg);
                ck_assert_uint_eq(o.ios + o.errors, 2048);
                ck_assert(o.errors > 0);
                ck_assert_ptr_nonnull(strstr(o.json, "\"ENOSPC\":"));
            }
            done(&o);
            /* nothing outside the region changed, nor the size, nor the other file */
            struct stat st;
            ck_assert_int_eq(stat(file, &st), 0);
            ck_assert_int_eq(st.st_size, 16 << 20);
            ck_assert(sum_range(file, 0, 4 << 20) == s_head);
            ck_assert(sum_range(file, 12 << 20, 4 << 20) == s_tail);
            ck_assert(sum_range(sentinel, 0, 1 << 20) == s_sentinel);
        }
    }
    /* a scratch file that does not fit */
    struct outcome o = run((const char *[]){"rw", "randwrite", "size", "64M", "ios", "10", "direct", d, NULL},
                           (const char *[]){dir, NULL});
    expect_refused(&o, -ENOSPC, "scratch file");
    done(&o);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    /* read-only */
    /* io_uring drops its file references asynchronously after the ring
     * is gone: the file system can be "busy" for a moment */
    int rc = -1;
    for (int k = 0; k < 100 && rc != 0; k++) {
        sync();
        rc = mount("none", mnt, "none", MS_REMOUNT | MS_RDONLY, NULL); /* type and source ignored */
        if (rc != 0 && errno == EBUSY)
            usleep(20000);
        else if (rc != 0)
            break;
    }
    ck_assert_msg(rc == 0, "remount read-only: %s", strerror(errno));
    o = run((const char *[]){"rw", "randwrite", "ios", "10", "direct", d, NULL}, (const char *[]){file, NULL});
    expect_refused(&o, -EROFS, "writing");
    done(&o);
    o = run((const char *[]){"rw", "randread", "ios", "10", "direct", d, NULL}, (const char *[]){dir, NULL});
    expect_refused(&o, -EROFS, "scratch");
    done(&o);
    o = run((const char *[]){"rw", "randread", "ios", "10", "direct", d, NULL}, (const char *[]){file, NULL});
    ck_assert_msg(o.rc == 0, "read on a read-only file system: %s", o.msg);
    done(&o);
    ck_assert(sum_range(sentinel, 0, 1 << 20) == s_sentinel);
    free(sentinel);
    free(file);
    free(filler);
}

/* Mounts made in a mount namespace of this test's own vanish with it,
 * whatever the test does. */
static int private_mounts(void)
{
    return unshare(CLONE_NEWNS) == 0 && mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0;
}

START_TEST(full_tmpfs)
{
    if (!tu_is_root() || !private_mounts()) {
        fprintf(stderr, "note: full_tmpfs needs root (a mount namespace, a small tmpfs)\n");
        return;
    }
    char *mnt = tu_mkdtemp("hostile-tmpfs");
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=16m") != 0) {
        fprintf(stderr, "note: cannot mount a tmpfs here (%s): full_tmpfs not run\n", strerror(errno));
        rmdir(mnt);
        free(mnt);
        return;
    }
    full_fs(mnt, 0); /* tmpfs has no O_DIRECT */
    ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
    rmdir(mnt);
    free(mnt);
}
END_TEST

START_TEST(full_ext4)
{
    if (!tu_is_root() || system("command -v mkfs.ext4 > /dev/null 2>&1") != 0 || !private_mounts()) {
        fprintf(stderr, "note: full_ext4 needs root (a mount namespace, a loop device) and mkfs.ext4\n");
        return;
    }
    char *mnt = tu_mkdtemp("hostile-ext4");
    char img[4096], cmd[8400];
    snprintf(img, sizeof img, "%s.img", mnt);
    snprintf(cmd, sizeof cmd,
             "truncate -s 32M '%s' && mkfs.ext4 -q -F -b 4096 -O ^has_journal '%s' && mount -o loop '%s' '%s'", img,
             img, img, mnt);
    if (system(cmd) != 0) {
        fprintf(stderr, "note: cannot mount a loop ext4 here: full_ext4 not run\n");
        unlink(img);
        rmdir(mnt);
        free(mnt);
        return;
    }
    full_fs(mnt, 1);
    ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
    unlink(img);
    rmdir(mnt);
    free(mnt);
}
END_TEST

/* The one JSON string writer: valid UTF-8 passes as it is, every byte that
 * is not part of a well-formed sequence becomes \ufffd, control characters
 * \u00XX; whatever goes in, the output is valid UTF-8 our parser reads. */
START_TEST(json_writer_utf8)
{
    static const struct { const char *in, *out; } cases[] = {
        {"plain", "\"plain\""},
        {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\""},
        {"a\xff" "b", "\"a\\ufffdb\""},                        /* never valid */
        {"\x80", "\"\\ufffd\""},                                /* stray continuation */
        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},                     /* overlong '/' */
        {"\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\""},          /* overlong, 3 bytes */
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},          /* surrogate U+D800 */
        {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* above U+10FFFF */
        {"x\xe2\x82", "\"x\\ufffd\\ufffd\""},                   /* cut short at the end */
        {"\xe2\x82y", "\"\\ufffd\\ufffdy\""},                   /* cut short inside */
        {"\x01\x1f\t\"\\", "\"\\u0001\\u001f\\u0009\\\"\\\\\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nvb__buf b = {0};
        nvb__json_write_str(&b, cases[i].in);
        ck_assert_msg(!b.oom && b.s, "case %zu", i);
        ck_assert_msg(!strcmp(b.s, cases[i].out), "case %zu: wrote %s, expected %s", i, b.s, cases[i].out);
        ck_assert_msg(nvb__utf8_valid(b.s), "case %zu: output is not UTF-8", i);
        ck_assert_int_eq(nvb__utf8_valid(cases[i].in), i < 2 || i == 10);
        struct nvb__jv *v = NULL;
        ck_assert_msg(nvb__json_parse(b.s, b.len, &v, NULL, 0) == 0, "case %zu: %s does not parse", i, b.s);
        ck_assert_int_eq(v->type, NVB__J_STR);
        if (i < 2)
            ck_assert_str_eq(v->s, cases[i].in);
        nvb__json_free(v);
        free(b.s);
    }
}
END_TEST

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Warnings that quote a long path are kept whole: they were cut at 256
 * bytes (the plan's) and 512 (the result's), mid-word, their advice lost. */
START_TEST(long_path_warnings_whole)
{
    char *base = tu_mkdtemp("hostile long");
    char dir[4096], comp[201];
    memset(comp, 'd', 200);
    comp[200] = 0;
    snprintf(dir, sizeof dir, "%s", base);
    while (strlen(dir) < 700) {
        size_t n = strlen(dir);
        snprintf(dir + n, sizeof dir - n, "/%s", comp);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
    }
    size_t n = strlen(dir);
    snprintf(dir + n, sizeof dir - n, "/last\xff");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    ck_assert_uint_gt(strlen(dir), 700);
    struct outcome o = run((const char *[]){"engine", "psync", "direct", "0", "ios", "10", "size", "64k", "offset", "4k",
                                            NULL},
                           (const char *[]){dir, NULL});
    ck_assert_msg(o.rc == 0, "%s", o.msg);
    ck_assert_ptr_nonnull(o.json);
    ck_assert_msg(strstr(o.json, "last\\ufffd') has bytes that are not UTF-8: the JSON shows each of them as U+FFFD\""),
                  "the UTF-8 warning is cut: %s", strstr(o.json, "\"warnings\""));
    ck_assert_msg(strstr(o.json, "last\\ufffd': the scratch file is the region\""), "the offset warning is cut: %s",
                  strstr(o.json, "\"warnings\""));
    done(&o);
    tu_sh("rm -rf '%s'", base);
    free(base);
}
END_TEST

/* A target and a name= value with bytes that are not UTF-8: the run's JSON
 * is valid UTF-8, parses (by our own parser too), shows U+FFFD for them and
 * warns about each string. */
START_TEST(not_utf8_names)
{
    char *base = tu_mkdtemp("hostile utf8");
    char dir[4096];
    /* never valid, overlong, surrogate, above U+10FFFF, cut short */
    snprintf(dir, sizeof dir, "%s/bad\xff\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82", base);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    struct outcome o = run((const char *[]){"engine", "null", "ios", "10", "name", "job\xfe\x80", NULL},
                           (const char *[]){dir, NULL});
    ck_assert_msg(o.rc == 0, "%s", o.msg);
    ck_assert_ptr_nonnull(o.json);
    ck_assert_msg(nvb__utf8_valid(o.json), "the JSON is not UTF-8");
    json_is_clean(o.json);
    const char *shown = "bad\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"";
    ck_assert_msg(strstr(o.json, shown), "target not shown with U+FFFD in %.1500s", o.json);
    ck_assert_msg(strstr(o.json, "\"name\":\"job\\ufffd\\ufffd\""), "name not shown with U+FFFD in %.1500s", o.json);
    ck_assert_int_eq(count_of(o.json, "target 0 ("), 1);
    ck_assert_int_eq(count_of(o.json, "name= value"), 1);
    ck_assert_int_eq(count_of(o.json, "not UTF-8: the JSON shows each of them as U+FFFD"), 2);

    /* our own parser reads it, and writes back what it read (U+FFFD now
     * as the character itself) */
    struct nvb_result *r = NULL;
    char why[256];
    ck_assert_msg(nvb_result_parse(o.json, strlen(o.json), &r, why, sizeof why) == 0, "%s", why);
    char *again = NULL;
    ck_assert_int_eq(nvb_result_json(r, &again), 0);
    ck_assert_msg(count_of(again, "bad\xef\xbf\xbd") == 4 && count_of(again, "not UTF-8") == 2, "%.1500s", again);
    nvb_free(again);
    nvb_result_free(r);
    done(&o);

    /* a refused run (no such target) still writes valid JSON with the warning */
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/missing\xff", base);
    o = run((const char *[]){"engine", "null", "ios", "10", NULL}, (const char *[]){missing, NULL});
    ck_assert_int_lt(o.rc, 0);
    if (o.json) {
        ck_assert_msg(nvb__utf8_valid(o.json), "the JSON is not UTF-8");
        ck_assert_msg(strstr(o.json, "missing\\ufffd") && count_of(o.json, "not UTF-8") == 1, "%.1500s", o.json);
    }
    done(&o);
    rmdir(dir);
    rmdir(base);
    free(base);
}
END_TEST

/* Discovery writes device strings (here a model) through the same writer. */
START_TEST(not_utf8_device_strings)
{
    char *base = tu_mkdtemp("hostile-sysfs");
    char cmd[8192], model[4096];
    snprintf(cmd, sizeof cmd, "cp -a '%s/tests/data/sysfs/vm/.' '%s/'", NVB_SOURCE_DIR, base);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(model, sizeof model, "%s/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/model", base);
    FILE *f = fopen(model, "w");
    ck_assert_ptr_nonnull(f);
    fputs("QEMU\xff\xc0\x80\x01HARDDISK\n", f);
    fclose(f);
    char root[4200], *json = NULL;
    snprintf(root, sizeof root, "%s/sys", base);
    ck_assert_int_eq(nvb_devices_json(root, &json), 0);
    ck_assert_msg(nvb__utf8_valid(json), "discovery JSON is not UTF-8");
    ck_assert_msg(strstr(json, "QEMU\\ufffd\\ufffd\\ufffd\\u0001HARDDISK"), "model not escaped in %s", json);
    struct nvb__jv *v = NULL;
    char why[256];
    ck_assert_msg(nvb__json_parse(json, strlen(json), &v, why, sizeof why) == 0, "%s", why);
    nvb__json_free(v);
    nvb_free(json);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    ck_assert_int_eq(system(cmd), 0);
    free(base);
}
END_TEST

/* The current resident set, and the peak since the last reset, in bytes
 * (/proc/self/status VmRSS, VmHWM). */
static long long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':')
            v = atoll(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

/* Peak memory of nvb_result_parse() over text, beyond what the process held
 * before: the kernel's high-water mark, reset first (clear_refs "5"). A
 * count of pages, not a clock, so the figure is the same on a busy machine. */
static long long parse_peak(const char *text, size_t len, int expect_ok)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f || fputs("5", f) < 0 || fclose(f) != 0)
        return -1;
    long long before = status_kib("VmRSS");
    struct nvb_result *r = NULL;
    char why[256];
    int rc = nvb_result_parse(text, len, &r, why, sizeof why);
    long long peak = status_kib("VmHWM");
    ck_assert_msg(expect_ok ? rc == 0 : rc == -EINVAL, "rc %d: %s", rc, why);
    nvb_result_free(r);
    return (peak - before) * 1024;
}

/* A valid result (json) whose time series is replaced by intervals that
 * fill about n bytes, each with sparse lat histograms at the two ends of the
 * bucket range (the loader once built each from a dense array of every
 * bucket). The length of the text in t. */
static size_t sparse_series(char *t, const char *json, size_t n)
{
    const char *ts = strstr(json, "\"timeseries\":["), *after = ts ? strstr(ts, "],\"precondition\"") : NULL;
    ck_assert_msg(ts && after, "no time series in %.500s", json);
    size_t len = (size_t)(ts - json) + strlen("\"timeseries\":[");
    memcpy(t, json, len);
    for (unsigned i = 0; len < n; i++)
        len += (size_t)sprintf(t + len, "%s{\"t_s\":%u,\"dt_s\":1,\"errors\":0,\"system_pct\":null,\"read\":{\"ios\":2,"
                               "\"bytes\":8192,\"lat_sum_ns\":3000,\"lat_hist\":{\"count\":2,\"buckets\":[[0,1],[%u,1]]}},"
                               "\"write\":{\"ios\":1,\"bytes\":4096,\"lat_sum_ns\":1000,\"lat_hist\":{\"count\":1,"
                               "\"buckets\":[[%u,1]]}}}", i ? "," : "", i + 1, NVB__HIST_BUCKETS - 1, NVB__HIST_BUCKETS - 1);
    memcpy(t + len, after, strlen(after) + 1);
    return len + strlen(after);
}

/* The result parser's memory is bounded by a small multiple of its input,
 * whatever the shape: a 4 MiB member nobody reads once cost 36 bytes per
 * byte (a node and a malloc per value, arrays grown by doubling). The
 * densest text now, a flat [0,0,...], costs a 24-byte node per 2 bytes plus
 * the number itself: 13x. The bound leaves room above that for the
 * allocator, not for another amplification. */
START_TEST(parser_memory_bound)
{
    /* Under valgrind or ASan the figure would measure the tool, not the parser. */
    if (tu_under_memory_tool()) {
        fprintf(stderr, "parser_memory_bound: under valgrind or ASan, not measured\n");
        return;
    }
    const size_t n = 4u << 20;
    char *t = malloc(n + 16384);
    ck_assert_ptr_nonnull(t);
    /* a valid result, to put a big member into its workload */
    struct outcome o = run((const char *[]){"engine", "null", "ios", "10", NULL}, (const char *[]){"/dev/null", NULL});
    ck_assert_msg(o.rc == 0 && o.json && strlen(o.json) < 16384 - 64, "%s", o.msg);
    const char *wl = strstr(o.json, "\"workload\":{");
    ck_assert_ptr_nonnull(wl);
    size_t head = (size_t)(wl - o.json) + strlen("\"workload\":{");
    for (int shape = 0; shape < 7; shape++) {
        size_t len = 0;
        if (shape >= 5) { /* a time series of sparse histograms; arrays nested 4 Mi deep */
            len = shape == 5 ? sparse_series(t, o.json, n) : n;
            if (shape == 6)
                memset(t, '[', n);
            goto measure;
        }
        if (shape == 4) {
            memcpy(t, o.json, head);
            len = head;
            len += (size_t)sprintf(t + len, "\"junk\":[");
        } else {
            len += (size_t)sprintf(t, "{\"junk\":%s", shape == 3 ? "{" : "[");
        }
        size_t start = len;
        while (len - start < n) {
            switch (shape) {
            case 0: case 4: memcpy(t + len, "0,", 2); len += 2; break;    /* flat numbers */
            case 1: memcpy(t + len, "[],", 3); len += 3; break;           /* empty arrays */
            case 2: memcpy(t + len, "\"\",", 3); len += 3; break;         /* empty strings */
            case 3: len += (size_t)sprintf(t + len, "\"%zx\":0,", len); break; /* members */
            }
        }
        len--; /* the last comma */
        len += (size_t)sprintf(t + len, shape == 3 ? "}}" : "]}");
        if (shape == 4) {
            t[len - 1] = ',';
            size_t rest = strlen(o.json + head);
            memcpy(t + len, o.json + head, rest + 1);
            len += rest;
        }
    measure:;
        long long peak = parse_peak(t, len, shape == 4 || shape == 5);
        if (peak < 0) {
            fprintf(stderr, "parser_memory_bound: no /proc/self/clear_refs, not measured\n");
            break;
        }
        fprintf(stderr, "parser_memory_bound: shape %d: %zu bytes of JSON, peak %lld bytes (%.1fx)\n", shape, len,
                peak, (double)peak / (double)len);
        ck_assert_msg(peak <= 16 * (long long)len + (8 << 20), "shape %d: peak %lld bytes for %zu bytes of JSON",
                      shape, peak, len);
    }
    done(&o);
    free(t);
}
END_TEST

int main(void)
{
    for (int i = 0; i < nvb_engine_count(); i++) {
        const char *n = nvb_engine_name(i);
        char why[256];
        if (!strcmp(n, "null") || !strcmp(n, "nvme"))
            continue;
        if (nvb_engine_probe(n, why, sizeof why) == 0)
            g_engines[g_n++] = n;
    }
    /* O_DIRECT under the test directory? */
    char *probe = tu_scratch("hostile-probe", 1 << 20);
    int fd = open(probe, O_RDONLY | O_DIRECT);
    if (fd < 0)
        g_direct = 0;
    else
        close(fd);
    unlink(probe);
    free(probe);
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("hostile");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, odd_path_names);
    tcase_add_test(tc, symlinks);
    tcase_add_test(tc, fifo_and_dev_null);
    tcase_add_test(tc, sizes_at_two_to_the_63);
    tcase_add_test(tc, read_only_file);
    tcase_add_test(tc, full_tmpfs);
    tcase_add_test(tc, full_ext4);
    tcase_add_test(tc, json_writer_utf8);
    tcase_add_test(tc, not_utf8_names);
    tcase_add_test(tc, long_path_warnings_whole);
    tcase_add_test(tc, not_utf8_device_strings);
    tcase_add_test(tc, parser_memory_bound);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    return failed ? 1 : 0;
}
