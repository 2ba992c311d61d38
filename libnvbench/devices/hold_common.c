/* The run's hold on its targets, the part that is the same on every OS
 * (devices/hold.h): built with the Linux and the Windows devices sources
 * alike. What opening, checking and locking one target means is each OS
 * half's (devices/hold.c, devices/win/hold.c). */
#include <errno.h>
#include <stdio.h>

#include "devices/hold.h"
#include "platform/platform.h"
#include "util/util.h"

int nvb__hold_take_each(struct nvb__hold *h, unsigned n, nvb__hold_one_fn one, char *msg, size_t len)
{
    msg[0] = 0;
    for (unsigned i = 0; i < n; i++)
        h[i].fd = h[i].claim_fd = h[i].alias_fd = -1;
    for (unsigned i = 0; i < n; i++) {
        int rc = one(&h[i], msg, len);
        if (rc < 0) {
            nvb__hold_release(h, n);
            return rc;
        }
    }
    return 0;
}

void nvb__hold_release(struct nvb__hold *h, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (h[i].fd >= 0)
            nvb__target_close(h[i].fd); /* the lock (and Linux's O_EXCL claim) goes with it */
        if (h[i].claim_fd >= 0)
            nvb__target_close(h[i].claim_fd);
        if (h[i].alias_fd >= 0)
            nvb__target_close(h[i].alias_fd);
        h[i].fd = h[i].claim_fd = h[i].alias_fd = -1;
    }
}

int nvb__hold_refuse_changed(const struct nvb__hold *h, const char *was, const char *now, char *msg, size_t len)
{
    snprintf(msg, len, "target '%s' changed between planning and opening: it was %s and is now %s; refusing "
             "to run on something that was not checked", h->path, was, now);
    return -ESTALE;
}

int nvb__hold_refuse_locked(const struct nvb__hold *h, const char *who, char *msg, size_t len)
{
    snprintf(msg, len, "target '%s' is in use by another run%s%s%s: %s; two runs on one target would overwrite each "
             "other's data%s", h->path, who[0] ? " (" : "", who, who[0] ? ")" : "",
             h->level == NVB__HOLD_WRITE ? "it is being written or verified" : "it is being written",
             h->level == NVB__HOLD_VERIFY ? " and a verifying run would report the other's writes as mismatches" : "");
    return -EBUSY;
}
