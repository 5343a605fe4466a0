/* Plugin files found in a module folder but left out because the project's module list does not
 * name them. What is known of each is kept (its file, and its name and provided APIs when it was
 * opened), so that when a listed plugin needs an API nobody offers, the error can point at the
 * file that may provide it and say what to add to project.sjson. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_internal.h"

typedef struct unlisted_t {
    char *path;
    char *name;             /* NULL when the file was not opened */
    ct_api_ref_t *provides; /* id and version only */
    uint32_t num_provides;
} unlisted_t;

static unlisted_t *unlisted;
static uint32_t num_unlisted;

void loader__note_unlisted(const char *path, const ct_plugin_o *p)
{
    unlisted_t *grown = realloc(unlisted, (num_unlisted + 1) * sizeof *grown);
    if (!grown)
        return; /* only a hint is lost */
    unlisted = grown;
    uint32_t n = p ? p->num_provides : 0;
    unlisted_t u = {strdup(path), p ? strdup(p->name) : NULL, n ? malloc(n * sizeof *u.provides) : NULL,
                    n};
    if (!u.path || (p && !u.name) || (n && !u.provides)) {
        free(u.path);
        free(u.name);
        free(u.provides);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        u.provides[i] = (ct_api_ref_t){.id = p->provides[i].id, .version = p->provides[i].version};
    unlisted[num_unlisted++] = u;
}

bool loader__unlisted_hint(uint32_t id, uint32_t version, char *out, size_t size)
{
    for (uint32_t k = 0; k < num_unlisted; k++) {
        for (uint32_t i = 0; i < unlisted[k].num_provides; i++) {
            if (unlisted[k].provides[i].id == id && unlisted[k].provides[i].version == version) {
                snprintf(out, size,
                         "'%s' (%s) provides it, but the project's module list does not name it: "
                         "add \"%s\" to `modules` in project.sjson",
                         unlisted[k].name, unlisted[k].path, unlisted[k].name);
                return true;
            }
        }
    }
    /* Files that were not opened may provide it: name them (a few). */
    int used = 0;
    for (uint32_t k = 0; k < num_unlisted && used < (int)size; k++) {
        if (unlisted[k].name)
            continue;
        used += snprintf(out + used, size - (size_t)used, "%s%s",
                         used ? ", " : "the project's module list leaves out ", unlisted[k].path);
    }
    if (used > 0 && used < (int)size)
        snprintf(out + used, size - (size_t)used,
                 "; if one of them provides it, add its plugin name to `modules` in project.sjson");
    return used > 0;
}

void loader__forget_unlisted(void)
{
    for (uint32_t k = 0; k < num_unlisted; k++) {
        free(unlisted[k].path);
        free(unlisted[k].name);
        free(unlisted[k].provides);
    }
    free(unlisted);
    unlisted = NULL;
    num_unlisted = 0;
}
