/* ct_lua_api_v0 and v1 as a plugin sees them: registration, every value type both ways, argument
 * checks and errors. */
#include <string.h>

#include "lua_test.h"

static const ct_lua_api_v0 *lua0;
static const ct_lua_api_v1 *lua1;
static int marker;

/* The seed's plugin function, word for word in shape. */
static int test(lua_State *L)
{
    double a = lua0->to_number(L, 1);
    double b = lua0->to_number(L, 2);
    lua0->push_number(L, a + b);
    return 1;
}

static void v0_function_is_callable(void **state)
{
    (void)state;
    lua0 = lua_env__api_v0();
    lua0->add_module_function("Plugin", "test", test);
    lua_test_run("assert(Plugin.test(2, 3) == 5)", 0);
    lua_test_run("assert(Plugin.test('2', {}) == 2)", 0);
}

static int vec_add(lua_State *L)
{
    lua1->push_number(L, lua1->check_number(L, 1) + lua1->check_number(L, 2));
    return 1;
}

static int vec_scale(lua_State *L)
{
    lua1->push_number(L, lua1->check_number(L, 1) * lua1->opt_number(L, 2, 2.0));
    return 1;
}

static int vec_count(lua_State *L)
{
    lua1->push_number(L, lua1->get_top(L));
    return 1;
}

static void v1_register_module(void **state)
{
    (void)state;
    static const ct_lua_reg_t fns[] = {
        {"add", vec_add}, {"scale", vec_scale}, {"count", vec_count}};
    lua1->register_module("Vec", fns, 3);
    lua_test_run("assert(Vec.add(1, 2) == 3)\n"
                 "assert(Vec.scale(4) == 8 and Vec.scale(4, 3) == 12)\n"
                 "assert(Vec.count(nil, nil, 1) == 3)",
                 0);
    /* A module table that already exists gains functions; a non-table global is left alone. */
    lua_test_run("Existing = { keep = 1 }\nNotATable = 7", 0);
    lua1->add_module_function("Existing", "add", vec_add);
    lua1->add_module_function("NotATable", "add", vec_add);
    lua_test_run("assert(Existing.keep == 1 and Existing.add(1, 1) == 2)\n"
                 "assert(NotATable == 7)",
                 0);
}

/* Returns each argument again, read and pushed through the v1 table by type. */
static int types_echo(lua_State *L)
{
    int n = lua1->get_top(L);
    for (int i = 1; i <= n; i++) {
        switch (lua1->type(L, i)) {
        case CT_LUA_NUMBER: lua1->push_number(L, lua1->to_number(L, i)); break;
        case CT_LUA_BOOLEAN: lua1->push_boolean(L, lua1->to_boolean(L, i)); break;
        case CT_LUA_LIGHTUSERDATA:
            lua1->push_light_userdata(L, lua1->to_light_userdata(L, i));
            break;
        case CT_LUA_STRING: {
            size_t len;
            const char *s = lua1->to_string(L, i, &len);
            lua1->push_string(L, s, len);
            break;
        }
        default: lua1->push_nil(L); break;
        }
    }
    return n;
}

static int types_marker(lua_State *L)
{
    lua1->push_light_userdata(L, &marker);
    lua1->push_string(L, "a\0b", 3);
    return 2;
}

/* Values of the wrong type read as the documented defaults. */
static int types_defaults(lua_State *L)
{
    size_t len = 99;
    bool ok = lua1->to_number(L, 1) == 0 && !lua1->to_boolean(L, 2) &&
              lua1->to_string(L, 1, &len) == NULL && lua1->to_string(L, 1, NULL) == NULL &&
              lua1->to_light_userdata(L, 1) == NULL && lua1->to_light_userdata(L, 3) == NULL &&
              lua1->type(L, 4) == CT_LUA_NONE;
    lua1->push_boolean(L, ok);
    return 1;
}

static void value_round_trips(void **state)
{
    (void)state;
    static const ct_lua_reg_t fns[] = {
        {"echo", types_echo}, {"marker", types_marker}, {"defaults", types_defaults}};
    lua1->register_module("Types", fns, 3);
    lua_test_run("local a, b, c, d, e = Types.echo(1.5, 'x\\0y\\0', true, false, -0.25)\n"
                 "assert(a == 1.5 and b == 'x\\0y\\0' and #b == 4 and c == true)\n"
                 "assert(d == false and e == -0.25)\n"
                 "local p, s = Types.marker()\n"
                 "assert(type(p) == 'userdata' and Types.echo(p) == p)\n"
                 "assert(#s == 3 and s:byte(2) == 0 and s == 'a\\0b')\n"
                 "assert(select('#', Types.echo()) == 0)\n"
                 "assert(Types.defaults({}, nil, newproxy()) == true)",
                 0);
}

/* Builds { x = 1.5, name = "n", 10, 20, 30 }. */
static int tables_make(lua_State *L)
{
    lua1->new_table(L, 3, 2);
    lua1->push_number(L, 1.5);
    lua1->set_field(L, -2, "x");
    lua1->push_string(L, "n", 1);
    lua1->set_field(L, -2, "name");
    for (int i = 1; i <= 3; i++) {
        lua1->push_number(L, i * 10);
        lua1->set_index(L, -2, i);
    }
    return 1;
}

/* t.x plus the array part, checking the types get_field and get_index report. */
static int tables_sum(lua_State *L)
{
    if (lua1->type(L, 1) != CT_LUA_TABLE)
        return lua1->error(L, "table expected");
    double sum = 0;
    if (lua1->get_field(L, 1, "x") == CT_LUA_NUMBER)
        sum += lua1->to_number(L, -1);
    if (lua1->get_field(L, 1, "missing") != CT_LUA_NIL)
        return lua1->error(L, "missing key not nil");
    lua1->set_top(L, 1);
    size_t n = lua1->length(L, 1);
    for (size_t i = 1; i <= n; i++) {
        if (lua1->get_index(L, 1, (int)i) != CT_LUA_NUMBER)
            return lua1->error(L, "element %zu is not a number", i);
        sum += lua1->to_number(L, -1);
        lua1->set_top(L, 1);
    }
    lua1->push_number(L, sum);
    return 1;
}

static int tables_length(lua_State *L)
{
    lua1->push_number(L, (double)lua1->length(L, 1));
    return 1;
}

static void tables_both_ways(void **state)
{
    (void)state;
    static const ct_lua_reg_t fns[] = {
        {"make", tables_make}, {"sum", tables_sum}, {"length", tables_length}};
    lua1->register_module("Tables", fns, 3);
    lua_test_run("local t = Tables.make()\n"
                 "assert(t.x == 1.5 and t.name == 'n' and #t == 3 and t[3] == 30)\n"
                 "assert(Tables.sum(t) == 61.5 and Tables.sum({ x = 1, 2, 3 }) == 6)\n"
                 "assert(Tables.length(t) == 3 and Tables.length('a\\0bc') == 4)",
                 0);
    lua_test_run("local ok, err = pcall(Tables.sum, { 1, 'two' })\n"
                 "assert(not ok and err:find('element 2 is not a number', 1, true))",
                 0);
}

static int checks_number(lua_State *L)
{
    lua1->push_number(L, lua1->check_number(L, 2));
    return 1;
}

static int checks_string(lua_State *L)
{
    size_t len;
    const char *s = lua1->check_string(L, 1, &len);
    lua1->push_string(L, s, len);
    return 1;
}

static void checks_name_the_argument(void **state)
{
    (void)state;
    static const ct_lua_reg_t fns[] = {{"number", checks_number}, {"string", checks_string}};
    lua1->register_module("Check", fns, 2);
    lua_test_run("local ok, err = pcall(Check.number, 1, 'x')\n"
                 "assert(not ok and err:find('bad argument #2', 1, true))\n"
                 "assert(err:find('number expected', 1, true))\n"
                 "ok, err = pcall(Check.string, {})\n"
                 "assert(not ok and err:find('bad argument #1', 1, true))\n"
                 "assert(Check.number(nil, 4) == 4 and Check.string('a\\0') == 'a\\0')",
                 0);
}

static int raise_formatted(lua_State *L)
{
    return lua1->error(L, "bad %s %d (%.1f%%)", "thing", 42, 99.5);
}

/* Longer than any fixed buffer the formatting might start with. */
static int raise_long(lua_State *L)
{
    char text[1000];
    memset(text, 'x', sizeof text);
    return lua1->error(L, "%.*s!", (int)sizeof text, text);
}

static void error_carries_file_and_line(void **state)
{
    (void)state;
    lua1->add_module_function("Raise", "now", raise_formatted);
    lua1->add_module_function("Raise", "long", raise_long);
    /* Chunk "test": the error is raised from line 2, inside the wrapper. */
    lua_test_run("local ok, err = pcall(function()\n"
                 "  Raise.now()\n"
                 "end)\n"
                 "assert(not ok and err == 'test:2: bad thing 42 (99.5%)', err)",
                 0);
    lua_test_run("local ok, err = pcall(function() Raise.long() end)\n"
                 "assert(not ok and err == 'test:1: ' .. ('x'):rep(1000) .. '!')",
                 0);
}

static void v1_runs_code_and_calls_globals(void **state)
{
    (void)state;
    lua_State *L = lua1->main_state();
    assert_ptr_equal(L, lua_env__state());
    assert_int_equal(lua1->run_string("function twice(x) doubled = 2 * x end", "g"), 0);
    lua1->push_number(L, 21);
    assert_int_equal(lua1->call_global("twice", 1), 0);
    lua_test_run("assert(doubled == 42)", 0);
    lua1->push_number(L, 1);
    assert_int_equal(lua1->call_global("no_such_function", 1), CT_ERR_NOT_FOUND);
    assert_int_equal(lua1->get_top(L), 0);
}

int main(void)
{
    lua1 = lua_env__api_v1();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(v0_function_is_callable, lua_test_setup, lua_test_teardown),
        cmocka_unit_test_setup_teardown(v1_register_module, lua_test_setup, lua_test_teardown),
        cmocka_unit_test_setup_teardown(value_round_trips, lua_test_setup, lua_test_teardown),
        cmocka_unit_test_setup_teardown(tables_both_ways, lua_test_setup, lua_test_teardown),
        cmocka_unit_test_setup_teardown(checks_name_the_argument, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(error_carries_file_and_line, lua_test_setup,
                                        lua_test_teardown),
        cmocka_unit_test_setup_teardown(v1_runs_code_and_calls_globals, lua_test_setup,
                                        lua_test_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
