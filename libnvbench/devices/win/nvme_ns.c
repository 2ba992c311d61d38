/* NVMe passthrough targets are a Linux notion (generic nodes /dev/ngXnY
 * and io_uring commands): on Windows no path names one. */
#include "devices/nvme_ns.h"

#include <errno.h>
#include <stdio.h>

int nvb__nvme_ns_find(const char *path, struct nvb__nvme_ns *ns, char *msg, size_t len)
{
    (void)ns;
    snprintf(msg, len, "'%s': NVMe passthrough through generic nodes is Linux only", path);
    return -ENODEV;
}
