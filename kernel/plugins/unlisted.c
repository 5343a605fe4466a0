/* Plugins found in a module folder but left out because the project's module list does not name
 * them. Only what they provide is kept, so that when a listed plugin needs one of those APIs the
 * error can say where the provider is and what to add to project.sjson. */
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_internal.h"

typedef struct unlisted_t {
    char *name;
    char *path;
    ct_api_ref_t *provides; /* id and version only */
    uint32_t num_provides;
} unlisted_t;

static unlisted_t *unlisted;
static uint32_t num_unlisted;

void loader__note_unlisted(const ct_plugin_o *p)
{
    if (p->num_provides == 0)
        return;
    unlisted_t *grown = realloc(unlisted, (num_unlisted + 1) * sizeof *grown);
    if (!grown)
        return; /* only a hint is lost */
    unlisted = grown;
    unlisted_t u = {strdup(p->name), strdup(p->path), malloc(p->num_provides * sizeof *u.provides),
                    p->num_provides};
    if (!u.name || !u.path || !u.provides) {
        free(u.name);
        free(u.path);
        free(u.provides);
        return;
    }
    for (uint32_t i = 0; i < p->num_provides; i++)
        u.provides[i] = (ct_api_ref_t){.id = p->provides[i].id, .version = p->provides[i].version};
    unlisted[num_unlisted++] = u;
}

const char *loader__unlisted_provider(uint32_t id, uint32_t version, const char **path)
{
    for (uint32_t k = 0; k < num_unlisted; k++) {
        for (uint32_t i = 0; i < unlisted[k].num_provides; i++) {
            if (unlisted[k].provides[i].id == id && unlisted[k].provides[i].version == version) {
                *path = unlisted[k].path;
                return unlisted[k].name;
            }
        }
    }
    return NULL;
}

void loader__forget_unlisted(void)
{
    for (uint32_t k = 0; k < num_unlisted; k++) {
        free(unlisted[k].name);
        free(unlisted[k].path);
        free(unlisted[k].provides);
    }
    free(unlisted);
    unlisted = NULL;
    num_unlisted = 0;
}
