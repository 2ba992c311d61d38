/*
 * The table of the result's figures (core/figures.c) is what the writer
 * writes and the reader reads: each of its figures, found by its path in a
 * result, is the value at its place in the result's structs; a result
 * without one of its keys loads when the table says results written before
 * the key lack it (as 0), and is refused naming the key otherwise.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"
#include "core/internal.h"
#include "core/figures.h"
#include "util/json.h"

/* The objects of a result the table covers: its section, its path, its
 * struct, the window its rates divide by. */
struct place {
    int sec;
    char path[64];
    const void *base;
    double per;
    struct nvb__total t; /* NVB__FS_TOTAL: what the writer adds up, base points here */
    const struct nvb__hist *h; /* NVB__FS_LAT: the histogram its figures come from */
    const struct nvb_result *r;
};

static int places(const struct nvb_result *r, struct place *p)
{
    int n = 0;
    for (int d = 0; d < 2; d++) {
        p[n++] = (struct place){NVB__FS_DIR, "", &r->tot[d], r->duration_s};
        snprintf(p[n - 1].path, sizeof p[0].path, "%s", nvb__dir_names[d]);
        p[n++] = (struct place){NVB__FS_DIR, "", &r->tg[0].d[d], r->duration_s};
        snprintf(p[n - 1].path, sizeof p[0].path, "per_target.0.%s", nvb__dir_names[d]);
    }
    for (int d = 0; d < 2; d++) /* lat_ns, clat_ns (psync: slat_ns null) of both directions */
        for (int k = 0; k < 2; k++) {
            p[n] = (struct place){NVB__FS_LAT, "", NULL, 0, {0, 0}, k ? r->tot[d].clat : r->tot[d].hist};
            snprintf(p[n].path, sizeof p[0].path, "%s.%s", nvb__dir_names[d], k ? "clat_ns" : "lat_ns");
            ck_assert_uint_gt(p[n++].h->count, 0);
        }
    p[n++] = (struct place){NVB__FS_HEAD, "", r, 0};
    p[n++] = (struct place){NVB__FS_RUN, "", r, 0};
    p[n++] = (struct place){NVB__FS_END, "", r, 0};
    p[n] = (struct place){NVB__FS_TOTAL, "total", &p[n].t, r->duration_s, {0, 0}};
    for (int d = 0; d < NVB__NDIR; d++) {
        p[n].t.ios += r->tot[d].ios;
        p[n].t.bytes += r->tot[d].bytes;
    }
    ck_assert_uint_gt(p[n].t.ios, 0);
    n++;
    p[n++] = (struct place){NVB__FS_TARGET, "per_target.0", &r->tg[0], r->duration_s};
    p[n++] = (struct place){NVB__FS_ERRORS, "errors", r, 0};
    p[n++] = (struct place){NVB__FS_VERIFY, "verify", r, 0};
    if (r->pre.passes) /* null in a merged result */
        p[n++] = (struct place){NVB__FS_PRECOND, "precondition", &r->pre, r->pre.duration_s};
    p[n++] = (struct place){NVB__FS_SUBMIT, "submissions", r, 0};
    p[n++] = (struct place){NVB__FS_FAULT, "fault", r, 0};
    p[n++] = (struct place){NVB__FS_FAULTDIR, "fault.read", r, 0};
    p[n++] = (struct place){NVB__FS_FAULTDIR, "fault.write", (const char *)r + sizeof(uint64_t), 0};
    if (r->rate_set)
        p[n++] = (struct place){NVB__FS_RATE, "rate", r, 0};
    p[n++] = (struct place){NVB__FS_CPU, "cpu", r, 0};
    if (r->tg[0].content.examined)
        p[n++] = (struct place){NVB__FS_PCACHE, "per_target.0.page_cache", &r->tg[0].content, 0};
    if (r->tg[0].devf.valid)
        p[n++] = (struct place){NVB__FS_DEVICE, "per_target.0.device", &r->tg[0].devf, 0};
    if (r->nts) { /* a timeseries point and its directions (arrays by direction: moved 8 bytes a direction) */
        const struct nvb__tsample *ts = &r->ts[0];
        p[n++] = (struct place){NVB__FS_TS, "timeseries.0", ts, 0};
        p[n++] = (struct place){NVB__FS_TSDIR, "timeseries.0.read", ts, ts->dt_s};
        p[n++] = (struct place){NVB__FS_TSDIR, "timeseries.0.write", (const char *)ts + sizeof(uint64_t), ts->dt_s};
    }
    if (r->ss.metric)
        p[n++] = (struct place){NVB__FS_SS, "steady_state", &r->ss, 0};
    if (r->energy.state == 1) /* measured (the synthetic result's): its rows */
        p[n++] = (struct place){NVB__FS_ENERGY, "energy", &r->energy, 0};
    if (r->tg[0].dlog.state == 1) { /* read (the synthetic result's): its rows, before, after, delta, power */
        const struct nvb__devlog *d = &r->tg[0].dlog;
        p[n++] = (struct place){NVB__FS_DEVLOG, "per_target.0.device_log", d, 0};
        p[n++] = (struct place){NVB__FS_HEALTH, "per_target.0.device_log.before", d->before, 0};
        p[n++] = (struct place){NVB__FS_HEALTH, "per_target.0.device_log.after", d->after, 0};
        p[n++] = (struct place){NVB__FS_HEALTHD, "per_target.0.device_log.delta", d, 0};
        if (d->pw == 1)
            p[n++] = (struct place){NVB__FS_DEVPOWER, "per_target.0.device_log.power", d, 0};
    }
    ck_assert_uint_gt(r->nts, 0);
    if (r->nthreads)
        p[n++] = (struct place){NVB__FS_THREAD, "cpu.threads.0", &r->threads[0], 0};
    if (r->nhosts) {
        const struct nvb__hostrow *h = &r->hosts[0];
        p[n++] = (struct place){NVB__FS_HOST, "hosts.0", h, 0};
        p[n++] = (struct place){NVB__FS_HOSTDIR, "hosts.0.read", h, h->duration_s};
        p[n++] = (struct place){NVB__FS_HOSTDIR, "hosts.0.write", (const char *)h + sizeof(uint64_t), h->duration_s};
        p[n++] = (struct place){NVB__FS_HOSTCPU, "hosts.0.cpu", h, 0};
        p[n] = (struct place){NVB__FS_TOTAL, "hosts.0.total", &p[n].t, h->duration_s, {h->ios[0] + h->ios[1],
                              h->bytes[0] + h->bytes[1]}};
        n++;
    }
    for (int k = 0; k < n; k++)
        p[k].r = r;
    return n;
}

/* A numeric row's value from the struct; 0 and *ok 0 for strings and parts. */
static double value(const struct nvb__fig *f, const struct place *p, int *ok)
{
    const void *v = p->base ? (const char *)p->base + f->off : NULL;
    double u = 0;
    *ok = 1;
    if (f->type != NVB__FT_PART && ((f->flags & NVB__FF_IF && !*(const int *)((const char *)p->base + f->off2)) ||
                                    (f->flags & NVB__FF_ZERO && (f->type == NVB__FT_U32 ? !*(const uint32_t *)v :
                                                                 f->type == NVB__FT_DBL ? !(*(const double *)v > 0) :
                                                                 !*(const uint64_t *)v))))
        return NAN; /* unknown: null */
    switch (f->type) {
    case NVB__FT_U64:
        if (f->sec == NVB__FS_LAT) /* min, max: the histogram's */
            return (double)(f->off == offsetof(struct nvb__latfig, min) ? p->h->min : p->h->max);
        return (double)*(const uint64_t *)v;
    case NVB__FT_SUM: return (double)*(const uint64_t *)v;
    case NVB__FT_U32: return *(const uint32_t *)v;
    case NVB__FT_LONG: return (double)*(const long *)v;
    case NVB__FT_DBL: /* unknown: null */
        if (f->flags & (NVB__FF_CPU | NVB__FF_TICK) & ~nvb__figs_when(p->r))
            return NAN;
        return (f->flags & NVB__FF_NEG) && *(const double *)v < 0 ? NAN : *(const double *)v;
    case NVB__FT_I64: { /* delta: after - before, from the log the place's base is */
        const struct nvb__devlog *d = p->base;
        const size_t i = (f->off - offsetof(struct nvb__devlog_derived, delta)) / sizeof(int64_t);
        return (double)(int64_t)(d->after[i] - d->before[i]);
    }
    case NVB__FT_DERIV:
        if (p->sec == NVB__FS_DEVLOG) {
            struct nvb__devlog_derived dd;
            nvb__devlog_derive(p->r, &p->r->tg[0], &dd);
            return *(const double *)((const char *)&dd + f->off);
        } else {
        struct nvb__cpu_derived cd;
        nvb__cpu_derive(p->r, &cd);
        *ok = p->sec == NVB__FS_CPU; /* hosts[].cpu's: over the host's own window (test_merge) */
        return *(const double *)((const char *)&cd + f->off);
        }
    case NVB__FT_BOOL: return *(const int *)v ? 1 : 0;
    case NVB__FT_RATE:
    case NVB__FT_GIB:
        u = p->per > 0 ? (double)*(const uint64_t *)v / p->per : 0;
        return f->type == NVB__FT_GIB && p->per > 0 ? u / 1073741824.0 : u;
    case NVB__FT_DIRSUM: return (double)nvb__figs_dirsum(p->base, f, 0); /* no trims in these results */
    case NVB__FT_MEAN:
        u = (double)*(const uint64_t *)((const char *)p->base + f->off2);
        return (double)*(const uint64_t *)v / u; /* NaN over 0: written as null */
    case NVB__FT_NUM: break;
    default: *ok = 0; return 0;
    }
    /* lat_ns's derived figures, from the histogram as hist.h computes them */
    *ok = p->sec == NVB__FS_LAT;
    if (!*ok)
        return 0;
    const double pct = nvb__figs_pct(f);
    return pct >= 0 ? nvb__hist_pct(p->h, pct) : !strcmp(f->key, "mean") ? nvb__hist_mean(p->h)
                                                                          : nvb__hist_stddev(p->h);
}

/* a run, it merged with itself (hosts[]), and read from its JSON with a
 * block device's facts and a steady state (a run on a scratch file has
 * neither) */
static struct nvb_result *g_run, *g_m, *g_syn;
static char *g_file;

static void make_result(void)
{
    g_file = tu_scratch("figures", 4 << 20);
    const char *const kv[] = {"engine", "psync", "rw", "randrw", "bs", "4k", "ios", "300", "seed", "7", "direct", "0",
                              "verify", "1", "precondition", "1", "rate_iops", "1000000", "fault.short", "0.01",
                              "fault.delay", "1us", "fault.delay_rate", "0.1", "continue_on_error", "1", NULL};
    const char *const tg[] = {g_file, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    g_run = tu_run_ok(w);
    nvb_workload_free(w);
    ck_assert_uint_eq(g_run->ntargets, 1);
    ck_assert_uint_gt(g_run->tot[0].ios + g_run->tot[1].ios, 0);
    ck_assert_uint_eq(g_run->pre.passes, 1);
    ck_assert(g_run->rate_set && g_run->sub.ext);
    const struct nvb_result *parts[2] = {g_run, g_run};
    ck_assert_int_eq(nvb_result_merge(&g_m, parts, 2), 0);
    ck_assert_uint_eq(g_m->nhosts, 2);
    static const char *const put[][2] = {
        {"\"device\":null", "\"device\":{\"name\":\"nvme0n1\",\"kind\":\"nvme\",\"model\":\"M\",\"serial\":\"S\","
                           "\"logical_block_size\":512,\"physical_block_size\":4096,\"indirection_unit\":null,"
                           "\"indirection_unit_source\":\"unknown\",\"link_ceiling_gbs\":null}"},
        {"\"steady_state\":null", "\"steady_state\":{\"metric\":\"iops\",\"reached\":true,\"stopped\":false,"
                                 "\"at_s\":1.5,\"rounds\":5,\"window_s\":2.5,\"mean\":1000,"
                                 "\"max_excursion_pct\":10.25,\"slope_pct\":3}"}};
    char *json = NULL, why[256];
    ck_assert_int_eq(nvb_result_json(g_run, &json), 0);
    struct nvb__buf b = {0};
    const char *at = json;
    for (int i = 0; i < 2; i++) {
        const char *k = strstr(at, put[i][0]);
        ck_assert_msg(k, "%s not in the run's JSON", put[i][0]);
        nvb__buf_putn(&b, at, (size_t)(k - at));
        nvb__buf_puts(&b, put[i][1]);
        at = k + strlen(put[i][0]);
    }
    nvb__buf_puts(&b, at);
    ck_assert_int_eq(nvb_result_parse(b.s, b.len, &g_syn, why, sizeof why), 0);
    ck_assert(g_syn->tg[0].devf.valid && g_syn->ss.metric && g_syn->tg[0].content.examined);
    g_syn->energy = (struct nvb__energy){.state = 1, .source = "rapl", .domains = 2, .joules = 61.2};
    struct nvb__devlog *d = &g_syn->tg[0].dlog; /* a log read before and after, and the power state */
    *d = (struct nvb__devlog){.state = 1, .node = "/dev/nvme0n1", .warn_temp_k = 343, .pw = 1, .ps_before = 0,
                              .ps_after = 2, .max_w = 25};
    for (unsigned i = 0; i < NVB__SM_N; i++)
        d->before[i] = 1000 + i, d->after[i] = 1000 + 3 * i;
    d->after[NVB__SM_TEMPERATURE_K] = 900; /* a gauge that fell: a negative delta */
    free(b.s);
    free(json);
}

static void free_result(void)
{
    nvb_result_free(g_run);
    nvb_result_free(g_m);
    nvb_result_free(g_syn);
    unlink(g_file);
    free(g_file);
}

START_TEST(writer_follows_table)
{
    const struct nvb_result *g_r = _i == 2 ? g_syn : _i ? g_m : g_run;
    struct place p[48];
    int np = places(g_r, p), checked = 0;
    for (int k = 0; k < np; k++)
        for (size_t i = 0; i < nvb__nfigs; i++) {
            const struct nvb__fig *f = &nvb__figs[i];
            char path[128];
            int ok = 0;
            double want = f->sec == p[k].sec ? value(f, &p[k], &ok) : 0, got = -1;
            if (f->sec != p[k].sec || !ok || (f->flags & (NVB__FF_TRIM | NVB__FF_EXT | NVB__FF_OPEN) & ~nvb__figs_when(g_r)))
                continue;
            snprintf(path, sizeof path, "%s%s%s", p[k].path, p[k].path[0] ? "." : "", f->key);
            if ((f->flags & NVB__FF_NZ) && want == 0) { /* a count written only when not 0 */
                ck_assert_msg(nvb_result_get(g_r, path, &got) == -ENOENT, "%s: 0 written", path);
                continue;
            }
            if (want != want) { /* a mean over nothing, a figure unknown: null, which a lookup does not
                                 * find or finds NaN (the CPU's, as before the table) */
                int rc = nvb_result_get(g_r, path, &got);
                ck_assert_msg(rc == -ENOENT || (rc == 0 && got != got), "%s: not null", path);
                continue;
            }
            ck_assert_msg(nvb_result_get(g_r, path, &got) == 0, "%s: not in the result", path);
            ck_assert_msg(got == want, "%s: %.17g written, %.17g in the result", path, got, want);
            checked++;
        }
    ck_assert_int_gt(checked, 40);
}
END_TEST

/* The member of the parsed JSON at a dotted path. */
static struct nvb__jv *at(struct nvb__jv *v, const char *path)
{
    char buf[128], *save = NULL;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *t = strtok_r(buf, ".", &save); t && v; t = strtok_r(NULL, ".", &save)) {
        struct nvb__jv *next = NULL;
        for (uint32_t i = 0; i < v->n; i++)
            if (v->type == NVB__J_ARR ? (uint32_t)atoi(t) == i : !strcmp(v->kid[i].key, t))
                next = &v->kid[i];
        v = next;
    }
    return v;
}

START_TEST(reader_follows_table)
{
    const struct nvb_result *g_r = _i == 2 ? g_syn : _i ? g_m : g_run;
    char *json = NULL, why[256];
    struct nvb__jv *root = NULL;
    ck_assert_int_eq(nvb_result_json(g_r, &json), 0);
    ck_assert_int_eq(nvb__json_parse(json, strlen(json), &root, why, sizeof why), 0);
    struct place p[48];
    int np = places(g_r, p), old = 0, refused = 0;
    for (int k = 0; k < np; k++)
        for (size_t i = 0; i < nvb__nfigs; i++) {
            const struct nvb__fig *f = &nvb__figs[i];
            if (f->sec != p[k].sec || f->type == NVB__FT_PART || f->type == NVB__FT_RATE || f->type == NVB__FT_GIB ||
                f->type == NVB__FT_MEAN || f->type == NVB__FT_DIRSUM || f->type == NVB__FT_SUM ||
                f->type == NVB__FT_NUM || f->type == NVB__FT_DERIV || f->type == NVB__FT_I64 || (f->flags & (NVB__FF_TRIM | NVB__FF_EXT | NVB__FF_OPEN) & ~nvb__figs_when(g_r)))
                continue;
            char path[128];
            snprintf(path, sizeof path, "%s%s%s", p[k].path, p[k].path[0] ? "." : "", f->key);
            struct nvb__jv *m = at(at(root, p[k].path), f->key);
            if (!m && (f->flags & NVB__FF_NZ)) /* 0: absent */
                continue;
            ck_assert_msg(m, "%s: not in the JSON", path);
            m->key[0] = '~'; /* the key missing, as in a result from before it */
            struct nvb__buf b = {0};
            nvb__json_write(root, &b);
            m->key[0] = f->key[0];
            struct nvb_result *r = NULL;
            int rc = nvb_result_parse(b.s, b.len, &r, why, sizeof why);
            free(b.s);
            if (f->flags & NVB__FF_OLD) {
                ck_assert_msg(rc == 0, "%s: a result without it does not load: %s", path, why);
                double v = -1;
                if (f->type != NVB__FT_STR && f->type != NVB__FT_STRP &&
                    !(f->flags & (NVB__FF_CPU | NVB__FF_TICK) & ~nvb__figs_when(r))) /* else null */
                    ck_assert_msg(nvb_result_get(r, path, &v) == 0 && v == 0, "%s: %g, not 0, when absent", path, v);
                nvb_result_free(r);
                old++;
            } else {
                char want[160];
                snprintf(want, sizeof want, "'%s': missing", path);
                ck_assert_msg(rc == -EINVAL && strstr(why, want), "%s: loaded without it (%d, %s)", path, rc, why);
                refused++;
            }
        }
    ck_assert_int_gt(old, 2);
    ck_assert_int_gt(refused, 20);
    /* and what was read is written back as it was */
    struct nvb_result *r = NULL;
    char *back = NULL;
    ck_assert_int_eq(nvb_result_parse(json, strlen(json), &r, why, sizeof why), 0);
    ck_assert_int_eq(nvb_result_json(r, &back), 0);
    ck_assert_str_eq(back, json);
    free(back);
    nvb_result_free(r);
    nvb__json_free(root);
    free(json);
}
END_TEST

/* An object's keys in the JSON are its section's rows, in the table's order
 * (those of another section's prefix, pct: only the rows of percentiles). */
static void keys_are_rows(const struct nvb__jv *o, const char *path, int sec, int pct)
{
    uint32_t k = 0;
    ck_assert_msg(o && o->type == NVB__J_OBJ, "%s: not an object", path);
    for (size_t i = 0; i < nvb__nfigs; i++) {
        const struct nvb__fig *f = &nvb__figs[i];
        if (f->sec != sec || (pct && nvb__figs_pct(f) < 0) || (f->flags & NVB__FF_TRIM)) /* no trims here */
            continue;
        /* an optional row may be absent (a point's intervals: only on merged points) */
        if ((f->flags & NVB__FF_OPT) && (k >= o->n || strcmp(o->kid[k].key, f->key)))
            continue;
        ck_assert_msg(k < o->n && !strcmp(o->kid[k].key, f->key), "%s: key %u is %s, the table's row %s", path, k,
                      k < o->n ? o->kid[k].key : "(none)", f->key);
        k++;
    }
    ck_assert_msg(k == o->n && k >= 4, "%s: %u keys, the table has %u", path, o->n, k);
}

/* The objects written by parts of the direction (lat_ns, slat_ns, clat_ns,
 * their histograms, lat_pct_supported) have the keys of their sections, in
 * order; the percentiles that lat_pct_supported flags are lat_ns's. */
START_TEST(direction_objects_follow_table)
{
    char *json = NULL, why[256], path[96];
    struct nvb__jv *root = NULL;
    ck_assert_int_eq(nvb_result_json(_i == 2 ? g_syn : _i ? g_m : g_run, &json), 0);
    ck_assert_int_eq(nvb__json_parse(json, strlen(json), &root, why, sizeof why), 0);
    static const char *const obj[] = {"lat_ns", "clat_ns", "lat_hist", "clat_hist", "lat_pct_supported"};
    static const char *const where[] = {"read", "write", "per_target.0.read", "per_target.0.write"};
    for (int w = 0; w < 4; w++)
        for (int i = 0; i < 5; i++) {
            snprintf(path, sizeof path, "%s.%s", where[w], obj[i]);
            keys_are_rows(at(root, path), path, i < 2 || i == 4 ? NVB__FS_LAT : NVB__FS_HIST, i == 4);
        }
    if (_i == 2) { /* device_log (the synthetic result's) and its objects */
        static const char *const dl[] = {"", ".before", ".after", ".delta", ".power"};
        static const int dsec[] = {NVB__FS_DEVLOG, NVB__FS_HEALTH, NVB__FS_HEALTH, NVB__FS_HEALTHD, NVB__FS_DEVPOWER};
        for (int i = 0; i < 5; i++) {
            snprintf(path, sizeof path, "per_target.0.device_log%s", dl[i]);
            keys_are_rows(at(root, path), path, dsec[i], 0);
        }
    }
        /* a timeseries point and its directions */
    keys_are_rows(at(root, "timeseries.0"), "timeseries.0", NVB__FS_TS, 0);
    keys_are_rows(at(root, "timeseries.0.read"), "timeseries.0.read", NVB__FS_TSDIR, 0);
    nvb__json_free(root);
    free(json);
}
END_TEST

/* The result's energy text, and a result loaded from it (NULL: it is
 * refused, why in why). */
static char *energy_text(const struct nvb_result *r)
{
    char *json = NULL;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    const char *e = strstr(json, "\"energy\":"), *end = strstr(json, ",\"errors\":");
    char *t = e ? strndup(e, (size_t)(end - e)) : strdup("");
    free(json);
    return t;
}

static struct nvb_result *reload(const struct nvb_result *r, const char *from, const char *to, char *why,
                                 size_t whylen)
{
    char *json = NULL;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    struct nvb__buf b = {0};
    const char *k = strstr(json, from);
    ck_assert_msg(k, "%s not in the JSON", from);
    nvb__buf_putn(&b, json, (size_t)(k - json));
    nvb__buf_puts(&b, to);
    nvb__buf_puts(&b, k + strlen(from));
    struct nvb_result *back = NULL;
    if (nvb_result_parse(b.s, b.len, &back, why, whylen) != 0)
        back = NULL;
    free(b.s);
    free(json);
    return back;
}

/* energy (NVB__FS_ENERGY) is written as it was before the table: joules in
 * the shortest of 15 to 17 digits that reads back, per I/O and watts to 6
 * digits, both null with a ramp or without I/O; {available: false, reason}
 * when not measured; absent when not asked. Each reads back to the same
 * text; a measured one without a row is refused naming it. */
START_TEST(energy_follows_table)
{
    struct nvb_result *r = g_run;
    const struct nvb__energy keep = r->energy;
    const uint64_t ios = r->tot[0].ios + r->tot[1].ios;
    const double js[] = {0.1 + 0.2, 61.2, 12, 1e-7, 123456.789012345678, 2e15, 7022613653458010};
    char want[512], jt[40], why[256];
    for (int i = 0; i < 7; i++)
        for (int ramp = 0; ramp < 2; ramp++) {
            r->energy = (struct nvb__energy){.state = 1, .source = "rapl", .domains = 2, .joules = js[i]};
            const double ramp_s = r->ramp_s;
            r->ramp_s = ramp ? 0.5 : 0;
            for (int prec = 15; prec <= 17; prec++) {
                snprintf(jt, sizeof jt, "%.*g", prec, js[i]);
                if (strtod(jt, NULL) == js[i])
                    break;
            }
            int n = snprintf(want, sizeof want, "\"energy\":{\"available\":true,\"reason\":null,\"source\":\"rapl\","
                             "\"domains\":2,\"joules\":%s,", jt);
            if (ramp)
                snprintf(want + n, sizeof want - (size_t)n, "\"joules_per_io\":null,\"watts\":null}");
            else
                snprintf(want + n, sizeof want - (size_t)n, "\"joules_per_io\":%.6g,\"watts\":%.6g}",
                         js[i] / (double)ios, js[i] / r->duration_s);
            char *got = energy_text(r);
            ck_assert_str_eq(got, want);
            free(got);
            double v = 0;
            ck_assert_int_eq(nvb_result_get(r, "energy.joules", &v), 0);
            ck_assert(v == js[i]);
            struct nvb_result *back = reload(r, "\"version\"", "\"version\"", why, sizeof why);
            ck_assert_msg(back, "%s", why);
            ck_assert(back->energy.state == 1 && back->energy.joules == js[i] && back->energy.domains == 2);
            got = energy_text(back);
            ck_assert_str_eq(got, want);
            free(got);
            nvb_result_free(back);
            r->ramp_s = ramp_s;
        }
    /* a measured one without available, or with a row missing or of the wrong type: refused, naming it */
    r->energy = (struct nvb__energy){.state = 1, .source = "rapl", .domains = 2, .joules = 61.2};
    static const char *const bad[][3] = {{"\"available\":true,", "", "energy"},
                                         {"\"domains\":2,", "", "'energy.domains': missing"},
                                         {"\"source\":\"rapl\",", "", "'energy.source': missing"},
                                         {"\"domains\":2,", "\"domains\":\"2\",", "'energy.domains': expected a number"},
                                         {"\"joules\":", "\"joules\":-", "'energy.joules': negative"},
                                         {"\"joules\":61.2,", "", "'energy.joules': missing"}};
    for (int i = 0; i < 6; i++) {
        ck_assert_ptr_null(reload(r, bad[i][0], bad[i][1], why, sizeof why));
        ck_assert_msg(strstr(why, bad[i][2]), "%s: %s", bad[i][2], why);
    }
    /* not measured: available false and the reason, nothing else; read back */
    r->energy = (struct nvb__energy){.state = 2, .reason = "no RAPL package domain under /x"};
    char *got = energy_text(r);
    ck_assert_str_eq(got, "\"energy\":{\"available\":false,\"reason\":\"no RAPL package domain under /x\"}");
    free(got);
    struct nvb_result *back = reload(r, "\"version\"", "\"version\"", why, sizeof why);
    ck_assert_msg(back && back->energy.state == 2, "%s", why);
    got = energy_text(back);
    ck_assert_str_eq(got, "\"energy\":{\"available\":false,\"reason\":\"no RAPL package domain under /x\"}");
    free(got);
    nvb_result_free(back);
    /* absent (results before it, groups, merges): loads, and stays absent */
    back = reload(r, "\"energy\":{\"available\":false,\"reason\":\"no RAPL package domain under /x\"},", "", why,
                  sizeof why);
    ck_assert_msg(back && back->energy.state == 0, "%s", why);
    got = energy_text(back);
    ck_assert_str_eq(got, "");
    free(got);
    nvb_result_free(back);
    r->energy = keep;
}
END_TEST

/* total's combined figures, what a mixed run's table shows: lat_mean_ns is
 * every latency of the directions over their count from the histograms'
 * exact sums (so each direction's mean weighted by its I/O rate), bw_gib_s
 * the bytes' rate in GiB/s; a merge's is its parts' (here the run's), a
 * host row has no mean; an empty result's mean is null; a result written
 * before them loads and gets them back. */
START_TEST(total_has_the_combined_figures)
{
    const struct nvb_result *g_r = _i ? g_m : g_run;
    unsigned __int128 sum = 0;
    uint64_t n = 0, bytes = 0;
    double weighted = 0, iops = 0, got = -1, bw = -1, run_mean = -1, v = 0;
    for (int d = 0; d < 2; d++) {
        ck_assert_uint_gt(g_r->tot[d].hist->count, 0); /* randrw: both directions */
        sum += g_r->tot[d].hist->sum;
        n += g_r->tot[d].hist->count;
        bytes += g_r->tot[d].bytes;
        weighted += nvb_result_lat_mean(g_r, d) * nvb_result_iops(g_r, d);
        iops += nvb_result_iops(g_r, d);
    }
    ck_assert_int_eq(nvb_result_get(g_r, "total.lat_mean_ns", &got), 0);
    ck_assert(got == nvb__u128d(sum) / (double)n);
    ck_assert_double_eq_tol(got, weighted / iops, got * 1e-12);
    ck_assert(got >= fmin(nvb_result_lat_mean(g_r, 0), nvb_result_lat_mean(g_r, 1)) &&
              got <= fmax(nvb_result_lat_mean(g_r, 0), nvb_result_lat_mean(g_r, 1)));
    ck_assert_int_eq(nvb_result_get(g_run, "total.lat_mean_ns", &run_mean), 0);
    ck_assert(got == run_mean);
    ck_assert_int_eq(nvb_result_get(g_r, "total.bw_gib_s", &bw), 0);
    ck_assert(bw == (double)bytes / g_r->duration_s / 1073741824.0);
    ck_assert_int_eq(nvb_result_get(g_r, "hosts.0.total.lat_mean_ns", &v), -ENOENT);
    if (_i)
        ck_assert_int_eq(nvb_result_get(g_r, "hosts.0.total.bw_gib_s", &v), 0);
    /* a result written before them: loads, and writes them as they are */
    char *json = NULL, why[256], *back_json = NULL;
    ck_assert_int_eq(nvb_result_json(g_r, &json), 0);
    char *const written = strdup(json);
    char *t = strstr(json, "\"total\":{"), *b = t ? strstr(t, ",\"bw_gib_s\":") : NULL, *e = b ? strchr(b, '}') : NULL;
    ck_assert(t && b && e && strstr(b, "\"lat_mean_ns\":") < e);
    memmove(b, e, strlen(e) + 1);
    struct nvb_result *old = NULL;
    ck_assert_msg(nvb_result_parse(json, strlen(json), &old, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(nvb_result_get(old, "total.lat_mean_ns", &got), 0);
    ck_assert(got == run_mean);
    ck_assert_int_eq(nvb_result_json(old, &back_json), 0);
    ck_assert_str_eq(back_json, written);
    nvb_result_free(old);
    free(back_json);
    free(written);
    free(json);
    /* no latencies: null, which a lookup finds as NaN */
    struct nvb_result *empty = nvb__result_new();
    ck_assert_ptr_nonnull(empty);
    ck_assert_int_eq(nvb_result_json(empty, &json), 0);
    ck_assert_msg(strstr(json, "\"lat_mean_ns\":null}"), "%s", json);
    ck_assert_int_eq(nvb_result_get(empty, "total.lat_mean_ns", &got), 0);
    ck_assert(got != got);
    free(json);
    nvb_result_free(empty);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("figures");
    TCase *tc = tcase_create("figures");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, make_result, free_result);
    tcase_add_loop_test(tc, writer_follows_table, 0, 3);
    tcase_add_loop_test(tc, reader_follows_table, 0, 3);
    tcase_add_loop_test(tc, direction_objects_follow_table, 0, 3);
    tcase_add_test(tc, energy_follows_table);
    tcase_add_loop_test(tc, total_has_the_combined_figures, 0, 2);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
