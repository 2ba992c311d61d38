/*
 * Small utilities (util.c) any layer may use: a growable string buffer,
 * strdup, errno names. Includes nothing of the library, so that devices/
 * and platform/ can use them without seeing core's run and result types.
 */
#ifndef NVB_UTIL_UTIL_H
#define NVB_UTIL_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* -ESTALE (a target changed between planning and opening) has Linux's
 * number everywhere; mingw's C runtime lacks it. */
#ifndef ESTALE
#define ESTALE 116
#endif

struct nvb__buf {
    char  *s;
    size_t len, cap;
    int    oom;      /* sticky: an append failed */
};
void nvb__buf_putn(struct nvb__buf *b, const char *s, size_t n);
void nvb__buf_puts(struct nvb__buf *b, const char *s);
void nvb__buf_printf(struct nvb__buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands b's text to *out (the caller frees it): 0, or -ENOMEM with the
 * text freed when an append failed or nothing was written. */
int nvb__buf_take(struct nvb__buf *b, char **out);
char *nvb__strdup(const char *s);
/* Room for element n of the array *(T **)arr of *cap elements of elem bytes:
 * the array doubles (from first elements) when n == *cap. 0, or -ENOMEM with
 * the array as it was. */
int nvb__grow(void *arr, size_t *cap, size_t n, size_t elem, size_t first);
/* Two zeroed arrays of n elements of sa and sb bytes into *a and *b: 0, or
 * -ENOMEM with both NULL and nothing left allocated. */
int nvb__calloc2(size_t n, size_t sa, size_t sb, void **a, void **b);
/* "EIO" for 5; "E<n>" for unknown ones (into buf). */
const char *nvb__errno_name(int e, char *buf, size_t len);
/* A size the way workloads write it: the largest binary unit that divides
 * it exactly ("4k", "1M", "1536", "3G"), into buf; returns buf. */
const char *nvb__fmt_size(uint64_t v, char *buf, size_t len);

/* Unsigned integers wider than 64 bits (the latency histogram's exact sums)
 * as n 64-bit words, least significant first, n at most 4. Nothing here
 * leaves 128-bit division or conversion to the compiler: its helpers live
 * in libgcc_s, which a DLL built with mingw would then import. */
/* (hi 2^64 + lo) / d, for hi < d (the quotient fits 64 bits); the
 * remainder in *rem unless rem is NULL. */
uint64_t nvb__div128(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem);
/* hi 2^64 + lo as the nearest double. */
double nvb__u128_double(uint64_t hi, uint64_t lo);
static inline double nvb__u128d(unsigned __int128 x) { return nvb__u128_double((uint64_t)(x >> 64), (uint64_t)x); }
/* Decimal digits (nothing else, at least one) into w: 0, -EINVAL (not
 * digits), -ERANGE (does not fit in n words). */
int nvb__wide_from_dec(const char *s, uint64_t *w, unsigned n);
/* w in decimal into buf (at least 20 * n bytes for any value); returns buf. */
const char *nvb__wide_to_dec(const uint64_t *w, unsigned n, char *buf, size_t len);

/* For "did you mean": the candidate closest to word by edit distance
 * (insertions, deletions, substitutions, adjacent transpositions), when it
 * is close enough to be a slip (at most 2 edits, and fewer than half of
 * word's length); NULL otherwise. A candidate is offered by next(i, arg)
 * for i = 0, 1, ... until it returns NULL. */
const char *nvb__closest(const char *word, const char *(*next)(size_t i, void *arg), void *arg);

/* The message fmt into why (len bytes, NUL-terminated; nothing when why is
 * NULL or len 0), and rc back: the refusal of a call that says why. */
int nvb__say(char *why, size_t len, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
