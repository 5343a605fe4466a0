/* The kernel side of Lua: protected calls, running code, calling globals, and the slots that let
 * plugins be disabled and hot-reloaded under Lua's feet. */
#include <lauxlib.h>
#include <lua.h>

#include "base/log.h"
#include "lua/lua_internal.h"
#include "lua_test.h"

/* Stands for a loaded plugin that is never disabled here: only the kernel owner (NULL) is, since
 * the "not loaded" message asks the registry for the name, and this handle is not registered. */
static int other_plugin_storage;
#define OTHER_PLUGIN ((ct_plugin_o *)&other_plugin_storage)

static int returns_one(lua_State *L)
{
    lua_pushnumber(L, 1);
    return 1;
}
static int returns_two(lua_State *L)
{
    lua_pushnumber(L, 2);
    return 1;
}
static int returns_three(lua_State *L)
{
    lua_pushnumber(L, 3);
    return 1;
}

static void pcall_returns_results_or_restores_the_stack(void **state)
{
    (void)state;
    lua_State *L = lua_env__state();
    lua_pushstring(L, "below");
    assert_int_equal(luaL_loadstring(L, "local a, b = ... return a + b, a * b"), 0);
    lua_pushnumber(L, 3);
    lua_pushnumber(L, 4);
    assert_int_equal(lua_env__pcall(2, 2), 0);
    assert_int_equal(lua_gettop(L), 3);
    assert_true(lua_tonumber(L, 2) == 7 && lua_tonumber(L, 3) == 12);
    lua_settop(L, 1);

    assert_int_equal(luaL_loadstring(L, "error({})"), 0);
    assert_int_equal(lua_env__pcall(0, 3), CT_ERR_LUA);
    assert_int_equal(lua_gettop(L), 1);
    assert_string_equal(lua_tostring(L, 1), "below");
    lua_settop(L, 0);
}

static void run_string_errors_leave_a_usable_state(void **state)
{
    (void)state;
    uint64_t errors = log__count(CT_LOG_ERROR);
    lua_test_run("local = 1", CT_ERR_LUA);
    lua_test_run("error('runtime')", CT_ERR_LUA);
    lua_test_run("local t = nil; return t.field", CT_ERR_LUA);
    assert_int_equal(log__count(CT_LOG_ERROR), errors + 3);
    /* A name already in Lua's form is not wrapped again: the error reads "cmd:1:". */
    assert_int_equal(lua_env__run_string("ok, where = pcall(function() error('e') end)", "=cmd"),
                     0);
    lua_test_run("assert(where == 'cmd:1: e', where)", 0);
    lua_test_run("answer = 6 * 7", 0);
    lua_test_run("assert(answer == 42)", 0);
}

static void run_file_names_the_path(void **state)
{
    (void)state;
    lua_State *L = lua_env__state();
    assert_int_equal(lua_env__run_file(LUA_TEST_SCRIPTS "/ok.lua"), 0);
    lua_test_run("assert(loaded_value == 7)", 0);
    assert_int_equal(lua_env__run_file(LUA_TEST_SCRIPTS "/missing.lua"), CT_ERR_IO);
    assert_int_equal(lua_env__run_file(LUA_TEST_SCRIPTS "/syntax_error.lua"), CT_ERR_LUA);
    assert_int_equal(lua_gettop(L), 0);
}

static void call_global_outcomes(void **state)
{
    (void)state;
    lua_State *L = lua_env__state();
    lua_test_run("function store(a, b) stored = a .. b end\n"
                 "function boom() error('boom') end\n"
                 "not_a_function = 1",
                 0);
    lua_pushstring(L, "a");
    lua_pushstring(L, "b");
    assert_int_equal(lua_env__call_global("store", 2), 0);
    lua_test_run("assert(stored == 'ab')", 0);
    lua_pushnumber(L, 1);
    assert_int_equal(lua_env__call_global("boom", 1), CT_ERR_LUA);
    lua_pushnumber(L, 1);
    lua_pushnumber(L, 2);
    assert_int_equal(lua_env__call_global("missing", 2), CT_ERR_NOT_FOUND);
    assert_int_equal(lua_env__call_global("not_a_function", 0), CT_ERR_NOT_FOUND);
    /* A strict-globals guard raising on unknown names does not escape the kernel. */
    lua_test_run("setmetatable(_G, { __index = function(_, k) error('undefined ' .. k) end })", 0);
    assert_int_equal(lua_env__call_global("also_missing", 0), CT_ERR_NOT_FOUND);
    assert_int_equal(lua_gettop(L), 0);
}

static void disabled_owner_raises_others_still_work(void **state)
{
    (void)state;
    lua_env__set_owner(OTHER_PLUGIN);
    lua_env__add_function("Mod", "other", returns_one);
    lua_env__set_owner(NULL);
    lua_env__add_function("Mod", "mine", returns_two);
    lua_test_run("kept = Mod.mine\nassert(Mod.mine() == 2 and Mod.other() == 1)", 0);

    lua_env__disable_owner(NULL);
    /* References Lua kept raise too: they all go through the slot. */
    lua_test_run("local ok, err = pcall(kept)\n"
                 "assert(not ok and err:find('is not loaded', 1, true))\n"
                 "assert(not pcall(Mod.mine) and Mod.other() == 1)",
                 0);
    lua_test_run("Mod.mine()", CT_ERR_LUA);

    /* Registering again means loaded again. */
    lua_env__add_function("Mod", "mine", returns_three);
    lua_test_run("assert(kept() == 3 and Mod.mine() == 3)", 0);
}

static void reload_commit_keeps_the_new_code(void **state)
{
    (void)state;
    lua_env__add_function("Hot", "f", returns_one);
    lua_env__add_function("Hot", "dropped", returns_one);
    lua_test_run("saved = Hot.f", 0);

    lua_env__reload_begin(NULL);
    lua_env__add_function("Hot", "f", returns_two);
    lua_env__add_function("Hot", "added", returns_three);
    lua_env__reload_commit(NULL);

    lua_test_run("assert(saved() == 2 and Hot.f() == 2 and Hot.added() == 3)\n"
                 "assert(not pcall(Hot.dropped))",
                 0);
}

static void reload_rollback_restores_the_old_code(void **state)
{
    (void)state;
    lua_env__set_owner(OTHER_PLUGIN);
    lua_env__add_function("Hot", "other", returns_one);
    lua_env__set_owner(NULL);
    lua_env__add_function("Hot", "f", returns_one);
    lua_env__add_function("Hot", "untouched", returns_two);
    lua_test_run("saved = Hot.f", 0);

    lua_env__reload_begin(NULL);
    lua_env__add_function("Hot", "f", returns_three);
    lua_env__add_function("Hot", "added", returns_three);
    lua_test_run("assert(saved() == 3)", 0);
    lua_env__reload_rollback(NULL);

    lua_test_run("assert(saved() == 1 and Hot.f() == 1 and Hot.untouched() == 2)\n"
                 "assert(Hot.other() == 1 and not pcall(Hot.added))",
                 0);

    /* A disabled function stays disabled when the reload that re-registered it is rolled back. */
    lua_env__disable_owner(NULL);
    lua_env__reload_begin(NULL);
    lua_env__add_function("Hot", "f", returns_two);
    lua_env__reload_rollback(NULL);
    lua_test_run("assert(not pcall(Hot.f) and Hot.other() == 1)", 0);
}

static int always_raises(lua_State *L) { return luaL_error(L, "always"); }

static void failed_calls_leave_no_stack_slots(void **state)
{
    (void)state;
    lua_State *L = lua_env__state();
    lua_env__add_function("Fail", "now", always_raises);
    lua_test_run("function fail_global(x) Fail.now(x) end", 0);
    lua_env__disable_owner(NULL);
    lua_pushstring(L, "sentinel");
    uint64_t errors = log__count(CT_LOG_ERROR);
    enum { ROUNDS = 2500 };
    lua_test_mute_stderr();
    for (int i = 0; i < ROUNDS; i++) {
        lua_pushnumber(L, i);
        assert_int_equal(lua_env__call_global("fail_global", 1), CT_ERR_LUA);
        assert_int_equal(lua_env__run_string("Fail.now()", "loop"), CT_ERR_LUA);
        assert_int_equal(lua_env__run_string("syntax error", "loop"), CT_ERR_LUA);
        lua_pushnumber(L, i);
        assert_int_equal(lua_env__call_global("absent", 1), CT_ERR_NOT_FOUND);
        assert_int_equal(lua_gettop(L), 1);
    }
    lua_test_restore_stderr();
    assert_int_equal(log__count(CT_LOG_ERROR), errors + 3 * ROUNDS);
    assert_string_equal(lua_tostring(L, 1), "sentinel");
    lua_settop(L, 0);
}

static void raw_functions_bypass_slots(void **state)
{
    (void)state;
    assert_int_equal(lua_env__add_raw_function("Raw", "one", returns_one), 0);
    lua_test_run("NotATable = true", 0);
    assert_int_equal(lua_env__add_raw_function("NotATable", "one", returns_one), CT_ERR_CONFLICT);
    lua_env__disable_owner(NULL);
    lua_test_run("assert(Raw.one() == 1 and NotATable == true)", 0);
}

/* Lua -> slot -> C -> lua_env__call_global -> Lua ... without end, through a C function with a
 * big frame, as plugins have: each level then costs more C stack than LuaJIT's slot limit
 * (about 21,800 such levels) allows for, so on this process's stack the kernel's re-entry guard
 * must end it. Before the guard, this overflowed the stack. */
static int deepest;
static int l_call_again(lua_State *L)
{
    volatile char frame[4096];
    frame[0] = (char)deepest++;
    lua_pushnumber(L, lua_env__call_global("again", 0) + frame[0] * 0);
    return 1;
}

static void reentry_through_c_is_bounded(void **state)
{
    (void)state;
    lua_env__add_function("Reenter", "call", l_call_again);
    lua_test_run("function again() return Reenter.call() end", 0);
    deepest = 0;
    lua_test_mute_stderr(); /* the deepest call logs its refusal */
    lua_test_run("assert(again() == 0)", 0);
    lua_test_restore_stderr();
    assert_true(deepest > 100);
    /* Stopped by the guard, before LuaJIT's own limit (on a stack too small for that limit). */
    if (lua_env__stack_left() / 4096 < 20000)
        assert_true(deepest < 20000);
    lua_test_run("assert(Reenter.call ~= nil)", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(pcall_returns_results_or_restores_the_stack, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(run_string_errors_leave_a_usable_state, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(run_file_names_the_path, lua_test_setup, lua_test_teardown),
        cmocka_unit_test_setup_teardown(call_global_outcomes, lua_test_setup, lua_test_teardown),
        cmocka_unit_test_setup_teardown(disabled_owner_raises_others_still_work, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(reload_commit_keeps_the_new_code, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(reload_rollback_restores_the_old_code, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(failed_calls_leave_no_stack_slots, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(reentry_through_c_is_bounded, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(raw_functions_bypass_slots, lua_test_setup,
                                        lua_test_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
