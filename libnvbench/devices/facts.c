/* What the device facts of a target say about a workload, the same on
 * every OS (devices/facts.h): built with the Linux and the Windows devices
 * sources alike. */
#include <stdio.h>

#include "devices/facts.h"
#include "util/util.h"

int nvb__iu_warning(const struct nvb__tdev *f, uint64_t bs, const char *path, char *out, size_t len)
{
    out[0] = 0;
    if (!f->valid || !f->iu || !bs || bs % f->iu == 0)
        return 0;
    char b1[32], b2[32];
    snprintf(out, len, "write bs %s is %s the indirection unit %s of '%s' (from %s): the drive rewrites whole "
             "units, so writes run below its rating", nvb__fmt_size(bs, b1, sizeof b1),
             bs < f->iu ? "below" : "not a multiple of", nvb__fmt_size(f->iu, b2, sizeof b2), path, f->iu_source);
    return 1;
}
