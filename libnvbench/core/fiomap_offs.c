/*
 * fiomap_offs.c - fio's offset patterns of sequential jobs: the rw=...:N
 * modifier, rw_sequencer, and zonemode=strided with zonesize, zonerange
 * and zoneskip, as the keys seq_stride and zone_* (core/offpat.h).
 */
#include "core/fiomap.h"

#include <stdio.h>
#include <stdlib.h>
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

/* offset_increment=inc other than size, with numjobs n: fio's clone i
 * works from offset + i x inc over its own region (size, or the rest of
 * the target). nvbench's jobs share one region, each starting on its own
 * share: a region of n x inc starts them where fio's clones start. That is
 * fio's job exactly when a clone's I/O of one loop (io_size, or size, with
 * the rw's stride between I/Os) fits in inc, so that it never reaches the
 * next clone's start, and fits in the clone's own region (fio would wrap
 * there); with loops, when fio's next loop (again from the clone's start)
 * is where nvbench's job wraps to its share's start: each job keeps to its
 * share with verify only. fio's cross-stripe-verify: 30 clones 16 MiB
 * apart, 2 MiB of 16 KiB writes 112 KiB apart each, loops=2. Otherwise
 * refused. On success *per_target is the region of n x inc. */
int fm_stripes(struct fm_job *j, uint64_t bs, uint64_t inc, uint64_t *per_target, uint64_t total)
{
    const char *sv = fm_get(&j->out, "seq_stride"), *rw = fm_get(&j->out, "rw"), *ver = fm_get(&j->out, "verify");
    const int64_t stride = sv ? strtoll(sv, NULL, 10) : 0;
    const uint64_t n = j->numjobs;
    uint64_t loops, io = total;
    TRY(fm_count(j, "loops", 1, &loops));
    if (fm_has(j, "io_size", NULL) || fm_has(j, "io_limit", NULL))
        TRY(fm_size(j, fm_has(j, "io_size", NULL) ? "io_size" : "io_limit", NULL, &io));
    const uint64_t k = io / bs, step = bs + (uint64_t)(stride > 0 ? stride : 0);
    const uint64_t span = k && k <= UINT64_MAX / step ? (k - 1) * step + bs : UINT64_MAX;
    const size_t nt = j->out.targets.n ? j->out.targets.n : 1; /* the null engine: none */
    const uint64_t own = *per_target != UINT64_MAX ? *per_target
                         : total / nt > (n - 1) * inc ? total / nt - (n - 1) * inc : 0;
    const char *why = nt != 1                         ? "one target only"
                      : strncmp(rw ? rw : "read", "rand", 4) == 0 ? "random clones draw from their own regions, "
                                                                    "nvbench's jobs from the whole"
                      : stride < 0 || inc % bs      ? "a forward stride and an increment of whole blocks only"
                      : !k || span > inc || span > own ? "a clone's I/O must fit in the increment and its region"
                      : inc > UINT64_MAX / n        ? "more than 2^64 - 1 bytes"
                      : loops > 1 && (!ver || strcmp(ver, "1") || k * step + bs <= inc)
                          ? "with loops, each pass must end where the increment does, with verify (fio starts each "
                            "loop again at the clone's start)"
                          : NULL;
    if (why) {
        int rc = fm_refuse(j, "offset_increment", "fio's clones of a job start offset_increment apart, each over its "
                                                  "own region; nvbench's jobs share one region, each starting on its "
                                                  "share: %s", why);
        return rc < 0 ? rc : 0;
    }
    *per_target = inc * n;
    return 0;
}
