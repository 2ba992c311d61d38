/*
 * What can only be learned by opening a device: its signature (libblkid)
 * and NVMe Identify, each once per device, or their recorded answers from a
 * recorded tree's probe/ directory.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nvbench.h"
#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"

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
            nvb__copy(d->sig_type, sizeof d->sig_type, v);
        else if (!strcmp(line, "PTTYPE") && !d->sig_type[0]) {
            nvb__copy(d->sig_type, sizeof d->sig_type, v);
            nvb__copy(d->sig_usage, sizeof d->sig_usage, "partition_table");
        } else if (!strcmp(line, "USAGE"))
            nvb__copy(d->sig_usage, sizeof d->sig_usage, v);
        else if (!strcmp(line, "LABEL"))
            nvb__copy(d->sig_label, sizeof d->sig_label, v);
        else if (!strcmp(line, "UUID"))
            nvb__copy(d->sig_uuid, sizeof d->sig_uuid, v);
    }
    fclose(f);
    if (d->sig_type[0] && !d->sig_usage[0])
        nvb__copy(d->sig_usage, sizeof d->sig_usage, "filesystem");
    nvb__copy(d->sig_source, sizeof d->sig_source, d->sig_type[0] ? "recorded" : "none");
    return 0;
}

static void probe_sig(const struct nvb__devctx *c, struct nvb__dev *d)
{
    if (c->probe[0] && recorded_sig(c, d) == 0)
        return;
    if (d->hidden == 1) {
        nvb__copy(d->sig_why, sizeof d->sig_why, "hidden multipath path: probe its head");
        return;
    }
    int fd = nvb__dev_open(c, d, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        if (fd == -ENODEV)
            nvb__copy(d->sig_why, sizeof d->sig_why, "no device node to probe");
        else
            snprintf(d->sig_why, sizeof d->sig_why, "cannot open %s: %s", d->path, nvb_strerror(fd));
        return;
    }
    int rc = nvb__sig_probe_fd(fd, d);
    close(fd);
    if (rc == 0)
        nvb__copy(d->sig_source, sizeof d->sig_source, "blkid");
    else if (rc == 1)
        nvb__copy(d->sig_source, sizeof d->sig_source, "none");
    else if (rc == -ENOTSUP)
        nvb__copy(d->sig_why, sizeof d->sig_why, "built without libblkid");
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
        nvb__copy(n->id_source, sizeof n->id_source, "recorded");
    } else {
        /* The generic node needs no block-layer open; the namespace block
         * device, or the controller node with the nsid, do as well. */
        char gmm[32] = "";
        int fd = -ENODEV;
        if (n->generic_name[0]) {
            char g[NVB__DEV_PATH + 64];
            snprintf(g, sizeof g, "%s/class/nvme-generic/%s", c->sys, n->generic_name);
            nvb__rd_str(g, "dev", gmm, sizeof gmm);
            fd = open_node(c, n->generic_name, gmm, 1, O_RDONLY);
        }
        if (fd == -ENODEV && d->hidden != 1)
            fd = nvb__dev_open(c, d, O_RDONLY | O_NONBLOCK);
        if (fd == -ENODEV && n->nctrl) {
            char cdir[NVB__DEV_PATH + 64], cmm[32];
            snprintf(cdir, sizeof cdir, "%s/class/nvme/%s", c->sys, n->ctrl[0].name);
            nvb__rd_str(cdir, "dev", cmm, sizeof cmm);
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
        nvb__copy(n->id_source, sizeof n->id_source, "ioctl");
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
        nvb__copy(d->iu_source, sizeof d->iu_source, "identify");
    } else if (d->opt_io) {
        d->iu = d->opt_io;
        nvb__copy(d->iu_source, sizeof d->iu_source, "sysfs");
    } else if (d->min_io > d->lbs && d->lbs) {
        d->iu = d->min_io;
        nvb__copy(d->iu_source, sizeof d->iu_source, "sysfs");
    } else {
        d->iu = 0;
        nvb__copy(d->iu_source, sizeof d->iu_source, "unknown");
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
            nvb__copy(d->iu_source, sizeof d->iu_source, p->iu_source);
            return;
        }
        if (d->nvme) {
            struct nvb__dev *h = NULL;
            if (!strcmp(d->nvme->role, "path") && (h = nvb__devlist_find(l, d->nvme->head)) && h->nvme) {
                nvb__dev_probe(c, l, h, NVB__PROBE_ID);
                d->nvme->id_state = h->nvme->id_state;
                d->nvme->id = h->nvme->id;
                nvb__copy(d->nvme->id_source, sizeof d->nvme->id_source, h->nvme->id_source);
                nvb__copy(d->nvme->id_why, sizeof d->nvme->id_why, h->nvme->id_why);
            } else {
                probe_identify(c, l, d);
            }
        }
        set_iu(d);
    }
}
