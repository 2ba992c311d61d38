/*
 * Block-device discovery from sysfs.
 *
 * The kernel's own layout is the model, so that recorded trees and the live
 * system go through the same code:
 *  - /sys/block/NAME links to the device directory; partitions are its
 *    subdirectories holding a `partition` file, and share its queue/.
 *  - An NVMe namespace's `device` link names its controller (.../nvme/nvmeX,
 *    which has `transport`), or, for a multipath head, its subsystem
 *    (nvme-subsystem/nvme-subsysN, which has `subsysnqn` and links to its
 *    controllers). Hidden paths are named nvme<subsys>c<ctrl>n<ns> and serve
 *    the head nvme<subsys>n<ns>. A controller's `device` link is its PCI
 *    function, which carries the link speed and width.
 *  - Mounts come from <proc>/self/mountinfo by device number, swap from
 *    <proc>/swaps by name.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/json.h"
#include "devices/devices.h"

/* ------------------------------------------------------------ helpers */

static int pjoin(char *out, size_t len, const char *a, const char *b)
{
    int n = snprintf(out, len, "%s/%s", a, b);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int exists(const char *dir, const char *name)
{
    char p[NVB__DEV_PATH + 256];
    if (pjoin(p, sizeof p, dir, name) < 0)
        return 0;
    return access(p, F_OK) == 0;
}

static void rstrip(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
}

/* First line of dir/name, trailing blanks removed (NVMe model and serial
 * strings are space-padded). Length, or -errno with out = "". */
static int rd_str(const char *dir, const char *name, char *out, size_t len)
{
    char p[NVB__DEV_PATH + 256];
    out[0] = 0;
    if (pjoin(p, sizeof p, dir, name) < 0)
        return -ENAMETOOLONG;
    FILE *f = fopen(p, "re");
    if (!f)
        return -errno;
    if (!fgets(out, (int)len, f))
        out[0] = 0;
    fclose(f);
    out[strcspn(out, "\n")] = 0;
    rstrip(out);
    const char *s = out;
    while (isspace((unsigned char)*s))
        s++;
    if (s != out)
        memmove(out, s, strlen(s) + 1);
    return (int)strlen(out);
}

static int64_t rd_i64(const char *dir, const char *name, int64_t dflt)
{
    char s[64], *end;
    if (rd_str(dir, name, s, sizeof s) <= 0)
        return dflt;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || end == s)
        return dflt;
    return v;
}

static uint64_t rd_u64(const char *dir, const char *name)
{
    int64_t v = rd_i64(dir, name, 0);
    return v > 0 ? (uint64_t)v : 0;
}

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

static int strv_add(struct nvb__strv *v, const char *s)
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

static void strv_free(struct nvb__strv *v)
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
static int list_dir(const char *dir, struct nvb__strv *out)
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
        if ((rc = strv_add(out, e->d_name)) < 0)
            break;
    }
    closedir(d);
    if (rc < 0) {
        strv_free(out);
        return rc;
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, vcmp);
    return 0;
}

static int count_dir(const char *dir)
{
    struct nvb__strv v;
    if (list_dir(dir, &v) < 0)
        return -1;
    int n = (int)v.n;
    strv_free(&v);
    return n;
}

/* realpath of dir/name, or "" */
static void resolve(const char *dir, const char *name, char *out, size_t len)
{
    char p[NVB__DEV_PATH + 256], r[PATH_MAX];
    out[0] = 0;
    if (pjoin(p, sizeof p, dir, name) < 0 || !realpath(p, r))
        return;
    copy(out, len, r);
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* nvme<a>n<b> (head or single namespace): 1, with a and b. */
static int parse_ns_name(const char *s, int *a, int *b)
{
    int n = 0;
    if (sscanf(s, "nvme%dn%d%n", a, b, &n) == 2 && s[n] == 0)
        return 1;
    return 0;
}

/* nvme<a>c<c>n<b> (hidden multipath path): 1, with a, c and b. */
static int parse_path_name(const char *s, int *a, int *c, int *b)
{
    int n = 0;
    if (sscanf(s, "nvme%dc%dn%d%n", a, c, b, &n) == 3 && s[n] == 0)
        return 1;
    return 0;
}

/* ------------------------------------------------------------ context */

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int nvb__devctx_init(struct nvb__devctx *c, const char *root)
{
    memset(c, 0, sizeof *c);
    if (!root) {
        copy(c->sys, sizeof c->sys, "/sys");
        copy(c->proc, sizeof c->proc, "/proc");
        copy(c->dev, sizeof c->dev, "/dev");
        return 0;
    }
    char r[PATH_MAX];
    if (!realpath(root, r))
        return -errno;
    if (!is_dir(r))
        return -ENOTDIR;
    if (strlen(r) >= sizeof c->sys)
        return -ENAMETOOLONG;
    copy(c->sys, sizeof c->sys, r);
    char parent[PATH_MAX];
    copy(parent, sizeof parent, r);
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
        if (is_dir(p) && strlen(p) < NVB__DEV_PATH)
            copy((char *)c + sib[i].off, NVB__DEV_PATH, p);
    }
    return 0;
}

/* ------------------------------------------------------------ one device */

static void read_queue(struct nvb__dev *d)
{
    char q[NVB__DEV_PATH + 8];
    if (pjoin(q, sizeof q, d->qdir, "queue") < 0)
        return;
    d->lbs = (uint32_t)rd_u64(q, "logical_block_size");
    d->pbs = (uint32_t)rd_u64(q, "physical_block_size");
    d->min_io = (uint32_t)rd_u64(q, "minimum_io_size");
    d->opt_io = (uint32_t)rd_u64(q, "optimal_io_size");
    d->max_transfer = rd_u64(q, "max_hw_sectors_kb") * 1024;
    d->max_sectors = rd_u64(q, "max_sectors_kb") * 1024;
    d->rotational = (int)rd_i64(q, "rotational", -1);
    d->nr_requests = (int)rd_i64(q, "nr_requests", -1);
    d->io_poll = (int)rd_i64(q, "io_poll", -1);
    rd_str(q, "zoned", d->zoned, sizeof d->zoned);
    rd_str(q, "write_cache", d->write_cache, sizeof d->write_cache);
    /* "mq-deadline kyber [bfq] none": the bracketed one is in use; a
     * bio-based device (multipath head, dm without mq) has just "none". */
    char s[256];
    if (rd_str(q, "scheduler", s, sizeof s) > 0) {
        char *o = strchr(s, '['), *e = o ? strchr(o, ']') : NULL;
        if (o && e) {
            *e = 0;
            copy(d->scheduler, sizeof d->scheduler, o + 1);
        } else {
            copy(d->scheduler, sizeof d->scheduler, s);
        }
    }
}

/* Unit Serial Number VPD page (0x80): a 4-byte header, then the serial
 * number, space-padded. */
static void read_vpd_serial(const char *devdir, char *out, size_t len)
{
    char p[NVB__DEV_PATH + 16];
    unsigned char b[256];
    out[0] = 0;
    if (pjoin(p, sizeof p, devdir, "vpd_pg80") < 0)
        return;
    FILE *f = fopen(p, "rbe");
    if (!f)
        return;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n < 4 || b[1] != 0x80)
        return;
    size_t sl = b[3] < n - 4 ? b[3] : n - 4;
    size_t o = 0;
    for (size_t i = 0; i < sl && o + 1 < len; i++)
        if (b[4 + i] >= 0x20 && b[4 + i] < 0x7f)
            out[o++] = (char)b[4 + i];
    out[o] = 0;
    rstrip(out);
    const char *s = out;
    while (*s == ' ')
        s++;
    memmove(out, s, strlen(s) + 1);
}

static void classify(struct nvb__dev *d)
{
    int a, b, cc;
    char devdir[NVB__DEV_PATH];
    const char *k = "other";
    resolve(d->sysdir, "device", devdir, sizeof devdir);
    if (d->parent[0])
        k = "partition";
    else if (parse_path_name(d->name, &a, &cc, &b))
        k = "nvme-path";
    else if (parse_ns_name(d->name, &a, &b))
        k = "nvme";
    else if (!strncmp(d->name, "loop", 4) || exists(d->sysdir, "loop"))
        k = "loop";
    else if (!strncmp(d->name, "zram", 4))
        k = "zram";
    else if (exists(d->sysdir, "dm"))
        k = "dm";
    else if (exists(d->sysdir, "md"))
        k = "md";
    else if (strstr(d->sysdir, "/virtio") || (devdir[0] && !strncmp(base(devdir), "virtio", 6)))
        k = "virtio";
    else if (devdir[0] && exists(devdir, "scsi_level"))
        k = "scsi";
    copy(d->kind, sizeof d->kind, k);
    if (!strcmp(k, "scsi")) {
        rd_str(devdir, "vendor", d->vendor, sizeof d->vendor);
        rd_str(devdir, "model", d->model, sizeof d->model);
        rd_str(devdir, "rev", d->firmware_rev, sizeof d->firmware_rev);
        read_vpd_serial(devdir, d->serial, sizeof d->serial);
    } else if (!strcmp(k, "virtio")) {
        rd_str(d->sysdir, "serial", d->serial, sizeof d->serial);
    } else if (!strcmp(k, "loop")) {
        rd_str(d->sysdir, "loop/backing_file", d->backing_file, sizeof d->backing_file);
    } else if (!strcmp(k, "dm")) {
        rd_str(d->sysdir, "dm/name", d->dm_name, sizeof d->dm_name);
        rd_str(d->sysdir, "dm/uuid", d->dm_uuid, sizeof d->dm_uuid);
    } else if (!strcmp(k, "md")) {
        rd_str(d->sysdir, "md/level", d->md_level, sizeof d->md_level);
    }
}

static struct nvb__dev *dev_new(struct nvb__devlist *l)
{
    if (l->n == l->cap) {
        unsigned cap = l->cap ? l->cap * 2 : 16;
        struct nvb__dev *n = realloc(l->d, cap * sizeof *n);
        if (!n)
            return NULL;
        l->d = n;
        l->cap = cap;
    }
    struct nvb__dev *d = &l->d[l->n++];
    memset(d, 0, sizeof *d);
    d->rotational = d->io_poll = d->nr_requests = d->removable = d->ro = d->hidden = -1;
    return d;
}

static int read_dev(struct nvb__dev *d, const char *name, const char *sysdir, const char *qdir, const char *parent)
{
    copy(d->name, sizeof d->name, name);
    copy(d->sysdir, sizeof d->sysdir, sysdir);
    copy(d->qdir, sizeof d->qdir, qdir);
    copy(d->parent, sizeof d->parent, parent);
    rd_str(sysdir, "dev", d->majmin, sizeof d->majmin);
    d->size = rd_u64(sysdir, "size") * 512; /* always 512-byte units */
    d->ro = (int)rd_i64(sysdir, "ro", -1);
    d->removable = (int)rd_i64(parent ? qdir : sysdir, "removable", -1);
    d->hidden = (int)rd_i64(sysdir, "hidden", -1);
    int a, b, c;
    if (d->hidden < 0 && parse_path_name(name, &a, &c, &b))
        d->hidden = 1; /* kernels before 5.15 had no `hidden` attribute */
    if (d->hidden < 0)
        d->hidden = 0;
    if (!d->hidden)
        snprintf(d->path, sizeof d->path, "/dev/%s", name);
    if (parent) {
        d->partno = (int)rd_i64(sysdir, "partition", 0);
        d->start = rd_u64(sysdir, "start") * 512;
    }
    read_queue(d);
    char p[NVB__DEV_PATH + 16];
    int rc;
    if (pjoin(p, sizeof p, sysdir, "holders") < 0 || (rc = list_dir(p, &d->holders)) < 0)
        return -ENOMEM;
    if (pjoin(p, sizeof p, sysdir, "slaves") < 0 || (rc = list_dir(p, &d->slaves)) < 0)
        return -ENOMEM;
    classify(d);
    copy(d->iu_source, sizeof d->iu_source, "unknown");
    return 0;
}

/* ------------------------------------------------------------ NVMe */

double nvb__pcie_ceiling_gbs(double gts, int width)
{
    if (!(gts > 0) || width <= 0)
        return 0;
    /* 2.5 and 5 GT/s: 8b/10b. 8 GT/s onwards: 128b/130b (PCIe 6's FLIT
     * mode at 64 GT/s has a similar few-percent overhead; treated alike). */
    double eff = gts <= 5.0 + 1e-9 ? 8.0 / 10.0 : 128.0 / 130.0;
    return gts * width * eff / 8.0;
}

static double rd_gts(const char *dir, const char *name)
{
    char s[64];
    if (rd_str(dir, name, s, sizeof s) <= 0)
        return 0;
    char *end;
    double v = strtod(s, &end); /* "16.0 GT/s PCIe", "8 GT/s", "Unknown" */
    return end != s && v > 0 ? v : 0;
}

/* blk-mq hardware queues of the first namespace (or path) block device
 * below a controller directory. */
static int ctrl_mq_queues(const char *cdir)
{
    struct nvb__strv v;
    if (list_dir(cdir, &v) < 0)
        return -1;
    int q = -1;
    for (unsigned i = 0; i < v.n && q < 0; i++) {
        int a, b, c;
        if (!parse_ns_name(v.v[i], &a, &b) && !parse_path_name(v.v[i], &a, &c, &b))
            continue;
        char p[NVB__DEV_PATH + 128];
        snprintf(p, sizeof p, "%s/%s/mq", cdir, v.v[i]);
        int n = count_dir(p);
        if (n > 0)
            q = n;
    }
    strv_free(&v);
    return q;
}

static void read_ctrl(const char *cdir, struct nvb__nvme_ctrl *c)
{
    memset(c, 0, sizeof *c);
    copy(c->name, sizeof c->name, base(cdir));
    rd_str(cdir, "model", c->model, sizeof c->model);
    rd_str(cdir, "serial", c->serial, sizeof c->serial);
    rd_str(cdir, "firmware_rev", c->firmware_rev, sizeof c->firmware_rev);
    rd_str(cdir, "transport", c->transport, sizeof c->transport);
    rd_str(cdir, "state", c->state, sizeof c->state);
    rd_str(cdir, "address", c->address, sizeof c->address);
    rd_str(cdir, "subsysnqn", c->subsysnqn, sizeof c->subsysnqn);
    c->cntlid = (int)rd_i64(cdir, "cntlid", -1);
    c->numa_node = (int)rd_i64(cdir, "numa_node", -1);
    c->queue_count = ctrl_mq_queues(cdir);
    if (c->queue_count < 0) {
        /* The controller's count includes the admin queue. */
        int64_t qc = rd_i64(cdir, "queue_count", -1);
        c->queue_count = qc > 1 ? (int)(qc - 1) : -1;
    }
    if (!strcmp(c->transport, "pcie")) {
        char pdir[NVB__DEV_PATH];
        resolve(cdir, "device", pdir, sizeof pdir);
        if (pdir[0]) {
            c->pcie = 1;
            c->link.cur_gts = rd_gts(pdir, "current_link_speed");
            c->link.max_gts = rd_gts(pdir, "max_link_speed");
            c->link.cur_width = (int)rd_i64(pdir, "current_link_width", 0);
            c->link.max_width = (int)rd_i64(pdir, "max_link_width", 0);
            c->link.cur_gbs = nvb__pcie_ceiling_gbs(c->link.cur_gts, c->link.cur_width);
            c->link.max_gbs = nvb__pcie_ceiling_gbs(c->link.max_gts, c->link.max_width);
            if (c->numa_node < 0)
                c->numa_node = (int)rd_i64(pdir, "numa_node", -1);
            if (!c->address[0])
                copy(c->address, sizeof c->address, base(pdir));
        }
    }
}

static int add_ctrl(struct nvb__nvme *n, const char *cdir)
{
    struct nvb__nvme_ctrl *c = realloc(n->ctrl, (n->nctrl + 1) * sizeof *c);
    if (!c)
        return -ENOMEM;
    n->ctrl = c;
    read_ctrl(cdir, &c[n->nctrl++]);
    return 0;
}

/* The subsystem that lists controller `cname`. */
static void find_subsys(const struct nvb__devctx *cx, const char *cname, char *out, size_t len)
{
    char cls[NVB__DEV_PATH + 32];
    struct nvb__strv v;
    out[0] = 0;
    snprintf(cls, sizeof cls, "%s/class/nvme-subsystem", cx->sys);
    if (list_dir(cls, &v) < 0)
        return;
    for (unsigned i = 0; i < v.n && !out[0]; i++) {
        char p[NVB__DEV_PATH + 128];
        snprintf(p, sizeof p, "%s/%s", cls, v.v[i]);
        if (exists(p, cname))
            copy(out, len, v.v[i]);
    }
    strv_free(&v);
}

static int read_nvme(const struct nvb__devctx *cx, struct nvb__devlist *l, struct nvb__dev *d)
{
    struct nvb__nvme *n = calloc(1, sizeof *n);
    if (!n)
        return -ENOMEM;
    d->nvme = n;
    n->nsid = (int)rd_i64(d->sysdir, "nsid", -1);
    char devdir[NVB__DEV_PATH];
    resolve(d->sysdir, "device", devdir, sizeof devdir);
    int a, b, c, rc = 0;
    if (devdir[0] && exists(devdir, "transport")) {
        /* one controller: a namespace without multipath, or a hidden path */
        if (parse_path_name(d->name, &a, &c, &b)) {
            copy(n->role, sizeof n->role, "path");
            snprintf(n->head, sizeof n->head, "nvme%dn%d", a, b);
        } else {
            copy(n->role, sizeof n->role, "single");
        }
        rc = add_ctrl(n, devdir);
        find_subsys(cx, base(devdir), n->subsystem, sizeof n->subsystem);
    } else if (devdir[0] && exists(devdir, "subsysnqn")) {
        /* a multipath head: its parent is the subsystem */
        copy(n->role, sizeof n->role, "head");
        copy(n->subsystem, sizeof n->subsystem, base(devdir));
        struct nvb__strv v;
        if ((rc = list_dir(devdir, &v)) < 0)
            return rc;
        for (unsigned i = 0; i < v.n && rc == 0; i++) {
            int x, m = 0;
            if (sscanf(v.v[i], "nvme%d%n", &x, &m) != 1 || v.v[i][m])
                continue;
            char cdir[NVB__DEV_PATH];
            resolve(devdir, v.v[i], cdir, sizeof cdir);
            if (cdir[0] && exists(cdir, "transport"))
                rc = add_ctrl(n, cdir);
        }
        strv_free(&v);
        if (parse_ns_name(d->name, &a, &b)) {
            for (unsigned i = 0; i < l->n && rc == 0; i++) {
                int pa, pc, pb;
                if (parse_path_name(l->d[i].name, &pa, &pc, &pb) && pa == a && pb == b)
                    rc = strv_add(&n->paths, l->d[i].name);
            }
        }
        /* A head has no model of its own: the subsystem's. */
        rd_str(devdir, "model", d->model, sizeof d->model);
        rd_str(devdir, "serial", d->serial, sizeof d->serial);
        rd_str(devdir, "firmware_rev", d->firmware_rev, sizeof d->firmware_rev);
    } else {
        copy(n->role, sizeof n->role, parse_path_name(d->name, &a, &c, &b) ? "path" : "single");
    }
    if (rc < 0)
        return rc;
    if (n->nctrl && !d->model[0]) {
        copy(d->model, sizeof d->model, n->ctrl[0].model);
        copy(d->serial, sizeof d->serial, n->ctrl[0].serial);
        copy(d->firmware_rev, sizeof d->firmware_rev, n->ctrl[0].firmware_rev);
    }
    if (strcmp(n->role, "path") && parse_ns_name(d->name, &a, &b)) {
        /* The generic node of a multipath head is ng<subsystem>n<ns>, like
         * the head; that of a namespace without multipath is
         * ng<controller>n<ns>, while its block device is
         * nvme<subsystem>n<ns>: the two differ when controller and
         * subsystem instances do. */
        char g[NVB__DEV_PATH + 64];
        int inst = a, k;
        if (!strcmp(n->role, "single") && n->nctrl && sscanf(n->ctrl[0].name, "nvme%d", &k) == 1)
            inst = k;
        snprintf(n->generic_name, sizeof n->generic_name, "ng%dn%d", inst, b);
        snprintf(g, sizeof g, "%s/class/nvme-generic/%s", cx->sys, n->generic_name);
        if (access(g, F_OK) == 0)
            snprintf(n->generic, sizeof n->generic, "/dev/%s", n->generic_name);
        else
            n->generic_name[0] = 0;
    }
    return 0;
}

/* ------------------------------------------------------------ mounts, swap */

/* mountinfo and swaps escape blanks and backslashes as \ooo. */
static void unescape(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
            p[3] <= '7') {
            *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
}

static struct nvb__dev *find_majmin(const struct nvb__devlist *l, const char *mm)
{
    for (unsigned i = 0; i < l->n; i++)
        if (l->d[i].majmin[0] && !strcmp(l->d[i].majmin, mm))
            return &l->d[i];
    return NULL;
}

static int add_mount(struct nvb__dev *d, const char *point, const char *fstype, const char *source)
{
    struct nvb__mount *m = realloc(d->mounts, (d->nmounts + 1) * sizeof *m);
    if (!m)
        return -ENOMEM;
    d->mounts = m;
    m = &m[d->nmounts];
    m->point = nvb__strdup(point);
    m->fstype = nvb__strdup(fstype);
    m->source = nvb__strdup(source);
    if (!m->point || !m->fstype || !m->source) {
        free(m->point);
        free(m->fstype);
        free(m->source);
        return -ENOMEM;
    }
    d->nmounts++;
    return 0;
}

static int read_mounts(const struct nvb__devctx *c, struct nvb__devlist *l)
{
    if (!c->proc[0])
        return 0;
    char p[NVB__DEV_PATH + 32];
    snprintf(p, sizeof p, "%s/self/mountinfo", c->proc);
    FILE *f = fopen(p, "re");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        /* id parent maj:min root point options [optional...] - fstype source super */
        char *save = NULL, *fld[6] = {0};
        char *t = strtok_r(line, " \n", &save);
        for (int i = 0; t && i < 6; i++) {
            fld[i] = t;
            t = i < 5 ? strtok_r(NULL, " \n", &save) : NULL;
        }
        if (!fld[4])
            continue;
        while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-"))
            ;
        char *fstype = t ? strtok_r(NULL, " \n", &save) : NULL;
        char *source = fstype ? strtok_r(NULL, " \n", &save) : NULL;
        if (!source)
            continue;
        unescape(fld[4]);
        unescape(source);
        struct nvb__dev *d = find_majmin(l, fld[2]);
        if (!d && !strncmp(fld[2], "0:", 2) && !strncmp(source, "/dev/", 5)) {
            /* btrfs and others mount with an anonymous device number */
            char name[64];
            if (nvb__dev_resolve(c, l, source, name, sizeof name) == 0)
                d = nvb__devlist_find(l, name);
        }
        if (d)
            rc = add_mount(d, fld[4], fstype, source);
    }
    free(line);
    fclose(f);
    return rc;
}

static void read_swaps(const struct nvb__devctx *c, struct nvb__devlist *l)
{
    if (!c->proc[0])
        return;
    char p[NVB__DEV_PATH + 16];
    snprintf(p, sizeof p, "%s/swaps", c->proc);
    FILE *f = fopen(p, "re");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char file[512], type[32];
        if (sscanf(line, "%511s %31s", file, type) != 2)
            continue;
        unescape(file);
        if (!strcmp(type, "file")) {
            /* a swap file is not a block device, but writing into it is
             * writing into swap (the guard, stack.c) */
            if (strv_add(&l->swapfiles, file) < 0)
                break;
            continue;
        }
        if (strcmp(type, "partition"))
            continue; /* the header */
        char name[64];
        struct nvb__dev *d = NULL;
        if (nvb__dev_resolve(c, l, file, name, sizeof name) == 0)
            d = nvb__devlist_find(l, name);
        else if (!strncmp(file, "/dev/", 5))
            d = nvb__devlist_find(l, base(file));
        if (d)
            d->swap = 1;
    }
    fclose(f);
}

/* ------------------------------------------------------------ scan */

void nvb__devlist_free(struct nvb__devlist *l)
{
    for (unsigned i = 0; i < l->n; i++) {
        struct nvb__dev *d = &l->d[i];
        strv_free(&d->partitions);
        strv_free(&d->holders);
        strv_free(&d->slaves);
        for (unsigned m = 0; m < d->nmounts; m++) {
            free(d->mounts[m].point);
            free(d->mounts[m].fstype);
            free(d->mounts[m].source);
        }
        free(d->mounts);
        if (d->nvme) {
            strv_free(&d->nvme->paths);
            free(d->nvme->ctrl);
            free(d->nvme);
        }
    }
    free(l->d);
    strv_free(&l->swapfiles);
    memset(l, 0, sizeof *l);
}

struct nvb__dev *nvb__devlist_find(const struct nvb__devlist *l, const char *name)
{
    for (unsigned i = 0; i < l->n; i++)
        if (!strcmp(l->d[i].name, name))
            return &l->d[i];
    return NULL;
}

int nvb__dev_scan(const struct nvb__devctx *c, struct nvb__devlist *l)
{
    memset(l, 0, sizeof *l);
    char bdir[NVB__DEV_PATH + 16];
    struct nvb__strv disks;
    snprintf(bdir, sizeof bdir, "%s/block", c->sys);
    if (!is_dir(bdir)) {
        snprintf(bdir, sizeof bdir, "%s/class/block", c->sys);
        if (!is_dir(bdir))
            return -ENOENT;
    }
    int rc = list_dir(bdir, &disks);
    if (rc < 0)
        return rc;
    for (unsigned i = 0; i < disks.n && rc == 0; i++) {
        char sysdir[NVB__DEV_PATH];
        resolve(bdir, disks.v[i], sysdir, sizeof sysdir);
        if (!sysdir[0] || exists(sysdir, "partition"))
            continue; /* class/block also lists partitions: they come with their disk */
        struct nvb__dev *d = dev_new(l);
        if (!d) {
            rc = -ENOMEM;
            break;
        }
        unsigned di = l->n - 1;
        if ((rc = read_dev(d, disks.v[i], sysdir, sysdir, NULL)) < 0)
            break;
        struct nvb__strv sub;
        if ((rc = list_dir(sysdir, &sub)) < 0)
            break;
        for (unsigned s = 0; s < sub.n && rc == 0; s++) {
            char pdir[NVB__DEV_PATH + 128];
            snprintf(pdir, sizeof pdir, "%s/%s", sysdir, sub.v[s]);
            if (!exists(pdir, "partition") || strlen(pdir) >= NVB__DEV_PATH)
                continue;
            struct nvb__dev *p = dev_new(l);
            if (!p) {
                rc = -ENOMEM;
                break;
            }
            d = &l->d[di]; /* dev_new may have moved it */
            if ((rc = read_dev(p, sub.v[s], pdir, sysdir, d->name)) < 0)
                break;
            if ((rc = strv_add(&d->partitions, p->name)) < 0)
                break;
        }
        strv_free(&sub);
    }
    strv_free(&disks);
    for (unsigned i = 0; i < l->n && rc == 0; i++)
        if (!strcmp(l->d[i].kind, "nvme") || !strcmp(l->d[i].kind, "nvme-path"))
            rc = read_nvme(c, l, &l->d[i]);
    /* A partition is described by its disk. */
    for (unsigned i = 0; i < l->n && rc == 0; i++) {
        struct nvb__dev *d = &l->d[i];
        struct nvb__dev *p = d->parent[0] ? nvb__devlist_find(l, d->parent) : NULL;
        if (p) {
            copy(d->model, sizeof d->model, p->model);
            copy(d->serial, sizeof d->serial, p->serial);
            copy(d->firmware_rev, sizeof d->firmware_rev, p->firmware_rev);
            copy(d->vendor, sizeof d->vendor, p->vendor);
            if (d->removable < 0)
                d->removable = p->removable;
        }
    }
    if (rc == 0)
        rc = read_mounts(c, l);
    if (rc == 0)
        read_swaps(c, l);
    if (rc < 0)
        nvb__devlist_free(l);
    return rc;
}

/* ------------------------------------------------------------ resolve */

static int parent_dir(const char *p, char *out, size_t len)
{
    copy(out, len, p);
    char *s = strrchr(out, '/');
    if (!s)
        return -EINVAL;
    if (s == out)
        s[1] = 0;
    else
        *s = 0;
    return 0;
}

int nvb__dev_resolve(const struct nvb__devctx *c, const struct nvb__devlist *l, const char *path, char *name,
                     size_t len)
{
    char mapped[PATH_MAX + 16];
    /* A recorded tree answers only for paths under /dev, from its own
     * dev/: a device node of the host must never be taken for one of its
     * devices. */
    int live_dev = !strcmp(c->dev, "/dev");
    if (!live_dev) {
        if (!c->dev[0] || strncmp(path, "/dev/", 5))
            return -ENODEV;
        snprintf(mapped, sizeof mapped, "%s/%s", c->dev, path + 5);
    } else {
        copy(mapped, sizeof mapped, path);
    }
    struct stat st;
    if (stat(mapped, &st) != 0)
        return -errno;
    const char *found = NULL;
    char kname[256] = "";
    if (live_dev && S_ISBLK(st.st_mode)) {
        char mm[32];
        snprintf(mm, sizeof mm, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
        struct nvb__dev *d = find_majmin(l, mm);
        if (!d)
            return -ENODEV;
        found = d->name;
    } else if (live_dev && S_ISCHR(st.st_mode)) {
        char link[NVB__DEV_PATH + 64], target[PATH_MAX];
        snprintf(link, sizeof link, "%s/dev/char/%u:%u", c->sys, major(st.st_rdev), minor(st.st_rdev));
        if (!realpath(link, target))
            return -ENODEV;
        copy(kname, sizeof kname, base(target));
    } else if (!live_dev && S_ISREG(st.st_mode)) {
        /* A recorded tree has no device nodes: its dev/ holds empty files
         * named like them, and the udev symlinks to those. */
        char r[PATH_MAX], dir[PATH_MAX], devr[PATH_MAX];
        if (!realpath(mapped, r) || parent_dir(r, dir, sizeof dir) < 0)
            return -ENODEV;
        if (!realpath(c->dev, devr) || strcmp(dir, devr))
            return -ENODEV;
        copy(kname, sizeof kname, base(r));
    } else {
        return -ENODEV;
    }
    if (!found) {
        /* An NVMe generic node stands for its namespace. */
        for (unsigned i = 0; i < l->n && !found; i++)
            if (l->d[i].nvme && l->d[i].nvme->generic_name[0] && !strcmp(l->d[i].nvme->generic_name, kname))
                found = l->d[i].name;
        if (!found && nvb__devlist_find(l, kname))
            found = kname;
        if (!found)
            return -ENODEV;
    }
    if (strlen(found) >= len)
        return -ENAMETOOLONG;
    copy(name, len, found);
    return 0;
}

/* ------------------------------------------------------------ probing */

/* A device node of the context's dev/ for name, opened only when it is the
 * device sysfs describes (so a recorded tree never opens anything of the
 * host). fd, or -errno (-ENODEV: no such node). */
static int open_node(const struct nvb__devctx *c, const char *name, const char *majmin, int want_chr, int flags)
{
    if (!c->dev[0] || !majmin[0])
        return -ENODEV;
    char p[NVB__DEV_PATH + 80];
    snprintf(p, sizeof p, "%s/%s", c->dev, name);
    struct stat st;
    if (stat(p, &st) != 0)
        return -ENODEV;
    if (want_chr ? !S_ISCHR(st.st_mode) : !S_ISBLK(st.st_mode))
        return -ENODEV;
    char mm[32];
    snprintf(mm, sizeof mm, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
    if (strcmp(mm, majmin))
        return -ENODEV;
    int fd = open(p, flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int nvb__dev_open(const struct nvb__devctx *c, const struct nvb__dev *d, int flags)
{
    return open_node(c, d->name, d->majmin, 0, flags);
}

/* `blkid -o export` output, as recorded: KEY=value lines. */
static int recorded_sig(const struct nvb__devctx *c, struct nvb__dev *d)
{
    char p[NVB__DEV_PATH + 80];
    snprintf(p, sizeof p, "%s/%s.blkid", c->probe, d->name);
    FILE *f = fopen(p, "re");
    if (!f)
        return -ENOENT;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *eq = strchr(line, '=');
        if (!eq || line[0] == '#')
            continue;
        *eq = 0;
        const char *v = eq + 1;
        if (!strcmp(line, "TYPE"))
            copy(d->sig_type, sizeof d->sig_type, v);
        else if (!strcmp(line, "PTTYPE") && !d->sig_type[0]) {
            copy(d->sig_type, sizeof d->sig_type, v);
            copy(d->sig_usage, sizeof d->sig_usage, "partition_table");
        } else if (!strcmp(line, "USAGE"))
            copy(d->sig_usage, sizeof d->sig_usage, v);
        else if (!strcmp(line, "LABEL"))
            copy(d->sig_label, sizeof d->sig_label, v);
        else if (!strcmp(line, "UUID"))
            copy(d->sig_uuid, sizeof d->sig_uuid, v);
    }
    fclose(f);
    if (d->sig_type[0] && !d->sig_usage[0])
        copy(d->sig_usage, sizeof d->sig_usage, "filesystem");
    copy(d->sig_source, sizeof d->sig_source, d->sig_type[0] ? "recorded" : "none");
    return 0;
}

static void probe_sig(const struct nvb__devctx *c, struct nvb__dev *d)
{
    if (c->probe[0] && recorded_sig(c, d) == 0)
        return;
    if (d->hidden == 1) {
        copy(d->sig_why, sizeof d->sig_why, "hidden multipath path: probe its head");
        return;
    }
    int fd = nvb__dev_open(c, d, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        if (fd == -ENODEV)
            copy(d->sig_why, sizeof d->sig_why, "no device node to probe");
        else
            snprintf(d->sig_why, sizeof d->sig_why, "cannot open %s: %s", d->path, nvb_strerror(fd));
        return;
    }
    int rc = nvb__sig_probe_fd(fd, d);
    close(fd);
    if (rc == 0)
        copy(d->sig_source, sizeof d->sig_source, "blkid");
    else if (rc == 1)
        copy(d->sig_source, sizeof d->sig_source, "none");
    else if (rc == -ENOTSUP)
        copy(d->sig_why, sizeof d->sig_why, "built without libblkid");
    else
        snprintf(d->sig_why, sizeof d->sig_why, "blkid: %s", nvb_strerror(rc));
}

/* Recorded Identify Namespace data: hex bytes, blanks and '#' comments
 * ignored; the rest of the 4096 bytes is zero. */
static int recorded_idns(const struct nvb__devctx *c, const char *name, uint8_t *buf, size_t len)
{
    char p[NVB__DEV_PATH + 80];
    snprintf(p, sizeof p, "%s/%s.id-ns", c->probe, name);
    FILE *f = fopen(p, "re");
    if (!f)
        return -ENOENT;
    memset(buf, 0, len);
    size_t n = 0;
    int hi = -1, ch, comment = 0;
    while ((ch = fgetc(f)) != EOF && n < len) {
        if (ch == '#')
            comment = 1;
        if (ch == '\n')
            comment = 0;
        if (comment || !isxdigit(ch))
            continue;
        int v = isdigit(ch) ? ch - '0' : tolower(ch) - 'a' + 10;
        if (hi < 0) {
            hi = v;
        } else {
            buf[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    fclose(f);
    return n ? 0 : -EINVAL;
}

static void probe_identify(const struct nvb__devctx *c, struct nvb__devlist *l, struct nvb__dev *d)
{
    struct nvb__nvme *n = d->nvme;
    uint8_t buf[4096];
    int rc = -ENOENT;
    if (c->probe[0] && (rc = recorded_idns(c, d->name, buf, sizeof buf)) == 0) {
        copy(n->id_source, sizeof n->id_source, "recorded");
    } else {
        /* The generic node needs no block-layer open; the namespace block
         * device, or the controller node with the nsid, do as well. */
        char gmm[32] = "";
        int fd = -ENODEV;
        if (n->generic_name[0]) {
            char g[NVB__DEV_PATH + 64];
            snprintf(g, sizeof g, "%s/class/nvme-generic/%s", c->sys, n->generic_name);
            rd_str(g, "dev", gmm, sizeof gmm);
            fd = open_node(c, n->generic_name, gmm, 1, O_RDONLY);
        }
        if (fd == -ENODEV && d->hidden != 1)
            fd = nvb__dev_open(c, d, O_RDONLY | O_NONBLOCK);
        if (fd == -ENODEV && n->nctrl) {
            char cdir[NVB__DEV_PATH + 64], cmm[32];
            snprintf(cdir, sizeof cdir, "%s/class/nvme/%s", c->sys, n->ctrl[0].name);
            rd_str(cdir, "dev", cmm, sizeof cmm);
            fd = open_node(c, n->ctrl[0].name, cmm, 1, O_RDONLY);
        }
        if (fd < 0) {
            n->id_state = fd;
            snprintf(n->id_why, sizeof n->id_why, "%s",
                     fd == -ENODEV ? "no device node for Identify" : nvb_strerror(fd));
            return;
        }
        if (n->nsid <= 0) { /* kernels without the nsid attribute */
            int id = nvb__nvme_nsid(fd);
            if (id > 0)
                n->nsid = id;
        }
        rc = n->nsid > 0 ? nvb__nvme_identify_ns(fd, n->nsid, buf, sizeof buf) : -ENODEV;
        close(fd);
        if (rc < 0) {
            n->id_state = rc;
            snprintf(n->id_why, sizeof n->id_why, "Identify Namespace: %s", nvb_strerror(rc));
            return;
        }
        copy(n->id_source, sizeof n->id_source, "ioctl");
    }
    if (rc == 0)
        rc = nvb__idns_parse(buf, sizeof buf, &n->id);
    n->id_state = rc < 0 ? rc : 1;
    if (rc < 0)
        snprintf(n->id_why, sizeof n->id_why, "Identify Namespace data not understood");
    (void)l;
}

static void set_iu(struct nvb__dev *d)
{
    const struct nvb__nvme *n = d->nvme;
    if (n && n->id_state == 1 && n->id.optperf && n->id.npwg && n->id.lba_size) {
        d->iu = (uint64_t)n->id.npwg * n->id.lba_size;
        copy(d->iu_source, sizeof d->iu_source, "identify");
    } else if (d->opt_io) {
        d->iu = d->opt_io;
        copy(d->iu_source, sizeof d->iu_source, "sysfs");
    } else if (d->min_io > d->lbs && d->lbs) {
        d->iu = d->min_io;
        copy(d->iu_source, sizeof d->iu_source, "sysfs");
    } else {
        d->iu = 0;
        copy(d->iu_source, sizeof d->iu_source, "unknown");
    }
}

void nvb__dev_probe(const struct nvb__devctx *c, struct nvb__devlist *l, struct nvb__dev *d, int what)
{
    if ((what & NVB__PROBE_SIG) && !(d->probed & NVB__PROBE_SIG)) {
        d->probed |= NVB__PROBE_SIG;
        probe_sig(c, d);
    }
    if ((what & NVB__PROBE_ID) && !(d->probed & NVB__PROBE_ID)) {
        d->probed |= NVB__PROBE_ID;
        struct nvb__dev *p = d->parent[0] ? nvb__devlist_find(l, d->parent) : NULL;
        if (p) {
            /* A partition writes to its disk's flash: the disk's unit. */
            nvb__dev_probe(c, l, p, NVB__PROBE_ID);
            d->iu = p->iu;
            copy(d->iu_source, sizeof d->iu_source, p->iu_source);
            return;
        }
        if (d->nvme) {
            struct nvb__dev *h = NULL;
            if (!strcmp(d->nvme->role, "path") && (h = nvb__devlist_find(l, d->nvme->head)) && h->nvme) {
                nvb__dev_probe(c, l, h, NVB__PROBE_ID);
                d->nvme->id_state = h->nvme->id_state;
                d->nvme->id = h->nvme->id;
                copy(d->nvme->id_source, sizeof d->nvme->id_source, h->nvme->id_source);
                copy(d->nvme->id_why, sizeof d->nvme->id_why, h->nvme->id_why);
            } else {
                probe_identify(c, l, d);
            }
        }
        set_iu(d);
    }
}

/* ------------------------------------------------------------ JSON */

/* A small writer that can also answer "what is at this dotted path"
 * (nvb_device_get), from the same walk as the JSON itself. */
struct dj {
    struct nvb__buf *b;
    int depth;
    int first[16], idx[16];
    char path[512];
    size_t plen[16];
    const char *want;
    int found;                   /* 1: scalar, 2: container, 3: null */
    struct nvb__buf val;
    size_t cstart;
    int cdepth;
};

/* Writes the key, extends the path; returns 1 when this is the wanted one. */
static int dj_key(struct dj *j, const char *key)
{
    if (j->depth > 0) {
        if (!j->first[j->depth])
            nvb__buf_putn(j->b, ",", 1);
        j->first[j->depth] = 0;
    }
    size_t n = strlen(j->path);
    j->plen[j->depth] = n;
    if (j->depth > 0) {
        char comp[80];
        if (key)
            snprintf(comp, sizeof comp, "%s", key);
        else
            snprintf(comp, sizeof comp, "%d", j->idx[j->depth]++);
        snprintf(j->path + n, sizeof j->path - n, "%s%s", n ? "." : "", comp);
    }
    if (key) {
        nvb__json_write_str(j->b, key);
        nvb__buf_putn(j->b, ":", 1);
    }
    return j->want && !j->found && !strcmp(j->path, j->want);
}

static void dj_pop(struct dj *j) { j->path[j->plen[j->depth]] = 0; }

static void dj_scalar(struct dj *j, const char *key, const char *text, int quoted, int isnull)
{
    int hit = dj_key(j, key);
    if (isnull)
        nvb__buf_puts(j->b, "null");
    else if (quoted)
        nvb__json_write_str(j->b, text);
    else
        nvb__buf_puts(j->b, text);
    if (hit) {
        j->found = isnull ? 3 : 1;
        if (!isnull)
            nvb__buf_puts(&j->val, text);
    }
    dj_pop(j);
}

static void dj_str(struct dj *j, const char *key, const char *s) { dj_scalar(j, key, s ? s : "", 1, 0); }
/* "" is null: the fact is not known or does not apply */
static void dj_strn(struct dj *j, const char *key, const char *s) { dj_scalar(j, key, s ? s : "", 1, !s || !*s); }
static void dj_null(struct dj *j, const char *key) { dj_scalar(j, key, "", 0, 1); }

static void dj_u64(struct dj *j, const char *key, uint64_t v)
{
    char t[32];
    snprintf(t, sizeof t, "%" PRIu64, v);
    dj_scalar(j, key, t, 0, 0);
}

/* negative: unknown */
static void dj_int(struct dj *j, const char *key, int64_t v)
{
    char t[32];
    snprintf(t, sizeof t, "%" PRId64, v);
    dj_scalar(j, key, t, 0, v < 0);
}

static void dj_bool(struct dj *j, const char *key, int v) { dj_scalar(j, key, v > 0 ? "true" : "false", 0, v < 0); }

/* 0 or not finite: unknown */
static void dj_dbl(struct dj *j, const char *key, double v)
{
    char t[48];
    snprintf(t, sizeof t, "%.10g", v);
    dj_scalar(j, key, t, 0, !(v > 0) || !isfinite(v));
}

static void dj_open(struct dj *j, const char *key, char ch)
{
    int hit = dj_key(j, key);
    if (hit) {
        j->cstart = j->b->len;
        j->cdepth = j->depth;
    }
    nvb__buf_putn(j->b, &ch, 1);
    j->depth++;
    j->first[j->depth] = 1;
    j->idx[j->depth] = 0;
    if (hit)
        j->found = -1; /* in progress */
}

static void dj_close(struct dj *j, char ch)
{
    nvb__buf_putn(j->b, &ch, 1);
    j->depth--;
    if (j->found == -1 && j->depth == j->cdepth && !j->b->oom) {
        nvb__buf_putn(&j->val, j->b->s + j->cstart, j->b->len - j->cstart);
        j->found = 2;
    }
    dj_pop(j);
}

static void dj_strv(struct dj *j, const char *key, const struct nvb__strv *v)
{
    dj_open(j, key, '[');
    for (unsigned i = 0; i < v->n; i++)
        dj_str(j, NULL, v->v[i]);
    dj_close(j, ']');
}

static void emit_ctrl(struct dj *j, const struct nvb__nvme_ctrl *c)
{
    dj_open(j, NULL, '{');
    dj_str(j, "name", c->name);
    dj_str(j, "model", c->model);
    dj_str(j, "serial", c->serial);
    dj_str(j, "firmware_rev", c->firmware_rev);
    dj_strn(j, "transport", c->transport);
    dj_strn(j, "address", c->address);
    dj_strn(j, "state", c->state);
    dj_int(j, "numa_node", c->numa_node);
    dj_int(j, "queue_count", c->queue_count);
    dj_strn(j, "subsysnqn", c->subsysnqn);
    dj_int(j, "cntlid", c->cntlid);
    if (c->pcie) {
        dj_open(j, "pcie", '{');
        dj_dbl(j, "current_link_speed_gts", c->link.cur_gts);
        dj_int(j, "current_link_width", c->link.cur_width > 0 ? c->link.cur_width : -1);
        dj_dbl(j, "max_link_speed_gts", c->link.max_gts);
        dj_int(j, "max_link_width", c->link.max_width > 0 ? c->link.max_width : -1);
        dj_dbl(j, "link_ceiling_gbs", c->link.cur_gbs);
        dj_dbl(j, "max_link_ceiling_gbs", c->link.max_gbs);
        dj_close(j, '}');
    } else {
        dj_null(j, "pcie");
    }
    dj_close(j, '}');
}

double nvb__dev_link_gbs(const struct nvb__dev *d)
{
    double s = 0;
    if (d->nvme)
        for (unsigned i = 0; i < d->nvme->nctrl; i++)
            if (d->nvme->ctrl[i].pcie)
                s += d->nvme->ctrl[i].link.cur_gbs;
    return s;
}

static void emit_nvme(struct dj *j, const struct nvb__dev *d)
{
    const struct nvb__nvme *n = d->nvme;
    dj_open(j, "nvme", '{');
    dj_int(j, "nsid", n->nsid);
    dj_str(j, "role", n->role);
    dj_strn(j, "head", n->head);
    dj_strv(j, "paths", &n->paths);
    dj_strn(j, "subsystem", n->subsystem);
    dj_strn(j, "generic_path", n->generic);
    dj_dbl(j, "link_ceiling_gbs", nvb__dev_link_gbs(d));
    dj_open(j, "controllers", '[');
    for (unsigned i = 0; i < n->nctrl; i++)
        emit_ctrl(j, &n->ctrl[i]);
    dj_close(j, ']');
    if (n->id_state == 1) {
        const struct nvb__idns *id = &n->id;
        dj_open(j, "identify", '{');
        dj_str(j, "source", n->id_source);
        dj_u64(j, "nsze", id->nsze);
        dj_u64(j, "lba_size", id->lba_size);
        dj_u64(j, "metadata_size", id->ms);
        dj_u64(j, "nsfeat", id->nsfeat);
        dj_bool(j, "optperf", id->optperf);
        uint64_t lb = id->lba_size;
        dj_int(j, "npwg_bytes", id->optperf ? (int64_t)(id->npwg * lb) : -1);
        dj_int(j, "npwa_bytes", id->optperf ? (int64_t)(id->npwa * lb) : -1);
        dj_int(j, "npdg_bytes", id->optperf ? (int64_t)(id->npdg * lb) : -1);
        dj_int(j, "npda_bytes", id->optperf ? (int64_t)(id->npda * lb) : -1);
        dj_int(j, "nows_bytes", id->optperf ? (int64_t)(id->nows * lb) : -1);
        dj_null(j, "error");
        dj_close(j, '}');
    } else if (d->probed & NVB__PROBE_ID) {
        dj_open(j, "identify", '{');
        dj_null(j, "source");
        dj_str(j, "error", n->id_why[0] ? n->id_why : "not read");
        dj_close(j, '}');
    } else {
        dj_null(j, "identify");
    }
    dj_close(j, '}');
}


static void emit_dev(struct dj *j, const struct nvb__devlist *l, const struct nvb__dev *d)
{
    dj_open(j, NULL, '{');
    dj_str(j, "name", d->name);
    dj_strn(j, "path", d->path);
    dj_str(j, "kind", d->kind);
    dj_str(j, "dev", d->majmin);
    dj_bool(j, "hidden", d->hidden);
    dj_u64(j, "size", d->size);
    dj_u64(j, "logical_block_size", d->lbs);
    dj_u64(j, "physical_block_size", d->pbs);
    dj_u64(j, "minimum_io_size", d->min_io);
    dj_u64(j, "optimal_io_size", d->opt_io);
    dj_u64(j, "max_transfer", d->max_transfer);
    dj_u64(j, "max_sectors", d->max_sectors);
    dj_bool(j, "rotational", d->rotational);
    dj_strn(j, "zoned", d->zoned);
    dj_strn(j, "scheduler", d->scheduler);
    dj_int(j, "nr_requests", d->nr_requests);
    dj_bool(j, "io_poll", d->io_poll);
    dj_strn(j, "write_cache", d->write_cache);
    dj_bool(j, "read_only", d->ro);
    dj_bool(j, "removable", d->removable);
    dj_str(j, "model", d->model);
    dj_str(j, "serial", d->serial);
    dj_str(j, "firmware_rev", d->firmware_rev);
    dj_str(j, "vendor", d->vendor);
    dj_strn(j, "parent", d->parent);
    if (d->parent[0]) {
        dj_open(j, "partition", '{');
        dj_int(j, "number", d->partno);
        dj_u64(j, "start", d->start);
        dj_close(j, '}');
    } else {
        dj_null(j, "partition");
    }
    dj_strv(j, "partitions", &d->partitions);
    dj_strv(j, "holders", &d->holders);
    dj_strv(j, "slaves", &d->slaves);
    dj_open(j, "mounts", '[');
    for (unsigned i = 0; i < d->nmounts; i++) {
        dj_open(j, NULL, '{');
        dj_str(j, "mount_point", d->mounts[i].point);
        dj_str(j, "fstype", d->mounts[i].fstype);
        dj_str(j, "source", d->mounts[i].source);
        dj_close(j, '}');
    }
    dj_close(j, ']');
    dj_bool(j, "swap", d->swap);
    char busy[512];
    nvb__dev_busy(l, d, busy, sizeof busy);
    dj_strn(j, "busy", busy);
    dj_open(j, "signature", '{');
    dj_strn(j, "type", d->sig_type);
    dj_strn(j, "usage", d->sig_usage);
    dj_strn(j, "label", d->sig_label);
    dj_strn(j, "uuid", d->sig_uuid);
    dj_str(j, "source", d->sig_source[0] ? d->sig_source : "unknown");
    dj_strn(j, "why", d->sig_why);
    dj_close(j, '}');
    if (d->probed & NVB__PROBE_ID) {
        dj_int(j, "indirection_unit", d->iu ? (int64_t)d->iu : -1);
        dj_str(j, "indirection_unit_source", d->iu_source);
    } else {
        dj_null(j, "indirection_unit");
        dj_str(j, "indirection_unit_source", "unknown");
    }
    dj_strn(j, "backing_file", d->backing_file);
    if (!strcmp(d->kind, "dm")) {
        dj_open(j, "dm", '{');
        dj_strn(j, "name", d->dm_name);
        dj_strn(j, "uuid", d->dm_uuid);
        dj_close(j, '}');
    } else {
        dj_null(j, "dm");
    }
    dj_strn(j, "md_level", d->md_level);
    if (d->nvme)
        emit_nvme(j, d);
    else
        dj_null(j, "nvme");
    dj_close(j, '}');
}

void nvb__dev_json(const struct nvb__devlist *l, const struct nvb__dev *d, struct nvb__buf *b)
{
    struct dj j;
    memset(&j, 0, sizeof j);
    j.b = b;
    j.depth = 0;
    emit_dev(&j, l, d);
}

/* The value at a dotted path of the device's JSON: strings raw, numbers and
 * booleans as JSON text, objects and arrays as JSON. Length, -ENOENT,
 * -ENODATA (null), -ENOSPC, -ENOMEM. */
int nvb__dev_get(const struct nvb__devlist *l, const struct nvb__dev *d, const char *key, char *buf, size_t len)
{
    struct nvb__buf b = {0};
    struct dj j;
    memset(&j, 0, sizeof j);
    j.b = &b;
    j.want = key;
    emit_dev(&j, l, d);
    int rc;
    if (b.oom || j.val.oom)
        rc = -ENOMEM;
    else if (j.found == 1 || j.found == 2)
        rc = (int)j.val.len;
    else if (j.found == 3)
        rc = -ENODATA;
    else
        rc = -ENOENT;
    if (rc >= 0) {
        if ((size_t)rc >= len)
            rc = -ENOSPC;
        else
            memcpy(buf, j.val.s ? j.val.s : "", (size_t)rc + 1);
    }
    free(b.s);
    free(j.val.s);
    return rc;
}

/* ------------------------------------------------------------ public API */

struct nvb_device {
    const struct nvb__devctx *c;
    struct nvb__devlist *l;
    struct nvb__dev *d;
};

NVB_API int nvb_devices_json(const char *sysfs_root, char **json)
{
    if (!json)
        return -EINVAL;
    *json = NULL;
    struct nvb__devctx *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    int rc = nvb__devctx_init(c, sysfs_root);
    struct nvb__devlist l;
    if (rc == 0)
        rc = nvb__dev_scan(c, &l);
    if (rc < 0) {
        free(c);
        return rc;
    }
    struct nvb__buf b = {0};
    nvb__buf_putn(&b, "[", 1);
    for (unsigned i = 0; i < l.n; i++) {
        nvb__dev_probe(c, &l, &l.d[i], NVB__PROBE_ALL);
        if (i)
            nvb__buf_putn(&b, ",\n", 2);
        nvb__dev_json(&l, &l.d[i], &b);
    }
    nvb__buf_puts(&b, "]\n");
    nvb__devlist_free(&l);
    free(c);
    if (b.oom || !b.s) {
        free(b.s);
        return -ENOMEM;
    }
    *json = b.s;
    return 0;
}

NVB_API int nvb_device_json(const char *path, char **json)
{
    if (!json || !path || !*path)
        return -EINVAL;
    *json = NULL;
    struct nvb__devctx *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    nvb__devctx_init(c, NULL);
    struct nvb__devlist l;
    int rc = nvb__dev_scan(c, &l);
    if (rc < 0) {
        free(c);
        return rc == -ENOENT ? -ENODEV : rc;
    }
    char name[64];
    rc = nvb__dev_resolve(c, &l, path, name, sizeof name);
    struct nvb__dev *d = rc == 0 ? nvb__devlist_find(&l, name) : NULL;
    if (d) {
        nvb__dev_probe(c, &l, d, NVB__PROBE_ALL);
        struct nvb__buf b = {0};
        nvb__dev_json(&l, d, &b);
        nvb__buf_putn(&b, "\n", 1);
        if (b.oom || !b.s) {
            free(b.s);
            rc = -ENOMEM;
        } else {
            *json = b.s;
        }
    } else if (rc == 0) {
        rc = -ENODEV;
    }
    nvb__devlist_free(&l);
    free(c);
    return rc;
}

NVB_API int nvb_device_enumerate(const char *sysfs_root, nvb_device_fn fn, void *arg)
{
    if (!fn)
        return -EINVAL;
    struct nvb__devctx *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    int rc = nvb__devctx_init(c, sysfs_root);
    struct nvb__devlist l;
    if (rc == 0)
        rc = nvb__dev_scan(c, &l);
    if (rc < 0) {
        free(c);
        return rc;
    }
    unsigned i;
    for (i = 0; i < l.n; i++) {
        nvb__dev_probe(c, &l, &l.d[i], NVB__PROBE_ALL);
        struct nvb_device dev = {c, &l, &l.d[i]};
        int r = fn(&dev, arg);
        if (r) {
            rc = r;
            break;
        }
    }
    if (rc == 0)
        rc = (int)i;
    nvb__devlist_free(&l);
    free(c);
    return rc;
}

NVB_API int nvb_device_get(const struct nvb_device *dev, const char *key, char *buf, size_t len)
{
    if (!dev || !key || !buf || !len)
        return -EINVAL;
    return nvb__dev_get(dev->l, dev->d, key, buf, len);
}
