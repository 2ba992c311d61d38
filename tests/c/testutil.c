#include "testutil.h"
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"

const char *tu_tmpdir(void)
{
    const char *d = getenv("NVB_TEST_TMP");
    if (d && *d) {
        mkdir(d, 0777);
        return d;
    }
    return "/tmp";
}

char *tu_scratch(const char *name, uint64_t size)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s.%ld", tu_tmpdir(), name, (long)getpid()) < 0)
        abort();
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
        perror(p);
        abort();
    }
    static const size_t chunk = 1 << 20;
    unsigned char *buf = malloc(chunk);
    uint64_t x = 0x9e3779b97f4a7c15ull ^ size;
    for (size_t i = 0; i < chunk; i += 8) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        memcpy(buf + i, &x, 8);
    }
    for (uint64_t off = 0; off < size; off += chunk) {
        size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
        buf[0] = (unsigned char)(off >> 20); /* blocks differ */
        if (write(fd, buf, n) != (ssize_t)n) {
            perror("write");
            abort();
        }
    }
    free(buf);
    fsync(fd);
    close(fd);
    return p;
}

/* mkdtemp() on a malloc'd template (NULL: out of memory), or abort. */
static char *mkdtemp_or_abort(char *tmpl)
{
    if (!tmpl)
        abort();
    if (!mkdtemp(tmpl)) {
        perror("mkdtemp");
        abort();
    }
    return tmpl;
}

char *tu_mkdtemp(const char *prefix)
{
    char *p = NULL;
    return mkdtemp_or_abort(asprintf(&p, "%s/%s.XXXXXX", tu_tmpdir(), prefix) < 0 ? NULL : p);
}

void tu_skip(const char *why)
{
    fprintf(stderr, "SKIP: %s\n", why);
    exit(77);
}

int tu_is_root(void) { return geteuid() == 0; }

int tu_under_memory_tool(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return 1;
#else
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload") != NULL;
#endif
}

void tu_remember(char (*list)[256], int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!list[i][0]) {
            snprintf(list[i], 256, "%s", s);
            return;
        }
}

int tu_sh(const char *fmt, ...)
{
    char cmd[1024], full[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "{ %s; } >/dev/null 2>&1", cmd);
    int st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int tu_losetup(const char *backing, char *dev, size_t len)
{
    char cmd[1100];
    dev[0] = 0;
    snprintf(cmd, sizeof cmd, "losetup -f --show '%s' 2>/dev/null", backing);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    if (!fgets(dev, (int)len, f))
        dev[0] = 0;
    pclose(f);
    dev[strcspn(dev, "\n")] = 0;
    return dev[0] ? 0 : -1;
}

int tu_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

struct nvb_workload *tu_workload(const char *const *kv, const char *const *targets)
{
    struct nvb_workload *w = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    for (; kv && kv[0]; kv += 2)
        ck_assert_msg(nvb_workload_set(w, kv[0], kv[1]) == 0, "set %s=%s: %s", kv[0], kv[1], nvb_workload_error(w));
    for (; targets && *targets; targets++)
        ck_assert_msg(nvb_workload_add_target(w, *targets) == 0, "target %s: %s", *targets, nvb_workload_error(w));
    return w;
}

struct nvb_result *tu_run_ok(const struct nvb_workload *w)
{
    struct nvb_result *r = NULL;
    int rc = nvb_run(w, NULL, &r);
    ck_assert_msg(rc == 0, "run failed %d: %s", rc, r ? nvb_result_error(r) : nvb_strerror(rc));
    return r;
}

double tu_get(const struct nvb_result *r, const char *path)
{
    double v = -1;
    ck_assert_msg(nvb_result_get(r, path, &v) == 0, "no figure %s", path);
    return v;
}

void tu_refused_naming(const char *text, const char *key)
{
    struct nvb_result *back = NULL;
    char why[256] = "";
    ck_assert_int_lt(nvb_result_parse(text, strlen(text), &back, why, sizeof why), 0);
    ck_assert_ptr_null(back);
    ck_assert_msg(strstr(why, key), "the refusal does not name %s: %s", key, why);
}

char *tu_edited(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    ck_assert_msg(at, "%s not in the text", from);
    char *out = NULL;
    ck_assert_int_ge(asprintf(&out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)), 0);
    return out;
}

int tu_run_refused(const struct nvb_workload *w, const char *const *needles)
{
    struct nvb_result *r = NULL;
    const int rc = nvb_run(w, NULL, &r);
    ck_assert_int_lt(rc, 0);
    for (; needles && *needles; needles++)
        ck_assert_msg(strstr(nvb_result_error(r), *needles), "the error does not name %s: %s", *needles,
                      nvb_result_error(r));
    nvb_result_free(r);
    return rc;
}

char *tu_mkdtemp_public(const char *prefix)
{
    char *p = NULL;
    p = mkdtemp_or_abort(asprintf(&p, "/tmp/nvb-%s.XXXXXX", prefix) < 0 ? NULL : p);
    if (chmod(p, 0755) != 0) {
        perror(p);
        abort();
    }
    return p;
}

int tu_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

unsigned char *tu_read_head(const char *path, size_t n)
{
    unsigned char *b = malloc(n);
    ck_assert_msg(b != NULL, "out of memory for %zu bytes of %s", n, path);
    int fd = open(path, O_RDONLY);
    ck_assert_msg(fd >= 0, "cannot open %s", path);
    ck_assert_msg(pread(fd, b, n, 0) == (ssize_t)n, "cannot read %zu bytes of %s", n, path);
    close(fd);
    return b;
}

int tu_all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

uint64_t tu_file_sum(const char *path)
{
    int fd = open(path, O_RDONLY);
    ck_assert_msg(fd >= 0, "cannot open %s", path);
    static unsigned char buf[1 << 16];
    uint64_t h = 1469598103934665603ull;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ull;
    close(fd);
    return h;
}
