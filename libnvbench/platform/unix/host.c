/* The machine's name, for results that are merged across hosts. */
#include "platform/platform.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int nvb__hostname(char *buf, size_t len)
{
    if (!buf || !len)
        return -EINVAL;
    buf[0] = 0;
    char name[256];
    /* POSIX leaves a truncated name unterminated: terminate it ourselves. */
    if (gethostname(name, sizeof name - 1) < 0)
        return -errno;
    name[sizeof name - 1] = 0;
    size_t n = strlen(name);
    if (n >= len)
        n = len - 1;
    memcpy(buf, name, n);
    buf[n] = 0;
    return 0;
}
