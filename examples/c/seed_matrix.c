/*
 * seed_matrix: the published comparison's matrix (random 4K, random 64K,
 * sequential 64K, sequential 128K; each read and write) over every I/O
 * engine that works here, printed in the published table layout with the
 * CPU cost per I/O that the articles had to infer.
 *
 *   seed_matrix [--runtime 2s] [--qd 32] [--jobs 1] [--size 512M] [--engines A,B] [--repeat N]
 *               [--json FILE] [--stack windows_native|windows_non_native]
 *               [--precondition N] [--steady-state iops|bw|lat] [--ss-window DUR] [--interval DUR]
 *               [TARGET...]
 *   seed_matrix --from-json RESULTS.json
 *
 * TARGET is a regular file, a block device (writes need
 * --allow-destructive), or a directory; several (a JBOD) make every run
 * spread its I/O over them all, as one workload with several targets; by default a scratch file in a new
 * temporary directory, removed afterwards. --from-json prints the table of
 * saved results instead (a JSON array of results as the library writes
 * them, e.g. run_workload's output, one result, or {"results": [...]}) and
 * runs nothing. --engines runs only those engines (default: every one that
 * works here but null); --repeat sweeps the matrix N times and the table
 * shows the means; --json saves {"results": [...]}, one result per run,
 * each with the machine's facts and, with --stack, the storage stack the
 * user states (seed_facts.h; the Windows package's script passes it).
 * --precondition and --steady-state apply to the write cells: N sequential
 * write passes over the target before each, and each ended at steady state
 * (--runtime is then the cap; a round is one --interval, default 1s;
 * docs/steady-state.md); the keys they add are the library's mapping
 * (nvb_seed_write_keys), the one Python's and Lua's matrices use.
 *
 * The table is the one layout of every front door (docs/analysis.md, "The
 * text layout"): Python's ResultSet.table() and Lua's format_seed print the
 * same text for the same results (tests/scripts/test_seed_table.sh).
 */
#include <errno.h>
#include <math.h> /* NAN, isfinite: macros, no libm */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nvbench.h>

#include "example_print.h"
#include "example_signals.h"
#include "seed_facts.h"
#include "seed_tmpdir.h"

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
#define MAX_TARGETS 64
#define CELL_TEXT 32

/* The published cells, in the published order: the library's table
 * (nvb_seed_cell), the one Python's and Lua's matrices read as well. */
#define MAX_CELLS 16
static struct cell {
    const char *label, *rw, *bs;
} cells[MAX_CELLS];
static size_t ncells;

static int load_cells(void)
{
    ncells = nvb_seed_cells();
    if (ncells > MAX_CELLS) {
        example_fprintf(stderr, "seed_matrix: the library has %zu seed cells, more than %d\n", ncells, MAX_CELLS);
        return -1;
    }
    for (size_t c = 0; c < ncells; c++) {
        if (nvb_seed_cell(c, "label", &cells[c].label) || nvb_seed_cell(c, "rw", &cells[c].rw) ||
            nvb_seed_cell(c, "bs", &cells[c].bs)) {
            example_fprintf(stderr, "seed_matrix: seed cell %zu unreadable\n", c);
            return -1;
        }
    }
    return 0;
}

/* ran: the column has this cell (a run was made or loaded); ok: it has figures. */
struct fig {
    int ran, ok, n; /* n: the runs with figures, averaged */
    int qd_asked, qd_ran; /* the queue depth asked for, and the one the engine ran at */
    double gib_s, iops, lat_ms, cpu_pct, own_pct, others_pct, us_per_io, iops_core;
};
static struct fig figs[MAX_CELLS][MAX_ENGINES];

/* The metric rows and how each figure is printed (format_value). */
enum kind { FIGURE, COUNT, PCT };
static const struct metric {
    const char *label;
    enum kind kind;
} metrics[] = {
    {"Bandwidth (GiB/s)", FIGURE}, {"IOPS", COUNT},   {"Average Latency (ms)", FIGURE},
    {"Total CPU Usage (%)", PCT},  {"of which nvbench (%)", PCT}, {"other processes (%)", PCT},
    {"CPU per I/O (us)", FIGURE}, {"IOPS per core", COUNT},
};
#define NMETRICS (sizeof metrics / sizeof metrics[0])

/* A derived figure as the result's JSON writes it (10 significant digits):
 * Lua and Python compute from that text, and a value on a rounding tie
 * (process_cores 0.20650000000000002) must print the same in every door. */
static double as_written(double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.10g", v);
    return strtod(buf, NULL);
}

static void fill_fig(struct fig *into, const struct nvb_result *r, int dir, int qd_asked)
{
    struct fig one, *f = &one;
    double qde = 0;
    f->ran = f->ok = 1;
    f->qd_asked = qd_asked;
    f->qd_ran = nvb_result_get(r, "qd_effective", &qde) == 0 && qde > 0 ? (int)qde : qd_asked;
    f->gib_s = nvb_result_bw(r, dir) / (1024.0 * 1024 * 1024);
    f->iops = nvb_result_iops(r, dir);
    f->lat_ms = nvb_result_lat_mean(r, dir) / 1e6;
    f->cpu_pct = f->own_pct = f->others_pct = f->us_per_io = f->iops_core = NAN;
    nvb_result_get(r, "cpu.system_pct", &f->cpu_pct);
    /* the whole machine's Total CPU Usage, split: this process, the rest */
    double own = NAN;
    if (nvb_result_get(r, "cpu.nvbench_pct", &own) == 0) /* never above system_pct; null: NaN */
        f->own_pct = as_written(own);
    nvb_result_get(r, "cpu.background_pct", &f->others_pct);
    nvb_result_get(r, "cpu.cpu_us_per_io", &f->us_per_io);
    nvb_result_get(r, "cpu.iops_per_core", &f->iops_core);
    /* a repeat: each figure the running mean of the runs' */
    int n = into->n;
    if (n == 0)
        *into = one;
    double *sum[] = {&into->gib_s, &into->iops, &into->lat_ms, &into->cpu_pct, &into->own_pct, &into->others_pct,
                     &into->us_per_io, &into->iops_core};
    const double add[] = {one.gib_s, one.iops, one.lat_ms, one.cpu_pct, one.own_pct, one.others_pct, one.us_per_io,
                          one.iops_core};
    for (size_t i = 0; n > 0 && i < sizeof add / sizeof add[0]; i++)
        *sum[i] += (add[i] - *sum[i]) / (n + 1);
    into->n = n + 1;
}

/* Thousands separators in the integer part: "-1234567.5" -> "-1,234,567.5"
 * (s holds a figure below 1e15: at most 16 digits). */
static void group_digits(char *s, size_t size)
{
    char tmp[2 * CELL_TEXT];
    const char *d = s + (*s == '-');
    size_t n = strspn(d, "0123456789"), o = 0;
    if (*s == '-')
        tmp[o++] = '-';
    for (size_t i = 0; i < n && o < CELL_TEXT; i++) {
        if (i && (n - i) % 3 == 0)
            tmp[o++] = ',';
        tmp[o++] = d[i];
    }
    snprintf(tmp + o, sizeof tmp - o, "%s", d + n);
    snprintf(s, size, "%s", tmp);
}

static void print_dashes(const char *before, int n)
{
    fputs(before, stdout);
    while (n-- > 0)
        putchar('-');
}

/* One figure in the one number format of the seed table (docs/analysis.md):
 * COUNT with separators and no decimals, PCT with 2 decimals, FIGURE with
 * 3 decimals, 3 significant digits below 0.01 and 1 decimal with separators
 * from 1000 on; "-" when unknown. The same as Python's format_value. */
static void format_value(char *out, size_t size, enum kind kind, double v)
{
    static const double tens[] = {1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9};
    double a = v < 0 ? -v : v;
    if (!isfinite(v)) {
        snprintf(out, size, "-");
    } else if (a >= 1e15) {
        snprintf(out, size, "%.3g", v);
    } else if (kind == COUNT || (kind == FIGURE && a >= 1000)) {
        snprintf(out, size, kind == COUNT ? "%.0f" : "%.1f", v);
        group_digits(out, size);
    } else if (kind == PCT) {
        snprintf(out, size, "%.2f", v);
    } else if (a >= 0.01 || v == 0) {
        snprintf(out, size, "%.3f", v);
    } else {
        int decimals = 2; /* 2 - floor(log10(a)), at most 12, without libm */
        for (size_t i = 0; i < sizeof tens / sizeof tens[0] && a < tens[i]; i++)
            decimals++;
        snprintf(out, size, "%.*f", decimals, v);
    }
}

/* The seed layout: per cell a block whose title heads the metric labels, a
 * column per engine with that cell, two spaces between columns, numbers
 * right-aligned, widths the same in every block, a blank line between. */
/* A column's heading: the engine, and "(qd N)" when every run of it ran at
 * a queue depth N other than the one asked for (a synchronous engine: 1 per
 * job), as the Python and Lua tables head it. */
static void heading(char *out, size_t size, const char *engine, int e)
{
    int ran = -1, mixed = 0;
    for (size_t c = 0; c < ncells; c++) {
        const struct fig *f = &figs[c][e];
        if (!f->ran || !f->ok)
            continue;
        int v = f->qd_ran != f->qd_asked ? f->qd_ran : 0;
        if (ran < 0)
            ran = v;
        else if (ran != v)
            mixed = 1;
    }
    if (!mixed && ran > 0)
        snprintf(out, size, "%s (qd %d)", engine, ran);
    else
        snprintf(out, size, "%s", engine);
}

static void print_table(const char *const *engines, int ne)
{
    static char text[MAX_CELLS][NMETRICS][MAX_ENGINES][CELL_TEXT];
    static char head[MAX_ENGINES][80];
    int width[MAX_ENGINES + 1] = {0}, blocks = 0;
    for (int e = 0; e < ne; e++)
        heading(head[e], sizeof head[e], engines[e], e);
    for (size_t c = 0; c < ncells; c++) {
        for (int e = 0; e < ne; e++) {
            const struct fig *f = &figs[c][e];
            if (!f->ran)
                continue;
            double v[] = {f->gib_s, f->iops, f->lat_ms, f->cpu_pct, f->own_pct, f->others_pct, f->us_per_io, f->iops_core};
            int w = (int)strlen(head[e]);
            for (size_t m = 0; m < NMETRICS; m++) {
                format_value(text[c][m][e], CELL_TEXT, metrics[m].kind, f->ok ? v[m] : NAN);
                w = w > (int)strlen(text[c][m][e]) ? w : (int)strlen(text[c][m][e]);
            }
            width[e + 1] = width[e + 1] > w ? width[e + 1] : w;
            width[0] = width[0] > (int)strlen(cells[c].label) ? width[0] : (int)strlen(cells[c].label);
        }
    }
    for (size_t m = 0; m < NMETRICS; m++)
        width[0] = width[0] > (int)strlen(metrics[m].label) ? width[0] : (int)strlen(metrics[m].label);
    for (size_t c = 0; c < ncells; c++) {
        int cols[MAX_ENGINES], nc = 0;
        for (int e = 0; e < ne; e++)
            if (figs[c][e].ran)
                cols[nc++] = e;
        if (!nc)
            continue;
        printf("%s%-*s", blocks++ ? "\n" : "", width[0], cells[c].label);
        for (int i = 0; i < nc; i++)
            printf("  %*s", width[cols[i] + 1], head[cols[i]]);
        print_dashes("\n", width[0]);
        for (int i = 0; i < nc; i++)
            print_dashes("  ", width[cols[i] + 1]);
        printf("\n");
        for (size_t m = 0; m < NMETRICS; m++) {
            printf("%-*s", width[0], metrics[m].label);
            for (int i = 0; i < nc; i++)
                printf("  %*s", width[cols[i] + 1], text[c][m][cols[i]]);
            printf("\n");
        }
    }
}

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
    default: example_fprintf(stderr, "seed_matrix: invalid --size '%s'\n", size); return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        example_perror(path);
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
            example_perror(path);
            fclose(f);
            return -1;
        }
        if (nvb_cancel_requested(g_cancel)) { /* Ctrl-C, SIGTERM: the caller removes it */
            fclose(f);
            return -1;
        }
    }
    if (fflush(f) || fsync(fileno(f))) {
        example_perror(path);
        fclose(f);
        return -1;
    }
    return fclose(f) ? -1 : 0;
}

/* The results' warnings, each once: texts that differ only in their
 * digits (the machine's load in each run) count as one, shown as its first
 * text and how many runs it concerned. */
#define MAX_WARN 32
static struct {
    char *text, *shape;
    int runs, differ;
} g_warn[MAX_WARN];

static void note_warnings(const struct nvb_result *r)
{
    for (size_t i = 0; i < nvb_result_warning_count(r); i++) {
        const char *w = nvb_result_warning(r, i);
        char *shape = strdup(w);
        if (!shape)
            return;
        for (char *p = shape; *p; p++)
            if (*p >= '0' && *p <= '9')
                *p = '#';
        int k = 0;
        while (k < MAX_WARN && g_warn[k].shape && strcmp(g_warn[k].shape, shape))
            k++;
        if (k == MAX_WARN) {
            free(shape);
            continue;
        }
        if (!g_warn[k].shape) {
            g_warn[k].shape = shape;
            g_warn[k].text = strdup(w);
        } else {
            g_warn[k].differ |= g_warn[k].text && strcmp(g_warn[k].text, w) != 0;
            free(shape);
        }
        g_warn[k].runs++;
    }
}

static void print_warnings(int runs)
{
    fflush(stdout); /* after the table, not inside it, when both go to one place */
    for (int k = 0; k < MAX_WARN && g_warn[k].shape; k++) {
        if (g_warn[k].text)
            example_fprintf(stderr, "seed_matrix: warning: %s", g_warn[k].text);
        if (runs > 1)
            fprintf(stderr, " (%d of %d runs%s)", g_warn[k].runs, runs, g_warn[k].differ ? ", its figures vary" : "");
        fprintf(stderr, "\n");
        free(g_warn[k].text);
        free(g_warn[k].shape);
        g_warn[k].text = g_warn[k].shape = NULL;
    }
}

/* --from-json: the whole file as a string (NULL and a message on failure). */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t cap = 0;
    *len = 0;
    if (!f) {
        example_perror(path);
        return NULL;
    }
    for (;;) {
        if (cap - *len < 65536) {
            char *bigger = realloc(text, cap = 2 * cap + 65536);
            if (!bigger)
                break;
            text = bigger;
        }
        size_t n = fread(text + *len, 1, cap - *len - 1, f);
        *len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(f) || !text;
    fclose(f);
    if (bad) {
        example_fprintf(stderr, "seed_matrix: cannot read %s\n", path);
        free(text);
        return NULL;
    }
    text[*len] = 0;
    return text;
}

/* The next object of a JSON array of results (or the one object of the
 * text) from *pos: its offset and length; 0 at the end, -1 when the text is
 * not an array of objects. Braces inside strings do not count; the
 * library's parser then reads each object strictly. */
static int next_object(const char *s, size_t n, size_t *pos, size_t *start, size_t *len)
{
    size_t i = *pos;
    const char *set = *pos == 0 ? strstr(s, "\"results\"") : NULL, *engine = strstr(s, "\"engine\"");
    if (set && (!engine || set < engine) && strchr(set, '['))
        i = (size_t)(strchr(set, '[') - s); /* a result set: its array */
    i += strspn(s + i, " \t\r\n");
    if (i < n && s[i] == (*pos == 0 ? '[' : ',')) /* into the array, or past a comma */
        i += 1 + strspn(s + i + 1, " \t\r\n");
    if (i >= n && *pos == 0)
        return -1; /* an empty text */
    if (i >= n || s[i] == ']') {
        *pos = n;
        return 0;
    }
    if (s[i] != '{')
        return -1;
    int depth = 0, in_string = 0;
    for (*start = i; i < n; i++) {
        if (in_string) {
            if (s[i] == '\\')
                i++;
            else if (s[i] == '"')
                in_string = 0;
        } else if (s[i] == '"') {
            in_string = 1;
        } else if (s[i] == '{') {
            depth++;
        } else if (s[i] == '}' && --depth == 0) {
            *len = i + 1 - *start;
            *pos = i + 1;
            return 1;
        }
    }
    return -1;
}

/* A label of a result from the library's own JSON text of it (the public
 * getters read figures only): the value that follows the first `key` after
 * `after`, a string's up to its quote, a number's up to the comma. The
 * writer's key order is fixed: "engine" comes before "workload", whose
 * "rw" and "bs" are its first such keys. */
static void json_label(const char *json, const char *after, const char *key, char *out, size_t size)
{
    const char *p = after ? strstr(json, after) : json;
    p = p ? strstr(p, key) : NULL;
    size_t n = p ? strcspn(p += strlen(key), "\",}") : 0;
    snprintf(out, size, "%.*s", (int)n, p ? p : "");
}

/* Fills figs[][] from a file of saved results; columns by engine in order
 * of first appearance. 0, or 2 with a message naming the file and the item. */
static int load_results(const char *path, const char **engines, int *ne)
{
    static char names[MAX_ENGINES][64];
    size_t len, pos = 0, start, n;
    int status = 0, item = 0, more;
    char *text = read_all(path, &len);
    if (!text)
        return 2;
    while (status == 0 && (more = next_object(text, len, &pos, &start, &n)) != 0) {
        struct nvb_result *r = NULL;
        char why[256], *json = NULL, engine[64], rw[32], bs[32], qd[16];
        if (more < 0 || nvb_result_parse(text + start, n, &r, why, sizeof why) < 0 || nvb_result_json(r, &json) < 0) {
            example_fprintf(stderr, "seed_matrix: %s: item %d: %s\n", path, item,
                    more < 0 ? "not a JSON array of results" : r ? "out of memory" : why);
            status = 2;
        } else {
            json_label(json, NULL, "\"engine\":\"", engine, sizeof engine);
            json_label(json, "\"workload\":{", "\"rw\":\"", rw, sizeof rw);
            json_label(json, "\"workload\":{", "\"bs\":", bs, sizeof bs);
            json_label(json, "\"workload\":{", "\"qd\":", qd, sizeof qd);
            int e = 0;
            while (e < *ne && strcmp(engines[e], engine) != 0)
                e++;
            for (size_t c = 0; c < ncells; c++) {
                if (strcmp(cells[c].rw, rw) != 0 || atof(cells[c].bs) * 1024 != atof(bs))
                    continue; /* not a seed cell */
                if (e == *ne && *ne == MAX_ENGINES) {
                    example_fprintf(stderr, "seed_matrix: %s: more than %d engines\n", path, MAX_ENGINES);
                    status = 2;
                } else { /* a second run of a cell and engine: a repeat, averaged */
                    if (e == *ne)
                        engines[(*ne)++] = strcpy(names[e], engine);
                    fill_fig(&figs[c][e], r, strstr(rw, "write") ? NVB_WRITE : NVB_READ, atoi(qd));
                }
            }
        }
        nvb_free(json);
        nvb_result_free(r);
        item++;
    }
    free(text);
    return status;
}

static int add_targets(struct nvb_workload *w, const char *const *targets, int n)
{
    int rc = 0;
    for (int t = 0; t < n && rc == 0; t++)
        rc = nvb_workload_add_target(w, targets[t]);
    return rc;
}

/* Is name an item of the comma-separated list? */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
        if (strcspn(p, ",") == n && !strncmp(p, name, n))
            return 1;
    return 0;
}

/* The engines to run: those of --engines (`only`; every one but null when
 * NULL) that work here and take these targets, the others named on stderr.
 * Their count, or -1 when --engines names one that does not work here. */
static int pick_engines(const char *only, const char *const *targets, int ntargets, const char **engines)
{
    int ne = 0;
    for (int i = 0; i < nvb_engine_count() && ne < MAX_ENGINES; i++) {
        const char *name = nvb_engine_name(i);
        char why[256];
        if (only ? !listed(only, name) : !strcmp(name, "null"))
            continue;
        if (nvb_engine_probe(name, why, sizeof why) != 0) {
            example_fprintf(stderr, "seed_matrix: engine %s skipped: %s\n", name, why);
            continue;
        }
        /* Left out: an engine that does not take this kind of target
         * (nvme drives NVMe namespaces, not the scratch file). */
        struct nvb_workload *probe;
        if (nvb_workload_new(&probe) == 0) {
            int unfit = nvb_workload_set(probe, "engine", name) == 0 &&
                        nvb_workload_set(probe, "rw", "randread") == 0 &&
                        add_targets(probe, targets, ntargets) == 0 && nvb_workload_validate(probe) == -ENODEV;
            if (unfit)
                example_fprintf(stderr, "seed_matrix: engine %s skipped: %s\n", name, nvb_workload_error(probe));
            nvb_workload_free(probe);
            if (unfit)
                continue;
        }
        engines[ne++] = name;
    }
    for (const char *p = only; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
        int known = 0;
        for (int e = 0; e < ne; e++)
            known |= strlen(engines[e]) == strcspn(p, ",") && !strncmp(p, engines[e], strcspn(p, ","));
        if (!known) {
            example_fprintf(stderr, "seed_matrix: --engines: '%.*s' is not an engine that works here\n", (int)strcspn(p, ","), p);
            return -1;
        }
    }
    return ne;
}

/* One run into the --json file, with the machine's facts (seed_facts.h). */
static int save_result(FILE *f, const struct nvb_result *r)
{
    char *json = NULL, *with = NULL, why[256] = "out of memory";
    int rc = nvb_result_json(r, &json) < 0 || !(with = seed_facts_apply(json, why, sizeof why)) ||
                     seed_json_add(f, with) < 0 ? -1 : 0;
    if (rc < 0)
        example_fprintf(stderr, "seed_matrix: --json: %s\n", json && with ? "cannot write" : why);
    nvb_free(json);
    free(with);
    return rc;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--runtime DUR] [--qd N] [--jobs N] [--size SIZE] [--allow-destructive]\n"
                    "       [--engines A,B] [--repeat N] [--json FILE] [--stack windows_native|windows_non_native]\n"
                    "       [--precondition N] [--steady-state iops|bw|lat] [--ss-window DUR] [--interval DUR] [TARGET...]\n"
                    "       %s --from-json RESULTS.json\n",
            argv0, argv0);
}

/* The command line: every option, as main() uses them. */
struct opts {
    const char *runtime, *qd, *jobs, *size, *from_json, *json_path, *only, *stack;
    const char *precondition, *ss, *ss_window, *interval;
    const char *targets[MAX_TARGETS]; /* a JBOD: every run spreads over them all */
    int ntargets, repeat, destructive, size_given;
};

/* The keys of the write cells, as "key=value" lines into buf: the library
 * maps the options (nvb_seed_write_keys: precondition, and the steady
 * state's metric and window) as it does for Python's and Lua's matrices,
 * and refuses a bad one with the same words. 0, or 2 with the message printed. */
static int write_cell_keys(const struct opts *o, char *buf, size_t len)
{
    const char *pairs[6];
    size_t n = 0;
    const char *have[][2] = {{"precondition", o->precondition},
                             {"metric", o->ss && strcmp(o->ss, "off") ? o->ss : NULL},
                             {"window", o->ss_window}};
    for (size_t i = 0; i < sizeof have / sizeof have[0]; i++)
        if (have[i][1]) {
            pairs[2 * n] = have[i][0];
            pairs[2 * n + 1] = have[i][1];
            n++;
        }
    char why[256];
    if (nvb_seed_write_keys(pairs, n, buf, len, why, sizeof why) < 0) {
        example_fprintf(stderr, "seed_matrix: %s\n", why);
        return 2;
    }
    return 0;
}

/* Sets each "key=value" line of keys on w: 0 or the first negative errno. */
static int set_key_lines(struct nvb_workload *w, const char *keys)
{
    int rc = 0;
    while (rc == 0 && *keys) {
        const char *eq = strchr(keys, '='), *nl = strchr(keys, '\n');
        if (!eq || !nl || eq > nl)
            return -EINVAL;
        char k[64], v[512];
        snprintf(k, sizeof k, "%.*s", (int)(eq - keys), keys);
        snprintf(v, sizeof v, "%.*s", (int)(nl - eq - 1), eq + 1);
        rc = nvb_workload_set(w, k, v);
        keys = nl + 1;
    }
    return rc;
}

/* 0, or 2 with the message printed. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **to = NULL;
        if (!strcmp(a, "--runtime")) to = &o->runtime;
        else if (!strcmp(a, "--qd")) to = &o->qd;
        else if (!strcmp(a, "--jobs")) to = &o->jobs;
        else if (!strcmp(a, "--size")) { to = &o->size; o->size_given = 1; }
        else if (!strcmp(a, "--from-json")) to = &o->from_json;
        else if (!strcmp(a, "--json")) to = &o->json_path;
        else if (!strcmp(a, "--engines")) to = &o->only;
        else if (!strcmp(a, "--stack")) to = &o->stack;
        else if (!strcmp(a, "--repeat")) o->repeat = v ? atoi(v) : 0;
        else if (!strcmp(a, "--precondition")) to = &o->precondition;
        else if (!strcmp(a, "--steady-state")) to = &o->ss;
        else if (!strcmp(a, "--ss-window")) to = &o->ss_window;
        else if (!strcmp(a, "--interval")) to = &o->interval;
        else if (!strcmp(a, "--allow-destructive")) { o->destructive = 1; continue; }
        else if (a[0] == '-') { usage(argv[0]); return 2; }
        else if (o->ntargets < MAX_TARGETS) { o->targets[o->ntargets++] = a; continue; }
        else { example_fprintf(stderr, "seed_matrix: more than %d targets\n", MAX_TARGETS); return 2; }
        if (!v) { usage(argv[0]); return 2; }
        if (to)
            *to = v;
        i++;
    }
    if (o->repeat < 1 || o->repeat > 1000) {
        example_fprintf(stderr, "seed_matrix: --repeat: expected 1 to 1000 sweeps\n");
        return 2;
    }
    if (o->stack && !seed_stack_valid(o->stack)) {
        example_fprintf(stderr, "seed_matrix: --stack '%s': expected windows_native or windows_non_native\n", o->stack);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = {"2s", "32", "1", "512M", NULL, NULL, NULL, NULL, NULL, "off", NULL, "1s", {0}, 0, 1, 0, 0};
    char wkeys[512];
    if (parse_args(argc, argv, &o) != 0 || write_cell_keys(&o, wkeys, sizeof wkeys) != 0)
        return 2;
    if (load_cells() != 0)
        return 1;
    const char *runtime = o.runtime, *qd = o.qd, *jobs = o.jobs, *size = o.size, *from_json = o.from_json;
    const char *json_path = o.json_path, *only = o.only, *stack = o.stack;
    const char *ss = o.ss, *interval = o.interval, **targets = o.targets;
    const char *target = o.ntargets ? targets[0] : NULL;
    int repeat = o.repeat, ntargets = o.ntargets, destructive = o.destructive, size_given = o.size_given;
    if (from_json) {
        const char *loaded[MAX_ENGINES];
        int nl = 0, rc = load_results(from_json, loaded, &nl);
        if (rc == 0)
            print_table(loaded, nl);
        return rc;
    }
#ifdef _WIN32
    char tmpdir[512];
    snprintf(tmpdir, sizeof tmpdir, "%s\\nvbench-seed.XXXXXX", getenv("TEMP") ? getenv("TEMP") : ".");
#else
    char tmpdir[512]; /* $TMPDIR or /tmp: nvbench-matrix-<pid>-<8 of [a-z0-9]> (seed_tmpdir.h) */
#endif
    char scratch[600] = "";
    int own_dir = 0;
    /* Ctrl-C and SIGTERM cancel from here on: the scratch file's layout
     * too, so that its temporary directory never stays behind. */
    if (nvb_cancel_new(&g_cancel) < 0)
        return 1;
    example_catch_signals(on_signal);
    if (!target) {
        /* One scratch file laid out once and shared by every cell: a
         * directory target would make each run lay out its own. */
#ifdef _WIN32
        if (!mkdtemp(tmpdir)) {
            example_perror("seed_matrix: mkdtemp");
            return 1;
        }
#else
        /* what matrices killed outright left there first */
        unsigned swept = seed_tmp_sweep();
        if (swept)
            example_fprintf(stderr, "seed_matrix: removed %u temporary director%s of matrices whose process is gone\n",
                    swept, swept == 1 ? "y" : "ies");
        int mk = seed_tmp_make(tmpdir, sizeof tmpdir);
        if (mk < 0) {
            example_fprintf(stderr, "seed_matrix: cannot make a temporary directory in %s: %s\n", seed_tmp_parent(),
                    strerror(-mk));
            return 1;
        }
#endif
        own_dir = 1;
        snprintf(scratch, sizeof scratch, "%s/scratch", tmpdir);
        if (make_scratch(scratch, size) < 0) {
            unlink(scratch);
            rmdir(tmpdir);
            nvb_cancel_free(g_cancel);
            return g_signal ? 128 + (int)g_signal : 1;
        }
        targets[ntargets++] = target = scratch;
    } else {
        struct stat st;
        for (int t = 0; t < ntargets; t++)
            if (stat(targets[t], &st) == 0 && S_ISDIR(st.st_mode))
                size_given = 1; /* the library lays out a scratch file of --size there */
    }
    const char *engines[MAX_ENGINES];
    int ne = pick_engines(only, targets, ntargets, engines);
    FILE *json_file = NULL;
    if (ne < 0 || (json_path && !(json_file = seed_json_open(json_path)))) {
        if (ne >= 0)
            example_perror(json_path);
        if (own_dir) {
            unlink(scratch);
            rmdir(tmpdir);
        }
        return ne < 0 ? 2 : 1;
    }
    if (json_path)
        seed_facts_init(stack);
    int status = 0, nresults = 0;
    struct nvb_matrix *plan = NULL;
    example_fprintf(stderr, "seed_matrix: %d engines x %zu cells x %d, %s each, qd %s, jobs %s, target %s%s\n", ne, ncells,
            repeat, runtime, qd, jobs, target, ntargets > 1 ? " and the others" : "");
    /* The runs and their order are the library's plan (nvb_matrix_*), the
     * one Python's and Lua's matrices follow: repeat outermost, then the
     * cells in the published order, the engines innermost. */
    char reps[16];
    snprintf(reps, sizeof reps, "%d", repeat);
    if (nvb_matrix_create(&plan) < 0 || nvb_matrix_cells(plan, NULL) < 0 ||
        nvb_matrix_axis(plan, "engine", (size_t)ne, (const char *const *)engines) < 0 ||
        nvb_matrix_set(plan, "repeat", reps) < 0) {
        example_fprintf(stderr, "seed_matrix: %s\n", plan ? nvb_matrix_error(plan) : "out of memory");
        status = 2;
        goto out;
    }
    for (size_t run = 0; run < nvb_matrix_runs(plan) && !nvb_cancel_requested(g_cancel); run++) {
        size_t c = 0, pe = 0;
        nvb_matrix_pick(plan, run, 0, &c);
        nvb_matrix_pick(plan, run, 1, &pe);
        {
            int e = (int)pe;
            struct nvb_workload *w;
            if (nvb_workload_new(&w) < 0)
                return 1;
            const char *kv[][2] = {{"engine", engines[e]}, {"rw", cells[c].rw}, {"bs", cells[c].bs},
                                   {"qd", qd}, {"jobs", jobs}, {"runtime", runtime}, {"size", own_dir || !size_given ? "0" : size},
                                   {"allow_destructive", destructive ? "1" : "0"}, {"interval", interval}};
            /* the write cells: preconditioned, and ended at steady state when asked */
            int writes = strstr(cells[c].rw, "write") != NULL, judged = writes && strcmp(ss, "off");
            int rc = 0;
            for (size_t k = 0; k < sizeof kv / sizeof kv[0] && rc == 0; k++)
                rc = nvb_workload_set(w, kv[k][0], kv[k][1]);
            if (writes && rc == 0)
                rc = set_key_lines(w, wkeys);
            if (rc == 0)
                rc = add_targets(w, targets, ntargets);
            if (rc < 0) {
                example_fprintf(stderr, "seed_matrix: %s\n", nvb_workload_error(w));
                nvb_workload_free(w);
                status = 2;
                goto out;
            }
            struct nvb_run_opts opts = NVB_RUN_OPTS_INIT;
            opts.cancel = g_cancel;
            struct nvb_result *r = NULL;
            rc = nvb_run(w, &opts, &r);
            figs[c][e].ran = 1;
            if (rc < 0) {
                example_fprintf(stderr, "seed_matrix: %s on %s: %s\n", cells[c].label, engines[e],
                        r ? nvb_result_error(r) : nvb_strerror(rc));
                status = rc == -ECANCELED ? 128 + (g_signal ? (int)g_signal : SIGINT) : 1;
            } else {
                char iops[CELL_TEXT];
                fill_fig(&figs[c][e], r, strstr(cells[c].rw, "write") ? NVB_WRITE : NVB_READ, atoi(qd));
                format_value(iops, sizeof iops, COUNT, figs[c][e].iops);
                double at = NAN;
                if (judged)
                    nvb_result_get(r, "steady_state.at_s", &at);
                fprintf(stderr, "  %-22s %-9s %12s IOPS%s", cells[c].label, engines[e], iops,
                        judged ? (isnan(at) ? "  (NOT steady)\n" : "") : "\n");
                if (judged && !isnan(at))
                    fprintf(stderr, "  (steady at %.1f s)\n", at);
            }
            if (r) {
                note_warnings(r);
                nresults++;
            }
            if (r && json_file && save_result(json_file, r) < 0)
                status = 1;
            nvb_result_free(r);
            nvb_workload_free(w);
        }
    }
    if (g_signal && status == 0) /* stopped between two runs */
        status = 128 + (int)g_signal;
    print_table(engines, ne);
    if (repeat > 1)
        example_fprintf(stderr, "seed_matrix: each figure is the mean of %d runs\n", repeat);
out:
    if (json_file && seed_json_close(json_file) < 0) {
        example_perror(json_path);
        status = 1;
    }
    print_warnings(nresults);
    if (own_dir) {
        unlink(scratch);
        rmdir(tmpdir);
    }
    nvb_matrix_destroy(plan);
    nvb_cancel_free(g_cancel);
    return status;
}
