#include "lua_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <lua.h>

#include "base/memory.h"

static int saved_stderr = -1;

int lua_test_setup(void **state)
{
    (void)state;
    if (memory__init(0) != 0)
        return -1;
    return lua_env__init();
}

int lua_test_teardown(void **state)
{
    (void)state;
    lua_env__shutdown();
    return memory__shutdown() == 0 ? 0 : -1;
}

void lua_test_run_at(const char *code, int expected, const char *file, int line)
{
    lua_State *L = lua_env__state();
    int top = lua_gettop(L);
    int rc = lua_env__run_string(code, "test");
    if (rc != expected)
        fail_msg("%s:%d: run_string returned %d, expected %d", file, line, rc, expected);
    if (lua_gettop(L) != top)
        fail_msg("%s:%d: stack top moved from %d to %d", file, line, top, lua_gettop(L));
}

void lua_test_mute_stderr(void)
{
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, STDERR_FILENO);
    close(null);
}

void lua_test_restore_stderr(void)
{
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    saved_stderr = -1;
}
