/*
 * The `cuttle` binary as a user runs it: exit codes for good and bad command lines, projects and
 * scripts. A script error is reported and the engine keeps running; --strict makes it fatal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_kernel.h"

static char project[256];

/* Runs cuttle with the arguments (a shell fragment), output silenced; returns its exit code. */
static int run(const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>&1", CUTTLE_EXE, args);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void write_file(const char *name, const char *text)
{
    test_project_write(project, name, text);
}

static int make_project(void **state)
{
    (void)state;
    test_project_make(project, sizeof project, "cuttle_cli");
    return 0;
}

static int remove_project(void **state)
{
    (void)state;
    return test_project_remove(project);
}

static void help_and_bad_options(void **state)
{
    (void)state;
    assert_int_equal(run("--help"), 0);
    assert_int_equal(run("--no-such-option"), 2);
    /* Options for modules that no loaded module reads are refused after boot, valued or not. */
    assert_int_equal(run("--no-such-option value --frames 1"), 2);
    assert_int_equal(run("--frames 1 --no-such-flag"), 2);
    assert_int_equal(run("--frames"), 2);
    assert_int_equal(run("--frames -3"), 2);
    assert_int_equal(run("--dt 0"), 2);
}

static void lua_on_the_command_line(void **state)
{
    (void)state;
    assert_int_equal(run("-e 'assert(1 + 1 == 2)'"), 0);
    assert_int_equal(run("-e 'error(\"on purpose\")'"), 1);
    assert_int_equal(run("-e 'this is not lua'"), 1);
    assert_int_equal(run("-e 'Resource.load(\"level\", \"no/such/level\")'"), 1);
}

/* --no-timeouts is the one switch every part that times out reads (CUTTLE_NO_TIMEOUTS). */
static void no_timeouts_is_one_switch(void **state)
{
    (void)state;
    unsetenv("CUTTLE_NO_TIMEOUTS");
    const char *check = "-e 'assert(os.getenv(\"CUTTLE_NO_TIMEOUTS\") == \"1\")'";
    assert_int_equal(run("%s", check), 1);
    assert_int_equal(run("--no-timeouts %s", check), 0);
}

static void missing_and_bad_projects(void **state)
{
    (void)state;
    assert_int_equal(run("--project %s/nowhere", project), 1);
    write_file("project.sjson", "frames = \"many\"\n");
    assert_int_equal(run("--project %s", project), 1);
    write_file("project.sjson", "frames = [1 2\n");
    assert_int_equal(run("--project %s", project), 1);
    write_file("project.sjson", "boot_script = \"missing.lua\"\n");
    assert_int_equal(run("--project %s", project), 1);
}

static void script_errors_do_not_stop_the_engine(void **state)
{
    (void)state;
    write_file("project.sjson", "boot_script = \"boot.lua\"\nframes = 5\n");
    write_file("boot.lua", "n = 0\n"
                           "function update(dt) n = n + 1 if n == 2 then error('frame 2') end end\n"
                           "function shutdown() assert(n == 5) end\n");
    assert_int_equal(run("--project %s", project), 0);
    assert_int_equal(run("--project %s --strict", project), 1);
    write_file("boot.lua", "function init( end\n");
    assert_int_equal(run("--project %s", project), 1);
}

/* A runaway update() (a tail-call loop, then a loop the JIT compiles) is stopped by the watchdog;
 * the engine goes on to the next frame, or under --strict stops with 1. Each hangs without it. */
static void runaway_scripts_are_stopped(void **state)
{
    (void)state;
    write_file("project.sjson", "boot_script = \"boot.lua\"\nframes = 5\nscript_timeout = 0.1\n");
    write_file("boot.lua", "n = 0\n"
                           "local function f() return f() end\n"
                           "function update(dt)\n"
                           "  n = n + 1\n"
                           "  if n == 2 then f() end\n"
                           "  if n == 3 then while true do end end\n"
                           "end\n"
                           "function shutdown() assert(n == 5) end\n");
    assert_int_equal(run("--project %s", project), 0);
    assert_int_equal(run("--project %s --strict", project), 1);
    /* --script-timeout overrides the project; the boot script's own load is watched too. */
    write_file("boot.lua", "while true do end\n");
    assert_int_equal(run("--project %s --script-timeout 0.05", project), 1);
    /* Off: a call that runs longer than the budget it would otherwise have ends by itself. */
    write_file("boot.lua", "local t = os.clock() while os.clock() - t < 0.3 do end\n"
                           "function shutdown() print('finished') end\n");
    assert_int_equal(run("--project %s --script-timeout 0 --strict", project), 0);
    assert_int_equal(run("--project %s --strict", project), 1);
    assert_int_equal(run("--script-timeout -1"), 2);
    assert_int_equal(run("--script-timeout nan"), 2);
    assert_int_equal(run("--script-timeout 1e9"), 2);
    write_file("project.sjson", "script_timeout = -1\n");
    assert_int_equal(run("--project %s", project), 1);
    write_file("project.sjson", "script_timeout = \"10\"\n");
    assert_int_equal(run("--project %s", project), 1);
}

static void list_modules(void **state)
{
    (void)state;
    assert_int_equal(run("--modules %s --list", CUTTLE_MODULES), 0);
    assert_int_equal(run("--plugin %s/project.sjson --list", project), 0);
    assert_int_equal(run("--plugin %s/project.sjson --list --strict", project), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_and_bad_options),
        cmocka_unit_test(lua_on_the_command_line),
        cmocka_unit_test(no_timeouts_is_one_switch),
        cmocka_unit_test(missing_and_bad_projects),
        cmocka_unit_test(script_errors_do_not_stop_the_engine),
        cmocka_unit_test(runaway_scripts_are_stopped),
        cmocka_unit_test(list_modules),
    };
    return cmocka_run_group_tests(tests, make_project, remove_project);
}
