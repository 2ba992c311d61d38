/*
 * fiomap_verify.c - fio's verify options beside verify itself (whose
 * handler, with the read-back, is in fiomap_opt.c and fiomap.c): the
 * pattern a block carries, the interval of fio's headers, and the options
 * of the write pass that writes what a later job verifies (fill_device,
 * create_serialize).
 */
#include "core/fiomap.h"
#include "core/internal.h"

#include <stdio.h>
#include <string.h>

/* verify_pattern=0xHEX with a checksum or meta verify: nvbench's key of
 * the same layout (the pattern from each block's start, the header over
 * its first bytes). fio's other pattern forms (decimal, 'strings', %o)
 * and a pattern alone (verify=pattern, or no verify: fio then checks the
 * pattern only) are refused. */
int fm_verify_pattern(struct fm_job *j, const char *opt, const char *v)
{
    struct nvb__vpat pat;
    const char *ver = fm_val(j, "verify");
    int rc;
    if (nvb__vpat_parse(v, &pat) < 0 || !pat.len)
        rc = fm_refuse(j, opt, "'%s': nvbench takes a pattern of 0x and 2 to 62 hex digits (an even count), not "
                               "fio's decimal, quoted or %%o forms", v);
    else if (!ver || !strcmp(ver, "pattern") || !strcmp(ver, "pattern_hdr") || !strcmp(ver, "0") ||
             !strcmp(ver, "none"))
        rc = fm_refuse(j, opt, "without a checksum or meta verify fio checks the pattern alone; nvbench's blocks "
                               "always carry a header and CRC32C (give verify=crc32c or meta)");
    else
        return fm_set(j, "verify_pattern", v, opt);
    return rc < 0 ? rc : 0; /* left out: nvbench's random payload */
}

/* verify_interval=N: fio writes a header every N bytes of a block and
 * checks each piece; nvbench checks each block whole (header, CRC32C and
 * every byte), so the same corruption is found, reported per block. */
int fm_verify_interval(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t n;
    TRY(fm_size(j, opt, v, &n));
    if (!n)
        return fm_err(j, opt, "is 0: fio's pieces have at least one byte");
    return fm_warn(j, "fio job section [%s]: verify_interval=%s: fio puts a header every %llu bytes of a block; "
                      "nvbench checks each block whole (its header, CRC32C and every byte): the same corruption "
                      "is found, named by block", j->name, v, (unsigned long long)n);
}

/* fill_device=1: fio writes until the device or file system is full;
 * given a size, fio 3.33 writes that size (surface-scan's 16m wrote 16 MiB
 * and stopped) and a full device ends the job without an error. nvbench
 * writes the size; a full device is an error. Without a size nothing
 * bounds the write: refused. */
int fm_fill_device(struct fm_job *j, const char *opt, const char *v)
{
    int t = fm_flag(j, opt);
    (void)v;
    TRY(t);
    if (!t)
        return 0;
    if (!fm_has(j, "size", NULL) && !fm_has(j, "io_size", NULL)) {
        int rc = fm_refuse(j, opt, "without size fio writes until the device is full (ENOSPC); nvbench writes a "
                                   "size it is given");
        return rc < 0 ? rc : 0;
    }
    return fm_warn(j, "fio job section [%s]: %s with a size: fio writes that size and would stop without an error "
                      "at a full device; nvbench writes the size, and a full device is an error", j->name, opt);
}

/* create_serialize: the order in which fio lays out the jobs' files. nvbench
 * creates and lays out every file before any job starts: the I/O measured
 * is the same. */
int fm_create_serialize(struct fm_job *j, const char *opt, const char *v)
{
    int t = fm_flag(j, opt);
    (void)v;
    TRY(t);
    return t ? 0 : fm_warn(j, "fio job section [%s]: create_serialize=0 accepted: nvbench lays out the files a run "
                              "creates before its jobs start, so they are never created while others run", j->name);
}

/* A flag fio has and nvbench honours as it is when off, with a note of
 * what differs when on. */
static int flag_noted(struct fm_job *j, const char *opt, const char *note)
{
    int t = fm_flag(j, opt);
    TRY(t);
    return t ? fm_warn(j, "fio job section [%s]: %s: %s", j->name, opt, note) : 0;
}

/* verify_dump=1: on a mismatch fio writes the block it expected and the
 * one it read to files. nvbench writes no files: its result names the
 * first mismatches (target, offset, the field that differs, expected and
 * found). Nothing else changes. */
int fm_verify_dump(struct fm_job *j, const char *opt, const char *v)
{
    (void)v;
    return flag_noted(j, opt, "fio writes a mismatched block and the one expected to files; nvbench's result "
                              "names the first 8 mismatches (target, offset, field, expected, found) and writes "
                              "no files");
}

/* verify_backlog_batch: how many of the backlog's blocks fio checks each
 * time, the backlog's own count by default: that, and only that, is what
 * nvbench checks (every block written, once). */
int fm_verify_backlog_batch(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t n, backlog;
    TRY(fm_whole(j, opt, v, "a count of blocks", &n));
    TRY(fm_count(j, "verify_backlog", 0, &backlog));
    if (!n || n == backlog)
        return 0;
    int rc = fm_refuse(j, opt, "%llu with verify_backlog=%llu: fio would check %s; nvbench checks every block of the "
                               "backlog once", (unsigned long long)n, (unsigned long long)backlog,
                       n < backlog ? "only some of the blocks written" : "some blocks more than once");
    return rc < 0 ? rc : 0;
}

/* verify_write_sequence (fio 3.36): fio checks that a block carries the
 * sequence number of the write that should have left it, unless 0. nvbench
 * always checks it (a block of this job's carries one of its own writes'
 * sequence numbers, no later than its last: else a write was lost). fio
 * turns it off for jobs that read each other's racing writes; nvbench's
 * jobs each write a stripe of their own, and the check cannot be skipped. */
int fm_verify_write_sequence(struct fm_job *j, const char *opt, const char *v)
{
    int t = fm_flag(j, opt);
    (void)v;
    TRY(t);
    if (t)
        return 0;
    int rc = fm_refuse(j, opt, "=0: nvbench always checks that a block holds its job's latest write (a lost write "
                               "is a mismatch) and has no way to skip that check; its jobs write stripes of their "
                               "own, so blocks written by another job are never checked against this one's");
    return rc < 0 ? rc : 0;
}

/* verify_async=N: fio hands the checks of a verify read to N threads of
 * their own; nvbench checks each read on the job's thread as it completes:
 * the same checks, the job's thread spending their time. */
int fm_verify_async(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t n;
    TRY(fm_whole(j, opt, v, "a count of threads", &n));
    return !n ? 0 : fm_warn(j, "fio job section [%s]: verify_async=%llu: fio checks verify reads on %llu threads "
                               "of their own; nvbench checks each on the job's thread as it completes (the same "
                               "checks, their time spent by the job)", j->name, (unsigned long long)n,
                            (unsigned long long)n);
}

/* create_on_open=1: fio creates a missing file when the job opens it, not
 * before the jobs start, and does not lay it out. nvbench creates and
 * lays out a file a run creates before its jobs start: the same I/O, on
 * blocks that hold data where fio's would be holes. */
int fm_create_on_open(struct fm_job *j, const char *opt, const char *v)
{
    (void)v;
    return flag_noted(j, opt, "fio creates a missing file when the job opens it, empty; nvbench creates and lays "
                              "out the files a run creates before its jobs start (the same I/O; blocks not yet "
                              "written hold data, not holes)");
}
