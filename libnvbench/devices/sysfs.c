/*
 * Reading sysfs (and the recorded trees shaped like it): small readers of
 * one attribute, directory listings in natural order, NVMe kernel names,
 * and the context of roots every other discovery file reads through.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"

int nvb__pjoin(char *out, size_t len, const char *a, const char *b)
{
    int n = snprintf(out, len, "%s/%s", a, b);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int nvb__exists(const char *dir, const char *name)
{
    char p[NVB__DEV_PATH + 256];
    if (nvb__pjoin(p, sizeof p, dir, name) < 0)
        return 0;
    return access(p, F_OK) == 0;
}

void nvb__rstrip(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
}

/* First line of dir/name, trailing blanks removed (NVMe model and serial
 * strings are space-padded). Length, or -errno with out = "". */
int nvb__rd_str(const char *dir, const char *name, char *out, size_t len)
{
    char p[NVB__DEV_PATH + 256];
    out[0] = 0;
    if (nvb__pjoin(p, sizeof p, dir, name) < 0)
        return -ENAMETOOLONG;
    FILE *f = fopen(p, "re");
    if (!f)
        return -errno;
    if (!fgets(out, (int)len, f))
        out[0] = 0;
    fclose(f);
    out[strcspn(out, "\n")] = 0;
    nvb__rstrip(out);
    const char *s = out;
    while (isspace((unsigned char)*s))
        s++;
    if (s != out)
        memmove(out, s, strlen(s) + 1);
    return (int)strlen(out);
}

int64_t nvb__rd_i64(const char *dir, const char *name, int64_t dflt)
{
    char s[64], *end;
    if (nvb__rd_str(dir, name, s, sizeof s) <= 0)
        return dflt;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || end == s)
        return dflt;
    return v;
}

uint64_t nvb__rd_u64(const char *dir, const char *name)
{
    int64_t v = nvb__rd_i64(dir, name, 0);
    return v > 0 ? (uint64_t)v : 0;
}

void nvb__copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

int nvb__strv_add(struct nvb__strv *v, const char *s)
{
    if (v->n == v->cap) {
        unsigned cap = v->cap ? v->cap * 2 : 4;
        char **n = realloc(v->v, cap * sizeof *n);
        if (!n)
            return -ENOMEM;
        v->v = n;
        v->cap = cap;
    }
    char *d = nvb__strdup(s);
    if (!d)
        return -ENOMEM;
    v->v[v->n++] = d;
    return 0;
}

void nvb__strv_free(struct nvb__strv *v)
{
    for (unsigned i = 0; i < v->n; i++)
        free(v->v[i]);
    free(v->v);
    memset(v, 0, sizeof *v);
}

static int vcmp(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Entries of a directory (no dot entries), in natural order (nvme0n2 before
 * nvme0n10). A missing directory is an empty list. */
int nvb__list_dir(const char *dir, struct nvb__strv *out)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if ((rc = nvb__strv_add(out, e->d_name)) < 0)
            break;
    }
    closedir(d);
    if (rc < 0) {
        nvb__strv_free(out);
        return rc;
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, vcmp);
    return 0;
}

int nvb__count_dir(const char *dir)
{
    struct nvb__strv v;
    if (nvb__list_dir(dir, &v) < 0)
        return -1;
    int n = (int)v.n;
    nvb__strv_free(&v);
    return n;
}

/* realpath of dir/name, or "" */
void nvb__resolve_at(const char *dir, const char *name, char *out, size_t len)
{
    char p[NVB__DEV_PATH + 256], r[PATH_MAX];
    out[0] = 0;
    if (nvb__pjoin(p, sizeof p, dir, name) < 0 || !realpath(p, r))
        return;
    nvb__copy(out, len, r);
}

const char *nvb__base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* nvme<a>n<b> (head or single namespace): 1, with a and b. */
int nvb__parse_ns_name(const char *s, int *a, int *b)
{
    int n = 0;
    if (sscanf(s, "nvme%dn%d%n", a, b, &n) == 2 && s[n] == 0)
        return 1;
    return 0;
}

/* nvme<a>c<c>n<b> (hidden multipath path): 1, with a, c and b. */
int nvb__parse_path_name(const char *s, int *a, int *c, int *b)
{
    int n = 0;
    if (sscanf(s, "nvme%dc%dn%d%n", a, c, b, &n) == 3 && s[n] == 0)
        return 1;
    return 0;
}

/* ------------------------------------------------------------ context */

int nvb__is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int nvb__devctx_init(struct nvb__devctx *c, const char *root)
{
    memset(c, 0, sizeof *c);
    if (!root) {
        nvb__copy(c->sys, sizeof c->sys, "/sys");
        nvb__copy(c->proc, sizeof c->proc, "/proc");
        nvb__copy(c->dev, sizeof c->dev, "/dev");
        return 0;
    }
    char r[PATH_MAX];
    if (!realpath(root, r))
        return -errno;
    if (!nvb__is_dir(r))
        return -ENOTDIR;
    if (strlen(r) >= sizeof c->sys)
        return -ENAMETOOLONG;
    nvb__copy(c->sys, sizeof c->sys, r);
    char parent[PATH_MAX];
    nvb__copy(parent, sizeof parent, r);
    char *slash = strrchr(parent, '/');
    if (slash == parent)
        parent[1] = 0;
    else if (slash)
        *slash = 0;
    static const struct { const char *name; size_t off; } sib[] = {
        {"proc", offsetof(struct nvb__devctx, proc)},
        {"dev", offsetof(struct nvb__devctx, dev)},
        {"probe", offsetof(struct nvb__devctx, probe)},
    };
    for (size_t i = 0; i < sizeof sib / sizeof sib[0]; i++) {
        char p[PATH_MAX + 16];
        snprintf(p, sizeof p, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "", sib[i].name);
        /* The live system has no probe/: recorded answers only exist for
         * recorded trees. */
        if (!strcmp(sib[i].name, "probe") && !strcmp(r, "/sys"))
            continue;
        if (nvb__is_dir(p) && strlen(p) < NVB__DEV_PATH)
            nvb__copy((char *)c + sib[i].off, NVB__DEV_PATH, p);
    }
    return 0;
}
