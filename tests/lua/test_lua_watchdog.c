/* The watchdog: a call from the engine into Lua that runs away is stopped with an error naming
 * the call and where it was, in the interpreter and in JIT-compiled loops alike, and Lua goes on.
 * Without the watchdog each of these tests hangs (meson's timeout fails it). */
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "base/log.h"
#include "lua_test.h"

#define BUDGET 0.05

/* Loads `code` as chunk "=spin" and runs it through the console's call with `limit`; returns
 * the error message (or NULL when it ran to its end), left on the stack until the next call. */
static const char *run_limited(const char *code, double limit)
{
    lua_State *L = lua_env__state();
    lua_settop(L, 0);
    assert_int_equal(luaL_loadbuffer(L, code, strlen(code), "=spin"), 0);
    if (lua_env__pcall_keep_error(0, 0, limit) == 0)
        return NULL;
    return lua_tostring(L, -1);
}

static void assert_contains(const char *text, const char *part)
{
    if (!text || !strstr(text, part))
        fail_msg("expected '%s' in: %s", part, text ? text : "(no error)");
}

static void a_tail_call_loop_is_stopped(void **state)
{
    (void)state;
    const char *err = run_limited("local function f() return f() end\nf()", BUDGET);
    assert_contains(err, "spin:1: script stopped: the chunk spin ran over its limit of 0.05 s");
    assert_contains(err, "in function 'f'"); /* the traceback says where it was */
    /* The hook is gone and Lua goes on. */
    lua_test_run("assert(debug.gethook() == nil) ok = 1 + 1", 0);
}

static void a_compiled_loop_is_stopped(void **state)
{
    (void)state;
    lua_test_run("assert(jit.status(), 'the JIT is on')", 0);
    /* The first loop runs long enough to be compiled before the second starts. */
    const char *err = run_limited("local n = 0\nfor i = 1, 1000 do n = n + i end\n"
                                  "while true do end",
                                  BUDGET);
    assert_contains(err, "spin:3: script stopped:");
    err = run_limited("local n = 0\nwhile true do n = n + 1 end", BUDGET);
    assert_contains(err, "spin:2: script stopped:");
}

static void a_tostring_metamethod_loop_is_stopped(void **state)
{
    (void)state;
    const char *err = run_limited("local t = setmetatable({}, {__tostring = function(self)\n"
                                  "  return tostring(self) end})\n"
                                  "return tostring(t)",
                                  BUDGET);
    assert_contains(err, "spin:2: script stopped:");
}

/* A script's own pcall, error handler or coroutine cannot swallow the stop. */
static void catching_the_error_does_not_help(void **state)
{
    (void)state;
    assert_contains(
        run_limited("while true do pcall(function() while true do end end) end", BUDGET),
        "script stopped:");
    assert_contains(run_limited("local co = coroutine.wrap(function() while true do end end)\n"
                                "while true do pcall(co) end",
                                BUDGET),
                    "script stopped:");
    assert_contains(run_limited("while true do xpcall(function() while true do end end,\n"
                                "  function(e) return 'handled: ' .. e end) end",
                                BUDGET),
                    "script stopped:");
}

static int l_call_back(lua_State *L)
{
    /* The engine calls into Lua again from inside a call: part of the outermost one. */
    lua_pushvalue(L, 1);
    lua_env__pcall(0, 0);
    return 0;
}

static void nested_calls_share_the_outermost_budget(void **state)
{
    (void)state;
    lua_State *L = lua_env__state();
    lua_pushcfunction(L, l_call_back);
    lua_setglobal(L, "call_back");
    /* Each inner call is short; only their sum overruns. The inner calls stopped log their
     * errors (the outer loop's next instruction then stops too). */
    lua_test_mute_stderr();
    const char *err = run_limited("local function short() for i = 1, 100 do end end\n"
                                  "while true do call_back(short) end",
                                  BUDGET);
    lua_test_restore_stderr();
    assert_contains(err, "script stopped:");
}

static void the_script_timeout_applies_and_zero_switches_it_off(void **state)
{
    (void)state;
    assert_true(lua_env__script_timeout() == LUA_SCRIPT_TIMEOUT_DEFAULT);
    lua_env__set_script_timeout(BUDGET);
    assert_contains(run_limited("while true do end", -1),
                    "spin:1: script stopped: the chunk spin ran over 0.05 s of CPU time, the "
                    "budget of one call from the engine (script_timeout in project.sjson");
    /* Off: a call that runs four budgets' worth of CPU time ends by itself. */
    lua_env__set_script_timeout(0);
    assert_null(run_limited("local t = os.clock() while os.clock() - t < 0.2 do end", -1));
    assert_true(lua_env__script_timeout() == 0);
    /* A call with its own limit (the console's) is still stopped while something holds the
     * watchdog. */
    lua_env__hold_watchdog(true);
    assert_contains(run_limited("while true do end", BUDGET), "ran over its limit of 0.05 s");
    lua_env__hold_watchdog(false);
    lua_env__set_script_timeout(LUA_SCRIPT_TIMEOUT_DEFAULT);
}

static char last_error[1024];

static void keep_errors(void *ctx, ct_log_level level, const char *tag, const char *text)
{
    (void)ctx, (void)tag;
    if (level == CT_LOG_ERROR)
        snprintf(last_error, sizeof last_error, "%s", text);
}

static int spin_in_lua(void *arg)
{
    (void)arg;
    lua_State *L = lua_env__state();
    luaL_loadstring(L, "while true do end");
    lua_call(L, 0, 0); /* unprotected: lua_env__protect catches it */
    return 0;
}

static void calls_through_protect_name_the_plugin(void **state)
{
    (void)state;
    lua_env__set_script_timeout(BUDGET);
    log__set_sink(keep_errors, NULL);
    lua_test_mute_stderr();
    int rc = lua_env__protect(spin_in_lua, NULL, "frame_begin", "acme");
    lua_test_restore_stderr();
    log__set_sink(NULL, NULL);
    lua_env__set_script_timeout(LUA_SCRIPT_TIMEOUT_DEFAULT);
    assert_int_equal(rc, CT_ERR_LUA);
    assert_contains(last_error, "script stopped: frame_begin of plugin 'acme' ran over 0.05 s");
    assert_contains(last_error, ":1: script stopped");
    lua_test_run("assert(debug.gethook() == nil)", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_tail_call_loop_is_stopped, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(a_compiled_loop_is_stopped, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(a_tostring_metamethod_loop_is_stopped, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(catching_the_error_does_not_help, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(nested_calls_share_the_outermost_budget, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(the_script_timeout_applies_and_zero_switches_it_off,
                                        lua_test_setup, lua_test_teardown),
        cmocka_unit_test_setup_teardown(calls_through_protect_name_the_plugin, lua_test_setup,
                                        lua_test_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
