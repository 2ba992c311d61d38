/*
 * The loop's steps for verify=1 (included by core/job.c alone, before its
 * loop steps, so that the compiler inlines the set's operations into the
 * loop): the blocks a job has in flight, the blocks it has written, and
 * the check of a read. The plain loop instance (job.c's loop_run) uses
 * none of them.
 */
#ifndef NVB_CORE_LOOPVERIFY_H
#define NVB_CORE_LOOPVERIFY_H

/* The set of blocks a job has in flight (verify=1 with writes): linear
 * probing, deletion by backward shift, so no tombstones; at most qd keys in
 * 2*qd or more slots. */
static inline unsigned vset_slot(uint64_t key, unsigned mask)
{
    return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static int vset_has(const struct job *j, uint64_t key)
{
    for (unsigned i = vset_slot(key, j->vmask);; i = (i + 1) & j->vmask) {
        if (j->vset[i] == key)
            return 1;
        if (!j->vset[i])
            return 0;
    }
}

static void vset_add(struct job *j, uint64_t key)
{
    unsigned i = vset_slot(key, j->vmask);
    while (j->vset[i])
        i = (i + 1) & j->vmask;
    j->vset[i] = key;
}

static void vset_del(struct job *j, uint64_t key)
{
    unsigned i = vset_slot(key, j->vmask);
    while (j->vset[i] != key) {
        if (!j->vset[i])
            return;
        i = (i + 1) & j->vmask;
    }
    for (unsigned k = (i + 1) & j->vmask; j->vset[k]; k = (k + 1) & j->vmask) {
        unsigned home = vset_slot(j->vset[k], j->vmask);
        /* move k into the hole at i unless its home lies cyclically in (i, k] */
        if (((k - home) & j->vmask) >= ((k - i) & j->vmask)) {
            j->vset[i] = j->vset[k];
            i = k;
        }
    }
    j->vset[i] = 0;
}

static inline uint64_t vkey_of(unsigned t, uint64_t blk) { return ((uint64_t)t << 48 | blk) + 1; }

/* The written-blocks map: the word and bit of the block an I/O in slot
 * holds (its key in the in-flight set names target and block). */
static inline uint64_t *vmap_word(const struct job *j, const struct nvb__io *io, uint64_t *bit)
{
    const uint64_t blk = (j->vkey[io->slot] - 1) & ((1ull << 48) - 1);
    *bit = 1ull << (blk & 63);
    return &j->vmap[j->vmapo[io->target] + blk / 64];
}

/* A write completed: its block holds what it wrote when it wrote all of
 * it, and nothing known otherwise. */
static inline void vmap_note(struct job *j, const struct nvb__io *io)
{
    uint64_t bit, *wd = vmap_word(j, io, &bit);
    if (io->res == (int64_t)io->len) {
        *wd |= bit;
        if (j->blog_n < j->blog_max) /* verify_backlog: checked once N are in (loop_pace holds the rest) */
            j->blog[j->blog_n++] = j->vkey[io->slot];
    } else {
        *wd &= ~bit;
    }
}

/* The verify check of a read that completed whole: with writes, a block
 * is checked once this run wrote it (or it was valid before: vall); a
 * read-only run checks all. Off the plain loop's path (a call per read
 * with verify=1, which checks the whole block anyway). */
static __attribute__((noinline)) void job_verify_read(struct job *j, uint64_t seed, const struct nvb__io *io)
{
    struct nvb__vmismatch mm;
    uint64_t bit = 0, *wd = j->vtrack ? vmap_word(j, io, &bit) : NULL;
    const int mine = wd && (*wd & bit);
    if (wd && !mine && !j->vall[io->target]) {
        j->verify_unchecked++;
        return;
    }
    j->verify_checked++;
    int f = nvb__vblock_check_pat(io->buf, io->len, seed, j->tmap[io->target], io->off, &j->run->w->vpat, &mm);
    /* a block this job wrote carries one of its sequence numbers,
     * no later than its last: else a write was lost (the block is
     * an intact one from before) */
    if (f == NVB__VF_OK && mine &&
        (mm.seq >> 40 != (uint64_t)j->idx + 1 || (mm.seq & ((1ull << 40) - 1)) > j->wseq)) {
        f = NVB__VF_SEQ;
        mm.field = NVB__VF_SEQ;
        mm.expected = (uint64_t)(j->idx + 1) << 40 | j->wseq;
        mm.found = mm.seq;
    }
    if (f != NVB__VF_OK) {
        if (j->nfirst_mm < NVB__VERIFY_FIRST)
            j->first_mm[j->nfirst_mm++] = mm;
        j->verify_by_field[f]++;
        j->verify_mismatches++;
    }
}

#endif
