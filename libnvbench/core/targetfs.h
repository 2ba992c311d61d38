/* Targets that are not storage (targetfs.c). Internal. */
#ifndef NVB_CORE_TARGETFS_H
#define NVB_CORE_TARGETFS_H

#include <stddef.h>

#include "platform/platform.h"

/* Refuse a target on a file system that is no storage, before anything is
 * opened or created. found: 0 if path exists (ti describes it), -ENOENT if
 * it does not, anything else: nothing is checked (0). Refused:
 *   - any target on a kernel interface (sysfs, procfs, debugfs, ...):
 *     reading or writing there reads or sets the kernel's state (-EINVAL);
 *   - a regular file or directory on the device directory (devtmpfs, or a
 *     container's /dev): not the device it is named like (-ENODEV), or a
 *     scratch file in memory (-EINVAL); device nodes there are fine;
 *   - a missing path whose nearest existing directory is either: the device
 *     is missing (-ENOENT), and no file is ever created there.
 * 0 or negative errno with err naming the target and the file system. */
int nvb__target_fs_check(const char *path, int found, const struct nvb__target_info *ti, char *err,
                         size_t errlen);

#endif
