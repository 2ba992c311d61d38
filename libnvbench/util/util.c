/* Small helpers: a growable string buffer, errno names, sizes as text. */
#include <errno.h>
#include <inttypes.h>
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
