/*
 * fiomap_offs.c - fio's offset patterns of sequential jobs: the rw=...:N
 * modifier, rw_sequencer, and zonemode=strided with zonesize, zonerange
 * and zoneskip, as the keys seq_stride and zone_* (core/offpat.h).
 */
#include "core/fiomap.h"

#include <stdio.h>
#include <string.h>

/* rw=read:N (sequential): N bytes, signed, between an I/O's end and the
 * next one's start. A random rw's :N (a new random offset every N I/Os)
 * has no equivalent. */
int fm_rw_modifier(struct fm_job *j, const char *opt, const char *rw, const char *mod)
{
    uint64_t n;
    if (strncmp(rw, "rand", 4) == 0) {
        int rc = fm_refuse(j, opt, "the ':%s' modifier of a random rw (a new random offset every %s I/Os, "
                                   "sequential or identical between them): nvbench draws a new offset for every I/O",
                           mod, mod);
        return rc < 0 ? rc : 0;
    }
    int neg = *mod == '-';
    TRY(fm_size(j, opt, mod + neg, &n));
    if (n > (1ull << 62))
        return fm_err(j, opt, "':%s': a stride of more than 2^62 bytes", mod);
    char buf[32];
    snprintf(buf, sizeof buf, "%s%llu", neg && n ? "-" : "", (unsigned long long)n);
    return fm_set(j, "seq_stride", buf, opt);
}

/* rw_sequencer: what a random rw's :N does between new offsets. Without
 * that modifier (refused above) fio draws every offset anew either way,
 * and a sequential rw ignores it: nothing to map. */
int fm_h_rw_sequencer(struct fm_job *j, const char *opt, const char *v)
{
    if (strcmp(v, "sequential") && strcmp(v, "identical"))
        return fm_err(j, opt, "'%s': fio's sequencers are sequential and identical", v);
    return 0;
}

/* zonesize, zonerange, zoneskip: fio sizes. */
int fm_h_zone(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t n;
    (void)v;
    TRY(fm_size(j, opt, NULL, &n));
    const char *key = !strcmp(opt, "zonesize") ? "zone_size" : !strcmp(opt, "zonerange") ? "zone_range" : "zone_skip";
    return fm_setu(j, key, n, opt);
}

/* After the options: zones as fio takes them (zonemode=strided, or
 * zonesize alone), of sequential jobs only. */
int fm_zones(struct fm_job *j)
{
    const char *mode = fm_val(j, "zonemode");
    int sized = fm_get(&j->out, "zone_size") != NULL;
    int strided = (mode && !strcmp(mode, "strided")) || (!mode && sized);
    if (mode && !strcmp(mode, "none") && sized)
        return fm_err(j, "zonesize", "with zonemode=none: fio refuses them together");
    if (mode && !strcmp(mode, "zbd") && (fm_get(&j->out, "zone_range") || fm_get(&j->out, "zone_skip"))) {
        int rc = fm_refuse(j, fm_get(&j->out, "zone_range") ? "zonerange" : "zoneskip",
                           "with zonemode=zbd: nvbench's emulated zones cover the whole region, with no range or skip");
        if (rc < 0)
            return rc;
    }
    if (!strided) {
        fm_del(&j->out, "zone_range");
        fm_del(&j->out, "zone_skip");
        return 0;
    }
    if (!sized)
        return fm_err(j, "zonemode", "'strided' needs zonesize (fio refuses it without)");
    const char *rw = fm_get(&j->out, "rw");
    const char *why = rw && !strncmp(rw, "rand", 4) ? "random I/O in zones: nvbench moves only sequential I/O "
                                                      "through zones"
                      : fm_get(&j->out, "bssplit") ? "with bssplit: nvbench moves I/O of one block size only "
                                                     "through zones"
                      : NULL;
    if (!why)
        return 0;
    int rc = fm_refuse(j, "zonemode", "'strided', %s", why);
    if (rc == 1) {
        fm_del(&j->out, "zone_size");
        fm_del(&j->out, "zone_range");
        fm_del(&j->out, "zone_skip");
    }
    return rc < 0 ? rc : 0;
}
