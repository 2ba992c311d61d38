/*
 * fiomap_val.c - fio's values as fio 3.33 reads them (sizes with its
 * kb_base rules, times, whole numbers, flags, per-direction lists, CPU
 * lists), and the messages of the mapping: an error naming the file, the
 * section and the option, or a lenient mapping's warning.
 */
#include "core/fiomap.h"
#include "util/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ messages */

void fm_escape(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (; *s && o + 5 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o] = 0;
}

/* Characters, not bytes: a UTF-8 continuation byte is part of the one
 * before it. */
static size_t chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

const char *fm_short(const char *text, size_t most, char *buf, size_t len)
{
    size_t n = strlen(text), total = chars(text, n);
    if (total <= most) {
        snprintf(buf, len, "%s", text);
        return buf;
    }
    size_t cut = 0;
    for (size_t c = 0; cut < n && c <= most; cut++)
        if ((((unsigned char)text[cut] & 0xC0) != 0x80) && ++c > most)
            break;
    snprintf(buf, len, "%.*s... (%zu characters)", (int)cut, text, total);
    return buf;
}

static void dropped_note(const struct fm_job *j, struct nvb__buf *b)
{
    const struct fm_list *d = &j->out.dropped;
    if (!d->n)
        return;
    nvb__buf_puts(b, " (left out of this job as not honoured: ");
    for (size_t i = 0; i < d->n; i++)
        nvb__buf_printf(b, "%s'%s'", i ? ", " : "", d->s[i]);
    nvb__buf_puts(b, ")");
}

int fm_err(struct fm_job *j, const char *opt, const char *fmt, ...)
{
    if (!j->why || !j->why_len || j->why[0])
        return -EINVAL;
    struct nvb__buf b = {0};
    va_list ap;
    char msg[1024];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nvb__buf_printf(&b, "%s: section [%s]: fio option '%s': %s", j->path, j->name, opt, msg);
    dropped_note(j, &b);
    if (b.s)
        fm_escape(b.s, j->why, j->why_len);
    free(b.s);
    return -EINVAL;
}

int fm_warn(struct fm_job *j, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fm_list_add(&j->out.warnings, msg);
}

int fm_refuse(struct fm_job *j, const char *opt, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!j->lenient)
        return fm_err(j, opt, "%s", msg);
    int rc = fm_warn(j, "fio job section [%s]: option '%s' not honoured: %s", j->name, opt, msg);
    for (size_t i = 0; rc == 0 && i < j->out.dropped.n; i++)
        if (strcmp(j->out.dropped.s[i], opt) == 0)
            return 1;
    return rc < 0 ? rc : (rc = fm_list_add(&j->out.dropped, opt)) < 0 ? rc : 1;
}

/* ------------------------------------------------------------------ options */

int fm_has(const struct fm_job *j, const char *name, const char **value)
{
    size_t n = nvb_fiojob_options(j->f, j->idx);
    for (size_t k = 0; k < n; k++) {
        const char *v, *key = nvb_fiojob_option(j->f, j->idx, k, &v);
        if (strcmp(key, name) == 0) {
            if (value)
                *value = v;
            return 1;
        }
    }
    if (value)
        *value = NULL;
    return 0;
}

const char *fm_val(const struct fm_job *j, const char *name)
{
    const char *v;
    return fm_has(j, name, &v) ? v : NULL;
}

static int is_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

int fm_whole(struct fm_job *j, const char *opt, const char *v, const char *what, uint64_t *out)
{
    char s[160];
    v = v ? v : "";
    if (!is_digits(v))
        return fm_err(j, opt, "'%s' is not %s (digits 0-9)", fm_short(v, 40, s, sizeof s), what);
    uint64_t x = 0;
    for (const char *p = v; *p; p++) {
        if (x > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10)
            return fm_err(j, opt, "'%s' is more than 2^63 - 1, the largest count nvbench takes",
                          fm_short(v, 40, s, sizeof s));
        x = x * 10 + (uint64_t)(*p - '0');
    }
    *out = x;
    return 0;
}

int fm_count(struct fm_job *j, const char *opt, uint64_t def, uint64_t *out)
{
    const char *v;
    if (!fm_has(j, opt, &v)) {
        *out = def;
        return 0;
    }
    return fm_whole(j, opt, v, "a whole number", out);
}

int fm_pct(const char *v)
{
    size_t n = v ? strspn(v, "0123456789") : 0;
    if (!n || n > 3 || strcmp(v + n, "%") != 0 || atoi(v) > 100)
        return -1;
    return atoi(v);
}

/* "Nz": N zones of zonesize, fio's unit with zonemode=zbd. */
static int zones_size(struct fm_job *j, const char *opt, const char *value, uint64_t *out)
{
    const char *mode = fm_val(j, "zonemode"), *zs = fm_val(j, "zonesize");
    char why[512];
    uint64_t z;
    if (!mode || strcmp(mode, "zbd") != 0 || !zs || (zs[0] && (zs[strlen(zs) - 1] | 0x20) == 'z'))
        return fm_err(j, opt, "'%s' counts zones: nvbench takes it with zonemode=zbd and a zonesize in bytes (it "
                              "emulates zones, so it cannot take a zoned device's own size as fio does)", value);
    if (nvb_fiomap_size(zs, j->kb_base, &z, why, sizeof why) < 0)
        return fm_err(j, "zonesize", "%s", why);
    uint64_t k = strtoull(value, NULL, 10);
    if (z && k > UINT64_MAX / z)
        return fm_err(j, opt, "'%s' zones of %llu bytes pass 2^64 bytes", value, (unsigned long long)z);
    *out = k * z;
    return 0;
}

int fm_size(struct fm_job *j, const char *opt, const char *value, uint64_t *out)
{
    char why[512];
    value = value ? value : fm_val(j, opt);
    size_t n = value ? strlen(value) : 0;
    if (n > 1 && (value[n - 1] | 0x20) == 'z' && strspn(value, "0123456789") == n - 1)
        return zones_size(j, opt, value, out);
    if (nvb_fiomap_size(value ? value : fm_val(j, opt), j->kb_base, out, why, sizeof why) < 0)
        return fm_err(j, opt, "%s", why);
    return 0;
}

int fm_time(struct fm_job *j, const char *opt, const char *unit, uint64_t *ns)
{
    char why[512];
    if (nvb_fiomap_time(fm_val(j, opt), unit, ns, why, sizeof why) < 0)
        return fm_err(j, opt, "%s", why);
    return 0;
}

static int caseeq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if ((*a | 0x20) != (*b | 0x20))
            return 0;
    return *a == *b;
}

static int truth(const char *v)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
    if (!v)
        return 1;
    for (int i = 0; i < 4; i++) {
        if (caseeq(v, yes[i]))
            return 1;
        if (caseeq(v, no[i]))
            return 0;
    }
    return -1;
}

int fm_flag(struct fm_job *j, const char *opt)
{
    const char *v;
    if (!fm_has(j, opt, &v))
        return 0;
    int t = truth(v);
    char s[160];
    return t >= 0 ? t : fm_err(j, opt, "'%s' is not a boolean (0 or 1)", fm_short(v, 40, s, sizeof s));
}

int fm_one_value(struct fm_job *j, const char *opt, char *buf, size_t len)
{
    const char *v = fm_val(j, opt);
    size_t distinct = 0;
    buf[0] = 0;
    for (const char *p = v ? v : ""; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *a = p, *b = p + n;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (b > a && (strlen(buf) != (size_t)(b - a) || memcmp(buf, a, (size_t)(b - a)) != 0)) {
            distinct++;
            if (distinct == 1)
                snprintf(buf, len, "%.*s", (int)(b - a), a);
        }
        p += n + (e != NULL);
    }
    if (distinct != 1)
        return fm_refuse(j, opt, "different values per direction (nvbench takes one for all)");
    return 0;
}

int fm_one_whole(struct fm_job *j, const char *opt, const char *what, uint64_t *out)
{
    char one[NVB_FIOJOB_MAX_LINE + 1];
    int rc = fm_one_value(j, opt, one, sizeof one);
    if (rc != 0)
        return rc;
    TRY(fm_whole(j, opt, one, what, out));
    return 0;
}

/* One number of a CPU list: digits, below FM_MAX_CPUS. */
static int cpu_num(struct fm_job *j, const char *opt, const char *a, size_t n, unsigned *out)
{
    char s[160], num[64];
    snprintf(num, sizeof num, "%.*s", (int)(n < 60 ? n : 60), a);
    if (n > 4 || (unsigned)atoi(num) >= FM_MAX_CPUS)
        return fm_err(j, opt, "CPU %s is beyond the %d CPUs nvbench can pin to (0-%d, its CPU set size)",
                      fm_short(num, 40, s, sizeof s), FM_MAX_CPUS, FM_MAX_CPUS - 1);
    *out = (unsigned)atoi(num);
    return 0;
}

int fm_cpu_count(struct fm_job *j, const char *opt, const char *v, unsigned *count)
{
    unsigned char set[FM_MAX_CPUS / 8] = {0};
    char s[160];
    *count = 0;
    for (const char *p = v;;) {
        const char *e = strchr(p, ',');
        const char *a = p, *b = e ? e : p + strlen(p);
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        size_t d1 = strspn(a, "0123456789");
        const char *dash = a + d1;
        size_t d2 = dash < b && *dash == '-' ? strspn(dash + 1, "0123456789") : 0;
        int range = dash < b && *dash == '-';
        if (!d1 || (range ? dash + 1 + d2 != b || !d2 : dash != b))
            return fm_err(j, opt, "'%s' is not a CPU list (0-3,6)", fm_short(v, 40, s, sizeof s));
        unsigned lo, hi;
        int rc = cpu_num(j, opt, a, d1, &lo);
        if (rc == 0)
            rc = range ? cpu_num(j, opt, dash + 1, d2, &hi) : (hi = lo, 0);
        if (rc < 0)
            return rc;
        if (lo > hi)
            return fm_err(j, opt, "'%.*s' is not a CPU range (the first CPU is the lower)", (int)(b - a), a);
        for (unsigned c = lo; c <= hi; c++)
            if (!(set[c / 8] & (1u << (c % 8)))) {
                set[c / 8] |= (unsigned char)(1u << (c % 8));
                ++*count;
            }
        if (!e)
            return 0;
        p = e + 1;
    }
}

const char *fm_fit_name(const char *text, const char *suffix, char *buf)
{
    size_t room = FM_NAME_MAX - strlen(suffix), n = strlen(text);
    if (n > room) {
        n = room;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) /* not inside a character */
            n--;
    }
    snprintf(buf, FM_NAME_MAX + 1, "%.*s%s", (int)n, text, suffix);
    return buf;
}

/* ------------------------------------------------------------------ sizes and times */

static int why_set(char *why, size_t why_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int why_set(char *why, size_t why_len, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

/* Lower-cased into buf, blanks at both ends dropped; 0 when too long. */
static int lower(const char *text, char *buf, size_t len)
{
    while (*text == ' ' || *text == '\t')
        text++;
    size_t n = strlen(text);
    while (n && (text[n - 1] == ' ' || text[n - 1] == '\t'))
        n--;
    if (n >= len)
        return 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)((text[i] >= 'A' && text[i] <= 'Z') ? text[i] | 0x20 : text[i]);
    buf[n] = 0;
    return 1;
}

int nvb_fiomap_size(const char *text, unsigned kb_base, uint64_t *bytes, char *why, size_t why_len)
{
    char s[NVB_FIOJOB_MAX_LINE + 1], q[160];
    text = text ? text : "";
    fm_short(text, 40, q, sizeof q);
    if (!lower(text, s, sizeof s))
        return why_set(why, why_len, "'%s' is not a size (a whole number with an optional k/m/g/t/p suffix)", q);
    int hex = s[0] == '0' && s[1] == 'x';
    const char *p = s + (hex ? 2 : 0), *digits = hex ? "0123456789abcdef" : "0123456789";
    size_t nd = strspn(p, digits);
    /* a hex number eats a 'b': 0x1b is 27; fio's "0x10b" is the same reading */
    const char *u = p + nd, *units = "kmgtp", *k = *u ? strchr(units, *u) : NULL;
    const char *tail = k ? u + 1 : u;
    int iec = strcmp(tail, "ib") == 0;
    int ok = nd && (!*tail || strcmp(tail, "b") == 0 || (k && (iec || strcmp(tail, "i") == 0)));
    if (!ok)
        return why_set(why, why_len, "'%s' is not a size (a whole number with an optional k/m/g/t/p suffix)", text);
    uint64_t v = 0;
    int big = 0;
    for (const char *d = p; d < u; d++) {
        unsigned x = (unsigned)(strchr(digits, *d) - digits), base = hex ? 16 : 10;
        big |= v > ((uint64_t)INT64_MAX - x) / base;
        v = big ? v : v * base + x;
    }
    unsigned mult = ((kb_base == 1000) == iec) ? 1024 : 1000;
    for (long i = k ? (long)(k - units) + 1 : 0; i > 0 && !big; i--) {
        big = v > (uint64_t)INT64_MAX / mult;
        v *= mult;
    }
    if (big)
        return why_set(why, why_len, "'%s' is more than 2^63 - 1 bytes, the largest size nvbench takes from a job file", q);
    *bytes = v;
    return 0;
}

static const struct { const char *name; uint64_t ns; } time_units[] = {
    {"d", 86400000000000ull}, {"h", 3600000000000ull}, {"m", 60000000000ull}, {"s", 1000000000ull},
    {"ms", 1000000ull}, {"msec", 1000000ull}, {"us", 1000ull}, {"usec", 1000ull}, {"ns", 1}, {"nsec", 1},
};

int nvb_fiomap_time(const char *text, const char *unit, uint64_t *ns, char *why, size_t why_len)
{
    char s[NVB_FIOJOB_MAX_LINE + 1], q[160];
    text = text ? text : "";
    fm_short(text, 40, q, sizeof q);
    int fits = lower(text, s, sizeof s);
    const char *p = s;
    size_t ni = fits ? strspn(p, "0123456789") : 0, nf = 0;
    if (fits && p[ni] == '.')
        nf = strspn(p + ni + 1, "0123456789");
    const char *suf = p + ni + (p[ni] == '.' ? 1 + nf : 0), *name = *suf ? suf : unit ? unit : "s";
    uint64_t mult = 0;
    for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
        if (strcmp(name, time_units[i].name) == 0)
            mult = time_units[i].ns;
    if (fits && (!(ni || nf) || !mult))
        return why_set(why, why_len, "'%s' is not a time (a number with an optional d/h/m/s/ms/us/ns suffix)", q);
    /* whole part exact; the fraction (18 digits at most) rounded to the ns */
    uint64_t v = 0, f = 0, sc = 1;
    int big = !fits;
    for (size_t i = 0; i < ni && !big; i++) {
        big = v > (UINT64_MAX - 9) / 10;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    for (size_t i = 0; i < nf && i < 18; i++, sc *= 10)
        f = f * 10 + (uint64_t)(p[ni + 1 + i] - '0');
    big = big || v > (uint64_t)INT64_MAX / mult;
    unsigned __int128 fr = (unsigned __int128)f * mult + sc / 2;
    uint64_t add = big ? 0 : nvb__div128((uint64_t)(fr >> 64), (uint64_t)fr, sc, NULL);
    if (big || v * mult > (uint64_t)INT64_MAX - add)
        return why_set(why, why_len, "'%s' is longer than 2^63 - 1 ns (292 years), the longest time nvbench takes", q);
    *ns = v * mult + add;
    return 0;
}
