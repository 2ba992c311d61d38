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
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>

#include <lauxlib.h>
#include <lua.h>

#include <nvbench.h>

#include "util/json.h" /* the library's own parser: this module links it statically */

#if LUA_VERSION_NUM != 504
#error "the nvbench Lua module is written for Lua 5.4 (liblua5.4-dev)"
#endif

#define WORKLOAD_MT "nvbench.workload"
#define RESULT_MT "nvbench.result"
#define BUFFER_MT "nvbench.buffer"
#define TREE_MT "nvbench.jsontree"

struct lworkload {
    struct nvb_workload *w;
    int busy; /* runs in progress that read w (nested runs are allowed) */
};

/* Registry field holding the partial result of an interrupted run. */
#define INTERRUPTED_KEY "nvbench.interrupted_result"
/* Registry field holding the object whose __gc ends the process by the
 * signal that cancelled a run, once the Lua state is closed. */
#define SIGNAL_EXIT_KEY "nvbench.signal_exit"

struct lresult {
    struct nvb_result *r;
};

/* Memory the library handed us (nvb_result_json) while Lua code that can
 * raise runs: a userdata whose __gc frees it if an error cuts us short. */
struct lbuffer {
    char *p;
};

/* ------------------------------------------------------------ helpers */

/* nil, message, errno: the runtime-failure convention (luaL_fileresult). */
static int push_fail(lua_State *L, int err, const char *msg)
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
static void shown(char *out, size_t len, const char *s, size_t n)
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

/* Room for a refusal message of c_string(). */
#define WHY_LEN 320

/* The Lua string at idx for the library, or NULL and a message in why when
 * it holds a NUL byte: C reads a string up to its first NUL, so
 * "a.dat\0/etc/passwd" would silently become "a.dat". what names the
 * value in the message ("targets[2]", "value of key 'name'"). */
static const char *c_string(lua_State *L, int idx, const char *what, char *why, size_t why_len)
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

static int buffer_gc(lua_State *L)
{
    struct lbuffer *b = luaL_checkudata(L, 1, BUFFER_MT);
    nvb_free(b->p);
    b->p = NULL;
    return 0;
}

static struct lbuffer *new_buffer(lua_State *L)
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
static const char *value_string(lua_State *L, int idx, const char *key, char *buf, size_t len, char *why)
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

/* ------------------------------------------------------------ JSON decoding */

/* ------------------------------------------------------------ JSON
 * The library's one JSON parser (util/json.c: strict, bounded, the same
 * that reads results back) reads the text; this only turns its tree into
 * Lua values. null is pushed as nil: inside an object the key is then left
 * out (absent == null); inside an array it becomes NaN, because the library
 * writes null in arrays only for a number that is not finite. A number is a
 * Lua integer when its text is one that fits, else a float
 * (lua_stringtonumber's rule). */
struct jdec {
    char err[192];
};

/* The parsed tree while Lua code that can raise (a memory error) runs: a
 * userdata whose __gc frees it if an error cuts us short. */
struct ltree {
    struct nvb__jv *root;
};

static int tree_gc(lua_State *L)
{
    struct ltree *t = luaL_checkudata(L, 1, TREE_MT);
    nvb__json_free(t->root);
    t->root = NULL;
    return 0;
}

static void jv_push(lua_State *L, const struct nvb__jv *v)
{
    switch (v->type) {
    case NVB__J_FALSE:
    case NVB__J_TRUE:
        lua_pushboolean(L, v->type == NVB__J_TRUE);
        return;
    case NVB__J_NUM:
        if (!lua_stringtonumber(L, v->s))
            lua_pushnumber(L, (lua_Number)NAN); /* the parser checked the grammar: not reached */
        return;
    case NVB__J_STR:
        lua_pushstring(L, v->s);
        return;
    case NVB__J_ARR:
        lua_createtable(L, (int)(v->n < INT32_MAX ? v->n : 0), 0);
        for (uint32_t i = 0; i < v->n; i++) {
            jv_push(L, &v->kid[i]);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                lua_pushnumber(L, (lua_Number)NAN);
            }
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        return;
    case NVB__J_OBJ:
        lua_createtable(L, 0, (int)(v->n < INT32_MAX ? v->n : 0));
        for (uint32_t i = 0; i < v->n; i++) {
            lua_pushstring(L, v->kid[i].key);
            jv_push(L, &v->kid[i]);
            if (lua_isnil(L, -1))
                lua_pop(L, 2);
            else
                lua_rawset(L, -3);
        }
        return;
    default:
        lua_pushnil(L);
        return;
    }
}

/* Decodes s[0..len) and pushes the value; on malformed input pushes
 * nothing and returns -1 with the reason in d->err. */
static int json_decode(lua_State *L, const char *s, size_t len, struct jdec *d)
{
    char why[160] = "";
    struct ltree *t = lua_newuserdatauv(L, sizeof *t, 0);
    t->root = NULL;
    luaL_setmetatable(L, TREE_MT);
    int rc = nvb__json_parse(s, len, &t->root, why, sizeof why);
    if (rc < 0) {
        lua_pop(L, 1);
        snprintf(d->err, sizeof d->err, "invalid JSON: %s", why[0] ? why : nvb_strerror(rc));
        return -1;
    }
    /* one slot per level, and the parser bounds the depth */
    luaL_checkstack(L, 2 * NVB__JSON_MAX_DEPTH + 8, "nvbench: JSON too deep");
    jv_push(L, t->root);
    lua_remove(L, -2); /* the tree's box: collected, and freed, later */
    return 0;
}

/* nvb.decode_json(text) -> value | nil, message, EINVAL */
static int l_decode_json(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    struct jdec d;
    if (json_decode(L, s, len, &d))
        return push_fail(L, -EINVAL, d.err);
    return 1;
}

/* ------------------------------------------------------------ workloads */

static struct lworkload *to_workload(lua_State *L, int idx)
{
    struct lworkload *lw = luaL_checkudata(L, idx, WORKLOAD_MT);
    if (!lw->w)
        luaL_error(L, "attempt to use a closed nvbench workload");
    return lw;
}

static struct lworkload *to_idle_workload(lua_State *L, int idx)
{
    struct lworkload *lw = to_workload(L, idx);
    if (lw->busy)
        luaL_error(L, "nvbench workload is in use by a run in progress; it cannot change until the run returns");
    return lw;
}

/* A new, empty handle on the stack: allocated before the workload so that a
 * memory error can never leak the workload. */
static struct lworkload *new_workload(lua_State *L)
{
    struct lworkload *lw = lua_newuserdatauv(L, sizeof *lw, 0);
    lw->w = NULL;
    lw->busy = 0;
    luaL_setmetatable(L, WORKLOAD_MT);
    int rc = nvb_workload_new(&lw->w);
    if (rc < 0)
        luaL_error(L, "nvbench: cannot create a workload: %s", nvb_strerror(rc));
    return lw;
}

/* Returns 0, the library's negative errno (message in nvb_workload_error),
 * or -EINVAL with the message in why (WHY_LEN bytes) for a NUL byte. */
static int add_targets(lua_State *L, struct nvb_workload *w, int idx, char *why)
{
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *t = c_string(L, idx, "target", why, WHY_LEN);
        return t ? nvb_workload_add_target(w, t) : -EINVAL;
    }
    if (!lua_istable(L, idx))
        return luaL_error(L, "nvbench: 'targets' must be a string or a list of strings (got %s)",
                          luaL_typename(L, idx));
    /* Raw access: no metamethod (user code) may run while apply_table
     * holds pointers to the spec's key strings. */
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        if (lua_type(L, -1) != LUA_TSTRING)
            return luaL_error(L, "nvbench: targets[%d] must be a string (got %s)", (int)i, luaL_typename(L, -1));
        char what[32];
        snprintf(what, sizeof what, "targets[%d]", (int)i);
        const char *t = c_string(L, -1, what, why, WHY_LEN);
        int rc = t ? nvb_workload_add_target(w, t) : -EINVAL;
        lua_pop(L, 1);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sets every key of the table at idx on w, in sorted key order so that the
 * first bad key reported does not depend on table iteration order.
 * "targets" appends targets; the keys in `skip` (NULL-terminated) belong to
 * the caller. Returns 0 or the library's negative errno (message in
 * nvb_workload_error(w), or in why when a key or value holds a NUL byte). */
static int apply_table(lua_State *L, struct nvb_workload *w, int idx, const char *const *skip, char *why)
{
    idx = lua_absindex(L, idx);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            return luaL_error(L, "nvbench: workload keys must be strings (got a %s key)", luaL_typename(L, -1));
        n++;
    }
    /* Key pointers stay valid: the table, which holds the strings, is on
     * the stack and is not modified here. */
    const char **names = lua_newuserdatauv(L, (n ? n : 1) * sizeof *names, 0);
    size_t i = 0;
    int rc = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!rc && !c_string(L, -1, "workload key", why, WHY_LEN))
            rc = -EINVAL; /* finish the walk: lua_next needs its key back */
        if (i < n)
            names[i++] = lua_tostring(L, -1);
    }
    if (rc < 0) {
        lua_pop(L, 1); /* names */
        return rc;
    }
    qsort(names, i, sizeof *names, cmp_str);
    for (size_t k = 0; k < i && rc == 0; k++) {
        const char *key = names[k];
        int skipped = 0;
        for (const char *const *s = skip; s && *s; s++)
            if (!strcmp(*s, key))
                skipped = 1;
        if (skipped)
            continue;
        lua_pushstring(L, key);
        lua_rawget(L, idx);
        if (!strcmp(key, "targets")) {
            rc = add_targets(L, w, -1, why);
        } else {
            char buf[64];
            const char *v = value_string(L, -1, key, buf, sizeof buf, why);
            rc = v ? nvb_workload_set(w, key, v) : -EINVAL;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1); /* names */
    return rc;
}

/* nvb.workload{key = value, targets = {...}} -> workload | nil, msg, errno */
static int l_workload(lua_State *L)
{
    if (!lua_isnoneornil(L, 1))
        luaL_checktype(L, 1, LUA_TTABLE);
    struct lworkload *lw = new_workload(L);
    if (lua_istable(L, 1)) {
        lua_getfield(L, 1, "progress");
        if (!lua_isnil(L, -1))
            return luaL_error(L, "nvbench: 'progress' is an option of nvb.run, not a workload key");
        lua_pop(L, 1);
        char why[WHY_LEN] = "";
        int rc = apply_table(L, lw->w, 1, NULL, why);
        if (rc < 0)
            return push_fail(L, rc, why[0] ? why : nvb_workload_error(lw->w));
    }
    return 1;
}

/* w:set(key, value) or w:set{...} -> w | nil, msg, errno */
static int w_set(lua_State *L)
{
    struct lworkload *lw = to_idle_workload(L, 1);
    char why[WHY_LEN] = "";
    int rc;
    if (lua_istable(L, 2)) {
        rc = apply_table(L, lw->w, 2, NULL, why);
    } else {
        luaL_checkstring(L, 2);
        luaL_argexpected(L, !lua_isnoneornil(L, 3), 3, "string, number or boolean");
        const char *key = c_string(L, 2, "workload key", why, sizeof why);
        char buf[64];
        if (!key) {
            rc = -EINVAL;
        } else if (!strcmp(key, "targets")) {
            rc = add_targets(L, lw->w, 3, why);
        } else {
            const char *v = value_string(L, 3, key, buf, sizeof buf, why);
            rc = v ? nvb_workload_set(lw->w, key, v) : -EINVAL;
        }
    }
    if (rc < 0)
        return push_fail(L, rc, why[0] ? why : nvb_workload_error(lw->w));
    lua_settop(L, 1);
    return 1;
}

/* w:get(key) -> string | nil, msg, errno */
static int w_get(lua_State *L)
{
    struct lworkload *lw = to_workload(L, 1);
    luaL_checkstring(L, 2);
    char why[WHY_LEN];
    const char *key = c_string(L, 2, "workload key", why, sizeof why);
    if (!key)
        return push_fail(L, -EINVAL, why);
    char buf[256];
    int rc = nvb_workload_get(lw->w, key, buf, sizeof buf);
    if (rc == -ENOENT) {
        lua_pushfstring(L, "unknown key '%s'", key);
        return push_fail(L, rc, lua_tostring(L, -1));
    }
    if (rc < 0)
        return push_fail(L, rc, NULL);
    lua_pushlstring(L, buf, (size_t)rc);
    return 1;
}

/* w:add_target(path) -> w | nil, msg, errno */
static int w_add_target(lua_State *L)
{
    struct lworkload *lw = to_idle_workload(L, 1);
    luaL_checkstring(L, 2);
    char why[WHY_LEN] = "";
    const char *t = c_string(L, 2, "target", why, sizeof why);
    int rc = t ? nvb_workload_add_target(lw->w, t) : -EINVAL;
    if (rc < 0)
        return push_fail(L, rc, why[0] ? why : nvb_workload_error(lw->w));
    lua_settop(L, 1);
    return 1;
}

static int w_clear_targets(lua_State *L)
{
    struct lworkload *lw = to_idle_workload(L, 1);
    nvb_workload_clear_targets(lw->w);
    lua_settop(L, 1);
    return 1;
}

/* w:validate() -> true | nil, msg, errno. Creates and writes nothing. */
static int w_validate(lua_State *L)
{
    struct lworkload *lw = to_idle_workload(L, 1);
    int rc = nvb_workload_validate(lw->w);
    if (rc < 0)
        return push_fail(L, rc, nvb_workload_error(lw->w));
    lua_pushboolean(L, 1);
    return 1;
}

static int w_close(lua_State *L)
{
    struct lworkload *lw = luaL_checkudata(L, 1, WORKLOAD_MT);
    if (lw->busy)
        return luaL_error(L, "nvbench workload is in use by a run in progress; it cannot be closed until the run returns");
    nvb_workload_free(lw->w);
    lw->w = NULL;
    return 0;
}

static int w_gc(lua_State *L)
{
    struct lworkload *lw = luaL_checkudata(L, 1, WORKLOAD_MT);
    /* A running workload is on nvb.run's stack, so it cannot be collected;
     * should that ever change, leaking beats a use after free. */
    if (!lw->busy)
        nvb_workload_free(lw->w);
    lw->w = NULL;
    return 0;
}

static int w_tostring(lua_State *L)
{
    struct lworkload *lw = luaL_checkudata(L, 1, WORKLOAD_MT);
    if (!lw->w) {
        lua_pushliteral(L, "nvbench.workload (closed)");
        return 1;
    }
    char e[32] = "?", rw[32] = "?", bs[32] = "?", qd[32] = "?", jobs[32] = "?";
    nvb_workload_get(lw->w, "engine", e, sizeof e);
    nvb_workload_get(lw->w, "rw", rw, sizeof rw);
    nvb_workload_get(lw->w, "bs", bs, sizeof bs);
    nvb_workload_get(lw->w, "qd", qd, sizeof qd);
    nvb_workload_get(lw->w, "jobs", jobs, sizeof jobs);
    lua_pushfstring(L, "nvbench.workload (engine=%s rw=%s bs=%s qd=%s jobs=%s): %p", e, rw, bs, qd, jobs,
                    (void *)lw);
    return 1;
}

/* ------------------------------------------------------------ results */

static struct lresult *to_result(lua_State *L, int idx)
{
    struct lresult *lr = luaL_checkudata(L, idx, RESULT_MT);
    if (!lr->r)
        luaL_error(L, "attempt to use a closed nvbench result");
    return lr;
}

static struct lresult *new_result(lua_State *L)
{
    /* One user value: the decoded JSON, filled on first field access. */
    struct lresult *lr = lua_newuserdatauv(L, sizeof *lr, 1);
    lr->r = NULL;
    luaL_setmetatable(L, RESULT_MT);
    return lr;
}

/* Pushes the result's JSON decoded to Lua tables, decoding once and caching
 * it in the handle's user value. */
static void push_decoded(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    struct lresult *lr = to_result(L, idx);
    if (lua_getiuservalue(L, idx, 1) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    struct lbuffer *b = new_buffer(L);
    int rc = nvb_result_json(lr->r, &b->p);
    if (rc < 0)
        luaL_error(L, "nvbench: cannot serialise the result: %s", nvb_strerror(rc));
    struct jdec d;
    if (json_decode(L, b->p, strlen(b->p), &d))
        luaL_error(L, "nvbench: the library's JSON did not decode (%s)", d.err);
    nvb_free(b->p);
    b->p = NULL;
    lua_remove(L, -2); /* the buffer */
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, idx, 1);
}

/* r:json() -> string | nil, msg, errno */
static int r_json(lua_State *L)
{
    struct lresult *lr = to_result(L, 1);
    struct lbuffer *b = new_buffer(L);
    int rc = nvb_result_json(lr->r, &b->p);
    if (rc < 0)
        return push_fail(L, rc, NULL);
    lua_pushstring(L, b->p);
    nvb_free(b->p);
    b->p = NULL;
    return 1;
}

/* r:get("read.lat_ns.p99") -> number | nil, msg, errno */
static int r_get(lua_State *L)
{
    struct lresult *lr = to_result(L, 1);
    luaL_checkstring(L, 2);
    char why[WHY_LEN];
    const char *path = c_string(L, 2, "figure path", why, sizeof why);
    if (!path)
        return push_fail(L, -EINVAL, why);
    double v;
    int rc = nvb_result_get(lr->r, path, &v);
    if (rc == -ENOENT) {
        lua_pushfstring(L, "no numeric figure at '%s' in the result", path);
        return push_fail(L, rc, lua_tostring(L, -1));
    }
    if (rc < 0)
        return push_fail(L, rc, NULL);
    lua_pushnumber(L, (lua_Number)v);
    return 1;
}

/* r:table() -> the decoded JSON (shared with field access: do not modify) */
static int r_table(lua_State *L)
{
    push_decoded(L, 1);
    return 1;
}

static int r_close(lua_State *L)
{
    struct lresult *lr = luaL_checkudata(L, 1, RESULT_MT);
    nvb_result_free(lr->r);
    lr->r = NULL;
    lua_pushnil(L); /* drop the decoded copy too */
    lua_setiuservalue(L, 1, 1);
    return 0;
}

static int r_gc(lua_State *L)
{
    struct lresult *lr = luaL_checkudata(L, 1, RESULT_MT);
    nvb_result_free(lr->r);
    lr->r = NULL;
    return 0;
}

static int r_index(lua_State *L)
{
    luaL_checkudata(L, 1, RESULT_MT);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) /* a method */
        return 1;
    lua_pop(L, 1);
    push_decoded(L, 1);
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    return 1;
}

static int r_next(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_next(L, 1))
        return 2;
    lua_pushnil(L);
    return 1;
}

/* pairs(r) walks the decoded JSON. */
static int r_pairs(lua_State *L)
{
    lua_pushcfunction(L, r_next);
    push_decoded(L, 1);
    lua_pushnil(L);
    return 3;
}

static int r_tostring(lua_State *L)
{
    struct lresult *lr = luaL_checkudata(L, 1, RESULT_MT);
    if (!lr->r) {
        lua_pushliteral(L, "nvbench.result (closed)");
        return 1;
    }
    const struct nvb_result *r = lr->r;
    /* The error message may come from a loaded file: shown, never obeyed. */
    const char *err = nvb_result_errno(r) && !nvb_result_cancelled(r) ? nvb_result_error(r) : "";
    char line[512], err_shown[256];
    shown(err_shown, sizeof err_shown, err, strlen(err));
    snprintf(line, sizeof line, "nvbench.result: %.0f read IOPS, %.0f write IOPS, %.3f s%s%s%s", nvb_result_iops(r, NVB_READ),
             nvb_result_iops(r, NVB_WRITE), nvb_result_duration(r), nvb_result_cancelled(r) ? ", cancelled" : "",
             *err ? ", error: " : "", err_shown);
    lua_pushstring(L, line);
    return 1;
}

/* ------------------------------------------------------------ running */

/* ------------------------------------------------------------ signals
 *
 * SIGTERM (timeout, systemd, docker stop), and SIGINT outside lua5.4, kill a
 * process by default: in the middle of a run that leaves the library's
 * scratch file behind and no result. While nvb.run runs, each of the two
 * whose disposition is SIG_DFL gets a handler that only notes the signal; a
 * host's own handler, SIG_IGN, and lua5.4's SIGINT hook (which raises
 * "interrupted!" through the poll hook, and is then noted as SIGINT) are
 * left alone. The poll hook then
 * cancels the run (the library drains its I/O and removes its scratch
 * files), the disposition is given back, and nvb.run raises
 * "nvbench: terminated by SIGTERM ..." the way lua5.4 raises "interrupted!":
 * to-be-closed variables and the script's pcall cleanup (nvbench.matrix's
 * scratch file) run, nvb.interrupted_result() has the partial result.
 *
 * The process must still end as the signal would have ended it, but only
 * after that cleanup: when the Lua state is closed (lua5.4 closes it when it
 * exits, also after an uncaught error), the object at SIGNAL_EXIT_KEY
 * restores the default disposition and raises the signal again, so the exit
 * status is 143 (SIGTERM) or 130 (SIGINT). A script that wants another
 * status calls os.exit(n) itself (without closing the state). Until then
 * every nvb.run raises the same error at once: the process is ending.
 *
 * A signal handler reaches only static storage, so the note is one
 * process-wide flag, as the signal itself is process-wide. */
#ifndef _WIN32
static volatile sig_atomic_t caught_signal;

static void on_signal(int sig)
{
    if (!caught_signal)
        caught_signal = sig;
}

static const int run_signals[] = {SIGTERM, SIGINT};
#define NRUN_SIGNALS (sizeof run_signals / sizeof run_signals[0])

struct sigtake {
    int taken[NRUN_SIGNALS];
    struct sigaction old[NRUN_SIGNALS];
};

static void signals_take(struct sigtake *t)
{
    for (size_t i = 0; i < NRUN_SIGNALS; i++) {
        t->taken[i] = 0;
        if (sigaction(run_signals[i], NULL, &t->old[i]) != 0 || (t->old[i].sa_flags & SA_SIGINFO) ||
            t->old[i].sa_handler != SIG_DFL)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART; /* Lua's own I/O in a progress callback goes on */
        sigemptyset(&sa.sa_mask);
        t->taken[i] = sigaction(run_signals[i], &sa, NULL) == 0;
    }
}

static void signals_give_back(const struct sigtake *t)
{
    for (size_t i = 0; i < NRUN_SIGNALS; i++)
        if (t->taken[i])
            sigaction(run_signals[i], &t->old[i], NULL);
}

static int signal_pending(void)
{
    return caught_signal;
}

/* __gc of the object at SIGNAL_EXIT_KEY: runs when the state is closed. */
static int signal_exit_gc(lua_State *L)
{
    (void)L;
    int sig = caught_signal;
    if (!sig)
        return 0;
    fflush(NULL); /* what the script printed (the partial result) */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 0;
}

static void create_signal_exit(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, SIGNAL_EXIT_KEY) != LUA_TNIL) {
        lua_pop(L, 1);
        return; /* the module was loaded before into this state */
    }
    lua_pop(L, 1);
    lua_newuserdatauv(L, 0, 0);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, signal_exit_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, SIGNAL_EXIT_KEY);
}
#else
/* Windows: no sigaction; Ctrl-C is the console's (a later change). */
struct sigtake {
    int unused;
};
static void signals_take(struct sigtake *t)
{
    (void)t;
}
static void signals_give_back(const struct sigtake *t)
{
    (void)t;
}
static int signal_pending(void)
{
    return 0;
}
static void create_signal_exit(lua_State *L)
{
    (void)L;
}
#endif

/* Raises the error every nvb.run raises once a signal cancelled a run. */
static int raise_signal_error(lua_State *L, int sig)
{
    return luaL_error(L, "nvbench: terminated by %s: the run was cancelled and its scratch files removed "
                         "(the process exits by that signal when Lua closes)",
                      sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
}

struct runcb {
    lua_State *L;
    int fn;      /* stack index of the progress function, 0 when none */
    int err_idx; /* stack index of an error raised by Lua code during the run */
    int lua_int; /* that error is lua5.4's "interrupted!" (noted as SIGINT) */
    int stopped; /* progress returned false: not called again (the library may
                    tick once more while the jobs drain) */
};

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, (lua_Number)v);
    lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, uint64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, k);
}

/* Under lua_pcall: (fn, lightuserdata progress) -> fn(snapshot) */
static int progress_call(lua_State *L)
{
    const struct nvb_progress *p = lua_touserdata(L, 2);
    lua_settop(L, 1);
    lua_createtable(L, 0, 16);
    set_num(L, "elapsed_s", p->elapsed_s);
    set_num(L, "total_s", p->total_s);
    set_num(L, "done_fraction", p->done_fraction);
    set_int(L, "ios_read", p->ios[NVB_READ]);
    set_int(L, "ios_write", p->ios[NVB_WRITE]);
    set_int(L, "bytes_read", p->bytes[NVB_READ]);
    set_int(L, "bytes_write", p->bytes[NVB_WRITE]);
    set_num(L, "iops_read", p->iops[NVB_READ]);
    set_num(L, "iops_write", p->iops[NVB_WRITE]);
    set_num(L, "iops", p->iops[NVB_READ] + p->iops[NVB_WRITE]);
    set_num(L, "bw_read", p->bw_bytes_s[NVB_READ]);
    set_num(L, "bw_write", p->bw_bytes_s[NVB_WRITE]);
    set_num(L, "lat_mean_ns_read", p->lat_mean_ns[NVB_READ]);
    set_num(L, "lat_mean_ns_write", p->lat_mean_ns[NVB_WRITE]);
    set_int(L, "errors", p->errors);
    lua_call(L, 1, 1);
    return 1;
}

/* Called by nvb_run() on this thread at each interval. "return false"
 * cancels; an error cancels and is raised again after the run. */
static int progress_cb(const struct nvb_progress *p, void *arg)
{
    struct runcb *cb = arg;
    lua_State *L = cb->L;
    if (cb->err_idx || cb->stopped)
        return 1;
    lua_pushcfunction(L, progress_call);
    lua_pushvalue(L, cb->fn);
    lua_pushlightuserdata(L, (void *)p);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        cb->err_idx = lua_gettop(L);
        return 1;
    }
    cb->stopped = lua_isboolean(L, -1) && !lua_toboolean(L, -1);
    lua_pop(L, 1);
    return cb->stopped;
}

static int poll_noop(lua_State *L)
{
    (void)L;
    return 0;
}

/* Called by nvb_run() on this thread every 100 ms. Calling any function
 * gives Lua's debug hooks a chance to run: lua5.4 turns Ctrl-C into a hook
 * that raises "interrupted!", which then cancels the run cleanly instead of
 * being noticed only after it. */
static int poll_cb(void *arg)
{
    struct runcb *cb = arg;
    lua_State *L = cb->L;
    if (cb->err_idx || signal_pending())
        return 1;
    lua_pushcfunction(L, poll_noop);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        cb->err_idx = lua_gettop(L);
#ifndef _WIN32
        /* lua5.4's Ctrl-C: its hook raised "interrupted!" (lua.c's own
         * words). lua5.4 would then exit 1; note SIGINT as if this module
         * had caught it, so that the process ends by it (130) once the
         * script's cleanup has run and the state is closed. */
        const char *m = lua_tostring(L, -1);
        if (m && !strcmp(m, "interrupted!") && !caught_signal) {
            caught_signal = SIGINT;
            cb->lua_int = 1;
        }
#endif
        return 1;
    }
    return 0;
}

/* nvb.run{key = value, ..., targets = {...}, progress = fn}
 * nvb.run(workload [, {progress = fn}])
 *   -> result                          completed, or cancelled by progress
 *                                      returning false (result.cancelled)
 *   -> nil, message, errno [, result]  refused or failed; the result, when
 *                                      the library built one, carries the
 *                                      error and any partial figures */
static int l_run(lua_State *L)
{
    static const char *const run_only[] = {"progress", NULL};
    struct lworkload *lw;
    int fn = 0;
    if (lua_istable(L, 1)) {
        lua_settop(L, 1);
        lua_getfield(L, 1, "progress"); /* 2 */
        lw = new_workload(L);           /* 3 */
        char why[WHY_LEN] = "";
        int rc = apply_table(L, lw->w, 1, run_only, why);
        if (rc < 0)
            return push_fail(L, rc, why[0] ? why : nvb_workload_error(lw->w));
        fn = 2;
    } else {
        lw = to_workload(L, 1);
        if (!lua_isnoneornil(L, 2))
            luaL_checktype(L, 2, LUA_TTABLE);
        lua_settop(L, 2);
        if (lua_istable(L, 2))
            lua_getfield(L, 2, "progress"); /* 3 */
        else
            lua_pushnil(L);
        fn = 3;
    }
    if (lua_isnil(L, fn))
        fn = 0;
    else if (!lua_isfunction(L, fn))
        return luaL_error(L, "nvbench: 'progress' must be a function (got %s)", luaL_typename(L, fn));

    if (signal_pending())
        return raise_signal_error(L, signal_pending());
    struct lresult *lr = new_result(L);
    int res_idx = lua_gettop(L);
    /* Room for the callbacks' pushes and one error object. */
    luaL_checkstack(L, 8, "nvbench: no stack space for the run's callbacks");
    struct runcb cb = {.L = L, .fn = fn};
    struct nvb_run_opts opts = NVB_RUN_OPTS_INIT;
    if (fn) {
        opts.progress = progress_cb;
        opts.progress_arg = &cb;
    }
    opts.poll = poll_cb;
    opts.poll_arg = &cb;
    opts.poll_ms = 100;

    struct sigtake taken;
    signals_take(&taken);
    lw->busy++;
    int rc = nvb_run(lw->w, &opts, &lr->r);
    lw->busy--;
    signals_give_back(&taken);
    if (cb.err_idx || signal_pending()) {
        /* A signal wins over an error of the progress callback: the process
         * is ending either way, and its status must say why. */
        int sig = signal_pending();
        /* The result is owned by its handle on the stack; GC frees it once
         * nvb.interrupted_result() has handed it out or a later
         * interruption replaced it. */
        lua_pushvalue(L, res_idx);
        lua_setfield(L, LUA_REGISTRYINDEX, INTERRUPTED_KEY);
        if (sig && !cb.lua_int)
            return raise_signal_error(L, sig);
        lua_pushvalue(L, cb.err_idx); /* lua5.4's own "interrupted!" stays as it was */
        return lua_error(L);
    }
    lua_settop(L, res_idx);
    if (rc == 0 || (rc == -ECANCELED && lr->r && nvb_result_cancelled(lr->r)))
        return 1;
    push_fail(L, rc, lr->r ? nvb_result_error(lr->r) : NULL);
    if (lr->r)
        lua_pushvalue(L, res_idx);
    else
        lua_pushnil(L);
    return 4;
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

static const luaL_Reg lib_funcs[] = {
    {"run", l_run},
    {"workload", l_workload},
    {"engines", l_engines},
    {"devices", l_devices},
    {"device", l_device},
    {"strerror", l_strerror},
    {"interrupted_result", l_interrupted_result},
    {"decode_json", l_decode_json},
    {"load", l_load},
    {"merge", l_merge},
    {NULL, NULL},
};

static const luaL_Reg workload_methods[] = {
    {"set", w_set},
    {"get", w_get},
    {"add_target", w_add_target},
    {"clear_targets", w_clear_targets},
    {"validate", w_validate},
    {"run", l_run},
    {"close", w_close},
    {NULL, NULL},
};

static const luaL_Reg workload_meta[] = {
    {"__gc", w_gc},
    {"__close", w_close},
    {"__tostring", w_tostring},
    {NULL, NULL},
};

static const luaL_Reg result_methods[] = {
    {"json", r_json},
    {"get", r_get},
    {"table", r_table},
    {"close", r_close},
    {NULL, NULL},
};

static const luaL_Reg result_meta[] = {
    {"__gc", r_gc},
    {"__close", r_gc},
    {"__tostring", r_tostring},
    {"__pairs", r_pairs},
    {NULL, NULL},
};

static void create_workload_meta(lua_State *L)
{
    luaL_newmetatable(L, WORKLOAD_MT);
    luaL_setfuncs(L, workload_meta, 0);
    luaL_newlibtable(L, workload_methods);
    luaL_setfuncs(L, workload_methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

static void create_result_meta(lua_State *L)
{
    luaL_newmetatable(L, RESULT_MT);
    luaL_setfuncs(L, result_meta, 0);
    luaL_newlibtable(L, result_methods);
    luaL_setfuncs(L, result_methods, 0);
    lua_pushcclosure(L, r_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

/* The errno values this module returns, by name, for scripts and tests. */
static void push_errno_table(lua_State *L)
{
    static const struct { const char *name; int v; } e[] = {
        {"EPERM", EPERM}, {"ENOENT", ENOENT}, {"EIO", EIO}, {"ENOMEM", ENOMEM}, {"EACCES", EACCES},
        {"EBUSY", EBUSY}, {"EINVAL", EINVAL}, {"ENOSPC", ENOSPC}, {"ERANGE", ERANGE}, {"ENOSYS", ENOSYS},
        {"ENAMETOOLONG", ENAMETOOLONG}, {"ENOTSUP", ENOTSUP}, {"ECANCELED", ECANCELED},
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
    return 1;
}
