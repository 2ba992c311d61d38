/* The Windows engines through the public API: registry and probes, data
 * written then verified (verify=1) with wsync and iocp, CPU figures, the
 * storage stack label. Under wine, throughput and alignment are not
 * Windows's: those checks are skipped there. */
#include "harness.h"

#include <errno.h>
#include <stdint.h>

#include <nvbench.h>

#include "core/engine.h"
#include "platform/platform.h"

static char g_dir[MAX_PATH];

static struct nvb_workload *mk(const char *const *kv, const char *target)
{
    struct nvb_workload *w = NULL;
    T_EQ(nvb_workload_new(&w), 0);
    for (int i = 0; kv[i]; i += 2) {
        int rc = nvb_workload_set(w, kv[i], kv[i + 1]);
        T_CHECK_MSG(rc == 0, "%s=%s: %s", kv[i], kv[i + 1], nvb_workload_error(w));
    }
    if (target)
        T_EQ(nvb_workload_add_target(w, target), 0);
    return w;
}

static double get(const struct nvb_result *r, const char *path)
{
    double v = -1;
    int rc = nvb_result_get(r, path, &v);
    T_CHECK_MSG(rc == 0, "no figure %s", path);
    return v;
}

static struct nvb_result *run(struct nvb_workload *w)
{
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, NULL, &r);
    T_CHECK_MSG(rc == 0, "nvb_run: %d %s", rc, r ? nvb_result_error(r) : nvb_strerror(rc));
    return r;
}

static void test_registry(void)
{
    static const char *const linux_only[] = { "psync", "libaio", "io_uring", "nvme" };
    int n = nvb_engine_count(), seen = 0;
    for (int i = 0; i < n; i++) {
        const char *e = nvb_engine_name(i);
        seen += !strcmp(e, "wsync") + !strcmp(e, "iocp") + !strcmp(e, "ioring");
    }
    T_EQ(seen, 3);
    char why[256];
    T_EQ(nvb_engine_probe("wsync", why, sizeof why), 0);
    T_EQ(nvb_engine_probe("iocp", why, sizeof why), 0);
    T_EQ(nvb_engine_probe("null", why, sizeof why), 0);
    for (unsigned i = 0; i < sizeof linux_only / sizeof linux_only[0]; i++) {
        why[0] = 0;
        int rc = nvb_engine_probe(linux_only[i], why, sizeof why);
        if (rc == -ENOENT)
            continue; /* not in this build */
        T_CHECK_MSG(rc == -ENOTSUP, "%s probes %d", linux_only[i], rc);
        T_CHECK_MSG(why[0] != 0, "%s gives no reason", linux_only[i]);
    }
    int rc = nvb_engine_probe("ioring", why, sizeof why);
    fprintf(stderr, "   ioring: %s\n", rc == 0 ? "available" : why);
    if (t_is_wine())
        T_EQ(rc, -ENOTSUP);
    /* the default engine works here */
    struct nvb_workload *w = mk((const char *[]){ NULL }, NULL);
    char eng[32];
    T_CHECK(nvb_workload_get(w, "engine", eng, sizeof eng) > 0);
    fprintf(stderr, "   default engine: %s\n", eng);
    T_EQ(nvb_engine_probe(eng, NULL, 0), 0);
    nvb_workload_free(w);
}

/* A file of `size` bytes written with verify blocks by engine e, then
 * read back at random by e with verify=1: every block checks out. */
static void write_then_verify(const char *e, const char *qd, const char *extra_k, const char *extra_v)
{
    char file[MAX_PATH + 40];
    snprintf(file, sizeof file, "%s\\verify-%s.dat", g_dir, e);
    FILE *f = fopen(file, "wb");
    T_CHECK(f != NULL);
    if (!f)
        return;
    static char zero[1 << 16];
    for (int i = 0; i < 64; i++) /* 4 MiB */
        fwrite(zero, 1, sizeof zero, f);
    fclose(f);

    struct nvb_workload *w = mk((const char *[]){ "engine", e, "rw", "write", "bs", "16k", "qd", qd, "verify", "1",
                                                  "io_limit", "4M", "direct", "1", extra_k, extra_v, NULL },
                                file);
    struct nvb_result *r = run(w);
    if (r) {
        T_EQ(get(r, "write.ios"), 256);
        T_EQ(get(r, "errors.count"), 0);
        char *json = NULL;
        T_EQ(nvb_result_json(r, &json), 0);
        T_CHECK_MSG(json && strstr(json, "\"stack\":"), "engine_used has no stack");
        nvb_free(json);
    }
    nvb_result_free(r);
    nvb_workload_free(w);

    w = mk((const char *[]){ "engine", e, "rw", "randread", "bs", "16k", "qd", qd, "verify", "1", "ios", "2000",
                             "direct", "1", extra_k, extra_v, NULL },
           file);
    r = run(w);
    if (r) {
        T_EQ(get(r, "read.ios"), 2000);
        T_EQ(get(r, "verify.checked"), 2000);
        T_EQ(get(r, "verify.mismatches"), 0);
        T_CHECK(get(r, "read.lat_ns.p50") > 0);
    }
    nvb_result_free(r);
    nvb_workload_free(w);

    /* corrupt one block behind the engine's back: verify must notice */
    f = fopen(file, "r+b");
    if (f) {
        fseek(f, 16384 * 5 + 100, SEEK_SET);
        int c = fgetc(f);
        fseek(f, 16384 * 5 + 100, SEEK_SET);
        fputc(c ^ 0xff, f);
        fclose(f);
    }
    w = mk((const char *[]){ "engine", e, "rw", "read", "bs", "16k", "qd", qd, "verify", "1", "io_limit", "4M",
                             "direct", "0", "continue_on_error", "1", extra_k, extra_v, NULL },
           file);
    r = NULL;
    nvb_run(w, NULL, &r);
    if (r)
        T_CHECK_MSG(get(r, "verify.mismatches") >= 1, "a corrupted block went unnoticed by %s", e);
    nvb_result_free(r);
    nvb_workload_free(w);
    DeleteFileA(file);
}

static void test_wsync_verify(void) { write_then_verify("wsync", "1", NULL, NULL); }
static void test_iocp_verify(void) { write_then_verify("iocp", "16", NULL, NULL); }
static void test_iocp_skip_verify(void) { write_then_verify("iocp", "8", "iocp.skip_on_success", "1"); }

/* A directory target: the run lays out a scratch file, mixed I/O, then
 * removes it. CPU figures must be sane. */
static void test_iocp_scratch_cpu(void)
{
    struct nvb_workload *w = mk((const char *[]){ "engine", "iocp", "rw", "randrw", "bs", "4k", "qd", "32",
                                                  "jobs", "2", "size", "8M", "runtime", "1s", "verify", "1", NULL },
                                g_dir);
    struct nvb_result *r = run(w);
    if (r) {
        double ios = get(r, "read.ios") + get(r, "write.ios");
        T_CHECK(ios > 100);
        T_EQ(get(r, "verify.mismatches"), 0);
        T_CHECK(get(r, "verify.checked") > 0);
        double sys = get(r, "cpu.system_pct"), cores = get(r, "cpu.process_cores");
        fprintf(stderr, "   iocp qd32 x2: %.0f IOPS, system CPU %.1f%%, %.2f cores, %.1f us/IO\n",
                get(r, "read.iops") + get(r, "write.iops"), sys, cores, get(r, "cpu.cpu_us_per_io"));
        T_CHECK_MSG(sys > 0 && sys <= 100, "system_pct %.2f", sys);
        T_CHECK_MSG(cores > 0 && cores <= get(r, "cpu.ncpus") + 0.5, "process_cores %.2f", cores);
        T_CHECK(get(r, "cpu.cpu_us_per_io") > 0);
        /* one busy row per CPU, from NtQuerySystemInformation */
        double c0 = -1;
        T_EQ(nvb_result_get(r, "cpu.per_cpu_pct.0", &c0), 0);
        T_CHECK(c0 >= 0 && c0 <= 100);
        char *json = NULL;
        T_EQ(nvb_result_json(r, &json), 0);
        T_CHECK_MSG(json && strstr(json, "\"nvb-job-0\""), "the thread rows do not name the job threads");
        /* the event counters: null with the reason (docs/cpu.md, Windows) */
        T_CHECK_MSG(json && strstr(json, "\"null_reason\":\"unavailable: not measured on Windows"),
                    "cpu.counters does not say why it is null");
        /* what else Windows cannot give: null with "unavailable: <reason>";
         * the registry's facts in the environment; the disk driver's version */
        static const char *const nulls[] = {
            "\"interrupts\":{\"per_io\":null,\"null_reason\":\"unavailable: not measured on Windows",
            "\"placement\":{\"null_reason\":\"unavailable: not measured on Windows",
            "\"iowait\":null,\"steal\":null,",
            "\"missing_kinds_reason\":\"unavailable: this platform keeps no counter of iowait steal",
            "\"power_plan\":{\"value\":",
            "\"nvme_native_stack\":{\"value\":",
            "\"disk_driver_version\":",
            "\"energy\":{\"available\":false,\"reason\":\"not measured on Windows",
        };
        for (unsigned i = 0; json && i < sizeof nulls / sizeof nulls[0]; i++)
            T_CHECK_MSG(strstr(json, nulls[i]), "the result lacks %s", nulls[i]);
        /* the kinds Windows counts: user, system (kernel less idle, interrupt
         * and DPC time), irq (interrupt) and softirq (DPC), per I/O */
        double ku = -1, kb = -1;
        T_EQ(nvb_result_get(r, "cpu.per_io_us.user", &ku), 0);
        T_EQ(nvb_result_get(r, "cpu.per_io_us.busy", &kb), 0);
        T_CHECK_MSG(ku >= 0 && kb >= ku, "per_io_us user %g busy %g", ku, kb);
        nvb_free(json);
    }
    nvb_result_free(r);
    nvb_workload_free(w);
    /* the scratch file is gone */
    char pat[MAX_PATH + 40];
    snprintf(pat, sizeof pat, "%s\\.nvbench-scratch-*", g_dir);
    WIN32_FIND_DATAA fd;
    HANDLE h = FindFirstFileA(pat, &fd);
    T_CHECK(h == INVALID_HANDLE_VALUE);
    if (h != INVALID_HANDLE_VALUE)
        FindClose(h);
}

/* On Windows a deeper queue must raise throughput on a cached file; under
 * wine IOCP is serviced by one thread (~12k IOPS whatever the depth). */
static void test_iocp_depth(void)
{
    if (t_is_wine()) {
        fprintf(stderr, "   skipped under wine: no performance assertions\n");
        return;
    }
    double iops[2];
    const char *qd[2] = { "1", "32" };
    for (int i = 0; i < 2; i++) {
        struct nvb_workload *w = mk((const char *[]){ "engine", "iocp", "rw", "randread", "bs", "4k", "qd", qd[i],
                                                      "size", "64M", "runtime", "1s", "direct", "1", NULL },
                                    g_dir);
        struct nvb_result *r = run(w);
        iops[i] = r ? get(r, "read.iops") : 0;
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    T_CHECK_MSG(iops[1] > iops[0] * 1.2, "qd 32 %.0f IOPS vs qd 1 %.0f", iops[1], iops[0]);
}

/* direct=1 with a block size that is no multiple of the sector size: the
 * plan refuses it everywhere; Windows itself would fail the I/O too, wine
 * does not enforce it. */
static void test_alignment(void)
{
    struct nvb_workload *w = mk((const char *[]){ "engine", "iocp", "rw", "randread", "bs", "1000", "size", "1M",
                                                  "ios", "10", "direct", "1", NULL },
                                g_dir);
    struct nvb_result *r = NULL;
    T_EQ(nvb_run(w, NULL, &r), -EINVAL);
    nvb_result_free(r);
    nvb_workload_free(w);
}

/* The iocp engine stamps each I/O: t_sub just before its own ReadFile (the
 * runner's one stamp per batch is overwritten, so later I/Os of a batch
 * do not absorb the issue time of earlier ones), t_done when its packet
 * came off the port (or when ReadFile completed it inline, with
 * skip_on_success). Checked on the engine directly, against clock reads
 * around each call; no durations are asserted. */
static void stamps(int skip)
{
    enum { QD = 8, BS = 4096 };
    char path[MAX_PATH];
    snprintf(path, sizeof path, "%s\\stamps.dat", g_dir);
    HANDLE h = CreateFileA(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    T_CHECK(h != INVALID_HANDLE_VALUE);
    static char zero[QD * BS];
    DWORD wr = 0;
    T_CHECK(WriteFile(h, zero, sizeof zero, &wr, NULL) && wr == sizeof zero);
    CloseHandle(h);
    int fd = nvb__target_open(path, 0);
    T_CHECK_MSG(fd > 0, "open: %d", fd);
    void *bufs[QD];
    for (int i = 0; i < QD; i++)
        bufs[i] = nvb__alloc_aligned(4096, BS);
    int64_t opts[2] = { skip, 0 };
    unsigned char set[2] = { (unsigned char)skip, 0 };
    char why[256] = "";
    struct nvb__engine_ctx ctx = {
        .qd = QD, .nfds = 1, .fds = &fd, .direct = 0, .writes = 0, .bufs = bufs, .buf_len = BS, .cpu = -1,
        .opts = opts, .opts_set = set, .used = NULL, .wait_ns = NULL, .why = why, .why_len = sizeof why,
    };
    void *st = NULL;
    T_CHECK_MSG(nvb__engine_iocp.setup(&ctx, &st) == 0, "setup: %s", why);
    if (!st)
        return;
    struct nvb__io io[QD], *ios[QD], *out[QD];
    uint64_t batch = nvb__now_ns();
    for (int i = 0; i < QD; i++) {
        memset(&io[i], 0, sizeof io[i]);
        io[i].buf = bufs[i];
        io[i].off = (uint64_t)i * BS;
        io[i].len = BS;
        io[i].slot = (uint32_t)i;
        io[i].dir = NVB_READ;
        io[i].t_sub = batch; /* what the runner sets: one stamp for the batch */
        ios[i] = &io[i];
    }
    uint64_t t0 = nvb__now_ns();
    T_EQ(nvb__engine_iocp.submit(st, ios, QD), 0);
    uint64_t t1 = nvb__now_ns();
    for (int i = 0; i < QD; i++) {
        T_CHECK_MSG(io[i].t_sub >= t0 && io[i].t_sub <= t1, "I/O %d: t_sub outside its submit() call", i);
        if (i)
            T_CHECK_MSG(io[i].t_sub >= io[i - 1].t_sub, "I/O %d stamped before the one issued ahead of it", i);
    }
    T_CHECK(io[QD - 1].t_sub > batch);
    int got = 0;
    while (got < QD) {
        uint64_t r0 = nvb__now_ns();
        int n = nvb__engine_iocp.reap(st, out, QD, 1);
        uint64_t r1 = nvb__now_ns();
        T_CHECK_MSG(n > 0, "reap: %d", n);
        if (n <= 0)
            break;
        for (int k = 0; k < n; k++) {
            struct nvb__io *x = out[k];
            T_EQ(x->res, BS);
            T_CHECK_MSG(x->t_done != 0, "slot %u: no completion stamp", x->slot);
            T_CHECK_MSG(x->t_done >= x->t_sub, "slot %u: completed before it was issued", x->slot);
            /* inline completions (skip_on_success) were stamped inside submit() */
            T_CHECK_MSG(x->t_done <= r1 && (x->t_done >= r0 || (skip && x->t_done <= t1)),
                        "slot %u: t_done outside the call that returned it", x->slot);
        }
        got += n;
    }
    T_EQ(got, QD);
    nvb__engine_iocp.teardown(st);
    nvb__target_close(fd);
    for (int i = 0; i < QD; i++)
        nvb__free_aligned(bufs[i]);
    DeleteFileA(path);
}

static void test_iocp_stamps(void) { stamps(0); }
static void test_iocp_stamps_skip(void) { stamps(1); }

int main(void)
{
    fprintf(stderr, "wine: %s\n", t_is_wine() ? "yes" : "no");
    t_tmpdir("engines", g_dir, sizeof g_dir);
    T_RUN(test_registry);
    T_RUN(test_wsync_verify);
    T_RUN(test_iocp_verify);
    T_RUN(test_iocp_skip_verify);
    T_RUN(test_iocp_scratch_cpu);
    T_RUN(test_iocp_depth);
    T_RUN(test_iocp_stamps);
    T_RUN(test_iocp_stamps_skip);
    T_RUN(test_alignment);
    RemoveDirectoryA(g_dir);
    return t_done();
}
