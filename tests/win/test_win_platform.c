/* The Windows platform layer (libnvbench/platform/win): clocks, threads,
 * CPU sampling, files, scratch files, memory. Runs under wine here. */
#include "harness.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "core/cpu.h"
#include "platform/platform.h"
#include "platform/win/win.h"

/* Declared by platform.h too; repeated so this test builds either way. */
uint64_t nvb__mem_total(void);

static void test_clocks(void)
{
    uint64_t a = nvb__now_ns();
    Sleep(20);
    uint64_t b = nvb__now_ns();
    T_CHECK(b > a);
    T_CHECK_MSG(b - a >= 15000000u && b - a < 2000000000u, "20 ms sleep measured %llu ns",
                (unsigned long long)(b - a));
    /* wall clock: the Unix epoch, within a minute of the C runtime's time() */
    uint64_t w = nvb__wall_ns();
    long long t = (long long)time(NULL);
    T_CHECK_MSG(llabs((long long)(w / 1000000000u) - t) < 60, "wall %llu s vs time() %lld",
                (unsigned long long)(w / 1000000000u), t);
    uint64_t s0 = nvb__now_ns();
    nvb__sleep_ns(3000000); /* 3 ms */
    uint64_t s1 = nvb__now_ns();
    T_CHECK_MSG(s1 - s0 >= 3000000u, "nvb__sleep_ns(3 ms) returned after %llu ns", (unsigned long long)(s1 - s0));
    nvb__sleep_ns(0);
}

struct counter {
    struct nvb__mutex *m;
    struct nvb__cond *c;
    int n, go;
    long tid;
};

static void *worker(void *arg)
{
    struct counter *k = arg;
    nvb__mutex_lock(k->m);
    while (!k->go)
        nvb__cond_wait(k->c, k->m, 0);
    for (int i = 0; i < 1000; i++)
        k->n++;
    k->tid = nvb__thread_id();
    nvb__cond_signal_all(k->c);
    nvb__mutex_unlock(k->m);
    /* burn a little CPU so GetThreadTimes has something to show */
    volatile uint64_t x = 0;
    uint64_t end = nvb__now_ns() + 60000000u;
    while (nvb__now_ns() < end)
        x += 1;
    return NULL;
}

static void test_threads(void)
{
    struct counter k = { 0 };
    T_EQ(nvb__mutex_new(&k.m), 0);
    T_EQ(nvb__cond_new(&k.c), 0);
    struct nvb__thread *t[4];
    for (int i = 0; i < 4; i++)
        T_EQ(nvb__thread_start(&t[i], worker, &k, "nvb-test"), 0);
    nvb__mutex_lock(k.m);
    k.go = 1;
    nvb__cond_signal_all(k.c);
    uint64_t t0 = nvb__now_ns();
    nvb__cond_wait(k.c, k.m, 5000000); /* a timed wait returns */
    T_CHECK(nvb__now_ns() - t0 < 2000000000u);
    nvb__mutex_unlock(k.m);
    for (int i = 0; i < 4; i++)
        nvb__thread_join(t[i]);
    T_EQ(k.n, 4000);
    T_CHECK(k.tid > 0 && k.tid != nvb__thread_id());
    nvb__cond_free(k.c);
    nvb__mutex_free(k.m);
    T_CHECK(nvb__ncpus() >= 1);
    T_EQ(nvb__thread_pin(0), 0);
    T_EQ(nvb__thread_pin(-1), -EINVAL);
    T_EQ(nvb__thread_pin(nvb__ncpus() + 64), -EINVAL);
}

static void test_cpu(void)
{
    struct nvb__sys_sample a, b;
    struct nvb__proc_sample p0, p;
    T_EQ(nvb__proc_sample(&p0), 0);
    T_EQ(nvb__sys_sample(&a), 0);
    /* Spin until this process has used 200 ms of CPU (by its own
     * account), however loaded the machine is; 10 s at most. */
    volatile uint64_t x = 0;
    uint64_t deadline = nvb__now_ns() + 10000000000u;
    do {
        uint64_t end = nvb__now_ns() + 10000000u;
        while (nvb__now_ns() < end)
            x += 1;
        T_EQ(nvb__proc_sample(&p), 0);
    } while (p.user_ns + p.sys_ns - p0.user_ns - p0.sys_ns < 200000000u && nvb__now_ns() < deadline);
    T_EQ(nvb__sys_sample(&b), 0);
    fprintf(stderr, "   per-CPU rows: %d (online %d)\n", b.ncpu, nvb__ncpus());
    /* per-CPU rows from NtQuerySystemInformation, one per online CPU;
     * GetSystemTimes would leave them empty */
    T_EQ(b.ncpu, nvb__ncpus());
    double busy = nvb__cpu_busy_pct(&a, &b);
    fprintf(stderr, "   system busy over 200 ms of one busy thread: %.1f%%\n", busy);
    T_CHECK_MSG(busy > 0.0 && busy <= 100.0, "busy %.2f%%", busy);
    /* our own 200 ms are part of the machine's busy time */
    double all_ms = (double)nvb__cpu_total(&b.total) / 1e6 - (double)nvb__cpu_total(&a.total) / 1e6;
    T_CHECK_MSG(busy / 100.0 * all_ms >= 200.0 * 0.9, "busy %.1f%% of %.0f CPU-ms holds less than our 200 ms", busy,
                all_ms);
    uint64_t tot = nvb__cpu_total(&b.total), sum = 0;
    for (int i = 0; i < b.ncpu; i++)
        sum += nvb__cpu_total(&b.cpu[i]);
    T_CHECK(tot == sum && tot > 0);
    nvb__sys_sample_free(&a);
    nvb__sys_sample_free(&b);

    T_CHECK_MSG(p.user_ns + p.sys_ns - p0.user_ns - p0.sys_ns >= 200000000u, "process CPU grew %llu ns in 10 s",
                (unsigned long long)(p.user_ns + p.sys_ns - p0.user_ns - p0.sys_ns));
    T_CHECK(p.maxrss_kib > 0);

    struct nvb__thread_cpu *th = NULL;
    int n = nvb__threads_sample(&th);
    T_CHECK_MSG(n >= 1, "threads_sample returned %d", n);
    int found = 0;
    for (int i = 0; i < n; i++)
        if (th[i].tid == nvb__thread_id()) {
            found = 1;
            /* the only busy thread: most of the 200 ms are its own (the
             * counters advance by clock ticks of 10-16 ms) */
            T_CHECK_MSG(th[i].user_ns + th[i].sys_ns >= 150000000u, "this thread: %llu ns",
                        (unsigned long long)(th[i].user_ns + th[i].sys_ns));
            T_CHECK(th[i].run_ns == th[i].user_ns + th[i].sys_ns);
        }
    T_CHECK(found);
    free(th);
}

static void test_files(void)
{
    char dir[MAX_PATH], path[MAX_PATH + 100];
    t_tmpdir("platform", dir, sizeof dir);
    struct nvb__target_info ti;
    T_EQ(nvb__target_info(dir, &ti), 0);
    T_EQ(ti.kind, NVB__T_DIR);
    T_CHECK(ti.lbs >= 512);
    T_EQ(nvb__target_access(dir, 1), 0);

    char missing[MAX_PATH + 20];
    snprintf(missing, sizeof missing, "%s\\nope", dir);
    T_EQ(nvb__target_info(missing, &ti), -ENOENT);
    T_EQ(nvb__target_open(missing, 0), -ENOENT);
    T_EQ(nvb__target_access(missing, 0), -ENOENT);

    T_EQ(nvb__scratch_create(dir, 3u << 20, path, sizeof path), 0);
    T_CHECK(strstr(path, ".nvbench-scratch-") != NULL);
    T_EQ(nvb__target_info(path, &ti), 0);
    T_EQ(ti.kind, NVB__T_FILE);
    T_EQ(ti.size, 3u << 20);

    /* fill through an unbuffered handle, with a tail that is no whole
     * number of sectors (the buffered fallback) */
    int fd = nvb__target_open(path, NVB__O_WRITE | NVB__O_DIRECT);
    T_CHECK(fd > 0);
    unsigned char *pat = nvb__alloc_aligned(4096, 4096);
    T_CHECK(pat && ((uintptr_t)pat & 4095) == 0);
    for (int i = 0; i < 4096; i++)
        pat[i] = (unsigned char)(i * 7 + 1);
    T_EQ(nvb__fill_file(fd, (3u << 20) - 100, pat, 4096, NULL), 0);
    volatile int cancel = 1;
    T_EQ(nvb__fill_file(fd, 1u << 20, pat, 4096, &cancel), -ECANCELED);
    T_EQ(nvb__fill_file(fd, 4096, pat, 0, NULL), -EINVAL);
    nvb__target_close(fd);

    /* read back through the C runtime: byte off holds pat[off % 4096] */
    FILE *f = fopen(path, "rb");
    T_CHECK(f != NULL);
    if (f) {
        static unsigned char buf[1 << 16];
        size_t off = 0, n, bad = 0;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
            for (size_t i = 0; i < n; i++)
                bad += buf[i] != pat[(off + i) % 4096];
            off += n;
        }
        fclose(f);
        T_EQ(off, 3u << 20); /* the file keeps its size; the tail past the fill is zeros */
        T_CHECK_MSG(bad <= 100, "%zu bytes differ from the pattern", bad);
    }
    nvb__free_aligned(pat);
    T_EQ(nvb__scratch_remove(path), 0);
    T_EQ(nvb__scratch_remove(path), -ENOENT);
    RemoveDirectoryA(dir);
}

static void test_stale(void)
{
    char dir[MAX_PATH], path[MAX_PATH + 100];
    t_tmpdir("stale", dir, sizeof dir);
    /* a name of a pid that cannot exist (Windows pids are multiples of 4) */
    snprintf(path, sizeof path, "%s\\.nvbench-scratch-4294967-0123456789abcdef.tmp", dir);
    FILE *f = fopen(path, "wb");
    T_CHECK(f != NULL);
    if (f)
        fclose(f);
    char mine[MAX_PATH + 100];
    T_EQ(nvb__scratch_create(dir, 4096, mine, sizeof mine), 0);
    unsigned removed = 99;
    T_EQ(nvb__scratch_clean_stale(dir, &removed), 0);
    T_EQ(removed, 1);
    T_CHECK(GetFileAttributesA(path) == INVALID_FILE_ATTRIBUTES);
    T_CHECK(GetFileAttributesA(mine) != INVALID_FILE_ATTRIBUTES); /* this process's own */
    nvb__scratch_remove(mine);
    RemoveDirectoryA(dir);
}

static void test_misc(void)
{
    char host[256];
    T_EQ(nvb__hostname(host, sizeof host), 0);
    T_CHECK(host[0] != 0);
    T_EQ(nvb__win_errno(ERROR_FILE_NOT_FOUND), -ENOENT);
    T_EQ(nvb__win_errno(ERROR_ACCESS_DENIED), -EACCES);
    T_EQ(nvb__win_errno(ERROR_INVALID_PARAMETER), -EINVAL);
    T_EQ(nvb__win_errno(ERROR_HANDLE_DISK_FULL), -ENOSPC);
    T_CHECK(nvb__win_is_device_path("\\\\.\\PhysicalDrive0"));
    T_CHECK(nvb__win_is_device_path("\\\\.\\C:"));
    T_CHECK(!nvb__win_is_device_path("C:\\data\\file"));
    T_CHECK(!nvb__win_is_device_path("\\\\.\\C:\\file"));
    void *p = nvb__alloc_aligned(65536, 100);
    T_CHECK(p && ((uintptr_t)p & 65535) == 0);
    nvb__free_aligned(p);
    T_CHECK(nvb__alloc_aligned(4096, 0) == NULL);
    uint64_t mem = nvb__mem_total();
    T_CHECK_MSG(mem >= (64u << 20), "memory %llu bytes", (unsigned long long)mem);
}

/* What the CPU explanation cannot see on Windows says so (docs/cpu.md,
 * "Windows"): no event counters, no NUMA binding, no thread placement, no
 * kinds; each with its reason or -ENOTSUP, nothing faked. */
static void test_explain_unavailable(void)
{
    struct nvb__perf *p = (struct nvb__perf *)1;
    char why[256] = "";
    T_EQ(nvb__perf_open(&p, why, sizeof why), -ENOTSUP);
    T_CHECK(p == NULL);
    T_CHECK_MSG(strstr(why, "not measured on Windows"), "%s", why);
    char buf[4096];
    T_EQ(nvb__mem_bind_node(buf, sizeof buf, 0), -ENOTSUP);
    T_EQ(nvb__mem_node_of(buf), -ENOTSUP);
    struct nvb__thread_place tp[4];
    T_EQ(nvb__thread_places("nvb-job-", tp, 4), -ENOTSUP);
    /* the kinds: read from the per-CPU rows, all but iowait and steal
     * (and, without those rows, interrupt and DPC time) */
    T_EQ(nvb__sys_kinds(why, sizeof why), 1);
    struct nvb__sys_sample ks;
    T_EQ(nvb__sys_sample(&ks), 0);
    T_EQ(nvb__sys_kinds_missing(&ks), NVB__KB_IOWAIT | NVB__KB_STEAL | (ks.ncpu > 0 ? 0u : NVB__KB_IRQ | NVB__KB_SOFTIRQ));
    T_CHECK(ks.total.iowait == 0 && ks.total.steal == 0);
    nvb__sys_sample_free(&ks);
    T_EQ(nvb__sys_kinds_missing(NULL), NVB__KB_IOWAIT | NVB__KB_STEAL | NVB__KB_IRQ | NVB__KB_SOFTIRQ);
    /* the procfs/sysfs figures: null with "unavailable: <reason>" */
    const char *what[] = { "interrupts", "placement", "environment", "energy", "other" };
    for (unsigned i = 0; i < sizeof what / sizeof what[0]; i++) {
        const char *u = nvb__procfs_unavailable(what[i]);
        T_CHECK_MSG(u && !strncmp(u, "unavailable: ", 13) && strlen(u) < 160, "%s: %s", what[i], u ? u : "NULL");
    }
}

/* The registry's facts (docs/cpu.md, "Windows"): the power plan and the
 * native NVMe opt-in, each with a value or the reason, and the source. */
struct facts_seen {
    int n, plan, nvme;
};

static void fact_seen(void *arg, const char *key, const char *value, const char *source, const char *why)
{
    struct facts_seen *f = arg;
    f->n++;
    T_CHECK_MSG(source && strstr(source, "HKLM\\SYSTEM\\CurrentControlSet\\"), "%s: source %s", key, source);
    T_CHECK_MSG(value ? !why : why && !strncmp(why, "unavailable: ", 13), "%s: %s / %s", key, value ? value : "null",
                why ? why : "");
    fprintf(stderr, "   %s: %s\n", key, value ? value : why);
    if (!strcmp(key, "power_plan")) {
        f->plan++;
        T_CHECK_MSG(!value || strchr(value, '('), "power_plan %s: no GUID", value);
    } else if (!strcmp(key, "nvme_native_stack")) {
        f->nvme++;
        T_CHECK_MSG(!value || !strncmp(value, "on", 2) || !strncmp(value, "off", 3), "nvme_native_stack %s", value);
    }
}

static void test_registry_facts(void)
{
    struct facts_seen f = {0};
    nvb__os_facts(fact_seen, &f);
    T_EQ(f.n, 2);
    T_EQ(f.plan, 1);
    T_EQ(f.nvme, 1);
}

int main(void)
{
    fprintf(stderr, "wine: %s\n", t_is_wine() ? "yes" : "no");
    T_RUN(test_clocks);
    T_RUN(test_threads);
    T_RUN(test_cpu);
    T_RUN(test_files);
    T_RUN(test_stale);
    T_RUN(test_misc);
    T_RUN(test_explain_unavailable);
    T_RUN(test_registry_facts);
    return t_done();
}
