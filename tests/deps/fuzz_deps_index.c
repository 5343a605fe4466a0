/* Fuzz target for what cuttle-deps parses from files others write: a reference file
 * (compiled/references/<source>.refs, written by cuttle-compile, but a cache anyone can damage)
 * and renames.log (text in the project, merged by git). The input is written as both into a
 * scratch project, then the index is loaded and every question asked: nothing may crash or read
 * out of bounds, and a damaged line is skipped, never trusted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deps.h"

static char project[64];

static void write_file(const char *rel, const uint8_t *data, size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", project, rel);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
}

static void remove_project(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", project);
    if (system(command) != 0)
        fprintf(stderr, "fuzz_deps_index: could not remove %s\n", project);
}

static void make_project(void)
{
    snprintf(project, sizeof project, "/tmp/cuttle_fuzz_deps.XXXXXX");
    if (!mkdtemp(project))
        abort();
    atexit(remove_project);
    char path[256];
    const char *folders[] = {"compiled", "compiled/thing", "compiled/references"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", project, folders[i]);
        mkdir(path, 0777);
    }
    write_file("a.thing", (const uint8_t *)"uses = [\"b\"]\n", 13);
    write_file("b.thing", (const uint8_t *)"x = 1\n", 6);
    write_file("project.sjson", (const uint8_t *)"roots = [\"a.thing\"]\n", 20);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!project[0])
        make_project();
    write_file("compiled/references/a.thing.refs", data, size);
    write_file("renames.log", data, size);
    deps_index_t ix;
    char err[256];
    if (deps_index_load(&ix, project, 2, err, sizeof err) == 0) {
        FILE *null = fopen("/dev/null", "w");
        const uint32_t a = deps_index_find(&ix, "thing", "a");
        if (a == DEPS_NONE)
            abort();
        deps_uses(&ix, a, null);
        for (uint32_t i = 0; i < ix.num_nodes; i++)
            deps_used_by(&ix, i, null);
        deps_missing(&ix, null);
        deps_unused(&ix, null);
        deps_graph_json(&ix, null);
        deps_graph_dot(&ix, null);
        fclose(null);
    }
    deps_index_free(&ix);
    char to[512], date[64];
    deps_renamed_to(project, "thing", "gone", to, sizeof to, date, sizeof date);
    return 0;
}
