/*
 * A small strict JSON reader (internal): RFC 8259 text into a tree of
 * values, for nvb_result_from_json(). Results travel between processes and
 * hosts (MPI ranks send theirs to rank 0 as JSON), so the input is treated
 * as hostile: every byte is checked, nesting is bounded, nothing is read
 * past the given length, and any departure from the grammar is refused with
 * a message that says where. Numbers keep their text, so 64-bit counters
 * convert exactly and a value written back is the value that was read.
 */
#ifndef NVB_UTIL_JSON_H
#define NVB_UTIL_JSON_H

#include <stddef.h>
#include <stdint.h>

struct nvb__buf;

enum nvb__jtype { NVB__J_NULL = 0, NVB__J_FALSE, NVB__J_TRUE, NVB__J_NUM, NVB__J_STR, NVB__J_ARR, NVB__J_OBJ };

/* Deepest nesting accepted (objects and arrays). */
#define NVB__JSON_MAX_DEPTH 64

/* A parsed tree is one allocation: the nodes (each container's children
 * side by side) and then every string and number, unescaped, NUL-terminated.
 * Its size is known before it is made: a first pass checks the text and
 * counts, a second one fills. So a hostile text costs at most about
 * sizeof(struct nvb__jv) / 2 + 1 bytes per byte of input (a flat [0,0,...]),
 * and nothing grows by doubling or allocates per value. Such a tree is
 * read-only: nvb__json_copy() makes one whose nodes are each their own
 * allocations, which may be edited and freed piece by piece. */
struct nvb__jv {
    uint8_t  type;
    uint8_t  pooled;      /* 1: part of a parsed tree's single allocation */
    uint32_t n;           /* children of an array or object */
    char    *key;         /* member name when inside an object, else NULL */
    union {
        char *s;          /* NVB__J_STR: the unescaped UTF-8 (no NUL inside);
                           * NVB__J_NUM: the number as written */
        struct nvb__jv *kid; /* NVB__J_ARR, NVB__J_OBJ: n children, in document order */
    };
};

/* Parse len bytes of text. On success *out is a tree the caller frees with
 * nvb__json_free(). Returns 0, -EINVAL (malformed: why says what and at which
 * byte offset; also more than UINT32_MAX members in one container),
 * -ENOMEM. Duplicate member names in one object are refused. */
int nvb__json_parse(const char *text, size_t len, struct nvb__jv **out, char *why, size_t why_len);
/* The root of a parsed tree, or one made by calloc() + nvb__json_copy(). */
void nvb__json_free(struct nvb__jv *v);
/* Free what v holds, not v itself (for children stored by value); only for
 * nodes made by nvb__json_copy() (a parsed tree's nodes are left as they are). */
void nvb__json_clear(struct nvb__jv *v);
/* Deep copy into *dst (whose old content is not freed), each node its own
 * allocation. 0 or -ENOMEM. */
int nvb__json_copy(struct nvb__jv *dst, const struct nvb__jv *src);

/* Member `key` of an object, or NULL (also when obj is not an object). */
const struct nvb__jv *nvb__json_get(const struct nvb__jv *obj, const char *key);

/* Conversions of a number: 0, or -EINVAL when v is not a number of that
 * kind (u64: a non-negative integer written without fraction or exponent
 * that fits; dbl: any number, converted independently of the C locale;
 * finite results only). */
int nvb__json_u64(const struct nvb__jv *v, uint64_t *out);
int nvb__json_dbl(const struct nvb__jv *v, double *out);
/* Member name of parent in the form {"available": true|false, "reason":
 * ...}: 0 when absent or null; 1 when not available, *reason its string
 * (NULL when none); 2 when available, *obj the object; -EINVAL (why says
 * so) when it is not such an object. */
int nvb__json_available(const struct nvb__jv *parent, const char *name, const struct nvb__jv **obj,
                        const char **reason, char *why, size_t whylen);

/* Write v as compact JSON (the emitter's own style: no spaces; '"', '\\'
 * and control characters escaped, other UTF-8 as is). */
void nvb__json_write(const struct nvb__jv *v, struct nvb__buf *b);
/* A string as a JSON string literal, in the same style. Every JSON string
 * the library writes goes through here, so the output is always valid UTF-8:
 * each byte of s that does not belong to a well-formed UTF-8 sequence
 * (stray continuation bytes, overlong forms, surrogates, code points above
 * U+10FFFF, sequences cut short) is written as \ufffd. */
void nvb__json_write_str(struct nvb__buf *b, const char *s);
/* A number as the result writer prints a derived figure: null when not
 * finite, an integer without a fraction below 9e15, else 10 significant
 * digits. */
void nvb__json_write_num(struct nvb__buf *b, double v);
/* Whether s is well-formed UTF-8 in the sense above (what
 * nvb__json_write_str() writes unchanged). */
int nvb__utf8_valid(const char *s);

#endif
