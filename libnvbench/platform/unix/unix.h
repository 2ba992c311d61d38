/* Helpers the Linux halves of the platform layer share (internal to
 * platform/unix/). */
#ifndef NVB_PLATFORM_UNIX_H
#define NVB_PLATFORM_UNIX_H

#include <stdint.h>

/* The unsigned decimal number a small file (sysfs, cgroupfs) starts with;
 * 0 when the file cannot be read or holds no number ("max"). */
uint64_t nvb__unix_read_u64(const char *path);

#endif
