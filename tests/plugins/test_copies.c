/* The private copies plugins are loaded from (kernel/plugins/library.c): each is named after its
 * process (pid and start time) and unlinked once mapped; a copy left by a process killed between
 * the copy and the unlinking is removed by the next process's first load, and nothing else is:
 * not a live process's copy, not one whose maker cannot be told, not another name, a folder or a
 * link. A killed process is played by a child that makes its copy's name and file, then exits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <dirent.h>

#include "base/leftovers.h"
#include "fixture.h"
#include "test_kernel.h"

static char scratch[64];

static bool any_suffix(const char *suffix) { return suffix != NULL; }

/* The kind of name the loader gives its copies (its prefix), to make names as it does. */
static const leftovers_kind_t copies = {"cuttle-plugin-", any_suffix, false, "a test copy"};

static bool exists(const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    return lstat(path, &st) == 0;
}

static void make_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("not really a library", f);
    fclose(f);
}

/* "cuttle-plugin-<pid>-<start>-" of this process, without the folder. */
static void my_prefix(char *out, size_t size)
{
    char path[512];
    assert_true(leftovers__name(&copies, scratch, path, sizeof path));
    snprintf(out, size, "%s", path + strlen(scratch) + 1);
}

/* A child names a copy "<its prefix>1.so", makes it and exits without removing it, as a process
 * killed between copy and load would. Returns the name. */
static void killed_process_copy(char *name, size_t size)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char mine[256];
        my_prefix(mine, sizeof mine);
        strcat(mine, "1.so");
        make_file(mine);
        _exit(write(fds[1], mine, strlen(mine) + 1) > 0 ? 0 : 1);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], name, size - 1);
    close(fds[0]);
    assert_true(n > 0);
    name[n] = '\0';
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Whether this process maps a deleted file named "<scratch>/<prefix>..." (its plugin's copy). */
static bool maps_deleted_copy(const char *prefix)
{
    char want[256], line[1024];
    snprintf(want, sizeof want, "%s/%s", scratch, prefix);
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, want) && strstr(line, ".so (deleted)");
    fclose(f);
    return found;
}

/* The number of entries in the scratch folder (besides . and ..). */
static int entries(void)
{
    DIR *d = opendir(scratch);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Must be the process's first plugin load: the sweep runs once, before the first copy. */
static void copies_of_gone_processes_are_removed_at_the_first_load(void **state)
{
    (void)state;
    char gone[128], mine[128], reused[256], live[256], unknown[256], other[256], folder[256],
        link[256], path[512], target[512];
    killed_process_copy(gone, sizeof gone);
    my_prefix(mine, sizeof mine);
    const long dead = strtol(gone + strlen("cuttle-plugin-"), NULL, 10);
    /* This process's own start time, from its prefix "cuttle-plugin-<pid>-<start>-". */
    const unsigned long long my_start =
        strtoull(strchr(mine + strlen("cuttle-plugin-"), '-') + 1, NULL, 10);
    assert_true(my_start > 0);
    snprintf(reused, sizeof reused, "cuttle-plugin-%ld-%llu-2.so", (long)getpid(), my_start + 1);
    snprintf(live, sizeof live, "%s77.so", mine); /* a live engine between copy and load */
    snprintf(unknown, sizeof unknown, "cuttle-plugin-%ld-0-3.so", (long)getpid());
    snprintf(other, sizeof other, "%s.bak", gone);
    snprintf(folder, sizeof folder, "cuttle-plugin-%ld-%llu-5.so", dead, my_start);
    snprintf(link, sizeof link, "cuttle-plugin-%ld-%llu-6.so", dead, my_start);
    make_file(reused);
    make_file(live);
    make_file(unknown);
    make_file(other);
    make_file("victim.so");
    snprintf(path, sizeof path, "%s/%s", scratch, folder);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/%s", scratch, link);
    snprintf(target, sizeof target, "%s/victim.so", scratch);
    assert_int_equal(symlink(target, path), 0);
    assert_true(exists(gone));
    assert_int_equal(entries(), 8);

    const char *paths[] = {SAMPLE_PLUGIN("hello_v1")};
    assert_int_equal(fixture_boot_paths(paths, 1), 0);
    assert_int_equal(fixture_state("acme.hello"), CT_PLUGIN_LOADED);
    /* The plugin runs from a copy named after this process, already unlinked. */
    assert_true(maps_deleted_copy(mine));
    assert_false(exists(gone));
    assert_false(exists(reused));
    assert_true(exists(live));
    assert_true(exists(unknown));
    assert_true(exists(other));
    assert_true(exists(folder));
    assert_true(exists(link));
    assert_true(exists("victim.so"));
    assert_int_equal(entries(), 6); /* and no copy of ours left */
    assert_int_equal(fixture_shutdown(), 0);
}

/* Whether this process maps "<scratch>/<name>" as a file that is still linked. */
static bool maps_linked(const char *name)
{
    char want[512], line[1024];
    snprintf(want, sizeof want, "%s/%s\n", scratch, name);
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, scratch);
        found = at && strcmp(at, want) == 0;
    }
    fclose(f);
    return found;
}

/* --debug (CUTTLE_DEBUG=1): the copy is named after the plugin's file and stays linked while
 * loaded, so a debugger can open it; unloading removes it (before: an anonymous, unlinked copy
 * that gdb cannot read; issue 25, defect 8). */
static void debug_copies_are_named_and_linked_while_loaded(void **state)
{
    (void)state;
    char mine[128], name[256];
    my_prefix(mine, sizeof mine);
    setenv("CUTTLE_DEBUG", "1", 1);
    const char *paths[] = {SAMPLE_PLUGIN("hello_v1")};
    assert_int_equal(fixture_boot_paths(paths, 1), 0);
    unsetenv("CUTTLE_DEBUG");
    assert_int_equal(fixture_state("acme.hello"), CT_PLUGIN_LOADED);
    /* The first test's load was copy 1; this is copy 2. */
    snprintf(name, sizeof name, "%s2-hello_v1.so", mine);
    assert_true(exists(name));
    assert_true(maps_linked(name));
    assert_int_equal(fixture_shutdown(), 0);
    assert_false(exists(name));
    assert_int_equal(entries(), 6);
}

static int setup(void **state)
{
    (void)state;
    test_project_make(scratch, sizeof scratch, "ct-plugin-copies");
    setenv("TMPDIR", scratch, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return test_project_remove(scratch) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copies_of_gone_processes_are_removed_at_the_first_load),
        cmocka_unit_test(debug_copies_are_named_and_linked_while_loaded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
