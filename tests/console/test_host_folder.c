/* A --host node's private folder: named after its process, and the ones nodes left when they were
 * killed removed at the next start, and nothing else: not another name, not a live owner's, not
 * a link, not a plain file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "console/console_internal.h"
#include "test_kernel.h"

static char scratch[64];

static void make_folder(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    assert_int_equal(mkdir(path, 0700), 0);
    /* Something inside, a level down, as a node's copied scripts are. */
    snprintf(path, sizeof path, "%s/%s/scripts", scratch, name);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/%s/scripts/boot.lua", scratch, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("-- a script\n", f);
    fclose(f);
}

static bool exists(const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    return lstat(path, &st) == 0;
}

/* A process id that ran and is gone. */
static long dead_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return (long)pid;
}

static int setup(void **state)
{
    (void)state;
    test_project_make(scratch, sizeof scratch, "cuttle-host-test");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return test_project_remove(scratch);
}

static void only_folders_of_gone_owners_are_removed(void **state)
{
    (void)state;
    /* The node's own folder, made where TMPDIR says, names this process and its start time. */
    setenv("TMPDIR", scratch, 1);
    char mine[1024];
    assert_int_equal(host_folder__make(mine, sizeof mine), 0);
    unsetenv("TMPDIR");
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s/cuttle-host-%ld-", scratch, (long)getpid());
    assert_memory_equal(mine, prefix, strlen(prefix));
    unsigned long long start = strtoull(mine + strlen(prefix), NULL, 10);
    assert_true(start > 0);

    char gone[64], reused[64], unknown[64], live[64], short_name[64], link[64], file[64];
    long dead = dead_pid();
    snprintf(gone, sizeof gone, "cuttle-host-%ld-%llu-a1b2c3", dead, start);
    snprintf(reused, sizeof reused, "cuttle-host-%ld-%llu-d4e5f6", (long)getpid(), start + 1);
    snprintf(unknown, sizeof unknown, "cuttle-host-%ld-0-g7h8i9", (long)getpid());
    snprintf(live, sizeof live, "cuttle-host-%ld-%llu-j1k2l3", (long)getpid(), start);
    snprintf(short_name, sizeof short_name, "cuttle-host-%ld-%llu-abc", dead, start);
    snprintf(link, sizeof link, "cuttle-host-%ld-%llu-zzzzzz", dead, start);
    snprintf(file, sizeof file, "cuttle-host-%ld-%llu-yyyyyy", dead, start);
    make_folder(gone);
    make_folder(reused); /* this pid, but another start: a dead process's pid taken again */
    make_folder(unknown);
    make_folder(live);
    make_folder(short_name);
    make_folder("cuttle-host-Ab3dEf"); /* an older engine's name: whose it is cannot be told */
    make_folder("victim");
    char path[256], target[256];
    snprintf(path, sizeof path, "%s/%s", scratch, link);
    snprintf(target, sizeof target, "%s/victim", scratch);
    assert_int_equal(symlink(target, path), 0);
    snprintf(path, sizeof path, "%s/%s", scratch, file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);

    assert_int_equal(host_folder__sweep(scratch), 2);
    assert_false(exists(gone));
    assert_false(exists(reused));
    assert_true(exists(unknown));
    assert_true(exists(live));
    assert_true(exists(short_name));
    assert_true(exists("cuttle-host-Ab3dEf"));
    assert_true(exists(link));
    assert_true(exists("victim/scripts/boot.lua")); /* not followed through the link */
    assert_true(exists(file));
    assert_true(exists(mine + strlen(scratch) + 1));
    assert_int_equal(host_folder__sweep(scratch), 0);

    host_folder__remove(mine);
    assert_false(exists(mine + strlen(scratch) + 1));
    host_folder__remove(""); /* nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(only_folders_of_gone_owners_are_removed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
