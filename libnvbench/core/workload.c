/*
 * Workloads: string keys validated centrally by one table (core/keys.c),
 * so bindings and scripts can set anything by name and the ABI never
 * changes when a key is added. Engine-specific keys ("io_uring.sqpoll") are
 * owned by the engine's option table.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bindings.h"
#include "core/internal.h"
#include "core/iomode.h"
#include "core/keys.h"
#include "util/json.h"

#define OFF(f) offsetof(struct nvb_workload, f)
#define NS_PER_S 1000000000ull

const char *nvb__workload_key(size_t i, const char **type, const char **doc)
{
    if (i >= nvb__nkeys)
        return NULL;
    if (type)
        *type = nvb__ktype_names[nvb__keys[i].type];
    if (doc)
        *doc = nvb__keys[i].help;
    return nvb__keys[i].name;
}

int nvb__werr(struct nvb_workload *w, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
    return err;
}

const char *const nvb__dir_names[NVB__NDIR] = {"read", "write", "trim"};

NVB_API int nvb_workload_new(struct nvb_workload **out)
{
    if (!out)
        return -EINVAL;
    struct nvb_workload *w = calloc(1, sizeof *w);
    if (!w)
        return -ENOMEM;
#ifdef _WIN32
    strcpy(w->engine, "wsync"); /* psync's Windows analogue */
#else
    strcpy(w->engine, "psync");
#endif
    w->rw = NVB__RW_RANDREAD;
    w->rwmix = 50;
    w->bs = 4096;
    w->qd = 1;
    w->jobs = 1;
    w->runtime_ns = 5 * NS_PER_S;
    w->interval_ns = NS_PER_S;
    w->ts_max = 1000;
    w->direct = 1;
    w->invalidate = 1;
    w->fill = NVB__FILL_RANDOM;
    w->seed = 0x6e76626e63680001ull;
    w->complete_batch = 1;
    w->apptag = 0x1234; /* fio's defaults */
    w->apptag_mask = 0xffff;
    w->thinktime_blocks = 1;
    w->io_timeout_ns = 60 * NS_PER_S;
    w->fault_errno = EIO;
    w->fault_delay_rate = 1.0;
    w->ss_excursion = 20; /* SNIA PTS */
    w->ss_slope = 10;
    w->spr_op = 0.15; /* fio's sprandom defaults */
    w->spr_regions = 100;
    *out = w;
    return 0;
}

NVB_API void nvb_workload_free(struct nvb_workload *w)
{
    if (!w)
        return;
    nvb_workload_clear_targets(w);
    free(w->targets);
    free(w);
}

int nvb__workload_copy(const struct nvb_workload *src, struct nvb_workload **out)
{
    struct nvb_workload *w = malloc(sizeof *w);
    if (!w)
        return -ENOMEM;
    *w = *src;
    w->targets = NULL;
    w->ntargets = w->targets_cap = 0;
    if (src->ntargets) {
        w->targets = calloc(src->ntargets, sizeof *w->targets);
        if (!w->targets) {
            free(w);
            return -ENOMEM;
        }
        w->targets_cap = src->ntargets;
        for (unsigned i = 0; i < src->ntargets; i++) {
            w->targets[i] = nvb__strdup(src->targets[i]);
            if (!w->targets[i]) {
                nvb_workload_free(w);
                return -ENOMEM;
            }
            w->ntargets++;
        }
    }
    *out = w;
    return 0;
}

static const struct keydef *find_key(const char *key)
{
    for (size_t i = 0; i < nvb__nkeys; i++)
        if (!strcmp(nvb__keys[i].name, key))
            return &nvb__keys[i];
    return NULL;
}

/* Candidates for "did you mean" (nvb__closest). */
static const char *key_name(size_t i, void *arg)
{
    (void)arg;
    return i < nvb__nkeys ? nvb__keys[i].name : NULL;
}

static const char *engine_name(size_t i, void *arg)
{
    (void)arg;
    for (size_t k = 0; k <= i; k++)
        if (!nvb__engines[k])
            return NULL;
    return nvb__engines[i]->name;
}

static const char *opt_name(size_t i, void *arg)
{
    const struct nvb__engine *e = arg;
    for (size_t k = 0; k <= i; k++)
        if (!e->opts || !e->opts[k].name)
            return NULL;
    return e->opts[i].name;
}

static const char *enum_name(size_t i, void *arg)
{
    const char *const *names = arg;
    for (size_t k = 0; k <= i; k++)
        if (!names[k])
            return NULL;
    return names[i];
}

/* " (did you mean 'x'?)" or "", into buf. */
static const char *suggest(char *buf, size_t len, const char *word, const char *(*next)(size_t, void *), void *arg)
{
    const char *c = nvb__closest(word, next, arg);
    if (c)
        snprintf(buf, len, ": did you mean '%s'?", c);
    else
        buf[0] = 0;
    return buf;
}

static int set_engine_opt(struct nvb_workload *w, const char *key, const char *value)
{
    const char *dot = strchr(key, '.');
    char ename[32];
    size_t n = (size_t)(dot - key);
    if (n >= sizeof ename)
        return nvb__werr(w, -EINVAL, "unknown key '%s' (value '%s')", key, value);
    memcpy(ename, key, n);
    ename[n] = 0;
    int ei = nvb__engine_index(ename);
    if (ei < 0 && !strcmp(ename, "ss"))
        return nvb__werr(w, -EINVAL, "unknown key '%s' (value '%s'): the steady-state keys are ss, ss.window, "
                         "ss.excursion, ss.slope and ss.stop", key, value);
    if (ei < 0 && !strcmp(ename, "fault"))
        return nvb__werr(w, -EINVAL, "unknown key '%s' (value '%s'): the fault keys are fault.rate, fault.errno, "
                         "fault.short, fault.delay, fault.delay_rate and fault.seed", key, value);
    char hint[96];
    if (ei < 0)
        return nvb__werr(w, -EINVAL, "unknown key '%s' (value '%s'): no engine named '%s'%s", key, value, ename,
                         suggest(hint, sizeof hint, ename, engine_name, NULL));
    const struct nvb__engine *e = nvb__engines[ei];
    int oi = nvb__engine_opt_index(e, dot + 1);
    if (oi < 0)
        return nvb__werr(w, -EINVAL, "unknown key '%s' (value '%s'): engine %s has no option '%s'%s",
                         key, value, ename, dot + 1, suggest(hint, sizeof hint, dot + 1, opt_name, (void *)e));
    const struct nvb__optdef *od = &e->opts[oi];
    int64_t v;
    int rc;
    if (od->type == NVB__OPT_CPU && !strcmp(value, "local")) {
        v = NVB__OPT_LOCAL;
    } else if (od->type == NVB__OPT_INT || od->type == NVB__OPT_CPU) {
        rc = nvb__parse_i64(value, &v);
        if (rc)
            return nvb__werr(w, -EINVAL, "invalid value '%s' for key '%s': expected an integer%s", value, key,
                             od->type == NVB__OPT_CPU ? " or local" : "");
        if (v < od->min || v > od->max)
            return nvb__werr(w, -ERANGE, "value '%s' for key '%s' out of range [%" PRId64 ", %" PRId64 "]",
                             value, key, od->min, od->max);
    } else {
        int b;
        if (od->type == NVB__OPT_AUTOBOOL && !strcmp(value, "auto")) {
            v = -1;
        } else {
            rc = nvb__parse_bool(value, &b);
            if (rc)
                return nvb__werr(w, -EINVAL, "invalid value '%s' for key '%s': expected 0 or 1%s", value, key,
                                 od->type == NVB__OPT_AUTOBOOL ? " or auto" : "");
            v = b;
        }
    }
    if (strlen(key) >= sizeof w->eopts[0].key || strlen(value) >= sizeof w->eopts[0].text)
        return nvb__werr(w, -EINVAL, "invalid value '%s' for key '%s': too long", value, key);
    unsigned i;
    for (i = 0; i < w->neopts; i++)
        if (!strcmp(w->eopts[i].key, key))
            break;
    if (i == w->neopts) {
        if (w->neopts == NVB__MAX_EOPTS)
            return nvb__werr(w, -ENOSPC, "too many engine options (setting '%s')", key);
        w->neopts++;
    }
    struct nvb__eopt *o = &w->eopts[i];
    strcpy(o->key, key);
    strcpy(o->text, value);
    o->engine = ei;
    o->opt = oi;
    o->value = v;
    return 0;
}

/* The integer kinds of value: the parser, and how a refusal names what
 * was expected ("invalid <noun> '<value>' for key '<key>'<hint>"). */
static const struct {
    int (*parse)(const char *s, uint64_t *out);
    const char *noun, *hint;
} int_kinds[] = {
    [K_SIZE] = {nvb__parse_size, "size", " (examples: 4k, 1M, 2G)"},
    [K_DURATION] = {nvb__parse_duration, "duration", " (examples: 500ms, 2s, 1m)"},
    [K_UINT] = {nvb__parse_u64, "value", ": expected a non-negative integer"},
    [K_U64] = {nvb__parse_u64, "value", ": expected a non-negative integer"},
    [K_USEC] = {nvb__parse_usec, "duration", " (microseconds, or with a unit: 500us, 2ms, 1s)"},
    [K_SSIZE] = {nvb__parse_ssize, "size", " (examples: 8k, -8k, 1M)"},
};

/* name added to the ", "-separated list in list[len] (cut at its end). */
static void list_add(char *list, size_t len, const char *name)
{
    strncat(list, list[0] ? ", " : "", len - strlen(list) - 1);
    strncat(list, name, len - strlen(list) - 1);
}

/* fio's names for what nvbench calls otherwise, used only to answer a fio name given as a key with
 * nvbench's key (the job-file reader maps the options themselves, docs/fio-jobs.md): the key
 * table's fio column, and these, which no key stands for one to one. */
static const struct {
    const char *fio, *say;
} fio_names[] = {
    {"time_based", "nvbench runs for runtime whenever runtime is set; no key is needed"},
    {"blocksize", "nvbench's key is bs"},
    {"readwrite", "nvbench's key is rw"},
    {"filename", "nvbench takes targets apart from the keys"},
};

static const char *fio_name_hint(char *buf, size_t len, const char *key)
{
    for (size_t i = 0; i < nvb__nkeys; i++)
        if (nvb__keys[i].fio && !strcmp(key, nvb__keys[i].fio)) {
            snprintf(buf, len, ": that is fio's name; nvbench's key is %s", nvb__keys[i].name);
            return buf;
        }
    for (size_t i = 0; i < sizeof fio_names / sizeof fio_names[0]; i++)
        if (!strcmp(key, fio_names[i].fio)) {
            snprintf(buf, len, ": that is fio's name; %s", fio_names[i].say);
            return buf;
        }
    return NULL;
}

/* The integer kinds: parsed, range-checked and stored (a size, duration or count). */
static int set_int(struct nvb_workload *w, const struct keydef *k, const char *value, void *p)
{
    const char *key = k->name;
    uint64_t u = 0;
    if (k->off == OFF(precondition)) { /* a count of sequential passes, or "random": precondition.mode */
        w->precond_mode = !strcmp(value, "random") ? NVB__PRECOND_RANDOM : NVB__PRECOND_SEQ;
        if (w->precond_mode == NVB__PRECOND_RANDOM) {
            w->precondition = 1;
            return 0;
        }
    }
    int rc = int_kinds[k->type].parse(value, &u);
    if (rc && k->type == K_UINT && (value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) && value[2]) {
        char *end; /* a tag or a mask in hex, as fio writes them (apptag=0x1234) */
        errno = 0;
        unsigned long long x = strtoull(value + 2, &end, 16);
        rc = *end || errno || !isxdigit((unsigned char)value[2]) ? -EINVAL : 0;
        u = x;
    }
    if (rc == -EDOM) /* durations only: a fraction of a nanosecond */
        return nvb__werr(w, -EINVAL, "invalid %s '%s' for key '%s': finer than 1 ns (durations are whole "
                         "nanoseconds)", int_kinds[k->type].noun, value, key);
    if (rc)
        return nvb__werr(w, rc == -ERANGE ? -ERANGE : -EINVAL, "invalid %s '%s' for key '%s'%s",
                         int_kinds[k->type].noun, value, key, int_kinds[k->type].hint);
    if (k->type != K_SSIZE && (u < k->min || u > k->max)) { /* a signed size: its parser bounds it */
        if ((k->type == K_DURATION || k->type == K_USEC) && k->max)
            return nvb__werr(w, -ERANGE, "value '%s' for key '%s' out of range", value, key);
        return nvb__werr(w, -ERANGE, "value '%s' for key '%s' out of range [%" PRIu64 ", %" PRIu64 "]",
                         value, key, k->min, k->max);
    }
    if (k->off == OFF(runtime_ns))
        w->runtime_set = 1;
    if (k->off == OFF(fault_seed))
        w->fault_seed_set = 1;
    if (k->type == K_UINT)
        *(unsigned *)p = (unsigned)u;
    else
        *(uint64_t *)p = u;
    return 0;
}

/* The named kinds: an enum's value, or an engine. */
static int set_named(struct nvb_workload *w, const struct keydef *k, const char *value, void *p)
{
    char hint[96], list[128] = "";
    if (k->type == K_ENUM) {
        for (int i = 0; k->names[i]; i++)
            if (!strcmp(k->names[i], value) || (k->names == nvb__rw_names && !strcmp(value, "readwrite") && i == NVB__RW_RW)) {
                *(int *)p = i;
                return 0;
            }
        for (int i = 0; k->names[i]; i++)
            list_add(list, sizeof list, k->names[i]);
        return nvb__werr(w, -EINVAL, "invalid value '%s' for key '%s': expected one of %s%s", value, k->name, list,
                         suggest(hint, sizeof hint, value, enum_name, (void *)k->names));
    }
    if (nvb__engine_index(value) < 0) {
        for (int i = 0; nvb__engines[i]; i++)
            list_add(list, sizeof list, nvb__engines[i]->name);
        return nvb__werr(w, -EINVAL, "unknown engine '%s' for key 'engine' (known: %s)%s", value, list,
                         suggest(hint, sizeof hint, value, engine_name, NULL));
    }
    strcpy(w->engine, value);
    return 0;
}

/* The kinds of text with a shape of their own: a CPU list or a label. */
static int set_text(struct nvb_workload *w, const struct keydef *k, const char *value)
{
    if (k->type == K_STRING) { /* a char[64] of the workload (name, pi_chk), or cmdprio_bssplit's 256 */
        _Static_assert(sizeof w->name == 64 && sizeof w->pi_chk == 64 && sizeof w->verify_pattern == 64 &&
                       sizeof w->continue_errnos == 64,
                       "K_STRING fields are 64 bytes");
        char *dst = (char *)w + k->off;
        const size_t cap = k->off == OFF(cmdprio_bssplit) ? sizeof w->cmdprio_bssplit : 64;
        if (strlen(value) >= cap)
            return nvb__werr(w, -EINVAL, "value for key '%s' is too long (max %zu)", k->name, cap - 1);
        if (k->off == OFF(cmdprio_bssplit) && nvb__prio_split_parse(value, &w->psplit, w->err, sizeof w->err) < 0)
            return -EINVAL;
        unsigned bits;
        if (k->off == OFF(pi_chk) && nvb__pi_chk_parse(value, &bits) < 0)
            return nvb__werr(w, -EINVAL, "invalid value '%s' for key 'pi_chk': expected a comma-separated list of "
                             "GUARD, REFTAG, APPTAG (fio's syntax), or none", value);
        if (k->off == OFF(continue_errnos) && nvb__parse_errno_set(value, w->cont_errs) < 0)
            return nvb__werr(w, -EINVAL, "invalid value '%s' for key 'continue_errnos': expected errno names or "
                             "numbers 1..%d between ':' (EIO:EILSEQ), or \"\" (any)", value, NVB__ERRNO_SLOTS - 1);
        if (k->off == OFF(verify_pattern) && nvb__vpat_parse(value, &w->vpat) < 0)
            return nvb__werr(w, -EINVAL, "invalid value '%s' for key 'verify_pattern': expected 0x and 2 to 62 hex "
                             "digits, an even count (the bytes in order), or \"\" (none)", value);
        strcpy(dst, value);
        return 0;
    }
    uint64_t bits[NVB__MAX_CPUS / 64];
    if (!strcmp(value, "local")) /* the device's node's CPUs, found at setup (explain_place.c) */
        memset(bits, 0, sizeof bits);
    int rc = strcmp(value, "local") ? nvb__parse_cpulist(value, bits, NVB__MAX_CPUS) : 0;
    if (rc || strlen(value) >= sizeof w->cpus_text)
        return nvb__werr(w, -EINVAL, "invalid CPU list '%s' for key '%s' (example: 0-3,6)", value, k->name);
    memcpy(w->cpus, bits, sizeof bits);
    unsigned n = 0;
    for (unsigned i = 0; i < NVB__MAX_CPUS; i++)
        n += (unsigned)((bits[i / 64] >> (i % 64)) & 1);
    w->ncpus_set = n;
    strcpy(w->cpus_text, value);
    return 0;
}

/* The kinds stored as a double (a probability, a percentage) or an errno. */
static int set_number(struct nvb_workload *w, const struct keydef *k, const char *value, void *p)
{
    const char *key = k->name;
    double d;
    int rc;
    if (k->type == K_PROB) {
        rc = nvb__parse_prob(value, &d);
        if (rc == -ERANGE)
            return nvb__werr(w, -ERANGE, "value '%s' for key '%s' out of range [0, 1]", value, key);
        if (rc)
            return nvb__werr(w, -EINVAL, "invalid probability '%s' for key '%s' (examples: 0.001, 1/1000, 0.1%%)",
                             value, key);
        *(double *)p = d;
        return 0;
    }
    if (k->type == K_PCT) {
        rc = nvb__parse_pct(value, &d);
        if (rc)
            return nvb__werr(w, rc == -ERANGE ? -ERANGE : -EINVAL, "invalid percentage '%s' for key '%s' "
                             "(a number in [0, 100], examples: 20, 12.5, 20%%)", value, key);
        *(double *)p = d;
        return 0;
    }
    int e;
    rc = nvb__parse_errno(value, &e);
    if (rc == -ERANGE)
        return nvb__werr(w, -ERANGE, "value '%s' for key '%s' out of range [1, %d]", value, key,
                         NVB__ERRNO_SLOTS - 1);
    if (rc)
        return nvb__werr(w, -EINVAL, "invalid errno '%s' for key '%s' (examples: EIO, ENOSPC, 5)", value, key);
    *(int *)p = e;
    return 0;
}

NVB_API int nvb_workload_set(struct nvb_workload *w, const char *key, const char *value)
{
    if (!w)
        return -EINVAL;
    if (!key || !*key)
        return nvb__werr(w, -EINVAL, "empty key");
    if (!value)
        return nvb__werr(w, -EINVAL, "missing value for key '%s'", key);
    const struct keydef *k = find_key(key);
    if (!k && strchr(key, '.'))
        return set_engine_opt(w, key, value);
    char hint[96];
    if (!k) {
        const char *fio = fio_name_hint(hint, sizeof hint, key);
        return nvb__werr(w, -EINVAL, "unknown key '%s' (value '%s')%s", key, value,
                         fio ? fio : suggest(hint, sizeof hint, key, key_name, NULL));
    }
    void *p = (char *)w + k->off;
    int b;
    switch (k->type) {
    case K_SIZE: case K_DURATION: case K_UINT: case K_U64: case K_USEC: case K_SSIZE:
        return set_int(w, k, value, p);
    case K_BSSPLIT:
        return nvb__bssplit_parse(value, p, w->err, sizeof w->err);
    case K_DIST:
        return nvb__dist_parse(value, (struct nvb__dist *)p, w->err, sizeof w->err);
    case K_BOOL:
        if (nvb__parse_bool(value, &b))
            return nvb__werr(w, -EINVAL, "invalid value '%s' for key '%s': expected 0 or 1", value, key);
        *(int *)p = b;
        return 0;
    case K_ENUM: case K_ENGINE:
        return set_named(w, k, value, p);
    case K_CPULIST: case K_STRING:
        return set_text(w, k, value);
    case K_PROB: case K_PCT: case K_ERRNO:
        return set_number(w, k, value, p);
    }
    return nvb__werr(w, -EINVAL, "key '%s' has no parser", key);
}

/* Set on a workload of its own, so the value is read, bounded and refused
 * exactly as nvb_workload_set() does it (nvbench/value.h). */
NVB_API int nvb_workload_key_parse(const char *key, const char *text, uint64_t *value, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = 0;
    if (!key || !text || !value)
        return -EINVAL;
    const struct keydef *k = find_key(key);
    struct nvb_workload *w;
    int rc = nvb_workload_new(&w);
    if (rc)
        return rc;
    switch (k ? k->type : K_STRING) {
    case K_SIZE: case K_DURATION: case K_UINT: case K_U64: case K_USEC: case K_SSIZE:
        rc = nvb_workload_set(w, key, text);
        break;
    default: /* unknown keys get the set's message, with its suggestion */
        rc = k ? -EINVAL : nvb_workload_set(w, key, text);
        if (!rc || k)
            rc = nvb__werr(w, -EINVAL, "key '%s' (value '%s') is not a number: it is of type %s", key, text,
                           k ? nvb__ktype_names[k->type] : "engine option");
    }
    if (!rc) {
        const void *p = (const char *)w + k->off;
        *value = k->type == K_UINT ? *(const unsigned *)p : *(const uint64_t *)p;
    } else if (why && why_len) {
        snprintf(why, why_len, "%s", w->err);
    }
    nvb_workload_free(w);
    return rc;
}

NVB_API int nvb_workload_get(const struct nvb_workload *w, const char *key, char *buf, size_t len)
{
    if (!w || !key || (!buf && len))
        return -EINVAL;
    char tmp[288 > NVB__DIST_TEXT_MAX ? 288 : NVB__DIST_TEXT_MAX]; /* the longest value: a bssplit of 255 characters, or a random_distribution */
    const struct keydef *k = find_key(key);
    if (!k) {
        const struct nvb__eopt *found = NULL;
        for (unsigned i = 0; i < w->neopts; i++)
            if (!strcmp(w->eopts[i].key, key))
                found = &w->eopts[i];
        if (found) {
            snprintf(tmp, sizeof tmp, "%s", found->text);
        } else {
            /* an engine option not set: its default */
            const char *dot = strchr(key, '.');
            if (!dot)
                return -ENOENT;
            char ename[32];
            size_t n = (size_t)(dot - key);
            if (n >= sizeof ename)
                return -ENOENT;
            memcpy(ename, key, n);
            ename[n] = 0;
            const struct nvb__engine *e = nvb__engine_find(ename);
            int oi = e ? nvb__engine_opt_index(e, dot + 1) : -1;
            if (oi < 0)
                return -ENOENT;
            if (e->opts[oi].type == NVB__OPT_AUTOBOOL && e->opts[oi].def < 0)
                snprintf(tmp, sizeof tmp, "auto");
            else
                snprintf(tmp, sizeof tmp, "%" PRId64, e->opts[oi].def);
        }
    } else {
        const void *p = (const char *)w + k->off;
        switch (k->type) {
        case K_SIZE: case K_U64: snprintf(tmp, sizeof tmp, "%" PRIu64, *(const uint64_t *)p); break;
        case K_SSIZE: snprintf(tmp, sizeof tmp, "%" PRId64, *(const int64_t *)p); break;
        case K_BSSPLIT: snprintf(tmp, sizeof tmp, "%s", w->bssplit.text); break;
        case K_USEC:
        case K_DURATION: {
            uint64_t ns = *(const uint64_t *)p;
            if (ns % 1000000000ull == 0)
                snprintf(tmp, sizeof tmp, "%" PRIu64 "s", (uint64_t)(ns / 1000000000u));
            else if (ns % 1000000ull == 0)
                snprintf(tmp, sizeof tmp, "%" PRIu64 "ms", (uint64_t)(ns / 1000000u));
            else if (k->type == K_USEC && ns % 1000ull == 0) /* fio's unit */
                snprintf(tmp, sizeof tmp, "%" PRIu64 "us", (uint64_t)(ns / 1000u));
            else
                snprintf(tmp, sizeof tmp, "%" PRIu64 "ns", ns);
            break;
        }
        case K_UINT: snprintf(tmp, sizeof tmp, "%u", *(const unsigned *)p); break;
        case K_BOOL: snprintf(tmp, sizeof tmp, "%d", *(const int *)p); break;
        case K_ENUM: snprintf(tmp, sizeof tmp, "%s", k->names[*(const int *)p]); break;
        case K_ENGINE: snprintf(tmp, sizeof tmp, "%s", w->engine); break;
        case K_CPULIST: snprintf(tmp, sizeof tmp, "%s", w->cpus_text); break;
        case K_STRING: snprintf(tmp, sizeof tmp, "%s", (const char *)p); break;
        case K_DIST: nvb__dist_format(p, tmp, sizeof tmp); break;
        case K_PROB: case K_PCT: snprintf(tmp, sizeof tmp, "%.17g", *(const double *)p); break;
        case K_ERRNO: {
            char nb[16];
            snprintf(tmp, sizeof tmp, "%s", nvb__errno_name(*(const int *)p, nb, sizeof nb));
            break;
        }
        }
    }
    size_t n = strlen(tmp);
    if (n + 1 > len)
        return -ENOSPC;
    memcpy(buf, tmp, n + 1);
    return (int)n;
}

NVB_API int nvb_workload_add_target(struct nvb_workload *w, const char *path)
{
    if (!w)
        return -EINVAL;
    if (!path || !*path)
        return nvb__werr(w, -EINVAL, "empty target path");
    if (strlen(path) >= 4096)
        return nvb__werr(w, -ENAMETOOLONG, "target path too long");
    if (w->ntargets == w->targets_cap) {
        unsigned cap = w->targets_cap ? w->targets_cap * 2 : 4;
        char **t = realloc(w->targets, cap * sizeof *t);
        if (!t)
            return nvb__werr(w, -ENOMEM, "out of memory adding target '%s'", path);
        w->targets = t;
        w->targets_cap = cap;
    }
    char *p = nvb__strdup(path);
    if (!p)
        return nvb__werr(w, -ENOMEM, "out of memory adding target '%s'", path);
    w->targets[w->ntargets++] = p;
    return 0;
}

NVB_API void nvb_workload_clear_targets(struct nvb_workload *w)
{
    if (!w)
        return;
    for (unsigned i = 0; i < w->ntargets; i++)
        free(w->targets[i]);
    w->ntargets = 0;
}

NVB_API const char *nvb_workload_error(const struct nvb_workload *w)
{
    return w ? w->err : "";
}

/* ns as exact decimal seconds, a JSON number ("0.001", "2", "1.000000001"):
 * the echo says what was set, not its nearest double. */
static const char *secs_text(uint64_t ns, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = 0;
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = 0;
    return buf;
}

const char *nvb__workload_echo_key(size_t i, const char **echo, enum nvb__echo_form *form)
{
    if (i >= nvb__nkeys)
        return NULL;
    const struct keydef *k = &nvb__keys[i];
    if (echo)
        *echo = k->echo ? k->echo : k->name;
    if (form) {
        switch (k->type) {
        case K_DURATION: case K_USEC: *form = NVB__ECHO_SECS; break;
        case K_SIZE: case K_SSIZE: case K_UINT: case K_U64: case K_BOOL: case K_PROB: case K_PCT:
            *form = NVB__ECHO_NUM;
            break;
        default: *form = NVB__ECHO_STR; break;
        }
    }
    return k->name;
}

int nvb__workload_echo_text(const struct nvb_workload *w, size_t i, char *buf, size_t len)
{
    if (i >= nvb__nkeys)
        return -ENOENT;
    const struct keydef *k = &nvb__keys[i];
    if ((k->type == K_BSSPLIT && !w->bssplit.set) || (k->off == OFF(fault_seed) && !w->fault_seed_set))
        return 0; /* unset: null, the library's own choice */
    if (k->type == K_DURATION || k->type == K_USEC) {
        uint64_t ns = *(const uint64_t *)(const void *)((const char *)w + k->off);
        /* runtime not given beside ios or io_limit: the run has no time bound, as runtime=0 says */
        if (k->off == OFF(runtime_ns) && !w->runtime_set && (w->ios || w->io_limit))
            ns = 0;
        secs_text(ns, buf, len);
        return 1;
    }
    int n = nvb_workload_get(w, k->name, buf, len);
    return n < 0 ? n : 1;
}
