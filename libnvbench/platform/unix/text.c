/* Small text files of procfs and sysfs (the run's environment, core/explain_env.c),
 * live or from a recorded tree. */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int nvb__text_read(const char *root, const char *rel, char *buf, size_t len)
{
    char path[4096];
    if (!len)
        return -EINVAL;
    buf[0] = 0;
    snprintf(path, sizeof path, "%s%s", root ? root : "", rel);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t got = 0;
    while (got < len - 1) {
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            buf[0] = 0;
            return -e;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = 0;
    while (got && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
        buf[--got] = 0;
    return (int)got;
}

const char *nvb__procfs_unavailable(const char *what)
{
    (void)what;
    return NULL; /* procfs and sysfs are here */
}

void nvb__os_facts(nvb__os_fact_fn fn, void *arg)
{
    (void)fn, (void)arg; /* Linux's facts are files: core/explain_env.c reads them */
}

int nvb__link_base(const char *root, const char *rel, char *out, size_t len)
{
    char path[4096], link[4096];
    if (!len)
        return -EINVAL;
    out[0] = 0;
    snprintf(path, sizeof path, "%s%s", root ? root : "", rel);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n < 0)
        return -errno;
    link[n] = 0;
    const char *b = strrchr(link, '/');
    snprintf(out, len, "%s", b ? b + 1 : link);
    return 0;
}
