/*
 * fiomap_rate.c - fio's rate (bytes per second) as nvbench's rate_iops.
 * fio caps each direction of a job on its own: rate=X on a mixed job lets
 * it read X and write X a second (fio 3.33, randrw with rate=400k, 4 KiB
 * blocks: 100 reads and 100 writes a second, at rwmixread=50 and at 70
 * alike: the caps, not the mix, decide). nvbench's rate_iops caps the
 * I/Os of all directions and all jobs together: a mixed job's is twice a
 * direction's, with the mix at 50 (another mix is refused: fio's caps
 * would override it). A rate that is not a whole number of blocks a
 * second (exitwhat's 300 bytes/s of 4 KiB blocks: one I/O every 13.65 s)
 * is rate_iops over a rate_period of seconds, the fraction reduced.
 */
#include "core/fiomap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY_S 86400ull

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int fm_rate_bytes(struct fm_job *j)
{
    char one[NVB_FIOJOB_MAX_LINE + 1];
    const char *bsv = fm_get(&j->out, "bs"), *rw = fm_get(&j->out, "rw"), *mix = fm_get(&j->out, "rwmix");
    uint64_t b, bs = bsv ? strtoull(bsv, NULL, 10) : 4096;
    if (!fm_has(j, "rate", NULL))
        return 0;
    if (!fm_val(j, "rate"))
        return fm_err(j, "rate", "needs a value (option=value)");
    int rc = fm_one_value(j, "rate", one, sizeof one);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    TRY(fm_size(j, "rate", one, &b));
    if (!b || !bs)
        return 0; /* fio: no cap; a bs of 0 is refused by the workload, naming bs */
    const int mixed = rw && (!strcmp(rw, "randrw") || !strcmp(rw, "rw"));
    const char *why = fm_get(&j->out, "bssplit") ? "with bssplit: fio counts the bytes of blocks of several sizes, "
                                                   "nvbench caps I/Os a second (rate_iops)"
                      : mixed && mix && strcmp(mix, "50") ? "on a mixed job with rwmixread other than 50: fio caps "
                                                            "reads and writes each at the rate, so the caps and not "
                                                            "the mix decide its reads and writes; nvbench caps both "
                                                            "together and keeps the mix"
                      : NULL;
    const uint64_t dirs = mixed ? 2 : 1, g = gcd(b * dirs, bs), per_s = bs / g;
    if (!why && per_s > DAY_S)
        why = "is under one block a day: nvbench's rate_period is at most a day";
    if (why) {
        rc = fm_refuse(j, "rate", "%llu bytes/s %s", (unsigned long long)b, why);
        return rc < 0 ? rc : 0;
    }
    if (fm_get(&j->out, "rate_iops"))
        return fm_err(j, "rate", "and rate_iops both cap the job: give one");
    const uint64_t n = b * dirs / g; /* I/Os per per_s seconds, per job */
    if (j->numjobs && n > UINT64_MAX / j->numjobs)
        return fm_err(j, "rate", "over %llu jobs is more than 2^64 - 1 I/Os a second", (unsigned long long)j->numjobs);
    TRY(fm_setu(j, "rate_iops", n * j->numjobs, "rate")); /* fio's is per job, nvbench's over all jobs */
    if (per_s > 1) {
        char p[32];
        snprintf(p, sizeof p, "%llus", (unsigned long long)per_s);
        TRY(fm_set(j, "rate_period", p, "rate"));
    }
    return fm_set(j, "rate_mode", "closed", "rate");
}
