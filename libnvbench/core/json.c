/*
 * Strict JSON reader and writer (see json.h). Recursive descent bounded by
 * NVB__JSON_MAX_DEPTH; the cursor never passes `end`, so input need not be
 * NUL-terminated and a NUL byte inside is an error like any other stray byte.
 */
#include "core/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

struct jp {
    const char *start, *p, *end;
    int depth;
    int rc;              /* first failure */
    char *why;
    size_t why_len;
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
    v->s = malloc(n + 1);
    if (!v->s)
        return fail(j, -ENOMEM, "");
    memcpy(v->s, s, n);
    v->s[n] = 0;
    v->type = NVB__J_NUM;
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

/* At the opening quote. The unescaped text is never longer than the
 * escaped one, so one allocation of the raw span suffices. */
static int parse_string(struct jp *j, char **out)
{
    j->p++;
    const char *q = j->p;
    while (q < j->end && *q != '"') {
        if (*q == '\\' && q + 1 < j->end)
            q++;
        q++;
    }
    if (q >= j->end) {
        j->p = j->end;
        return fail(j, -EINVAL, "unterminated string");
    }
    char *s = malloc((size_t)(q - j->p) + 1), *o = s;
    if (!s)
        return fail(j, -ENOMEM, "");
    for (;;) {
        if (j->p >= j->end) {
            free(s);
            return fail(j, -EINVAL, "unterminated string");
        }
        unsigned char c = (unsigned char)*j->p;
        if (c == '"') {
            j->p++;
            break;
        }
        if (c < 0x20) {
            free(s);
            return fail(j, -EINVAL, "control character in a string");
        }
        if (c != '\\') {
            size_t n = utf8_len((const unsigned char *)j->p, (const unsigned char *)j->end);
            if (!n) {
                free(s);
                return fail(j, -EINVAL, "invalid UTF-8 in a string");
            }
            memcpy(o, j->p, n);
            o += n;
            j->p += n;
            continue;
        }
        j->p++;
        if (j->p >= j->end) {
            free(s);
            return fail(j, -EINVAL, "unterminated escape");
        }
        char e = *j->p++;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (hex4(j, &cp)) {
                free(s);
                return j->rc;
            }
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                free(s);
                return fail(j, -EINVAL, "lone low surrogate in a \\u escape");
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u') {
                    free(s);
                    return fail(j, -EINVAL, "high surrogate without its low half");
                }
                j->p += 2;
                if (hex4(j, &lo)) {
                    free(s);
                    return j->rc;
                }
                if (lo < 0xdc00 || lo > 0xdfff) {
                    free(s);
                    return fail(j, -EINVAL, "high surrogate without its low half");
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp == 0) {
                free(s);
                return fail(j, -EINVAL, "\\u0000 in a string");
            }
            o += put_utf8(o, cp);
            break;
        }
        default:
            j->p--;
            free(s);
            return fail(j, -EINVAL, "invalid escape");
        }
    }
    *o = 0;
    *out = s;
    return 0;
}

static int parse_value(struct jp *j, struct nvb__jv *v);

static int push(struct jp *j, struct nvb__jv *parent, size_t *cap, struct nvb__jv **slot)
{
    if (parent->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        if (nc > SIZE_MAX / sizeof *parent->kid)
            return fail(j, -ENOMEM, "");
        struct nvb__jv *k = realloc(parent->kid, nc * sizeof *k);
        if (!k)
            return fail(j, -ENOMEM, "");
        parent->kid = k;
        *cap = nc;
    }
    *slot = &parent->kid[parent->n++];
    memset(*slot, 0, sizeof **slot);
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
    size_t cap = 0;
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return 0;
    }
    for (;;) {
        struct nvb__jv *k = NULL;
        char *key = NULL;
        skip_ws(j);
        if (obj) {
            if (j->p >= j->end || *j->p != '"')
                return fail(j, -EINVAL, "expected a member name");
            if (parse_string(j, &key))
                return j->rc;
            skip_ws(j);
            if (j->p >= j->end || *j->p != ':') {
                free(key);
                return fail(j, -EINVAL, "expected ':'");
            }
            j->p++;
        }
        if (push(j, v, &cap, &k)) {
            free(key);
            return j->rc;
        }
        k->key = key;
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
    return obj ? check_duplicates(j, v) : 0;
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

void nvb__json_clear(struct nvb__jv *v)
{
    if (!v)
        return;
    free(v->key);
    free(v->s);
    for (size_t i = 0; i < v->n; i++)
        nvb__json_clear(&v->kid[i]);
    free(v->kid);
    memset(v, 0, sizeof *v);
}

void nvb__json_free(struct nvb__jv *v)
{
    nvb__json_clear(v);
    free(v);
}

int nvb__json_parse(const char *text, size_t len, struct nvb__jv **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = 0;
    if (!out)
        return -EINVAL;
    *out = NULL;
    struct jp j = {.start = text, .p = text, .end = text ? text + len : NULL, .why = why, .why_len = why_len};
    if (!text)
        return fail(&j, -EINVAL, "no text");
    struct nvb__jv *v = calloc(1, sizeof *v);
    if (!v)
        return fail(&j, -ENOMEM, "");
    if (parse_value(&j, v) == 0) {
        skip_ws(&j);
        if (j.p < j.end)
            fail(&j, -EINVAL, "text after the JSON value");
    }
    if (j.rc) {
        nvb__json_free(v);
        return j.rc;
    }
    *out = v;
    return 0;
}

int nvb__json_copy(struct nvb__jv *dst, const struct nvb__jv *src)
{
    memset(dst, 0, sizeof *dst);
    dst->type = src->type;
    if ((src->key && !(dst->key = nvb__strdup(src->key))) || (src->s && !(dst->s = nvb__strdup(src->s))))
        goto oom;
    if (src->n) {
        dst->kid = calloc(src->n, sizeof *dst->kid);
        if (!dst->kid)
            goto oom;
        for (size_t i = 0; i < src->n; i++) {
            dst->n = i + 1;
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
