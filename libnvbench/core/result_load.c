/*
 * A result from its JSON (nvb_result_from_json, nvb_result_parse): what a
 * process receives from another one, to merge or to report. The text comes
 * from elsewhere, so it is checked at every step: the JSON itself by the
 * strict reader (json.c), then every key this file reads for its type,
 * range and the size of the field it fills, and the histograms for their
 * geometry and for counts that agree with each other. The first problem
 * ends the load with -EINVAL and a message naming the key.
 *
 * What is read is what the result stores; figures derived from others
 * (rates, percentiles, process_cores, ...) are recomputed on output, from
 * the same values, so the JSON written back is the JSON that was read.
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

/* The sum of squares: a string of digits (exact), or the number results
 * before it wrote (a double: exact below 2^53, rounded above). */
static int ld_sumsq(struct ld *L, const struct nvb__jv *h, const char *path, struct nvb__hist *hist)
{
    const struct nvb__jv *v = mem(L, h, path, "sumsq", -1, 1);
    double x = 0;
    uint64_t w[3] = {0, 0, 0};
    if (!v || (v->type == NVB__J_STR ? rd_wide(L, h, path, "sumsq", w, 3, 1) : rd_nonneg(L, h, path, "sumsq", &x, 1)))
        return L->rc;
    if (v->type != NVB__J_STR && !(x < 9007199254740992.0 && x == floor(x))) {
        hist->sumsq_rounded = 1;
        hist->sumsq_dbl = x;
        return 0;
    }
    if (v->type != NVB__J_STR)
        w[0] = (uint64_t)x;
    hist->sumsq = (unsigned __int128)w[1] << 64 | w[0];
    hist->sumsq_hi = w[2];
    return 0;
}

static int ld_hist(struct ld *L, const struct nvb__jv *h, const char *path, uint64_t min, uint64_t max,
                   struct nvb__hist **out)
{
    uint64_t sb = 0, mb = 0, count = 0, sum[2];
    if (rd_u64(L, h, path, "sub_bits", &sb, 1) || rd_u64(L, h, path, "max_bits", &mb, 1))
        return L->rc;
    if (sb != NVB__HIST_SUB_BITS || mb != NVB__HIST_MAX_BITS) {
        char msg[128];
        snprintf(msg, sizeof msg, "histogram geometry sub_bits=%" PRIu64 " max_bits=%" PRIu64
                 " is not this library's (%d, %d)", sb, mb, NVB__HIST_SUB_BITS, NVB__HIST_MAX_BITS);
        return bad(L, path, "", msg);
    }
    if (rd_u64(L, h, path, "count", &count, 1) || rd_wide(L, h, path, "sum", sum, 2, 0))
        return L->rc;
    struct nvb__hist *hist = malloc(sizeof *hist);
    if (!hist)
        return oom(L);
    nvb__hist_init(hist);
    hist->sum = (unsigned __int128)sum[1] << 64 | sum[0];
    if (ld_sumsq(L, h, path, hist)) {
        free(hist);
        return L->rc;
    }
    const struct nvb__jv *b = mem(L, h, path, "buckets", NVB__J_ARR, 1);
    if (!b) {
        free(hist);
        return L->rc;
    }
    char p[256];
    sub(p, sizeof p, path, "buckets");
    if (!count) {
        const char *why = b->n ? "count is 0, but buckets are not" : nvb__hist_check_sums(hist);
        free(hist);
        return why ? bad(L, path, "count", why) : 0;
    }
    uint64_t seen = 0, prev = 0;
    for (size_t i = 0; i < b->n; i++) {
        const struct nvb__jv *e = &b->kid[i];
        uint64_t idx, cnt;
        char pe[300];
        subi(pe, sizeof pe, p, i);
        if (e->type != NVB__J_ARR || e->n != 2 || nvb__json_u64(&e->kid[0], &idx) || nvb__json_u64(&e->kid[1], &cnt)) {
            free(hist);
            return bad(L, pe, "", "expected [index, count], two non-negative integers");
        }
        if (idx >= NVB__HIST_BUCKETS || (i && idx <= prev) || !cnt || cnt > UINT64_MAX - seen) {
            free(hist);
            return bad(L, pe, "", idx >= NVB__HIST_BUCKETS ? "bucket index out of range"
                                  : !cnt ? "a listed bucket must not be empty"
                                  : cnt > UINT64_MAX - seen ? "counts overflow"
                                  : "bucket indexes must ascend");
        }
        hist->buckets[idx] = cnt;
        seen += cnt;
        prev = idx;
    }
    unsigned first = 0, last = 0;
    for (unsigned i = 0; i < NVB__HIST_BUCKETS; i++)
        if (hist->buckets[i]) {
            if (!hist->buckets[first])
                first = i;
            last = i;
        }
    hist->count = count;
    hist->min = min;
    hist->max = max;
    const char *why = NULL;
    if (seen != count)
        why = "the buckets do not add up to count";
    else if (min > max)
        why = "its latency's min is above its max";
    else if (nvb__hist_index(min) != first || nvb__hist_index(max) != last)
        why = "its latency's min and max are not in the first and the last bucket";
    else
        why = nvb__hist_check_sums(hist);
    if (why) {
        free(hist);
        return bad(L, path, "", why);
    }
    *out = hist;
    return 0;
}

/* One latency of a direction ("lat", "slat", "clat"): its <name>_ns object
 * and <name>_hist histogram. lat is required; slat and clat may be null
 * (not measured) or missing (older results): *unknown gets `flag` then. */
static int ld_lat(struct ld *L, const struct nvb__jv *o, const char *p, const char *name, struct nvb__hist **out,
                  int hist_required, int *unknown, int flag)
{
    char kn[16], kh[16], q[256];
    snprintf(kn, sizeof kn, "%s_ns", name);
    snprintf(kh, sizeof kh, "%s_hist", name);
    const struct nvb__jv *lat = mem(L, o, p, kn, -1, !unknown);
    if (L->rc)
        return L->rc;
    if (!lat || (unknown && lat->type == NVB__J_NULL)) {
        *unknown |= flag; /* (missing only when optional, with unknown set) */
        return 0;
    }
    if (lat->type != NVB__J_OBJ)
        return bad(L, p, kn, unknown ? "expected an object or null" : "expected an object");
    struct nvb__latfig lf = {0}; /* what it stores: min and max (figures.c's NVB__FS_LAT) */
    sub(q, sizeof q, p, kn);
    if (ld_figs(L, lat, q, NVB__FS_LAT, &lf, 0))
        return L->rc;
    const struct nvb__jv *h = mem(L, o, p, kh, NVB__J_OBJ, hist_required);
    if (!h)
        return L->rc;
    sub(q, sizeof q, p, kh);
    return ld_hist(L, h, q, lf.min, lf.max, out);
}

/* A direction's "bs_counts" (bssplit): null or missing without a split;
 * the counts must add up to its ios and bytes. */
static int ld_bsc(struct ld *L, const struct nvb__jv *o, const char *p, struct nvb__dstat *d)
{
    const struct nvb__jv *b = mem(L, o, p, "bs_counts", -1, 0);
    if (!b || b->type == NVB__J_NULL)
        return L->rc;
    if (b->type != NVB__J_OBJ)
        return bad(L, p, "bs_counts", "expected null or an object");
    char q[256];
    sub(q, sizeof q, p, "bs_counts");
    unsigned __int128 ios = 0, bytes = 0;
    for (size_t i = 0; i < b->n; i++) {
        uint64_t size, n;
        if (nvb__parse_u64(b->kid[i].key, &size) || !size || size > (1ull << 30))
            return bad(L, q, b->kid[i].key, "not a size in bytes");
        if (rd_u64(L, b, q, b->kid[i].key, &n, 1))
            return L->rc;
        int rc = nvb__bsc_add(&d->bsc, size, n);
        if (rc)
            return rc == -ENOMEM ? oom(L) : bad(L, q, b->kid[i].key, "too many sizes");
        ios += n;
        bytes += (unsigned __int128)size * n;
    }
    if (ios != d->ios || bytes != d->bytes)
        return bad(L, p, "bs_counts", "the counts do not add up to its ios and bytes");
    return 0;
}

static int ld_dir(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, struct nvb__dstat *d,
                  int hist_required, int *unknown)
{
    char p[256];
    sub(p, sizeof p, path, key);
    const struct nvb__jv *o = mem(L, obj, path, key, NVB__J_OBJ, 1);
    if (!o || ld_figs(L, o, p, NVB__FS_DIR, d, 0) ||
        ld_lat(L, o, p, "lat", &d->hist, hist_required, NULL, 0) ||
        ld_lat(L, o, p, "slat", &d->slat, hist_required, unknown, NVB__NO_SLAT) || ld_bsc(L, o, p, d))
        return L->rc;
    return ld_lat(L, o, p, "clat", &d->clat, hist_required, unknown, NVB__NO_CLAT);
}

/* read, write, and trim when the result has trims (r->trim), into d[]. */
static int ld_dirs(struct ld *L, const struct nvb__jv *obj, const char *path, struct nvb_result *r,
                   struct nvb__dstat *d, int hist_required)
{
    for (int k = 0; k < nvb__result_ndir(r); k++)
        if (ld_dir(L, obj, path, dn[k], &d[k], hist_required, &r->lat_unknown))
            return L->rc;
    return 0;
}

/* The submit calls, and what a rate did ("rate": null without one). What a
 * slat covers and the figures added with it are absent from results written
 * before them (which then read back without them). */
static int ld_timing(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    static const char *const scopes[] = {"submit_call", "queue_only", "none", "mixed"};
    const struct nvb__jv *s = mem(L, root, "", "submissions", NVB__J_OBJ, 0);
    char sc[16], mode[16], proc[16];
    if (s && nvb__json_get(s, "slat_scope")) {
        if (rd_str(L, s, "submissions", "slat_scope", sc, sizeof sc, 1))
            return L->rc;
        r->sub.slat_scope = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(sc, scopes[k]))
                r->sub.slat_scope = k;
        if (r->sub.slat_scope < 0)
            return bad(L, "submissions", "slat_scope", "not \"submit_call\", \"queue_only\", \"none\" or \"mixed\"");
        r->sub.ext = 1;
    }
    if (L->rc || (s && ld_figs(L, s, "submissions", NVB__FS_SUBMIT, r, nvb__figs_when(r))))
        return L->rc;
    const struct nvb__jv *o = mem(L, root, "", "rate", -1, 0);
    if (L->rc || !o || o->type == NVB__J_NULL)
        return L->rc;
    if (o->type != NVB__J_OBJ)
        return bad(L, "", "rate", "expected an object or null");
    if (rd_str(L, o, "rate", "mode", mode, sizeof mode, 1) || rd_str(L, o, "rate", "process", proc, sizeof proc, 1))
        return L->rc;
    if ((strcmp(mode, "open") && strcmp(mode, "closed")) || (strcmp(proc, "uniform") && strcmp(proc, "poisson")))
        return bad(L, "rate", "", "mode is not \"open\" or \"closed\", or process not \"uniform\" or \"poisson\"");
    r->rate_set = 1;
    r->rate_mode = strcmp(mode, "open") ? NVB__RATE_CLOSED : NVB__RATE_OPEN;
    r->rate_process = strcmp(proc, "poisson") ? NVB__RATE_UNIFORM : NVB__RATE_POISSON;
    return ld_figs(L, o, "rate", NVB__FS_RATE, r, nvb__figs_when(r));
}

static int ld_engine_used(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    const struct nvb__jv *u = capped(L, root, "", "engine_used", NVB__J_OBJ, NVB__USED_MAX, 1);
    if (!u)
        return L->rc;
    for (size_t i = 0; i < u->n; i++) {
        const struct nvb__jv *e = &u->kid[i];
        if (e->type != NVB__J_STR)
            return bad(L, "engine_used", e->key, "expected a string");
        if (strlen(e->key) >= sizeof r->used.kv[0].key || strlen(e->s) >= sizeof r->used.kv[0].val)
            return bad(L, "engine_used", e->key, "key or value too long");
        strcpy(r->used.kv[r->used.n].key, e->key);
        strcpy(r->used.kv[r->used.n].val, e->s);
        r->used.n++;
    }
    return 0;
}

static int ld_cpu(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    const char *P = "cpu";
    const struct nvb__jv *c = mem(L, root, "", "cpu", NVB__J_OBJ, 1);
    uint64_t ncpus = 0;
    /* The whole machine's shares are null when they were not measured
     * (too few ticks: system_null_reason says why); the tick's figures
     * when unknown (0 then). */
    if (!c || ld_figs(L, c, P, NVB__FS_CPU, r, 0) || rd_u64(L, c, P, "ncpus", &ncpus, 1))
        return L->rc;
    double *const tick[] = {&r->cpu_tick_s, &r->cpu_ticks, &r->cpu_raised_pct};
    for (int i = 0; i < 3; i++)
        *tick[i] = isnan(*tick[i]) ? 0 : *tick[i];
    if (ncpus > (1u << 20))
        return bad(L, P, "ncpus", "out of range");
    r->ncpus_online = (int)ncpus;
    r->cpu_valid = r->system_pct + r->iowait_pct + r->steal_pct + r->idle_pct > 0; /* false for NaN */
    if (!r->cpu_valid) {
        r->system_pct = r->user_pct = r->sys_pct = r->irq_pct = r->iowait_pct = r->steal_pct = r->idle_pct = 0;
        const struct nvb__jv *why = mem(L, c, P, "system_null_reason", -1, 0);
        if (why && why->type != NVB__J_NULL &&
            rd_str(L, c, P, "system_null_reason", r->cpu_null_reason, sizeof r->cpu_null_reason, 1))
            return L->rc;
    }
    const struct nvb__jv *pc = mem(L, c, P, "per_cpu_pct", NVB__J_ARR, 1);
    if (!pc)
        return L->rc;
    if (pc->n && pc->n != ncpus)
        return bad(L, P, "per_cpu_pct", "has neither 0 nor ncpus entries");
    if (pc->n) {
        r->cpu_pct = calloc(pc->n, sizeof *r->cpu_pct);
        r->cpu_id = calloc(pc->n, sizeof *r->cpu_id);
        if (!r->cpu_pct || !r->cpu_id)
            return oom(L);
        for (size_t i = 0; i < pc->n; i++) {
            if (pc->kid[i].type != NVB__J_NUM || nvb__json_dbl(&pc->kid[i], &r->cpu_pct[i]))
                return bad(L, P, "per_cpu_pct", "expected numbers");
            r->cpu_id[i] = (int)i;
        }
        r->ncpu = (int)pc->n;
    }
    void *th = NULL;
    int rc = ld_rows(L, c, P, "threads", NVB__FS_THREAD, SIZE_MAX, sizeof *r->threads, NULL, &th, &r->nthreads, NULL, r);
    r->threads = th;
    return rc;
}

static int ld_errors(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    const struct nvb__jv *e = mem(L, root, "", "errors", NVB__J_OBJ, 1);
    if (!e || ld_figs(L, e, "errors", NVB__FS_ERRORS, r, nvb__figs_when(r)))
        return L->rc;
    const struct nvb__jv *be = mem(L, e, "errors", "by_errno", NVB__J_OBJ, 1);
    if (!be)
        return L->rc;
    for (size_t i = 0; i < be->n; i++) {
        int en = errno_by_name(be->kid[i].key);
        if (!en)
            return bad(L, "errors.by_errno", be->kid[i].key, "not an errno name");
        if (rd_u64(L, be, "errors.by_errno", be->kid[i].key, &r->by_errno[en], 1))
            return L->rc;
    }
    return 0;
}

static int ld_fault(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    const struct nvb__jv *f = mem(L, root, "", "fault", NVB__J_OBJ, 0);
    if (!f)
        return L->rc;
    if (ld_figs(L, f, "fault", NVB__FS_FAULT, r, nvb__figs_when(r)))
        return L->rc;
    const struct nvb__jv *be = mem(L, f, "fault", "by_errno", NVB__J_OBJ, 1);
    if (!be)
        return L->rc;
    if (be->n > 1)
        return bad(L, "fault", "by_errno", "more than one errno");
    if (be->n && !(r->fault_errno = errno_by_name(be->kid[0].key)))
        return bad(L, "fault.by_errno", be->kid[0].key, "not an errno name");
    for (int d = 0; d < nvb__result_ndir(r); d++) {
        char p[32];
        sub(p, sizeof p, "fault", dn[d]);
        const struct nvb__jv *o = mem(L, f, "fault", dn[d], NVB__J_OBJ, 1);
        if (!o || ld_figs(L, o, p, NVB__FS_FAULTDIR, (char *)r + d * sizeof(uint64_t), 0))
            return L->rc;
    }
    return 0;
}

/* A mismatch's field, by its name (absent in older results). */
static int ld_vfield(struct ld *L, const struct nvb__jv *o, const char *p, void *row, struct nvb_result *r)
{
    char field[32] = "";
    int f;
    (void)r;
    if (rd_str(L, o, p, "field", field, sizeof field, 0) || !field[0])
        return L->rc;
    for (f = 0; f < NVB__VF_COUNT; f++)
        if (!strcmp(nvb__vfield_name(f), field))
            break;
    if (f == NVB__VF_COUNT)
        return bad(L, p, "field", "not a verify field");
    ((struct nvb__vmismatch *)row)->field = (uint8_t)f;
    return 0;
}

static int ld_verify(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    const char *P = "verify";
    const struct nvb__jv *v = mem(L, root, "", "verify", NVB__J_OBJ, 1);
    if (!v || ld_figs(L, v, P, NVB__FS_VERIFY, r, 0))
        return L->rc;
    const struct nvb__jv *bf = mem(L, v, P, "by_field", NVB__J_OBJ, 0);
    for (size_t i = 0; bf && i < bf->n; i++) {
        int f;
        for (f = NVB__VF_OK + 1; f < NVB__VF_COUNT; f++)
            if (!strcmp(nvb__vfield_name(f), bf->kid[i].key))
                break;
        if (f == NVB__VF_COUNT)
            return bad(L, "verify.by_field", bf->kid[i].key, "not a verify field");
        if (rd_u64(L, bf, "verify.by_field", bf->kid[i].key, &r->verify_by_field[f], 1))
            return L->rc;
    }
    return ld_rows(L, v, P, "first_mismatches", NVB__FS_VMISMATCH, NVB__VERIFY_FIRST, sizeof r->first_mismatch[0],
                   r->first_mismatch, NULL, &r->nfirst_mismatch, ld_vfield, r);
}

/* Member key of o that is null or an object: the object, its path in p;
 * NULL when null or missing (L->rc says whether that was an error). */
static const struct nvb__jv *obj_or_null(struct ld *L, const struct nvb__jv *o, const char *path, const char *key,
                                         int required, char *p, size_t plen)
{
    const struct nvb__jv *v = mem(L, o, path, key, -1, required);
    if (!v || v->type == NVB__J_NULL)
        return NULL;
    sub(p, plen, path, key);
    if (v->type != NVB__J_OBJ) {
        bad(L, path, key, "expected null or an object");
        return NULL;
    }
    return v;
}

static int ld_device(struct ld *L, const struct nvb__jv *o, const char *path, struct nvb__tdev *f)
{
    char p[256];
    const struct nvb__jv *dv = obj_or_null(L, o, path, "device", 1, p, sizeof p);
    if (!dv)
        return L->rc;
    if (ld_figs(L, dv, p, NVB__FS_DEVICE, f, 0) || rd_dbl_or_null(L, dv, p, "link_ceiling_gbs", &f->link_gbs, 0, 1))
        return L->rc;
    f->valid = 1;
    return 0;
}

/* A share in percent, or null (-> *known 0); optional (results from
 * before the field have none). */
static int rd_pct_or_null(struct ld *L, const struct nvb__jv *o, const char *path, const char *key, double *out,
                          int *known)
{
    const struct nvb__jv *v = mem(L, o, path, key, -1, 0);
    *known = v && v->type != NVB__J_NULL;
    if (!*known)
        return L->rc;
    if (rd_dbl(L, o, path, key, out, 1))
        return L->rc;
    if (*out < 0 || *out > 100)
        return bad(L, path, key, "not a percentage (0 to 100)");
    return 0;
}

/* per_target[].page_cache and .allocated_pct (examine.c). */
static int ld_content(struct ld *L, const struct nvb__jv *o, const char *path, struct nvb__tcontent *k)
{
    k->present = nvb__json_get(o, "page_cache") || nvb__json_get(o, "allocated_pct");
    if (rd_pct_or_null(L, o, path, "allocated_pct", &k->allocated_pct, &k->allocated_known))
        return L->rc;
    const struct nvb__jv *wc = nvb__json_get(o, "write_cache");
    k->wc_present = wc != NULL;
    if (wc && wc->type != NVB__J_NULL) {
        char *const v[] = {k->wc_fs, k->wc_fs_mode, k->wc_disk, k->wc_disk_mode};
        const size_t n[] = {sizeof k->wc_fs, sizeof k->wc_fs_mode, sizeof k->wc_disk, sizeof k->wc_disk_mode};
        const char *const key[] = {"fs", "fs_mode", "disk", "disk_mode"};
        if (wc->type != NVB__J_OBJ)
            return bad(L, path, "write_cache", "expected an object or null");
        for (int i = 0; i < 4; i++) {
            const struct nvb__jv *x = mem(L, wc, path, key[i], -1, 1);
            if (!x)
                return L->rc;
            if (x->type != NVB__J_NULL && rd_str(L, wc, path, key[i], v[i], n[i], 1))
                return L->rc;
        }
        k->wc_known = 1;
    }
    char p[256];
    const struct nvb__jv *pc = obj_or_null(L, o, path, "page_cache", 0, p, sizeof p);
    if (!pc)
        return L->rc;
    k->examined = 1;
    if (ld_figs(L, pc, p, NVB__FS_PCACHE, k, 0))
        return L->rc;
    k->cached_known = !isnan(k->cached_pct);
    if (k->cached_known && (k->cached_pct < 0 || k->cached_pct > 100))
        return bad(L, p, "cached_pct", "not a percentage (0 to 100)");
    if (k->cached_known && nvb__json_get(pc, "examined_bytes")->type == NVB__J_NULL) /* measured over something */
        return bad(L, p, "examined_bytes", "expected a number");
    k->cached_pct = k->cached_known ? k->cached_pct : 0;
    return 0;
}

/* per_target[].util_* (diskutil.c): absent in results from before them. */
static int ld_util(struct ld *L, const struct nvb__jv *o, const char *path, struct nvb__tutil *u)
{
    memset(u, 0, sizeof *u);
    if (!nvb__json_get(o, "util_pct") && !nvb__json_get(o, "util_why") && !nvb__json_get(o, "util_dev"))
        return 0;
    if (rd_str(L, o, path, "util_dev", u->dev, sizeof u->dev, 1))
        return L->rc;
    int known = 0;
    if (rd_pct_or_null(L, o, path, "util_pct", &u->pct, &known))
        return L->rc;
    u->state = known ? 1 : 2;
    if (!known) {
        const struct nvb__jv *w = mem(L, o, path, "util_why", -1, 1);
        if (!w)
            return L->rc;
        if (w->type == NVB__J_NULL)
            snprintf(u->why, sizeof u->why, "not measured");
        else if (rd_str(L, o, path, "util_why", u->why, sizeof u->why, 1))
            return L->rc;
    }
    return 0;
}

/* An {available, reason} object at key of o (energy, device_log, its
 * power): 0 absent or null, 1 not available (its reason, or dflt, into
 * reason), 2 available (*x the object); the error when it is neither. */
static int ld_avail(struct ld *L, const struct nvb__jv *o, const char *p, const char *key, const struct nvb__jv **x,
                    char *reason, size_t rlen, const char *dflt)
{
    const char *rs;
    char why[200];
    const int st = nvb__json_available(o, key, x, &rs, why, sizeof why);
    if (st < 0)
        return bad(L, p, key, "expected an object with available true or false");
    if (st == 1)
        snprintf(reason, rlen, "%s", rs ? rs : dflt);
    return st;
}

/* device_log.before or .after: the log's fields (NVB__FS_HEALTH), all required. */
static int ld_health(struct ld *L, const struct nvb__jv *o, const char *p, const char *key, uint64_t *v)
{
    char hp[96];
    sub(hp, sizeof hp, p, key);
    const struct nvb__jv *h = mem(L, o, p, key, NVB__J_OBJ, 1);
    return h ? ld_figs(L, h, hp, NVB__FS_HEALTH, v, 0) : L->rc;
}

/* device_log.media (NVB__FS_DEVMEDIA; absent in results from before it: ms
 * 0): available false, why not (ms 2); true, its rows and source (ms 1). */
static int ld_media(struct ld *L, const struct nvb__jv *x, const char *dp, struct nvb__devlog *d)
{
    const struct nvb__jv *m;
    char mp[112], src[32];
    sub(mp, sizeof mp, dp, "media");
    const int st = ld_avail(L, x, dp, "media", &m, d->ms_reason, sizeof d->ms_reason, "not read");
    if (st == 1)
        d->ms = 2;
    if (st != 2 || ld_figs(L, m, mp, NVB__FS_DEVMEDIA, d, NVB__FF_AV) || rd_str(L, m, mp, "source", src, sizeof src, 1))
        return L->rc;
    d->ms_src = nvb__media_source(src);
    if (!d->ms_src)
        return bad(L, mp, "source", "not endurance_group_log or ocp_smart_extended_log");
    d->ms = 1;
    return 0;
}

/* device_log.power's measured power (devlog_power.c): measured_w, or null
 * with measured_reason (results from before it have the same, their
 * reason a constant); kept to 199 bytes. */
static int ld_pm(struct ld *L, const struct nvb__jv *pw, const char *pp, struct nvb__devlog *d)
{
    if (rd_dbl_or_null(L, pw, pp, "measured_w", &d->pm_w, 0, 1))
        return L->rc;
    const struct nvb__jv *r = mem(L, pw, pp, "measured_reason", -1, 1);
    if (!r)
        return L->rc;
    if (d->pm_w < 0)
        return bad(L, pp, "measured_w", "not a power (watts, at least 0)");
    if (d->pm_w > 0 && (r->type != NVB__J_NULL || !d->pm_n))
        return bad(L, pp, r->type != NVB__J_NULL ? "measured_reason" : "measured_intervals",
                   r->type != NVB__J_NULL ? "not null where measured_w is measured" : "missing where measured_w is");
    if (d->pm_w == 0 && (r->type != NVB__J_STR || d->pm_n))
        return bad(L, pp, d->pm_n ? "measured_intervals" : "measured_reason",
                   d->pm_n ? "present where measured_w is null" : "not a string where measured_w is null");
    if (d->pm_w == 0)
        snprintf(d->pm_reason, sizeof d->pm_reason, "%s", r->s);
    return 0;
}

/* device_log (figures.c's NVB__FS_DEVLOG): absent or null, not asked (state
 * 0); available false, why not (state 2); true, its rows, before and after,
 * and power (NVB__FS_DEVPOWER; absent in results from before it: pw 0).
 * delta and the derived figures are not read: the writer derives them
 * again. Strict as every object's reader: what the schema refuses is
 * refused, naming the key; a reason is kept to 159 bytes. */
static int ld_devlog(struct ld *L, const struct nvb__jv *o, const char *p, struct nvb__devlog *d)
{
    const struct nvb__jv *x, *pw;
    char dp[96], pp[112];
    memset(d, 0, sizeof *d);
    sub(dp, sizeof dp, p, "device_log");
    const int st = ld_avail(L, o, p, "device_log", &x, d->reason, sizeof d->reason, "not read");
    if (st == 1)
        d->state = 2;
    if (st != 2 || ld_figs(L, x, dp, NVB__FS_DEVLOG, d, NVB__FF_AV) || ld_health(L, x, dp, "before", d->before) ||
        ld_health(L, x, dp, "after", d->after))
        return L->rc;
    sub(pp, sizeof pp, dp, "power");
    const int ps = ld_avail(L, x, dp, "power", &pw, d->pw_reason, sizeof d->pw_reason, "not read");
    if (ps == 1)
        d->pw = 2;
    if (ps == 2 && !ld_figs(L, pw, pp, NVB__FS_DEVPOWER, d, NVB__FF_AV) && !ld_pm(L, pw, pp, d)) {
        if (d->ps_before > 31 || d->ps_after > 31)
            return bad(L, pp, d->ps_before > 31 ? "state_before" : "state_after", "not a power state (0 to 31)");
        d->pw = 1;
    }
    if (!L->rc && !ld_media(L, x, dp, d))
        d->state = 1;
    return L->rc;
}

/* energy (figures.c's NVB__FS_ENERGY): absent or null, not asked (state 0);
 * available false, why not (state 2); true, its rows (state 1). */
static int ld_energy(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    struct nvb__energy *e = &r->energy;
    const struct nvb__jv *o;
    memset(e, 0, sizeof *e);
    const int st = ld_avail(L, root, "", "energy", &o, e->reason, sizeof e->reason, "not measured");
    if (st == 1) {
        e->state = 2;
    } else if (st == 2 && !ld_figs(L, o, "energy", NVB__FS_ENERGY, e, NVB__FF_AV) &&
               !rd_nonneg(L, o, "energy", "joules", &e->joules, 1)) { /* a part: written as energy.c did */
        e->state = 1;
    }
    return L->rc;
}

/* A target's parts: what was opened, its host (NULL when the result's), its
 * directions, device, content and utilisation. */
static int ld_target(struct ld *L, const struct nvb__jv *o, const char *p, void *row, struct nvb_result *r)
{
    struct nvb__tstat *t = row;
    if (rd_strdup(L, o, p, "file", &t->file, 1) || rd_strdup(L, o, p, "host", &t->host, 0) ||
        ld_dirs(L, o, p, r, t->d, 0) || ld_device(L, o, p, &t->devf) || ld_content(L, o, p, &t->content) ||
        ld_util(L, o, p, &t->util) || ld_devlog(L, o, p, &t->dlog))
        return L->rc;
    if (t->host && strlen(t->host) >= sizeof r->host)
        return bad(L, p, "host", "longer than 255 bytes");
    if (t->host && !strcmp(t->host, r->host)) {
        free(t->host);
        t->host = NULL;
    }
    return 0;
}

static int ld_targets(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    void *tg = NULL;
    int rc = ld_rows(L, root, "", "per_target", NVB__FS_TARGET, UINT32_MAX / 2, sizeof *r->tg, NULL, &tg,
                     &r->ntargets, ld_target, r);
    r->tg = tg;
    return rc;
}

/* An object older results lack: NULL when missing or null. */
static const struct nvb__jv *opt_obj(struct ld *L, const struct nvb__jv *root, const char *key)
{
    const struct nvb__jv *v = mem(L, root, "", key, -1, 0);
    if (v && v->type != NVB__J_NULL && v->type != NVB__J_OBJ)
        bad(L, "", key, "expected null or an object");
    return v && v->type == NVB__J_OBJ ? v : NULL;
}

/* "precondition" and "steady_state" (core/precond.c, core/steady.c). */
static int ld_phases(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    const char *P = "precondition", *S = "steady_state";
    const struct nvb__jv *o = opt_obj(L, root, P);
    if (o && ld_figs(L, o, P, NVB__FS_PRECOND, &r->pre, 0))
        return L->rc;
    if (o && !r->pre.passes)
        return bad(L, P, "passes", "0 (a run without a precondition has null)");
    struct nvb__ss_res *ss = &r->ss;
    char metric[8] = "";
    if (!(o = opt_obj(L, root, S)))
        return L->rc;
    if (rd_str(L, o, S, "metric", metric, sizeof metric, 1) || ld_figs(L, o, S, NVB__FS_SS, ss, 0))
        return L->rc;
    for (int m = NVB__SS_IOPS; m <= NVB__SS_LAT; m++)
        if (!strcmp(metric, nvb__ss_metric_name(m)))
            ss->metric = m;
    if (!ss->metric || !ss->rounds || (ss->reached && isnan(ss->at_s)))
        return bad(L, S, !ss->metric ? "metric" : !ss->rounds ? "rounds" : "at_s",
                   !ss->metric ? "expected iops, bw or lat" : !ss->rounds ? "0" : "null, but reached is true");
    ss->judged = 1; /* figures that are null stay NAN, and are written back as null */
    ss->fig.reached = ss->reached;
    return 0;
}

static int ld_notes(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    const struct nvb__jv *w;
    r->warn = rows(L, root, "", "warnings", UINT32_MAX / 4, sizeof *r->warn, 1, &w);
    if (L->rc)
        return L->rc;
    r->warn_cap = (unsigned)w->n;
    for (size_t i = 0; i < w->n; i++) {
        if (w->kid[i].type != NVB__J_STR)
            return bad(L, "", "warnings", "expected strings");
        if (!(r->warn[i] = nvb__strdup(w->kid[i].s)))
            return oom(L);
        r->nwarn++;
    }
    if (ld_figs(L, root, "", NVB__FS_END, r, 0))
        return L->rc;
    const struct nvb__jv *e = nullable(L, root, "", "error");
    if (!e)
        return L->rc;
    if (e->type != NVB__J_OBJ)
        return bad(L, "", "error", "expected null or an object");
    uint64_t en = 0;
    if (rd_u64(L, e, "error", "errno", &en, 1) || rd_str(L, e, "error", "message", r->errmsg, sizeof r->errmsg, 1))
        return L->rc;
    if (en < 1 || en > 4095)
        return bad(L, "error", "errno", "out of range (1..4095)");
    r->err = -(int)en;
    return 0;
}

static int ld_result(struct ld *L, const struct nvb__jv *root, struct nvb_result *r, int group);

/* "groups" (nvb_run_groups): each a result of its own with its name and no
 * "cpu"; a group holds no groups. */
static int ld_groups(struct ld *L, const struct nvb__jv *root, struct nvb_result *r)
{
    const struct nvb__jv *gs;
    r->groups = rows(L, root, "", "groups", 4096, sizeof *r->groups, 0, &gs);
    if (L->rc || !gs)
        return L->rc;
    for (size_t i = 0; i < gs->n; i++) {
        char p[64];
        const struct nvb__jv *o = entry(L, gs, "groups", i, p, sizeof p);
        if (!o)
            return L->rc;
        if (!(r->groups[i] = nvb__result_new()))
            return oom(L);
        r->ngroups++;
        if (rd_str(L, o, p, "name", r->groups[i]->group, sizeof r->groups[i]->group, 1))
            return L->rc;
        if (ld_result(L, o, r->groups[i], 1)) {
            in_group(L, p);
            return L->rc;
        }
        if (nvb__json_get(o, "groups") || nvb__json_get(o, "cpu"))
            return bad(L, p, nvb__json_get(o, "cpu") ? "cpu" : "groups", "not expected in a group");
    }
    return 0;
}

static int ld_result(struct ld *L, const struct nvb__jv *root, struct nvb_result *r, int group)
{
    char schema[64];
    if (!root || root->type != NVB__J_OBJ)
        return bad(L, "", "", "the result is not a JSON object");
    if (rd_str(L, root, "", "schema", schema, sizeof schema, 1))
        return L->rc;
    if (strcmp(schema, NVB_SCHEMA_VERSION))
        return bad(L, "", "schema", "not " NVB_SCHEMA_VERSION);
    if (ld_figs(L, root, "", NVB__FS_HEAD, r, 0) || ld_engine_used(L, root, r) ||
        ld_figs(L, root, "", NVB__FS_RUN, r, 0) || rd_u64(L, root, "", "end_unix_ns", &r->end_wall_ns, 0) ||
        rd_dbl(L, root, "", "clock_cost_ns", &r->clock_cost_ns, 1))
        return L->rc;
    const struct nvb__jv *cs = mem(L, root, "", "clock_source", -1, 0); /* null or absent: unknown */
    if (cs && cs->type != NVB__J_NULL && rd_str(L, root, "", "clock_source", r->clock_source, sizeof r->clock_source, 1))
        return L->rc;
    if (r->duration_s > 1e9 || r->ramp_s > 1e9)
        return bad(L, "", "duration_s", "duration or ramp out of range");
    const struct nvb__jv *wl = mem(L, root, "", "workload", NVB__J_OBJ, 1);
    if (!wl)
        return L->rc;
    struct nvb__buf b = {0};
    nvb__json_write(wl, &b);
    if (nvb__buf_take(&b, &r->wl_json))
        return oom(L);
    r->trim = nvb__json_get(root, "trim") != NULL; /* only results of workloads that trim have it */
    if (ld_dirs(L, root, "", r, r->tot, 1) || ld_timing(L, root, r) ||
        (!group && (ld_cpu(L, root, r) || ld_energy(L, root, r))) || ld_errors(L, root, r) || ld_fault(L, root, r) || ld_verify(L, root, r) ||
        ld_targets(L, root, r) || nvb__ld_hosts(L, root, r) || nvb__ld_series(L, root, r) || ld_phases(L, root, r) ||
        ld_notes(L, root, r) || (!group && ld_groups(L, root, r)))
        return L->rc;
    if (!group && (L->rc = nvb__explain_load(root, r, L->why, L->why_len)) < 0)
        return L->rc;
    return 0;
}

NVB_API int nvb_result_parse(const char *json, size_t len, struct nvb_result **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = 0;
    if (out)
        *out = NULL;
    if (!json || !out) {
        if (why && why_len)
            snprintf(why, why_len, "no JSON text or no place for the result");
        return -EINVAL;
    }
    struct nvb__jv *root = NULL;
    int rc = nvb__json_parse(json, len, &root, why, why_len);
    if (rc < 0)
        return rc;
    struct nvb_result *r = nvb__result_new();
    if (!r) {
        nvb__json_free(root);
        return -ENOMEM;
    }
    struct ld L = {.why = why, .why_len = why_len};
    rc = ld_result(&L, root, r, 0);
    nvb__json_free(root);
    if (rc < 0) {
        nvb_result_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

NVB_API int nvb_result_from_json(const char *json, struct nvb_result **out)
{
    if (out)
        *out = NULL;
    if (!json || !out)
        return -EINVAL;
    return nvb_result_parse(json, strlen(json), out, NULL, 0);
}
