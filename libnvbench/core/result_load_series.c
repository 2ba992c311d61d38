/*
 * The loader's readers of a result's time series and of its hosts (a
 * merged multi-host result): the parts of a result whose size grows with
 * the run's length or the number of hosts, checked as result_load.c checks
 * the rest (result_read.h's primitives), so that each file has one job.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#include "core/result_read.h"
#include "core/ihist.h"

/* An interval's lat histogram (ihist.h): null or absent (older results)
 * is unknown. */
static int ld_ihist(struct ld *L, const struct nvb__jv *x, const char *path, struct nvb__tsample *s, int d)
{
    const struct nvb__jv *h = mem(L, x, path, "lat_hist", -1, 0);
    if (h && h->type != NVB__J_NULL && !(h = mem(L, x, path, "lat_hist", NVB__J_OBJ, 1)))
        return L->rc;
    if (!h || h->type == NVB__J_NULL) {
        const int u = h ? 1 : 2; /* absent: written before them, and written back so */
        s->lh_unknown = u > s->lh_unknown ? u : s->lh_unknown;
        return 0;
    }
    char p[128], pb[160];
    sub(p, sizeof p, path, "lat_hist");
    uint64_t count = 0;
    const struct nvb__jv *b = mem(L, h, p, "buckets", NVB__J_ARR, 1);
    if (!b || rd_u64(L, h, p, "count", &count, 1))
        return L->rc;
    if (b->n > NVB__HIST_BUCKETS)
        return bad(L, p, "buckets", "more entries than the histogram has buckets");
    sub(pb, sizeof pb, p, "buckets");
    /* The pairs, once checked, are the sparse list itself: room for them
     * alone (a dense array of every bucket per interval cost a clear and a
     * scan of NVB__HIST_BUCKETS for each). */
    struct nvb__ihist *list = b->n ? nvb__ihist_alloc((unsigned)b->n) : NULL;
    if (b->n && !list)
        return oom(L);
    uint64_t seen = 0, prev = 0;
    const char *why = NULL;
    for (size_t i = 0; i < b->n && !why; i++) {
        const struct nvb__jv *e = &b->kid[i];
        uint64_t idx = 0, cnt = 0;
        if (e->type != NVB__J_ARR || e->n != 2 || nvb__json_u64(&e->kid[0], &idx) || nvb__json_u64(&e->kid[1], &cnt))
            why = "expected [index, count] pairs of non-negative integers";
        else if (idx >= NVB__HIST_BUCKETS)
            why = "bucket index out of range";
        else if (i && idx <= prev)
            why = "bucket indexes must ascend";
        else if (!cnt)
            why = "a listed bucket must not be empty";
        else if (cnt > UINT64_MAX - seen)
            why = "counts overflow";
        else {
            list->b[list->n].i = (uint32_t)idx;
            list->b[list->n++].c = cnt;
            seen += cnt;
            prev = idx;
        }
    }
    if (!why && seen != count)
        why = "the buckets do not add up to count";
    if (why || !list) {
        free(list);
        return why ? bad(L, pb, "", why) : 0;
    }
    list->count = seen;
    s->lh[d] = list;
    return 0;
}

int nvb__ld_series(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    const struct nvb__jv *ts = mem(L, root, "", "timeseries", NVB__J_ARR, 1);
    if (!ts)
        return L->rc;
    for (size_t i = 0; i < ts->n; i++) {
        char p[64];
        const struct nvb__jv *o = entry(L, ts, "timeseries", i, p, sizeof p);
        struct nvb__tsample s;
        memset(&s, 0, sizeof s);
        if (!o)
            return L->rc;
        if (ld_figs(L, o, p, NVB__FS_TS, &s, nvb__figs_when(r)))
            return L->rc;
        if (s.system_pct < 0)
            s.system_pct = -1;
        uint64_t nint = 1; /* intervals: absent for one (and in results written before merges) */
        if (nvb__json_get(o, "intervals")) {
            if (rd_u64(L, o, p, "intervals", &nint, 1))
                return L->rc;
            if (nint < 2 || nint > UINT32_MAX) {
                bad(L, p, "intervals", "not an interval count from 2 to 2^32 - 1 (absent for one)");
                return L->rc;
            }
            s.n = (unsigned)nint;
        }
        for (int d = 0; d < nvb__result_ndir(r); d++) {
            char q[80];
            sub(q, sizeof q, p, dn[d]);
            const struct nvb__jv *x = mem(L, o, p, dn[d], NVB__J_OBJ, 1);
            if (!x || ld_figs(L, x, q, NVB__FS_TSDIR, (char *)&s + d * sizeof(uint64_t), 0))
                break;
            if (nvb__json_get(x, "lat_sum_ns")) {
                uint64_t w[2];
                if (rd_wide(L, x, q, "lat_sum_ns", w, 2, 0))
                    break;
                s.lat_sum[d] = (unsigned __int128)w[1] << 64 | w[0];
                /* each latency is below 2^64 ns */
                if (s.lat_sum[d] > (unsigned __int128)s.ios[d] * UINT64_MAX) {
                    bad(L, q, "lat_sum_ns", "more than ios latencies below 2^64 ns can add up to");
                    break;
                }
            } else {
                /* older results: from the mean (not exact) */
                double mean = 0;
                if (rd_nonneg(L, x, q, "lat_mean_ns", &mean, 1))
                    break;
                double sum = mean * (double)s.ios[d];
                if (!(sum < 1.8e19)) {
                    bad(L, q, "lat_mean_ns", "out of range");
                    break;
                }
                s.lat_sum[d] = (uint64_t)llround(sum);
            }
            if (ld_ihist(L, x, q, &s, d))
                break;
        }
        if (s.lh_unknown || L->rc)
            nvb__ihists_free(s.lh);
        if (L->rc)
            return L->rc;
        if (nvb__result_ts_push(r, &s)) {
            nvb__ihists_free(s.lh);
            return oom(L);
        }
    }
    return 0;
}

/* A host row's parts: its directions, its machine's CPU, its error (rank,
 * total and the times since the merged window are derived). */
static int ld_host(struct ld *L, const struct nvb__jv *o, const char *p, void *row, struct nvb_result *r)
{
    struct nvb__hostrow *h = row;
    char q[96];
    for (int d = 0; d < nvb__result_ndir(r); d++) {
        sub(q, sizeof q, p, dn[d]);
        const struct nvb__jv *x = mem(L, o, p, dn[d], NVB__J_OBJ, 1);
        if (!x || ld_figs(L, x, q, NVB__FS_HOSTDIR, (char *)h + d * sizeof(uint64_t), 0))
            return L->rc;
    }
    sub(q, sizeof q, p, "cpu");
    const struct nvb__jv *c = mem(L, o, p, "cpu", NVB__J_OBJ, 1);
    if (!c || ld_figs(L, c, q, NVB__FS_HOSTCPU, h, 0))
        return L->rc;
    if (h->ncpus > (1u << 20))
        return bad(L, q, "ncpus", "out of range");
    if (h->system_pct < 0)
        h->system_pct = -1;
    if ((nullable(L, o, p, "error") && rd_strdup(L, o, p, "error", &h->error, 1)) || L->rc)
        return L->rc;
    return 0;
}

int nvb__ld_hosts(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    if (!nvb__json_get(root, "hosts")) /* results from before them */
        return 0;
    void *hs = NULL;
    int rc = ld_rows(L, root, "", "hosts", NVB__FS_HOST, UINT32_MAX / 2, sizeof *r->hosts, NULL, &hs, &r->nhosts,
                     ld_host, r);
    r->hosts = hs;
    return rc;
}
