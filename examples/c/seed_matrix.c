/*
 * seed_matrix: the published comparison's matrix (random 4K, random 64K,
 * sequential 64K, sequential 128K; each read and write) over every I/O
 * engine that works here, printed in the published table layout with the
 * CPU cost per I/O that the articles had to infer.
 *
 *   seed_matrix [--runtime 2s] [--qd 32] [--jobs 1] [--size 512M]
 *               [--precondition N] [--steady-state iops|bw|lat] [--ss-window DUR] [--interval DUR] [TARGET]
 *
 * --precondition and --steady-state apply to the write cells: N sequential
 * write passes over the target before each, and each ended at steady state
 * (--runtime is then the cap; a round is one --interval, default 1s;
 * docs/steady-state.md).
 *
 * TARGET is a regular file, a block device (writes need
 * --allow-destructive), or a directory; by default a scratch file in a new
 * temporary directory, removed afterwards.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nvbench.h>

#ifdef _WIN32
#include <direct.h>
#include <io.h>
/* mkdtemp for the C runtime: name from the template, then create it. */
static char *mkdtemp(char *t)
{
    return _mktemp(t) && _mkdir(t) == 0 ? t : NULL;
}
#define rmdir _rmdir
#define fsync _commit
#endif

#define MAX_ENGINES 8

static const struct cell {
    const char *label, *rw, *bs;
} cells[] = {
    {"Random 4K read", "randread", "4k"},     {"Random 64K read", "randread", "64k"},
    {"Sequential 64K read", "read", "64k"},   {"Sequential 128K read", "read", "128k"},
    {"Random 4K write", "randwrite", "4k"},   {"Random 64K write", "randwrite", "64k"},
    {"Sequential 64K write", "write", "64k"}, {"Sequential 128K write", "write", "128k"},
};
#define NCELLS (sizeof cells / sizeof cells[0])

struct fig {
    int ok;
    double gib_s, iops, lat_ms, cpu_pct, us_per_io, iops_core;
};

static struct nvb_cancel *g_cancel;
static volatile sig_atomic_t g_signal; /* the first signal: exit 128 + it (130, 143) */
static void on_signal(int sig)
{
    if (!g_signal)
        g_signal = sig;
    nvb_cancel_request(g_cancel);
}

/* Write `size` bytes of incompressible data so reads hit real blocks. */
static int make_scratch(const char *path, const char *size)
{
    char *end;
    unsigned long long n = strtoull(size, &end, 10);
    switch (*end) {
    case 'k': case 'K': n <<= 10; break;
    case 'm': case 'M': n <<= 20; break;
    case 'g': case 'G': n <<= 30; break;
    case 0: break;
    default: fprintf(stderr, "seed_matrix: invalid --size '%s'\n", size); return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return -1;
    }
    static unsigned long long chunk[1 << 17]; /* 1 MiB */
    unsigned long long x = 0x243f6a8885a308d3ull;
    for (size_t i = 0; i < sizeof chunk / sizeof chunk[0]; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        chunk[i] = x;
    }
    for (unsigned long long off = 0; off < n; off += sizeof chunk) {
        size_t len = n - off < sizeof chunk ? (size_t)(n - off) : sizeof chunk;
        chunk[0] = off; /* no two blocks alike */
        if (fwrite(chunk, 1, len, f) != len) {
            perror(path);
            fclose(f);
            return -1;
        }
    }
    if (fflush(f) || fsync(fileno(f))) {
        perror(path);
        fclose(f);
        return -1;
    }
    return fclose(f) ? -1 : 0;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--runtime DUR] [--qd N] [--jobs N] [--size SIZE] [--allow-destructive]\n"
            "       [--precondition N] [--steady-state iops|bw|lat] [--ss-window DUR] [--interval DUR] [TARGET]\n",
            argv0);
}

int main(int argc, char **argv)
{
    const char *runtime = "2s", *qd = "32", *jobs = "1", *size = "512M", *target = NULL;
    const char *precondition = "0", *ss = "off", *ss_window = "0", *interval = "1s";
    int destructive = 0, size_given = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runtime") && i + 1 < argc) runtime = argv[++i];
        else if (!strcmp(argv[i], "--qd") && i + 1 < argc) qd = argv[++i];
        else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) jobs = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) { size = argv[++i]; size_given = 1; }
        else if (!strcmp(argv[i], "--allow-destructive")) destructive = 1;
        else if (!strcmp(argv[i], "--precondition") && i + 1 < argc) precondition = argv[++i];
        else if (!strcmp(argv[i], "--steady-state") && i + 1 < argc) ss = argv[++i];
        else if (!strcmp(argv[i], "--ss-window") && i + 1 < argc) ss_window = argv[++i];
        else if (!strcmp(argv[i], "--interval") && i + 1 < argc) interval = argv[++i];
        else if (argv[i][0] == '-') { usage(argv[0]); return 2; }
        else target = argv[i];
    }
#ifdef _WIN32
    char tmpdir[512];
    snprintf(tmpdir, sizeof tmpdir, "%s\\nvbench-seed.XXXXXX", getenv("TEMP") ? getenv("TEMP") : ".");
#else
    char tmpdir[] = "/tmp/nvbench-seed.XXXXXX";
#endif
    char scratch[600] = "";
    int own_dir = 0;
    if (!target) {
        /* One scratch file laid out once and shared by every cell: a
         * directory target would make each run lay out its own. */
        if (!mkdtemp(tmpdir)) {
            perror("seed_matrix: mkdtemp");
            return 1;
        }
        own_dir = 1;
        snprintf(scratch, sizeof scratch, "%s/scratch", tmpdir);
        if (make_scratch(scratch, size) < 0) {
            unlink(scratch);
            rmdir(tmpdir);
            return 1;
        }
        target = scratch;
    } else {
        struct stat st;
        if (stat(target, &st) == 0 && S_ISDIR(st.st_mode))
            size_given = 1; /* the library lays out a scratch file of --size there */
    }
    const char *engines[MAX_ENGINES];
    int ne = 0;
    for (int i = 0; i < nvb_engine_count() && ne < MAX_ENGINES; i++) {
        const char *name = nvb_engine_name(i);
        char why[256];
        if (!strcmp(name, "null"))
            continue;
        if (nvb_engine_probe(name, why, sizeof why) != 0) {
            fprintf(stderr, "seed_matrix: engine %s skipped: %s\n", name, why);
            continue;
        }
        /* Left out: an engine that does not take this kind of target
         * (nvme drives NVMe namespaces, not the scratch file). */
        struct nvb_workload *probe;
        if (nvb_workload_new(&probe) == 0) {
            int unfit = nvb_workload_set(probe, "engine", name) == 0 &&
                        nvb_workload_set(probe, "rw", "randread") == 0 &&
                        nvb_workload_add_target(probe, target) == 0 && nvb_workload_validate(probe) == -ENODEV;
            if (unfit)
                fprintf(stderr, "seed_matrix: engine %s skipped: %s\n", name, nvb_workload_error(probe));
            nvb_workload_free(probe);
            if (unfit)
                continue;
        }
        engines[ne++] = name;
    }
    if (nvb_cancel_new(&g_cancel) < 0)
        return 1;
#ifdef _WIN32
    /* The C runtime runs the handler on the console's Ctrl-C thread. */
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
#else
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
#endif

    static struct fig figs[NCELLS][MAX_ENGINES];
    int status = 0;
    fprintf(stderr, "seed_matrix: %d engines x %zu cells, %s each, qd %s, jobs %s, target %s\n", ne, NCELLS,
            runtime, qd, jobs, target);
    for (size_t c = 0; c < NCELLS && !nvb_cancel_requested(g_cancel); c++) {
        for (int e = 0; e < ne && !nvb_cancel_requested(g_cancel); e++) {
            struct nvb_workload *w;
            if (nvb_workload_new(&w) < 0)
                return 1;
            const char *kv[][2] = {{"engine", engines[e]}, {"rw", cells[c].rw}, {"bs", cells[c].bs},
                                   {"qd", qd}, {"jobs", jobs}, {"runtime", runtime}, {"size", own_dir || !size_given ? "0" : size},
                                   {"allow_destructive", destructive ? "1" : "0"}, {"interval", interval}};
            /* the write cells: preconditioned, and ended at steady state when asked */
            int writes = strstr(cells[c].rw, "write") != NULL, judged = writes && strcmp(ss, "off");
            const char *wkv[][2] = {{"precondition", precondition}, {"ss", ss}, {"ss.window", ss_window},
                                    {"ss.stop", judged ? "1" : "0"}};
            int rc = 0;
            for (size_t k = 0; k < sizeof kv / sizeof kv[0] && rc == 0; k++)
                rc = nvb_workload_set(w, kv[k][0], kv[k][1]);
            for (size_t k = 0; writes && k < sizeof wkv / sizeof wkv[0] && rc == 0; k++)
                rc = nvb_workload_set(w, wkv[k][0], wkv[k][1]);
            if (rc == 0)
                rc = nvb_workload_add_target(w, target);
            if (rc < 0) {
                fprintf(stderr, "seed_matrix: %s\n", nvb_workload_error(w));
                nvb_workload_free(w);
                status = 2;
                goto out;
            }
            struct nvb_run_opts opts = NVB_RUN_OPTS_INIT;
            opts.cancel = g_cancel;
            struct nvb_result *r = NULL;
            rc = nvb_run(w, &opts, &r);
            if (rc < 0) {
                fprintf(stderr, "seed_matrix: %s on %s: %s\n", cells[c].label, engines[e],
                        r ? nvb_result_error(r) : nvb_strerror(rc));
                status = rc == -ECANCELED ? 128 + (g_signal ? (int)g_signal : SIGINT) : 1;
            } else {
                int d = strstr(cells[c].rw, "write") ? NVB_WRITE : NVB_READ;
                struct fig *f = &figs[c][e];
                f->ok = 1;
                f->gib_s = nvb_result_bw(r, d) / (1024.0 * 1024 * 1024);
                f->iops = nvb_result_iops(r, d);
                f->lat_ms = nvb_result_lat_mean(r, d) / 1e6;
                nvb_result_get(r, "cpu.system_pct", &f->cpu_pct);
                nvb_result_get(r, "cpu.cpu_us_per_io", &f->us_per_io);
                nvb_result_get(r, "cpu.iops_per_core", &f->iops_core);
                double at = NAN;
                if (judged)
                    nvb_result_get(r, "steady_state.at_s", &at);
                fprintf(stderr, "  %-22s %-9s %12.0f IOPS%s", cells[c].label, engines[e], f->iops,
                        judged ? (isnan(at) ? "  (NOT steady)\n" : "") : "\n");
                if (judged && !isnan(at))
                    fprintf(stderr, "  (steady at %.1f s)\n", at);
            }
            nvb_result_free(r);
            nvb_workload_free(w);
        }
    }
    /* The published layout: a block per workload, metric rows, a column per stack. */
    for (size_t c = 0; c < NCELLS; c++) {
        printf("\n%s\n", cells[c].label);
        printf("| %-24s |", "Metric");
        for (int e = 0; e < ne; e++)
            printf(" %-13s |", engines[e]);
        printf("\n|%s|", "--------------------------");
        for (int e = 0; e < ne; e++)
            printf("%s|", "---------------");
        printf("\n");
        static const char *const rows[] = {"Bandwidth (GiB/s)", "IOPS", "Average Latency (ms)",
                                           "Total CPU Usage (%)", "CPU per I/O (us)", "IOPS per core"};
        for (int m = 0; m < 6; m++) {
            printf("| %-24s |", rows[m]);
            for (int e = 0; e < ne; e++) {
                const struct fig *f = &figs[c][e];
                if (!f->ok) {
                    printf(" %-13s |", "-");
                    continue;
                }
                double v[] = {f->gib_s, f->iops, f->lat_ms, f->cpu_pct, f->us_per_io, f->iops_core};
                const char *fmt = m == 0 ? " %13.3f |" : m == 2 ? " %13.3f |" : m == 3 || m == 4 ? " %13.2f |" : " %13.0f |";
                printf(fmt, v[m]);
            }
            printf("\n");
        }
    }
out:
    if (own_dir) {
        unlink(scratch);
        rmdir(tmpdir);
    }
    nvb_cancel_free(g_cancel);
    return status;
}
