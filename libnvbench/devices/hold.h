/*
 * What the two OS halves of the run's hold share (internal to devices/):
 * devices/hold_common.c, built for Linux and Windows alike, takes the
 * targets in order and lets them go, and words the two refusals the same
 * on both OSes; each OS half (devices/hold.c on Linux, devices/win/hold.c
 * on Windows) opens, checks and locks one target, and shares, reopens and
 * probes (the rest of facts.h's hold).
 */
#ifndef NVB_DEVICES_HOLD_H
#define NVB_DEVICES_HOLD_H

#include <stddef.h>

#include "devices/facts.h"

/* nvb__hold_take with the OS half's step for one target: open h->file
 * once, check it is what planning judged, lock it for h->level, keep it in
 * h->fd (and h->claim_fd); 0 or a negative errno with msg, whatever it
 * opened left in h to be let go. Each OS half defines nvb__hold_take as
 * this with its own step (NVB__HOLD_TAKE_DEFINE), so the calls point one
 * way: from the OS halves to hold_common.c. */
typedef int (*nvb__hold_one_fn)(struct nvb__hold *h, char *msg, size_t len);
int nvb__hold_take_each(struct nvb__hold *h, unsigned n, nvb__hold_one_fn one, char *msg, size_t len);
/* In each OS half, once: its nvb__hold_take (facts.h), over its step. */
#define NVB__HOLD_TAKE_DEFINE(one)                                                 \
    int nvb__hold_take(struct nvb__hold *h, unsigned n, char *msg, size_t len)     \
    {                                                                              \
        return nvb__hold_take_each(h, n, one, msg, len);                           \
    }

/* The refusal of a target that is no longer what planning judged: `was`
 * and `now` describe the two (each OS in its own terms). -ESTALE. */
int nvb__hold_refuse_changed(const struct nvb__hold *h, const char *was, const char *now, char *msg, size_t len);
/* The refusal of a target another run holds in a way that conflicts with
 * h->level: `who` names that run's process, or says why it cannot, or is
 * "". -EBUSY. */
int nvb__hold_refuse_locked(const struct nvb__hold *h, const char *who, char *msg, size_t len);

#endif
