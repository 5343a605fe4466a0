/*
 * The expression module: the ct_expr_api_v1 table over the kernel-free core (compile, verify,
 * the scalar and batch VMs), the job split, and the module's hooks.
 *
 * Why a module and not a kernel service: the language is a leaf the kernel never calls, its
 * lanes are the modules' shared ones (modules/common), and as a module it is versioned and
 * swapped like the others. Its users (particles, animation, physics, resource compilers under
 * cuttle-compile) reach it through get_engine_api like any API.
 */
#include "expr_internal.h"

#include "ct_jobs.h"
#include "ct_lua.h"
#include "ct_module.h"
#include "ct_resource.h"

typedef struct expr_state_t {
    ct_reload_header_t header;
} expr_state_t;

/* EXPR_LAYOUT_VERSION: made at build time from expr_state_t's layout (tools/abi/layout_id.py). */
#include "expr_layout.h"

static struct {
    const ct_log_api_v1 *log;
    const ct_lua_api_v2 *lua;
    const ct_jobs_api_v1 *jobs;
    const ct_resource_api_v4 *resource;
    ct_plugin_o *self;
    ct_allocator_t *allocator;
    expr_state_t *state;
} m;

void expr__register_lua(const ct_lua_api_v2 *lua, const ct_expr_api_v1 *api);

static const char *nearest(const char *word, const char *const *names, uint32_t count)
{
    return m.resource ? m.resource->nearest_name(word, names, count) : NULL;
}

static ct_expr_program_o *api_compile(const char *source, const ct_expr_desc_t *desc,
                                      ct_expr_error_t *err)
{
    return expr__compile(source, desc, m.allocator, nearest, err);
}

static uint32_t api_num_inputs(const ct_expr_program_o *p) { return p ? p->num_inputs : 0; }
static uint32_t api_num_outputs(const ct_expr_program_o *p) { return p ? p->num_outputs : 0; }

static bool api_constant(const ct_expr_program_o *p, uint32_t output, float *value)
{
    if (!p || output >= p->num_outputs || !((p->constant_mask >> output) & 1u))
        return false;
    if (value)
        *value = p->constant_values[output];
    return true;
}

static void api_eval_jobs(const ct_expr_program_o *p, const float *const *in, float *const *out,
                          uint32_t count)
{
    expr__eval_jobs(p, in, out, count, m.jobs);
}

static ct_expr_program_o *api_load(const void *bytes, size_t size, ct_allocator_t *a,
                                   ct_expr_error_t *err)
{
    return expr__load(bytes, size, a ? a : m.allocator, err);
}

static const ct_expr_api_v1 api_v1 = {
    .compile = api_compile,
    .destroy = expr__destroy,
    .num_inputs = api_num_inputs,
    .num_outputs = api_num_outputs,
    .constant = api_constant,
    .eval = expr__eval,
    .eval_batch = expr__eval_batch,
    .eval_jobs = api_eval_jobs,
    .disassemble = expr__disassemble,
    .save = expr__save,
    .load = api_load,
};

/* ---- plugin ------------------------------------------------------------------------------- */

static int start(void)
{
    expr__register_lua(m.lua, &api_v1);
    return 0;
}

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.expr", 1, ct_expr_api_v1),
};

static const ct_module_api_t apis[] = {
    CT_MODULE_API(log, 1, &m.log),
    CT_MODULE_API_NO_SLOT(memory, 1),
    CT_MODULE_API(lua, 2, &m.lua),
    CT_MODULE_API(jobs, 1, &m.jobs),
    CT_MODULE_API_OPTIONAL(resource, 4, &m.resource),
};

static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.expr", .version = {1, 0, 0, 0}, .provides = provides,
               .num_provides = CT_ARRAY_COUNT(provides)},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &m.self,
               .allocator = &m.allocator,
               .state = &m.state,
               .state_size = sizeof(expr_state_t),
               .layout_version = EXPR_LAYOUT_VERSION,
               .start = start,
               .rebind = start},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{CT_EXPR_API, 1, &api_v1}};
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
