/*
 * What sysfs says about an NVMe namespace beyond the block layer.
 *
 * An NVMe namespace's `device` link names its controller (.../nvme/nvmeX,
 * which has `transport`), or, for a multipath head, its subsystem
 * (nvme-subsystem/nvme-subsysN, which has `subsysnqn` and links to its
 * controllers). Hidden paths are named nvme<subsys>c<ctrl>n<ns> and serve
 * the head nvme<subsys>n<ns>. A controller's `device` link is its PCI
 * function, which carries the link speed and width.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"

double nvb__pcie_ceiling_gbs(double gts, int width)
{
    if (!(gts > 0) || width <= 0)
        return 0;
    /* 2.5 and 5 GT/s: 8b/10b. 8 GT/s onwards: 128b/130b (PCIe 6's FLIT
     * mode at 64 GT/s has a similar few-percent overhead; treated alike). */
    double eff = gts <= 5.0 + 1e-9 ? 8.0 / 10.0 : 128.0 / 130.0;
    return gts * width * eff / 8.0;
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

static double rd_gts(const char *dir, const char *name)
{
    char s[64];
    if (nvb__rd_str(dir, name, s, sizeof s) <= 0)
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
    if (nvb__list_dir(cdir, &v) < 0)
        return -1;
    int q = -1;
    for (unsigned i = 0; i < v.n && q < 0; i++) {
        int a, b, c;
        if (!nvb__parse_ns_name(v.v[i], &a, &b) && !nvb__parse_path_name(v.v[i], &a, &c, &b))
            continue;
        char p[NVB__DEV_PATH + 128];
        snprintf(p, sizeof p, "%s/%s/mq", cdir, v.v[i]);
        int n = nvb__count_dir(p);
        if (n > 0)
            q = n;
    }
    nvb__strv_free(&v);
    return q;
}

static void read_ctrl(const char *cdir, struct nvb__nvme_ctrl *c)
{
    memset(c, 0, sizeof *c);
    nvb__copy(c->name, sizeof c->name, nvb__base(cdir));
    nvb__rd_str(cdir, "model", c->model, sizeof c->model);
    nvb__rd_str(cdir, "serial", c->serial, sizeof c->serial);
    nvb__rd_str(cdir, "firmware_rev", c->firmware_rev, sizeof c->firmware_rev);
    nvb__rd_str(cdir, "transport", c->transport, sizeof c->transport);
    nvb__rd_str(cdir, "state", c->state, sizeof c->state);
    nvb__rd_str(cdir, "address", c->address, sizeof c->address);
    nvb__rd_str(cdir, "subsysnqn", c->subsysnqn, sizeof c->subsysnqn);
    c->cntlid = (int)nvb__rd_i64(cdir, "cntlid", -1);
    c->numa_node = (int)nvb__rd_i64(cdir, "numa_node", -1);
    c->queue_count = ctrl_mq_queues(cdir);
    if (c->queue_count < 0) {
        /* The controller's count includes the admin queue. */
        int64_t qc = nvb__rd_i64(cdir, "queue_count", -1);
        c->queue_count = qc > 1 ? (int)(qc - 1) : -1;
    }
    if (!strcmp(c->transport, "pcie")) {
        char pdir[NVB__DEV_PATH];
        nvb__resolve_at(cdir, "device", pdir, sizeof pdir);
        if (pdir[0]) {
            c->pcie = 1;
            c->link.cur_gts = rd_gts(pdir, "current_link_speed");
            c->link.max_gts = rd_gts(pdir, "max_link_speed");
            c->link.cur_width = (int)nvb__rd_i64(pdir, "current_link_width", 0);
            c->link.max_width = (int)nvb__rd_i64(pdir, "max_link_width", 0);
            c->link.cur_gbs = nvb__pcie_ceiling_gbs(c->link.cur_gts, c->link.cur_width);
            c->link.max_gbs = nvb__pcie_ceiling_gbs(c->link.max_gts, c->link.max_width);
            if (c->numa_node < 0)
                c->numa_node = (int)nvb__rd_i64(pdir, "numa_node", -1);
            if (!c->address[0])
                nvb__copy(c->address, sizeof c->address, nvb__base(pdir));
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
    if (nvb__list_dir(cls, &v) < 0)
        return;
    for (unsigned i = 0; i < v.n && !out[0]; i++) {
        char p[NVB__DEV_PATH + 128];
        snprintf(p, sizeof p, "%s/%s", cls, v.v[i]);
        if (nvb__exists(p, cname))
            nvb__copy(out, len, v.v[i]);
    }
    nvb__strv_free(&v);
}

int nvb__read_nvme(const struct nvb__devctx *cx, struct nvb__devlist *l, struct nvb__dev *d)
{
    struct nvb__nvme *n = calloc(1, sizeof *n);
    if (!n)
        return -ENOMEM;
    d->nvme = n;
    n->nsid = (int)nvb__rd_i64(d->sysdir, "nsid", -1);
    char devdir[NVB__DEV_PATH];
    nvb__resolve_at(d->sysdir, "device", devdir, sizeof devdir);
    int a, b, c, rc = 0;
    if (devdir[0] && nvb__exists(devdir, "transport")) {
        /* one controller: a namespace without multipath, or a hidden path */
        if (nvb__parse_path_name(d->name, &a, &c, &b)) {
            nvb__copy(n->role, sizeof n->role, "path");
            snprintf(n->head, sizeof n->head, "nvme%dn%d", a, b);
        } else {
            nvb__copy(n->role, sizeof n->role, "single");
        }
        rc = add_ctrl(n, devdir);
        find_subsys(cx, nvb__base(devdir), n->subsystem, sizeof n->subsystem);
    } else if (devdir[0] && nvb__exists(devdir, "subsysnqn")) {
        /* a multipath head: its parent is the subsystem */
        nvb__copy(n->role, sizeof n->role, "head");
        nvb__copy(n->subsystem, sizeof n->subsystem, nvb__base(devdir));
        struct nvb__strv v;
        if ((rc = nvb__list_dir(devdir, &v)) < 0)
            return rc;
        for (unsigned i = 0; i < v.n && rc == 0; i++) {
            int x, m = 0;
            if (sscanf(v.v[i], "nvme%d%n", &x, &m) != 1 || v.v[i][m])
                continue;
            char cdir[NVB__DEV_PATH];
            nvb__resolve_at(devdir, v.v[i], cdir, sizeof cdir);
            if (cdir[0] && nvb__exists(cdir, "transport"))
                rc = add_ctrl(n, cdir);
        }
        nvb__strv_free(&v);
        if (nvb__parse_ns_name(d->name, &a, &b)) {
            for (unsigned i = 0; i < l->n && rc == 0; i++) {
                int pa, pc, pb;
                if (nvb__parse_path_name(l->d[i].name, &pa, &pc, &pb) && pa == a && pb == b)
                    rc = nvb__strv_add(&n->paths, l->d[i].name);
            }
        }
        /* A head has no model of its own: the subsystem's. */
        nvb__rd_str(devdir, "model", d->model, sizeof d->model);
        nvb__rd_str(devdir, "serial", d->serial, sizeof d->serial);
        nvb__rd_str(devdir, "firmware_rev", d->firmware_rev, sizeof d->firmware_rev);
    } else {
        nvb__copy(n->role, sizeof n->role, nvb__parse_path_name(d->name, &a, &c, &b) ? "path" : "single");
    }
    if (rc < 0)
        return rc;
    if (n->nctrl && !d->model[0]) {
        nvb__copy(d->model, sizeof d->model, n->ctrl[0].model);
        nvb__copy(d->serial, sizeof d->serial, n->ctrl[0].serial);
        nvb__copy(d->firmware_rev, sizeof d->firmware_rev, n->ctrl[0].firmware_rev);
    }
    if (strcmp(n->role, "path") && nvb__parse_ns_name(d->name, &a, &b)) {
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
