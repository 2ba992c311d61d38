/* procfs and sysfs have no Windows counterpart: the environment's Linux
 * facts, the interrupts, the jobs' CPUs and the RAPL energy are null there,
 * with these reasons (core/explain_env.c, explain_irq.c, explain_place.c,
 * energy.c). What Windows has instead is named, so a reader knows what
 * would fill the gap. */
#include "platform/platform.h"

#include <errno.h>
#include <string.h>

const char *nvb__procfs_unavailable(const char *what)
{
    if (what && !strcmp(what, "interrupts"))
        return "unavailable: not measured on Windows: there is no /proc/interrupts; counts per vector and CPU "
               "would need ETW's interrupt and DPC events";
    if (what && !strcmp(what, "placement"))
        return "unavailable: not measured on Windows: the job threads' CPUs are read from Linux's /proc, "
               "a device's NUMA node from sysfs";
    if (what && !strcmp(what, "environment"))
        return "unavailable: a Linux procfs/sysfs fact, with no Windows counterpart read";
    if (what && !strcmp(what, "energy"))
        return "unavailable: not measured on Windows: RAPL is read from Linux's powercap; Windows gives it "
               "through its Energy Meter Interface, which nvbench does not read";
    return "unavailable: not measured on Windows (Linux procfs/sysfs)";
}

int nvb__text_read(const char *root, const char *rel, char *buf, size_t len)
{
    (void)root;
    (void)rel;
    if (len)
        buf[0] = 0;
    return -ENOTSUP;
}

int nvb__link_base(const char *root, const char *rel, char *out, size_t len)
{
    return nvb__text_read(root, rel, out, len); /* the same refusal */
}
