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

void push_seed(lua_State *L)
{
    lua_pushcfunction(L, l_seed_cells);
    lua_setfield(L, -2, "seed_cells");
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
