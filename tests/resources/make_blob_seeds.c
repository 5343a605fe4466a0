/* Writes valid "numbers" blobs, compiled by the real compiler, as seeds for fuzz_blob:
 *     make_blob_seeds OUT1 OUT2 OUT3 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "data/sjson.h"
#include "compiler.h"
#include "test_type.h"

static const char *const sources[] = {
    "values = []\n",
    "values = [1 -2 3]\nlabel = \"three\"\n",
    "values = [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]\nlabel = \"sixteen\"\n",
};

int main(int argc, char **argv)
{
    if (argc != 1 + (int)(sizeof sources / sizeof *sources)) {
        fprintf(stderr, "usage: make_blob_seeds OUT1 OUT2 OUT3\n");
        return 2;
    }
    char project[] = "/tmp/cuttle-seeds-XXXXXX";
    if (!mkdtemp(project) || memory__init(0) || resources__init(project, false))
        return 1;
    test_type_use(data__api_v1(), resources__api_v1());
    ct_resource_type_t t = test_type(1, NULL);
    int failures = resources__api_v1()->register_type(&t) != 0;
    for (int i = 1; i < argc; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/seed%d.%s", project, i, TEST_TYPE);
        FILE *f = fopen(path, "wb");
        if (!f)
            return 1;
        fputs(sources[i - 1], f);
        fclose(f);
    }
    failures += compiler__compile_project(project, NULL, NULL, NULL) != 0;
    for (int i = 1; i < argc; i++) {
        char from[512];
        snprintf(from, sizeof from, "%s/compiled/%s/seed%d.bin", project, TEST_TYPE, i);
        failures += rename(from, argv[i]) != 0;
        snprintf(from, sizeof from, "%s/seed%d.%s", project, i, TEST_TYPE);
        remove(from);
    }
    resources__shutdown();
    failures += memory__shutdown() != 0;
    /* What is left of the scratch project: the manifest and the emptied folders. */
    char path[512];
    snprintf(path, sizeof path, "%s/compiled/manifest.json", project);
    remove(path);
    snprintf(path, sizeof path, "%s/compiled/%s", project, TEST_TYPE);
    remove(path);
    snprintf(path, sizeof path, "%s/compiled", project);
    remove(path);
    remove(project);
    return failures ? 1 : 0;
}
