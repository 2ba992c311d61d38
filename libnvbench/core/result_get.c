/*
 * A result's public accessors: its JSON text (nvb_result_json), any figure
 * of it by path (nvb_result_get, through the same writer walking to that
 * path), and the typed getters. The writer is result.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/util.h"

NVB_API int nvb_result_json(const struct nvb_result *r, char **json)
{
    if (!r || !json)
        return -EINVAL;
    struct nvb__buf b = {0};
    struct nvb__json j;
    memset(&j, 0, sizeof j);
    j.b = &b;
    int rc = nvb__result_emit(r, &j);
    if (rc < 0 || b.oom || !b.s) {
        free(b.s);
        *json = NULL;
        return -ENOMEM;
    }
    nvb__buf_putn(&b, "\n", 1);
    *json = b.s;
    return 0;
}

NVB_API int nvb_result_point_json(const struct nvb_result *r, size_t i, char **json)
{
    if (!r || !json)
        return -EINVAL;
    *json = NULL;
    if (i >= r->nts)
        return -ERANGE;
    struct nvb__buf b = {0};
    if (nvb__ts_point_json(r, &r->ts[i], &b) < 0 || !b.s) {
        free(b.s);
        return -ENOMEM;
    }
    *json = b.s;
    return 0;
}

NVB_API int nvb_result_get(const struct nvb_result *r, const char *path, double *value)
{
    if (!r || !path || !value)
        return -EINVAL;
    struct nvb__json j;
    memset(&j, 0, sizeof j);
    j.want = path;
    nvb__result_emit(r, &j);
    if (!j.found)
        return -ENOENT;
    *value = j.got;
    return 0;
}

/* ------------------------------------------------------------ getters */

static const struct nvb__dstat *dstat(const struct nvb_result *r, int dir)
{
    return (r && (dir == NVB_READ || dir == NVB_WRITE || dir == NVB_TRIM)) ? &r->tot[dir] : NULL;
}

NVB_API const char *nvb_result_error(const struct nvb_result *r) { return r ? r->errmsg : ""; }
NVB_API const char *nvb_result_host(const struct nvb_result *r) { return r ? r->host : ""; }
NVB_API int nvb_result_errno(const struct nvb_result *r) { return r ? r->err : 0; }
NVB_API int nvb_result_cancelled(const struct nvb_result *r) { return r ? r->cancelled : 0; }
NVB_API double nvb_result_duration(const struct nvb_result *r) { return r ? r->duration_s : 0; }
NVB_API uint64_t nvb_result_errors(const struct nvb_result *r) { return r ? r->errors : 0; }

NVB_API uint64_t nvb_result_ios(const struct nvb_result *r, int dir)
{
    const struct nvb__dstat *d = dstat(r, dir);
    return d ? d->ios : 0;
}

NVB_API uint64_t nvb_result_bytes(const struct nvb_result *r, int dir)
{
    const struct nvb__dstat *d = dstat(r, dir);
    return d ? d->bytes : 0;
}

NVB_API double nvb_result_iops(const struct nvb_result *r, int dir)
{
    const struct nvb__dstat *d = dstat(r, dir);
    return d && r->duration_s > 0 ? (double)d->ios / r->duration_s : 0;
}

NVB_API double nvb_result_bw(const struct nvb_result *r, int dir)
{
    const struct nvb__dstat *d = dstat(r, dir);
    return d && r->duration_s > 0 ? (double)d->bytes / r->duration_s : 0;
}

NVB_API double nvb_result_lat_mean(const struct nvb_result *r, int dir)
{
    const struct nvb__dstat *d = dstat(r, dir);
    return d && d->hist ? nvb__hist_mean(d->hist) : 0;
}

NVB_API double nvb_result_lat_pct(const struct nvb_result *r, int dir, double pctv)
{
    const struct nvb__dstat *d = dstat(r, dir);
    if (!d || !d->hist || !(pctv >= 0 && pctv <= 100))
        return 0;
    return nvb__hist_pct(d->hist, pctv);
}

NVB_API size_t nvb_result_warning_count(const struct nvb_result *r)
{
    return r ? r->nwarn : 0;
}

NVB_API const char *nvb_result_warning(const struct nvb_result *r, size_t i)
{
    return r && i < r->nwarn ? r->warn[i] : NULL;
}
