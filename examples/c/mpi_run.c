/*
 * mpi_run: one workload on every MPI rank at once, each rank on its own
 * targets, started together, merged exactly on rank 0.
 *
 *   mpirun -n 4 mpi_run [OPTIONS] KEY=VALUE... [TARGET_TEMPLATE...]
 *
 *   mpirun -n 2 --host a,b mpi_run engine=io_uring rw=randread bs=4k qd=32 \
 *          runtime=10s align_interval=1 /dev/nvme0n1
 *   mpirun -n 4 mpi_run ios=100000 size=64M /scratch/{host}/r{rank}
 *   mpirun -n 2 mpi_run --targets-rank 0:/dev/nvme0n1,/dev/nvme1n1 \
 *          --targets-rank 1:/dev/nvme2n1 runtime=5s
 *
 * Target templates expand {rank}, {size} (ranks in the run) and {host}
 * (MPI_Get_processor_name). --targets-rank N:PATH[,PATH...] gives rank N
 * its own list instead of the templates (repeatable). --set-rank
 * N:KEY=VALUE sets a key on rank N only (cpus= of one host, or a fault.*
 * key to see how the run copes when one host fails).
 *
 * Options: --json FILE (the merged result), --parts FILE (every rank's own
 * result, {"results": [...]} in rank order), --quiet (no table).
 *
 * How it goes: every rank builds the workload and validates it; an
 * MPI_Allreduce agrees on success, and if any rank failed (a missing
 * target, a bad key) rank 0 names each failing rank and its host and
 * every rank exits 2, nobody waits. Then nvb_run() on every rank, with a
 * start barrier (an MPI_Allreduce of each rank's setup status: the
 * barrier, and the news of a rank whose setup failed late) so that the
 * measured windows start together. A rank whose run fails, or that gets
 * SIGINT/SIGTERM (mpirun turns Ctrl-C into SIGTERM to every rank), tells
 * the others, and they cancel their runs too. Finally every rank's JSON
 * goes to rank 0 (MPI_Gatherv), which merges them with nvb_result_merge()
 * and prints the totals and one line per host.
 *
 * Exit status (the same on every rank): 0 success, 2 bad input, 1 a run
 * failed, 130 interrupted (the partial results are still merged).
 */
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvbench.h>

#include "example_print.h"
#include "example_signals.h"

enum { TAG_STOP = 77 };
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_INPUT = 2, EXIT_INTERRUPTED = 130 };

static struct nvb_cancel *g_cancel;
static volatile sig_atomic_t g_signalled;

static void on_signal(int sig)
{
    g_signalled = sig;
    nvb_cancel_request(g_cancel); /* async-signal-safe */
}

struct ctx {
    int rank, size;
    MPI_Request stop_rx;       /* a stop from another rank */
    int stop_in;
    int stop_sent;
    MPI_Request *stop_tx;
};

/* Tell every other rank to stop (once): a signal or a failed run here. */
static void send_stop(struct ctx *c)
{
    static int one = 1;
    if (c->stop_sent || c->stop_in)
        return;
    c->stop_sent = 1;
    for (int r = 0; r < c->size; r++)
        if (r != c->rank)
            MPI_Isend(&one, 1, MPI_INT, r, TAG_STOP, MPI_COMM_WORLD, &c->stop_tx[r]);
}

/* nvb_run_opts.poll: on the calling thread every poll_ms. */
static int poll_stop(void *arg)
{
    struct ctx *c = arg;
    if (g_signalled)
        send_stop(c);
    if (!c->stop_in) {
        int flag = 0;
        MPI_Test(&c->stop_rx, &flag, MPI_STATUS_IGNORE);
        if (flag)
            c->stop_in = 1;
    }
    return c->stop_in;
}

/* nvb_run_opts.start_barrier: all ranks leave together, and all learn
 * whether any rank's setup failed (then every rank abandons its run). */
static int start_barrier(int status, void *arg)
{
    (void)arg;
    int all = 0;
    MPI_Allreduce(&status, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all < 0;
}

/* ------------------------------------------------------------ targets */

struct strv {
    char **v;
    int n, cap;
};

static void strv_push(struct strv *s, char *p)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v);
        if (!s->v) {
            example_perror("mpi_run");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    s->v[s->n++] = p;
}

/* {rank}, {size}, {host} replaced; anything else in braces is kept. */
static char *expand(const char *t, int rank, int size, const char *host)
{
    size_t cap = strlen(t) + 256, n = 0;
    char *o = malloc(cap);
    for (const char *p = t; o && *p;) {
        char rep[300];
        const char *r = NULL;
        size_t skip = 0;
        if (!strncmp(p, "{rank}", 6)) { snprintf(rep, sizeof rep, "%d", rank); r = rep; skip = 6; }
        else if (!strncmp(p, "{size}", 6)) { snprintf(rep, sizeof rep, "%d", size); r = rep; skip = 6; }
        else if (!strncmp(p, "{host}", 6)) { r = host; skip = 6; }
        size_t add = r ? strlen(r) : 1;
        if (n + add + 1 > cap) {
            cap = 2 * (n + add + 1);
            char *q = realloc(o, cap);
            if (!q) {
                free(o);
                return NULL;
            }
            o = q;
        }
        if (r) {
            memcpy(o + n, r, add);
            p += skip;
        } else {
            o[n] = *p++;
        }
        n += add;
    }
    if (o)
        o[n] = 0;
    return o;
}

/* ------------------------------------------------------------ report */

/* Totals, then one line per host: the rows of the merged result are the
 * parts in merge order, so row i is parts[i]'s host. */
static void print_table(const struct nvb_result *m, struct nvb_result *const *parts, int nranks)
{
    double v, dur = nvb_result_duration(m);
    printf("nvbench mpi_run: %d ranks, window %.3f s\n", nranks, dur);
    printf("total: %.0f IOPS (read %.0f, write %.0f), %.1f MiB/s, p99 read %.1f us, write %.1f us",
           nvb_result_iops(m, NVB_READ) + nvb_result_iops(m, NVB_WRITE), nvb_result_iops(m, NVB_READ),
           nvb_result_iops(m, NVB_WRITE), (nvb_result_bw(m, NVB_READ) + nvb_result_bw(m, NVB_WRITE)) / 1048576.0,
           nvb_result_lat_pct(m, NVB_READ, 99) / 1e3, nvb_result_lat_pct(m, NVB_WRITE, 99) / 1e3);
    if (nvb_result_get(m, "cpu.cpu_us_per_io", &v) == 0)
        printf(", %.2f CPU-us/IO", v);
    printf("\n%4s  %-20s %12s %10s %10s %10s %9s %8s %8s %8s\n", "rank", "host", "IOPS", "MiB/s", "p99r_us",
           "p99w_us", "cpu_us/io", "sys%", "first_s", "last_s");
    for (int i = 0;; i++) {
        char path[96];
        double iops = 0, bw = 0, p99r = 0, p99w = 0, cpu = 0, sys = -1, first = 0, last = 0;
        snprintf(path, sizeof path, "hosts.%d.total.iops", i);
        if (nvb_result_get(m, path, &iops) < 0)
            break;
#define G(key, var) do { snprintf(path, sizeof path, "hosts.%d." key, i); nvb_result_get(m, path, &var); } while (0)
        G("total.bw_bytes_s", bw);
        G("read.lat_p99_ns", p99r);
        G("write.lat_p99_ns", p99w);
        G("cpu.cpu_us_per_io", cpu);
        G("cpu.system_pct", sys);
        G("first_done_s", first);
        G("last_done_s", last);
#undef G
        printf("%4d  %-20.20s %12.0f %10.1f %10.1f %10.1f %9.2f %8.1f %8.3f %8.3f\n", i, nvb_result_host(parts[i]),
               iops, bw / 1048576.0, p99r / 1e3, p99w / 1e3, cpu, sys, first, last);
    }
}

static int write_file(const char *path, const char *a, const char *b, const char *c)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        example_perror(path);
        return -1;
    }
    fputs(a, f);
    if (b)
        fputs(b, f);
    if (c)
        fputs(c, f);
    return fclose(f);
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct ctx c;
    memset(&c, 0, sizeof c);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int hl = 0;
    MPI_Get_processor_name(host, &hl);

    const char *json_out = NULL, *parts_out = NULL;
    int quiet = 0;
    struct strv keys = {0}, templates = {0}, mine = {0}, rank_keys = {0};
    int have_mine = 0;
    char msg[1024] = "";
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (c.rank == 0)
                fprintf(stderr, "usage: mpirun -n N %s [--json F] [--parts F] [--quiet] "
                        "[--targets-rank N:PATH,...]... [--set-rank N:KEY=VALUE]... KEY=VALUE... "
                        "[TARGET_TEMPLATE...]\n"
                        "templates expand {rank}, {size}, {host}\n", argv[0]);
            MPI_Finalize();
            return EXIT_INPUT;
        } else if ((!strcmp(a, "--json") || !strcmp(a, "--parts") || !strcmp(a, "--targets-rank") ||
                    !strcmp(a, "--set-rank")) && i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(a, "--json")) {
                json_out = v;
            } else if (!strcmp(a, "--parts")) {
                parts_out = v;
            } else if (!strcmp(a, "--set-rank")) {
                char *end;
                long r = strtol(v, &end, 10);
                if (end == v || *end != ':' || r < 0 || !strchr(end + 1, '=')) {
                    snprintf(msg, sizeof msg, "--set-rank '%s': expected N:KEY=VALUE", v);
                    bad = 1;
                } else if (r == c.rank) {
                    strv_push(&rank_keys, strdup(end + 1));
                }
            } else {
                char *end;
                long r = strtol(v, &end, 10);
                if (end == v || *end != ':' || r < 0) {
                    snprintf(msg, sizeof msg, "--targets-rank '%s': expected N:PATH[,PATH...]", v);
                    bad = 1;
                } else if (r == c.rank) {
                    have_mine = 1;
                    char *list = strdup(end + 1);
                    for (char *s = strtok(list, ","); s; s = strtok(NULL, ","))
                        strv_push(&mine, expand(s, c.rank, c.size, host));
                    free(list);
                }
            }
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (a[0] == '-' && a[1] == '-') {
            snprintf(msg, sizeof msg, "unknown option '%s'", a);
            bad = 1;
        } else if (strchr(a, '=') && a[0] != '/' && a[0] != '.') {
            strv_push(&keys, (char *)a);
        } else {
            strv_push(&templates, (char *)a);
        }
    }

    /* The workload of this rank: the common keys, then its own. */
    for (int i = 0; i < rank_keys.n; i++)
        strv_push(&keys, rank_keys.v[i]);
    struct nvb_workload *w = NULL;
    int rc = 0;
    if (!bad && (rc = nvb_workload_new(&w)) < 0) {
        snprintf(msg, sizeof msg, "%s", nvb_strerror(rc));
        bad = 1;
    }
    for (int pass = 0; pass < 2 && !bad; pass++)  /* the engine first: its keys are checked against it */
        for (int i = 0; i < keys.n && !bad; i++) {
            char *eq = strchr(keys.v[i], '=');
            *eq = 0;
            if ((pass == 0) == !strcmp(keys.v[i], "engine") && nvb_workload_set(w, keys.v[i], eq + 1) < 0) {
                snprintf(msg, sizeof msg, "%s", nvb_workload_error(w));
                bad = 1;
            }
            *eq = '=';
        }
    if (!bad) {
        if (!have_mine)
            for (int i = 0; i < templates.n; i++)
                strv_push(&mine, expand(templates.v[i], c.rank, c.size, host));
        for (int i = 0; i < mine.n && !bad; i++)
            if (!mine.v[i] || nvb_workload_add_target(w, mine.v[i]) < 0) {
                snprintf(msg, sizeof msg, "%s", mine.v[i] ? nvb_workload_error(w) : "out of memory");
                bad = 1;
            }
    }
    if (!bad && (rc = nvb_workload_validate(w)) < 0) {
        snprintf(msg, sizeof msg, "%s", nvb_workload_error(w)[0] ? nvb_workload_error(w) : nvb_strerror(rc));
        bad = 1;
    }

    /* Agree before anyone starts: a rank that cannot run stops them all. */
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad) {
        char line[1400];
        snprintf(line, sizeof line, "%s", bad ? msg : "");
        char *all = c.rank == 0 ? malloc((size_t)c.size * sizeof line) : NULL;
        char hosts_buf[MPI_MAX_PROCESSOR_NAME + 1];
        char *hosts = c.rank == 0 ? malloc((size_t)c.size * sizeof hosts_buf) : NULL;
        memset(hosts_buf, 0, sizeof hosts_buf);
        snprintf(hosts_buf, sizeof hosts_buf, "%s", host);
        MPI_Gather(line, sizeof line, MPI_CHAR, all, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Gather(hosts_buf, sizeof hosts_buf, MPI_CHAR, hosts, sizeof hosts_buf, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (c.rank == 0) {
            int nbad = 0;
            for (int r = 0; r < c.size; r++)
                if (all[(size_t)r * sizeof line]) {
                    example_fprintf(stderr, "mpi_run: rank %d (host %s): %s\n", r, hosts + (size_t)r * sizeof hosts_buf,
                            all + (size_t)r * sizeof line);
                    nbad++;
                }
            example_fprintf(stderr, "mpi_run: %d of %d ranks cannot run the workload; nothing was run\n", nbad, c.size);
        }
        free(all);
        free(hosts);
        nvb_workload_free(w);
        MPI_Finalize();
        return EXIT_INPUT;
    }

    /* Run. */
    nvb_cancel_new(&g_cancel);
    example_catch_signals(on_signal);
    c.stop_tx = calloc((size_t)c.size, sizeof *c.stop_tx);
    for (int r = 0; r < c.size; r++)
        c.stop_tx[r] = MPI_REQUEST_NULL;
    static int stop_buf;
    MPI_Irecv(&stop_buf, 1, MPI_INT, MPI_ANY_SOURCE, TAG_STOP, MPI_COMM_WORLD, &c.stop_rx);

    struct nvb_run_opts opts = NVB_RUN_OPTS_INIT;
    opts.cancel = g_cancel;
    opts.poll = poll_stop;
    opts.poll_arg = &c;
    opts.poll_ms = 50;
    opts.start_barrier = start_barrier;
    struct nvb_result *r = NULL;
    rc = nvb_run(w, &opts, &r);
    if (rc < 0 && rc != -ECANCELED)
        send_stop(&c);    /* a failed run here ends the run everywhere */
    if (g_signalled)
        send_stop(&c);
    if (!c.stop_in) {
        MPI_Cancel(&c.stop_rx);
        MPI_Wait(&c.stop_rx, MPI_STATUS_IGNORE);
    }
    MPI_Waitall(c.size, c.stop_tx, MPI_STATUSES_IGNORE);

    /* Gather every rank's JSON on rank 0. */
    char *json = NULL;
    if (!r || nvb_result_json(r, &json) < 0) {
        json = NULL;
    }
    int len = json ? (int)strlen(json) : 0;
    int *lens = c.rank == 0 ? calloc((size_t)c.size, sizeof *lens) : NULL;
    int *offs = c.rank == 0 ? calloc((size_t)c.size, sizeof *offs) : NULL;
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char *all = NULL;
    if (c.rank == 0) {
        long total = 0;
        for (int i = 0; i < c.size; i++) {
            offs[i] = (int)total;
            total += lens[i] + 1;
        }
        all = calloc((size_t)total + 1, 1);
    }
    MPI_Gatherv(json ? json : "", len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);

    int status = EXIT_OK;
    if (c.rank == 0) {
        struct nvb_result **parts = calloc((size_t)c.size, sizeof *parts);
        int nparts = 0, interrupted = g_signalled != 0;
        for (int i = 0; i < c.size; i++) {
            char why[512];
            if (!lens[i]) {
                example_fprintf(stderr, "mpi_run: rank %d sent no result\n", i);
                status = EXIT_FAIL;
                continue;
            }
            if (nvb_result_parse(all + offs[i], (size_t)lens[i], &parts[nparts], why, sizeof why) < 0) {
                example_fprintf(stderr, "mpi_run: rank %d: its result cannot be read: %s\n", i, why);
                status = EXIT_FAIL;
                continue;
            }
            const struct nvb_result *p = parts[nparts++];
            if (nvb_result_errno(p) && !nvb_result_cancelled(p)) {
                example_fprintf(stderr, "mpi_run: rank %d (host %s): %s\n", i, nvb_result_host(p), nvb_result_error(p));
                status = EXIT_FAIL;
            } else if (nvb_result_cancelled(p)) {
                interrupted = 1;
            }
        }
        if (status == EXIT_OK && interrupted)
            status = EXIT_INTERRUPTED;
        if (interrupted)
            example_fprintf(stderr, "mpi_run: interrupted; the figures are partial\n");
        struct nvb_result *m = NULL;
        if (nparts && nvb_result_merge(&m, (const struct nvb_result *const *)parts, (size_t)nparts) == 0) {
            char *mj = NULL;
            if (nvb_result_json(m, &mj) == 0) {
                if (json_out && write_file(json_out, mj, NULL, NULL) < 0)
                    status = EXIT_FAIL;
                if (!quiet)
                    print_table(m, parts, nparts);
                nvb_free(mj);
            }
            nvb_result_free(m);
        } else if (nparts) {
            example_fprintf(stderr, "mpi_run: merging the results failed\n");
            status = EXIT_FAIL;
        }
        if (parts_out) {
            /* every rank's own result, in rank order */
            size_t cap = 64;
            for (int i = 0; i < c.size; i++)
                cap += (size_t)lens[i] + 2;
            char *ps = malloc(cap), *o = ps;
            o += sprintf(o, "{\"results\":[");
            for (int i = 0, first = 1; i < c.size; i++) {
                if (!lens[i])
                    continue;
                if (!first)
                    *o++ = ',';
                first = 0;
                memcpy(o, all + offs[i], (size_t)lens[i]);
                o += lens[i];
                while (o > ps && (o[-1] == '\n'))
                    o--;
            }
            sprintf(o, "]}\n");
            if (write_file(parts_out, ps, NULL, NULL) < 0)
                status = EXIT_FAIL;
            free(ps);
        }
        for (int i = 0; i < nparts; i++)
            nvb_result_free(parts[i]);
        free(parts);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);

    nvb_free(json);
    free(all);
    free(lens);
    free(offs);
    free(c.stop_tx);
    nvb_result_free(r);
    nvb_workload_free(w);
    nvb_cancel_free(g_cancel);
    for (int i = 0; i < mine.n; i++)
        free(mine.v[i]);
    free(mine.v);
    for (int i = 0; i < rank_keys.n; i++)
        free(rank_keys.v[i]);
    free(rank_keys.v);
    free(keys.v);
    free(templates.v);
    MPI_Finalize();
    return status;
}
