/* Interval histograms: sparse bucket lists (ihist.h). */
#include "core/ihist.h"
#include "core/hist.h"
#include "core/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct nvb__ihist *nvb__ihist_alloc(unsigned n)
{
    struct nvb__ihist *h = malloc(sizeof *h + (size_t)n * sizeof h->b[0]);
    if (h) {
        h->count = 0;
        h->n = 0;
    }
    return h;
}

struct nvb__ihist *nvb__ihist_take(uint64_t *acc, unsigned lo, unsigned hi, int *oom)
{
    unsigned n = 0;
    for (unsigned i = lo; i <= hi && i < NVB__HIST_BUCKETS; i++)
        n += acc[i] != 0;
    if (!n)
        return NULL;
    struct nvb__ihist *h = nvb__ihist_alloc(n);
    if (!h)
        *oom = 1;
    for (unsigned i = lo; i <= hi && i < NVB__HIST_BUCKETS; i++) {
        if (acc[i] && h) {
            h->b[h->n].i = i;
            h->b[h->n++].c = acc[i];
            h->count += acc[i];
        }
        acc[i] = 0;
    }
    return h;
}

int nvb__ihist_add(struct nvb__ihist **a, const struct nvb__ihist *b)
{
    if (!b || !b->n)
        return 0;
    const struct nvb__ihist *x = *a;
    if (x && x->count > UINT64_MAX - b->count)
        return -EOVERFLOW;
    struct nvb__ihist *o = nvb__ihist_alloc((x ? x->n : 0) + b->n);
    if (!o)
        return -ENOMEM;
    unsigned p = 0, q = 0;
    while ((x && p < x->n) || q < b->n) {
        struct nvb__ibkt e;
        if (x && p < x->n && (q >= b->n || x->b[p].i < b->b[q].i)) {
            e = x->b[p++];
        } else if (x && p < x->n && x->b[p].i == b->b[q].i) {
            e = x->b[p++];
            e.c += b->b[q++].c; /* no wrap: bounded by the counts, checked above */
        } else {
            e = b->b[q++];
        }
        o->b[o->n++] = e;
    }
    o->count = (x ? x->count : 0) + b->count;
    free(*a);
    *a = o;
    return 0;
}

void nvb__ihists_free(struct nvb__ihist *lh[NVB__NDIR])
{
    for (int d = 0; d < NVB__NDIR; d++) {
        free(lh[d]);
        lh[d] = NULL;
    }
}

struct nvb__ihist *nvb__ihist_dup(const struct nvb__ihist *h)
{
    if (!h)
        return NULL;
    struct nvb__ihist *o = nvb__ihist_alloc(h->n);
    if (o) {
        memcpy(o->b, h->b, (size_t)h->n * sizeof h->b[0]);
        o->n = h->n;
        o->count = h->count;
    }
    return o;
}

double nvb__ihist_pct(const struct nvb__ihist *h, double pct)
{
    if (!h || !h->count)
        return NAN;
    const uint64_t rank = nvb__hist_rank(h->count, pct);
    uint64_t seen = 0;
    unsigned k = 0;
    for (; k + 1 < h->n; k++) {
        seen += h->b[k].c;
        if (seen >= rank)
            break;
    }
    return (double)nvb__hist_bucket_low(h->b[k].i) + (double)(nvb__hist_bucket_width(h->b[k].i) - 1) / 2.0;
}
