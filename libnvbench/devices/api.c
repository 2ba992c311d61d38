/*
 * The public device API (include/nvbench.h): scan, probe, and hand each
 * device over as JSON or to a callback.
 */
#include <errno.h>
#include <stdlib.h>

#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"
#include "nvbench.h"

struct nvb_device {
    const struct nvb__devctx *c;
    struct nvb__devlist *l;
    struct nvb__dev *d;
};

/* The context for sysfs_root (NULL: the live system) and its device list;
 * the caller frees both. 0 or -errno. */
static int scan_root(const char *sysfs_root, struct nvb__devctx **cp, struct nvb__devlist *l)
{
    struct nvb__devctx *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    int rc = nvb__devctx_init(c, sysfs_root);
    if (rc == 0)
        rc = nvb__dev_scan(c, l);
    if (rc < 0) {
        free(c);
        return rc;
    }
    *cp = c;
    return 0;
}

/* nvb_devices_json's callback: one more element of the array. */
static int put_json(const struct nvb_device *dev, void *arg)
{
    struct nvb__buf *b = arg;
    if (b->len > 1) /* after "[" and a device */
        nvb__buf_putn(b, ",\n", 2);
    nvb__dev_json(dev->l, dev->d, b);
    return 0;
}

NVB_API int nvb_devices_json(const char *sysfs_root, char **json)
{
    if (!json)
        return -EINVAL;
    *json = NULL;
    struct nvb__buf b = {0};
    nvb__buf_putn(&b, "[", 1);
    int rc = nvb_device_enumerate(sysfs_root, put_json, &b);
    if (rc < 0) {
        free(b.s);
        return rc;
    }
    nvb__buf_puts(&b, "]\n");
    return nvb__buf_take(&b, json);
}

NVB_API int nvb_device_json(const char *path, char **json)
{
    if (!json || !path || !*path)
        return -EINVAL;
    *json = NULL;
    struct nvb__devctx *c;
    struct nvb__devlist l;
    int rc = scan_root(NULL, &c, &l);
    if (rc < 0)
        return rc == -ENOENT ? -ENODEV : rc;
    char name[64];
    rc = nvb__dev_resolve(c, &l, path, name, sizeof name);
    struct nvb__dev *d = rc == 0 ? nvb__devlist_find(&l, name) : NULL;
    if (d) {
        nvb__dev_probe(c, &l, d, NVB__PROBE_ALL);
        struct nvb__buf b = {0};
        nvb__dev_json(&l, d, &b);
        nvb__buf_putn(&b, "\n", 1);
        rc = nvb__buf_take(&b, json);
    } else if (rc == 0) {
        rc = -ENODEV;
    }
    nvb__devlist_free(&l);
    free(c);
    return rc;
}

NVB_API int nvb_device_enumerate(const char *sysfs_root, nvb_device_fn fn, void *arg)
{
    if (!fn)
        return -EINVAL;
    struct nvb__devctx *c;
    struct nvb__devlist l;
    int rc = scan_root(sysfs_root, &c, &l);
    if (rc < 0)
        return rc;
    unsigned i;
    for (i = 0; i < l.n; i++) {
        nvb__dev_probe(c, &l, &l.d[i], NVB__PROBE_ALL);
        struct nvb_device dev = {c, &l, &l.d[i]};
        int r = fn(&dev, arg);
        if (r) {
            rc = r;
            break;
        }
    }
    if (rc == 0)
        rc = (int)i;
    nvb__devlist_free(&l);
    free(c);
    return rc;
}

NVB_API int nvb_device_get(const struct nvb_device *dev, const char *key, char *buf, size_t len)
{
    if (!dev || !key || !buf || !len)
        return -EINVAL;
    return nvb__dev_get(dev->l, dev->d, key, buf, len);
}
