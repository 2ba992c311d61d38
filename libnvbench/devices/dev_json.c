/*
 * A device as JSON (nvb_device_json, nvb_devices_json), and the value at a
 * dotted path of that JSON (nvb_device_get), from one walk.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/util.h"
#include "devices/devices.h"
#include "devices/discover.h"

/* A small writer that can also answer "what is at this dotted path"
 * (nvb_device_get), from the same walk as the JSON itself. */
struct dj {
    struct nvb__buf *b;
    int depth;
    int first[16], idx[16];
    char path[512];
    size_t plen[16];
    const char *want;
    int found;                   /* 1: scalar, 2: container, 3: null */
    struct nvb__buf val;
    size_t cstart;
    int cdepth;
};

/* Writes the key, extends the path; returns 1 when this is the wanted one. */
static int dj_key(struct dj *j, const char *key)
{
    if (j->depth > 0) {
        if (!j->first[j->depth])
            nvb__buf_putn(j->b, ",", 1);
        j->first[j->depth] = 0;
    }
    size_t n = strlen(j->path);
    j->plen[j->depth] = n;
    if (j->depth > 0) {
        char comp[80];
        if (key)
            snprintf(comp, sizeof comp, "%s", key);
        else
            snprintf(comp, sizeof comp, "%d", j->idx[j->depth]++);
        snprintf(j->path + n, sizeof j->path - n, "%s%s", n ? "." : "", comp);
    }
    if (key) {
        nvb__json_write_str(j->b, key);
        nvb__buf_putn(j->b, ":", 1);
    }
    return j->want && !j->found && !strcmp(j->path, j->want);
}

static void dj_pop(struct dj *j) { j->path[j->plen[j->depth]] = 0; }

static void dj_scalar(struct dj *j, const char *key, const char *text, int quoted, int isnull)
{
    int hit = dj_key(j, key);
    if (isnull)
        nvb__buf_puts(j->b, "null");
    else if (quoted)
        nvb__json_write_str(j->b, text);
    else
        nvb__buf_puts(j->b, text);
    if (hit) {
        j->found = isnull ? 3 : 1;
        if (!isnull)
            nvb__buf_puts(&j->val, text);
    }
    dj_pop(j);
}

static void dj_str(struct dj *j, const char *key, const char *s) { dj_scalar(j, key, s ? s : "", 1, 0); }
/* "" is null: the fact is not known or does not apply */
static void dj_strn(struct dj *j, const char *key, const char *s) { dj_scalar(j, key, s ? s : "", 1, !s || !*s); }
static void dj_null(struct dj *j, const char *key) { dj_scalar(j, key, "", 0, 1); }

static void dj_u64(struct dj *j, const char *key, uint64_t v)
{
    char t[32];
    snprintf(t, sizeof t, "%" PRIu64, v);
    dj_scalar(j, key, t, 0, 0);
}

/* negative: unknown */
static void dj_int(struct dj *j, const char *key, int64_t v)
{
    char t[32];
    snprintf(t, sizeof t, "%" PRId64, v);
    dj_scalar(j, key, t, 0, v < 0);
}

static void dj_bool(struct dj *j, const char *key, int v) { dj_scalar(j, key, v > 0 ? "true" : "false", 0, v < 0); }

/* 0 or not finite: unknown */
static void dj_dbl(struct dj *j, const char *key, double v)
{
    char t[48];
    snprintf(t, sizeof t, "%.10g", v);
    dj_scalar(j, key, t, 0, !(v > 0) || !isfinite(v));
}

static void dj_open(struct dj *j, const char *key, char ch)
{
    int hit = dj_key(j, key);
    if (hit) {
        j->cstart = j->b->len;
        j->cdepth = j->depth;
    }
    nvb__buf_putn(j->b, &ch, 1);
    j->depth++;
    j->first[j->depth] = 1;
    j->idx[j->depth] = 0;
    if (hit)
        j->found = -1; /* in progress */
}

static void dj_close(struct dj *j, char ch)
{
    nvb__buf_putn(j->b, &ch, 1);
    j->depth--;
    if (j->found == -1 && j->depth == j->cdepth && !j->b->oom) {
        nvb__buf_putn(&j->val, j->b->s + j->cstart, j->b->len - j->cstart);
        j->found = 2;
    }
    dj_pop(j);
}

static void dj_strv(struct dj *j, const char *key, const struct nvb__strv *v)
{
    dj_open(j, key, '[');
    for (unsigned i = 0; i < v->n; i++)
        dj_str(j, NULL, v->v[i]);
    dj_close(j, ']');
}

static void emit_ctrl(struct dj *j, const struct nvb__nvme_ctrl *c)
{
    dj_open(j, NULL, '{');
    dj_str(j, "name", c->name);
    dj_str(j, "model", c->model);
    dj_str(j, "serial", c->serial);
    dj_str(j, "firmware_rev", c->firmware_rev);
    dj_strn(j, "transport", c->transport);
    dj_strn(j, "address", c->address);
    dj_strn(j, "state", c->state);
    dj_int(j, "numa_node", c->numa_node);
    dj_int(j, "queue_count", c->queue_count);
    dj_strn(j, "subsysnqn", c->subsysnqn);
    dj_int(j, "cntlid", c->cntlid);
    if (c->pcie) {
        dj_open(j, "pcie", '{');
        dj_dbl(j, "current_link_speed_gts", c->link.cur_gts);
        dj_int(j, "current_link_width", c->link.cur_width > 0 ? c->link.cur_width : -1);
        dj_dbl(j, "max_link_speed_gts", c->link.max_gts);
        dj_int(j, "max_link_width", c->link.max_width > 0 ? c->link.max_width : -1);
        dj_dbl(j, "link_ceiling_gbs", c->link.cur_gbs);
        dj_dbl(j, "max_link_ceiling_gbs", c->link.max_gbs);
        dj_close(j, '}');
    } else {
        dj_null(j, "pcie");
    }
    dj_close(j, '}');
}

static void emit_nvme(struct dj *j, const struct nvb__dev *d)
{
    const struct nvb__nvme *n = d->nvme;
    dj_open(j, "nvme", '{');
    dj_int(j, "nsid", n->nsid);
    dj_str(j, "role", n->role);
    dj_strn(j, "head", n->head);
    dj_strv(j, "paths", &n->paths);
    dj_strn(j, "subsystem", n->subsystem);
    dj_strn(j, "generic_path", n->generic);
    dj_dbl(j, "link_ceiling_gbs", nvb__dev_link_gbs(d));
    dj_open(j, "controllers", '[');
    for (unsigned i = 0; i < n->nctrl; i++)
        emit_ctrl(j, &n->ctrl[i]);
    dj_close(j, ']');
    if (n->id_state == 1) {
        const struct nvb__idns *id = &n->id;
        dj_open(j, "identify", '{');
        dj_str(j, "source", n->id_source);
        dj_u64(j, "nsze", id->nsze);
        dj_u64(j, "lba_size", id->lba_size);
        dj_u64(j, "metadata_size", id->ms);
        dj_u64(j, "nsfeat", id->nsfeat);
        dj_bool(j, "optperf", id->optperf);
        uint64_t lb = id->lba_size;
        dj_int(j, "npwg_bytes", id->optperf ? (int64_t)(id->npwg * lb) : -1);
        dj_int(j, "npwa_bytes", id->optperf ? (int64_t)(id->npwa * lb) : -1);
        dj_int(j, "npdg_bytes", id->optperf ? (int64_t)(id->npdg * lb) : -1);
        dj_int(j, "npda_bytes", id->optperf ? (int64_t)(id->npda * lb) : -1);
        dj_int(j, "nows_bytes", id->optperf ? (int64_t)(id->nows * lb) : -1);
        dj_null(j, "error");
        dj_close(j, '}');
    } else if (d->probed & NVB__PROBE_ID) {
        dj_open(j, "identify", '{');
        dj_null(j, "source");
        dj_str(j, "error", n->id_why[0] ? n->id_why : "not read");
        dj_close(j, '}');
    } else {
        dj_null(j, "identify");
    }
    dj_close(j, '}');
}


static void emit_dev(struct dj *j, const struct nvb__devlist *l, const struct nvb__dev *d)
{
    dj_open(j, NULL, '{');
    dj_str(j, "name", d->name);
    dj_strn(j, "path", d->path);
    dj_str(j, "kind", d->kind);
    dj_str(j, "dev", d->majmin);
    dj_bool(j, "hidden", d->hidden);
    dj_u64(j, "size", d->size);
    dj_u64(j, "logical_block_size", d->lbs);
    dj_u64(j, "physical_block_size", d->pbs);
    dj_u64(j, "minimum_io_size", d->min_io);
    dj_u64(j, "optimal_io_size", d->opt_io);
    dj_u64(j, "max_transfer", d->max_transfer);
    dj_u64(j, "max_sectors", d->max_sectors);
    dj_bool(j, "rotational", d->rotational);
    dj_strn(j, "zoned", d->zoned);
    dj_strn(j, "scheduler", d->scheduler);
    dj_int(j, "nr_requests", d->nr_requests);
    dj_bool(j, "io_poll", d->io_poll);
    dj_strn(j, "write_cache", d->write_cache);
    dj_int(j, "atomic_write_unit_min_bytes", d->atomic_min);
    dj_int(j, "atomic_write_unit_max_bytes", d->atomic_max);
    dj_bool(j, "read_only", d->ro);
    dj_bool(j, "removable", d->removable);
    dj_str(j, "model", d->model);
    dj_str(j, "serial", d->serial);
    dj_str(j, "firmware_rev", d->firmware_rev);
    dj_str(j, "vendor", d->vendor);
    dj_strn(j, "parent", d->parent);
    if (d->parent[0]) {
        dj_open(j, "partition", '{');
        dj_int(j, "number", d->partno);
        dj_u64(j, "start", d->start);
        dj_close(j, '}');
    } else {
        dj_null(j, "partition");
    }
    dj_strv(j, "partitions", &d->partitions);
    dj_strv(j, "holders", &d->holders);
    dj_strv(j, "slaves", &d->slaves);
    dj_open(j, "mounts", '[');
    for (unsigned i = 0; i < d->nmounts; i++) {
        dj_open(j, NULL, '{');
        dj_str(j, "mount_point", d->mounts[i].point);
        dj_str(j, "fstype", d->mounts[i].fstype);
        dj_str(j, "source", d->mounts[i].source);
        dj_close(j, '}');
    }
    dj_close(j, ']');
    dj_bool(j, "swap", d->swap);
    char busy[512];
    nvb__dev_busy(l, d, busy, sizeof busy);
    dj_strn(j, "busy", busy);
    dj_open(j, "signature", '{');
    dj_strn(j, "type", d->sig_type);
    dj_strn(j, "usage", d->sig_usage);
    dj_strn(j, "label", d->sig_label);
    dj_strn(j, "uuid", d->sig_uuid);
    dj_str(j, "source", d->sig_source[0] ? d->sig_source : "unknown");
    dj_strn(j, "why", d->sig_why);
    dj_close(j, '}');
    if (d->probed & NVB__PROBE_ID) {
        dj_int(j, "indirection_unit", d->iu ? (int64_t)d->iu : -1);
        dj_str(j, "indirection_unit_source", d->iu_source);
    } else {
        dj_null(j, "indirection_unit");
        dj_str(j, "indirection_unit_source", "unknown");
    }
    dj_strn(j, "backing_file", d->backing_file);
    if (!strcmp(d->kind, "dm")) {
        dj_open(j, "dm", '{');
        dj_strn(j, "name", d->dm_name);
        dj_strn(j, "uuid", d->dm_uuid);
        dj_close(j, '}');
    } else {
        dj_null(j, "dm");
    }
    dj_strn(j, "md_level", d->md_level);
    if (d->nvme)
        emit_nvme(j, d);
    else
        dj_null(j, "nvme");
    dj_close(j, '}');
}

void nvb__dev_json(const struct nvb__devlist *l, const struct nvb__dev *d, struct nvb__buf *b)
{
    struct dj j;
    memset(&j, 0, sizeof j);
    j.b = b;
    j.depth = 0;
    emit_dev(&j, l, d);
}

/* The value at a dotted path of the device's JSON: strings raw, numbers and
 * booleans as JSON text, objects and arrays as JSON. Length, -ENOENT,
 * -ENODATA (null), -ENOSPC, -ENOMEM. */
int nvb__dev_get(const struct nvb__devlist *l, const struct nvb__dev *d, const char *key, char *buf, size_t len)
{
    struct nvb__buf b = {0};
    struct dj j;
    memset(&j, 0, sizeof j);
    j.b = &b;
    j.want = key;
    emit_dev(&j, l, d);
    int rc;
    if (b.oom || j.val.oom)
        rc = -ENOMEM;
    else if (j.found == 1 || j.found == 2)
        rc = (int)j.val.len;
    else if (j.found == 3)
        rc = -ENODATA;
    else
        rc = -ENOENT;
    if (rc >= 0) {
        if ((size_t)rc >= len)
            rc = -ENOSPC;
        else
            memcpy(buf, j.val.s ? j.val.s : "", (size_t)rc + 1);
    }
    free(b.s);
    free(j.val.s);
    return rc;
}
