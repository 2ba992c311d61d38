/*
 * example_print: messages to a terminal with what a terminal would obey
 * shown escaped. Paths, backing-file names, device models and host names
 * in the library's messages are anyone's bytes: an ESC or CSI sequence in
 * a file name would clear the screen or rewrite what was printed before,
 * a bidirectional override reorder what the reader sees. The characters
 * are those the Python CLI escapes (nvbench/_printable.py), written the
 * same way (\x1b, \x9b, \u202e); bytes that are not UTF-8 are shown as
 * \xNN too. Included by run_workload.c, seed_matrix.c and mpi_run.c, each
 * still one file to build.
 */
#ifndef EXAMPLE_PRINT_H
#define EXAMPLE_PRINT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define EXAMPLE_MAYBE_UNUSED __attribute__((unused))
#ifdef __MINGW_PRINTF_FORMAT /* mingw: the format its own stdio declares (%zu with its C99 stdio) */
#define EXAMPLE_PRINTF(f, a) __attribute__((format(__MINGW_PRINTF_FORMAT, f, a)))
#else
#define EXAMPLE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif
#else
#define EXAMPLE_MAYBE_UNUSED
#define EXAMPLE_PRINTF(f, a)
#endif

/* The UTF-8 sequence at s (n bytes available): its code point and length,
 * or length 0 when it is not well-formed. */
static size_t example_utf8(const unsigned char *s, size_t n, unsigned *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t len = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    unsigned c = s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)))
        return 0; /* overlong, or beyond Unicode */
    *cp = c;
    return len;
}

static int example_unsafe(unsigned c)
{
    return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0) /* C0, DEL, C1 (0x9b is CSI) */
           || c == 0x061C || c == 0x200E || c == 0x200F       /* bidirectional marks */
           || (c >= 0x202A && c <= 0x202E)                    /* embeddings and overrides */
           || (c >= 0x2066 && c <= 0x2069)                    /* isolates */
           || c == 0x2028 || c == 0x2029                      /* line and paragraph separators */
           || (c >= 0xD800 && c < 0xE000);                    /* surrogates, never valid UTF-8 */
}

/* s to f with the unsafe characters escaped. */
static void example_fputs_printable(const char *s, FILE *f)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n) {
        unsigned c;
        size_t len = example_utf8(p, n, &c);
        if (!len)
            fprintf(f, "\\x%02x", p[0]); /* not UTF-8: the byte */
        else if (!example_unsafe(c))
            fwrite(p, 1, len, f);
        else if (c < 0x100)
            fprintf(f, "\\x%02x", c);
        else
            fprintf(f, "\\u%04x", c);
        len = len ? len : 1;
        p += len;
        n -= len;
    }
}

/* fprintf(f, fmt, ...) with the whole text shown escaped, but for one
 * newline at its end (the format's own). */
static void example_fprintf(FILE *f, const char *fmt, ...) EXAMPLE_PRINTF(2, 3);
static void example_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *text = malloc((size_t)n + 1);
    if (!text)
        return;
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int nl = n > 0 && text[n - 1] == '\n';
    if (nl)
        text[n - 1] = 0;
    example_fputs_printable(text, f);
    if (nl)
        fputc('\n', f);
    free(text);
}

/* perror(s), with s shown escaped (a path, usually). */
EXAMPLE_MAYBE_UNUSED static void example_perror(const char *s)
{
    const char *why = strerror(errno);
    example_fprintf(stderr, "%s: %s\n", s, why);
}

#endif
