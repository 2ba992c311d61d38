/*
 * Offsets of random workloads (core/dist.h): the generators drawn from
 * directly and judged by a chi-square test against their exact laws, the
 * permutation behind random_map and the scramble, the keys' parsing and
 * refusals, and end-to-end runs.
 *
 * The statistical tests: 10^6 draws per case from fixed seeds (so a run
 * is repeatable and cannot flake), the ranks (or blocks) grouped into bins
 * of at least 100 expected draws, Pearson's statistic compared with the
 * chi-square quantile at significance 0.001 for the bins' degrees of
 * freedom. Each law is also tested against a neighbouring parameter, which
 * the test must reject: a check that could not fail would prove nothing.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/dist.h"
#include "nvbench.h"
#include "testutil.h"

#define DRAWS 1000000
#define MIN_EXPECTED 100.0
#define Z_001 3.090232306167813 /* the standard normal's 0.999 quantile */

/* The chi-square quantile at 1 - 0.001 for df degrees of freedom (Wilson
 * and Hilferty's cube-root normal approximation: within 1 % of the exact
 * value from df = 10 up: at df = 36, 68.1 against 67.99). */
static double chi2_crit(unsigned df)
{
    double a = 2.0 / (9.0 * df);
    double c = 1 - a + Z_001 * sqrt(a);
    return df * c * c * c;
}

/* A law over [0, n): P(X < k), k in 0..n. */
typedef double (*cdf_fn)(uint64_t k, const void *arg);

/* Pearson's statistic of counts[0..n) against the law, bins merged until
 * each expects MIN_EXPECTED draws; *df gets the degrees of freedom. */
static double chi2(const uint64_t *counts, uint64_t n, uint64_t draws, cdf_fn cdf, const void *arg, unsigned *df)
{
    double stat = 0, obs = 0, exp_ = 0, prev = cdf(0, arg), last_obs = 0, last_exp = 0;
    unsigned bins = 0;
    for (uint64_t k = 0; k < n; k++) {
        double c = cdf(k + 1, arg);
        obs += (double)counts[k];
        exp_ += (c - prev) * (double)draws;
        prev = c;
        if (exp_ >= MIN_EXPECTED || k + 1 == n) {
            if (exp_ < MIN_EXPECTED && bins) { /* the tail: into the last bin */
                stat -= (last_obs - last_exp) * (last_obs - last_exp) / last_exp;
                obs += last_obs;
                exp_ += last_exp;
                bins--;
            }
            stat += (obs - exp_) * (obs - exp_) / exp_;
            last_obs = obs;
            last_exp = exp_;
            bins++;
            obs = exp_ = 0;
        }
    }
    *df = bins - 1;
    return stat;
}

/* An assertion for loops of 10^6: Check's own pass a message each time. */
#define CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

/* DRAWS positions (ranks before the scramble) of a generator, counted. */
static uint64_t *draw_ranks(const char *spec, uint64_t n, uint64_t seed)
{
    struct nvb__dist d;
    char why[256];
    ck_assert_msg(nvb__dist_parse(spec, &d, why, sizeof why) == 0, "%s: %s", spec, why);
    struct nvb__dgen g;
    ck_assert_msg(nvb__dgen_init(&g, &d, 0, n, seed, 0, 0, why, sizeof why) == 0, "%s: %s", spec, why);
    uint64_t *counts = calloc(n, sizeof *counts), rng = seed;
    ck_assert_ptr_nonnull(counts);
    for (unsigned i = 0; i < DRAWS; i++) {
        uint64_t r = nvb__dist_rank(&g, &rng);
        CHECK(r < n, "%s: rank %llu of %llu", spec, (unsigned long long)r, (unsigned long long)n);
        counts[r]++;
    }
    return counts;
}

/* ---- the laws ---- */

struct zipf_law {
    double theta;
    uint64_t n;
    double *cum; /* cum[k] = P(X < k) */
};

static double zipf_cdf(uint64_t k, const void *arg)
{
    return ((const struct zipf_law *)arg)->cum[k];
}

static void zipf_law_init(struct zipf_law *z, double theta, uint64_t n)
{
    z->theta = theta;
    z->n = n;
    z->cum = malloc((n + 1) * sizeof *z->cum);
    ck_assert_ptr_nonnull(z->cum);
    long double sum = 0;
    for (uint64_t k = 1; k <= n; k++)
        sum += powl((long double)k, -(long double)theta);
    long double acc = 0;
    z->cum[0] = 0;
    for (uint64_t k = 1; k <= n; k++) {
        acc += powl((long double)k, -(long double)theta);
        z->cum[k] = (double)(acc / sum);
    }
}

struct pareto_law {
    double h;
    uint64_t n;
};

/* rank = floor(n U^p): P(rank < k) = (k/n)^(1/p), p = log h / log(1-h). */
static double pareto_cdf(uint64_t k, const void *arg)
{
    const struct pareto_law *p = arg;
    return pow((double)k / (double)p->n, log(1 - p->h) / log(p->h));
}

struct normal_law {
    double pct;
    uint64_t n;
};

static double phi(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

/* The normal law of mean n/2 and deviation pct % of n, truncated to [0, n). */
static double normal_cdf(uint64_t k, const void *arg)
{
    const struct normal_law *l = arg;
    double mu = (double)l->n / 2, sd = l->pct / 100 * (double)l->n;
    double lo = phi(-mu / sd), hi = phi(((double)l->n - mu) / sd);
    return (phi(((double)k - mu) / sd) - lo) / (hi - lo);
}

struct zoned_law {
    unsigned nz;
    double io[8];     /* percent */
    uint64_t end[8];  /* each zone's end block */
};

static double zoned_cdf(uint64_t k, const void *arg)
{
    const struct zoned_law *z = arg;
    double acc = 0;
    uint64_t start = 0;
    for (unsigned i = 0; i < z->nz; i++) {
        if (k <= start)
            break;
        uint64_t len = z->end[i] - start;
        uint64_t in = (k < z->end[i] ? k : z->end[i]) - start;
        acc += len ? z->io[i] / 100 * (double)in / (double)len : 0;
        start = z->end[i];
    }
    return acc;
}

/* ---- the tests ---- */

static void expect_fit(const char *spec, const uint64_t *counts, uint64_t n, cdf_fn cdf, const void *arg, int fit)
{
    unsigned df;
    double s = chi2(counts, n, DRAWS, cdf, arg, &df);
    double crit = chi2_crit(df);
    ck_assert_msg(df >= 10, "%s: only %u degrees of freedom", spec, df);
    if (fit)
        ck_assert_msg(s < crit, "%s: chi-square %.1f >= %.1f (df %u, significance 0.001)", spec, s, crit, df);
    else
        ck_assert_msg(s > crit, "%s: the test did not tell the law from a neighbour: %.1f <= %.1f (df %u)", spec, s,
                      crit, df);
}

START_TEST(zipf_fits_its_law)
{
    static const double thetas[] = {0.8, 1.0, 1.2, 2.0};
    static const uint64_t ns[] = {100000, 1000, 37};
    for (unsigned i = 0; i < sizeof thetas / sizeof thetas[0]; i++) {
        for (unsigned m = 0; m < sizeof ns / sizeof ns[0]; m++) {
            char spec[32];
            snprintf(spec, sizeof spec, "zipf:%g", thetas[i]);
            uint64_t *c = draw_ranks(spec, ns[m], 0x1234 + i * 7 + m);
            struct zipf_law z, near;
            zipf_law_init(&z, thetas[i], ns[m]);
            expect_fit(spec, c, ns[m], zipf_cdf, &z, 1);
            zipf_law_init(&near, thetas[i] * 1.03, ns[m]); /* 3 % off: rejected */
            expect_fit(spec, c, ns[m], zipf_cdf, &near, 0);
            free(z.cum);
            free(near.cum);
            free(c);
        }
    }
}
END_TEST

START_TEST(pareto_fits_its_law)
{
    static const double hs[] = {0.2, 0.9, 0.5, 0.35};
    for (unsigned i = 0; i < sizeof hs / sizeof hs[0]; i++) {
        char spec[32];
        snprintf(spec, sizeof spec, "pareto:%g", hs[i]);
        const uint64_t n = 50000;
        uint64_t *c = draw_ranks(spec, n, 0xbeef + i);
        struct pareto_law p = {hs[i], n}, near = {hs[i] * 1.05, n};
        expect_fit(spec, c, n, pareto_cdf, &p, 1);
        if (hs[i] != 0.5) /* 0.5 is uniform, and 0.525 too close to it to tell in 10^6 draws */
            expect_fit(spec, c, n, pareto_cdf, &near, 0);
        free(c);
    }
}
END_TEST

START_TEST(pareto_share_is_the_stated_rule)
{
    /* pareto:0.2: 80 % of the I/O to the first 20 % of the ranks */
    const uint64_t n = 10000;
    uint64_t *c = draw_ranks("pareto:0.2", n, 77), head = 0;
    for (uint64_t k = 0; k < n / 5; k++)
        head += c[k];
    ck_assert_msg(fabs((double)head / DRAWS - 0.8) < 0.005, "share of the first 20 %%: %g", (double)head / DRAWS);
    free(c);
}
END_TEST

START_TEST(normal_fits_its_law)
{
    static const double pcts[] = {5, 20, 100};
    static const double off[] = {1.05, 1.05, 0.6}; /* at 100 % the law is nearly flat: a neighbour further away */
    for (unsigned i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
        char spec[32];
        snprintf(spec, sizeof spec, "normal:%g", pcts[i]);
        const uint64_t n = 20011;
        uint64_t *c = draw_ranks(spec, n, 0xfeed + i);
        struct normal_law l = {pcts[i], n}, near = {pcts[i] * off[i], n};
        expect_fit(spec, c, n, normal_cdf, &l, 1);
        expect_fit(spec, c, n, normal_cdf, &near, 0);
        free(c);
    }
}
END_TEST

START_TEST(zoned_fits_its_law)
{
    static const struct {
        const char *spec;
        struct zoned_law law; /* ends for n = 1000 */
        struct zoned_law near;
    } cases[] = {
        {"zoned:60/10:30/20:10/70", {3, {60, 30, 10}, {100, 300, 1000}}, {3, {56, 34, 10}, {100, 300, 1000}}},
        {"zoned:50/5:0/45:50/50", {3, {50, 0, 50}, {50, 500, 1000}}, {3, {50, 0, 50}, {50, 510, 1000}}},
        {"zoned:25/25:25/25:25/25:25/25", {4, {25, 25, 25, 25}, {250, 500, 750, 1000}},
         {4, {28, 22, 25, 25}, {250, 500, 750, 1000}}},
        {"zoned:100/100", {1, {100}, {1000}}, {2, {50, 50}, {400, 1000}}},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t *c = draw_ranks(cases[i].spec, 1000, 0xabc + i);
        expect_fit(cases[i].spec, c, 1000, zoned_cdf, &cases[i].law, 1);
        expect_fit(cases[i].spec, c, 1000, zoned_cdf, &cases[i].near, 0);
        if (i == 1)
            for (unsigned k = 50; k < 500; k++)
                CHECK(c[k] == 0, "block %u drawn", k); /* a zone without I/O is never drawn */
        free(c);
    }
}
END_TEST

START_TEST(uniform_fits_and_is_the_old_draw)
{
    const uint64_t n = 4099;
    uint64_t *c = draw_ranks("random", n, 5);
    struct zoned_law u = {1, {100}, {n}};
    expect_fit("random", c, n, zoned_cdf, &u, 1);
    free(c);
    /* the inline draw is the one the loop always made (verify's streams depend on it) */
    struct nvb__dist d = {0};
    struct nvb__dgen g;
    char why[128];
    ck_assert_int_eq(nvb__dgen_init(&g, &d, 0, n, 9, 0, 0, why, sizeof why), 0);
    uint64_t a = 42, b = 42;
    for (int i = 0; i < 1000; i++)
        CHECK(nvb__dist_next(&g, &a) == (uint64_t)(((unsigned __int128)nvb__splitmix64(&b) * n) >> 64), "draw %d", i);
}
END_TEST

START_TEST(perm_is_a_bijection)
{
    static const uint64_t ns[] = {1, 2, 3, 5, 64, 65, 1000, 4097, 1000003};
    for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        uint64_t n = ns[i];
        unsigned char *seen = calloc(n, 1);
        ck_assert_ptr_nonnull(seen);
        struct nvb__perm p;
        nvb__perm_init(&p, n, 0x9999 + i);
        uint64_t fixed = 0;
        for (uint64_t k = 0; k < n; k++) {
            uint64_t x = nvb__perm_apply(&p, k);
            CHECK(x < n && !seen[x], "n %llu: %llu twice", (unsigned long long)n, (unsigned long long)x);
            seen[x] = 1;
            fixed += x == k;
        }
        if (n >= 1000) /* a scramble, not the identity */
            ck_assert_uint_lt(fixed, n / 100);
        free(seen);
    }
}
END_TEST

START_TEST(random_map_visits_every_block_once_per_pass)
{
    static const uint64_t ns[] = {1, 7, 1024, 100003};
    struct nvb__dist d = {0};
    for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        uint64_t n = ns[i], rng = 3;
        struct nvb__dgen g;
        char why[128];
        ck_assert_int_eq(nvb__dgen_init(&g, &d, 1, n, 11, 2, 5, why, sizeof why), 0);
        uint32_t *seen = calloc(n, sizeof *seen);
        uint64_t *first = calloc(n, sizeof *first);
        ck_assert(seen && first);
        for (unsigned pass = 1; pass <= 3; pass++) {
            uint64_t same = 0;
            for (uint64_t k = 0; k < n; k++) {
                uint64_t b = nvb__dist_next(&g, &rng);
                if (k % 5 == 3) { /* put back (verify found it in flight): it comes again */
                    nvb__dist_unget(&g);
                    CHECK(nvb__dist_next(&g, &rng) == b, "unget: another block");
                }
                CHECK(b < n && seen[b] == pass - 1, "n %llu pass %u: block %llu seen %u times",
                              (unsigned long long)n, pass, (unsigned long long)b, seen[b]);
                seen[b] = pass;
                if (pass == 1)
                    first[k] = b;
                else
                    same += first[k] == b;
            }
            if (pass > 1 && n >= 1024) /* each pass its own order */
                ck_assert_uint_lt(same, n / 10);
        }
        free(seen);
        free(first);
    }
}
END_TEST

START_TEST(keys_parse_round_trip_and_refuse)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    char buf[NVB__DIST_TEXT_MAX];
    static const char *const ok[][2] = {
        {"random", "random"}, {"zipf:1.2", "zipf:1.2"}, {"zipf:1", "zipf:1"}, {"pareto:0.9", "pareto:0.9"},
        {"normal:10", "normal:10"}, {"gauss:2.5", "normal:2.5"}, {"normal:10%", "normal:10"},
        {"zoned:60/10:30/20:10/70", "zoned:60/10:30/20:10/70"}, {"zoned:12.5/50:87.5/50", "zoned:12.5/50:87.5/50"},
    };
    ck_assert_int_gt(nvb_workload_get(w, "random_distribution", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "random");
    for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ck_assert_msg(nvb_workload_set(w, "random_distribution", ok[i][0]) == 0, "%s: %s", ok[i][0],
                      nvb_workload_error(w));
        ck_assert_int_gt(nvb_workload_get(w, "random_distribution", buf, sizeof buf), 0);
        ck_assert_str_eq(buf, ok[i][1]);
    }
    static const char *const bad[] = {
        "zipf", "zipf:0", "zipf:-1", "zipf:abc", "zipf:1.2%", "zipf:101", "zipf:nan", "pareto:1", "pareto:0",
        "pareto:1.5", "normal:0", "normal:101", "zoned", "zoned:", "zoned:60/10:30/20", "zoned:50/0:50/100",
        "zoned:60/10:40", "zoned:60/10:30/20:10/70:", "uniform", "random:1", "", "zipf:1.2:3",
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = nvb_workload_set(w, "random_distribution", bad[i]);
        ck_assert_msg(rc == -EINVAL || rc == -ERANGE, "'%s' accepted", bad[i]);
        char want[64];
        snprintf(want, sizeof want, "'%s'", bad[i]);
        ck_assert_msg(strstr(nvb_workload_error(w), "random_distribution") && strstr(nvb_workload_error(w), want),
                      "'%s': %s", bad[i], nvb_workload_error(w));
        nvb_workload_get(w, "random_distribution", buf, sizeof buf); /* unchanged */
        ck_assert_str_eq(buf, "zoned:12.5/50:87.5/50");
    }
    /* the longest value: 32 zones, read back whole; a 33rd is refused */
    char big[NVB__DIST_TEXT_MAX] = "zoned";
    for (int z = 0; z < 32; z++)
        strcat(big, z < 31 ? ":3.12345678901234/3.12345678901234" : ":3.1728395406175/3.1728395406175");
    ck_assert_msg(nvb_workload_set(w, "random_distribution", big) == 0, "%s", nvb_workload_error(w));
    ck_assert_int_gt(nvb_workload_get(w, "random_distribution", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, big);
    strcat(big, ":0/1");
    ck_assert_int_eq(nvb_workload_set(w, "random_distribution", big), -EINVAL);
    ck_assert_msg(strstr(nvb_workload_error(w), "more than 32 zones"), "%s", nvb_workload_error(w));
    ck_assert_int_eq(nvb_workload_set(w, "random_map", "2"), -EINVAL);
    ck_assert(strstr(nvb_workload_error(w), "random_map"));
    ck_assert_int_eq(nvb_workload_set(w, "random_map", "1"), 0);
    nvb_workload_free(w);
}
END_TEST

/* The keys against the rest of the workload: refused before anything runs. */
START_TEST(refusals_name_both_keys)
{
    static const char *const cases[][6] = {
        {"rw", "randread", "random_map", "1", "random_distribution", "zipf:1.2"},
        {"rw", "read", "random_distribution", "normal:5", NULL, NULL},
        {"rw", "rw", "random_distribution", "pareto:0.2", NULL, NULL},
    };
    static const char *const words[][3] = {
        {"random_map", "random_distribution", "zipf:1.2"},
        {"random_distribution", "normal:5", "rw 'read'"},
        {"random_distribution", "pareto:0.2", "rw 'rw'"},
    };
    for (unsigned i = 0; i < 3; i++) {
        struct nvb_workload *w = tu_workload((const char *[]){"engine", "null", "size", "1M", "ios", "10",
                                                              cases[i][0], cases[i][1], cases[i][2], cases[i][3],
                                                              cases[i][4], cases[i][5], NULL}, NULL);
        ck_assert_int_eq(nvb_workload_validate(w), -EINVAL);
        for (unsigned k = 0; k < 3; k++)
            ck_assert_msg(strstr(nvb_workload_error(w), words[i][k]), "%s", nvb_workload_error(w));
        nvb_workload_free(w);
    }
    /* random_map with a sequential rw is what sequential I/O does anyway */
    struct nvb_workload *w = tu_workload((const char *[]){"engine", "null", "size", "1M", "ios", "10", "rw", "read",
                                                          "random_map", "1", NULL}, NULL);
    nvb_result_free(tu_run_ok(w));
    nvb_workload_free(w);
}
END_TEST

START_TEST(zone_without_a_block_is_refused)
{
    struct nvb__dist d;
    struct nvb__dgen g;
    char why[256];
    ck_assert_int_eq(nvb__dist_parse("zoned:50/1:50/99", &d, why, sizeof why), 0);
    ck_assert_int_eq(nvb__dgen_init(&g, &d, 0, 10, 1, 0, 0, why, sizeof why), -EINVAL);
    ck_assert_msg(strstr(why, "zoned:50/1:50/99") && strstr(why, "zone 1"), "%s", why);
    ck_assert_int_eq(nvb__dgen_init(&g, &d, 0, 100, 1, 0, 0, why, sizeof why), 0);
    /* through a run: the job's setup error */
    struct nvb_workload *w = tu_workload((const char *[]){"engine", "null", "size", "40k", "ios", "10",
                                                          "random_distribution", "zoned:50/1:50/99", NULL}, NULL);
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, NULL, &r), -EINVAL);
    ck_assert_msg(r && strstr(nvb_result_error(r), "zone 1"), "%s", r ? nvb_result_error(r) : "no result");
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* ---- end to end: the offsets psync reads, seen through pread ---- */

#define E2E_BS 8192
static uint64_t *e2e_counts; /* per block of the test's file while a run records */
static uint64_t e2e_nblocks;

/* The test program's pread comes first for the library linked into it. */
ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
    if (e2e_counts && count == E2E_BS && off >= 0 && (uint64_t)off / E2E_BS < e2e_nblocks)
        __atomic_fetch_add(&e2e_counts[off / E2E_BS], 1, __ATOMIC_RELAXED);
    return syscall(SYS_pread64, fd, buf, count, off);
}

static uint64_t *e2e_run(const char *path, const char *const *kv, uint64_t nblocks, const char *dist_echo)
{
    e2e_nblocks = nblocks;
    e2e_counts = calloc(nblocks, sizeof *e2e_counts);
    ck_assert_ptr_nonnull(e2e_counts);
    struct nvb_workload *w = tu_workload(kv, (const char *[]){path, NULL});
    struct nvb_result *r = tu_run_ok(w);
    uint64_t *c = e2e_counts;
    e2e_counts = NULL;
    char *json;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    char want[128];
    snprintf(want, sizeof want, "\"random_distribution\":\"%s\"", dist_echo);
    ck_assert_msg(strstr(json, want), "no %s in the workload", want);
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
    return c;
}

static int desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

START_TEST(run_is_skewed_as_the_law_says)
{
    const uint64_t n = 1000, ios = 200000;
    char *path = tu_scratch("dist_e2e", n * E2E_BS);
    uint64_t *c = e2e_run(path, (const char *[]){"engine", "psync", "direct", "0", "bs", "8k", "rw", "randread",
                                                 "ios", "200000", "jobs", "2", "random_distribution", "zipf:1.2",
                                                 NULL}, n, "zipf:1.2");
    uint64_t total = 0, low = 0;
    for (uint64_t k = 0; k < n; k++) {
        total += c[k];
        low += k < n / 10 ? c[k] : 0;
    }
    ck_assert_uint_eq(total, ios);
    qsort(c, n, sizeof *c, desc);
    uint64_t hot = 0;
    for (uint64_t k = 0; k < n / 10; k++)
        hot += c[k];
    struct zipf_law z;
    zipf_law_init(&z, 1.2, n);
    double want = z.cum[n / 10], got = (double)hot / (double)total;
    free(z.cum);
    /* the hottest 10 % of the blocks: the law's share of its first 10 % of ranks
     * (~0.78 here; binomial deviation ~0.001, and a few borderline ranks swap) */
    ck_assert_msg(fabs(got - want) < 0.01, "hottest 10 %%: %.4f, the law says %.4f", got, want);
    /* and spread over the region, not packed at its start */
    ck_assert_msg((double)low / (double)total < 0.5, "the first 10 %% of the region got %.3f", (double)low / total);
    free(c);

    /* uniform for comparison: the hottest 10 % get little more than 10 % */
    c = e2e_run(path, (const char *[]){"engine", "psync", "direct", "0", "bs", "8k", "rw", "randread", "ios",
                                       "200000", NULL}, n, "random");
    qsort(c, n, sizeof *c, desc);
    hot = 0;
    for (uint64_t k = 0; k < n / 10; k++)
        hot += c[k];
    ck_assert_msg((double)hot / ios < 0.12, "uniform: hottest 10 %% got %.3f", (double)hot / ios);
    free(c);

    /* random_map: 3 passes, every block read exactly 3 times */
    c = e2e_run(path, (const char *[]){"engine", "psync", "direct", "0", "bs", "8k", "rw", "randread", "ios", "3000",
                                       "random_map", "1", NULL}, n, "random");
    for (uint64_t k = 0; k < n; k++)
        CHECK(c[k] == 3, "random_map: block %llu read %llu times", (unsigned long long)k,
                      (unsigned long long)c[k]);
    free(c);
    unlink(path);
    free(path);
}
END_TEST

/* The null engine: every distribution runs, and the workload echoes both keys. */
START_TEST(null_runs_echo_the_keys)
{
    static const char *const specs[] = {"random", "zipf:2", "pareto:0.9", "normal:20", "zoned:90/10:10/90"};
    for (unsigned i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        struct nvb_workload *w = tu_workload((const char *[]){"engine", "null", "size", "64M", "ios", "20000",
                                                              "qd", "8", "random_distribution", specs[i], NULL}, NULL);
        struct nvb_result *r = tu_run_ok(w);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 20000);
        char *json;
        ck_assert_int_eq(nvb_result_json(r, &json), 0);
        char want[96];
        snprintf(want, sizeof want, "\"random_distribution\":\"%s\",\"random_map\":0", specs[i]);
        ck_assert_msg(strstr(json, want), "no %s", want);
        nvb_free(json);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("dist");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, zipf_fits_its_law);
    tcase_add_test(tc, pareto_fits_its_law);
    tcase_add_test(tc, pareto_share_is_the_stated_rule);
    tcase_add_test(tc, normal_fits_its_law);
    tcase_add_test(tc, zoned_fits_its_law);
    tcase_add_test(tc, uniform_fits_and_is_the_old_draw);
    tcase_add_test(tc, perm_is_a_bijection);
    tcase_add_test(tc, random_map_visits_every_block_once_per_pass);
    tcase_add_test(tc, keys_parse_round_trip_and_refuse);
    tcase_add_test(tc, refusals_name_both_keys);
    tcase_add_test(tc, zone_without_a_block_is_refused);
    tcase_add_test(tc, run_is_skewed_as_the_law_says);
    tcase_add_test(tc, null_runs_echo_the_keys);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
