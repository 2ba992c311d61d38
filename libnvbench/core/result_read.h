/*
 * The loader's reading primitives (result_load.c): each reads one member of
 * a JSON object for its type and range, or says which key at which path is
 * wrong (bad), and the first problem ends the load. Kept apart from the
 * readers of the result's sections so that each file has one job; inline,
 * as only the loader includes it.
 */
#ifndef NVB_CORE_RESULT_READ_H
#define NVB_CORE_RESULT_READ_H

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/figures.h"

struct ld {
    int   rc;
    char *why;
    size_t why_len;
};

static inline int bad(struct ld *L, const char *path, const char *key, const char *what)
{
    if (!L->rc) {
        L->rc = -EINVAL;
        if (L->why && L->why_len)
            snprintf(L->why, L->why_len, "result JSON: '%s%s%s': %s", path, path[0] && key[0] ? "." : "", key, what);
    }
    return L->rc;
}

/* A group's result is read as a result of its own, so its messages name
 * keys from the group's object ('duration_s'): put the group in front
 * ('groups.0.duration_s'), or a reader looks for the fault in the total. */
static inline void in_group(struct ld *L, const char *group)
{
    static const char head[] = "result JSON: '";
    const size_t n = sizeof head - 1;
    if (!L->why || strncmp(L->why, head, n))
        return;
    char tail[512];
    snprintf(tail, sizeof tail, "%s", L->why + n);
    snprintf(L->why, L->why_len, "%s%s.%s", head, group, tail);
}

static inline int oom(struct ld *L)
{
    if (!L->rc) {
        L->rc = -ENOMEM;
        if (L->why && L->why_len)
            snprintf(L->why, L->why_len, "out of memory reading a result");
    }
    return L->rc;
}

/* Member key of obj with the given type (-1: any); NULL and an error when
 * it is missing or of another type, NULL alone when optional and missing. */
static inline const struct nvb__jv *mem(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key,
                                 int type, int required)
{
    const struct nvb__jv *v = nvb__json_get(obj, key);
    if (!v) {
        if (required)
            bad(L, path, key, "missing");
        return NULL;
    }
    static const char *const tn[] = {"null", "a boolean", "a boolean", "a number", "a string", "an array",
                                     "an object"};
    if (type >= 0 && v->type != type && !(type == NVB__J_TRUE && v->type == NVB__J_FALSE)) {
        char msg[64];
        snprintf(msg, sizeof msg, "expected %s", tn[type]);
        bad(L, path, key, msg);
        return NULL;
    }
    return v;
}

static inline int rd_u64(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, uint64_t *out,
                  int required)
{
    const struct nvb__jv *v = mem(L, obj, path, key, NVB__J_NUM, required);
    if (!v)
        return L->rc;
    if (nvb__json_u64(v, out))
        return bad(L, path, key, "expected a non-negative integer that fits in 64 bits");
    return 0;
}

static inline int rd_u32(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, uint32_t *out,
                  int required)
{
    uint64_t u = *out;
    if (rd_u64(L, obj, path, key, &u, required))
        return L->rc;
    if (u > UINT32_MAX)
        return bad(L, path, key, "out of range");
    *out = (uint32_t)u;
    return 0;
}

static inline int rd_dbl(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, double *out,
                  int required)
{
    const struct nvb__jv *v = mem(L, obj, path, key, NVB__J_NUM, required);
    if (!v)
        return L->rc;
    int rc = nvb__json_dbl(v, out);
    if (rc == -ENOMEM)
        return oom(L);
    if (rc)
        return bad(L, path, key, "not a finite number");
    return 0;
}

/* A duration or CPU time: finite and not negative. */
static inline int rd_nonneg(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, double *out,
                     int required)
{
    if (rd_dbl(L, obj, path, key, out, required))
        return L->rc;
    if (*out < 0)
        return bad(L, path, key, "negative");
    return 0;
}

/* Member key of obj, required but nullable: NULL when it is null, or
 * missing (then with an error). */
static inline const struct nvb__jv *nullable(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key)
{
    const struct nvb__jv *v = mem(L, obj, path, key, -1, 1);
    return v && v->type != NVB__J_NULL ? v : NULL;
}

/* Either null (-> *out = nullval) or a number. */
static inline int rd_dbl_or_null(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, double *out,
                          double nullval, int required)
{
    const struct nvb__jv *v = mem(L, obj, path, key, -1, required);
    if (!v)
        return L->rc;
    if (v->type == NVB__J_NULL) {
        *out = nullval;
        return 0;
    }
    return rd_dbl(L, obj, path, key, out, 1);
}

static inline int rd_bool(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, int *out,
                   int required)
{
    const struct nvb__jv *v = mem(L, obj, path, key, NVB__J_TRUE, required);
    if (v)
        *out = v->type == NVB__J_TRUE;
    return L->rc;
}

/* Into a fixed buffer: a longer string is refused, not truncated. */
static inline int rd_str(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, char *buf,
                  size_t len, int required)
{
    const struct nvb__jv *v = mem(L, obj, path, key, NVB__J_STR, required);
    if (!v)
        return L->rc;
    size_t n = strlen(v->s);
    if (n >= len) {
        char msg[64];
        snprintf(msg, sizeof msg, "longer than %zu bytes", len - 1);
        return bad(L, path, key, msg);
    }
    memcpy(buf, v->s, n + 1);
    return 0;
}

static inline int rd_strdup(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, char **out,
                     int required)
{
    const struct nvb__jv *v = mem(L, obj, path, key, NVB__J_STR, required);
    if (!v)
        return L->rc;
    if (!(*out = nvb__strdup(v->s)))
        return oom(L);
    return 0;
}

/* The directions, as results name them (trim only in results that have it). */
#define dn nvb__dir_names

static inline void sub(char *dst, size_t len, const char *path, const char *key)
{
    snprintf(dst, len, "%s%s%s", path, path[0] ? "." : "", key);
}

static inline void subi(char *dst, size_t len, const char *path, size_t i)
{
    snprintf(dst, len, "%s.%zu", path, i);
}

/* Member key of obj of the given type with at most max entries; NULL as
 * mem() says, or with an error when it has more. */
static inline const struct nvb__jv *capped(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key,
                                    int type, size_t max, int required)
{
    const struct nvb__jv *v = mem(L, obj, path, key, type, required);
    if (v && v->n > max) {
        bad(L, path, key, "too many entries");
        return NULL;
    }
    return v;
}

/* Array member key of obj with at most max entries into *a, and a zeroed
 * array for its rows, of size bytes each, returned: NULL for none (*a NULL
 * when optional and absent) or with an error in L->rc. */
static inline void *rows(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, size_t max,
                  size_t size, int required, const struct nvb__jv **a)
{
    *a = capped(L, obj, path, key, NVB__J_ARR, max, required);
    void *p = *a && (*a)->n ? calloc((*a)->n, size) : NULL;
    if (*a && (*a)->n && !p)
        oom(L);
    return p;
}

/* Entry i of the array a at apath, which must be an object; its path into
 * p. NULL and an error otherwise. */
static inline const struct nvb__jv *entry(struct ld *L, const struct nvb__jv *a, const char *apath, size_t i, char *p,
                                   size_t plen)
{
    subi(p, plen, apath, i);
    if (a->kid[i].type != NVB__J_OBJ) {
        bad(L, p, "", "expected an object");
        return NULL;
    }
    return &a->kid[i];
}

/* errno by the name nvb__errno_name() gives it ("EIO", or "E<n>"). */
static inline int errno_by_name(const char *name)
{
    for (int e = 1; e < NVB__ERRNO_SLOTS; e++) {
        char nb[16];
        if (!strcmp(nvb__errno_name(e, nb, sizeof nb), name))
            return e;
    }
    return 0;
}

/* ---------------------------------------------------------------- parts */

/* An exact integer of n words at key: written as a number, or (strings
 * allowed) as a string of digits. */
static inline int rd_wide(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, uint64_t *w,
                   unsigned n, int strings)
{
    const struct nvb__jv *v = mem(L, obj, path, key, -1, 1);
    if (!v)
        return L->rc;
    if (v->type != NVB__J_NUM && !(strings && v->type == NVB__J_STR))
        return bad(L, path, key, strings ? "expected a number or a string of digits" : "expected a number");
    int rc = nvb__wide_from_dec(v->s, w, n);
    if (rc == -ERANGE)
        return bad(L, path, key, n == 2 ? "does not fit in 128 bits" : "does not fit in 192 bits");
    if (rc)
        return bad(L, path, key, "expected a non-negative integer");
    return 0;
}

/* An object's rows of section sec (core/figures.c) into its struct at
 * base: what the result stores, each for its type and range; derived
 * figures are recomputed on output, parts (NVB__FT_PART) are the caller's.
 * when: the conditions that hold (nvb__figs_when); a row of another is not
 * read (it is absent, or null). */
static inline int ld_figs(struct ld *L, const struct nvb__jv *o, const char *p, int sec, void *base, unsigned when)
{
    for (size_t i = 0; i < nvb__nfigs && !L->rc; i++) {
        const struct nvb__fig *f = &nvb__figs[i];
        void *v = (char *)base + f->off;
        const int req = !(f->flags & NVB__FF_OLD);
        uint64_t u = 0;
        if (f->sec != sec || (f->flags & (NVB__FF_TRIM | NVB__FF_EXT | NVB__FF_OPEN | NVB__FF_AV) & ~when))
            continue;
        if (f->flags & NVB__FF_ZERO) { /* null: unknown, 0 */
            const struct nvb__jv *x = mem(L, o, p, f->key, -1, req);
            if (!x || x->type == NVB__J_NULL)
                continue;
        }
        switch (f->type) {
        case NVB__FT_U64: {
            const struct nvb__jv *x = f->flags & NVB__FF_IF ? mem(L, o, p, f->key, -1, req) : NULL;
            if (!(f->flags & NVB__FF_IF) || (x && x->type != NVB__J_NULL)) /* null: unknown, 0 */
                rd_u64(L, o, p, f->key, v, req);
            break;
        }
        case NVB__FT_U32: rd_u32(L, o, p, f->key, v, req); break;
        case NVB__FT_LONG:
            if (!rd_u64(L, o, p, f->key, &u, req) && u > (uint64_t)LONG_MAX / 2)
                bad(L, p, f->key, "out of range");
            *(long *)v = (long)u;
            break;
        case NVB__FT_DBL:
            if (f->flags & (NVB__FF_CPU | NVB__FF_TICK | NVB__FF_NEG | NVB__FF_IF)) /* null: unknown */
                rd_dbl_or_null(L, o, p, f->key, v, f->flags & NVB__FF_NEG ? -1 : NAN, req);
            else
                rd_nonneg(L, o, p, f->key, v, req);
            break;
        case NVB__FT_BOOL: rd_bool(L, o, p, f->key, v, req); break;
        case NVB__FT_STR: rd_str(L, o, p, f->key, v, f->size, req); break;
        case NVB__FT_STRP: rd_strdup(L, o, p, f->key, v, req); break;
        default: break;
        }
    }
    return L->rc;
}

/* What a reader of rows (ld_rows) reads of an entry beyond the table's rows. */
typedef int ld_part_fn(struct ld *L, const struct nvb__jv *o, const char *p, void *row, struct nvb_result *r);

/* Array key of obj (required), entries objects of section sec, at most max:
 * into rows `size` bytes apart, fixed (room for max) or, fixed NULL,
 * allocated into *out; each entry's table rows, then part() for the rest;
 * *n counts the entries begun (a result frees what they hold). */
static inline int ld_rows(struct ld *L, const struct nvb__jv *obj, const char *path, const char *key, int sec,
                          size_t max, size_t size, void *fixed, void **out, unsigned *n, ld_part_fn *part,
                          struct nvb_result *r)
{
    const struct nvb__jv *a;
    char ap[64];
    sub(ap, sizeof ap, path, key);
    char *base = fixed;
    if (fixed)
        a = capped(L, obj, path, key, NVB__J_ARR, max, 1);
    else
        base = *out = rows(L, obj, path, key, max, size, 1, &a);
    for (size_t i = 0; a && !L->rc && i < a->n; i++) {
        char p[80];
        const struct nvb__jv *o = entry(L, a, ap, i, p, sizeof p);
        if (!o)
            break;
        ++*n;
        if (!ld_figs(L, o, p, sec, base + i * size, nvb__figs_when(r)) && part)
            part(L, o, p, base + i * size, r);
    }
    return L->rc;
}

/* The time series and the hosts (result_load_series.c): 0, or the first
 * problem's negative errno with L's message. */
int nvb__ld_series(struct ld *L, const struct nvb__jv *root, struct nvb_result *r);
int nvb__ld_hosts(struct ld *L, const struct nvb__jv *root, struct nvb_result *r);

#endif
