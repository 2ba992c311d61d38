/*
 * Block-size mixes (bssplit) and think time (thinktime, thinktime_blocks):
 * the keys' parsing and refusals, the split's proportions over many I/Os
 * (chi-square, fixed seed), sizes and byte counts that add up exactly,
 * offsets aligned and inside the region (the offset function at its
 * extremes, and a real file whose end a stray I/O would cross), the
 * per-size counts through JSON, reload and merge, and think time's lower
 * bound on a run's duration.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvbench.h"
#include "core/run.h"
#include "testutil.h"

#define mk tu_workload

static char *g_file; /* 1 MiB of data */

static struct nvb_workload *null_wl(const char *const *kv)
{
    const char *t[] = {g_file, NULL};
    struct nvb_workload *w = mk((const char *[]){"engine", "null", NULL}, t);
    for (; kv && kv[0]; kv += 2)
        ck_assert_msg(nvb_workload_set(w, kv[0], kv[1]) == 0, "%s=%s: %s", kv[0], kv[1], nvb_workload_error(w));
    return w;
}

/* ------------------------------------------------------------ the keys */

START_TEST(parse_split)
{
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "bssplit", "4k/50:64k/30:128k/20"), 0);
    const struct nvb__bssplit *s = &w->bssplit;
    ck_assert(s->set);
    ck_assert_uint_eq(s->d[0].n, 3);
    ck_assert_uint_eq(s->d[0].size[1], 65536);
    ck_assert_uint_eq(s->d[0].pct[2], 20);
    ck_assert_uint_eq(s->d[1].n, 3); /* one list: both directions */
    /* blanks share what the others leave: 40 over three, the first one more */
    ck_assert_int_eq(nvb_workload_set(w, "bssplit", "4k/10:8k:64k/50:16k:32k"), 0);
    ck_assert_uint_eq(s->d[0].pct[1], 14);
    ck_assert_uint_eq(s->d[0].pct[3], 13);
    ck_assert_uint_eq(s->d[0].pct[4], 13);
    /* per direction, and a direction left to bs */
    ck_assert_int_eq(nvb_workload_set(w, "bssplit", "2k/50:4k/50,4k/90:8k/10"), 0);
    ck_assert_uint_eq(s->d[0].size[0], 2048);
    ck_assert_uint_eq(s->d[1].pct[0], 90);
    ck_assert_int_eq(nvb_workload_set(w, "bssplit", ",64k"), 0);
    ck_assert_uint_eq(s->d[0].n, 0);
    ck_assert_uint_eq(s->d[1].pct[0], 100);
    char buf[300];
    ck_assert_int_ge(nvb_workload_get(w, "bssplit", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, ",64k");
    ck_assert_int_eq(nvb_workload_set(w, "bssplit", ""), 0); /* unset again */
    ck_assert(!s->set);
    nvb_workload_free(w);
}
END_TEST

START_TEST(refused_values)
{
    static const char *const bad[] = {
        "4k/50:64k/30",       /* less than 100 */
        "4k/60:64k/50",       /* more than 100 */
        "4k/50:4k/50",        /* a size twice */
        "4x/100",             /* not a size */
        "0/100",              /* size 0 */
        "2g/100",             /* above bs's range */
        "4k/-1:8k",           /* not a percentage */
        "4k/101",             /* out of range */
        "4k/50.5:8k",         /* not an integer */
        "4k/50::8k/50",       /* an empty item */
        "4k/100,8k/100,1m/100", /* a trim list */
        ",",                  /* no sizes at all */
    };
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "bssplit", "4k/100"), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(nvb_workload_set(w, "bssplit", bad[i]) < 0, "'%s' accepted", bad[i]);
        const char *e = nvb_workload_error(w);
        ck_assert_msg(strstr(e, "'bssplit'") && strstr(e, bad[i]), "'%s': %s", bad[i], e);
        ck_assert_str_eq(w->bssplit.text, "4k/100"); /* nothing written */
    }
    ck_assert_int_lt(nvb_workload_set(w, "thinktime", "5 parsecs"), 0);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "'thinktime'"));
    ck_assert_int_lt(nvb_workload_set(w, "thinktime_blocks", "0"), 0);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "'thinktime_blocks'"));
    nvb_workload_free(w);
}
END_TEST

START_TEST(thinktime_units)
{
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "thinktime", "250"), 0); /* fio's unit: microseconds */
    ck_assert_uint_eq(w->thinktime_ns, 250000);
    ck_assert_int_eq(nvb_workload_set(w, "thinktime", "2ms"), 0);
    ck_assert_uint_eq(w->thinktime_ns, 2000000);
    char buf[64];
    ck_assert_int_ge(nvb_workload_get(w, "thinktime", buf, sizeof buf), 0);
    ck_assert_int_eq(nvb_workload_set(w, "thinktime", buf), 0); /* round trip */
    ck_assert_uint_eq(w->thinktime_ns, 2000000);
    ck_assert_uint_eq(w->thinktime_blocks, 1);
    nvb_workload_free(w);
}
END_TEST

/* Keys a split does not combine with: refused before anything runs, the
 * message naming both keys. */
START_TEST(refused_combinations)
{
    const char *t[] = {g_file, NULL};
    struct {
        const char *k, *v, *want;
    } c[] = {
        {"verify", "1", "verify"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randrw", "direct", "0",
                                                     "bssplit", "4k/50:8k/50", NULL}, t);
        ck_assert_int_eq(nvb_workload_set(w, c[i].k, c[i].v), 0);
        ck_assert_int_lt(nvb_workload_validate(w), 0);
        const char *e = nvb_workload_error(w);
        ck_assert_msg(strstr(e, "bssplit") && strstr(e, c[i].want), "%s", e);
        nvb_workload_free(w);
    }
    /* the largest size must fit the region, every size whole blocks with direct=1 */
    struct nvb_workload *w = null_wl((const char *[]){"bssplit", "4k/50:2m/50", NULL});
    ck_assert_int_lt(nvb_workload_validate(w), 0);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "larger than the region"));
    nvb_workload_free(w);
}
END_TEST

/* ------------------------------------------------------------ runs */

/* Pearson's chi-square of counts against percentages. */
static double chi2(const struct nvb__bscount *c, const unsigned *pct, uint64_t n)
{
    double x = 0;
    for (unsigned i = 0; i < c->n; i++) {
        double e = (double)n * pct[i] / 100.0;
        x += ((double)c->count[i] - e) * ((double)c->count[i] - e) / e;
    }
    return x;
}

/* 400000 I/Os over two jobs and both directions: each direction's sizes
 * follow its split (chi-square below the 0.001 critical value, 2 degrees
 * of freedom: 13.816; 1: 10.828), and the counts add up to the I/Os and
 * bytes exactly. */
START_TEST(split_proportions)
{
    struct nvb_workload *w = null_wl((const char *[]){"rw", "randrw", "qd", "8", "jobs", "2", "ios", "400000",
                                                      "bssplit", "4k/50:64k/30:128k/20,8k/25:16k", "seed", "42",
                                                      NULL});
    struct nvb_result *r = tu_run_ok(w);
    static const unsigned rp[] = {50, 30, 20}, wp[] = {25, 75};
    const struct nvb__bscount *rc = r->tot[NVB_READ].bsc, *wc = r->tot[NVB_WRITE].bsc;
    ck_assert_ptr_nonnull(rc);
    ck_assert_ptr_nonnull(wc);
    ck_assert_uint_eq(rc->n, 3);
    ck_assert_uint_eq(wc->n, 2);
    ck_assert_uint_eq(rc->size[0], 4096);
    ck_assert_uint_eq(rc->size[2], 131072);
    ck_assert_uint_eq(wc->size[1], 16384);
    for (int d = 0; d < 2; d++) {
        const struct nvb__bscount *c = r->tot[d].bsc;
        uint64_t ios = 0, bytes = 0;
        for (unsigned i = 0; i < c->n; i++) {
            ios += c->count[i];
            bytes += c->size[i] * c->count[i];
        }
        ck_assert_uint_eq(ios, r->tot[d].ios);
        ck_assert_uint_eq(bytes, r->tot[d].bytes);
    }
    ck_assert_uint_eq(r->tot[0].ios + r->tot[1].ios, 400000);
    double xr = chi2(rc, rp, r->tot[NVB_READ].ios), xw = chi2(wc, wp, r->tot[NVB_WRITE].ios);
    ck_assert_msg(xr < 13.816, "reads: chi-square %g", xr);
    ck_assert_msg(xw < 10.828, "writes: chi-square %g", xw);
    /* the same by path, as the bindings read it */
    ck_assert(tu_get(r, "read.bs_counts.65536") == (double)rc->count[1]);
    ck_assert(tu_get(r, "per_target.0.write.bs_counts.8192") == (double)wc->count[0]);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* The offset function at its extremes and in between: every offset a
 * multiple of the direction's smallest size, every I/O inside the region,
 * the last offset the last one that fits. */
START_TEST(offsets_aligned_inside)
{
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "bssplit", "12k/40:4k/30:1m/30,64k/100"), 0);
    struct ptarget pt[2] = {{.len = 10 * 1048576 + 12345}, {.len = 1048576}};
    struct plan p = {.t = pt, .nt = 2, .reads = 1, .writes = 1, .jobs = 1};
    struct run run = {.w = w, .p = &p};
    unsigned tmap[2] = {0, 1};
    uint64_t seqpos[2] = {0, 0};
    struct nvb__tstat st[2];
    memset(st, 0, sizeof st);
    struct job j = {.run = &run, .nt = 2, .tmap = tmap, .seqpos = seqpos, .st = st};
    ck_assert_int_eq(nvb__bsmix_job(&j), 0);
    const struct nvb__bsmix *m = j.mix;
    ck_assert_uint_eq(m->align[0], 4096);
    ck_assert_uint_eq(m->align[1], 65536);
    uint64_t s = 7;
    for (unsigned t = 0; t < 2; t++)
        for (unsigned d = 0; d < 2; d++)
            for (unsigned k = 0; k < st[t].d[d].bsc->n; k++) {
                const uint64_t size = m->size[d][k];
                for (int i = 0; i < 100002; i++) {
                    uint64_t r = i == 0 ? 0 : i == 1 ? UINT64_MAX : nvb__splitmix64(&s);
                    uint64_t off = nvb__bsmix_rand_off(m, t, d, k, r);
                    if (off % m->align[d] || off + size > pt[t].len)
                        ck_abort_msg("t%u d%u size %" PRIu64 " at %" PRIu64, t, d, size, off);
                    if (i == 1) /* the last: one more alignment step would not fit */
                        ck_assert_uint_gt(off + m->align[d] + size, pt[t].len);
                }
            }
    /* the draw table: each size as often as its percentage */
    unsigned seen[3] = {0, 0, 0};
    for (int i = 0; i < 100; i++)
        seen[m->pick[0][i]]++;
    ck_assert_uint_eq(seen[0], 30); /* 4k, the smallest, first */
    ck_assert_uint_eq(seen[1], 40); /* 12k */
    ck_assert_uint_eq(seen[2], 30); /* 1m */
    nvb__bsmix_job_free(&j);
    for (unsigned t = 0; t < 2; t++)
        for (int d = 0; d < 2; d++)
            nvb__dstat_free(&st[t].d[d]);
    nvb_workload_free(w);
}
END_TEST

/* A real file of exactly the region's size, read through psync: an I/O
 * that crossed its end would come back short (an error); sequential and
 * random, both cover it and none does. */
START_TEST(file_never_crossed)
{
    static const char *const rws[] = {"randread", "read"};
    for (int i = 0; i < 2; i++) {
        const char *t[] = {g_file, NULL};
        struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", rws[i], "direct", "0",
                                                     "invalidate", "0", "ios", "20000",
                                                     "bssplit", "4k/40:12k/30:100k/30", NULL}, t);
        struct nvb_result *r = tu_run_ok(w);
        ck_assert_uint_eq(r->errors, 0);
        ck_assert_uint_eq(r->short_ios, 0);
        ck_assert_uint_eq(r->tot[NVB_READ].ios, 20000);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

/* The counts through JSON: written, reloaded (checked against ios and
 * bytes), merged (added by size). */
START_TEST(counts_json_merge)
{
    struct nvb_workload *w = null_wl((const char *[]){"rw", "randread", "ios", "1000", "bssplit", "4k/50:8k/50",
                                                      NULL});
    struct nvb_result *a = tu_run_ok(w);
    char *json = NULL;
    ck_assert_int_eq(nvb_result_json(a, &json), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"bs_counts\":{\"4096\":"));
    ck_assert_ptr_nonnull(strstr(json, "\"bssplit\":\"4k/50:8k/50\""));
    struct nvb_result *b = NULL;
    ck_assert_int_eq(nvb_result_from_json(json, &b), 0);
    ck_assert_uint_eq(b->tot[0].bsc->count[1], a->tot[0].bsc->count[1]);
    const struct nvb_result *parts[2] = {a, b};
    struct nvb_result *m = NULL;
    ck_assert_int_eq(nvb_result_merge(&m, parts, 2), 0);
    ck_assert_uint_eq(m->tot[0].bsc->count[0], 2 * a->tot[0].bsc->count[0]);
    ck_assert_uint_eq(m->tot[0].bsc->count[1], 2 * a->tot[0].bsc->count[1]);
    /* counts that do not add up are refused */
    char *p = strstr(json, "\"bs_counts\":{\"4096\":");
    p += strlen("\"bs_counts\":{\"4096\":");
    *p = *p == '9' ? '1' : '9';
    tu_refused_naming(json, "bs_counts");
    nvb_free(json);
    nvb_result_free(m);
    nvb_result_free(b);
    nvb_result_free(a);
    /* without a split: absent, as in results from before bssplit */
    nvb_workload_set(w, "bssplit", "");
    a = tu_run_ok(w);
    ck_assert_int_eq(nvb_result_json(a, &json), 0);
    ck_assert_ptr_null(strstr(json, "bs_counts"));
    nvb_free(json);
    nvb_result_free(a);
    nvb_workload_free(w);
}
END_TEST

/* Sequential with a split: the next offset follows the previous I/O, so
 * one pass over the region moves exactly its bytes before wrapping. */
START_TEST(sequential_bytes)
{
    struct nvb_workload *w = null_wl((const char *[]){"rw", "read", "ios", "5000", "size", "1M",
                                                      "bssplit", "4k/50:8k/50", NULL});
    struct nvb_result *r = tu_run_ok(w);
    const struct nvb__bscount *c = r->tot[0].bsc;
    ck_assert_uint_eq(c->count[0] + c->count[1], 5000);
    ck_assert_uint_eq(r->tot[0].bytes, 4096 * c->count[0] + 8192 * c->count[1]);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* io_limit with a split: a byte budget, each job's share in whole units of
 * the smallest size. Sizes that are multiples of the smallest end exactly
 * on it, over jobs and with a ramp (not counted); others stop with less
 * than the smallest size left per job. */
START_TEST(io_limit_bytes)
{
    struct {
        const char *split, *jobs, *ramp, *rw;
        uint64_t limit, slack; /* bytes moved in [limit - slack, limit] */
    } c[] = {
        {"4k/50:8k/30:64k/20", "3", "0", "randread", 10 << 20, 0},
        {"4k/50:64k/50", "1", "50ms", "read", 8 << 20, 0},
        {"4k/50:6k/50", "2", "0", "randrw", 1 << 20, 2 * 4095},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char lim[32];
        snprintf(lim, sizeof lim, "%" PRIu64, c[i].limit);
        struct nvb_workload *w = null_wl((const char *[]){"rw", c[i].rw, "qd", "8", "jobs", c[i].jobs, "ramp",
                                                          c[i].ramp, "size", "1M", "io_limit", lim, "bssplit",
                                                          c[i].split, NULL});
        struct nvb_result *r = tu_run_ok(w);
        const uint64_t moved = r->tot[0].bytes + r->tot[1].bytes;
        ck_assert_msg(moved <= c[i].limit && moved + c[i].slack >= c[i].limit, "%s: %" PRIu64 " bytes of %" PRIu64,
                      c[i].split, moved, c[i].limit);
        ck_assert_double_eq_tol(tu_get(r, "total.bytes"), (double)moved, 0.5);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

/* ------------------------------------------------------------ think time */

/* 400 I/Os, a 1 ms think after every 8: at least 49 thinks lie between
 * the first I/O and the last, so the run lasts at least 49 ms and its IOPS
 * is at most 400 / 49 ms; no submission carries more than 8 I/Os. */
START_TEST(think_lower_bound)
{
    struct nvb_workload *w = null_wl((const char *[]){"rw", "randread", "qd", "32", "ios", "400",
                                                      "thinktime", "1000", "thinktime_blocks", "8", NULL});
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(r->tot[0].ios, 400);
    ck_assert_msg(r->duration_s >= 0.049, "duration %g s", r->duration_s);
    ck_assert(tu_get(r, "read.iops") <= 400 / 0.049);
    ck_assert_uint_ge(r->sub.calls, 400 / 8);
    ck_assert_uint_eq(r->sub.ios, 400);
    nvb_result_free(r);
    /* no think time: thinktime_blocks alone changes nothing, batches of qd go */
    ck_assert_int_eq(nvb_workload_set(w, "thinktime", "0"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "ios", "4000"), 0);
    r = tu_run_ok(w);
    ck_assert_uint_lt(r->sub.calls, 4000 / 8);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* With an open-loop rate the schedule pauses while the job thinks: 100
 * I/Os at 10000 IOPS and a 2 ms think after every 10 are due no earlier
 * than 99 periods and 9 thinks after the start. */
START_TEST(think_with_rate)
{
    struct nvb_workload *w = null_wl((const char *[]){"rw", "randread", "qd", "4", "ios", "100", "rate_iops",
                                                      "10000", "thinktime", "2ms", "thinktime_blocks", "10", NULL});
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(r->tot[0].ios, 100);
    ck_assert_msg(r->duration_s >= 99 * 100e-6 + 9 * 2e-3, "duration %g s", r->duration_s);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

int main(void)
{
    g_file = tu_scratch("bsmix.dat", 1 << 20);
    Suite *s = suite_create("bsmix");
    TCase *k = tcase_create("keys");
    tcase_add_test(k, parse_split);
    tcase_add_test(k, refused_values);
    tcase_add_test(k, thinktime_units);
    tcase_add_test(k, refused_combinations);
    suite_add_tcase(s, k);
    TCase *rn = tcase_create("runs");
    tcase_set_timeout(rn, 120);
    tcase_add_test(rn, split_proportions);
    tcase_add_test(rn, offsets_aligned_inside);
    tcase_add_test(rn, file_never_crossed);
    tcase_add_test(rn, counts_json_merge);
    tcase_add_test(rn, sequential_bytes);
    tcase_add_test(rn, io_limit_bytes);
    tcase_add_test(rn, think_lower_bound);
    tcase_add_test(rn, think_with_rate);
    suite_add_tcase(s, rn);
    int failed = tu_run_suite(s);
    remove(g_file);
    free(g_file);
    return failed ? 1 : 0;
}
