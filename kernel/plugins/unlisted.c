/* The plugin files a project's module folders hold but its module list leaves out. They are not
 * loaded; when a listed plugin needs an API nobody offers, the error names them, since the
 * provider may well be one of them. Found again only on that error path, so loading pays
 * nothing for it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_internal.h"

/* At most this many files are named; the rest are counted. */
#define MAX_NAMED 6

static bool registered(const char *path)
{
    char a[PATH_MAX];
    if (!realpath(path, a))
        return false;
    for (uint32_t i = 0; i < registry__num_plugins(); i++)
        if (strcmp(registry__plugin(i)->path, a) == 0)
            return true;
    return false;
}

bool loader__unlisted_files(const loader_desc_t *desc, char *out, size_t size)
{
    loader_paths_t files;
    if (!desc || desc->num_wanted == 0 || loader__discover(desc, &files) != 0)
        return false;
    size_t used = 0;
    uint32_t named = 0, more = 0;
    for (uint32_t i = 0; i < files.count; i++) {
        if (!files.from_dir[i] || registered(files.paths[i]))
            continue;
        /* Shown canonical (no bin/../lib), whole or not at all: a path cut in the middle names
         * a file that does not exist. */
        char canonical[PATH_MAX];
        const char *shown = realpath(files.paths[i], canonical) ? canonical : files.paths[i];
        int n = named == MAX_NAMED
                    ? -1
                    : snprintf(out + used, size - used, "%s%s", named ? ", " : "", shown);
        if (n < 0 || (size_t)n >= size - used) {
            out[used] = '\0';
            more++;
            continue;
        }
        used += (size_t)n;
        named++;
    }
    if (more && used < size)
        snprintf(out + used, size - used, " and %u more", more);
    loader__free_paths(&files);
    return named > 0;
}
