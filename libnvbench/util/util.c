/* Small helpers: a growable string buffer, errno names, sizes as text. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static int buf_grow(struct nvb__buf *b, size_t need)
{
    if (b->oom)
        return -1;
    if (b->len + need + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + need + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void nvb__buf_putn(struct nvb__buf *b, const char *s, size_t n)
{
    if (buf_grow(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void nvb__buf_puts(struct nvb__buf *b, const char *s) { nvb__buf_putn(b, s, strlen(s)); }

int nvb__buf_take(struct nvb__buf *b, char **out)
{
    if (b->oom || !b->s) {
        free(b->s);
        return -ENOMEM;
    }
    *out = b->s;
    return 0;
}

void nvb__buf_printf(struct nvb__buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || buf_grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *nvb__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int nvb__calloc2(size_t n, size_t sa, size_t sb, void **a, void **b)
{
    *a = calloc(n, sa);
    *b = calloc(n, sb);
    if (*a && *b)
        return 0;
    free(*a);
    free(*b);
    *a = *b = NULL;
    return -ENOMEM;
}

int nvb__grow(void *arr, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return 0;
    void *p;
    memcpy(&p, arr, sizeof p); /* arr is a T ** of any T */
    size_t nc = *cap ? *cap * 2 : first;
    if (nc <= n || nc > SIZE_MAX / elem)
        return -ENOMEM;
    void *np = realloc(p, nc * elem);
    if (!np)
        return -ENOMEM;
    memcpy(arr, &np, sizeof np);
    *cap = nc;
    return 0;
}

const char *nvb__errno_name(int e, char *buf, size_t len)
{
    if (e < 0)
        e = -e;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    const char *n = strerrorname_np(e);
    if (n)
        return n;
#else
    static const struct { int e; const char *n; } names[] = {
        {EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {EINTR, "EINTR"}, {EIO, "EIO"}, {ENXIO, "ENXIO"},
        {EBADF, "EBADF"}, {EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"}, {EACCES, "EACCES"},
        {EFAULT, "EFAULT"}, {EBUSY, "EBUSY"}, {EEXIST, "EEXIST"}, {ENODEV, "ENODEV"},
        {EINVAL, "EINVAL"}, {ENOSPC, "ENOSPC"}, {EROFS, "EROFS"}, {ERANGE, "ERANGE"},
        {ENOSYS, "ENOSYS"}, {ENOTSUP, "ENOTSUP"}, {ETIMEDOUT, "ETIMEDOUT"}, {ECANCELED, "ECANCELED"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].e == e)
            return names[i].n;
#endif
    snprintf(buf, len, "E%d", e);
    return buf;
}

const char *nvb__fmt_size(uint64_t v, char *buf, size_t len)
{
    static const char *const u[] = {"", "k", "M", "G", "T", "P"};
    unsigned i = 0;
    while (i < 5 && v && v % 1024 == 0) {
        v /= 1024;
        i++;
    }
    snprintf(buf, len, "%" PRIu64 "%s", v, u[i]);
    return buf;
}

uint64_t nvb__div128(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem)
{
    /* One quotient bit per step. The remainder stays below d, so doubling
     * it needs at most 65 bits: the bit shifted out (top) says it is
     * certainly >= d, and the subtraction modulo 2^64 is then exact. */
    uint64_t q = 0, r = hi;
    for (int i = 63; i >= 0; i--) {
        uint64_t top = r >> 63;
        r = r << 1 | (lo >> i & 1);
        q <<= 1;
        if (top || r >= d) {
            r -= d;
            q |= 1;
        }
    }
    if (rem)
        *rem = r;
    return q;
}

double nvb__u128_double(uint64_t hi, uint64_t lo)
{
    if (!hi)
        return (double)lo;
    /* The top 64 bits, and below them only whether any bit is set (the
     * sticky bit): 64 bits are 11 more than a double keeps, so rounding
     * them rounds the whole number correctly. */
    unsigned s = (unsigned)__builtin_clzll(hi);
    uint64_t top = s ? hi << s | lo >> (64 - s) : hi;
    top |= (s ? lo << s : lo) != 0;
    return ldexp((double)top, 64 - (int)s);
}

int nvb__wide_from_dec(const char *s, uint64_t *w, unsigned n)
{
    if (!*s || n > 4)
        return -EINVAL;
    memset(w, 0, n * sizeof *w);
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -EINVAL;
        /* w = w * 10 + digit, word by word with the carry */
        uint64_t carry = (uint64_t)(*s - '0');
        for (unsigned i = 0; i < n; i++) {
            unsigned __int128 x = (unsigned __int128)w[i] * 10 + carry;
            w[i] = (uint64_t)x;
            carry = (uint64_t)(x >> 64);
        }
        if (carry)
            return -ERANGE;
    }
    return 0;
}

const char *nvb__wide_to_dec(const uint64_t *w, unsigned n, char *buf, size_t len)
{
    uint64_t q[4];
    char tmp[96];
    size_t k = sizeof tmp;
    if (n > 4 || !len)
        return buf;
    memcpy(q, w, n * sizeof *w);
    tmp[--k] = 0;
    do { /* q /= 10, the remainder is the next digit from the right */
        uint64_t rem = 0;
        int nonzero = 0;
        for (unsigned i = n; i-- > 0;) {
            q[i] = nvb__div128(rem, q[i], 10, &rem);
            nonzero |= q[i] != 0;
        }
        tmp[--k] = (char)('0' + rem);
        if (!nonzero)
            break;
    } while (k > 0);
    snprintf(buf, len, "%s", tmp + k);
    return buf;
}

/* Optimal string alignment distance, capped at 3 (anything beyond is not
 * a slip); words longer than 63 bytes are never close. */
static unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 3;
    if (la > lb + 2 || lb > la + 2)
        return 3;
    unsigned d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            unsigned cost = a[i - 1] != b[j - 1];
            unsigned v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb] < 3 ? d[la][lb] : 3;
}

const char *nvb__closest(const char *word, const char *(*next)(size_t i, void *arg), void *arg)
{
    const char *best = NULL;
    unsigned bestd = 3;
    size_t len = strlen(word);
    for (size_t i = 0;; i++) {
        const char *c = next(i, arg);
        if (!c)
            break;
        unsigned dist = edit_distance(word, c);
        if (dist < bestd && 2 * dist < len) {
            best = c;
            bestd = dist;
        }
    }
    return best;
}

int nvb__say(char *why, size_t len, int rc, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return rc;
}
