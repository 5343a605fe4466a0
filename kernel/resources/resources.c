/* The resource service: its state, its lifetime and the ct_resource_api_v1 table. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/memory.h"
#include "data/nearest.h"
#include "resources_internal.h"

static struct {
    ct_allocator_t *allocator;
    char project_dir[RESOURCES_PATH_SIZE / 2];
    bool has_project;
    bool strict;
} state;

ct_allocator_t *resources__allocator(void) { return state.allocator; }

const char *resources__project_dir(void) { return state.has_project ? state.project_dir : NULL; }

bool resources__is_strict(void) { return state.strict; }

int resources__init(const char *project_dir, bool strict)
{
    state.has_project = project_dir != NULL;
    if (project_dir) {
        /* Half of the path budget, so a project path plus a maximal name always fits. */
        int n = snprintf(state.project_dir, sizeof state.project_dir, "%s", project_dir);
        if (n < 0 || (size_t)n >= sizeof state.project_dir) {
            log__error("resources: the project path is longer than %zu bytes: %s",
                       sizeof state.project_dir - 1, project_dir);
            return CT_ERR_INVALID;
        }
    }
    state.strict = strict;
    state.allocator = memory__create(memory__root(), "resources");
    if (!state.allocator) {
        log__error("resources: cannot create an allocator");
        return CT_ERR_NOMEM;
    }
    return 0;
}

/* The kernel shuts resources down before it unloads plugins, so the types' unload callbacks are
 * still there to release whatever is left loaded. */
void resources__shutdown(void)
{
    resources__forget_watches();
    resources__unload_all();
    resources__forget_types();
    resources__forget_formats();
    memory__destroy(state.allocator);
    memset(&state, 0, sizeof state);
}

/* Every version starts with version 1's functions, in the same order (a frozen struct only grows
 * at its end), so the three tables share this list. */
#define RESOURCE_API_V1_FUNCTIONS                                                                  \
    .register_type = resources__register_type, .unregister_type = resources__unregister_type,      \
    .check_name = resources__check_name, .id = resources__id, .load = resources__load,             \
    .load_source = resources__load_source, .get = resources__get, .unload = resources__unload,     \
    .write = resources__write, .written = resources__written,                                      \
    .compile_error = resources__compile_error, .compile_warning = resources__compile_warning,      \
    .source_path = resources__source_path, .strict = resources__is_strict,                         \
    .replace_type = resources__replace_type

static const ct_resource_api_v1 api_v1 = {
    RESOURCE_API_V1_FUNCTIONS,
};

const ct_resource_api_v1 *resources__api_v1(void) { return &api_v1; }

static const ct_resource_api_v2 api_v2 = {
    RESOURCE_API_V1_FUNCTIONS,
    .source_file = resources__source_file,
};

const ct_resource_api_v2 *resources__api_v2(void) { return &api_v2; }

/* Version 3 is version 2 plus field checks, scopes and nearest names. */
static const ct_resource_api_v3 api_v3 = {
    RESOURCE_API_V1_FUNCTIONS,
    .source_file = resources__source_file,
    .check_fields = resources__check_fields,
    .set_scope = resources__set_scope,
    .nearest_name = data__nearest_name,
};

const ct_resource_api_v3 *resources__api_v3(void) { return &api_v3; }

/* Version 4 is version 3 plus depends_on. */
static const ct_resource_api_v4 api_v4 = {
    RESOURCE_API_V1_FUNCTIONS,
    .source_file = resources__source_file,
    .check_fields = resources__check_fields,
    .set_scope = resources__set_scope,
    .nearest_name = data__nearest_name,
    .depends_on = resources__depends_on,
};

const ct_resource_api_v4 *resources__api_v4(void) { return &api_v4; }

/* Version 5 is version 4 plus hot reload for modules. */
static const ct_resource_api_v5 api_v5 = {
    RESOURCE_API_V1_FUNCTIONS,
    .source_file = resources__source_file,
    .check_fields = resources__check_fields,
    .set_scope = resources__set_scope,
    .nearest_name = data__nearest_name,
    .depends_on = resources__depends_on,
    .reload_source = resources__reload_source,
    .watch_source = resources__watch_source,
    .unwatch_source = resources__unwatch_source,
    .reloads = resources__reloads,
};

const ct_resource_api_v5 *resources__api_v5(void) { return &api_v5; }

/* Version 6 is version 5 plus the references a source makes. */
static const ct_resource_api_v6 api_v6 = {
    RESOURCE_API_V1_FUNCTIONS,
    .source_file = resources__source_file,
    .check_fields = resources__check_fields,
    .set_scope = resources__set_scope,
    .nearest_name = data__nearest_name,
    .depends_on = resources__depends_on,
    .reload_source = resources__reload_source,
    .watch_source = resources__watch_source,
    .unwatch_source = resources__unwatch_source,
    .reloads = resources__reloads,
    .reference = resources__reference,
    .declare_format = resources__declare_format,
    .format = resources__format,
    .uses_format = resources__uses_format,
};

const ct_resource_api_v6 *resources__api_v6(void) { return &api_v6; }
