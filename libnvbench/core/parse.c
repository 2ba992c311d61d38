/* Parsers for workload values. Strict: the whole string must be consumed. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/internal.h"

static const char *skip_ws(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* Parses a non-negative decimal integer with optional fraction into a
 * mantissa/scale pair so "1.5G" works without floating point surprises. */
static int parse_number(const char **sp, uint64_t *ip, uint64_t *frac, uint64_t *fscale)
{
    const char *s = skip_ws(*sp);
    if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1])))
        return -EINVAL;
    uint64_t v = 0;
    while (isdigit((unsigned char)*s)) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -ERANGE;
        v = v * 10 + d;
        s++;
    }
    uint64_t f = 0, sc = 1;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s))
            return -EINVAL;
        while (isdigit((unsigned char)*s)) {
            if (sc < 1000000000000ull) {
                f = f * 10 + (uint64_t)(*s - '0');
                sc *= 10;
            }
            s++;
        }
    }
    *ip = v;
    *frac = f;
    *fscale = sc;
    *sp = s;
    return 0;
}

/* v * mult + frac/fscale * mult, checking overflow; rounds down. */
static int scale(uint64_t v, uint64_t f, uint64_t sc, uint64_t mult, uint64_t *out)
{
    if (mult && v > UINT64_MAX / mult)
        return -ERANGE;
    uint64_t r = v * mult;
    /* f < sc <= 1e12 and mult <= 2^60: split to avoid overflow */
    uint64_t add = (uint64_t)((long double)f / (long double)sc * (long double)mult);
    if (r > UINT64_MAX - add)
        return -ERANGE;
    *out = r + add;
    return 0;
}

int nvb__parse_size(const char *s, uint64_t *out)
{
    if (!s)
        return -EINVAL;
    uint64_t v, f, sc;
    int rc = parse_number(&s, &v, &f, &sc);
    if (rc)
        return rc;
    uint64_t mult = 1;
    switch (tolower((unsigned char)*s)) {
    case 0: break;
    case 'b': mult = 1; s++; break;
    case 'k': mult = 1ull << 10; s++; break;
    case 'm': mult = 1ull << 20; s++; break;
    case 'g': mult = 1ull << 30; s++; break;
    case 't': mult = 1ull << 40; s++; break;
    case 'p': mult = 1ull << 50; s++; break;
    default: return -EINVAL;
    }
    if (mult > 1) { /* accept k, kb, kib, KiB */
        if (tolower((unsigned char)*s) == 'i')
            s++;
        if (tolower((unsigned char)*s) == 'b')
            s++;
    }
    s = skip_ws(s);
    if (*s)
        return -EINVAL;
    if (f && mult == 1)
        return -EINVAL; /* fractional bytes */
    return scale(v, f, sc, mult, out);
}

int nvb__parse_duration(const char *s, uint64_t *ns)
{
    if (!s)
        return -EINVAL;
    uint64_t v, f, sc;
    int rc = parse_number(&s, &v, &f, &sc);
    if (rc)
        return rc;
    uint64_t mult;
    const char *u = s;
    if (!*u) mult = 1000000000ull;
    else if (!strcasecmp(u, "ns")) mult = 1;
    else if (!strcasecmp(u, "us")) mult = 1000ull;
    else if (!strcasecmp(u, "ms")) mult = 1000000ull;
    else if (!strcasecmp(u, "s")) mult = 1000000000ull;
    else if (!strcasecmp(u, "m") || !strcasecmp(u, "min")) mult = 60000000000ull;
    else if (!strcasecmp(u, "h")) mult = 3600000000000ull;
    else return -EINVAL;
    return scale(v, f, sc, mult, ns);
}

int nvb__parse_u64(const char *s, uint64_t *out)
{
    if (!s)
        return -EINVAL;
    uint64_t v, f, sc;
    int rc = parse_number(&s, &v, &f, &sc);
    if (rc)
        return rc;
    if (f || *skip_ws(s))
        return -EINVAL;
    *out = v;
    return 0;
}

int nvb__parse_i64(const char *s, int64_t *out)
{
    if (!s)
        return -EINVAL;
    s = skip_ws(s);
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    } else if (*s == '+') {
        s++;
    }
    uint64_t v;
    int rc = nvb__parse_u64(s, &v);
    if (rc)
        return rc;
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return -ERANGE;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int nvb__parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    if (!s)
        return -EINVAL;
    for (unsigned i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i])) { *out = 1; return 0; }
        if (!strcasecmp(s, no[i])) { *out = 0; return 0; }
    }
    return -EINVAL;
}

int nvb__parse_cpulist(const char *s, uint64_t *bits, unsigned nbits)
{
    if (!s || !*s)
        return -EINVAL;
    memset(bits, 0, (nbits + 63) / 64 * 8);
    while (*s) {
        char *end;
        if (!isdigit((unsigned char)*s))
            return -EINVAL;
        unsigned long a = strtoul(s, &end, 10), b = a;
        s = end;
        if (*s == '-') {
            s++;
            if (!isdigit((unsigned char)*s))
                return -EINVAL;
            b = strtoul(s, &end, 10);
            s = end;
        }
        if (b < a)
            return -EINVAL;
        if (b >= nbits)
            return -ERANGE;
        for (unsigned long c = a; c <= b; c++)
            bits[c / 64] |= 1ull << (c % 64);
        if (*s == ',')
            s++;
        else if (*s)
            return -EINVAL;
    }
    return 0;
}

/* A decimal number with an optional trailing '%' (*pct says whether it had
 * one): digits, '.', exponents only, no "nan", "inf" or hexadecimal that
 * strtod() would take. 0 or -EINVAL. */
static int parse_decimal(const char *s, double *out, int *pct)
{
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    *pct = len && s[len - 1] == '%';
    if (*pct)
        len--;
    if (len == 0 || len >= 64)
        return -EINVAL;
    char buf[64];
    memcpy(buf, s, len);
    buf[len] = 0;
    int digits = 0;
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (isdigit((unsigned char)c))
            digits = 1;
        else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-')
            return -EINVAL;
    }
    if (!digits || !(isdigit((unsigned char)buf[0]) || buf[0] == '.'))
        return -EINVAL;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || errno == ERANGE)
        return -EINVAL;
    *out = v;
    return 0;
}

/* A probability: "0.001", "1/1000", "0.1%", "1e-3". 0 or -EINVAL/-ERANGE
 * (outside [0, 1]). Digits, one '/', a trailing '%' and exponents only:
 * no "nan", "inf" or hexadecimal that strtod() would take. */
int nvb__parse_prob(const char *s, double *out)
{
    if (!s)
        return -EINVAL;
    s = skip_ws(s);
    const char *slash = strchr(s, '/');
    if (slash) {
        uint64_t a, b;
        char num[32];
        size_t n = (size_t)(slash - s);
        if (n == 0 || n >= sizeof num)
            return -EINVAL;
        memcpy(num, s, n);
        num[n] = 0;
        int rc = nvb__parse_u64(num, &a);
        if (!rc)
            rc = nvb__parse_u64(slash + 1, &b);
        if (rc)
            return rc;
        if (b == 0)
            return -EINVAL;
        if (a > b)
            return -ERANGE;
        *out = (double)a / (double)b;
        return 0;
    }
    int pct;
    double v;
    int rc = parse_decimal(s, &v, &pct);
    if (rc)
        return rc;
    if (pct)
        v /= 100.0;
    if (!(v >= 0.0 && v <= 1.0))
        return -ERANGE;
    *out = v;
    return 0;
}

/* A percentage: "20", "12.5", "20%" (the '%' is optional) -> 20, 12.5, 20.
 * 0 or -EINVAL/-ERANGE (outside [0, 100]). */
int nvb__parse_pct(const char *s, double *out)
{
    if (!s)
        return -EINVAL;
    int pct;
    double v;
    int rc = parse_decimal(skip_ws(s), &v, &pct);
    if (rc)
        return rc;
    if (!(v >= 0.0 && v <= 100.0))
        return -ERANGE;
    *out = v;
    return 0;
}

/* An errno by name ("EIO", "enospc") or number (1..255), also "E<number>",
 * the name results give an errno the C library has no name for. 0 or
 * -EINVAL (unknown name) / -ERANGE (number out of range). */
int nvb__parse_errno(const char *s, int *out)
{
    if (!s)
        return -EINVAL;
    uint64_t v;
    if (nvb__parse_u64(s, &v) == 0 || ((s[0] == 'E' || s[0] == 'e') && isdigit((unsigned char)s[1]) &&
                                       nvb__parse_u64(s + 1, &v) == 0)) {
        if (v < 1 || v >= NVB__ERRNO_SLOTS)
            return -ERANGE;
        *out = (int)v;
        return 0;
    }
    for (int e = 1; e < NVB__ERRNO_SLOTS; e++) {
        char nb[16];
        const char *n = nvb__errno_name(e, nb, sizeof nb);
        if (n[0] == 'E' && n != nb && !strcasecmp(n, s)) {
            *out = e;
            return 0;
        }
    }
    return -EINVAL;
}
