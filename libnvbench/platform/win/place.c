/* Thread placement is read from Linux's /proc: not on Windows yet
 * (core/explain_place.c says so in the result). */
#include "platform/platform.h"

#include <errno.h>

int nvb__thread_places(const char *prefix, struct nvb__thread_place *out, int max)
{
    (void)prefix;
    (void)out;
    (void)max;
    return -ENOTSUP;
}

int nvb__affinity_list(char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
    return -ENOTSUP;
}
