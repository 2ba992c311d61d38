/*
 * The CPU packages' energy over a run, from RAPL through the kernel's
 * powercap tree (/sys/class/powercap/intel-rapl:N, whose "name" is
 * package-N; AMD's RAPL appears under the same names). Each counter is in
 * microjoules and wraps at max_energy_range_uj. Taken around the sampler,
 * like the device log: the ramp is inside, and the packages' whole draw
 * is, every process's, not only the run's. Where there is none (a VM, no
 * permission: energy_uj is root-only since Linux 5.10, another OS) the
 * result says why.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    int rc = fgets(buf, (int)len, f) ? 0 : -EIO;
    fclose(f);
    if (rc == 0)
        buf[strcspn(buf, "\n")] = 0;
    return rc;
}

int nvb__rapl_read(const char *root, struct nvb__rapl *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    int first_err = 0;
    for (unsigned i = 0; i < NVB__RAPL_MAX; i++) {
        char p[512], name[32], v[32], range[32];
        snprintf(p, sizeof p, "%s/intel-rapl:%u/name", root, i);
        if (read_line(p, name, sizeof name) < 0)
            continue;
        if (strncmp(name, "package", 7) != 0)
            continue;
        snprintf(p, sizeof p, "%s/intel-rapl:%u/energy_uj", root, i);
        int rc = read_line(p, v, sizeof v);
        if (rc == 0) {
            snprintf(p, sizeof p, "%s/intel-rapl:%u/max_energy_range_uj", root, i);
            rc = read_line(p, range, sizeof range);
        }
        if (rc < 0) {
            if (!first_err) {
                first_err = rc;
                snprintf(why, whylen, "cannot read %s: %s%s", p, nvb_strerror(rc),
                         rc == -EACCES ? " (RAPL counters are readable by root only)" : "");
            }
            continue;
        }
        char *e1, *e2;
        unsigned long long x = strtoull(v, &e1, 10), r = strtoull(range, &e2, 10);
        if (*e1 || *e2 || e1 == v || e2 == range) {
            snprintf(why, whylen, "%s/intel-rapl:%u: energy_uj or max_energy_range_uj is not a number", root, i);
            return -EINVAL;
        }
        out->uj[out->n] = x;
        out->range_uj[out->n] = r;
        snprintf(out->name[out->n], sizeof out->name[0], "%s", name);
        out->n++;
    }
    if (out->n == 0) {
        if (first_err)
            return first_err;
        snprintf(why, whylen, "no RAPL package domain under %s (no powercap driver: a VM, or not an x86 CPU)", root);
        return -ENOENT;
    }
    return 0;
}

double nvb__rapl_joules(const struct nvb__rapl *a, const struct nvb__rapl *b)
{
    if (a->n != b->n || a->n == 0)
        return -1;
    double j = 0;
    for (unsigned i = 0; i < a->n; i++) {
        if (strcmp(a->name[i], b->name[i]) != 0)
            return -1;
        uint64_t d = b->uj[i] >= a->uj[i] ? b->uj[i] - a->uj[i]
                                          : b->uj[i] + (a->range_uj[i] + 1) - a->uj[i]; /* wrapped once */
        j += (double)d / 1e6;
    }
    return j;
}

static void no_energy(struct nvb__energy *e, const char *why)
{
    e->state = 2;
    snprintf(e->reason, sizeof e->reason, "%s", why);
}

void nvb__energy_begin(struct nvb_result *res, const char *root, struct nvb__rapl *r0)
{
    struct nvb__energy *e = &res->energy;
    memset(e, 0, sizeof *e);
    char why[160] = "";
    const char *u = nvb__procfs_unavailable("energy");
    if (u && !strcmp(root, NVB__POWERCAP_ROOT)) /* not Linux: no live powercap to read */
        no_energy(e, u + strlen("unavailable: "));
    else if (nvb__rapl_read(root, r0, why, sizeof why) < 0)
        no_energy(e, why);
    else
        e->state = 1;
}

void nvb__energy_end(struct nvb_result *res, const char *root, const struct nvb__rapl *r0)
{
    struct nvb__energy *e = &res->energy;
    if (e->state != 1)
        return;
    struct nvb__rapl r1;
    char why[160] = "";
    if (nvb__rapl_read(root, &r1, why, sizeof why) < 0) {
        no_energy(e, why);
        return;
    }
    double j = nvb__rapl_joules(r0, &r1);
    if (j < 0) {
        no_energy(e, "the RAPL package domains changed during the run");
        return;
    }
    e->joules = j;
    e->domains = r1.n;
    snprintf(e->source, sizeof e->source, "rapl");
}
