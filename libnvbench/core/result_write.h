/*
 * The result writer's primitives (result.c): one walk over the result both
 * writes the JSON (j->b) and answers a path query (j->want), so every key
 * is written through these. Inline, as only the writer includes it; kept
 * apart so that result.c holds the result's objects alone.
 */
#ifndef NVB_CORE_RESULT_WRITE_H
#define NVB_CORE_RESULT_WRITE_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/json.h"

/* ------------------------------------------------------------ JSON walk */

static inline void j_comma(struct nvb__json *j)
{
    if (j->depth > 0) {
        if (!j->first[j->depth] && j->b)
            nvb__buf_putn(j->b, ",", 1);
        j->first[j->depth] = 0;
    }
}

static inline void j_path_push(struct nvb__json *j, const char *key, int idx)
{
    size_t n = strlen(j->path);
    j->plen[j->depth] = n;
    char comp[64];
    if (key)
        snprintf(comp, sizeof comp, "%s", key);
    else
        snprintf(comp, sizeof comp, "%d", idx);
    snprintf(j->path + n, sizeof j->path - n, "%s%s", n ? "." : "", comp);
}

static inline void j_path_pop(struct nvb__json *j) { j->path[j->plen[j->depth]] = 0; }

/* key NULL inside arrays */
static inline void j_key(struct nvb__json *j, const char *key)
{
    j_comma(j);
    if (key && j->b) {
        nvb__json_write_str(j->b, key);
        nvb__buf_putn(j->b, ":", 1);
    }
}

struct jctx {
    struct nvb__json *j;
    int idx[32];
};

static inline void jo_open(struct jctx *c, const char *key, char ch)
{
    struct nvb__json *j = c->j;
    j_key(j, key);
    if (j->depth > 0)
        j_path_push(j, key, key ? 0 : c->idx[j->depth]++);
    if (j->b)
        nvb__buf_putn(j->b, &ch, 1);
    j->depth++;
    j->first[j->depth] = 1;
    c->idx[j->depth] = 0;
}

static inline void jo_close(struct jctx *c, char ch)
{
    struct nvb__json *j = c->j;
    if (j->b)
        nvb__buf_putn(j->b, &ch, 1);
    j->depth--;
    if (j->depth > 0)
        j_path_pop(j);
}

static inline void jo_num(struct jctx *c, const char *key, double v)
{
    struct nvb__json *j = c->j;
    j_key(j, key);
    if (j->want) {
        size_t n = strlen(j->path);
        j_path_push(j, key, key ? 0 : c->idx[j->depth]);
        if (!strcmp(j->path, j->want)) {
            j->got = v;
            j->found = 1;
        }
        j->path[n] = 0;
    }
    if (!key)
        c->idx[j->depth]++;
    if (j->b)
        nvb__json_write_num(j->b, v);
}

/* A figure the result stores (not one derived from others), in the
 * shortest form that reads back as the same double: a result loaded from
 * its JSON (nvb_result_from_json) then derives every rate from exactly the
 * same inputs, so its JSON is the same text. */
static inline void j_shortest(char *buf, size_t len, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

static inline void jo_raw_num(struct jctx *c, const char *key, double v)
{
    if (c->j->want || !c->j->b || !isfinite(v) || (v == floor(v) && fabs(v) < 9e15)) {
        jo_num(c, key, v);
        return;
    }
    j_key(c->j, key);
    if (!key)
        c->idx[c->j->depth]++;
    char buf[40];
    j_shortest(buf, sizeof buf, v);
    nvb__buf_puts(c->j->b, buf);
}

static inline void jo_u64(struct jctx *c, const char *key, uint64_t v)
{
    struct nvb__json *j = c->j;
    if (j->want || !j->b) {
        jo_num(c, key, (double)v);
        return;
    }
    j_key(j, key);
    if (!key)
        c->idx[j->depth]++;
    nvb__buf_printf(j->b, "%" PRIu64, v);
}

static inline void jo_raw(struct jctx *c, const char *key, const char *raw);

/* A double to 6 significant digits (%.6g), null when not finite: figures
 * results have always had so (NVB__FF_G6); a lookup sees the double. */
static inline void jo_g6(struct jctx *c, const char *key, double v)
{
    if (c->j->want || !c->j->b || !isfinite(v)) {
        jo_num(c, key, v);
        return;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", v);
    jo_raw(c, key, buf);
}

/* A signed integer, as it is; a lookup sees it as a double. */
static inline void jo_i64(struct jctx *c, const char *key, int64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    c->j->want || !c->j->b ? jo_num(c, key, (double)v) : jo_raw(c, key, buf);
}

/* An exact integer of n words (util.h): its digits, as a JSON number, or as
 * a string (as_str) for readers that would round a long number; a lookup
 * sees it as a double. */
static inline void jo_wide(struct jctx *c, const char *key, const uint64_t *w, unsigned n, int as_str)
{
    struct nvb__json *j = c->j;
    if (j->want || !j->b) {
        double v = 0;
        for (unsigned i = n; i-- > 0;)
            v = v * 18446744073709551616.0 + (double)w[i];
        jo_num(c, key, v);
        return;
    }
    char buf[96];
    nvb__wide_to_dec(w, n, buf, sizeof buf);
    j_key(j, key);
    if (!key)
        c->idx[j->depth]++;
    if (as_str)
        nvb__json_write_str(j->b, buf);
    else
        nvb__buf_puts(j->b, buf);
}

/* true/false; a lookup sees 1/0. */
static inline void jo_bool(struct jctx *c, const char *key, int v)
{
    if (c->j->want || !c->j->b)
        jo_num(c, key, v ? 1 : 0);
    else
        jo_raw(c, key, v ? "true" : "false");
}

/* A string (quoted) or raw JSON text (null, true, false) at key. */
static inline void jo_text(struct jctx *c, const char *key, const char *s, int quote)
{
    struct nvb__json *j = c->j;
    j_key(j, key);
    if (!key)
        c->idx[j->depth]++;
    if (j->b && quote)
        nvb__json_write_str(j->b, s ? s : "");
    else if (j->b)
        nvb__buf_puts(j->b, s);
}

static inline void jo_str(struct jctx *c, const char *key, const char *s) { jo_text(c, key, s, 1); }
static inline void jo_raw(struct jctx *c, const char *key, const char *raw) { jo_text(c, key, raw, 0); }

#endif
