/*
 * The latency-target search (nvb_search_*): the highest throughput at which
 * a latency percentile keeps a bound. The one copy of the algorithm: Python's
 * nvbench.search and Lua's nvbench.search drive it and only run the probes.
 *
 * The binding drives an iterator: nvb_search_next() names the next probe
 * (a queue depth, or a rate in IOPS, 0 standing for unthrottled), the
 * binding runs it and reports each direction's figures with
 * nvb_search_measure(), and the next nvb_search_next() decides from them.
 * So the library never runs anything itself here: a probe may be a real run,
 * a model in a test or a saved result, and cancelling one is the binding's
 * business (a probe never reported is not a point).
 *
 * vary "qd": the depth doubles from start until the bound breaks or max_qd
 * is passed, then the last good and first bad depths are bisected (integers).
 * vary "rate_iops": the unthrottled probe gives the ceiling (the answer when
 * it keeps the bound), then the rate is bisected between 0 and the ceiling
 * until the bracket is narrower than rel_tol of its top; a midpoint is
 * rounded half up. At most max_runs probes: a search cut there says so
 * (nvb_search_cut). The answer is the passing point of highest IOPS (the
 * first of equals).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* The percentiles a result measures (lat_ns), by their names there. */
static const char *const percentiles[] = {"p1",    "p5",     "p10",     "p25",  "p50", "p75", "p90", "p95",
                                          "p99",   "p99.5",  "p99.9",   "p99.99", "p99.999", "mean", "max"};
#define NPCT (sizeof percentiles / sizeof percentiles[0])

struct point {
    double value, iops, lat; /* lat: NaN when no direction judged had one */
    int supported;
};

enum phase { START, DOUBLING, BISECT, DONE };

struct nvb_search {
    const char *key;
    double bound;
    int strict, rate, dir; /* dir: -1 every direction, else enum nvb_dir */
    uint64_t start, max_qd, max_runs;
    double rel_tol;
    struct point *pts;
    size_t n, cap;
    int pending, cut; /* pending: the last probe named, not yet decided on */
    enum phase phase;
    double good, bad, next; /* qd: good, bad depths; rate: lo, hi */
    int has_good;
    char err[256];
};

/* Whitespace around the target's parts: ASCII's and the separators
 * \x1c-\x1f, as Python's str.split and \s take them. */
static int ws(char c)
{
    return c && strchr(" \t\n\v\f\r\x1c\x1d\x1e\x1f", c) != NULL;
}

static const char *skip(const char *s)
{
    while (ws(*s))
        s++;
    return s;
}

/* "p99<=1ms": the percentile, the bound in ns and whether '<' (strict). */
static int parse_target(const char *t, const char **key, double *bound, int *strict, char *why, size_t len)
{
    static const char *const units[] = {"ns", "us", "\xc2\xb5s", "ms", "s"};
    static const double scale[] = {1, 1e3, 1e3, 1e6, 1e9};
    const char *s = skip(t), *k = s;
    while (isalnum((unsigned char)*s) || *s == '.')
        s++;
    size_t klen = (size_t)(s - k);
    s = skip(s);
    int lt = *s == '<', le = lt && s[1] == '=';
    s = skip(s + lt + le);
    const char *num = s;
    while (isdigit((unsigned char)*s) || *s == '.')
        s++;
    int dots = 0;
    for (const char *c = num; c < s; c++)
        dots += *c == '.';
    int shape = klen > 0 && klen < 16 && lt && s > num && isdigit((unsigned char)s[-1]) && dots <= 1;
    if (shape && (*s == 'e' || *s == 'E')) {
        const char *e = s + 1 + (s[1] == '+' || s[1] == '-');
        shape = isdigit((unsigned char)*e);
        for (s = e; isdigit((unsigned char)*s); s++)
            ;
    }
    size_t nlen = (size_t)(s - num);
    s = skip(s);
    const char *u = s;
    while ((*s >= 'a' && *s <= 'z') || (*s == '\xc2' && s[1] == '\xb5'))
        s += *s == '\xc2' ? 2 : 1;
    size_t ulen = (size_t)(s - u);
    if (!shape || *skip(s) || nlen >= 64)
        return nvb__say(why, len, -EINVAL,
                   "target '%s': expected PERCENTILE<=BOUND with a unit, e.g. 'p99<=1ms', 'p99.9<500us', "
                   "'mean<=200us'", t);
    size_t i = 0;
    while (i < NPCT && !(strlen(percentiles[i]) == klen && memcmp(percentiles[i], k, klen) == 0))
        i++;
    if (i == NPCT)
        return nvb__say(why, len, -EINVAL,
                   "target '%s': percentile '%.*s' is not measured; one of p1, p5, p10, p25, p50, p75, p90, p95, "
                   "p99, p99.5, p99.9, p99.99, p99.999, mean, max", t, (int)klen, k);
    if (ulen == 0)
        return nvb__say(why, len, -EINVAL, "target '%s': the bound needs a unit (ns, us, ms, s)", t);
    size_t j = 0;
    while (j < 5 && !(strlen(units[j]) == ulen && memcmp(units[j], u, ulen) == 0))
        j++;
    if (j == 5)
        return nvb__say(why, len, -EINVAL, "target '%s': unit '%.*s' is not one of ns, us, ms, s", t, (int)ulen, u);
    char buf[64];
    memcpy(buf, num, nlen);
    buf[nlen] = 0;
    double v = strtod(buf, NULL) * scale[j];
    if (!(v > 0) || !isfinite(v))
        return nvb__say(why, len, -EINVAL, "target '%s': the bound must be above 0", t);
    *key = percentiles[i];
    *bound = v;
    *strict = !le;
    return 0;
}

int nvb_search_create(const char *target, const char *vary, struct nvb_search **out, char *why, size_t why_len)
{
    if (!target || !vary || !out)
        return nvb__say(why, why_len, -EINVAL, "nvb_search_create: target, vary and out are needed");
    int rate = strcmp(vary, "rate_iops") == 0;
    if (!rate && strcmp(vary, "qd") != 0)
        return nvb__say(why, why_len, -EINVAL, "vary must be 'qd' or 'rate_iops', got '%s'", vary);
    const char *key = NULL;
    double bound = 0;
    int strict = 0;
    int rc = parse_target(target, &key, &bound, &strict, why, why_len);
    if (rc)
        return rc;
    struct nvb_search *s = calloc(1, sizeof *s);
    if (!s)
        return nvb__say(why, why_len, -ENOMEM, "out of memory");
    s->key = key;
    s->bound = bound;
    s->strict = strict;
    s->rate = rate;
    s->dir = -1;
    s->start = 1;
    s->max_qd = 1024;
    s->max_runs = 24;
    s->rel_tol = 0.05;
    *out = s;
    return 0;
}

void nvb_search_destroy(struct nvb_search *s)
{
    if (s) {
        free(s->pts);
        free(s);
    }
}

/* The failure's message kept in the handle (the error getter's), and rc. */
#define fail(h, rc, ...) nvb__say((h)->err, sizeof (h)->err, (rc), __VA_ARGS__)

int nvb_search_set(struct nvb_search *s, const char *key, const char *value)
{
    if (!s || !key || !value)
        return -EINVAL;
    if (s->phase != START || s->pending)
        return fail(s, -EBUSY, "%s: the search has started", key);
    if (strcmp(key, "direction") == 0) {
        int d = !*value ? -1 : strcmp(value, "read") == 0 ? NVB_READ : strcmp(value, "write") == 0 ? NVB_WRITE : -2;
        if (d == -2)
            return fail(s, -EINVAL, "direction must be 'read', 'write' or None, got '%s'", value);
        s->dir = d;
        return 0;
    }
    if (strcmp(key, "rel_tol") == 0) {
        char *end;
        double v = strtod(value, &end);
        if (end == value || *skip(end) || !(v > 0 && v < 1))
            return fail(s, -EINVAL, "rel_tol must be in (0, 1), got %s", value);
        s->rel_tol = v;
        return 0;
    }
    uint64_t *at = strcmp(key, "start") == 0      ? &s->start
                   : strcmp(key, "max_qd") == 0   ? &s->max_qd
                   : strcmp(key, "max_runs") == 0 ? &s->max_runs
                                                  : NULL;
    if (!at)
        return fail(s, -EINVAL, "unknown search option '%s' (start, max_qd, max_runs, rel_tol, direction)", key);
    const char *d = skip(value), *e = d;
    while (isdigit((unsigned char)*e))
        e++;
    uint64_t v = e > d && e - d < 14 && !*skip(e) ? strtoull(d, NULL, 10) : 0;
    if (v < 1 || v > (1ull << 40))
        return fail(s, -EINVAL, "%s must be an integer >= 1, got %s", key, value);
    *at = v;
    return 0;
}

const char *nvb_search_error(const struct nvb_search *s)
{
    return s ? s->err : "";
}

static int point_ok(const struct nvb_search *s, const struct point *p)
{
    return !isnan(p->lat) && (s->strict ? p->lat < s->bound : p->lat <= s->bound);
}

int nvb_search_measure(struct nvb_search *s, int dir, uint64_t ios, double iops, double lat_ns, int supported)
{
    if (!s || (dir != NVB_READ && dir != NVB_WRITE))
        return -EINVAL;
    if (!s->pending)
        return fail(s, -EINVAL, "no probe to measure: call nvb_search_next first");
    if (s->pending == 1) { /* the probe's first figures make it a point */
        if (s->n == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 16;
            struct point *p = realloc(s->pts, cap * sizeof *p);
            if (!p)
                return fail(s, -ENOMEM, "out of memory");
            s->pts = p;
            s->cap = cap;
        }
        s->pts[s->n++] = (struct point){.value = s->next, .iops = 0, .lat = NAN, .supported = 1};
        s->pending = 2;
    }
    struct point *p = &s->pts[s->n - 1];
    if (isfinite(iops))
        p->iops += iops;
    if ((s->dir < 0 || s->dir == dir) && ios > 0 && !isnan(lat_ns)) {
        p->lat = isnan(p->lat) || lat_ns > p->lat ? lat_ns : p->lat;
        if (s->key[0] == 'p' && !supported)
            p->supported = 0;
    }
    return 0;
}

/* The decision after the probe just measured (pending == 2), or the first
 * probe: sets s->next or s->phase = DONE. */
static void decide(struct nvb_search *s)
{
    if (s->phase == START) {
        s->phase = s->rate ? BISECT : DOUBLING;
        s->next = s->rate ? 0 : (double)s->start;
        s->bad = -1; /* rate: no bracket before the ceiling */
        return;
    }
    const struct point *p = &s->pts[s->n - 1];
    int ok = point_ok(s, p);
    if (s->phase == DOUBLING) {
        if (ok) {
            s->good = p->value;
            s->has_good = 1;
            s->next = 2 * p->value;
            if (s->next <= (double)s->max_qd)
                return;
            s->phase = DONE;
            return;
        }
        s->bad = p->value;
        if (!s->has_good) {
            s->phase = DONE;
            return;
        }
        s->phase = BISECT;
    } else if (s->rate && s->bad < 0) { /* the ceiling */
        if (ok || !(p->iops > 0)) {
            s->phase = DONE;
            return;
        }
        s->good = 0;
        s->bad = p->iops;
    } else if (ok) {
        s->good = p->value;
    } else {
        s->bad = p->value;
    }
    double lo = s->good, hi = s->bad, mid;
    if (!s->rate) {
        if (hi - lo <= 1) {
            s->phase = DONE;
            return;
        }
        s->next = floor((lo + hi) / 2);
        return;
    }
    if (!(hi - lo > s->rel_tol * hi && hi > 1)) {
        s->phase = DONE;
        return;
    }
    mid = floor((lo + hi) / 2 + 0.5);
    if (mid <= lo || mid >= hi)
        s->phase = DONE;
    else
        s->next = mid;
}

int nvb_search_next(struct nvb_search *s, double *value)
{
    if (!s || !value)
        return -EINVAL;
    if (s->phase == START && !s->rate && s->start > s->max_qd)
        return fail(s, -EINVAL, "start=%llu is above max_qd=%llu", (unsigned long long)s->start,
                    (unsigned long long)s->max_qd);
    if (s->pending == 1)
        return fail(s, -EINVAL, "the probe at %g was not measured (nvb_search_measure)", s->next);
    if (s->phase == DONE)
        return 0;
    s->pending = 0;
    decide(s);
    if (s->phase == DONE)
        return 0;
    if (s->n >= s->max_runs) {
        s->cut = 1;
        s->phase = DONE;
        return 0;
    }
    s->pending = 1;
    *value = s->next;
    return 1;
}

size_t nvb_search_points(const struct nvb_search *s)
{
    return s ? s->n : 0;
}

int nvb_search_point(const struct nvb_search *s, size_t i, const char *field, double *value)
{
    if (!s || !field || !value)
        return -EINVAL;
    if (i >= s->n)
        return -ERANGE;
    const struct point *p = &s->pts[i];
    double v;
    if (strcmp(field, "value") == 0)
        v = p->value;
    else if (strcmp(field, "iops") == 0)
        v = p->iops;
    else if (strcmp(field, "lat_ns") == 0)
        v = p->lat;
    else if (strcmp(field, "ok") == 0)
        v = point_ok(s, p);
    else if (strcmp(field, "supported") == 0)
        v = p->supported;
    else
        return -EINVAL;
    *value = v;
    return 0;
}

int nvb_search_answer(const struct nvb_search *s, size_t *i)
{
    if (!s || !i)
        return -EINVAL;
    size_t best = s->n;
    for (size_t k = 0; k < s->n; k++)
        if (point_ok(s, &s->pts[k]) && (best == s->n || s->pts[k].iops > s->pts[best].iops))
            best = k;
    if (best == s->n)
        return -ENOENT;
    *i = best;
    return 0;
}

int nvb_search_cut(const struct nvb_search *s)
{
    return s ? s->cut : 0;
}

const char *nvb_search_percentile(const struct nvb_search *s, double *bound_ns, int *strict)
{
    if (!s)
        return NULL;
    if (bound_ns)
        *bound_ns = s->bound;
    if (strict)
        *strict = s->strict;
    return s->key;
}
