/*
 * Discovery internals (not for core/ or engines/): what the files that
 * build and describe a device list share.
 *
 *   sysfs.c       reading one attribute, listing a directory, NVMe names
 *   devlist.c     the device list: find by name or number, free
 *   scan.c        the scan: every block device and its partitions
 *   nvme_sysfs.c  controllers, subsystem and multipath of NVMe namespaces
 *   mounts.c      mounts and swap
 *   resolve.c     a user's path to a kernel name
 *   probe.c       signature and Identify (opens device nodes)
 *   dev_json.c    a device as JSON, and nvb_device_get's lookup
 *   api.c         the public nvb_device* functions
 *
 * The rest of the library reaches discovery through devices/devices.h.
 */
#ifndef NVB_DEVICES_DISCOVER_H
#define NVB_DEVICES_DISCOVER_H

#include <stddef.h>
#include <stdint.h>

#include "devices/devices.h"

/* ---- sysfs.c ---- */
/* a "/" b into out: 0 or -ENAMETOOLONG. */
int nvb__pjoin(char *out, size_t len, const char *a, const char *b);
/* dir/name exists. */
int nvb__exists(const char *dir, const char *name);
int nvb__is_dir(const char *p);
void nvb__rstrip(char *s);
/* First line of dir/name, blanks around it removed (NVMe model and serial
 * strings are space-padded). Length, or -errno with out = "". */
int nvb__rd_str(const char *dir, const char *name, char *out, size_t len);
/* dir/name as a number (any base strtoll takes), or dflt. */
int64_t nvb__rd_i64(const char *dir, const char *name, int64_t dflt);
/* The same, 0 for missing or negative. */
uint64_t nvb__rd_u64(const char *dir, const char *name);
/* src (NULL: "") into dst, truncated. */
void nvb__copy(char *dst, size_t len, const char *src);
int  nvb__strv_add(struct nvb__strv *v, const char *s);
void nvb__strv_free(struct nvb__strv *v);
/* Entries of a directory (no dot entries), in natural order (nvme0n2 before
 * nvme0n10). A missing directory is an empty list. 0 or -errno. */
int nvb__list_dir(const char *dir, struct nvb__strv *out);
/* How many entries, -1 when it cannot be read. */
int nvb__count_dir(const char *dir);
/* realpath of dir/name, or "". */
void nvb__resolve_at(const char *dir, const char *name, char *out, size_t len);
/* The last component of a path. */
const char *nvb__base(const char *p);
/* nvme<a>n<b> (head or single namespace): 1, with a and b. */
int nvb__parse_ns_name(const char *s, int *a, int *b);
/* nvme<a>c<c>n<b> (hidden multipath path): 1, with a, c and b. */
int nvb__parse_path_name(const char *s, int *a, int *c, int *b);

/* ---- devlist.c ---- */
/* The device whose "maj:min" is mm, or NULL. */
struct nvb__dev *nvb__devlist_find_majmin(const struct nvb__devlist *l, const char *mm);

/* ---- the scan's later phases (nvme_sysfs.c, mounts.c) ---- */
/* Controllers, subsystem, multipath role and generic node of d, an NVMe
 * namespace or path. 0 or -ENOMEM. */
int nvb__read_nvme(const struct nvb__devctx *cx, struct nvb__devlist *l, struct nvb__dev *d);
/* Mounts of every device in l, by device number. 0 or -ENOMEM. */
int nvb__read_mounts(const struct nvb__devctx *c, struct nvb__devlist *l);
/* Active swap: marks devices, lists swap files. */
void nvb__read_swaps(const struct nvb__devctx *c, struct nvb__devlist *l);

#endif
