/*
 * fiomap_data.c - fio's options of what writes carry beyond the keys that
 * take fio's values as they are (buffer_compress_percentage,
 * dedupe_percentage): the dedupe mode and its working set.
 */
#include "core/fiomap.h"

#include <stdio.h>
#include <string.h>

/* dedupe_mode, with dedupe_working_set_percentage and dedupe_global, read
 * here whatever their order in the file. repeat (fio's default): fio's
 * duplicates repeat the last fresh block, nvbench's are one block of the
 * run: the same share of blocks duplicates (data_dedupe). working_set:
 * data_dedupe_set, fio's default 5%, and data_dedupe_global. Without
 * dedupe_percentage fio makes no duplicates: nothing to map. */
int fm_dedupe_mode(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t pct, set, global = 0;
    TRY(fm_count(j, "dedupe_percentage", 0, &pct));
    if (strcmp(v, "repeat") && strcmp(v, "working_set"))
        return fm_err(j, opt, "'%s': fio's modes are repeat and working_set", v);
    if (!pct)
        return 0;
    if (!strcmp(v, "repeat"))
        return fm_warn(j, "fio job section [%s]: dedupe_mode=repeat: fio's duplicates repeat the last fresh block, "
                          "nvbench's are one block of the run: the same share of duplicates", j->name);
    TRY(fm_count(j, "dedupe_working_set_percentage", 5, &set));
    if (!set || set > 100)
        return fm_err(j, "dedupe_working_set_percentage", "is %llu: a working set is 1 to 100%% of the region",
                      (unsigned long long)set);
    if (fm_has(j, "dedupe_global", NULL))
        TRY(global = (uint64_t)fm_flag(j, "dedupe_global"));
    TRY(fm_setu(j, "data_dedupe_set", set, fm_has(j, "dedupe_working_set_percentage", NULL)
                                                ? "dedupe_working_set_percentage" : opt));
    return global ? fm_set(j, "data_dedupe_global", "1", "dedupe_global") : 0;
}

/* dedupe_working_set_percentage and dedupe_global: taken by dedupe_mode
 * (above); without dedupe_mode=working_set fio ignores them, as nvbench
 * does. Their values are checked either way. */
int fm_dedupe_set(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t n;
    if (!strcmp(opt, "dedupe_global")) {
        int t = fm_flag(j, opt);
        return t < 0 ? t : 0;
    }
    TRY(fm_whole(j, opt, v, "a whole percentage", &n));
    return n > 100 ? fm_err(j, opt, "is %llu: at most 100%%", (unsigned long long)n) : 0;
}
