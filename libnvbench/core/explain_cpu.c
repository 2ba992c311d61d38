/*
 * The machine's CPU by kind over the run's window, per I/O (cpu.per_io_us)
 * and per CPU (cpu.per_cpu): the two /proc/stat samples the run already
 * takes for its shares (sampler.c), kept by kind instead of as one busy %.
 * Stored as nanoseconds, so a result read back derives the same figures;
 * the per-I/O figures are derived when written. docs/cpu.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/explain.h"
#include "core/internal.h"
#include "util/json.h"

void nvb__explain_free(struct nvb__explain *e)
{
    if (e) {
        /* the parsed documents, then the arrays */
        struct nvb__jv *docs[] = {e->env, e->irq, e->place};
        for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
            nvb__json_free(docs[i]);
        free(e->cpu_id), free(e->cpu), free(e->jobs), free(e->seen), free(e->irq_t0);
    }
    free(e);
}

struct nvb__explain *nvb__explain_of(struct nvb_result *r)
{
    if (!r->ex)
        r->ex = calloc(1, sizeof *r->ex);
    return r->ex;
}

void nvb__kinds_delta(const struct nvb__cpu_times *a, const struct nvb__cpu_times *b, struct nvb__kinds *d)
{
    /* guest time is inside user already (cpu.c): not a kind of its own */
    struct nvb__cpu_times t;
    nvb__cpu_times_delta(a, b, &t);
    *d = (struct nvb__kinds){.user = t.user, .nice = t.nice, .system = t.system, .irq = t.irq, .softirq = t.softirq,
                             .iowait = t.iowait, .steal = t.steal, .idle = t.idle};
}

uint64_t nvb__kinds_busy(const struct nvb__kinds *k) { return k->user + k->nice + k->system + k->irq + k->softirq; }

uint64_t nvb__kinds_total(const struct nvb__kinds *k) { return nvb__kinds_busy(k) + k->iowait + k->steal + k->idle; }

static const char *const kind_names[] = {"user", "nice", "system", "irq", "softirq", "iowait", "steal", "idle"};
#define NKINDS 8
static uint64_t *kind_at(struct nvb__kinds *k, int i)
{
    uint64_t *f[NKINDS] = {&k->user, &k->nice, &k->system, &k->irq, &k->softirq, &k->iowait, &k->steal, &k->idle};
    return f[i];
}

void nvb__explain_own_check(struct nvb_result *r)
{
    const struct nvb__explain *e = r->ex;
    if (!e || e->kinds_state != 1)
        return;
    const double own_ns = (r->process_user_s + r->process_sys_s) * 1e9;
    const double busy_ns = (double)nvb__kinds_busy(&e->machine);
    /* each CPU's counters may be a tick short at either edge */
    const double slack = 2.0 * (double)e->tick_ns * (e->ncpu > 0 ? e->ncpu : 1);
    if (own_ns > busy_ns + slack)
        nvb__result_warn(r,
                         "cpu: the machine's counters account for %.1f ms of busy CPU over the run's window, less "
                         "than this process's own %.1f ms: the counters lost time (ticks missed, as under "
                         "emulation), so cpu.per_io_us's kinds understate the machine's CPU; own_user and "
                         "own_system are this process's own time",
                         busy_ns / 1e6, own_ns / 1e6);
}

static void set_null(struct nvb__explain *e, const char *why)
{
    e->kinds_state = 2;
    snprintf(e->kinds_why, sizeof e->kinds_why, "%s", why);
}

int nvb__explain_cpu(struct nvb_result *r, const struct nvb__sys_sample *a, const struct nvb__sys_sample *b)
{
    struct nvb__explain *e = nvb__explain_of(r);
    if (!e)
        return -ENOMEM;
    char why[256];
    if (!nvb__sys_kinds(why, sizeof why)) {
        set_null(e, why);
        return 0;
    }
    if (!a || !b) {
        set_null(e, "not measured: the whole machine's CPU counters could not be read");
        return 0;
    }
    if (!r->cpu_valid && r->cpu_null_reason[0]) {
        /* too few ticks in the window, or the windows disagreed: the same
         * reason holds for the kinds (one tick is a large part of each) */
        set_null(e, r->cpu_null_reason);
        return 0;
    }
    e->tick_ns = b->tick_ns;
    nvb__kinds_delta(&a->total, &b->total, &e->machine);
    e->kinds_state = 1;
    e->kinds_missing = nvb__sys_kinds_missing(b) | nvb__sys_kinds_missing(a);
    if (b->ncpu <= 0 || !b->cpu)
        return 0;
    void *rows, *ids;
    if (nvb__calloc2((size_t)b->ncpu, sizeof *e->cpu, sizeof *e->cpu_id, &rows, &ids) < 0)
        return -ENOMEM;
    e->cpu = rows;
    e->cpu_id = ids;
    /* by CPU number, as cpu.c: a CPU that came online during the run has
     * no start row and is left out */
    for (int i = 0; i < b->ncpu; i++) {
        int id = b->cpu_id ? b->cpu_id[i] : i;
        for (int k = 0; k < a->ncpu && a->cpu; k++)
            if ((a->cpu_id ? a->cpu_id[k] : k) == id) {
                nvb__kinds_delta(&a->cpu[k], &b->cpu[i], &e->cpu[e->ncpu]);
                e->cpu_id[e->ncpu++] = id;
                break;
            }
    }
    /* The machine is the sum of these rows, not /proc/stat's own total:
     * the kernel adds that up in a pass of its own before it prints the
     * rows, so the two differ by the ticks in between (up to one per CPU
     * and read); summed, the rows and the machine agree exactly. */
    if (e->ncpu > 0) {
        memset(&e->machine, 0, sizeof e->machine);
        for (int i = 0; i < e->ncpu; i++)
            for (int k = 0; k < NKINDS; k++)
                *kind_at(&e->machine, k) += *kind_at(&e->cpu[i], k);
    }
    return 0;
}

/* ---------------------------------------------------------------- JSON */

/* A small writer for the members below one key of result.c's walk: it
 * keeps the dotted path so that nvb_result_get() finds the numbers too. */
struct w {
    struct nvb__json *j;
    char path[256];
    int first[8], depth;
};

static void w_sep(struct w *w)
{
    if (!w->first[w->depth] && w->j->b)
        nvb__buf_putn(w->j->b, ",", 1);
    w->first[w->depth] = 0;
}

static void w_key(struct w *w, const char *key)
{
    w_sep(w);
    if (w->j->b && key) {
        nvb__json_write_str(w->j->b, key);
        nvb__buf_putn(w->j->b, ":", 1);
    }
}

static void w_open(struct w *w, const char *key, char ch)
{
    w_key(w, key);
    if (w->j->b)
        nvb__buf_putn(w->j->b, &ch, 1);
    w->first[++w->depth] = 1;
}

static void w_close(struct w *w, char ch)
{
    if (w->j->b)
        nvb__buf_putn(w->j->b, &ch, 1);
    w->depth--;
}

/* A number at path.key: captured for nvb_result_get, written unless the
 * walk only looks up (its key is written by the caller). */
static void put_num(struct nvb__json *j, const char *path, const char *key, double v)
{
    if (j->want) {
        char p[320];
        snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", key);
        if (!strcmp(p, j->want)) {
            j->got = v;
            j->found = 1;
        }
    }
    if (j->b)
        nvb__json_write_num(j->b, v);
}

static void w_num(struct w *w, const char *key, double v)
{
    w_key(w, key);
    put_num(w->j, w->path, key, v);
}

static void w_u64(struct w *w, const char *key, uint64_t v)
{
    w_key(w, key);
    if (w->j->b)
        nvb__buf_printf(w->j->b, "%" PRIu64, v);
}

static void w_str(struct w *w, const char *key, const char *s)
{
    w_key(w, key);
    if (!w->j->b)
        return;
    if (s)
        nvb__json_write_str(w->j->b, s);
    else
        nvb__buf_puts(w->j->b, "null");
}

/* Opens key as the first level below the walk's current path. */
static void w_begin(struct w *w, struct nvb__json *j, const char *key, char ch)
{
    memset(w, 0, sizeof *w);
    w->j = j;
    snprintf(w->path, sizeof w->path, "%s%s%s", j->path, j->path[0] ? "." : "", key);
    nvb__json_key(j, key);
    if (j->b)
        nvb__buf_putn(j->b, &ch, 1);
    w->first[0] = 1;
}

static void w_end(struct w *w, char ch)
{
    if (w->j->b)
        nvb__buf_putn(w->j->b, &ch, 1);
}

/* the kinds in ns; null for those the platform keeps no counter of */
static void w_kinds(struct w *w, const struct nvb__kinds *k, unsigned miss)
{
    for (int i = 0; i < NKINDS; i++)
        if (miss >> i & 1u)
            w_num(w, kind_names[i], NAN);
        else
            w_u64(w, kind_names[i], *kind_at((struct nvb__kinds *)k, i));
}

static void w_ns(struct w *w, const char *key, const struct nvb__kinds *k, unsigned miss)
{
    w_open(w, key, '{');
    w_kinds(w, k, miss);
    w_close(w, '}');
}

/* "unavailable: ..." naming the kinds missed, or NULL */
static const char *missing_reason(unsigned miss, char *buf, size_t len)
{
    if (!miss)
        return NULL;
    size_t n = (size_t)snprintf(buf, len, "unavailable: this platform keeps no counter of");
    for (int i = 0; i < NKINDS && n < len; i++)
        if (miss >> i & 1u)
            n += (size_t)snprintf(buf + n, len - n, " %s", kind_names[i]);
    if (n < len)
        snprintf(buf + n, len - n, " (Windows has no iowait or steal time): null, never 0");
    return buf;
}

/* per I/O, in us: user includes nice (and guest, as the kernel counts it) */
static void w_per_io(struct w *w, const struct nvb__kinds *k, double ios, unsigned miss)
{
    double f = ios > 0 && k ? 1e-3 / ios : NAN;
    const struct nvb__kinds z = {0};
    if (!k)
        k = &z;
    w_num(w, "user", (double)(k->user + k->nice) * f);
    w_num(w, "system", (double)k->system * f);
    w_num(w, "irq", miss & NVB__KB_IRQ ? NAN : (double)k->irq * f);
    w_num(w, "softirq", miss & NVB__KB_SOFTIRQ ? NAN : (double)k->softirq * f);
    w_num(w, "iowait", miss & NVB__KB_IOWAIT ? NAN : (double)k->iowait * f);
    w_num(w, "steal", miss & NVB__KB_STEAL ? NAN : (double)k->steal * f);
    w_num(w, "busy", (double)nvb__kinds_busy(k) * f);
}

static double total_ios(const struct nvb_result *r)
{
    return (double)(r->tot[0].ios + r->tot[1].ios + r->tot[NVB_TRIM].ios);
}

static void emit_kinds(struct nvb__json *j, const struct nvb_result *r)
{
    const struct nvb__explain *e = r->ex;
    if (!e || !e->kinds_state)
        return;
    const int ok = e->kinds_state == 1;
    const double ios = total_ios(r);
    struct w w;
    if (ok) {
        w_begin(&w, j, "machine_ns", '{');
        w_kinds(&w, &e->machine, e->kinds_missing);
        w_end(&w, '}');
    } else {
        nvb__json_key(j, "machine_ns");
        if (j->b)
            nvb__buf_puts(j->b, "null");
    }
    /* the share of the window (of each CPU) the counters accounted for:
     * near 100 where every tick was counted; less where time was lost to
     * every kind (a virtual CPU the host did not run, on a host that reports
     * no steal); a little over 100 as the counters' window holds the
     * process's, which this divides by */
    double expect = r->cpu_window_s * 1e9 * (e->ncpu > 0 ? e->ncpu : r->ncpus_online);
    nvb__json_key(j, "kinds_accounted_pct");
    put_num(j, j->path, "kinds_accounted_pct",
            ok && expect > 0 ? 100.0 * (double)nvb__kinds_total(&e->machine) / expect : NAN);
    w_begin(&w, j, "per_io_us", '{');
    const unsigned miss = ok ? e->kinds_missing : 0;
    w_per_io(&w, ok ? &e->machine : NULL, ios, miss);
    /* this process's own CPU beside the machine's (threads the kernel runs
     * for it included, as cpu.process_*_s) */
    w_num(&w, "own_user", ios > 0 ? r->process_user_s * 1e6 / ios : NAN);
    w_num(&w, "own_system", ios > 0 ? r->process_sys_s * 1e6 / ios : NAN);
    /* each CPU's counters move in whole ticks: one tick per I/O is the
     * step of every per-CPU figure */
    w_num(&w, "resolution_us", ok && ios > 0 && r->cpu_tick_s > 0 ? r->cpu_tick_s * 1e6 / ios : NAN);
    w_str(&w, "null_reason", !ok ? e->kinds_why : ios > 0 ? NULL : "no I/O completed: nothing to divide by");
    char mr[200];
    if (miss) /* written only where a kind is missing: Linux results keep their text */
        w_str(&w, "missing_kinds_reason", missing_reason(miss, mr, sizeof mr));
    w_end(&w, '}');
    w_begin(&w, j, "per_cpu", '[');
    for (int i = 0; ok && i < e->ncpu; i++) {
        w_open(&w, NULL, '{');
        w_u64(&w, "cpu", (uint64_t)e->cpu_id[i]);
        w_ns(&w, "ns", &e->cpu[i], miss);
        char save[256];
        snprintf(save, sizeof save, "%s", w.path);
        snprintf(w.path + strlen(w.path), sizeof w.path - strlen(w.path), ".%d", i);
        w_per_io(&w, &e->cpu[i], ios, miss); /* the kinds per I/O, as per_io_us's, on this CPU */
        snprintf(w.path, sizeof w.path, "%s", save);
        w_close(&w, '}');
    }
    w_end(&w, ']');
}

/* ------------------------------------------------------- event counters */

static const char *const perf_names[NVB__PERF_N] = {"cycles", "instructions", "task_clock_ns", "context_switches",
                                                    "cpu_migrations"};

int nvb__explain_perf(struct nvb_result *r, const struct nvb__perf_counts *c, const char *why)
{
    struct nvb__explain *e = nvb__explain_of(r);
    if (!e)
        return -ENOMEM;
    if (c) {
        e->perf = *c;
        e->perf_state = 1;
    } else {
        e->perf_state = 2;
        snprintf(e->perf_why, sizeof e->perf_why, "unavailable: %s", why && why[0] ? why : "not measured");
    }
    return 0;
}

static void w_count(struct w *w, const struct nvb__perf_counts *c, int i)
{
    if (c->have[i])
        w_u64(w, perf_names[i], c->v[i]);
    else
        w_str(w, perf_names[i], NULL);
}

static double perf_ratio(const struct nvb__perf_counts *c, int i, int over, double ios)
{
    if (!c->have[i] || (over >= 0 && (!c->have[over] || !c->v[over])) || (over < 0 && ios <= 0))
        return NAN;
    return (double)c->v[i] / (over >= 0 ? (double)c->v[over] : ios);
}

/* cpu.counters: the counts, then per I/O (null where a count is) */
static void emit_perf(struct nvb__json *j, const struct nvb_result *r)
{
    const struct nvb__explain *e = r->ex;
    if (!e || !e->perf_state)
        return;
    const struct nvb__perf_counts z = {0}, *c = e->perf_state == 1 ? &e->perf : &z;
    const double ios = total_ios(r);
    struct w w;
    w_begin(&w, j, "counters", '{');
    for (int i = 0; i < NVB__PERF_N; i++)
        w_count(&w, c, i);
    w_num(&w, "cycles_per_io", perf_ratio(c, NVB__PERF_CYCLES, -1, ios));
    w_num(&w, "instructions_per_io", perf_ratio(c, NVB__PERF_INSTR, -1, ios));
    w_num(&w, "instructions_per_cycle", perf_ratio(c, NVB__PERF_INSTR, NVB__PERF_CYCLES, ios));
    w_num(&w, "task_clock_us_per_io", perf_ratio(c, NVB__PERF_TASK_CLOCK, -1, ios) / 1e3);
    w_num(&w, "context_switches_per_io", perf_ratio(c, NVB__PERF_CTXSW, -1, ios));
    w_key(&w, "kernel_counted");
    if (w.j->b)
        nvb__buf_puts(w.j->b, e->perf_state == 1 ? (c->kernel ? "true" : "false") : "null");
    w_key(&w, "scaled");
    if (w.j->b)
        nvb__buf_puts(w.j->b, c->scaled ? "true" : "false");
    char hw[sizeof c->hw_why + 16];
    snprintf(hw, sizeof hw, "unavailable: %s", c->hw_why);
    w_str(&w, "hardware_null_reason", e->perf_state == 2 ? e->perf_why : c->hw_why[0] ? hw : NULL);
    w_str(&w, "null_reason", e->perf_state == 2 ? e->perf_why : NULL);
    w_end(&w, '}');
}

void nvb__explain_emit_cpu(struct nvb__json *j, const struct nvb_result *r)
{
    emit_kinds(j, r);
    emit_perf(j, r);
}

/* ---------------------------------------------------------------- read */

static int bad(char *why, size_t len, const char *key, const char *what)
{
    if (why && len)
        snprintf(why, len, "cpu.%s: %s", key, what);
    return -EINVAL;
}

/* A kind null where the platform keeps no counter of it (*miss's bit),
 * only irq, softirq, iowait and steal (Windows). */
static int read_ns(const struct nvb__jv *o, struct nvb__kinds *k, char *why, size_t len, const char *key,
                   unsigned *miss)
{
    if (!o || o->type != NVB__J_OBJ)
        return bad(why, len, key, "expected an object");
    const unsigned nullable = NVB__KB_IRQ | NVB__KB_SOFTIRQ | NVB__KB_IOWAIT | NVB__KB_STEAL;
    for (int i = 0; i < NKINDS; i++) {
        const struct nvb__jv *v = nvb__json_get(o, kind_names[i]);
        if (v && v->type == NVB__J_NULL && (nullable >> i & 1u)) {
            *kind_at(k, i) = 0;
            *miss |= 1u << i;
        } else if (nvb__json_u64(v, kind_at(k, i)))
            return bad(why, len, key, "expected a count of ns for each kind (null: irq, softirq, iowait, steal)");
    }
    return 0;
}

/* cpu.counters: the counts (the ratios are derived again when written) */
static int load_perf(const struct nvb__jv *c, struct nvb_result *r, char *why, size_t len)
{
    const struct nvb__jv *o = nvb__json_get(c, "counters");
    if (!o)
        return 0; /* a result from before them */
    if (o->type != NVB__J_OBJ)
        return bad(why, len, "counters", "expected an object");
    struct nvb__explain *e = nvb__explain_of(r);
    if (!e)
        return -ENOMEM;
    const struct nvb__jv *nr = nvb__json_get(o, "null_reason"), *hw = nvb__json_get(o, "hardware_null_reason");
    const struct nvb__jv *kc = nvb__json_get(o, "kernel_counted"), *sc = nvb__json_get(o, "scaled");
    if (nr && nr->type == NVB__J_STR) {
        e->perf_state = 2;
        snprintf(e->perf_why, sizeof e->perf_why, "%s", nr->s);
        return 0;
    }
    e->perf_state = 1;
    for (int i = 0; i < NVB__PERF_N; i++) {
        const struct nvb__jv *v = nvb__json_get(o, perf_names[i]);
        if (v && v->type == NVB__J_NULL)
            continue;
        if (nvb__json_u64(v, &e->perf.v[i]))
            return bad(why, len, "counters", "expected a count or null for each event");
        e->perf.have[i] = 1;
    }
    if (!kc || (kc->type != NVB__J_TRUE && kc->type != NVB__J_FALSE) || !sc ||
        (sc->type != NVB__J_TRUE && sc->type != NVB__J_FALSE))
        return bad(why, len, "counters", "expected kernel_counted and scaled as true or false");
    e->perf.kernel = kc->type == NVB__J_TRUE;
    e->perf.scaled = sc->type == NVB__J_TRUE;
    if (hw && hw->type == NVB__J_STR) /* written as "unavailable: " and the reason */
        snprintf(e->perf.hw_why, sizeof e->perf.hw_why, "%s",
                 strncmp(hw->s, "unavailable: ", 13) ? hw->s : hw->s + 13);
    return 0;
}

int nvb__explain_load_cpu(const struct nvb__jv *root, struct nvb_result *r, char *why, size_t len)
{
    const struct nvb__jv *c = nvb__json_get(root, "cpu");
    int rc = load_perf(c, r, why, len);
    if (rc < 0)
        return rc;
    const struct nvb__jv *pio = nvb__json_get(c, "per_io_us");
    if (!pio)
        return 0; /* a result from before them */
    struct nvb__explain *e = nvb__explain_of(r);
    if (!e)
        return -ENOMEM;
    const struct nvb__jv *m = nvb__json_get(c, "machine_ns");
    if (!m || m->type == NVB__J_NULL) {
        const struct nvb__jv *nr = nvb__json_get(pio, "null_reason");
        if (!nr || nr->type != NVB__J_STR)
            return bad(why, len, "per_io_us.null_reason", "expected a string where machine_ns is null");
        set_null(e, nr->s);
        return 0;
    }
    if (read_ns(m, &e->machine, why, len, "machine_ns", &e->kinds_missing))
        return -EINVAL;
    e->kinds_state = 1;
    const struct nvb__jv *pc = nvb__json_get(c, "per_cpu");
    if (!pc || pc->type != NVB__J_ARR)
        return bad(why, len, "per_cpu", "expected an array");
    if (!pc->n)
        return 0;
    if (pc->n > (1u << 20))
        return bad(why, len, "per_cpu", "too many CPUs");
    e->cpu = calloc(pc->n, sizeof *e->cpu);
    e->cpu_id = calloc(pc->n, sizeof *e->cpu_id);
    if (!e->cpu || !e->cpu_id)
        return -ENOMEM;
    for (uint32_t i = 0; i < pc->n; i++) {
        uint64_t id;
        if (nvb__json_u64(nvb__json_get(&pc->kid[i], "cpu"), &id) || id > INT32_MAX)
            return bad(why, len, "per_cpu", "expected a CPU number in each entry");
        if (read_ns(nvb__json_get(&pc->kid[i], "ns"), &e->cpu[i], why, len, "per_cpu.ns", &e->kinds_missing))
            return -EINVAL;
        e->cpu_id[i] = (int)id;
        e->ncpu++;
    }
    return 0;
}
