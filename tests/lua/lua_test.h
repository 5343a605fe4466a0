/* What every test in tests/lua shares: a fresh Lua environment per test, and a way to run Lua
 * assertions from C. */
#ifndef CT_TESTS_LUA_TEST_H
#define CT_TESTS_LUA_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "lua/lua_env.h"

/* Memory, then Lua; teardown checks that the process holds nothing afterwards. */
int lua_test_setup(void **state);
int lua_test_teardown(void **state);

/* Runs `code` with the kernel's run_string and checks it returned `expected` and left the main
 * stack as it found it. Most checks are Lua `assert`s, so a failed one returns CT_ERR_LUA. */
#define lua_test_run(code, expected) lua_test_run_at((code), (expected), __FILE__, __LINE__)
void lua_test_run_at(const char *code, int expected, const char *file, int line);

/* Sends stderr to /dev/null and back, for loops that log thousands of expected errors. */
void lua_test_mute_stderr(void);
void lua_test_restore_stderr(void);

#endif
