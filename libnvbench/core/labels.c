/*
 * The labels the bindings put on a run (nvbench/value.h): the direction of
 * its rw mode and its sizes as text, so Python and Lua label alike.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "nvbench.h"
#include "util/util.h"

/* nvbench's rw modes and fio's spellings of the mixed ones (a fio result's rw). */
static const struct {
    const char *rw, *op;
} rw_ops[] = {
    {"read", "read"},   {"randread", "read"},     {"write", "write"},        {"randwrite", "write"},
    {"trim", "trim"},   {"randtrim", "trim"},     {"rw", "mixed"},           {"randrw", "mixed"},
    {"readwrite", "mixed"}, {"trimwrite", "mixed"}, {"randtrimwrite", "mixed"},
};

NVB_API const char *nvb_rw_op(const char *rw)
{
    for (size_t i = 0; rw && i < sizeof rw_ops / sizeof rw_ops[0]; i++)
        if (!strcasecmp(rw, rw_ops[i].rw))
            return rw_ops[i].op;
    return NULL;
}

NVB_API int nvb_size_format(uint64_t bytes, char *buf, size_t len)
{
    if (!buf && len)
        return -EINVAL;
    char text[32];
    nvb__fmt_size(bytes, text, sizeof text);
    size_t n = strlen(text);
    if (len) {
        size_t k = n < len ? n : len - 1;
        memcpy(buf, text, k);
        buf[k] = 0;
    }
    return n < len ? (int)n : -ENOSPC;
}
