/* The write guard must hold (docs/devices.md, docs/reliability.md): the
 * ways it was walked past, each made deterministic, on loop devices and
 * files this test makes itself (the five of the first audit, then stacks
 * over a device claimed or held below the target, a verifier beside a
 * writer through the stack, job groups whose targets share a layer, a
 * backing file deleted while attached). Every case where something could
 * be written asserts the bytes of the device or file that must not be (a
 * checksum read with O_DIRECT), not only the return code.
 *
 * "In use" is an active swap area wherever that proves the same thing as
 * a mounted file system: a failing case then cannot leave a corrupted
 * mount behind. Needs root (losetup, swapon); skipped otherwise. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

#define MAX_CLEAN 8
static char g_swap[MAX_CLEAN][256], g_loop[MAX_CLEAN][64];
static pid_t g_mounter; /* holds a mount in a namespace of its own */

static void stop_mounter(void)
{
    if (g_mounter > 0) {
        kill(g_mounter, SIGKILL);
        waitpid(g_mounter, NULL, 0);
    }
    g_mounter = 0;
}

static void cleanup(void)
{
    stop_mounter();
    for (int i = 0; i < MAX_CLEAN; i++) {
        if (g_swap[i][0])
            swapoff(g_swap[i]);
        g_swap[i][0] = 0;
    }
    for (int i = MAX_CLEAN - 1; i >= 0; i--) {
        if (g_loop[i][0])
            tu_sh("losetup -d %s", g_loop[i]);
        g_loop[i][0] = 0;
    }
}

/* A failed assertion ends a case before its cleanup runs (and in a forked
 * child, whose lists the suite never sees): the suite's own teardown, run
 * in the parent after every case, finds what the cases left by name.
 * Everything a case makes lives under tu_tmpdir()/guard-*, so what is ours
 * is a swap area or a loop device backed, through any number of loop
 * devices, by a file there. */
static int ours(const char *name, int depth)
{
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s/guard-", tu_tmpdir());
    if (!strncmp(name, prefix, strlen(prefix)))
        return 1;
    if (depth > 8 || strncmp(name, "/dev/loop", 9))
        return 0;
    /* a partition (loop3p1) is its disk's: that is what is attached */
    char disk[64];
    snprintf(disk, sizeof disk, "%s", name + 5);
    char *pp = strchr(disk + 4, 'p');
    if (pp)
        *pp = 0;
    char p[128], back[512] = "";
    snprintf(p, sizeof p, "/sys/block/%s/loop/backing_file", disk);
    FILE *f = fopen(p, "re");
    if (!f)
        return 0;
    if (fgets(back, sizeof back, f))
        back[strcspn(back, "\n")] = 0;
    fclose(f);
    return back[0] && ours(back, depth + 1);
}

static void sweep(void)
{
    FILE *f = fopen("/proc/swaps", "re");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        char name[512];
        if (sscanf(line, "%511s", name) == 1 && ours(name, 0))
            swapoff(name);
    }
    if (f)
        fclose(f);
    /* stacked loop devices first: a loop device backs nothing when no
     * attached loop device names it as its backing */
    for (int pass = 0; pass < 8; pass++) {
        int left = 0;
        for (int i = 0; i < 256; i++) {
            char dev[32], p[96], back[512];
            snprintf(dev, sizeof dev, "/dev/loop%d", i);
            if (!ours(dev, 0))
                continue;
            int busy = 0;
            for (int k = 0; k < 256 && !busy; k++) {
                snprintf(p, sizeof p, "/sys/block/loop%d/loop/backing_file", k);
                FILE *b = fopen(p, "re");
                if (!b)
                    continue;
                busy = fgets(back, sizeof back, b) && !strncmp(back, dev, strlen(dev)) &&
                       (back[strlen(dev)] == '\n' || !back[strlen(dev)]);
                fclose(b);
            }
            if (busy)
                left++;
            else
                tu_sh("losetup -d %s", dev);
        }
        if (!left)
            break;
    }
}

/* losetup on a file or a device; the test fails when none can be had. */
static void attach(const char *backing, char *dev, size_t len)
{
    ck_assert_msg(tu_losetup(backing, dev, len) == 0, "losetup -f --show %s failed", backing);
    for (int i = 0; i < MAX_CLEAN; i++)
        if (!g_loop[i][0]) {
            snprintf(g_loop[i], sizeof g_loop[i], "%s", dev);
            break;
        }
}

/* Detach one loop device attach() made, before the rest. */
static void detach(const char *dev)
{
    for (int i = 0; i < MAX_CLEAN; i++)
        if (!strcmp(g_loop[i], dev)) {
            tu_sh("losetup -d %s", dev);
            g_loop[i][0] = 0;
        }
}

static void make_swap(const char *path)
{
    ck_assert_int_eq(tu_sh("mkswap -q '%s'", path), 0);
    ck_assert_msg(swapon(path, 0) == 0, "swapon %s: %s", path, strerror(errno));
    tu_remember(g_swap, MAX_CLEAN, path);
}

/* FNV-1a over len bytes at off, read with O_DIRECT (no stale page cache). */
static uint64_t sum_at(const char *path, off_t off, size_t len)
{
    int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
    ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
    void *buf;
    ck_assert_int_eq(posix_memalign(&buf, 4096, len), 0);
    ssize_t n = pread(fd, buf, len, off);
    close(fd);
    ck_assert_msg(n > 0, "read %s: %s", path, strerror(errno));
    uint64_t h = 0xcbf29ce484222325ull;
    for (ssize_t i = 0; i < n; i++)
        h = (h ^ ((unsigned char *)buf)[i]) * 0x100000001b3ull;
    free(buf);
    return h;
}

static uint64_t sum_first(const char *path, size_t len)
{
    return sum_at(path, 0, len);
}

static uint64_t sum1m(const char *path)
{
    return sum_first(path, 1 << 20);
}

/* An active swap area is written by the kernel whenever it pages memory
 * out (a busy machine did, during these tests), so its contents beyond
 * the header prove nothing. Its first page, the swap header, is the one
 * page the kernel never writes while the area is active, and every write
 * the runs below could make starts at offset 0 (rw=write, no offset). */
static uint64_t sum_swap_header(const char *path)
{
    return sum_first(path, 4096);
}

static char *path_in(const char *dir, const char *name);

/* An image under dir, attached, and made active swap: the "in use" device. */
static char *swap_device(const char *dir, char *dev, size_t len)
{
    char *img = path_in(dir, "dev.img");
    ck_assert_int_eq(tu_sh("truncate -s 16M '%s'", img), 0);
    attach(img, dev, len);
    make_swap(dev);
    return img;
}

static char *path_in(const char *dir, const char *name)
{
    char *p;
    ck_assert_int_ge(asprintf(&p, "%s/%s", dir, name), 0);
    return p;
}

/* A file of mib MiB of random bytes (so a write shows in its checksum). */
static char *random_file(const char *dir, const char *name, int mib)
{
    char *p = path_in(dir, name);
    ck_assert_int_eq(tu_sh("dd if=/dev/urandom of='%s' bs=1M count=%d status=none", p, mib), 0);
    return p;
}

struct outcome {
    int rc;
    char msg[1024];
};

static struct outcome run(const char *const *kv, const char *const *targets, const struct nvb_run_opts *o)
{
    struct outcome out;
    memset(&out, 0, sizeof out);
    struct nvb_workload *w = tu_workload(kv, targets);
    struct nvb_result *r = NULL;
    out.rc = nvb_run(w, o, &r);
    snprintf(out.msg, sizeof out.msg, "%s", r ? nvb_result_error(r) : "");
    nvb_result_free(r);
    nvb_workload_free(w);
    return out;
}

static void expect_refused(const struct outcome *o, int rc, const char *const *words)
{
    ck_assert_msg(o->rc == rc, "rc %d (%s), expected %d: %s", o->rc, strerror(-o->rc), rc, o->msg);
    for (; words && *words; words++)
        ck_assert_msg(strstr(o->msg, *words), "no '%s' in: %s", *words, o->msg);
}

/* Run options that call poll(arg) every millisecond (the layout and the
 * run poll alike). */
static struct nvb_run_opts polling(int (*poll)(void *), void *arg)
{
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.poll = poll;
    o.poll_arg = arg;
    o.poll_ms = 1;
    return o;
}

/* ---- 1. check-then-open: the name is swapped after it was judged ---- */

struct swap_ctx {
    const char *file, *aside, *device;
    int done, calls;
};

/* Replace file by a symlink to device (the original kept aside). */
static void swap_to_device(struct swap_ctx *s)
{
    if (s->done)
        return;
    s->done = 1;
    ck_assert_int_eq(rename(s->file, s->aside), 0);
    ck_assert_int_eq(symlink(s->device, s->file), 0);
}

static int swap_in_poll(void *arg)
{
    struct swap_ctx *s = arg;
    s->calls++;
    swap_to_device(s);
    return 0;
}

/* The hold logs "opening N targets" at debug level just before it opens
 * them: after planning judged the names, before anything is opened. */
static void swap_in_log(int level, const char *msg, void *arg)
{
    if (level == 3 && !strncmp(msg, "opening ", 8))
        swap_to_device(arg);
}

START_TEST(race_during_layout)
{
    /* A directory target's scratch-file layout is the long window; the
     * regular-file target is swapped for a symlink to an active swap
     * device during it. The jobs must write the file that was judged. */
    char *dir = tu_mkdtemp("guard-race");
    char dev[64];
    char *img = swap_device(dir, dev, sizeof dev);
    char *f = random_file(dir, "f.dat", 32), *aside = path_in(dir, "f.orig"), *sub = path_in(dir, "scratch");
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    uint64_t dev0 = sum_swap_header(dev), f0 = sum1m(f);
    struct swap_ctx s = {f, aside, dev, 0, 0};
    struct nvb_run_opts o = polling(swap_in_poll, &s);
    const char *kv[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "256", "size", "32M",
                        "allow_destructive", "1", NULL};
    const char *tg[] = {sub, f, NULL};
    struct outcome out = run(kv, tg, &o);
    ck_assert_msg(s.done, "the layout never polled: the window was not exercised");
    ck_assert_msg(out.rc == 0, "rc %d: %s", out.rc, out.msg);
    ck_assert_msg(sum_swap_header(dev) == dev0, "the swap device behind the swapped name was written");
    ck_assert_msg(sum1m(aside) != f0, "the file that was judged was not written");
    cleanup();
    free(img);
    free(f);
    free(aside);
    free(sub);
    free(dir);
}
END_TEST

START_TEST(race_before_open)
{
    /* The name changes between planning and opening: refused, with a
     * message that says so, and nothing written. */
    char *dir = tu_mkdtemp("guard-race2");
    char dev[64];
    char *img = swap_device(dir, dev, sizeof dev);
    char *f = random_file(dir, "f.dat", 2), *aside = path_in(dir, "f.orig");
    uint64_t dev0 = sum_swap_header(dev), f0 = sum1m(f);
    struct swap_ctx s = {f, aside, dev, 0, 0};
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.log = swap_in_log;
    o.log_arg = &s;
    const char *kv[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "1", "allow_destructive", "1", NULL};
    const char *tg[] = {f, NULL};
    struct outcome out = run(kv, tg, &o);
    ck_assert_msg(s.done, "the hold did not log before opening");
    const char *words[] = {"changed between planning and opening", "block device", NULL};
    expect_refused(&out, -ESTALE, words);
    ck_assert_msg(sum_swap_header(dev) == dev0, "the device was written");
    ck_assert_msg(sum1m(aside) == f0, "the refused run wrote the original file");
    cleanup();
    free(img);
    free(f);
    free(aside);
    free(dir);
}
END_TEST

START_TEST(race_flip_loop)
{
    /* The reported attack: a name flipped between a hard link to a file
     * and a symlink to an in-use device while short write runs repeat.
     * Whatever the interleaving, the device is never written. */
    char *dir = tu_mkdtemp("guard-flip");
    char dev[64];
    char *img = swap_device(dir, dev, sizeof dev);
    char *f = random_file(dir, "real.dat", 1), *name = path_in(dir, "t.dat"), *tmp = path_in(dir, "t.tmp");
    ck_assert_int_eq(link(f, name), 0);
    uint64_t dev0 = sum_swap_header(dev);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* the flipper: atomic renames, so the name always exists */
        for (unsigned i = 0;; i++) {
            unlink(tmp);
            if (i % 2 ? link(f, tmp) : symlink(dev, tmp))
                continue;
            rename(tmp, name);
        }
    }
    const char *kv[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "1", "allow_destructive", "1", NULL};
    const char *tg[] = {name, NULL};
    int ok = 0, refused = 0;
    for (int i = 0; i < 200; i++) {
        struct outcome out = run(kv, tg, NULL);
        if (out.rc == 0)
            ok++;
        else
            refused++;
        ck_assert_msg(out.rc == 0 || out.rc == -EBUSY || out.rc == -ESTALE || out.rc == -ENOENT,
                      "unexpected rc %d: %s", out.rc, out.msg);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    ck_assert_msg(sum_swap_header(dev) == dev0, "the in-use device was written (%d runs completed, %d refused)", ok, refused);
    cleanup();
    free(img);
    free(f);
    free(name);
    free(tmp);
    free(dir);
}
END_TEST

/* ---- 2. the exclusive open is held for the whole run ---- */

struct swapon_ctx {
    const char *dev;
    int tries, succeeded, last_errno;
};

static int swapon_in_poll(void *arg)
{
    struct swapon_ctx *s = arg;
    s->tries++;
    if (swapon(s->dev, 0) == 0) {
        s->succeeded++;
        swapoff(s->dev);
    } else {
        s->last_errno = errno;
    }
    return 0;
}

START_TEST(excl_held_through_layout)
{
    /* An unused device with a swap signature, written with
     * allow_destructive=1 beside a directory target: while the layout and
     * the run go on, the device cannot be made active swap (as it could
     * be mounted before: the claim was dropped before the run). */
    char *dir = tu_mkdtemp("guard-excl");
    char *img = path_in(dir, "dev.img");
    ck_assert_int_eq(tu_sh("truncate -s 32M '%s'", img), 0);
    char dev[64];
    attach(img, dev, sizeof dev);
    ck_assert_int_eq(tu_sh("mkswap -q %s", dev), 0);
    char *sub = path_in(dir, "scratch");
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    struct swapon_ctx s = {dev, 0, 0, 0};
    struct nvb_run_opts o = polling(swapon_in_poll, &s);
    const char *kv[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "ios", "2048", "size", "32M",
                        "allow_destructive", "1", NULL};
    const char *tg[] = {sub, dev, NULL};
    struct outcome out = run(kv, tg, &o);
    ck_assert_msg(out.rc == 0, "rc %d: %s", out.rc, out.msg);
    ck_assert_msg(s.tries > 0, "never polled");
    ck_assert_msg(s.succeeded == 0, "swapon succeeded %d of %d times while the run held the device", s.succeeded,
                  s.tries);
    ck_assert_int_eq(s.last_errno, EBUSY);
    cleanup();
    free(img);
    free(sub);
    free(dir);
}
END_TEST

/* ---- 3. the backing file of a loop device in use ---- */

START_TEST(loop_backing_file)
{
    char *dir = tu_mkdtemp("guard-back");
    char *img = random_file(dir, "fs.img", 16);
    char dev[64];
    attach(img, dev, sizeof dev);
    const char *kv[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "64", "allow_destructive", "1", NULL};
    const char *tg[] = {img, NULL};
    /* attached but unused: still in use by the loop driver */
    struct outcome out = run(kv, tg, NULL);
    const char *w1[] = {"in use", "backs", dev, "losetup -d", NULL};
    expect_refused(&out, -EBUSY, w1);
    /* active swap on the loop device: the chain is named */
    make_swap(dev);
    uint64_t f0 = sum_swap_header(img);
    out = run(kv, tg, NULL);
    const char *w2[] = {"backs", dev, "active swap", "allow_destructive", NULL};
    expect_refused(&out, -EBUSY, w2);
    /* a run that verifies is refused the same way (it writes) */
    const char *kvv[] = {"engine", "psync", "rw", "randrw", "bs", "4k", "ios", "64", "verify", "1",
                         "allow_destructive", "1", NULL};
    out = run(kvv, tg, NULL);
    expect_refused(&out, -EBUSY, w2);
    ck_assert_msg(sum_swap_header(img) == f0, "the backing file was written");
    /* a plain read is never blocked */
    const char *kr[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "64", NULL};
    out = run(kr, tg, NULL);
    ck_assert_msg(out.rc == 0, "read refused: %s", out.msg);
    cleanup();
    free(img);
    free(dir);
}
END_TEST

/* ---- 4. stacked devices ---- */

START_TEST(stacked_loops)
{
    /* a.img -> la (active swap) -> lb -> lc */
    char *dir = tu_mkdtemp("guard-stack");
    char *img = path_in(dir, "a.img");
    ck_assert_int_eq(tu_sh("truncate -s 16M '%s'", img), 0);
    char la[64], lb[64], lc[64];
    attach(img, la, sizeof la);
    make_swap(la);
    attach(la, lb, sizeof lb);
    attach(lb, lc, sizeof lc);
    uint64_t a0 = sum_swap_header(la);
    const char *kv[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "64", "allow_destructive", "1", NULL};
    const char *t1[] = {lb, NULL};
    struct outcome out = run(kv, t1, NULL);
    const char *w1[] = {lb, "is backed by", la, "active swap", NULL};
    expect_refused(&out, -EBUSY, w1);
    const char *t2[] = {lc, NULL};
    out = run(kv, t2, NULL);
    const char *w2[] = {lc, "is backed by", lb, la, "active swap", NULL};
    expect_refused(&out, -EBUSY, w2);
    ck_assert_msg(sum_swap_header(la) == a0, "the in-use device under the stack was written");
    /* downward is refused too: lb backs lc */
    swapoff(la);
    g_swap[0][0] = 0;
    out = run(kv, t1, NULL);
    const char *w3[] = {lb, "backs", lc, NULL};
    expect_refused(&out, -EBUSY, w3);
    /* the top of an otherwise unused stack may be written, when allowed */
    out = run(kv, t2, NULL);
    ck_assert_msg(out.rc == 0, "rc %d: %s", out.rc, out.msg);
    cleanup();
    free(img);
    free(dir);
}
END_TEST

/* ---- 5. two writers ---- */

struct second_ctx {
    const char *target, *second; /* the second runs' name for it: target, or an alias */
    struct outcome writer, verifier, reader;
    int done;
};

static int second_runs(void *arg)
{
    struct second_ctx *s = arg;
    if (s->done)
        return 1;
    s->done = 1;
    const char *tg[] = {s->second ? s->second : s->target, NULL};
    const char *kw[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "ios", "16", "allow_destructive", "1",
                        NULL};
    s->writer = run(kw, tg, NULL);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "16", "verify", "1", NULL};
    s->verifier = run(kv, tg, NULL);
    const char *kr[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "16", NULL};
    s->reader = run(kr, tg, NULL);
    return 1; /* end the first run */
}

/* A writer on target for up to a minute whose poll hook runs poll(arg)
 * (which starts the runs beside it, then ends it): it must have polled
 * (*done) and ended cancelled. */
static void first_writer(const char *target, int (*poll)(void *), void *arg, const int *done)
{
    struct nvb_run_opts o = polling(poll, arg);
    const char *kv[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "runtime", "60s", "allow_destructive",
                        "1", NULL};
    const char *tg[] = {target, NULL};
    struct outcome first = run(kv, tg, &o);
    ck_assert_msg(*done, "the writer on %s never polled", target);
    ck_assert_msg(first.rc == -ECANCELED, "writer on %s: rc %d: %s", target, first.rc, first.msg);
}

static void two_writers_on(const char *target, const char *second)
{
    struct second_ctx s;
    memset(&s, 0, sizeof s);
    s.target = target;
    s.second = second;
    first_writer(target, second_runs, &s, &s.done);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
    const char *w[] = {"in use by another run", pid, NULL};
    expect_refused(&s.writer, -EBUSY, w);
    expect_refused(&s.verifier, -EBUSY, w);
    ck_assert_msg(s.reader.rc == 0, "a plain read was blocked: %s", s.reader.msg);
}

START_TEST(two_writers)
{
    char *dir = tu_mkdtemp("guard-two");
    char *f = random_file(dir, "f.dat", 8);
    two_writers_on(f, NULL);
    char *img = path_in(dir, "dev.img");
    ck_assert_int_eq(tu_sh("truncate -s 16M '%s'", img), 0);
    char dev[64];
    attach(img, dev, sizeof dev);
    two_writers_on(dev, NULL);
    cleanup();
    free(f);
    free(img);
    free(dir);
}
END_TEST

START_TEST(two_writers_alias_node)
{
    /* One device, two nodes (mknod here, a container's own /dev, a
     * chroot): a lock on one node's inode says nothing on the other's, so
     * a verifier through the alias ran beside a writer and reported the
     * writer's data as mismatches. */
    char *dir = tu_mkdtemp("guard-alias");
    char *img = path_in(dir, "dev.img"), *node = path_in(dir, "node");
    ck_assert_int_eq(tu_sh("truncate -s 16M '%s'", img), 0);
    char dev[64];
    attach(img, dev, sizeof dev);
    struct stat st;
    ck_assert_int_eq(stat(dev, &st), 0);
    ck_assert_int_eq(mknod(node, S_IFBLK | 0600, st.st_rdev), 0);
    two_writers_on(dev, node);
    two_writers_on(node, dev);
    /* a verifier through the alias holds the device: a writer through the
     * kernel's node is refused, and writes nothing */
    const char *kw[] = {"engine", "psync", "rw", "write", "bs", "4k", "verify", "1", "allow_destructive", "1",
                        NULL};
    const char *tn[] = {node, NULL}, *td[] = {dev, NULL};
    struct outcome out = run(kw, td, NULL);
    ck_assert_msg(out.rc == 0, "rc %d: %s", out.rc, out.msg);
    uint64_t d0 = sum1m(dev);
    struct second_ctx s;
    memset(&s, 0, sizeof s);
    s.target = dev;
    struct nvb_run_opts o = polling(second_runs, &s);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "size", "1M", "runtime", "60s",
                        "verify", "1", NULL};
    out = run(kv, tn, &o);
    ck_assert_msg(s.done, "the verifier never polled");
    ck_assert_msg(out.rc == -ECANCELED, "verifier: rc %d: %s", out.rc, out.msg);
    const char *w[] = {"in use by another run", NULL};
    expect_refused(&s.writer, -EBUSY, w);
    ck_assert_msg(s.verifier.rc == 0, "two verifiers on one device: %s", s.verifier.msg);
    ck_assert_msg(s.reader.rc == 0, "a plain read was blocked: %s", s.reader.msg);
    ck_assert_msg(sum1m(dev) == d0, "the refused writer wrote the verified device");
    cleanup();
    unlink(node);
    free(node);
    free(img);
    free(dir);
}
END_TEST

/* Partitions: a run on a partition locks its byte range of the disk too, so
 * a run through the whole disk that overlaps it conflicts, and one on the
 * other partition does not. This kernel reads no partition table itself
 * (no parsers built in), so the partitions are added with partx (BLKPG). */
struct part_ctx {
    const char *disk, *other;
    struct outcome disk_writer, disk_verifier, disk_reader, other_writer;
    uint64_t head_before, head_after;
    int done;
};

static int part_runs(void *arg)
{
    struct part_ctx *c = arg;
    if (c->done)
        return 1;
    c->done = 1;
    const char *td[] = {c->disk, NULL}, *to[] = {c->other, NULL};
    c->head_before = sum1m(c->disk);
    /* rw=write from offset 0: its first block is the partition table */
    const char *kw[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "16", "allow_destructive", "1", NULL};
    c->disk_writer = run(kw, td, NULL);
    c->head_after = sum1m(c->disk);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "16", "verify", "1", NULL};
    c->disk_verifier = run(kv, td, NULL);
    const char *kr[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "16", NULL};
    c->disk_reader = run(kr, td, NULL);
    const char *ko[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "ios", "16", "allow_destructive", "1",
                        NULL};
    c->other_writer = run(ko, to, NULL);
    return 1;
}

/* img (32 MiB), with two 8 MiB partitions at sectors 2048 and 18432 in
 * its table, attached as dev, and its partitions p1 and p2 known to the
 * kernel. */
static void attach_partitions(const char *img, char *dev, size_t len, char *p1, char *p2, size_t plen)
{
    attach(img, dev, len);
    /* -u: adds what is missing (a number just detached can still be
     * dropping its old partitions); what counts is what the kernel then has */
    tu_sh("partx -u %s", dev);
    snprintf(p1, plen, "%sp1", dev);
    snprintf(p2, plen, "%sp2", dev);
    struct stat st;
    int seen = 0; /* devtmpfs makes the nodes; bounded generously */
    for (int i = 0; i < 1000 && !seen; i++) {
        seen = stat(p1, &st) == 0 && S_ISBLK(st.st_mode) && stat(p2, &st) == 0 && S_ISBLK(st.st_mode) &&
               tu_sh("grep -qx 2048 /sys/block/%s/%sp1/start && grep -qx 18432 /sys/block/%s/%sp2/start", dev + 5,
                     dev + 5, dev + 5, dev + 5) == 0;
        if (!seen) {
            usleep(10000);
            if (i % 100 == 99)
                tu_sh("partx -u %s", dev);
        }
    }
    ck_assert_msg(seen, "partx made no %s and %s at sectors 2048 and 18432", p1, p2);
}

static void partition_table(const char *img)
{
    ck_assert_int_eq(tu_sh("printf 'label: dos\\n2048,16384\\n18432,16384\\n' | sfdisk -q '%s'", img), 0);
}

/* The same, with the table written first. */
static void two_partitions(const char *img, char *dev, size_t len, char *p1, char *p2, size_t plen)
{
    partition_table(img);
    attach_partitions(img, dev, len, p1, p2, plen);
}

START_TEST(partitions_lock_their_range)
{
    char *dir = tu_mkdtemp("guard-part");
    char *img = path_in(dir, "disk.img");
    ck_assert_int_eq(tu_sh("truncate -s 32M '%s'", img), 0);
    char dev[64], p1[80], p2[80];
    two_partitions(img, dev, sizeof dev, p1, p2, sizeof p1);
    struct part_ctx c;
    memset(&c, 0, sizeof c);
    c.disk = dev;
    c.other = p2;
    first_writer(p1, part_runs, &c, &c.done);
    const char *w[] = {"in use by another run", NULL};
    expect_refused(&c.disk_writer, -EBUSY, w);
    ck_assert_msg(c.head_after == c.head_before, "the refused writer wrote the disk's first MiB");
    expect_refused(&c.disk_verifier, -EBUSY, w);
    ck_assert_msg(c.disk_reader.rc == 0, "a plain read of the disk was blocked: %s", c.disk_reader.msg);
    ck_assert_msg(c.other_writer.rc == 0, "a writer on the other partition was refused: %s", c.other_writer.msg);
    tu_sh("partx -d %s", dev);
    cleanup();
    free(img);
    free(dir);
}
END_TEST

START_TEST(two_writers_processes)
{
    /* the same across processes: a child holds the file for writing */
    char *dir = tu_mkdtemp("guard-two-p");
    char *f = random_file(dir, "f.dat", 8);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct nvb_workload *w;
        nvb_workload_new(&w);
        nvb_workload_set(w, "engine", "psync");
        nvb_workload_set(w, "rw", "randwrite");
        nvb_workload_set(w, "runtime", "30s");
        nvb_workload_add_target(w, f);
        struct nvb_result *r;
        nvb_run(w, NULL, &r);
        _exit(0);
    }
    /* the child runs for 30 s: wait until it holds the file (its lock
     * shows in /proc/locks), bounded generously */
    int held = 0;
    for (int i = 0; i < 3000 && !held; i++) {
        held = tu_sh("grep -q OFDLCK /proc/locks") == 0 && tu_sh("ls -l /proc/%ld/fd | grep -q f.dat", (long)pid) == 0;
        if (!held)
            usleep(10000);
    }
    ck_assert_msg(held, "the child never held the file");
    const char *kw[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "ios", "16", NULL};
    const char *tg[] = {f, NULL};
    struct outcome out = run(kw, tg, NULL);
    char want[32];
    snprintf(want, sizeof want, "pid %ld", (long)pid);
    const char *w[] = {"in use by another run", want, NULL};
    expect_refused(&out, -EBUSY, w);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    free(f);
    free(dir);
}
END_TEST

/* ---- 6. a stack over a device claimed, or held by a run, below it ---- */

/* The file system on dev mounted read-only in a mount namespace of its
 * own (a container's mount: nothing in this namespace's mountinfo shows
 * it), by a process that dies with this one (g_mounter). */
static void mount_elsewhere(const char *dev, const char *dir)
{
    char *mnt = path_in(dir, "mnt"), *ready = path_in(dir, "mounted");
    ck_assert_int_eq(mkdir(mnt, 0700), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "mount -o ro '%s' '%s' && : > '%s' && exec sleep 900", dev, mnt, ready);
        execlp("unshare", "unshare", "-m", "--propagation", "private", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    g_mounter = pid;
    /* wait for the mount (the file it writes after), or the process's
     * end; bounded generously */
    struct stat st;
    int up = 0, gone = 0;
    for (int i = 0; i < 6000 && !up && !gone; i++) {
        up = stat(ready, &st) == 0;
        gone = !up && waitpid(pid, NULL, WNOHANG) == pid;
        if (!up && !gone)
            usleep(10000);
    }
    if (gone)
        g_mounter = 0;
    ck_assert_msg(up, "mounting %s in a mount namespace of its own failed", dev);
    free(mnt);
    free(ready);
}

START_TEST(stack_over_claimed)
{
    /* ext4 on l, mounted only in another mount namespace: writing l is
     * refused (the kernel has it claimed), and so must be writing a loop
     * device on l, and one on that: the layers below a target get the
     * exclusive-open test the target gets */
    if (tu_sh("command -v mkfs.ext4 && command -v e2fsck && command -v unshare") != 0) {
        fprintf(stderr, "note: needs mkfs.ext4, e2fsck and unshare; case skipped\n");
        return;
    }
    char *dir = tu_mkdtemp("guard-ns");
    char *img = path_in(dir, "fs.img");
    ck_assert_int_eq(tu_sh("truncate -s 32M '%s'", img), 0);
    char l[64], s1[64], s2[64];
    attach(img, l, sizeof l);
    ck_assert_int_eq(tu_sh("mkfs.ext4 -q -F '%s'", l), 0);
    mount_elsewhere(l, dir);
    uint64_t f0 = sum1m(l);
    const char *kv[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "64", "allow_destructive", "1", NULL};
    const char *tl[] = {l, NULL};
    struct outcome out = run(kv, tl, NULL);
    const char *w0[] = {"in use", "claimed", NULL};
    expect_refused(&out, -EBUSY, w0);
    attach(l, s1, sizeof s1);
    const char *t1[] = {s1, NULL};
    out = run(kv, t1, NULL);
    ck_assert_msg(sum1m(l) == f0, "the file system mounted in another namespace was written through %s (rc %d)",
                  s1, out.rc);
    const char *w1[] = {s1, "is backed by", l, "claimed", "allow_destructive", NULL};
    expect_refused(&out, -EBUSY, w1);
    attach(s1, s2, sizeof s2);
    const char *t2[] = {s2, NULL};
    out = run(kv, t2, NULL);
    ck_assert_msg(sum1m(l) == f0, "the file system mounted in another namespace was written through %s (rc %d)",
                  s2, out.rc);
    const char *w2[] = {s2, "is backed by", s1, l, "claimed", NULL};
    expect_refused(&out, -EBUSY, w2);
    /* planning says so (validate), before any run */
    struct nvb_workload *wl = tu_workload(kv, t2);
    ck_assert_int_eq(nvb_workload_validate(wl), -EBUSY);
    ck_assert_msg(strstr(nvb_workload_error(wl), "claimed"), "%s", nvb_workload_error(wl));
    nvb_workload_free(wl);
    stop_mounter();
    ck_assert_msg(tu_sh("e2fsck -fn '%s' >/dev/null 2>&1", l) == 0, "e2fsck finds %s damaged", l);
    cleanup();
    free(img);
    free(dir);
}
END_TEST

/* A run holds target; while it runs, a loop device is stacked on it (s1)
 * and written, then one on that (s2): the later runs must find the hold
 * down the stack. The bytes checked are the target's second MiB, which
 * the holding run (size=1M) never writes and the refused ones would. */
struct held_ctx {
    const char *target;
    char s1[64], s2[64];
    struct outcome w1, w2;
    uint64_t before, after;
    int done;
};

static int stack_and_write(void *arg)
{
    struct held_ctx *h = arg;
    if (h->done)
        return 1;
    h->done = 1;
    h->before = sum_at(h->target, 1 << 20, 1 << 20);
    const char *kw[] = {"engine", "psync", "rw", "write", "bs", "4k", "offset", "1M", "ios", "64",
                        "allow_destructive", "1", NULL};
    attach(h->target, h->s1, sizeof h->s1);
    const char *t1[] = {h->s1, NULL};
    h->w1 = run(kw, t1, NULL);
    attach(h->s1, h->s2, sizeof h->s2);
    const char *t2[] = {h->s2, NULL};
    h->w2 = run(kw, t2, NULL);
    h->after = sum_at(h->target, 1 << 20, 1 << 20);
    return 1; /* end the holding run */
}

static void stacked_on_held(const char *target)
{
    /* the holding run writes, or verifies what a run before it wrote */
    const char *kw[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "size", "1M", "runtime", "60s",
                        "allow_destructive", "1", NULL};
    const char *kl[] = {"engine", "psync", "rw", "write", "bs", "4k", "size", "1M", "verify", "1",
                        "allow_destructive", "1", NULL};
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "size", "1M", "runtime", "60s",
                        "verify", "1", NULL};
    const char *tg[] = {target, NULL};
    struct outcome out = run(kl, tg, NULL);
    ck_assert_msg(out.rc == 0, "laying out %s: rc %d: %s", target, out.rc, out.msg);
    const char *const *holders[] = {kw, kv};
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
    for (int k = 0; k < 2; k++) {
        struct held_ctx h;
        memset(&h, 0, sizeof h);
        h.target = target;
        struct nvb_run_opts o = polling(stack_and_write, &h);
        out = run(holders[k], tg, &o);
        ck_assert_msg(h.done, "the run holding %s never polled", target);
        ck_assert_msg(out.rc == -ECANCELED, "the run holding %s: rc %d: %s", target, out.rc, out.msg);
        ck_assert_msg(h.after == h.before, "a write through a loop device on %s reached it (holder %s; rc %d, %d)",
                      target, k ? "a verifier" : "a writer", h.w1.rc, h.w2.rc);
        const char *w1[] = {h.s1, "is backed by", target, "in use by another run", pid, NULL};
        expect_refused(&h.w1, -EBUSY, w1);
        const char *w2[] = {h.s2, "is backed by", h.s1, target, "in use by another run", NULL};
        expect_refused(&h.w2, -EBUSY, w2);
        detach(h.s2);
        detach(h.s1);
    }
}

START_TEST(stack_over_held)
{
    /* a partition of a disk (the hold locks the partition's node and its
     * range of the disk), and a regular file */
    char *dir = tu_mkdtemp("guard-held");
    char *img = path_in(dir, "disk.img");
    ck_assert_int_eq(tu_sh("dd if=/dev/urandom of='%s' bs=1M count=32 status=none", img), 0);
    char dev[64], p1[80], p2[80];
    two_partitions(img, dev, sizeof dev, p1, p2, sizeof p1);
    stacked_on_held(p1);
    char *f = random_file(dir, "f.dat", 8);
    stacked_on_held(f);
    tu_sh("partx -d %s", dev);
    cleanup();
    free(f);
    free(img);
    free(dir);
}
END_TEST

/* A partition of a loop device writes into the loop device's backing:
 * while a run holds a file with a partition table, the file is attached
 * (with its partitions) and a partition written. The bytes checked are the
 * file's second MiB (the partition's first), which the holding run
 * (offset=16M) never writes. */
struct part_held_ctx {
    const char *img;
    char dev[64], p1[80], p2[80];
    struct outcome w;
    uint64_t before, after;
    int done;
};

static int partition_and_write(void *arg)
{
    struct part_held_ctx *c = arg;
    if (c->done)
        return 1;
    c->done = 1;
    c->before = sum_at(c->img, 1 << 20, 1 << 20);
    attach_partitions(c->img, c->dev, sizeof c->dev, c->p1, c->p2, sizeof c->p1);
    const char *kw[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "64", "allow_destructive", "1", NULL};
    const char *tg[] = {c->p1, NULL};
    c->w = run(kw, tg, NULL);
    c->after = sum_at(c->img, 1 << 20, 1 << 20);
    return 1;
}

START_TEST(partition_over_held)
{
    char *dir = tu_mkdtemp("guard-pheld");
    char *img = random_file(dir, "disk.img", 32);
    partition_table(img);
    struct part_held_ctx c;
    memset(&c, 0, sizeof c);
    c.img = img;
    struct nvb_run_opts o = polling(partition_and_write, &c);
    const char *kw[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "offset", "16M", "size", "1M", "runtime",
                        "60s", NULL};
    const char *tg[] = {img, NULL};
    struct outcome out = run(kw, tg, &o);
    ck_assert_msg(c.done, "the run holding %s never polled", img);
    ck_assert_msg(out.rc == -ECANCELED, "the run holding %s: rc %d: %s", img, out.rc, out.msg);
    ck_assert_msg(c.after == c.before, "a write to %s reached the file a run holds (rc %d)", c.p1, c.w.rc);
    const char *w[] = {c.dev, "is backed by", img, "in use by another run", NULL};
    expect_refused(&c.w, -EBUSY, w);
    tu_sh("partx -d %s", c.dev);
    cleanup();
    free(img);
    free(dir);
}
END_TEST

/* ---- 7. a verifier beside a writer through the stack ---- */

/* A run that only verifies writes nothing, but it reads what it checks
 * through every layer of its target's stack: a writer of a layer under
 * it, or of a loop device stacked on it, changes those blocks, and each
 * would be reported as a mismatch. While `written` is written, `depth`
 * loop devices are stacked on `attach_on` (none: `verified` is named as
 * it is) and the top one, or `verified`, verified: refused naming the
 * writer; a plain read of it runs. */
struct verifier_ctx {
    const char *attach_on, *verified;
    int depth;
    char stack[2][64];
    struct outcome verifier, reader;
    int done;
};

static int verify_beside(void *arg)
{
    struct verifier_ctx *v = arg;
    if (v->done)
        return 1;
    v->done = 1;
    const char *on = v->attach_on;
    for (int i = 0; on && i < v->depth; i++) {
        attach(on, v->stack[i], sizeof v->stack[i]);
        on = v->stack[i];
    }
    const char *tg[] = {v->attach_on ? on : v->verified, NULL};
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "16", "verify", "1", NULL};
    v->verifier = run(kv, tg, NULL);
    const char *kr[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "16", NULL};
    v->reader = run(kr, tg, NULL);
    return 1; /* end the writer */
}

static void verifier_beside(const char *written, const char *attach_on, int depth, const char *verified,
                            const char *how)
{
    struct verifier_ctx v;
    memset(&v, 0, sizeof v);
    v.attach_on = attach_on;
    v.depth = depth;
    v.verified = verified;
    first_writer(written, verify_beside, &v, &v.done);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
    const char *w[] = {"in use by another run", pid, how, "being written", "mismatches", NULL};
    expect_refused(&v.verifier, -EBUSY, w);
    ck_assert_msg(v.reader.rc == 0, "a plain read beside the writer of %s was blocked: %s", written, v.reader.msg);
    for (int i = v.depth - 1; attach_on && i >= 0; i--)
        detach(v.stack[i]);
}

START_TEST(verifier_over_written)
{
    /* down: the verified loop device is backed (through one or two loop
     * devices) by what a run writes, a file or a device */
    char *dir = tu_mkdtemp("guard-vdown");
    char *f = random_file(dir, "f.dat", 8);
    verifier_beside(f, f, 1, NULL, "is backed by");
    verifier_beside(f, f, 2, NULL, "is backed by");
    char *img = random_file(dir, "dev.img", 16);
    char l[64];
    attach(img, l, sizeof l);
    verifier_beside(l, l, 1, NULL, "is backed by");
    cleanup();
    free(img);
    free(f);
    free(dir);
}
END_TEST

START_TEST(verifier_under_written)
{
    /* up: a run writes a loop device stacked (one or two deep) on the
     * verified file or device, or a partition of one */
    char *dir = tu_mkdtemp("guard-vup");
    char *f = random_file(dir, "f.dat", 8);
    char s1[64], s2[64];
    attach(f, s1, sizeof s1);
    verifier_beside(s1, NULL, 0, f, "backs");
    attach(s1, s2, sizeof s2);
    verifier_beside(s2, NULL, 0, f, "backs");
    verifier_beside(s2, NULL, 0, s1, "backs");
    detach(s2);
    detach(s1);
    char *img = random_file(dir, "disk.img", 32);
    char dev[64], p1[80], p2[80];
    two_partitions(img, dev, sizeof dev, p1, p2, sizeof p1);
    verifier_beside(p1, NULL, 0, img, "backs");
    tu_sh("partx -d %s", dev);
    cleanup();
    free(img);
    free(f);
    free(dir);
}
END_TEST

/* ---- 8. job groups whose targets share data through the stack ---- */

/* Two groups of one run, named w (its kv and target) and v: the outcome. */
static struct outcome run_two_groups(const char *const *kw, const char *tw, const char *const *kv, const char *tv)
{
    const char *a[] = {tw, NULL}, *b[] = {tv, NULL};
    struct nvb_workload *ww = tu_workload(kw, a), *wv = tu_workload(kv, b);
    ck_assert_int_eq(nvb_workload_set(ww, "name", "w"), 0);
    ck_assert_int_eq(nvb_workload_set(wv, "name", "v"), 0);
    const struct nvb_workload *ws[] = {ww, wv};
    struct nvb_result *r = NULL;
    struct outcome out;
    memset(&out, 0, sizeof out);
    out.rc = nvb_run_groups(ws, 2, NULL, &r);
    snprintf(out.msg, sizeof out.msg, "%s", r ? nvb_result_error(r) : "");
    nvb_result_free(r);
    nvb_workload_free(ww);
    nvb_workload_free(wv);
    return out;
}

/* Group w writes tw and group v verifies (or writes) tv, which share the
 * bytes [off, off+len) of victim through the stack: refused before
 * anything is written, naming both groups, the stack and `lies`; the
 * victim's bytes unchanged. */
static void groups_share(const char *tw, const char *tv, int v_writes, const char *victim, off_t off, size_t len,
                         const char *lies)
{
    const char *kw[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "ios", "256", "allow_destructive", "1",
                        NULL};
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "16", "verify", "1", NULL};
    uint64_t before = sum_at(victim, off, len);
    struct outcome out = run_two_groups(kw, tw, v_writes ? kw : kv, tv);
    ck_assert_msg(sum_at(victim, off, len) == before, "groups w (%s) and v (%s) of one run wrote %s (rc %d: %s)", tw,
                  tv, victim, out.rc, out.msg);
    const char *w[] = {"group 'w'", "group 'v'", "share data through the storage stack", lies, NULL};
    expect_refused(&out, -EBUSY, w);
    /* the other order names them the same way */
    out = run_two_groups(v_writes ? kw : kv, tv, kw, tw);
    ck_assert_msg(sum_at(victim, off, len) == before, "groups of one run wrote %s (rc %d: %s)", victim, out.rc,
                  out.msg);
    expect_refused(&out, -EBUSY, w);
}

START_TEST(groups_through_stack)
{
    char *dir = tu_mkdtemp("guard-groups");
    char *f = random_file(dir, "f.dat", 8);
    char s1[64], s2[64];
    attach(f, s1, sizeof s1);
    groups_share(s1, f, 0, f, 0, 8 << 20, "lies on");
    attach(s1, s2, sizeof s2);
    groups_share(s2, f, 0, f, 0, 8 << 20, "lies on");
    groups_share(s2, s1, 0, f, 0, 8 << 20, "lies on");
    detach(s2);
    detach(s1);
    /* a partition of a loop device, its disk, and the disk's backing file;
     * the other partition is bytes of its own */
    char *img = random_file(dir, "disk.img", 32);
    char dev[64], p1[80], p2[80];
    two_partitions(img, dev, sizeof dev, p1, p2, sizeof p1);
    groups_share(p1, dev, 0, img, 1 << 20, 8 << 20, "lies on");
    groups_share(p1, dev, 1, img, 1 << 20, 8 << 20, "lies on");
    groups_share(p1, img, 0, img, 1 << 20, 8 << 20, "lies on");
    const char *kw[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "ios", "16", "allow_destructive", "1",
                        NULL};
    struct outcome out = run_two_groups(kw, p1, kw, p2);
    ck_assert_msg(out.rc == 0, "writers of two partitions of one disk were refused: %s", out.msg);
    tu_sh("partx -d %s", dev);
    cleanup();
    free(img);
    free(f);
    free(dir);
}
END_TEST

/* ---- 9. a backing file deleted while attached ---- */

/* The kernel keeps only the old name of a loop device's backing file
 * once it is deleted (sysfs adds " (deleted)"): a run holding the file
 * is found among open descriptors instead. While a run writes the file's
 * first MiB, a loop device is attached on it, the file deleted, and the
 * loop device's second MiB (the file's, which the holder never writes)
 * written and verified. */
struct deleted_ctx {
    const char *file;
    char s[64];
    struct outcome writer, verifier;
    uint64_t before, after;
    int done;
};

static int delete_and_write(void *arg)
{
    struct deleted_ctx *c = arg;
    if (c->done)
        return 1;
    c->done = 1;
    attach(c->file, c->s, sizeof c->s);
    ck_assert_int_eq(unlink(c->file), 0);
    c->before = sum_at(c->s, 1 << 20, 1 << 20);
    const char *tg[] = {c->s, NULL};
    const char *kw[] = {"engine", "psync", "rw", "write", "bs", "4k", "offset", "1M", "ios", "64",
                        "allow_destructive", "1", NULL};
    c->writer = run(kw, tg, NULL);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "16", "verify", "1", NULL};
    c->verifier = run(kv, tg, NULL);
    c->after = sum_at(c->s, 1 << 20, 1 << 20);
    return 1;
}

START_TEST(deleted_backing)
{
    char *dir = tu_mkdtemp("guard-deleted");
    char *f = random_file(dir, "f.dat", 8);
    struct deleted_ctx c;
    memset(&c, 0, sizeof c);
    c.file = f;
    struct nvb_run_opts o = polling(delete_and_write, &c);
    const char *kh[] = {"engine", "psync", "rw", "randwrite", "bs", "4k", "size", "1M", "runtime", "60s", NULL};
    const char *tf[] = {f, NULL};
    struct outcome out = run(kh, tf, &o);
    ck_assert_msg(c.done, "the run holding %s never polled", f);
    ck_assert_msg(out.rc == -ECANCELED, "the run holding %s: rc %d: %s", f, out.rc, out.msg);
    ck_assert_msg(c.after == c.before, "a write through %s reached the deleted file a run holds (rc %d: %s)", c.s,
                  c.writer.rc, c.writer.msg);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
    const char *w[] = {c.s, "is backed by", "(deleted)", "in use by another run", pid, NULL};
    expect_refused(&c.writer, -EBUSY, w);
    expect_refused(&c.verifier, -EBUSY, w);
    /* the old name, now another file: not taken for the loop device's
     * backing; and with the holder gone, the loop device is free */
    free(random_file(dir, "f.dat", 8));
    const char *kw[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "16", "allow_destructive", "1", NULL};
    out = run(kw, tf, NULL);
    ck_assert_msg(out.rc == 0, "a new file under a deleted backing file's name was refused: %s", out.msg);
    const char *ts[] = {c.s, NULL};
    out = run(kw, ts, NULL);
    ck_assert_msg(out.rc == 0, "the loop device on a deleted file nothing holds was refused: %s", out.msg);
    cleanup();
    free(f);
    free(dir);
}
END_TEST

/* ---- trims destroy data as writes do ---- */

struct excl_probe {
    const char *dev, *file;
    int tries, excl_busy;
    struct outcome writer;
};

static int probe_in_poll(void *arg)
{
    struct excl_probe *x = arg;
    if (x->tries++)
        return 1;
    int fd = open(x->dev, O_RDONLY | O_EXCL | O_CLOEXEC);
    if (fd >= 0)
        close(fd);
    else
        x->excl_busy = errno == EBUSY;
    const char *kw[] = {"engine", "psync", "rw", "randtrim", "bs", "4k", "ios", "4", NULL};
    const char *tg[] = {x->file, NULL};
    x->writer = run(kw, tg, NULL);
    return 1;
}

START_TEST(trims_are_writes)
{
    char *dir = tu_mkdtemp("guard-trim");
    char dev[64];
    char *img = swap_device(dir, dev, sizeof dev);
    uint64_t dev0 = sum_swap_header(dev);
    const char *kt[] = {"engine", "psync", "rw", "trim", "bs", "4k", "ios", "8", "allow_destructive", "1", NULL};
    const char *kr[] = {"engine", "psync", "rw", "randrw", "rwmixtrim", "50", "bs", "4k", "ios", "8",
                        "allow_destructive", "1", NULL};
    const char *const *kinds[] = {kt, kr};
    for (int k = 0; k < 2; k++) {
        /* an active swap device, the file backing it */
        const char *t1[] = {dev, NULL}, *t2[] = {img, NULL};
        struct outcome out = run(kinds[k], t1, NULL);
        const char *w1[] = {"in use", "active swap", NULL};
        expect_refused(&out, -EBUSY, w1);
        out = run(kinds[k], t2, NULL);
        const char *w2[] = {"backs", dev, NULL};
        expect_refused(&out, -EBUSY, w2);
        /* a name swapped for a symlink to it before the hold opens it */
        char *f = random_file(dir, "f.dat", 1), *aside = path_in(dir, "f.orig");
        uint64_t f0 = sum1m(f);
        struct swap_ctx s = {f, aside, dev, 0, 0};
        struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
        o.log = swap_in_log;
        o.log_arg = &s;
        const char *tf[] = {f, NULL};
        out = run(kinds[k], tf, &o);
        const char *w3[] = {"changed between planning and opening", NULL};
        expect_refused(&out, -ESTALE, w3);
        ck_assert_msg(sum1m(aside) == f0, "the refused trim punched the original file");
        unlink(f);
        unlink(aside);
        free(f);
        free(aside);
    }
    ck_assert_msg(sum_swap_header(dev) == dev0, "a trim reached the active swap device");
    /* without allow_destructive, an unused device is refused (-EPERM) */
    char *img2 = random_file(dir, "b.img", 4);
    char dev2[64];
    attach(img2, dev2, sizeof dev2);
    uint64_t b0 = sum1m(dev2);
    const char *t3[] = {dev2, NULL};
    const char *kp[] = {"engine", "psync", "rw", "randtrim", "bs", "4k", "ios", "8", NULL};
    struct outcome out = run(kp, t3, NULL);
    const char *w4[] = {"rw=randtrim", "allow_destructive=1", NULL};
    expect_refused(&out, -EPERM, w4);
    ck_assert_msg(sum1m(dev2) == b0, "a refused trim changed the device");
    /* a trim run holds the device O_EXCL and locked, as a writer does */
    struct excl_probe x = {dev2, dev2, 0, 0, {0, ""}};
    struct nvb_run_opts o = polling(probe_in_poll, &x);
    const char *kl[] = {"engine", "psync", "rw", "randtrim", "bs", "4k", "runtime", "60s", "allow_destructive", "1",
                        NULL};
    out = run(kl, t3, &o);
    ck_assert_msg(x.tries > 0, "never polled");
    ck_assert_msg(x.excl_busy, "an exclusive open succeeded while a trim run held the device");
    const char *w5[] = {"in use by another run", NULL};
    expect_refused(&x.writer, -EBUSY, w5);
    cleanup();
    free(img2);
    free(img);
    free(dir);
}
END_TEST

/* ---- and an active swap file ---- */

START_TEST(swap_file)
{
    char *dir = tu_mkdtemp("guard-swapfile");
    char *f = path_in(dir, "swapfile");
    ck_assert_int_eq(tu_sh("dd if=/dev/zero of='%s' bs=1M count=16 status=none && chmod 600 '%s'", f, f), 0);
    ck_assert_int_eq(tu_sh("mkswap -q '%s'", f), 0);
    if (swapon(f, 0) != 0) {
        fprintf(stderr, "note: swapon on a file here: %s; case skipped\n", strerror(errno));
        free(f);
        free(dir);
        return;
    }
    tu_remember(g_swap, MAX_CLEAN, f);
    uint64_t f0 = sum_swap_header(f);
    const char *kv[] = {"engine", "psync", "rw", "write", "bs", "4k", "ios", "8", "allow_destructive", "1", NULL};
    const char *tg[] = {f, NULL};
    struct outcome out = run(kv, tg, NULL);
    const char *w[] = {"active swap file", "in use", NULL};
    expect_refused(&out, -EBUSY, w);
    /* planning says so (validate), before any run */
    struct nvb_workload *wl = tu_workload(kv, tg);
    ck_assert_int_eq(nvb_workload_validate(wl), -EBUSY);
    ck_assert_msg(strstr(nvb_workload_error(wl), "swap"), "%s", nvb_workload_error(wl));
    nvb_workload_free(wl);
    ck_assert_msg(sum_swap_header(f) == f0, "the swap file was written");
    cleanup();
    free(f);
    free(dir);
}
END_TEST

int main(void)
{
    if (!tu_is_root())
        tu_skip("needs root (losetup, swapon)");
    if (tu_sh("command -v losetup && command -v mkswap") != 0)
        tu_skip("needs losetup and mkswap (util-linux)");
    Suite *s = suite_create("guard");
    TCase *tc = tcase_create("guard");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, cleanup);
    tcase_add_unchecked_fixture(tc, NULL, sweep);
    tcase_add_test(tc, race_during_layout);
    tcase_add_test(tc, race_before_open);
    tcase_add_test(tc, race_flip_loop);
    tcase_add_test(tc, excl_held_through_layout);
    tcase_add_test(tc, loop_backing_file);
    tcase_add_test(tc, stacked_loops);
    tcase_add_test(tc, two_writers);
    tcase_add_test(tc, two_writers_alias_node);
    tcase_add_test(tc, partitions_lock_their_range);
    tcase_add_test(tc, two_writers_processes);
    tcase_add_test(tc, swap_file);
    tcase_add_test(tc, trims_are_writes);
    tcase_add_test(tc, stack_over_claimed);
    tcase_add_test(tc, stack_over_held);
    tcase_add_test(tc, partition_over_held);
    tcase_add_test(tc, verifier_over_written);
    tcase_add_test(tc, verifier_under_written);
    tcase_add_test(tc, groups_through_stack);
    tcase_add_test(tc, deleted_backing);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    return failed ? 1 : 0;
}
