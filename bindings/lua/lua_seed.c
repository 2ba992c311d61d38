/*
 * The seed matrix's cells and the percentile rank rule, from the library
 * (nvb_seed_cell, nvb_pct_*), so nvbench.matrix keeps no copy of either:
 *
 *   nvb.seed_cells()        -> { { key =, workload =, op =, rw =, bs =, label = }, ... }
 *                              a new list each call, in the published order
 *   nvb.pct.rank(n, p)      -> the 1-based rank of percentile p of n latencies
 *   nvb.pct.supported(n, p) -> true when that percentile rests on enough samples
 *   nvb.pct.min_ios(p)      -> the fewest latencies supporting p, or nil (p0, p100)
 *   nvb.pct.TAIL            -> the latencies needed on either side of the rank
 *
 * n: an integer (a float with an integral value too); below 0 counts as 0.
 */
#include "lua_module.h"

static int l_seed_cells(lua_State *L)
{
    static const char *const fields[] = { "key", "workload", "op", "rw", "bs", "label" };
    size_t n = nvb_seed_cells();
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, (int)(sizeof fields / sizeof fields[0]));
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
            const char *v;
            int rc = nvb_seed_cell(i, fields[k], &v);
            if (rc)
                return luaL_error(L, "nvb_seed_cell(%d, \"%s\"): %s", (int)i, fields[k], nvb_strerror(rc));
            lua_pushstring(L, v);
            lua_setfield(L, -2, fields[k]);
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static uint64_t count_arg(lua_State *L, int arg)
{
    lua_Integer n = luaL_checkinteger(L, arg);
    return n > 0 ? (uint64_t)n : 0;
}

static int l_rank(lua_State *L)
{
    uint64_t n = count_arg(L, 1);
    lua_pushinteger(L, (lua_Integer)nvb_pct_rank(n, luaL_checknumber(L, 2)));
    return 1;
}

static int l_supported(lua_State *L)
{
    uint64_t n = count_arg(L, 1);
    lua_pushboolean(L, nvb_pct_supported(n, luaL_checknumber(L, 2)));
    return 1;
}

static int l_min_ios(lua_State *L)
{
    uint64_t n = nvb_pct_min_ios(luaL_checknumber(L, 1));
    if (n && n <= (uint64_t)LUA_MAXINTEGER)
        lua_pushinteger(L, (lua_Integer)n);
    else
        lua_pushnil(L);
    return 1;
}


/* The plan's axes from the list at idx: { { key, { value, ... } }, ... }
 * (values shown with tostring). 0, or a negative errno with m's message. */
static int l_matrix_box_gc(lua_State *L)
{
    struct nvb_matrix **box = lua_touserdata(L, 1);
    nvb_matrix_destroy(*box);
    *box = NULL;
    return 0;
}

static int plan_axes(lua_State *L, struct nvb_matrix *m, int idx)
{
    lua_Integer na = luaL_len(L, idx);
    int top = lua_gettop(L);
    for (lua_Integer a = 1; a <= na; a++) {
        lua_geti(L, idx, a);
        luaL_checktype(L, -1, LUA_TTABLE);
        lua_geti(L, -1, 1);
        const char *key = luaL_checkstring(L, -1);
        lua_geti(L, -2, 2);
        luaL_checktype(L, -1, LUA_TTABLE);
        int vals = lua_gettop(L);
        lua_Integer n = luaL_len(L, vals);
        const char **texts = lua_newuserdatauv(L, sizeof *texts * (size_t)(n + 1), 0);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, vals, i);
            texts[i - 1] = luaL_tolstring(L, -1, NULL);
            lua_replace(L, -2); /* the text stays on the stack until the axis is copied */
        }
        int rc = nvb_matrix_axis(m, key, (size_t)n, texts);
        lua_settop(L, top);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* nvb.matrix_plan(axes [, opts]) -> plan | nil, message, errno: the library's
 * plan of runs (nvb_matrix_*). axes: { { key, { values } }, ... } in the order
 * added (the first slowest); opts.cells: nil (no cell axis) or the seed cells
 * named (a comma-separated string, "" for all), first; opts["repeat"]: the
 * sweeps (1). plan: { keys = {...}, stacked = { key = true }, runs = { { rep =
 * 0-based, key = 1-based index, ..., cell_key = "rand4k_read" (with
 * opts.cells), stack = label }, ... } in the order to run them }. */
static int l_matrix_plan(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int has_opts = lua_istable(L, 2);
    struct nvb_matrix **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    if (luaL_newmetatable(L, "nvbench.matrix_box")) {
        lua_pushcfunction(L, l_matrix_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    if (nvb_matrix_create(box) < 0)
        return push_fail(L, -ENOMEM, NULL);
    struct nvb_matrix *m = *box;
    int rc = 0;
    if (has_opts) {
        lua_getfield(L, 2, "cells");
        if (!lua_isnil(L, -1))
            rc = nvb_matrix_cells(m, luaL_checkstring(L, -1));
        lua_getfield(L, 2, "repeat");
        if (rc == 0 && !lua_isnil(L, -1))
            rc = nvb_matrix_set(m, "repeat", luaL_tolstring(L, -1, NULL));
        lua_settop(L, 3);
    }
    if (rc == 0)
        rc = plan_axes(L, m, 1);
    if (rc < 0)
        return push_fail(L, rc, nvb_matrix_error(m));
    size_t na = nvb_matrix_axes(m), nr = nvb_matrix_runs(m);
    lua_createtable(L, 0, 4);
    lua_createtable(L, (int)na, 0);
    lua_newtable(L);
    for (size_t a = 0; a < na; a++) {
        lua_pushstring(L, nvb_matrix_axis_key(m, a));
        lua_rawseti(L, -3, (lua_Integer)a + 1);
        if (nvb_matrix_stacked(m, a) == 1) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, nvb_matrix_axis_key(m, a));
        }
    }
    lua_setfield(L, -3, "stacked");
    lua_setfield(L, -2, "keys");
    lua_createtable(L, (int)nr, 0);
    for (size_t r = 0; r < nr; r++) {
        lua_createtable(L, 0, (int)na + 2);
        size_t v;
        char stack[1024];
        for (size_t a = 0; a <= na; a++) {
            nvb_matrix_pick(m, r, a, &v);
            lua_pushinteger(L, (lua_Integer)v + (a < na));
            lua_setfield(L, -2, a < na ? nvb_matrix_axis_key(m, a) : "rep");
        }
        const char *cell;
        for (size_t a = 0; a < na; a++)
            if (strcmp(nvb_matrix_axis_key(m, a), "cell") == 0 && nvb_matrix_value(m, r, a, &cell) == 0) {
                lua_pushstring(L, cell);
                lua_setfield(L, -2, "cell_key");
            }
        lua_pushstring(L, nvb_matrix_stack(m, r, stack, sizeof stack) < 0 ? "" : stack);
        lua_setfield(L, -2, "stack");
        lua_rawseti(L, -2, (lua_Integer)r + 1);
    }
    lua_setfield(L, -2, "runs");
    return 1;
}

/* nvb.seed_write_keys({ {option, value}, ... }) -> { key = value, ... } | nil, message, errno:
 * the keys of the seed matrix's write cells (nvb_seed_write_keys). */
static int l_seed_write_keys(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t n = (size_t)luaL_len(L, 1);
    const char **opts = lua_newuserdatauv(L, (2 * n + 1) * sizeof *opts, 0); /* freed by the GC */
    for (size_t i = 0; i < n; i++) {
        luaL_argcheck(L, lua_geti(L, 1, (lua_Integer)i + 1) == LUA_TTABLE, 1, "a list of {option, value} pairs");
        for (int k = 0; k < 2; k++) {
            /* strings only (no number converted on the stack): each stays alive in its pair */
            luaL_argcheck(L, lua_geti(L, -1 - k, k + 1) == LUA_TSTRING, 1, "an option and its value are strings");
            opts[2 * i + (size_t)k] = lua_tostring(L, -1);
        }
        lua_pop(L, 3);
    }
    char buf[4096], why[512] = "";
    int rc = nvb_seed_write_keys(opts, n, buf, sizeof buf, why, sizeof why);
    if (rc < 0)
        return push_fail(L, rc, rc == -ENOSPC ? "seed_write_keys: the keys are too long" : why);
    lua_newtable(L);
    for (char *p = buf, *nl; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
        char *eq = memchr(p, '=', (size_t)(nl - p));
        if (!eq)
            break;
        lua_pushlstring(L, p, (size_t)(eq - p));
        lua_pushlstring(L, eq + 1, (size_t)(nl - eq - 1));
        lua_settable(L, -3);
    }
    return 1;
}

void push_seed(lua_State *L)
{
    static const luaL_Reg funcs[] = {
        {"seed_cells", l_seed_cells}, {"matrix_plan", l_matrix_plan}, {"seed_write_keys", l_seed_write_keys},
        {NULL, NULL},
    };
    luaL_setfuncs(L, funcs, 0);
    static const luaL_Reg pct[] = {
        {"rank", l_rank},
        {"supported", l_supported},
        {"min_ios", l_min_ios},
        {NULL, NULL},
    };
    luaL_newlib(L, pct);
    lua_pushinteger(L, NVB_PCT_TAIL);
    lua_setfield(L, -2, "TAIL");
    lua_setfield(L, -2, "pct");
}
