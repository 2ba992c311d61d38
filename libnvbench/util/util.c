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
