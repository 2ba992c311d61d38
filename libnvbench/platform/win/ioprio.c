/* I/O priorities by class and level are Linux's: none here. */
#include "platform/platform.h"

#include <errno.h>

int nvb__ioprio_set(unsigned value)
{
    (void)value;
    return -ENOTSUP;
}
