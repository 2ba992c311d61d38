/* Running a workload from Lua: progress and poll callbacks, signals. (the Lua module; lua_module.h) */
#include "lua_module.h"

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

void create_signal_exit(lua_State *L)
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
void create_signal_exit(lua_State *L)
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

/* A run whose verify=1 read back blocks that did not match is a failure
 * (fio exits 1): pushes nil, the library's warning that names them (how
 * many, the first one's target, offset and field), EILSEQ and the result
 * (on top of the stack) and returns 1; else pushes nothing, returns 0. */
static int verify_failed(const struct nvb_result *r, lua_State *L)
{
    double bad = 0;
    if (nvb_result_get(r, "verify.mismatches", &bad) < 0 || bad <= 0)
        return 0;
    const char *msg = "verify: blocks read did not match what was written";
    for (size_t i = 0; i < nvb_result_warning_count(r); i++)
        if (!strncmp(nvb_result_warning(r, i), "verify: ", 8) && strstr(nvb_result_warning(r, i), "did not match"))
            msg = nvb_result_warning(r, i);
    int res_idx = lua_gettop(L);
    push_fail(L, -EILSEQ, msg);
    lua_pushvalue(L, res_idx);
    return 1;
}

/* Runs ws[0..n) (nvb_run_groups when groups, else nvb_run of ws[0]) with
 * the progress function at stack index fn (0: none), the poll hook and the
 * signals; returns what nvb.run returns. */
static int run_and_push(lua_State *L, struct nvb_workload **ws, struct lworkload **lws, size_t n, int groups, int fn)
{
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
    for (size_t i = 0; i < n; i++)
        lws[i]->busy++;
    int rc = groups ? nvb_run_groups((const struct nvb_workload *const *)ws, n, &opts, &lr->r)
                    : nvb_run(ws[0], &opts, &lr->r);
    for (size_t i = 0; i < n; i++)
        lws[i]->busy--;
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
    if (rc == 0 && lr->r && verify_failed(lr->r, L))
        return 4; /* nil, message, EILSEQ, result */
    if (rc == 0 || (rc == -ECANCELED && lr->r && nvb_result_cancelled(lr->r)))
        return 1;
    push_fail(L, rc, lr->r ? nvb_result_error(lr->r) : NULL);
    if (lr->r)
        lua_pushvalue(L, res_idx);
    else
        lua_pushnil(L);
    return 4;
}

/* nvb.run{key = value, ..., targets = {...}, progress = fn}
 * nvb.run(workload [, {progress = fn}])
 *   -> result                          completed, or cancelled by progress
 *                                      returning false (result.cancelled)
 *   -> nil, message, errno [, result]  refused or failed; the result, when
 *                                      the library built one, carries the
 *                                      error and any partial figures; with
 *                                      verify=1, blocks that did not match:
 *                                      errno EILSEQ, the complete result */
int l_run(lua_State *L)
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

    return run_and_push(L, &lw->w, &lw, 1, 0, fn);
}

/* nvb.run_groups{ {key = value, targets = {...}}, {...} | workload, ...,
 *                 progress = fn, key = value ... }
 *   Several workloads as the job groups of one run (nvb_run_groups): the
 *   array part holds the groups (tables as nvb.run takes them, or
 *   workloads); the other keys but progress are applied to every group
 *   given as a table, before its own keys (which win). Returns what nvb.run
 *   returns; result:groups() has one result per group. */
/* The workloads of the array part of the table at index 1 (tables, the
 * shared string keys (slot 3) applied first, or workloads), in ws/lws
 * (slots 4, 5; slot 6 keeps them); `skip`: the outer keys that are not
 * workload keys. 0, or what push_fail pushed (its count). */
static int collect_groups(lua_State *L, const char *fname, lua_Integer n, const char *const *skip,
                          struct nvb_workload ***wsp, struct lworkload ***lwsp)
{
    /* 3: the shared keys, a table of the outer one's string keys */
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (lua_type(L, -2) == LUA_TSTRING) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, 3);
        } else {
            lua_pop(L, 1);
        }
    }
    struct nvb_workload **ws = lua_newuserdatauv(L, (size_t)n * sizeof *ws, 0);        /* 4 */
    struct lworkload **lws = lua_newuserdatauv(L, (size_t)n * sizeof *lws, 0);         /* 5 */
    lua_createtable(L, (int)n, 0);                                                      /* 6: keeps them */
    *wsp = ws;
    *lwsp = lws;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        struct lworkload *lw;
        if (lua_istable(L, -1)) {
            lw = new_workload(L);
            char why[WHY_LEN] = "";
            int rc = apply_table(L, lw->w, 3, skip, why);
            if (rc == 0)
                rc = apply_table(L, lw->w, -2, skip, why);
            if (rc < 0) {
                char msg[WHY_LEN + 64];
                snprintf(msg, sizeof msg, "group %d: %s", (int)i, why[0] ? why : nvb_workload_error(lw->w));
                return push_fail(L, rc, msg);
            }
        } else if (luaL_testudata(L, -1, WORKLOAD_MT)) {
            lw = to_workload(L, -1);
            lua_pushvalue(L, -1);
        } else {
            return luaL_error(L, "nvbench.%s: group %d is a %s, not a table or a workload", fname, (int)i,
                              luaL_typename(L, -1));
        }
        lua_rawseti(L, 6, i);
        lua_pop(L, 1);
        ws[i - 1] = lw->w;
        lws[i - 1] = lw;
    }
    return 0;
}

/* The length of the array part of the table that is argument 1 (the only
 * argument kept), from 1 to max; raises naming fn and what it counts. */
static lua_Integer array_count(lua_State *L, const char *fn, const char *what, lua_Integer max)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
    if (n < 1 || n > max)
        luaL_error(L, "nvbench.%s: give 1 to %d %s in the array part (got %d)", fn, (int)max, what, (int)n);
    return n;
}

int l_run_groups(lua_State *L)
{
    static const char *const run_only[] = {"progress", NULL};
    lua_Integer n = array_count(L, "run_groups", "groups", 1024);
    lua_getfield(L, 1, "progress"); /* 2 */
    int fn = lua_isnil(L, 2) ? 0 : 2;
    if (fn && !lua_isfunction(L, fn))
        return luaL_error(L, "nvbench: 'progress' must be a function (got %s)", luaL_typename(L, fn));
    struct nvb_workload **ws;
    struct lworkload **lws;
    int pushed = collect_groups(L, "run_groups", n, run_only, &ws, &lws);
    if (pushed)
        return pushed;
    return run_and_push(L, ws, lws, (size_t)n, 1, fn);
}

/* nvb.validate_groups{ {key = value, targets = {...}} | workload, ...,
 *                      steps = {1, 1, 2, ...}, key = value ... }
 *   Plans the workloads as the runs to come would (nvb_groups_validate),
 *   opening, creating and writing nothing: steps[i] is the step of the i-th
 *   (non-decreasing; absent: all in one step, as nvb.run_groups runs them);
 *   the other keys as nvb.run_groups takes them.
 *   -> true, or nil, message, errno, index (1-based: the workload concerned) */
int l_validate_groups(lua_State *L)
{
    static const char *const skip[] = {"steps", NULL};
    lua_Integer n = array_count(L, "validate_groups", "workloads", 65536);
    lua_getfield(L, 1, "steps"); /* 2 */
    if (!lua_isnil(L, 2) && !lua_istable(L, 2))
        return luaL_error(L, "nvbench.validate_groups: 'steps' must be a table (got %s)", luaL_typename(L, 2));
    struct nvb_workload **ws;
    struct lworkload **lws;
    int pushed = collect_groups(L, "validate_groups", n, skip, &ws, &lws);
    if (pushed)
        return pushed;
    unsigned *steps = NULL;
    if (lua_istable(L, 2)) {
        steps = lua_newuserdatauv(L, (size_t)n * sizeof *steps, 0); /* 7 */
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, 2, i);
            int ok;
            lua_Integer v = lua_tointegerx(L, -1, &ok);
            if (!ok || v < 0 || v > (lua_Integer)UINT_MAX)
                return luaL_error(L, "nvbench.validate_groups: steps[%d] is not a step number", (int)i);
            steps[i - 1] = (unsigned)v;
            lua_pop(L, 1);
        }
    }
    char err[1024] = "";
    size_t bad = 0;
    int rc = nvb_groups_validate((const struct nvb_workload *const *)ws, (size_t)n, steps, &bad, err, sizeof err);
    if (rc == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    push_fail(L, rc, err);
    lua_pushinteger(L, (lua_Integer)bad + 1);
    return 4;
}
