/*
 * Strict JSON reader and writer (see json.h). Recursive descent bounded by
 * NVB__JSON_MAX_DEPTH; the cursor never passes `end`, so input need not be
 * NUL-terminated and a NUL byte inside is an error like any other stray byte.
 */
#include "util/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* The parser runs twice over the text (see json.h). The first pass checks
 * every byte and counts: the nodes, the bytes of the unescaped strings and
 * numbers, and the children of each container in the order the containers
 * open. The second pass walks the same grammar again and fills a tree of
 * exactly that size: each container takes its children's slots from the
 * node pool when it opens, so siblings are contiguous. */
struct jp {
    const char *start, *p, *end;
    int depth;
    int rc;              /* first failure */
    char *why;
    size_t why_len;
    int fill;            /* 0: first pass, 1: second */
    size_t nodes, bytes; /* first pass: what the tree needs, root included */
    uint32_t *counts;    /* children of each container, in opening order */
    size_t ncounts, counts_cap, next_count;
    struct nvb__jv *pool; /* second pass: where the next children go */
    char *arena;          /* second pass: where the next string goes */
};

static int fail(struct jp *j, int rc, const char *what)
{
    if (!j->rc) {
        j->rc = rc;
        if (j->why && j->why_len) {
            size_t off = (size_t)(j->p - j->start);
            if (rc == -ENOMEM)
                snprintf(j->why, j->why_len, "out of memory reading JSON");
            else if (j->p >= j->end)
                snprintf(j->why, j->why_len, "JSON: %s at the end of the text (byte %zu)", what, off);
            else if ((unsigned char)*j->p >= 0x20 && (unsigned char)*j->p < 0x7f)
                snprintf(j->why, j->why_len, "JSON: %s at byte %zu ('%c')", what, off, *j->p);
            else
                snprintf(j->why, j->why_len, "JSON: %s at byte %zu (byte 0x%02x)", what, off,
                         (unsigned)(unsigned char)*j->p);
        }
    }
    return j->rc;
}

static void skip_ws(struct jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int lit(struct jp *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
        return fail(j, -EINVAL, "invalid literal");
    j->p += n;
    return 0;
}

static int is_digit(const struct jp *j) { return j->p < j->end && *j->p >= '0' && *j->p <= '9'; }

static int parse_number(struct jp *j, struct nvb__jv *v)
{
    const char *s = j->p;
    if (j->p < j->end && *j->p == '-')
        j->p++;
    if (!is_digit(j))
        return fail(j, -EINVAL, "a number needs a digit");
    if (*j->p == '0') {
        j->p++;
        if (is_digit(j))
            return fail(j, -EINVAL, "leading zero in a number");
    } else {
        while (is_digit(j))
            j->p++;
    }
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!is_digit(j))
            return fail(j, -EINVAL, "a fraction needs a digit");
        while (is_digit(j))
            j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (!is_digit(j))
            return fail(j, -EINVAL, "an exponent needs a digit");
        while (is_digit(j))
            j->p++;
    }
    size_t n = (size_t)(j->p - s);
    v->type = NVB__J_NUM;
    if (!j->fill) {
        j->bytes += n + 1;
        return 0;
    }
    v->s = j->arena;
    memcpy(v->s, s, n);
    v->s[n] = 0;
    j->arena += n + 1;
    return 0;
}

static int hex4(struct jp *j, unsigned *out)
{
    if (j->end - j->p < 4)
        return fail(j, -EINVAL, "truncated \\u escape");
    unsigned u = 0;
    for (int i = 0; i < 4; i++) {
        char c = j->p[i];
        u <<= 4;
        if (c >= '0' && c <= '9') u |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') u |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') u |= (unsigned)(c - 'A' + 10);
        else return fail(j, -EINVAL, "invalid \\u escape");
    }
    j->p += 4;
    *out = u;
    return 0;
}

/* Length of the valid UTF-8 sequence at p (shortest form, no surrogates,
 * at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
    else return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xc0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Append n bytes to the string being unescaped: counted in the first
 * pass, written in the second. */
static void put(struct jp *j, size_t *len, const char *src, size_t n)
{
    if (j->fill)
        memcpy(j->arena + *len, src, n);
    *len += n;
}

/* At the opening quote. First pass: checks and counts the bytes; second:
 * writes them to the arena and points *out there. */
static int parse_string(struct jp *j, char **out)
{
    size_t len = 0;
    j->p++;
    for (;;) {
        if (j->p >= j->end)
            return fail(j, -EINVAL, "unterminated string");
        unsigned char c = (unsigned char)*j->p;
        if (c == '"') {
            j->p++;
            break;
        }
        if (c < 0x20)
            return fail(j, -EINVAL, "control character in a string");
        if (c != '\\') {
            size_t n = utf8_len((const unsigned char *)j->p, (const unsigned char *)j->end);
            if (!n)
                return fail(j, -EINVAL, "invalid UTF-8 in a string");
            put(j, &len, j->p, n);
            j->p += n;
            continue;
        }
        j->p++;
        if (j->p >= j->end)
            return fail(j, -EINVAL, "unterminated escape");
        char e = *j->p++;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            put(j, &len, &to[k - from], 1);
            continue;
        }
        if (e != 'u') {
            j->p--;
            return fail(j, -EINVAL, "invalid escape");
        }
        unsigned cp, lo;
        if (hex4(j, &cp))
            return j->rc;
        if (cp >= 0xdc00 && cp <= 0xdfff)
            return fail(j, -EINVAL, "lone low surrogate in a \\u escape");
        if (cp >= 0xd800 && cp <= 0xdbff) {
            if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
                return fail(j, -EINVAL, "high surrogate without its low half");
            j->p += 2;
            if (hex4(j, &lo))
                return j->rc;
            if (lo < 0xdc00 || lo > 0xdfff)
                return fail(j, -EINVAL, "high surrogate without its low half");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        if (cp == 0)
            return fail(j, -EINVAL, "\\u0000 in a string");
        char u[4];
        put(j, &len, u, put_utf8(u, cp));
    }
    if (!j->fill) {
        j->bytes += len + 1;
        return 0;
    }
    j->arena[len] = 0;
    *out = j->arena;
    j->arena += len + 1;
    return 0;
}

static int parse_value(struct jp *j, struct nvb__jv *v);

/* First pass: a new container's slot in counts. */
static int count_open(struct jp *j, size_t *slot)
{
    if (j->ncounts == j->counts_cap) {
        size_t nc = j->counts_cap ? j->counts_cap * 2 : 64;
        uint32_t *c = nc <= SIZE_MAX / sizeof *c ? realloc(j->counts, nc * sizeof *c) : NULL;
        if (!c)
            return fail(j, -ENOMEM, "");
        j->counts = c;
        j->counts_cap = nc;
    }
    *slot = j->ncounts;
    j->counts[j->ncounts++] = 0;
    return 0;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp((*(const struct nvb__jv *const *)a)->key, (*(const struct nvb__jv *const *)b)->key);
}

static int check_duplicates(struct jp *j, const struct nvb__jv *obj)
{
    if (obj->n < 2)
        return 0;
    const struct nvb__jv **v = malloc(obj->n * sizeof *v);
    if (!v)
        return fail(j, -ENOMEM, "");
    for (size_t i = 0; i < obj->n; i++)
        v[i] = &obj->kid[i];
    qsort(v, obj->n, sizeof *v, key_cmp);
    const char *dup = NULL;
    for (size_t i = 1; i < obj->n && !dup; i++)
        if (!strcmp(v[i - 1]->key, v[i]->key))
            dup = v[i]->key;
    if (dup && !j->rc) {
        j->rc = -EINVAL;
        if (j->why && j->why_len)
            snprintf(j->why, j->why_len, "JSON: duplicate member \"%.80s\" in the object ending at byte %zu", dup,
                     (size_t)(j->p - j->start));
    }
    free(v);
    return dup ? j->rc : 0;
}

static int parse_container(struct jp *j, struct nvb__jv *v, int obj)
{
    if (++j->depth > NVB__JSON_MAX_DEPTH)
        return fail(j, -EINVAL, "nesting deeper than 64 levels");
    v->type = obj ? NVB__J_OBJ : NVB__J_ARR;
    char close = obj ? '}' : ']';
    size_t slot = 0;
    if (!j->fill && count_open(j, &slot))
        return j->rc;
    if (j->fill) {
        v->n = j->counts[j->next_count++];
        v->kid = v->n ? j->pool : NULL;
        j->pool += v->n;
    }
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return 0;
    }
    for (size_t i = 0;; i++) {
        struct nvb__jv scratch, *k = j->fill ? &v->kid[i] : &scratch;
        memset(k, 0, sizeof *k);
        k->pooled = 1;
        if (!j->fill) {
            if (j->counts[slot] == UINT32_MAX)
                return fail(j, -EINVAL, "more than 4294967295 members");
            j->counts[slot]++;
            j->nodes++;
        }
        skip_ws(j);
        if (obj) {
            if (j->p >= j->end || *j->p != '"')
                return fail(j, -EINVAL, "expected a member name");
            if (parse_string(j, &k->key))
                return j->rc;
            skip_ws(j);
            if (j->p >= j->end || *j->p != ':')
                return fail(j, -EINVAL, "expected ':'");
            j->p++;
        }
        if (parse_value(j, k))
            return j->rc;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            break;
        }
        return fail(j, -EINVAL, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    j->depth--;
    return obj && j->fill ? check_duplicates(j, v) : 0;
}

static int parse_value(struct jp *j, struct nvb__jv *v)
{
    skip_ws(j);
    if (j->p >= j->end)
        return fail(j, -EINVAL, "expected a value");
    switch (*j->p) {
    case '{': return parse_container(j, v, 1);
    case '[': return parse_container(j, v, 0);
    case '"':
        v->type = NVB__J_STR;
        return parse_string(j, &v->s);
    case 't': v->type = NVB__J_TRUE; return lit(j, "true");
    case 'f': v->type = NVB__J_FALSE; return lit(j, "false");
    case 'n': v->type = NVB__J_NULL; return lit(j, "null");
    default:
        if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
            return parse_number(j, v);
        return fail(j, -EINVAL, "expected a value");
    }
}

static int is_container(const struct nvb__jv *v) { return v->type == NVB__J_ARR || v->type == NVB__J_OBJ; }

void nvb__json_clear(struct nvb__jv *v)
{
    if (!v || v->pooled)
        return;
    free(v->key);
    if (is_container(v)) {
        for (size_t i = 0; i < v->n; i++)
            nvb__json_clear(&v->kid[i]);
        free(v->kid);
    } else {
        free(v->s);
    }
    memset(v, 0, sizeof *v);
}

void nvb__json_free(struct nvb__jv *v)
{
    nvb__json_clear(v); /* a parsed tree's root is its whole allocation */
    free(v);
}

/* One pass over the text: the first (counting) or the second (filling). */
static int run_pass(struct jp *j, struct nvb__jv *root)
{
    j->p = j->start;
    j->depth = 0;
    if (parse_value(j, root) == 0) {
        skip_ws(j);
        if (j->p < j->end)
            fail(j, -EINVAL, "text after the JSON value");
    }
    return j->rc;
}

int nvb__json_parse(const char *text, size_t len, struct nvb__jv **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = 0;
    if (!out)
        return -EINVAL;
    *out = NULL;
    struct jp j = {.start = text, .p = text, .end = text ? text + len : NULL, .why = why, .why_len = why_len,
                   .nodes = 1};
    if (!text)
        return fail(&j, -EINVAL, "no text");
    struct nvb__jv scratch;
    memset(&scratch, 0, sizeof scratch);
    if (run_pass(&j, &scratch)) {
        free(j.counts);
        return j.rc;
    }
    struct nvb__jv *tree = j.nodes <= (SIZE_MAX - j.bytes) / sizeof *tree ? malloc(j.nodes * sizeof *tree + j.bytes)
                                                                          : NULL;
    if (!tree) {
        free(j.counts);
        return fail(&j, -ENOMEM, "");
    }
    memset(tree, 0, sizeof *tree);
    tree->pooled = 1;
    j.fill = 1;
    j.pool = tree + 1;
    j.arena = (char *)(tree + j.nodes);
    run_pass(&j, tree);
    free(j.counts);
    if (j.rc) {
        free(tree);
        return j.rc;
    }
    *out = tree;
    return 0;
}

int nvb__json_copy(struct nvb__jv *dst, const struct nvb__jv *src)
{
    memset(dst, 0, sizeof *dst);
    dst->type = src->type;
    if (src->key && !(dst->key = nvb__strdup(src->key)))
        goto oom;
    if (!is_container(src)) {
        if (src->s && !(dst->s = nvb__strdup(src->s)))
            goto oom;
    } else if (src->n) {
        dst->kid = calloc(src->n, sizeof *dst->kid);
        if (!dst->kid)
            goto oom;
        for (size_t i = 0; i < src->n; i++) {
            dst->n = (uint32_t)i + 1;
            if (nvb__json_copy(&dst->kid[i], &src->kid[i]))
                goto oom;
        }
    }
    return 0;
oom:
    nvb__json_clear(dst);
    return -ENOMEM;
}

const struct nvb__jv *nvb__json_get(const struct nvb__jv *obj, const char *key)
{
    if (!obj || obj->type != NVB__J_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->kid[i].key, key))
            return &obj->kid[i];
    return NULL;
}

int nvb__json_u64(const struct nvb__jv *v, uint64_t *out)
{
    if (!v || v->type != NVB__J_NUM)
        return -EINVAL;
    uint64_t x = 0;
    for (const char *p = v->s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -EINVAL;
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -EINVAL;
        x = x * 10 + d;
    }
    *out = x;
    return 0;
}

/* strtod() follows LC_NUMERIC, which the host program may have set to a
 * locale whose decimal point is ','. Rewriting "12.5e3" as "125e2" leaves no
 * decimal point to interpret, so the conversion is the same everywhere. */
int nvb__json_dbl(const struct nvb__jv *v, double *out)
{
    if (!v || v->type != NVB__J_NUM)
        return -EINVAL;
    size_t n = strlen(v->s);
    char small[96], *buf = n + 32 <= sizeof small ? small : malloc(n + 32);
    if (!buf)
        return -ENOMEM;
    const char *p = v->s;
    char *o = buf;
    long frac = 0;
    if (*p == '-')
        *o++ = *p++;
    while (*p >= '0' && *p <= '9')
        *o++ = *p++;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            *o++ = *p++;
            frac++;
        }
    }
    long ex = 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        int neg = *p == '-';
        if (*p == '+' || *p == '-')
            p++;
        while (*p >= '0' && *p <= '9') {
            if (ex < 1000000)   /* beyond any double's range either way */
                ex = ex * 10 + (*p - '0');
            p++;
        }
        if (neg)
            ex = -ex;
    }
    snprintf(o, 32, "e%ld", ex - frac);
    char *end;
    double d = strtod(buf, &end);
    int ok = *end == 0 && isfinite(d);
    if (buf != small)
        free(buf);
    if (!ok)
        return -EINVAL;
    *out = d;
    return 0;
}

int nvb__utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    for (size_t n; p < end; p += n)
        if (!(n = utf8_len(p, end)))
            return 0;
    return 1;
}

int nvb__json_available(const struct nvb__jv *parent, const char *name, const struct nvb__jv **obj,
                        const char **reason, char *why, size_t whylen)
{
    *obj = NULL;
    *reason = NULL;
    const struct nvb__jv *o = nvb__json_get(parent, name);
    if (!o || o->type == NVB__J_NULL)
        return 0;
    const struct nvb__jv *av = o->type == NVB__J_OBJ ? nvb__json_get(o, "available") : NULL;
    if (!av || (av->type != NVB__J_TRUE && av->type != NVB__J_FALSE)) {
        snprintf(why, whylen, "%s: not an object with \"available\" true or false", name);
        return -EINVAL;
    }
    if (av->type == NVB__J_FALSE) {
        const struct nvb__jv *rs = nvb__json_get(o, "reason");
        *reason = rs && rs->type == NVB__J_STR ? rs->s : NULL;
        return 1;
    }
    *obj = o;
    return 2;
}

void nvb__json_write_num(struct nvb__buf *b, double v)
{
    if (!isfinite(v))
        nvb__buf_puts(b, "null");
    else if (v == floor(v) && fabs(v) < 9e15)
        nvb__buf_printf(b, "%.0f", v);
    else
        nvb__buf_printf(b, "%.10g", v);
}

/* Runs of valid UTF-8 go out as they are; '"' and '\\' escaped, control
 * characters as \u00XX, every byte that starts no valid sequence as
 * U+FFFD, so what a reader gets is always well-formed. */
void nvb__json_write_str(struct nvb__buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s), *run = p;
    nvb__buf_putn(b, "\"", 1);
    while (p < end) {
        size_t n = utf8_len(p, end);
        if (n && *p >= 0x20 && *p != '"' && *p != '\\') {
            p += n;
            continue;
        }
        nvb__buf_putn(b, (const char *)run, (size_t)(p - run));
        if (!n)
            nvb__buf_puts(b, "\\ufffd");
        else if (*p == '"' || *p == '\\')
            nvb__buf_printf(b, "\\%c", *p);
        else
            nvb__buf_printf(b, "\\u%04x", *p);
        run = ++p;
    }
    nvb__buf_putn(b, (const char *)run, (size_t)(p - run));
    nvb__buf_putn(b, "\"", 1);
}

void nvb__json_write(const struct nvb__jv *v, struct nvb__buf *b)
{
    switch (v->type) {
    case NVB__J_NULL: nvb__buf_puts(b, "null"); break;
    case NVB__J_FALSE: nvb__buf_puts(b, "false"); break;
    case NVB__J_TRUE: nvb__buf_puts(b, "true"); break;
    case NVB__J_NUM: nvb__buf_puts(b, v->s); break;
    case NVB__J_STR: nvb__json_write_str(b, v->s); break;
    case NVB__J_ARR:
    case NVB__J_OBJ: {
        int obj = v->type == NVB__J_OBJ;
        nvb__buf_putn(b, obj ? "{" : "[", 1);
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                nvb__buf_putn(b, ",", 1);
            if (obj) {
                nvb__json_write_str(b, v->kid[i].key);
                nvb__buf_putn(b, ":", 1);
            }
            nvb__json_write(&v->kid[i], b);
        }
        nvb__buf_putn(b, obj ? "}" : "]", 1);
        break;
    }
    }
}
