/*
 * nvbench.c - the Lua 5.4 module "nvbench": a thin layer over the C ABI of
 * libnvbench (include/nvbench.h). The measurement loop stays in C; this file
 * only converts between Lua values and the library's string keys, results
 * and callbacks.
 *
 * Shape (after Lua's own liolib.c):
 *  - one metatable per handle type (nvbench.workload, nvbench.result), each
 *    with __gc, __close, __tostring and __index; a closed handle stays a
 *    valid Lua value and raises a clean error when used;
 *  - runtime failures return nil, message, errno (luaL_fileresult style);
 *    misuse (wrong argument types) raises with luaL_error.
 *
 * Lua errors must never unwind through libnvbench's frames (the run owns
 * threads, files and memory), so every call back into Lua from inside
 * nvb_run() goes through lua_pcall(); an error raised there cancels the run
 * and is raised again once nvb_run() has returned and cleaned up.
 *
 * Signals: a binding may touch signal dispositions where the library must
 * not. For the length of a run, SIGTERM and SIGINT whose disposition is the
 * default are caught (see "signals" below) so that they cancel the run
 * cleanly instead of killing the process with a scratch file left behind.
 */
#include "lua_module.h"

/* ------------------------------------------------------------ helpers */

/* nil, message, errno: the runtime-failure convention (luaL_fileresult). */
int push_fail(lua_State *L, int err, const char *msg)
{
    luaL_pushfail(L);
    lua_pushstring(L, msg && *msg ? msg : nvb_strerror(err));
    lua_pushinteger(L, err < 0 ? -err : err);
    return 3;
}

/* Writes the n bytes of s to out (size len) as a terminal may show them:
 * C0 controls, DEL, C1 controls (raw or UTF-8 encoded) and bytes that are
 * not UTF-8 become \xNN, so text from a result file or a hostile path can
 * neither drive the terminal (ESC, CSI) nor hide a NUL byte. Truncates with
 * "..." when out is full; out is always NUL-terminated. */
void shown(char *out, size_t len, const char *s, size_t n)
{
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    if (!len)
        return;
    out[0] = 0;
    while (p < end) {
        size_t seq = 1;
        int escape = *p < 0x20 || *p == 0x7f;
        if (*p >= 0x80) {
            /* A well-formed UTF-8 sequence is kept, except U+0080..U+009F. */
            seq = *p >= 0xc2 && *p <= 0xdf ? 2 : *p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
            for (size_t k = 1; seq && k < seq; k++)
                if (p + k >= end || (p[k] & 0xc0) != 0x80)
                    seq = 0;
            if (seq == 2 && *p == 0xc2 && p[1] < 0xa0) {
                escape = 1;
                p++; /* show the code point: \x9b for U+009B (CSI) */
                seq = 1;
            } else if (!seq) {
                escape = 1;
                seq = 1;
            }
        }
        size_t need = escape ? 4 : seq;
        if (o + need + 4 > len) {
            snprintf(out + o, len - o, "%s", len - o > 3 ? "..." : "");
            return;
        }
        if (escape)
            o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p);
        else {
            memcpy(out + o, p, seq);
            o += seq;
        }
        p += seq;
    }
    out[o] = 0;
}


/* The Lua string at idx for the library, or NULL and a message in why when
 * it holds a NUL byte: C reads a string up to its first NUL, so
 * "a.dat\0/etc/passwd" would silently become "a.dat". what names the
 * value in the message ("targets[2]", "value of key 'name'"). */
const char *c_string(lua_State *L, int idx, const char *what, char *why, size_t why_len)
{
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    if (s && strlen(s) != n) {
        char show[160];
        shown(show, sizeof show, s, n);
        snprintf(why, why_len, "nvbench: %s ('%s') contains a NUL byte", what, show);
        return NULL;
    }
    return s;
}

const char *string_arg(lua_State *L, int idx, const char *what, char *why)
{
    luaL_checkstring(L, idx);
    return c_string(L, idx, what, why, WHY_LEN);
}

int push_get_fail(lua_State *L, int rc, const char *missing, const char *name)
{
    if (rc == -ENOENT)
        lua_pushfstring(L, missing, name);
    return push_fail(L, rc, rc == -ENOENT ? lua_tostring(L, -1) : NULL);
}

static int buffer_gc(lua_State *L)
{
    struct lbuffer *b = luaL_checkudata(L, 1, BUFFER_MT);
    nvb_free(b->p);
    b->p = NULL;
    return 0;
}

struct lbuffer *new_buffer(lua_State *L)
{
    struct lbuffer *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->p = NULL;
    luaL_setmetatable(L, BUFFER_MT);
    return b;
}

/* A workload value as the library's string form: numbers as integers when
 * they are integral ("%.14g", Lua's own precision, otherwise), booleans as
 * 1/0. Anything else is a programming error. NULL (message in why, WHY_LEN
 * bytes) for a string holding a NUL byte. */
const char *value_string(lua_State *L, int idx, const char *key, char *buf, size_t len, char *why)
{
    switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
        char what[96];
        snprintf(what, sizeof what, "value of key '%s'", key);
        return c_string(L, idx, what, why, WHY_LEN);
    }
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            snprintf(buf, len, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, idx));
        else
            snprintf(buf, len, "%.14g", (double)lua_tonumber(L, idx));
        return buf;
    case LUA_TBOOLEAN:
        return lua_toboolean(L, idx) ? "1" : "0";
    default:
        luaL_error(L, "nvbench: value of key '%s' must be a string, number or boolean (got %s)", key,
                   luaL_typename(L, idx));
        return NULL;
    }
}

/* ------------------------------------------------------------ library */

/* nvb.engines() -> { name = {available = bool, reason = string|nil, index = n} } */
static int l_engines(lua_State *L)
{
    int n = nvb_engine_count();
    lua_createtable(L, 0, n);
    for (int i = 0; i < n; i++) {
        const char *name = nvb_engine_name(i);
        if (!name)
            continue;
        char why[512] = "";
        int rc = nvb_engine_probe(name, why, sizeof why);
        lua_createtable(L, 0, 4);
        lua_pushboolean(L, rc == 0);
        lua_setfield(L, -2, "available");
        lua_pushinteger(L, i + 1);
        lua_setfield(L, -2, "index");
        if (rc < 0) {
            lua_pushstring(L, why[0] ? why : nvb_strerror(rc));
            lua_setfield(L, -2, "reason");
            lua_pushinteger(L, -rc);
            lua_setfield(L, -2, "errno");
        }
        lua_setfield(L, -2, name);
    }
    return 1;
}

#ifdef NVB_LUA_HAVE_DEVICES
/* Pushes the decoded JSON the library wrote into b->p, or fails. */
static int push_json_result(lua_State *L, struct lbuffer *b, int rc, const char *what)
{
    if (rc < 0) {
        lua_pushfstring(L, "%s: %s", what, nvb_strerror(rc));
        return push_fail(L, rc, lua_tostring(L, -1));
    }
    struct jdec d;
    if (json_decode(L, b->p, strlen(b->p), &d))
        return luaL_error(L, "nvbench: the library's JSON did not decode (%s)", d.err);
    nvb_free(b->p);
    b->p = NULL;
    return 1;
}

/* nvb.devices([sysfs_root]) -> list of device tables | nil, msg, errno */
static int l_devices(lua_State *L)
{
    const char *root = luaL_optstring(L, 1, NULL);
    char why[WHY_LEN];
    if (root && !(root = c_string(L, 1, "sysfs root", why, sizeof why)))
        return push_fail(L, -EINVAL, why);
    struct lbuffer *b = new_buffer(L);
    int rc = nvb_devices_json(root, &b->p);
    return push_json_result(L, b, rc, root ? root : "/sys");
}

/* nvb.device(path) -> device table | nil, msg, errno */
static int l_device(lua_State *L)
{
    luaL_checkstring(L, 1);
    char why[WHY_LEN];
    const char *path = c_string(L, 1, "device path", why, sizeof why);
    if (!path)
        return push_fail(L, -EINVAL, why);
    struct lbuffer *b = new_buffer(L);
    int rc = nvb_device_json(path, &b->p);
    return push_json_result(L, b, rc, path);
}
#else
/* This libnvbench has no device discovery: say so honestly rather than
 * return an empty list that reads like "no devices". */
static int l_devices(lua_State *L)
{
    return push_fail(L, -ENOSYS, "device discovery is not available in this version of libnvbench");
}

static int l_device(lua_State *L)
{
    luaL_checkstring(L, 1);
    return l_devices(L);
}
#endif

/* nvb.interrupted_result() -> the partial result of the last nvb.run that
 * raised (Ctrl-C, or an error in progress), once; nil otherwise. */
static int l_interrupted_result(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, INTERRUPTED_KEY);
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, INTERRUPTED_KEY);
    return 1;
}

/* nvb.load(json) -> result | nil, msg, errno: a result from its JSON text
 * (r:json() of this or another process, a file), checked strictly; msg
 * says where a refused text is wrong. */
static int l_load(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    struct lresult *lr = new_result(L);
    char why[256] = "";
    int rc = nvb_result_parse(s, len, &lr->r, why, sizeof why);
    if (rc < 0)
        return push_fail(L, rc, why);
    return 1;
}

/* nvb.merge{r1, r2, ...} -> result | nil, msg, errno: one result of several
 * runs (hosts, processes), exact sums and the summed histograms
 * (nvb_result_merge). Items are result handles or their JSON text. */
static int l_merge(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    if (n < 1)
        return push_fail(L, -EINVAL, "nvbench.merge: no results to merge (an empty list)");
    if ((lua_Unsigned)n > SIZE_MAX / sizeof(struct nvb_result *))
        return push_fail(L, -ENOMEM, "nvbench.merge: too many results");
    /* The parts array and the results parsed from text live in userdata
     * anchored on the stack: an error raised below frees them. */
    const struct nvb_result **parts = lua_newuserdatauv(L, (size_t)n * sizeof *parts, 0);
    lua_createtable(L, (int)(n < 1024 ? n : 1024), 0); /* keeps parsed results alive */
    int keep = lua_gettop(L);
    for (lua_Integer i = 1; i <= n; i++) {
        int t = lua_geti(L, 1, i);
        if (t == LUA_TSTRING) {
            size_t len;
            const char *s = lua_tolstring(L, -1, &len);
            struct lresult *lr = new_result(L);
            char why[256] = "", msg[320];
            int rc = nvb_result_parse(s, len, &lr->r, why, sizeof why);
            if (rc < 0) {
                snprintf(msg, sizeof msg, "nvbench.merge: item %lld is not a result's JSON: %s", (long long)i,
                         why[0] ? why : nvb_strerror(rc));
                return push_fail(L, rc, msg);
            }
            parts[i - 1] = lr->r;
            lua_rawseti(L, keep, i); /* the handle */
            lua_pop(L, 1);           /* the text */
        } else if (t == LUA_TUSERDATA && luaL_testudata(L, -1, RESULT_MT)) {
            parts[i - 1] = to_result(L, -1)->r;
            lua_rawseti(L, keep, i);
        } else {
            return luaL_error(L, "nvbench.merge: item %d is a %s, not a result or its JSON text", (int)i,
                              luaL_typename(L, -1));
        }
    }
    struct lresult *out = new_result(L);
    int rc = nvb_result_merge(&out->r, parts, (size_t)n);
    if (rc < 0)
        return push_fail(L, rc, "nvbench.merge: the results cannot be merged");
    return 1;
}

/* nvb.strerror(errno) -> text (errno positive or negative) */
static int l_strerror(lua_State *L)
{
    lua_Integer e = luaL_checkinteger(L, 1);
    lua_pushstring(L, nvb_strerror((int)(e > 0 ? -e : e)));
    return 1;
}

/* nvb.search(workload, opts): the pure-Lua nvbench.search module's search. */
static int l_search(lua_State *L)
{
    int n = lua_gettop(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "nvbench.search");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "search");
    lua_remove(L, -2);
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* nvb.target_length(path) -> bytes | nil, message, errno: nvb_target_length
 * (the target is never opened: a FIFO cannot hang the job-file mapping). */
static int l_target_length(lua_State *L)
{
    size_t n;
    const char *path = luaL_checklstring(L, 1, &n);
    if (strlen(path) != n)
        return push_fail(L, -EINVAL, "nvbench.target_length: the path contains a NUL byte (\\x00)");
    uint64_t len = 0;
    char why[1024];
    int rc = nvb_target_length(path, &len, why, sizeof why);
    if (rc < 0)
        return push_fail(L, rc, why);
    lua_pushinteger(L, (lua_Integer)len);
    return 1;
}

/* nvb.fio_job_read(path [, env]) -> jobs | nil, message, errno: the library's
 * fio job-file reader (nvb_fiojob_read). jobs: { {name =, opts = {option =
 * value or true (a bare flag)}, order = {option, ...} (file order), stonewall
 * = boolean}, ... }. env: a table NAME -> value for ${NAME}; nil for the
 * process environment. */
/* A box on the stack for one library handle (NULL until it is set), freed
 * by gc when the box is collected: a memory error while tables are built
 * from the handle does not leak it. */
static void *new_box(lua_State *L, const char *mt, lua_CFunction gc)
{
    void **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    if (luaL_newmetatable(L, mt)) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return box;
}

static int fiojob_box_gc(lua_State *L)
{
    struct nvb_fiojob **box = lua_touserdata(L, 1);
    nvb_fiojob_free(*box);
    *box = NULL;
    return 0;
}

/* Reads the job file at index 1 with the env at index 2 into a boxed
 * handle left on the stack: 0, or the count of values pushed (nil,
 * message, errno) to return. */
static int fio_read_boxed(lua_State *L, struct nvb_fiojob ***boxp)
{
    size_t plen;
    const char *path = luaL_checklstring(L, 1, &plen);
    if (strlen(path) != plen)
        return push_fail(L, -EINVAL, "nvbench.fio_job_read: the job file's path contains a NUL byte (\\x00)");
    const char **envp = NULL;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_settop(L, 2);
        lua_newtable(L); /* 3: the "NAME=VALUE" strings, kept alive here */
        lua_Integer n = 0;
        lua_pushnil(L);
        while (lua_next(L, 2)) {
            if (lua_type(L, -2) != LUA_TSTRING || !lua_isstring(L, -1))
                return luaL_error(L, "nvbench.fio_job_read: env maps names to strings");
            size_t kl, vl;
            const char *k = lua_tolstring(L, -2, &kl), *v = lua_tolstring(L, -1, &vl);
            if (!kl || strlen(k) != kl || memchr(k, '=', kl))
                return push_fail(L, -EINVAL, "nvbench.fio_job_read: env: a variable's name is empty or holds '=' or a NUL byte");
            if (strlen(v) != vl) {
                /* C strings end at the NUL: the value would be cut there */
                lua_pushfstring(L, "nvbench.fio_job_read: env: the value of '%s' contains a NUL byte (\\x00)", k);
                return push_fail(L, -EINVAL, lua_tostring(L, -1));
            }
            lua_pushfstring(L, "%s=%s", k, v);
            lua_rawseti(L, 3, ++n);
            lua_pop(L, 1);
        }
        envp = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof *envp, 0); /* 4 */
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, 3, i);
            envp[i - 1] = lua_tostring(L, -1); /* kept alive by table 3 */
            lua_pop(L, 1);
        }
        envp[n] = NULL;
    }
    /* the handle sits in a box freed by __gc: a memory error while the
     * tables are built below does not leak it */
    struct nvb_fiojob **box = new_box(L, "nvbench.fiojob_box", fiojob_box_gc);
    char why[1024];
    int rc = nvb_fiojob_read(path, envp, box, why, sizeof why);
    if (rc < 0)
        return push_fail(L, rc, why);
    *boxp = box;
    return 0;
}
static int l_fio_job_read(lua_State *L)
{
    struct nvb_fiojob **box = NULL;
    int n = fio_read_boxed(L, &box);
    if (n)
        return n;
    const struct nvb_fiojob *f = *box;
    size_t nj = nvb_fiojob_jobs(f);
    lua_createtable(L, (int)nj, 0);
    for (size_t j = 0; j < nj; j++) {
        size_t no = nvb_fiojob_options(f, j);
        lua_createtable(L, 0, 4);
        lua_pushstring(L, nvb_fiojob_name(f, j));
        lua_setfield(L, -2, "name");
        lua_pushboolean(L, nvb_fiojob_stonewall(f, j) > 0);
        lua_setfield(L, -2, "stonewall");
        lua_createtable(L, 0, (int)no); /* opts */
        lua_createtable(L, (int)no, 0); /* order */
        for (size_t k = 0; k < no; k++) {
            const char *v;
            const char *key = nvb_fiojob_option(f, j, k, &v);
            lua_pushstring(L, key);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
            if (v)
                lua_pushstring(L, v);
            else
                lua_pushboolean(L, 1);
            lua_setfield(L, -3, key);
        }
        lua_setfield(L, -3, "order");
        lua_setfield(L, -2, "opts");
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
    nvb_fiojob_free(*box);
    *box = NULL;
    return 1;
}


/* A list of workload w of m as a table (keys: key -> value, and key ->
 * origin in a second table pushed below it). */
static void push_map_list(lua_State *L, const struct nvb_fiomap *m, size_t w, enum nvb_fiomap_list list)
{
    size_t n = nvb_fiomap_count(m, w, list);
    if (list == NVB_FIOMAP_KEYS)
        lua_createtable(L, 0, (int)n); /* origin */
    lua_createtable(L, list == NVB_FIOMAP_KEYS ? 0 : (int)n, list == NVB_FIOMAP_KEYS ? (int)n : 0);
    for (size_t k = 0; k < n; k++) {
        const char *v, *o, *item = nvb_fiomap_item(m, w, list, k, &v, &o);
        if (list == NVB_FIOMAP_KEYS) {
            lua_pushstring(L, v);
            lua_setfield(L, -2, item);
            lua_pushstring(L, o);
            lua_setfield(L, -3, item);
        } else {
            lua_pushstring(L, item);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
    }
}

/* nvb.fio_job_map(path [, env [, lenient]]) -> steps | nil, message, errno:
 * the library's mapping of a job file (nvb_fiomap_new). steps: { {workload,
 * ...}, ... }, a workload: its library keys (strings), targets = {...},
 * fio = {section =, origin = {key = option}, warnings = {...}, dropped = {...}}. */
static int fiomap_box_gc(lua_State *L)
{
    struct nvb_fiomap **box = lua_touserdata(L, 1);
    nvb_fiomap_free(*box);
    *box = NULL;
    return 0;
}

static int l_fio_job_map(lua_State *L)
{
    int lenient = lua_toboolean(L, 3);
    lua_settop(L, 2);
    struct nvb_fiojob **jbox = NULL;
    int n = fio_read_boxed(L, &jbox);
    if (n)
        return n;
    struct nvb_fiomap **box = new_box(L, "nvbench.fiomap_box", fiomap_box_gc);
    char why[1024];
    int rc = nvb_fiomap_new(*jbox, lua_tostring(L, 1), lenient ? NVB_FIOMAP_LENIENT : 0, box, why, sizeof why);
    nvb_fiojob_free(*jbox);
    *jbox = NULL;
    if (rc < 0)
        return push_fail(L, rc, why);
    const struct nvb_fiomap *m = *box;
    lua_newtable(L); /* steps */
    lua_Integer nsteps = 0;
    for (size_t w = 0; w < nvb_fiomap_workloads(m); w++) {
        if (w == 0 || nvb_fiomap_step(m, w) != nvb_fiomap_step(m, w - 1)) {
            lua_newtable(L);
            lua_rawseti(L, -2, ++nsteps);
        }
        lua_rawgeti(L, -1, nsteps);
        push_map_list(L, m, w, NVB_FIOMAP_KEYS); /* origin, workload */
        push_map_list(L, m, w, NVB_FIOMAP_TARGETS);
        lua_setfield(L, -2, "targets");
        lua_createtable(L, 0, 4); /* fio */
        lua_pushstring(L, nvb_fiomap_section(m, w));
        lua_setfield(L, -2, "section");
        lua_rotate(L, -3, -1); /* workload, fio, origin */
        lua_setfield(L, -2, "origin");
        push_map_list(L, m, w, NVB_FIOMAP_WARNINGS);
        lua_setfield(L, -2, "warnings");
        push_map_list(L, m, w, NVB_FIOMAP_DROPPED);
        lua_setfield(L, -2, "dropped");
        lua_setfield(L, -2, "fio");
        lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
        lua_pop(L, 1);
    }
    return 1;
}

/* A number the library read (*v), or nil, message, errno when it refused
 * (rc < 0) or when the number is past a Lua integer (2^63 - 1). */
static int push_read(lua_State *L, int rc, const uint64_t *v, const char *why)
{
    if (rc < 0)
        return push_fail(L, rc, why);
    if (*v > (uint64_t)LUA_MAXINTEGER)
        return push_fail(L, -ERANGE, "the value is past a Lua integer (2^63 - 1)");
    lua_pushinteger(L, (lua_Integer)*v);
    return 1;
}

/* nvb.fio_size(text [, kb_base]) and nvb.fio_time_ns(text [, unit]) ->
 * integer | nil, message, errno: fio's values (nvb_fiomap_size, _time). */
static int l_fio_size(lua_State *L)
{
    uint64_t v = 0;
    char why[512];
    int rc = nvb_fiomap_size(luaL_checkstring(L, 1), (unsigned)luaL_optinteger(L, 2, 1024), &v, why, sizeof why);
    return push_read(L, rc, &v, why);
}

static int l_fio_time_ns(lua_State *L)
{
    uint64_t v = 0;
    char why[512];
    int rc = nvb_fiomap_time(luaL_checkstring(L, 1), luaL_optstring(L, 2, "s"), &v, why, sizeof why);
    return push_read(L, rc, &v, why);
}

/* nvb.key_parse(key, text) -> integer | nil, message, errno: the number a
 * workload key's value stands for (bytes, ns, a count), as the key reads
 * it (nvb_workload_key_parse); the message names the key and the value. */
static int l_key_parse(lua_State *L)
{
    uint64_t v = 0;
    char why[512];
    int rc = nvb_workload_key_parse(luaL_checkstring(L, 1), luaL_checkstring(L, 2), &v, why, sizeof why);
    return push_read(L, rc, &v, why);
}

/* nvb.rw_op(rw) -> "read" | "write" | "trim" | "mixed" | nil (nvb_rw_op) and
 * nvb.size_format(bytes) -> "4k" (nvb_size_format): the labels of a run. */
static int l_rw_op(lua_State *L)
{
    size_t n;
    const char *rw = luaL_checklstring(L, 1, &n);
    const char *op = strlen(rw) == n ? nvb_rw_op(rw) : NULL;
    if (!op)
        return 0;
    lua_pushstring(L, op);
    return 1;
}

static int l_size_format(lua_State *L)
{
    lua_Integer v = luaL_checkinteger(L, 1);
    char text[32];
    luaL_argcheck(L, v >= 0, 1, "a size is not negative");
    nvb_size_format((uint64_t)v, text, sizeof text);
    lua_pushstring(L, text);
    return 1;
}

static const luaL_Reg lib_funcs[] = {
    {"run", l_run},
    {"run_groups", l_run_groups},
    {"validate_groups", l_validate_groups},
    {"workload", l_workload},
    {"workload_echo", l_workload_echo},
    {"key_table", l_key_table},
    {"engines", l_engines},
    {"devices", l_devices},
    {"device", l_device},
    {"strerror", l_strerror},
    {"interrupted_result", l_interrupted_result},
    {"decode_json", l_decode_json},
    {"load", l_load},
    {"merge", l_merge},
    {"search", l_search},
    {"fio_job_read", l_fio_job_read},
    {"fio_job_map", l_fio_job_map},
    {"fio_size", l_fio_size},
    {"fio_time_ns", l_fio_time_ns},
    {"key_parse", l_key_parse},
    {"rw_op", l_rw_op},
    {"size_format", l_size_format},
    {"target_length", l_target_length},
    {NULL, NULL},
};

static void push_errno_table(lua_State *L)
{
    static const struct { const char *name; int v; } e[] = {
        {"EPERM", EPERM}, {"ENOENT", ENOENT}, {"EIO", EIO}, {"ENOMEM", ENOMEM}, {"EACCES", EACCES},
        {"EBUSY", EBUSY}, {"EINVAL", EINVAL}, {"ENOSPC", ENOSPC}, {"ERANGE", ERANGE}, {"ENOSYS", ENOSYS},
        {"ENAMETOOLONG", ENAMETOOLONG}, {"ENOTSUP", ENOTSUP}, {"ECANCELED", ECANCELED},
        {"EILSEQ", EILSEQ}, /* verify=1 read back blocks that did not match */
    };
    lua_createtable(L, 0, (int)(sizeof e / sizeof e[0]));
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        lua_pushinteger(L, e[i].v);
        lua_setfield(L, -2, e[i].name);
    }
}

__attribute__((visibility("default"))) int luaopen_nvbench(lua_State *L);

int luaopen_nvbench(lua_State *L)
{
    luaL_checkversion(L);
    luaL_newmetatable(L, BUFFER_MT);
    lua_pushcfunction(L, buffer_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, TREE_MT);
    lua_pushcfunction(L, tree_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    create_workload_meta(L);
    create_result_meta(L);
    create_signal_exit(L);
    luaL_newlib(L, lib_funcs);
    lua_pushstring(L, nvb_version());
    lua_setfield(L, -2, "version");
    lua_pushliteral(L, NVB_SCHEMA_VERSION);
    lua_setfield(L, -2, "schema");
    push_errno_table(L);
    lua_setfield(L, -2, "errno");
    push_stats_table(L);
    lua_setfield(L, -2, "stats");
    push_seed(L);
    push_search(L);
    return 1;
}
