/* Device utilisation is not measured on Windows yet (core/diskutil.c). */
#include "platform/platform.h"

#include <errno.h>
#include <stdio.h>

int nvb__disk_io_ticks(const char *path, char *name, size_t namelen, uint64_t *ticks_ms, char *why, size_t whylen)
{
    (void)path;
    (void)ticks_ms;
    if (namelen)
        name[0] = 0;
    snprintf(why, whylen, "not measured on Windows");
    return -ENOTSUP;
}
