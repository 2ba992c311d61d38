/*
 * The job loop's pacer: a rate's schedule (core/sched.h: when each I/O is
 * due, how late it went, how long to wait and spin), and think time. The
 * loop (job.c) calls these only with a rate or think time set, so that a
 * plain run pays one predictable branch for each.
 */
#include "core/run.h"

/* The spin before an intended start: the job sleeps (or waits in the
 * engine) until this much before it, then polls to it, so that it arrives
 * on time instead of as late as the kernel wakes it. As long as a timed
 * wait ends late (its running mean, and half that again, and 2 us), at most
 * a quarter of the mean gap and SPIN_MAX_NS: the CPU it costs is counted
 * (rate.spin_ns). */
#define SPIN_MAX_NS 200000u
uint64_t nvb__pace_spin(const struct job *j)
{
    uint64_t s = j->wake_late + j->wake_late / 2 + 2000;
    uint64_t cap = j->sched.period_ns / 4 < SPIN_MAX_NS ? j->sched.period_ns / 4 : SPIN_MAX_NS;
    return s < cap ? s : cap;
}

/* A timed wait meant to end at `at` ended at now: the running mean of how
 * late (weight 1/8). */
void nvb__pace_woke(struct job *j, uint64_t at, uint64_t now)
{
    uint64_t late = now > at ? now - at : 0;
    if (late > 10 * SPIN_MAX_NS)
        late = 10 * SPIN_MAX_NS; /* a preemption, not the timer: do not spin for it */
    j->wake_late = j->wake_late - j->wake_late / 8 + late / 8;
}

/* How late the submit call at ts is for one I/O of its batch: the part
 * spent waiting for a slot (from the later of the intended start and the
 * queue filling, to the slot freed) and the rest, the job thread's own
 * lateness. Over the I/Os the engine took (submissions.ios). */
void nvb__pace_lag(struct job *j, const struct nvb__io *io, uint64_t ts)
{
    const struct sched *s = &j->sched;
    uint64_t lag = ts > io->t_due ? ts - io->t_due : 0;
    uint64_t from = io->t_due > j->full_since ? io->t_due : j->full_since;
    uint64_t upto = j->freed_at < ts ? j->freed_at : ts;
    uint64_t qf = upto > from ? upto - from : 0;
    if (qf > lag)
        qf = lag;
    j->sub.lag_sum += lag;
    j->sub.qfull_sum += qf;
    j->sub.late_sum += lag - qf;
    if (lag > j->sub.lag_max)
        j->sub.lag_max = lag;
    if (qf > j->sub.qfull_max)
        j->sub.qfull_max = qf;
    if (lag - qf > j->sub.late_max)
        j->sub.late_max = lag - qf;
    if (lag >= s->period_ns)
        j->sub.lagged++;
}

/* The batch's intended starts, taken off the schedule in batch order, and
 * with lag (a counted batch the engine took whole) the lag of each. */
void nvb__pace_stamp(struct job *j, unsigned n, uint64_t ts, int lag)
{
    struct sched *s = &j->sched;
    for (unsigned i = 0; i < n; i++) {
        struct nvb__io *io = j->batch[i];
        io->t_due = s->next;
        nvb__sched_step(s);
        if (lag)
            nvb__pace_lag(j, io, ts);
    }
}

/* The engine's next wait, with a rate: while a slot is free it ends no
 * later than `spin` before the next intended start, and within that it is a
 * poll (the loop spins to the start, reaping as it goes); with the queue
 * full, or draining, it is the usual one (and that waiting counts in the
 * latency of the I/Os due meanwhile, open loop). Returns the completions to
 * wait for; *wake_at is when a wait the schedule bounds should end (0: none
 * does), *spinning whether this is a poll of the spin. */
unsigned nvb__pace_wait(struct job *j, unsigned minw, uint64_t now, int full, unsigned n, uint64_t spin,
                              uint64_t *wake_at, int *spinning)
{
    j->wait_ns = j->wait_base;
    *wake_at = 0;
    *spinning = 0;
    if (full)
        return minw;
    uint64_t next = j->sched.next;
    if (next <= now)
        return n ? 0 : minw; /* due: poll and submit it (none went: verify waits for a block) */
    if (next - now <= spin) {
        *spinning = 1;
        return 0;
    }
    if (!j->wait_base || next - now - spin < j->wait_base) {
        j->wait_ns = next - now - spin;
        *wake_at = next - spin;
    }
    return minw;
}

/* The job thinks: think_ns, or to the end of the run or a stop, slept (not
 * spun) in slices so that a stop is seen. A rate's schedule (open or
 * closed: `open` here is "has one") pauses with it: its next intended
 * starts move by the time slept, so the pause is neither lag nor latency.
 * Returns the time slept. */
uint64_t nvb__pace_think(struct job *j, int open, uint64_t think_ns, uint64_t end_ns)
{
    const uint64_t t0 = nvb__now_ns();
    uint64_t until = t0 + think_ns, now = t0;
    if (end_ns && until > end_ns)
        until = end_ns;
    while (now < until && !nvb__run_stopping(j->run)) {
        nvb__sleep_ns(until - now < WAIT_SLICE_NS ? until - now : WAIT_SLICE_NS);
        now = nvb__now_ns();
    }
    if (open)
        j->sched.next += now - t0;
    return now - t0;
}
