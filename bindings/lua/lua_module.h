/*
 * The Lua module's internal header: what its files share (nvbench.c: the
 * helpers and the library table; lua_json.c, lua_workload.c, lua_result.c,
 * lua_run.c). Nothing here is exported: the module shows only
 * luaopen_nvbench.
 */
#ifndef NVB_LUA_MODULE_H
#define NVB_LUA_MODULE_H

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

/* Room for a refusal message of c_string(). */
#define WHY_LEN 320

/* A JSON decoding failure's reason (lua_json.c). */
struct jdec {
    char err[192];
};

/* Shared between the module's files (each defined in the file named). */
int json_decode(lua_State *L, const char *s, size_t len, struct jdec *d);  /* lua_json.c */
int l_decode_json(lua_State *L);  /* lua_json.c */
int tree_gc(lua_State *L);  /* lua_json.c */
void create_result_meta(lua_State *L);  /* lua_result.c */
struct lresult *new_result(lua_State *L);  /* lua_result.c */
struct lresult *to_result(lua_State *L, int idx);  /* lua_result.c */
void create_signal_exit(lua_State *L);  /* lua_run.c */
int l_run(lua_State *L);  /* lua_run.c */
int l_run_groups(lua_State *L);  /* lua_run.c */
int l_validate_groups(lua_State *L);  /* lua_run.c */
int apply_table(lua_State *L, struct nvb_workload *w, int idx, const char *const *skip, char *why);  /* lua_workload.c */
void create_workload_meta(lua_State *L);  /* lua_workload.c */
int l_workload(lua_State *L);  /* lua_workload.c */
struct lworkload *new_workload(lua_State *L);  /* lua_workload.c */
struct lworkload *to_workload(lua_State *L, int idx);  /* lua_workload.c */
const char *c_string(lua_State *L, int idx, const char *what, char *why, size_t why_len);  /* nvbench.c */
/* Argument idx as a C string: raises when it is not a string; NULL with why
 * (WHY_LEN bytes) set when it holds a NUL byte. nvbench.c. */
const char *string_arg(lua_State *L, int idx, const char *what, char *why);
/* nil, message, errno for a getter's failure rc: -ENOENT says missing
 * (a format with one %s: name), others their errno's text. nvbench.c. */
int push_get_fail(lua_State *L, int rc, const char *missing, const char *name);
struct lbuffer *new_buffer(lua_State *L);  /* nvbench.c */
int push_fail(lua_State *L, int err, const char *msg);  /* nvbench.c */
void shown(char *out, size_t len, const char *s, size_t n);  /* nvbench.c */
const char *value_string(lua_State *L, int idx, const char *key, char *buf, size_t len, char *why);  /* nvbench.c */

int l_workload_echo(lua_State *L);  /* lua_echo.c */
int l_result_workload(lua_State *L);  /* lua_echo.c */
int l_key_table(lua_State *L);  /* lua_echo.c */

/* lua_stats.c: the nvb.stats table (the library's statistics of repeated runs). */
void push_stats_table(lua_State *L);

/* lua_seed.c: nvb.seed_cells and the nvb.pct table, set on the module table at -1. */
void push_seed(lua_State *L);

/* lua_search.c: nvb.search_new (the library's latency-target search), set on the module table at -1. */
void push_search(lua_State *L);

#endif
