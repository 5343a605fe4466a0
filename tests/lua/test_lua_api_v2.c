/* ct_lua_api_v2 as a plugin sees it: closures with a context, userdata types (methods,
 * metamethods, __gc), references, protected calls and iteration; and that version 1's functions
 * are the same ones. */
#include <stdio.h>
#include <string.h>

#include "lua_test.h"
#include "plugins/plugins_internal.h"

static const ct_lua_api_v2 *lua;

typedef struct counter_ctx_t {
    int calls;
    int collected;
} counter_ctx_t;

static int c_bump(lua_State *L, void *ctx)
{
    counter_ctx_t *c = ctx;
    lua->push_number(L, ++c->calls);
    return 1;
}

static void closures_get_their_context(void **state)
{
    (void)state;
    lua = lua_env__api_v2();
    assert_ptr_equal(lua->check_number, lua_env__api_v1()->check_number);
    static counter_ctx_t a = {0, 0}, b = {100, 0}; /* registered for the rest of the file */
    const ct_lua_closure_reg_t fns[] = {{"bump", c_bump}};
    lua->register_closures("A", fns, 1, &a);
    lua->register_closures("B", fns, 1, &b);
    lua_test_run("assert(A.bump() == 1 and A.bump() == 2 and B.bump() == 101)", 0);
    assert_int_equal(a.calls, 2);
    assert_int_equal(b.calls, 101);
}

typedef struct vec_t {
    double x, y;
} vec_t;

static int vec_new(lua_State *L, void *ctx)
{
    (void)ctx;
    vec_t *v = lua->new_userdata(L, sizeof *v, "test.vec");
    v->x = lua->check_number(L, 1);
    v->y = lua->check_number(L, 2);
    return 1;
}

static int vec_length2(lua_State *L, void *ctx)
{
    (void)ctx;
    const vec_t *v = lua->check_userdata(L, 1, "test.vec");
    lua->push_number(L, v->x * v->x + v->y * v->y);
    return 1;
}

static int vec_tostring(lua_State *L, void *ctx)
{
    (void)ctx;
    const vec_t *v = lua->check_userdata(L, 1, "test.vec");
    char buf[64];
    int n = snprintf(buf, sizeof buf, "vec(%g, %g)", v->x, v->y);
    lua->push_string(L, buf, (size_t)n);
    return 1;
}

static int vec_gc(lua_State *L, void *ctx)
{
    (void)L;
    ((counter_ctx_t *)ctx)->collected++;
    return 0;
}

static void userdata_types_have_methods_metamethods_and_gc(void **state)
{
    (void)state;
    static counter_ctx_t c; /* the type outlives this test: its last userdata is collected later */
    const ct_lua_closure_reg_t methods[] = {
        {"length2", vec_length2}, {"__tostring", vec_tostring}, {"__gc", vec_gc}};
    lua->register_type("test.vec", methods, 3, &c);
    const ct_lua_closure_reg_t fns[] = {{"new", vec_new}};
    lua->register_closures("Vec2", fns, 1, &c);
    lua_test_run("local v = Vec2.new(3, 4)\n"
                 "assert(v:length2() == 25)\n"
                 "assert(tostring(v) == 'vec(3, 4)')\n"
                 "v = nil\n"
                 "collectgarbage() collectgarbage()",
                 0);
    assert_int_equal(c.collected, 1);
    /* The wrong type is named in the error. */
    lua_test_mute_stderr();
    lua_test_run("local ok, e = pcall(getmetatable(Vec2.new(1, 1)).__index.length2, {})\n"
                 "assert(not ok and e:find('test.vec expected'), e)\n"
                 "error('shown')",
                 CT_ERR_LUA);
    lua_test_restore_stderr();
    /* to_userdata answers NULL for anything else. */
    lua_State *L = lua->main_state();
    lua->new_table(L, 0, 0);
    assert_null(lua->to_userdata(L, -1, "test.vec"));
    lua->set_top(L, -2);
}

static void references_keep_values(void **state)
{
    (void)state;
    lua_State *L = lua->main_state();
    lua_test_run("Kept = { answer = 42 }", 0);
    lua->get_field(L, CT_LUA_GLOBALS, "Kept");
    int32_t ref = lua->ref(L, -1);
    lua->set_top(L, -2);
    lua_test_run("Kept = nil collectgarbage()", 0);
    lua->push_ref(L, ref);
    assert_int_equal(lua->get_field(L, -1, "answer"), CT_LUA_NUMBER);
    assert_true(lua->to_number(L, -1) == 42);
    lua->set_top(L, -3);
    lua->unref(L, ref);
    lua->push_nil(L);
    assert_int_equal(lua->ref(L, -1), CT_LUA_REFNIL);
    lua->set_top(L, -2);
}

static void pcall_and_next(void **state)
{
    (void)state;
    lua_State *L = lua->main_state();
    int top = lua->get_top(L);
    lua_test_run("function Twice(x) return 2 * x end\nfunction Fails() error('no') end\n"
                 "Sum = { a = 1, b = 2, c = 3 }",
                 0);
    lua->get_field(L, CT_LUA_GLOBALS, "Twice");
    lua->push_number(L, 21);
    assert_int_equal(lua->pcall(L, 1, 1), 0);
    assert_true(lua->to_number(L, -1) == 42);
    lua->set_top(L, top);
    lua_test_mute_stderr();
    lua->get_field(L, CT_LUA_GLOBALS, "Fails");
    assert_int_equal(lua->pcall(L, 0, 0), CT_ERR_LUA);
    lua_test_restore_stderr();
    assert_int_equal(lua->get_top(L), top);

    lua->get_field(L, CT_LUA_GLOBALS, "Sum");
    double sum = 0;
    int walked = 0;
    lua->push_nil(L);
    while (lua->next(L, -2)) {
        sum += lua->to_number(L, -1);
        walked++;
        lua->set_top(L, -2);
    }
    assert_int_equal(walked, 3);
    assert_true(sum == 6);
    lua->set_top(L, top);
}

/* A type belongs to the plugin that registered it: unloaded, its methods raise and its __gc
 * does nothing (the code behind it is gone). */
static void a_type_goes_with_its_plugin(void **state)
{
    (void)state;
    static counter_ctx_t c;
    ct_plugin_o *gone = registry__plugin_new("gone", "gone.so");
    assert_non_null(gone);
    lua_env__set_owner(gone);
    const ct_lua_closure_reg_t methods[] = {{"length2", vec_length2}, {"__gc", vec_gc}};
    lua->register_type("test.owned", methods, 2, &c);
    lua_env__set_owner(NULL);
    lua_State *L = lua->main_state();
    lua->new_userdata(L, sizeof(vec_t), "test.owned");
    lua->set_field(L, CT_LUA_GLOBALS, "Owned");
    lua_env__disable_owner(gone);
    lua_test_mute_stderr();
    lua_test_run("local ok, e = pcall(function() return Owned:length2() end)\n"
                 "assert(not ok and e:find('plugin gone is not loaded'), e)\n"
                 "Owned = nil collectgarbage() collectgarbage()\n"
                 "error('shown')",
                 CT_ERR_LUA);
    lua_test_restore_stderr();
    assert_int_equal(c.collected, 0);
    registry__plugin_free(gone);
}

int main(void)
{
    /* One Lua state for the whole file: the tests build on each other's registrations. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closures_get_their_context),
        cmocka_unit_test(userdata_types_have_methods_metamethods_and_gc),
        cmocka_unit_test(references_keep_values),
        cmocka_unit_test(pcall_and_next),
        cmocka_unit_test(a_type_goes_with_its_plugin),
    };
    return cmocka_run_group_tests(tests, lua_test_setup, lua_test_teardown);
}
