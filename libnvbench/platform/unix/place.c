/* Where this process's threads ran: the CPU each last ran on (proc(5)
 * stat field 39) and the CPUs the process may run on (core/explain_place.c). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "platform/platform.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scheduler's count of the thread's moves between CPUs, from its
 * sched file (kernels with CONFIG_SCHED_DEBUG); -1 where absent. */
static long migrations(const char *tid)
{
    char rel[96], text[4096];
    snprintf(rel, sizeof rel, "/proc/self/task/%s/sched", tid);
    if (nvb__text_read(NULL, rel, text, sizeof text) < 0)
        return -1;
    const char *k = strstr(text, "se.nr_migrations");
    const char *colon = k ? strchr(k, ':') : NULL;
    return colon ? strtol(colon + 1, NULL, 10) : -1;
}

int nvb__thread_places(const char *prefix, struct nvb__thread_place *out, int max)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return errno == ENOENT ? -ENOTSUP : -errno;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char rel[96], line[1024];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(rel, sizeof rel, "/proc/self/task/%s/stat", e->d_name);
        if (nvb__text_read(NULL, rel, line, sizeof line) < 0)
            continue; /* it exited meanwhile */
        const char *lp = strchr(line, '('), *rp = strrchr(line, ')');
        if (!lp || !rp || rp < lp)
            continue;
        struct nvb__thread_place *t = &out[n];
        snprintf(t->name, sizeof t->name, "%.*s", (int)(rp - lp - 1), lp + 1);
        if (prefix && strncmp(t->name, prefix, strlen(prefix)))
            continue;
        /* after ") ": field 3 is the state; the CPU is field 39 */
        const char *p = rp + 2;
        for (int f = 3; f < 39 && p; f++) {
            p = strchr(p, ' ');
            if (p)
                p++;
        }
        if (!p)
            continue;
        t->tid = strtol(e->d_name, NULL, 10);
        t->cpu = atoi(p);
        t->migrations = migrations(e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

int nvb__affinity_list(char *buf, size_t len)
{
    cpu_set_t set;
    if (!len)
        return -EINVAL;
    buf[0] = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -errno;
    size_t o = 0;
    for (int c = 0; c < CPU_SETSIZE && o + 16 < len; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
            e++;
        o += (size_t)snprintf(buf + o, len - o, o ? ",%d" : "%d", c);
        if (e > c)
            o += (size_t)snprintf(buf + o, len - o, "-%d", e);
        c = e;
    }
    return 0;
}
