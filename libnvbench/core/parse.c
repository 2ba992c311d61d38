/* Parsers for workload values. Strict: the whole string must be consumed. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
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

/* A non-negative decimal number with an optional fraction, kept as the
 * integer v and the fraction f / sc (sc a power of ten up to 10^18,
 * trailing zeros dropped) so "1.5G" and "0.001" are exact: no binary
 * floating point between the text and the integer. lost: a non-zero digit
 * past the 18th of the fraction was dropped. */
struct num {
    uint64_t v, f, sc;
    int lost;
};

#define FRAC_SCALE_MAX 1000000000000000000ull /* 10^18 */

/* Parses one at *sp (NULL: -EINVAL) and moves *sp past it. */
static int parse_number(const char **sp, struct num *n)
{
    if (!*sp)
        return -EINVAL;
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
    int lost = 0;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s))
            return -EINVAL;
        while (isdigit((unsigned char)*s)) {
            if (sc < FRAC_SCALE_MAX) {
                f = f * 10 + (uint64_t)(*s - '0');
                sc *= 10;
            } else if (*s != '0') {
                lost = 1;
            }
            s++;
        }
        while (sc > 1 && f % 10 == 0) {
            f /= 10;
            sc /= 10;
        }
    }
    n->v = v;
    n->f = f;
    n->sc = sc;
    n->lost = lost;
    *sp = s;
    return 0;
}

/* n * mult in integer arithmetic, checking overflow. The fraction's part
 * is f * mult / sc, exact in 128 bits (f < sc <= 10^18, mult < 2^61).
 * exact: a value that is not a whole number of units (of what mult is
 * counted in) is -EDOM; otherwise it rounds down. */
static int scale(const struct num *n, uint64_t mult, int exact, uint64_t *out)
{
    if (mult && n->v > UINT64_MAX / mult)
        return -ERANGE;
    uint64_t r = n->v * mult;
    unsigned __int128 p = (unsigned __int128)n->f * mult;
    uint64_t rem; /* p < sc 2^61: the quotient fits 64 bits (no 128-bit division: libgcc_s on mingw) */
    uint64_t add = nvb__div128((uint64_t)(p >> 64), (uint64_t)p, n->sc, &rem);
    if (exact && (rem || n->lost))
        return -EDOM;
    if (r > UINT64_MAX - add)
        return -ERANGE;
    *out = r + add;
    return 0;
}

/* Size units: the letter at index i stands for 1024^i bytes; after any
 * but b, an optional "i" and an optional "b" (k, kb, kib, KiB). */
static const char size_units[] = "bkmgtp";

int nvb__parse_size(const char *s, uint64_t *out)
{
    struct num n;
    int rc = parse_number(&s, &n);
    if (rc)
        return rc;
    uint64_t mult = 1;
    if (*s) {
        const char *u = strchr(size_units, tolower((unsigned char)*s++));
        if (!u)
            return -EINVAL;
        mult = 1ull << (10 * (u - size_units));
    }
    if (mult > 1) {
        if (tolower((unsigned char)*s) == 'i')
            s++;
        if (tolower((unsigned char)*s) == 'b')
            s++;
    }
    s = skip_ws(s);
    if (*s)
        return -EINVAL;
    if ((n.f || n.lost) && mult == 1)
        return -EINVAL; /* fractional bytes */
    return scale(&n, mult, 0, out);
}

/* Duration units, in any case; a bare number is seconds. */
static const struct {
    const char *name;
    uint64_t ns;
} duration_units[] = {
    {"", 1000000000ull}, {"ns", 1}, {"us", 1000ull}, {"ms", 1000000ull}, {"s", 1000000000ull},
    {"m", 60000000000ull}, {"min", 60000000000ull}, {"h", 3600000000000ull},
};

/* A duration written with a decimal exponent ("5e-06s", as JSON writers
 * print small numbers), rewritten as the plain decimal it denotes ("0.000005s")
 * into buf, so it stays exact: s itself when it has no exponent, NULL when
 * the rewrite does not fit (an exponent beyond +-40 or a long mantissa). */
static const char *plain_decimal(const char *s, char *buf, size_t len)
{
    if (!s)
        return s; /* refused by parse_number */
    const char *q = skip_ws(s);
    while (isdigit((unsigned char)*q) || *q == '.')
        q++;
    if (*q != 'e' && *q != 'E')
        return s; /* no exponent: parsed as it is (or refused by the caller) */
    const char *e = q + 1;
    int neg = *e == '-';
    if (*e == '+' || *e == '-')
        e++;
    if (!isdigit((unsigned char)*e))
        return s;
    char digits[48];
    size_t nd = 0;
    long point = -1;
    for (const char *p = skip_ws(s); p < q; p++) {
        if (*p == '.' && point < 0)
            point = (long)nd;
        else if (*p == '.' || nd + 1 >= sizeof digits)
            return NULL;
        else
            digits[nd++] = *p;
    }
    if (!nd)
        return NULL;
    long x = 0;
    for (; isdigit((unsigned char)*e); e++)
        if ((x = x * 10 + (*e - '0')) > 40)
            return NULL;
    long at = (point < 0 ? (long)nd : point) + (neg ? -x : x); /* the point's new place */
    size_t o = 0;
    char out[128];
    if (at <= 0) {
        o += (size_t)snprintf(out, sizeof out, "0.%.*s%.*s", (int)-at, "0000000000000000000000000000000000000000",
                              (int)nd, digits);
    } else if ((size_t)at >= nd) {
        o += (size_t)snprintf(out, sizeof out, "%.*s%.*s", (int)nd, digits, (int)(at - (long)nd),
                              "0000000000000000000000000000000000000000");
    } else {
        o += (size_t)snprintf(out, sizeof out, "%.*s.%.*s", (int)at, digits, (int)((long)nd - at), digits + at);
    }
    if (o >= sizeof out || (size_t)snprintf(buf, len, "%s%s", out, e) >= len)
        return NULL;
    return buf;
}

int nvb__parse_duration(const char *s, uint64_t *ns)
{
    char buf[160];
    const char *t = plain_decimal(s, buf, sizeof buf);
    if (s && !t)
        return -ERANGE;
    s = t;
    struct num n;
    int rc = parse_number(&s, &n);
    if (rc)
        return rc;
    for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++)
        if (!strcasecmp(s, duration_units[i].name))
            return scale(&n, duration_units[i].ns, 1, ns);
    return -EINVAL;
}

/* A duration whose bare number is microseconds (fio's thinktime), any
 * unit of nvb__parse_duration otherwise. */
int nvb__parse_usec(const char *s, uint64_t *ns)
{
    char buf[160];
    const char *t = plain_decimal(s, buf, sizeof buf);
    if (s && !t)
        return -ERANGE;
    const char *q = s = t;
    struct num n;
    int rc = parse_number(&q, &n);
    if (rc)
        return rc;
    return *skip_ws(q) ? nvb__parse_duration(s, ns) : scale(&n, 1000ull, 1, ns);
}

int nvb__parse_u64(const char *s, uint64_t *out)
{
    struct num n;
    int rc = parse_number(&s, &n);
    if (rc)
        return rc;
    if (n.f || n.lost || *skip_ws(s))
        return -EINVAL;
    *out = n.v;
    return 0;
}

/* A number with an optional sign: its magnitude by parse, no more than
 * max (max + 1 when negative, if neg_extra), *neg set. */
static int parse_signed(const char *s, int (*parse)(const char *, uint64_t *), uint64_t max, int neg_extra, int *neg,
                        uint64_t *mag)
{
    s = s ? skip_ws(s) : NULL; /* the parsers refuse NULL */
    *neg = s && *s == '-';
    if (s && (*s == '-' || *s == '+'))
        s++;
    int rc = parse(s, mag);
    if (rc)
        return rc;
    return *mag > max + (uint64_t)(*neg && neg_extra) ? -ERANGE : 0;
}

/* A size with an optional sign, at most 2^62 bytes either way. */
int nvb__parse_ssize(const char *s, uint64_t *out)
{
    int neg;
    uint64_t v;
    int rc = parse_signed(s, nvb__parse_size, 1ull << 62, 0, &neg, &v);
    if (!rc)
        *out = neg ? 0 - v : v;
    return rc;
}

int nvb__parse_i64(const char *s, int64_t *out)
{
    int neg;
    uint64_t v;
    int rc = parse_signed(s, nvb__parse_u64, (uint64_t)INT64_MAX, 1, &neg, &v);
    if (!rc)
        *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return rc;
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

static int decimal_within(const char *s, int percent_scales, double max, double *out);

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
    return decimal_within(s, 1, 1.0, out);
}

/* A decimal with an optional '%' in [0, max]: a trailing '%' divides by
 * 100 when percent_scales (probabilities), and is only decoration
 * otherwise (percentages). 0 or -EINVAL/-ERANGE. */
static int decimal_within(const char *s, int percent_scales, double max, double *out)
{
    int pct;
    double v;
    int rc = parse_decimal(s, &v, &pct);
    if (rc)
        return rc;
    if (pct && percent_scales)
        v /= 100.0;
    if (!(v >= 0.0 && v <= max))
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
    return decimal_within(skip_ws(s), 0, 100.0, out);
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
