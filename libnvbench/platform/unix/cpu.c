/*
 * CPU accounting sources (Linux): /proc/stat for the whole machine,
 * getrusage for the process, /proc/self/task for each thread.
 */
#include "platform/platform.h"
#include "platform/common.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#define NS_PER_SEC UINT64_C(1000000000)

/* /proc reports CPU time in USER_HZ ticks (almost always 100). */
static uint64_t ticks_hz(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? (uint64_t)hz : 100;
}

/* Split so that ticks * 1e9 cannot overflow (it would after ~5 years of
 * summed CPU time at 100 Hz, which a 256-CPU machine reaches in a week). */
static uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz)
{
    return ticks / hz * NS_PER_SEC + ticks % hz * NS_PER_SEC / hz;
}

static uint64_t tv_ns(const struct timeval *tv)
{
    return (uint64_t)tv->tv_sec * NS_PER_SEC + (uint64_t)tv->tv_usec * 1000u;
}

/* Reads a whole (small, pseudo-) file into a NUL-terminated buffer;
 * /proc files report size 0, so grow until read() returns 0. Returns the
 * length or -errno. */
static ssize_t read_all(const char *path, char **out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t cap = 8192, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return -ENOMEM;
    }
    for (;;) {
        if (cap - len < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                return -ENOMEM;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            close(fd);
            return -e;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    *out = buf;
    return (ssize_t)len;
}

/* Parses up to 10 tick counters after a "cpu" / "cpuN" label. Kernels
 * before 2.6.33 print fewer columns (no guest_nice, and older still no
 * steal/guest); missing ones stay 0. Note that guest and guest_nice are
 * already included in user and nice: the consumer must not add them again. */
static void parse_cpu_fields(const char *p, uint64_t hz, struct nvb__cpu_times *t)
{
    uint64_t *f[10] = { &t->user, &t->nice, &t->system, &t->idle, &t->iowait,
                        &t->irq, &t->softirq, &t->steal, &t->guest, &t->guest_nice };
    memset(t, 0, sizeof(*t));
    for (int i = 0; i < 10; i++) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!isdigit((unsigned char)*p))
            break;
        char *end;
        uint64_t v = strtoull(p, &end, 10);
        *f[i] = ticks_to_ns(v, hz);
        p = end;
    }
}

/* The parsing half of the sampler, on any /proc/stat text (tests feed it
 * recorded ones). buf is modified (lines are cut at their newline). */
static int sys_stat_parse(char *buf, uint64_t hz, struct nvb__sys_sample *s)
{
    memset(s, 0, sizeof(*s));
    if (!hz)
        return -EINVAL;
    /* The cpu lines come first; count rows before allocating. */
    int rows = 0, have_total = 0;
    for (char *line = buf; line && strncmp(line, "cpu", 3) == 0;) {
        if (isdigit((unsigned char)line[3]))
            rows++;
        else
            have_total = 1;
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    if (!have_total)
        return -EIO;
    s->cpu = calloc(rows ? (size_t)rows : 1, sizeof(*s->cpu));
    s->cpu_id = calloc(rows ? (size_t)rows : 1, sizeof(*s->cpu_id));
    if (!s->cpu || !s->cpu_id) {
        nvb__sys_sample_free(s);
        return -ENOMEM;
    }
    int r = 0;
    for (char *line = buf; line && strncmp(line, "cpu", 3) == 0;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (isdigit((unsigned char)line[3])) {
            char *end;
            long id = strtol(line + 3, &end, 10);
            if (r < rows) {
                s->cpu_id[r] = (int)id;
                parse_cpu_fields(end, hz, &s->cpu[r]);
                r++;
            }
        } else {
            parse_cpu_fields(line + 3, hz, &s->total);
        }
        line = nl ? nl + 1 : NULL;
    }
    s->ncpu = r;
    s->tick_ns = NS_PER_SEC / hz;
    return 0;
}

/* root: a recorded tree (root/proc/stat, read at USER_HZ 100, the value
 * of every kernel's /proc), or NULL for the live system. */
int nvb__sys_sample_at(const char *root, struct nvb__sys_sample *s)
{
    memset(s, 0, sizeof(*s));
    char path[4096];
    snprintf(path, sizeof path, "%s/proc/stat", root ? root : "");
    char *buf;
    ssize_t len = read_all(path, &buf);
    if (len < 0)
        return len == -ENOENT ? -ENOTSUP : (int)len;
    int rc = sys_stat_parse(buf, root ? 100 : ticks_hz(), s);
    free(buf);
    return rc;
}

int nvb__sys_sample(struct nvb__sys_sample *s) { return nvb__sys_sample_at(NULL, s); }

/* RUSAGE_SELF covers every thread of the process, including io_uring's
 * io-wq and SQPOLL workers: they are threads of this process to the kernel,
 * so the CPU a run spends inside the kernel on our behalf is not lost. */
int nvb__proc_sample(struct nvb__proc_sample *p)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -errno;
    p->user_ns = tv_ns(&ru.ru_utime);
    p->sys_ns = tv_ns(&ru.ru_stime);
    p->minflt = ru.ru_minflt;
    p->majflt = ru.ru_majflt;
    p->nvcsw = ru.ru_nvcsw;
    p->nivcsw = ru.ru_nivcsw;
    p->maxrss_kib = ru.ru_maxrss; /* Linux reports KiB */
    return 0;
}

/* Fills name, user_ns and sys_ns from a /proc/.../stat line. The comm
 * field is "(name)" but the name itself may contain spaces and ')' (it is
 * whatever the thread set), so the fixed fields start after the LAST ')'. */
static int parse_task_stat(const char *line, uint64_t hz, struct nvb__thread_cpu *tc)
{
    const char *lp = strchr(line, '(');
    const char *rp = strrchr(line, ')');
    if (!lp || !rp || rp < lp)
        return -EIO;
    size_t n = (size_t)(rp - lp - 1);
    if (n > sizeof(tc->name) - 1)
        n = sizeof(tc->name) - 1;
    memcpy(tc->name, lp + 1, n);
    tc->name[n] = '\0';

    /* After ") " come field 3 (state) onward; utime and stime are fields
     * 14 and 15 (proc(5)), i.e. the 12th and 13th tokens here. */
    const char *p = rp + 1;
    uint64_t v[13];
    for (int i = 0; i < 13; i++) {
        while (*p == ' ')
            p++;
        if (!*p)
            return -EIO;
        if (i == 0) { /* state: a letter */
            while (*p && *p != ' ')
                p++;
            v[i] = 0;
            continue;
        }
        char *end;
        v[i] = (uint64_t)strtoll(p, &end, 10);
        if (end == p)
            return -EIO;
        p = end;
    }
    tc->user_ns = ticks_to_ns(v[11], hz);
    tc->sys_ns = ticks_to_ns(v[12], hz);
    return 0;
}

/* schedstat's first field is the scheduler's exact on-CPU time in ns,
 * where the stat ticks are sampled at USER_HZ and miss short bursts. A
 * kernel without sched_info prints zeros; report 0 (unknown) then. */
static uint64_t read_run_ns(long tid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", tid);
    char *buf;
    if (read_all(path, &buf) < 0)
        return 0;
    uint64_t ns = strtoull(buf, NULL, 10);
    free(buf);
    return ns;
}

int nvb__threads_sample(struct nvb__thread_cpu **out)
{
    *out = NULL;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return errno == ENOENT ? -ENOTSUP : -errno;

    uint64_t hz = ticks_hz();
    struct nvb__thread_cpu *arr = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end || tid <= 0)
            continue;
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
        char *line;
        /* A thread may exit between readdir and open: skip it. */
        if (read_all(path, &line) < 0)
            continue;
        struct nvb__thread_cpu tc;
        memset(&tc, 0, sizeof(tc));
        tc.tid = tid;
        int rc = parse_task_stat(line, hz, &tc);
        free(line);
        if (rc < 0)
            continue;
        tc.run_ns = read_run_ns(tid);
        if (tc.run_ns == 0)
            tc.run_ns = tc.user_ns + tc.sys_ns;

        if (nvb__thread_rows_push(&arr, &n, &cap, &tc) < 0) {
            closedir(d);
            return -ENOMEM;
        }
    }
    closedir(d);
    *out = arr;
    return n;
}

int nvb__sys_kinds(char *why, size_t len)
{
    if (why && len)
        why[0] = 0;
    return 1;
}

unsigned nvb__sys_kinds_missing(const struct nvb__sys_sample *s)
{
    (void)s;
    return 0;
}
