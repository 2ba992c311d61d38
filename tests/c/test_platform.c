/*
 * Platform layer tests (Linux): clocks, threads and locks, CPU sampling,
 * target facts, scratch files and pre-filling. Timing checks are one-sided
 * sanity bounds only: CI machines are slow and noisy.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "platform/platform.h"
#include "testutil.h"

#define MS UINT64_C(1000000)

static int is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* ---------------------------------------------------------------- clocks */

/* The clock the library reads (the calibrated TSC, or CLOCK_MONOTONIC)
 * keeps CLOCK_MONOTONIC's rate: over a sleep, its interval lies between
 * the inner and the outer CLOCK_MONOTONIC interval that bracket its two
 * reads, widened by the calibration's stated bound (1e-5 of the interval,
 * here 1e-4) and a microsecond. */
static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

START_TEST(clock_source_keeps_the_rate)
{
    const char *src = nvb__clock_source();
    ck_assert_msg(!strcmp(src, "tsc") || !strcmp(src, "clock_monotonic"), "clock source %s", src);
    for (int round = 0; round < 3; round++) {
        const uint64_t m0 = mono(), n0 = nvb__now_ns(), m1 = mono();
        nvb__sleep_ns(100 * MS);
        const uint64_t m2 = mono(), n1 = nvb__now_ns(), m3 = mono();
        const uint64_t dn = n1 - n0, slack = (m3 - m0) / 10000 + 1000;
        ck_assert_msg(dn + slack >= m2 - m1 && dn <= m3 - m0 + slack,
                      "%s: %llu ns where CLOCK_MONOTONIC says %llu..%llu", src, (unsigned long long)dn,
                      (unsigned long long)(m2 - m1), (unsigned long long)(m3 - m0));
    }
}
END_TEST

START_TEST(clock_monotonic)
{
    uint64_t prev = nvb__now_ns();
    for (int i = 0; i < 100000; i++) {
        uint64_t t = nvb__now_ns();
        ck_assert_uint_ge(t, prev);
        prev = t;
    }
    uint64_t t0 = nvb__now_ns();
    nvb__sleep_ns(20 * MS);
    uint64_t t1 = nvb__now_ns();
    ck_assert_uint_ge(t1 - t0, 20 * MS);
    nvb__sleep_ns(0);

    /* Wall clock: after 2020-01-01 and agreeing with time(2). */
    uint64_t w = nvb__wall_ns();
    ck_assert_uint_gt(w, UINT64_C(1577836800) * 1000000000u);
    int64_t diff = (int64_t)(w / 1000000000u) - (int64_t)time(NULL);
    ck_assert_int_le(diff < 0 ? -diff : diff, 2);
}
END_TEST

/* The copy of the clock a hot loop reads inline (nvb__clk_now) is the
 * clock: it names the same source, and each of its reads falls between
 * the two reads of nvb__now_ns around it. */
START_TEST(clock_read_inline_is_the_clock)
{
    const struct nvb__clk k = nvb__clock_get();
    ck_assert_int_eq(k.tsc, !strcmp(nvb__clock_source(), "tsc"));
    for (int i = 0; i < 100000; i++) {
        const uint64_t a = nvb__now_ns(), b = nvb__clk_now(&k), c = nvb__now_ns();
        ck_assert_msg(a <= b && b <= c, "read %d: %llu, inline %llu, %llu", i, (unsigned long long)a,
                      (unsigned long long)b, (unsigned long long)c);
    }
}
END_TEST

/* --------------------------------------------------------------- threads */

struct shared {
    struct nvb__mutex *m;
    struct nvb__cond *c;
    int ready, stop;
    long tid;
    uint64_t spin_ns;
};

static uint64_t cpu_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spins until the given CPU-time clock advanced by ns: a loaded machine
 * makes this take longer, never count less. */
static void burn_cpu(clockid_t id, uint64_t ns)
{
    volatile uint64_t sink = 0;
    uint64_t end = cpu_clock_ns(id) + ns;
    /* Mostly user-space work: the CPU-time clocks are system calls. */
    while (cpu_clock_ns(id) < end)
        for (int i = 0; i < 200000; i++)
            sink += (uint64_t)i;
    (void)sink;
}

static void *worker(void *arg)
{
    struct shared *s = arg;
    /* Burn some CPU so the per-thread counters have something to show. */
    if (s->spin_ns)
        burn_cpu(CLOCK_THREAD_CPUTIME_ID, s->spin_ns);
    nvb__mutex_lock(s->m);
    s->tid = nvb__thread_id();
    s->ready = 1;
    nvb__cond_signal_all(s->c);
    while (!s->stop)
        nvb__cond_wait(s->c, s->m, 0);
    nvb__mutex_unlock(s->m);
    return s;
}

static struct nvb__thread *start_worker(struct shared *s, const char *name, uint64_t spin_ns)
{
    memset(s, 0, sizeof(*s));
    s->spin_ns = spin_ns;
    ck_assert_int_eq(nvb__mutex_new(&s->m), 0);
    ck_assert_int_eq(nvb__cond_new(&s->c), 0);
    struct nvb__thread *t = NULL;
    ck_assert_int_eq(nvb__thread_start(&t, worker, s, name), 0);
    ck_assert_ptr_nonnull(t);
    nvb__mutex_lock(s->m);
    while (!s->ready)
        nvb__cond_wait(s->c, s->m, 0);
    nvb__mutex_unlock(s->m);
    return t;
}

static void stop_worker(struct shared *s, struct nvb__thread *t)
{
    nvb__mutex_lock(s->m);
    s->stop = 1;
    nvb__cond_signal_all(s->c);
    nvb__mutex_unlock(s->m);
    nvb__thread_join(t);
    nvb__cond_free(s->c);
    nvb__mutex_free(s->m);
}

START_TEST(threads_and_locks)
{
    struct shared s;
    struct nvb__thread *t = start_worker(&s, "nvb-test", 0);
    ck_assert_int_gt(s.tid, 0);
    ck_assert_int_ne(s.tid, nvb__thread_id());
    ck_assert_int_eq(nvb__thread_id(), (long)syscall(SYS_gettid));

    /* Workers start with all signals blocked. */
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/self/task/%ld/status", s.tid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    unsigned long long blocked = 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "SigBlk: %llx", &blocked) == 1)
            break;
    fclose(f);
    ck_assert_uint_ne(blocked, 0);
    stop_worker(&s, t);

    /* A timed wait with nobody signalling returns after its timeout. */
    struct nvb__mutex *m;
    struct nvb__cond *c;
    ck_assert_int_eq(nvb__mutex_new(&m), 0);
    ck_assert_int_eq(nvb__cond_new(&c), 0);
    nvb__mutex_lock(m);
    uint64_t t0 = nvb__now_ns();
    nvb__cond_wait(c, m, 30 * MS);
    uint64_t dt = nvb__now_ns() - t0;
    nvb__mutex_unlock(m);
    /* Spurious wakeups are allowed, so only check it did return. */
    ck_assert_uint_lt(dt, 60000 * MS);
    nvb__cond_free(c);
    nvb__mutex_free(m);

    ck_assert_int_ge(nvb__ncpus(), 1);
    ck_assert_int_eq(nvb__ncpus(), (int)sysconf(_SC_NPROCESSORS_ONLN));
}
END_TEST

START_TEST(thread_pin)
{
    ck_assert_int_eq(nvb__thread_pin(-1), -EINVAL);
    cpu_set_t allowed;
    ck_assert_int_eq(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
    int cpu = -1;
    for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
        if (CPU_ISSET(i, &allowed))
            cpu = i;
    ck_assert_int_ge(cpu, 0);
    ck_assert_int_eq(nvb__thread_pin(cpu), 0);
    cpu_set_t now;
    ck_assert_int_eq(sched_getaffinity(0, sizeof(now), &now), 0);
    ck_assert_int_eq(CPU_COUNT(&now), 1);
    ck_assert(CPU_ISSET(cpu, &now));
    ck_assert_int_eq(sched_getcpu(), cpu);
    /* A CPU that does not exist: the kernel refuses the empty mask. */
    ck_assert_int_eq(nvb__thread_pin(100000), -EINVAL);
}
END_TEST

/* ----------------------------------------------------------- CPU sampling */

static uint64_t busy_of(const struct nvb__cpu_times *t)
{
    return t->user + t->nice + t->system + t->irq + t->softirq;
}

START_TEST(sys_sample_rows)
{
    struct nvb__sys_sample s;
    ck_assert_int_eq(nvb__sys_sample(&s), 0);
    ck_assert_int_eq(s.ncpu, nvb__ncpus());
    ck_assert_ptr_nonnull(s.cpu);
    ck_assert_ptr_nonnull(s.cpu_id);
    uint64_t total_all = busy_of(&s.total) + s.total.idle + s.total.iowait;
    ck_assert_uint_gt(total_all, 0);
    ck_assert_uint_gt(s.total.idle, 0);
    for (int i = 0; i < s.ncpu; i++) {
        ck_assert_int_ge(s.cpu_id[i], 0);
        for (int j = 0; j < i; j++)
            ck_assert_int_ne(s.cpu_id[i], s.cpu_id[j]);
        ck_assert_uint_le(s.cpu[i].user, s.total.user);
        ck_assert_uint_le(s.cpu[i].idle, s.total.idle);
        ck_assert_uint_gt(busy_of(&s.cpu[i]) + s.cpu[i].idle + s.cpu[i].iowait, 0);
    }
    /* Counters are whole USER_HZ ticks converted to ns. */
    uint64_t tick = 1000000000u / (uint64_t)sysconf(_SC_CLK_TCK);
    ck_assert_uint_eq(s.total.user % tick, 0);
    nvb__sys_sample_free(&s);
    ck_assert_ptr_null(s.cpu);
    nvb__sys_sample_free(&s); /* idempotent */
}
END_TEST

START_TEST(busy_loop_is_counted)
{
    struct nvb__sys_sample s0, s1;
    struct nvb__proc_sample p0, p1;
    ck_assert_int_eq(nvb__sys_sample(&s0), 0);
    ck_assert_int_eq(nvb__proc_sample(&p0), 0);
    burn_cpu(CLOCK_PROCESS_CPUTIME_ID, 200 * MS);
    ck_assert_int_eq(nvb__proc_sample(&p1), 0);
    ck_assert_int_eq(nvb__sys_sample(&s1), 0);

    uint64_t proc = (p1.user_ns + p1.sys_ns) - (p0.user_ns + p0.sys_ns);
    uint64_t sys = busy_of(&s1.total) - busy_of(&s0.total);
    printf("busy 200 ms: process user %+.1f ms sys %+.1f ms, machine busy %+.1f ms\n",
           (double)(p1.user_ns - p0.user_ns) / 1e6, (double)(p1.sys_ns - p0.sys_ns) / 1e6,
           (double)sys / 1e6);
    ck_assert_uint_ge(p1.user_ns, p0.user_ns);
    /* getrusage scales tick samples to the precise runtime, so the total
     * is close to 200 ms; the margin is for the clocks' granularity. */
    ck_assert_uint_ge(proc, 150 * MS);
    ck_assert_uint_ge(p1.user_ns - p0.user_ns, 100 * MS);
    /* Machine-wide counters are tick samples: allow for several missed. */
    ck_assert_uint_ge(sys, 100 * MS);
    ck_assert_int_gt(p1.maxrss_kib, 0);
    ck_assert_int_ge(p1.minflt, p0.minflt);
    nvb__sys_sample_free(&s0);
    nvb__sys_sample_free(&s1);
}
END_TEST

static const struct nvb__thread_cpu *find_tid(const struct nvb__thread_cpu *a, int n, long tid)
{
    for (int i = 0; i < n; i++)
        if (a[i].tid == tid)
            return &a[i];
    return NULL;
}

START_TEST(threads_sample_names)
{
    struct shared s1, s2, s3;
    struct nvb__thread *t1 = start_worker(&s1, "nvb-test", 60 * MS);
    /* Longer than the kernel's 15 bytes: truncated, not refused. */
    struct nvb__thread *t2 = start_worker(&s2, "nvb-a-much-longer-name", 0);
    /* comm is free text: spaces and parentheses must not derail parsing. */
    struct nvb__thread *t3 = start_worker(&s3, "x) y (z) 1 2", 0);

    struct nvb__thread_cpu *a = NULL;
    int n = nvb__threads_sample(&a);
    ck_assert_int_ge(n, 4);
    ck_assert_ptr_nonnull(a);

    char comm[32] = "";
    FILE *f = fopen("/proc/self/comm", "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(comm, sizeof(comm), f));
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';

    const struct nvb__thread_cpu *m = find_tid(a, n, nvb__thread_id());
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m->name, comm);

    const struct nvb__thread_cpu *w = find_tid(a, n, s1.tid);
    ck_assert_ptr_nonnull(w);
    ck_assert_str_eq(w->name, "nvb-test");
    /* It burnt 60 ms of CPU: schedstat (ns) sees it all; the tick-based
     * fallback is within a few ticks. */
    ck_assert_uint_ge(w->run_ns, 40 * MS);
    printf("nvb-test: user %.1f ms sys %.1f ms run %.1f ms\n", (double)w->user_ns / 1e6,
           (double)w->sys_ns / 1e6, (double)w->run_ns / 1e6);

    w = find_tid(a, n, s2.tid);
    ck_assert_ptr_nonnull(w);
    ck_assert_str_eq(w->name, "nvb-a-much-long");

    w = find_tid(a, n, s3.tid);
    ck_assert_ptr_nonnull(w);
    ck_assert_str_eq(w->name, "x) y (z) 1 2");
    /* Mis-parsed fields would show up as absurd times. */
    ck_assert_uint_lt(w->user_ns + w->sys_ns, 3600000 * MS);

    free(a);
    stop_worker(&s1, t1);
    stop_worker(&s2, t2);
    stop_worker(&s3, t3);
}
END_TEST

/* ---------------------------------------------------------------- targets */

START_TEST(target_info_kinds)
{
    struct nvb__target_info ti;
    char *file = tu_scratch("nvb-ti", (1u << 20) + 4096);
    ck_assert_int_eq(nvb__target_info(file, &ti), 0);
    ck_assert_int_eq(ti.kind, NVB__T_FILE);
    ck_assert_uint_eq(ti.size, (1u << 20) + 4096);
    ck_assert_uint_ge(ti.lbs, 512);
    ck_assert(is_pow2(ti.lbs));
    ck_assert(is_pow2(ti.mem_align));
    ck_assert(ti.pbs == 0 || is_pow2(ti.pbs));
    ck_assert_str_eq(ti.dev, "");
    printf("file on %s: lbs %u mem_align %u pbs %u\n", tu_tmpdir(), ti.lbs, ti.mem_align, ti.pbs);
    unlink(file);
    free(file);

    char *dir = tu_mkdtemp("nvb-ti-dir");
    ck_assert_int_eq(nvb__target_info(dir, &ti), 0);
    ck_assert_int_eq(ti.kind, NVB__T_DIR);
    ck_assert_uint_ge(ti.lbs, 512);
    rmdir(dir);
    free(dir);

    ck_assert_int_eq(nvb__target_info("/dev/null", &ti), 0);
    ck_assert_int_eq(ti.kind, NVB__T_CHAR);

    ck_assert_int_eq(nvb__target_info("/nonexistent/nvbench/x", &ti), -ENOENT);
    ck_assert_int_eq(nvb__target_info("/dev/null/x", &ti), -ENOTDIR);
}
END_TEST

/* Runs a shell command and returns its first output line (malloc'd). */
static char *run_line(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    char buf[256];
    char *r = NULL;
    if (fgets(buf, sizeof(buf), p)) {
        buf[strcspn(buf, "\n")] = '\0';
        r = strdup(buf);
    }
    if (pclose(p) != 0) {
        free(r);
        r = NULL;
    }
    return r;
}

/* nvb__target_info from a child running as uid/gid 65534, for a device
 * node only root may open. Returns its result, or 1 if the switch failed. */
static int info_as_nobody(const char *path, struct nvb__target_info *ti)
{
    int pfd[2];
    if (pipe(pfd) != 0)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        struct {
            int rc;
            struct nvb__target_info ti;
        } r;
        memset(&r, 0, sizeof(r));
        if (setgid(65534) != 0 || setuid(65534) != 0)
            r.rc = 1;
        else
            r.rc = nvb__target_info(path, &r.ti);
        ssize_t n = write(pfd[1], &r, sizeof(r));
        _exit(n == (ssize_t)sizeof(r) ? 0 : 1);
    }
    close(pfd[1]);
    struct {
        int rc;
        struct nvb__target_info ti;
    } r;
    memset(&r, 0, sizeof(r));
    r.rc = 1;
    if (pid < 0 || read(pfd[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
        r.rc = 1;
    close(pfd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    *ti = r.ti;
    return r.rc;
}

START_TEST(target_info_loop)
{
    if (!tu_is_root()) {
        printf("target_info_loop: not root, loop device case not run\n");
        return;
    }
    const uint64_t size = 64u << 20;
    char *dir = tu_mkdtemp("nvb-loop");
    char backing[512], cmd[1200], alias[600];
    snprintf(backing, sizeof(backing), "%s/backing.img", dir);
    snprintf(alias, sizeof(alias), "%s/alias", dir);
    int fd = open(backing, O_CREAT | O_RDWR, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
    close(fd);

    snprintf(cmd, sizeof(cmd), "losetup -f --show --sector-size 4096 '%s' 2>/dev/null", backing);
    char *loop = run_line(cmd);
    if (!loop) {
        unlink(backing);
        rmdir(dir);
        free(dir);
        printf("target_info_loop: losetup failed (no loop support here?), case not run\n");
        return;
    }
    /* Gather everything, detach, then assert: a failed assertion must not
     * leave the loop device attached. */
    struct nvb__target_info ti, ta;
    int rc = nvb__target_info(loop, &ti);
    int rc_alias = symlink(loop, alias) == 0 ? nvb__target_info(alias, &ta) : -errno;
    struct nvb__target_info tn;
    int rc_nobody = info_as_nobody(loop, &tn);
    int acc = nvb__target_access(loop, 1);
    int bfd = nvb__target_open(loop, NVB__O_DIRECT);
    if (bfd >= 0)
        nvb__target_close(bfd);
    snprintf(cmd, sizeof(cmd), "losetup -d '%s'", loop);
    int detach = system(cmd);
    unlink(alias);
    unlink(backing);
    rmdir(dir);
    free(dir);

    const char *base = strrchr(loop, '/') ? strrchr(loop, '/') + 1 : loop;
    printf("%s: size %llu lbs %u pbs %u mem_align %u dev \"%s\"\n", loop,
           (unsigned long long)ti.size, ti.lbs, ti.pbs, ti.mem_align, ti.dev);
    ck_assert_int_eq(detach, 0);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(ti.kind, NVB__T_BLOCK);
    ck_assert_uint_eq(ti.size, size);
    ck_assert_uint_eq(ti.lbs, 4096);
    ck_assert_uint_ge(ti.pbs, ti.lbs);
    ck_assert(is_pow2(ti.mem_align));
    ck_assert_str_eq(ti.dev, base);
    /* Named through an alias, the device keeps its kernel name. */
    ck_assert_int_eq(rc_alias, 0);
    ck_assert_str_eq(ta.dev, base);
    /* A user who cannot open the device node still gets the facts. */
    if (rc_nobody == 1) {
        printf("target_info_loop: could not switch to an unprivileged uid\n");
    } else {
        ck_assert_int_eq(rc_nobody, 0);
        ck_assert_int_eq(tn.kind, NVB__T_BLOCK);
        ck_assert_uint_eq(tn.size, size);
        ck_assert_uint_eq(tn.lbs, 4096);
        ck_assert_str_eq(tn.dev, base);
    }
    ck_assert_int_eq(acc, 0);
    ck_assert_int_ge(bfd, 0);
    free(loop);
}
END_TEST

START_TEST(target_access_open)
{
    char *file = tu_scratch("nvb-acc", 8192);
    ck_assert_int_eq(nvb__target_access(file, 0), 0);
    ck_assert_int_eq(nvb__target_access(file, 1), 0);
    ck_assert_int_eq(nvb__target_access("/nonexistent/nvbench", 0), -ENOENT);
    ck_assert_int_eq(nvb__target_access(tu_tmpdir(), 1), 0);
    if (!tu_is_root()) {
        chmod(file, 0400);
        ck_assert_int_eq(nvb__target_access(file, 0), 0);
        ck_assert_int_eq(nvb__target_access(file, 1), -EACCES);
        chmod(file, 0600);
    }

    int fd = nvb__target_open(file, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    ck_assert_int_eq(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
    char b[16];
    ck_assert_int_eq(pread(fd, b, sizeof(b), 0), (ssize_t)sizeof(b));
    nvb__target_close(fd);

    fd = nvb__target_open(file, NVB__O_WRITE);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
    nvb__target_close(fd);

    fd = nvb__target_open(file, NVB__O_WRITE | NVB__O_DIRECT);
    if (fd == -EINVAL) {
        printf("target_access_open: %s has no O_DIRECT\n", tu_tmpdir());
    } else {
        ck_assert_int_ge(fd, 0);
        ck_assert(fcntl(fd, F_GETFL) & O_DIRECT);
        nvb__target_close(fd);
    }

    /* Never creates. */
    char missing[600];
    snprintf(missing, sizeof(missing), "%s.absent", file);
    ck_assert_int_eq(nvb__target_open(missing, NVB__O_WRITE), -ENOENT);
    ck_assert_int_ne(access(missing, F_OK), 0);
    nvb__target_close(-1);
    unlink(file);
    free(file);
}
END_TEST

/* A target's descriptor carries O_NOATIME: a read through it leaves the
 * file's access time as it was, where a plain read (relatime, an access
 * time two days old) moves it. Not the file's owner and without
 * CAP_FOWNER (user 65534, in a child), the open goes on without it. */
static void set_old_times(const char *file)
{
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec -= 2 * 86400; /* atime: two days ago */
    ts[1] = ts[0];
    ts[1].tv_sec -= 86400;     /* mtime: three */
    ck_assert_int_eq(utimensat(AT_FDCWD, file, ts, 0), 0);
}

static struct timespec atime_of(const char *file)
{
    struct stat st;
    ck_assert_int_eq(stat(file, &st), 0);
    return st.st_atim;
}

START_TEST(target_open_noatime)
{
    char *d = tu_mkdtemp_public("nvb-noatime"); /* user 65534 must reach it */
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s", d);
    free(d); /* nothing of the heap held in the child below */
    snprintf(file, sizeof file, "%s/t", dir);
    int w = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
    ck_assert_int_ge(w, 0);
    char b[4096] = { 1 };
    ck_assert_int_eq(write(w, b, sizeof b), (ssize_t)sizeof b);
    close(w);

    set_old_times(file);
    struct timespec before = atime_of(file);
    int fd = nvb__target_open(file, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert(fcntl(fd, F_GETFL) & O_NOATIME);
    ck_assert_int_eq(pread(fd, b, sizeof b, 0), (ssize_t)sizeof b);
    nvb__target_close(fd);
    struct timespec after = atime_of(file);
    ck_assert(after.tv_sec == before.tv_sec && after.tv_nsec == before.tv_nsec);

    /* the same read without it, where the mount keeps access times */
    int plain = open(file, O_RDONLY);
    ck_assert_int_ge(plain, 0);
    ck_assert_int_eq(pread(plain, b, sizeof b, 0), (ssize_t)sizeof b);
    close(plain);
    if (atime_of(file).tv_sec == before.tv_sec)
        printf("target_open_noatime: %s keeps no access times (noatime mount?)\n", dir);

    if (tu_is_root()) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
                _exit(10);
            int f = nvb__target_open(file, 0); /* not the owner: EPERM with O_NOATIME */
            if (f < 0)
                _exit(11);
            int fl = fcntl(f, F_GETFL);
            _exit(fl & O_NOATIME ? 12 : pread(f, b, sizeof b, 0) == (ssize_t)sizeof b ? 0 : 13);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
    }
    unlink(file);
    rmdir(dir);
}
END_TEST

/* ---------------------------------------------------------------- scratch */

START_TEST(scratch_files)
{
    char *dir = tu_mkdtemp("nvb-scratch");
    char path[512], path2[512], prefix[600];
    const uint64_t size = (3u << 20) + 512;
    ck_assert_int_eq(nvb__scratch_create(dir, size, path, sizeof(path)), 0);
    snprintf(prefix, sizeof(prefix), "%s/.nvbench-scratch-%ld-", dir, (long)getpid());
    ck_assert_int_eq(strncmp(path, prefix, strlen(prefix)), 0);
    ck_assert_str_eq(path + strlen(path) - 4, ".tmp");
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq((uint64_t)st.st_size, size);
    ck_assert_uint_eq(st.st_mode & 0777, 0600);

    ck_assert_int_eq(nvb__scratch_create(dir, 0, path2, sizeof(path2)), 0);
    ck_assert_str_ne(path, path2);
    ck_assert_int_eq(tu_count_entries(dir), 2);

    ck_assert_int_eq(nvb__scratch_remove(path), 0);
    ck_assert_int_eq(nvb__scratch_remove(path2), 0);
    ck_assert_int_eq(stat(path, &st), -1);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    ck_assert_int_eq(nvb__scratch_remove(path), -ENOENT);

    char small[16];
    ck_assert_int_eq(nvb__scratch_create(dir, 4096, small, sizeof(small)), -ENAMETOOLONG);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    snprintf(prefix, sizeof(prefix), "%s/absent", dir);
    ck_assert_int_eq(nvb__scratch_create(prefix, 4096, path, sizeof(path)), -ENOENT);
    rmdir(dir);
    free(dir);
}
END_TEST

START_TEST(scratch_enospc)
{
    if (!tu_is_root()) {
        printf("scratch_enospc: not root, cannot mount a small tmpfs; case not run\n");
        return;
    }
    char *dir = tu_mkdtemp("nvb-enospc");
    char cmd[600], path[512];
    snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=1m nvb-test '%s' 2>/dev/null", dir);
    if (system(cmd) != 0) {
        rmdir(dir);
        free(dir);
        printf("scratch_enospc: cannot mount tmpfs here; case not run\n");
        return;
    }
    int rc = nvb__scratch_create(dir, 64u << 20, path, sizeof(path));
    int left = tu_count_entries(dir);
    snprintf(cmd, sizeof(cmd), "umount '%s'", dir);
    int um = system(cmd);
    rmdir(dir);
    free(dir);
    ck_assert_int_eq(um, 0);
    ck_assert_int_eq(rc, -ENOSPC);
    ck_assert_int_eq(left, 0);
}
END_TEST

/* ------------------------------------------------------------------- fill */

static void *make_pattern(size_t len, unsigned seed)
{
    unsigned char *p = nvb__alloc_aligned(4096, len);
    ck_assert_ptr_nonnull(p);
    uint32_t x = 2463534242u ^ seed;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        p[i] = (unsigned char)x;
    }
    return p;
}

/* Compares len bytes of the file at off with the repeated pattern. */
static void expect_pattern(int fd, uint64_t off, size_t len, const unsigned char *pat, size_t pat_len)
{
    unsigned char *got = malloc(len);
    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(pread(fd, got, len, (off_t)off), (ssize_t)len);
    for (size_t i = 0; i < len; i++)
        if (got[i] != pat[(off + i) % pat_len])
            ck_abort_msg("byte %llu: got %u want %u (pattern %zu bytes)",
                         (unsigned long long)(off + i), got[i], pat[(off + i) % pat_len], pat_len);
    free(got);
}

static void fill_and_check(const char *dir, uint64_t size, size_t pat_len, int flags)
{
    char path[512];
    ck_assert_int_eq(nvb__scratch_create(dir, size, path, sizeof(path)), 0);
    int fd = nvb__target_open(path, NVB__O_WRITE | flags);
    if (fd == -EINVAL && (flags & NVB__O_DIRECT)) {
        printf("fill: no O_DIRECT on %s, case not run\n", dir);
        nvb__scratch_remove(path);
        return;
    }
    ck_assert_int_ge(fd, 0);
    unsigned char *pat = make_pattern(pat_len, (unsigned)pat_len);
    ck_assert_int_eq(nvb__fill_file(fd, size, pat, pat_len, NULL), 0);
    if (flags & NVB__O_DIRECT)
        ck_assert(fcntl(fd, F_GETFL) & O_DIRECT);

    int rfd = open(path, O_RDONLY);
    ck_assert_int_ge(rfd, 0);
    struct stat st;
    ck_assert_int_eq(fstat(rfd, &st), 0);
    ck_assert_uint_eq((uint64_t)st.st_size, size);
    uint64_t blk = 4096 < size ? 4096 : size;
    expect_pattern(rfd, 0, (size_t)blk, pat, pat_len);
    uint64_t mid = size / 2 / 512 * 512;
    expect_pattern(rfd, mid, (size_t)(size - mid < blk ? size - mid : blk), pat, pat_len);
    expect_pattern(rfd, size - blk, (size_t)blk, pat, pat_len);
    /* Around chunk boundaries, where an off-by-one would show. */
    if (size > (1u << 20) + 4096)
        expect_pattern(rfd, (1u << 20) - 2048, 4096, pat, pat_len);
    close(rfd);
    nvb__target_close(fd);
    nvb__free_aligned(pat);
    ck_assert_int_eq(nvb__scratch_remove(path), 0);
}

START_TEST(fill_pattern)
{
    char *dir = tu_mkdtemp("nvb-fill");
    /* Size not a multiple of the chunk; pattern dividing 1 MiB. */
    fill_and_check(dir, (5u << 20) + 3 * 4096, 4096, 0);
    /* Pattern that does not divide 1 MiB. */
    fill_and_check(dir, (3u << 20) + 512, 3 * 4096, 0);
    /* Pattern longer than a chunk. */
    fill_and_check(dir, (5u << 20) + 1024, (2u << 20) + 4096, 0);
    /* Smaller than the pattern. */
    fill_and_check(dir, 1536, 4096, 0);
    /* O_DIRECT, including a tail that is not block aligned. */
    fill_and_check(dir, (2u << 20) + 8192, 4096, NVB__O_DIRECT);
    fill_and_check(dir, (2u << 20) + 100, 4096, NVB__O_DIRECT);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    rmdir(dir);
    free(dir);

    /* Character devices cannot be synced; that is not an error. */
    int fd = open("/dev/null", O_WRONLY);
    ck_assert_int_ge(fd, 0);
    unsigned char *pat = make_pattern(4096, 1);
    ck_assert_int_eq(nvb__fill_file(fd, 3u << 20, pat, 4096, NULL), 0);
    ck_assert_int_eq(nvb__fill_file(fd, 4096, pat, 0, NULL), -EINVAL);
    close(fd);
    nvb__free_aligned(pat);
}
END_TEST

START_TEST(fill_cancel)
{
    char *dir = tu_mkdtemp("nvb-cancel");
    char path[512];
    const uint64_t size = 4u << 20;
    ck_assert_int_eq(nvb__scratch_create(dir, size, path, sizeof(path)), 0);
    int fd = nvb__target_open(path, NVB__O_WRITE);
    ck_assert_int_ge(fd, 0);
    unsigned char *pat = make_pattern(4096, 7);
    volatile int cancel = 1;
    ck_assert_int_eq(nvb__fill_file(fd, size, pat, 4096, &cancel), -ECANCELED);
    /* Nothing was written: the file still reads as zeros. */
    unsigned char b[4096], zero[4096] = { 0 };
    ck_assert_int_eq(pread(fd, b, sizeof(b), 0), (ssize_t)sizeof(b));
    ck_assert_int_eq(memcmp(b, zero, sizeof(b)), 0);
    cancel = 0;
    ck_assert_int_eq(nvb__fill_file(fd, size, pat, 4096, &cancel), 0);
    ck_assert_int_eq(pread(fd, b, sizeof(b), (off_t)size - 4096), (ssize_t)sizeof(b));
    ck_assert_int_eq(memcmp(b, pat, sizeof(b)), 0);
    nvb__target_close(fd);
    nvb__free_aligned(pat);
    ck_assert_int_eq(nvb__scratch_remove(path), 0);
    rmdir(dir);
    free(dir);
}
END_TEST

START_TEST(alloc_aligned)
{
    static const size_t aligns[] = { 1, 4, 8, 512, 4096, 1u << 21 };
    for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
        void *p = nvb__alloc_aligned(aligns[i], 12345);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % aligns[i], 0);
        memset(p, 0xa5, 12345);
        nvb__free_aligned(p);
    }
    nvb__free_aligned(NULL);
}
END_TEST

static Suite *platform_suite(void)
{
    Suite *s = suite_create("platform");
    TCase *tc = tcase_create("clock");
    tcase_add_test(tc, clock_monotonic);
    tcase_add_test(tc, clock_read_inline_is_the_clock);
    tcase_add_test(tc, clock_source_keeps_the_rate);
    suite_add_tcase(s, tc);

    tc = tcase_create("threads");
    tcase_add_test(tc, threads_and_locks);
    tcase_add_test(tc, thread_pin);
    suite_add_tcase(s, tc);

    tc = tcase_create("cpu");
    tcase_add_test(tc, sys_sample_rows);
    tcase_add_test(tc, busy_loop_is_counted);
    tcase_add_test(tc, threads_sample_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("targets");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, target_info_kinds);
    tcase_add_test(tc, target_info_loop);
    tcase_add_test(tc, target_access_open);
    tcase_add_test(tc, target_open_noatime);
    tcase_add_test(tc, scratch_files);
    tcase_add_test(tc, scratch_enospc);
    tcase_add_test(tc, fill_pattern);
    tcase_add_test(tc, fill_cancel);
    tcase_add_test(tc, alloc_aligned);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed = tu_run_suite(platform_suite());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
