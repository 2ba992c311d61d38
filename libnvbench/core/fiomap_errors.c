/*
 * fiomap_errors.c - fio's ignore_error, and the errnos continue_on_error
 * goes on after. fio continues after an error of a kind it was told to
 * (continue_on_error) only when the errno is in that kind's list: EIO and
 * EILSEQ by default, replaced by ignore_error's list of the kind
 * (READ,WRITE,VERIFY lists; a trim's errors are writes'); any other errno
 * stops the job as without continue_on_error. nvbench has one list a job
 * (continue_errnos): a job doing reads and writes whose two lists differ
 * is refused.
 */
#include "core/fiomap.h"
#include "core/internal.h"

#include <stdio.h>
#include <string.h>

/* List k (0 reads, 1 writes, 2 verify) of ignore_error's value into buf:
 * "" when not given. */
static void list_of(const char *v, int k, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; v && i < k; i++) {
        v = strchr(v, ',');
        v = v ? v + 1 : NULL;
    }
    if (v)
        snprintf(buf, len, "%.*s", (int)strcspn(v, ","), v);
}

int fm_ignore_error(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t bits[NVB__ERRNO_SLOTS / 64];
    char one[NVB_FIOJOB_MAX_LINE + 1];
    for (int k = 0; k < 3; k++) {
        list_of(v, k, one, sizeof one);
        if (nvb__parse_errno_set(one, bits) < 0)
            return fm_err(j, opt, "'%s': expected READ,WRITE,VERIFY lists of errno names or numbers between ':' "
                                  "(,ENOSPC:EIO)", v);
    }
    return 0;
}

int fm_errnos(struct fm_job *j)
{
    const char *coe = fm_get(&j->out, "continue_on_error"), *rw = fm_get(&j->out, "rw"), *ver = fm_get(&j->out, "verify");
    const char *ign = fm_val(j, "ignore_error");
    if (!coe || strcmp(coe, "1"))
        return 0; /* fio's lists only matter to a job that continues */
    rw = rw ? rw : "read";
    const int mixed = !strcmp(rw, "rw") || !strcmp(rw, "randrw");
    const int reads = mixed || strstr(rw, "read") || (ver && strcmp(ver, "0"));
    const int writes = mixed || strstr(rw, "write") || strstr(rw, "trim");
    char l[2][NVB_FIOJOB_MAX_LINE + 1];
    for (int k = 0; k < 2; k++) {
        list_of(ign, k, l[k], sizeof l[k]);
        if (!l[k][0])
            snprintf(l[k], sizeof l[k], "EIO:EILSEQ"); /* fio's own */
    }
    if (reads && writes && strcmp(l[0], l[1])) {
        int rc = fm_refuse(j, "ignore_error", "'%s' on a job that reads and writes: fio keeps a list for each, "
                                              "nvbench one a job (continue_errnos)", ign);
        return rc < 0 ? rc : 0; /* left out: continue_on_error goes on after any errno */
    }
    const char *list = writes && !reads ? l[1] : l[0];
    if (strlen(list) >= 64)
        return fm_err(j, "ignore_error", "'%s': a list of at most 63 characters", list);
    return fm_set(j, "continue_errnos", list, ign ? "ignore_error" : "continue_on_error");
}
