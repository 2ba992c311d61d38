/*
 * fiomap_ios.c - fio's number_ios: a pass of a job (one of its loops) ends
 * after N I/Os, or at its other bound (size, io_size), whichever comes first
 * (fio: it "does not extend the amount of I/O that will be done"); fio 3.33
 * counts afresh each pass (loops=3 over 256 blocks with number_ios=300: 768
 * reads), and a time_based job starts the next pass until its runtime
 * (number_ios=100, runtime=3: 165059 reads). nvbench's ios counts all jobs
 * together and takes no io_limit beside it, so a size bound of whole blocks
 * of one size becomes a count of I/Os: loops x the smaller of the two.
 */
#include "core/fiomap.h"

#include <stdint.h>
#include <stdlib.h>

int fm_number_ios(struct fm_job *j)
{
    uint64_t n;
    const char *v = fm_val(j, "number_ios");
    if (!v || !*v)
        return 0;
    TRY(fm_count(j, "number_ios", 0, &n));
    if (!n) /* fio's default: no count */
        return 0;
    const char *lim = fm_get(&j->out, "io_limit");
    if (!lim) /* time_based: each pass ends sooner, the job at its runtime as without it */
        return fm_warn(j, "fio job section [%s]: number_ios=%llu with time_based: fio ends each pass over the "
                          "region after that many I/Os and starts the next until runtime; nvbench runs for "
                          "runtime (the I/O is the same, its random map's passes longer)", j->name,
                       (unsigned long long)n);
    if (fm_get(&j->out, "bssplit")) { /* lenient: left out, the byte bound stays */
        int rc = fm_refuse(j, "number_ios", "beside a byte bound with bssplit: nvbench bounds a job by bytes or by "
                                            "I/Os, and the sizes drawn make the two bounds differ");
        return rc < 0 ? rc : 0;
    }
    uint64_t loops;
    TRY(fm_count(j, "loops", 1, &loops));
    const uint64_t jobs = j->numjobs ? j->numjobs : 1;
    /* io_limit: whole blocks of bs, loops passes, for all jobs */
    const uint64_t bs = strtoull(fm_get(&j->out, "bs") ? fm_get(&j->out, "bs") : "4096", NULL, 10);
    const uint64_t pass = bs && loops ? strtoull(lim, NULL, 10) / jobs / loops / bs : 0;
    n = (pass < n ? pass : n) * loops; /* no overflow: at most the blocks of io_limit */
    fm_del(&j->out, "io_limit");
    if (n > UINT64_MAX / jobs)
        return fm_err(j, "number_ios", "%llu jobs of %llu I/Os are more than 2^64 - 1 I/Os",
                      (unsigned long long)jobs, (unsigned long long)n);
    return fm_setu(j, "ios", n * jobs, "number_ios");
}
