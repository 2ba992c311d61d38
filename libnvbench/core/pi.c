/*
 * End-to-end protection information (PI) and metadata: the workload's keys
 * pi_act, pi_chk, apptag, apptag_mask and md_per_io_size, which are fields
 * of NVMe Read and Write commands (PRACT, PRCHK, CDW14/15, the metadata
 * pointer). Only the nvme engine sends NVMe commands itself: the plan
 * refuses the keys for any other engine here; what the namespace's format
 * allows (metadata size, PI type) the engine checks against Identify at
 * setup (engines/nvme_pi.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/engine.h"
#include "core/iomode.h"
#include "core/run.h"

int nvb__pi_chk_parse(const char *s, unsigned *bits)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        {"GUARD", NVB__PI_GUARD}, {"APPTAG", NVB__PI_APPTAG}, {"REFTAG", NVB__PI_REFTAG},
    };
    *bits = 0;
    if (!s || !*s || !strcasecmp(s, "none"))
        return 0;
    for (const char *p = s;;) {
        size_t n = strcspn(p, ",");
        unsigned bit = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (n == strlen(names[i].name) && !strncasecmp(p, names[i].name, n))
                bit = names[i].bit;
        if (!bit)
            return -EINVAL;
        *bits |= bit;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

void nvb__pi_of(const struct nvb_workload *w, struct nvb__pi *pi)
{
    memset(pi, 0, sizeof *pi);
    pi->act = (unsigned)w->pi_act;
    if (nvb__pi_chk_parse(w->pi_chk, &pi->chk) < 0)
        pi->chk = 0; /* not reached: the key was checked when set */
    pi->apptag = (uint16_t)w->apptag;
    pi->apptag_mask = (uint16_t)w->apptag_mask;
    pi->md_per_io = w->md_per_io_size;
}

int nvb__pi_check(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen)
{
    struct nvb__pi pi;
    nvb__pi_of(w, &pi);
    if (!pi.act && !pi.chk && !pi.md_per_io)
        return 0;
    const char *key = pi.act ? "pi_act=1" : pi.chk ? "pi_chk" : "md_per_io_size";
    if (strcmp(p->eng->name, "nvme")) {
        snprintf(err, errlen, "%s: protection information and metadata are fields of the NVMe Read and Write "
                 "commands, which only engine nvme (passthrough) sends; engine %s goes through the kernel's "
                 "block layer", key, p->eng->name);
        return -ENOTSUP;
    }
    if (p->trims && !p->writes && !p->reads) {
        snprintf(err, errlen, "%s: rw=%s issues only trims (Dataset Management), which carry no data and no "
                 "protection information", key, nvb__rw_name(w->rw));
        return -EINVAL;
    }
    return 0;
}
