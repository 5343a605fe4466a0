/*
 * The plugin-API-v2 test plugin, built three times from this file:
 *   V2_VERSION=1 / V2_VERSION=2   code versions to reload between
 *   V2_REFUSE                     refuses the reload, so the kernel hands the old code its state
 *                                 back through reload_abort
 * Its callbacks check that they get the context init set. The provided test API has no context
 * parameter (plain v1-style tables), so that API alone reaches the state through one pointer.
 */
#include "../test_plugins.h"
#include "ct_memory.h"
#include "ct_plugin.h"
#include "ct_reload.h"

#ifdef V2_REFUSE
#define V2_VERSION 3
#endif

#define CONTEXT_LAYOUT 1u

typedef struct context_t {
    ct_reload_header_t header;
    const ct_plugin_host_t *host;
    const ct_memory_api_v1 *memory;
    uint32_t frames, aborts;
    bool context_always_right;
} context_t;

static context_t *the_context; /* for the provided API's functions only */

static int code_version(void) { return V2_VERSION; }
static uint32_t chosen_lua(void)
{
    return the_context->host->chosen_version(the_context->host->self, 0);
}
static uint32_t chosen_x(void)
{
    return the_context->host->chosen_version(the_context->host->self, 1);
}
static uint32_t frames(void) { return the_context->frames; }
static bool context_always_right(void) { return the_context->context_always_right; }
static uint32_t aborts(void) { return the_context->aborts; }
static uint32_t kernel_minor(void) { return the_context->host->kernel_version.minor; }
static uint32_t plugin_api_max(void) { return the_context->host->plugin_api_max; }

static int init(const ct_plugin_host_t *host, void **ctx)
{
    const ct_memory_api_v1 *memory = host->get_engine_api(CT_MEMORY_API, 1);
    if (!memory)
        return CT_ERR_MISSING_API;
    context_t *c = ct_alloc(memory->plugin_allocator(host->self), sizeof *c);
    if (!c)
        return CT_ERR_NOMEM;
    *c = (context_t){.header = ct_reload_header(sizeof *c, CONTEXT_LAYOUT),
                     .host = host,
                     .memory = memory,
                     .context_always_right = true};
    the_context = c;
    *ctx = c;
    return 0;
}

static void shutdown(void *ctx)
{
    context_t *c = ctx;
    ct_free(c->memory->plugin_allocator(c->host->self), c, sizeof *c);
}

static void frame_begin(void *ctx, double dt)
{
    (void)dt;
    the_context->context_always_right &= ctx == the_context;
}

static void frame_end(void *ctx, double dt)
{
    (void)dt;
    context_t *c = ctx;
    c->context_always_right &= ctx == the_context;
    c->frames++;
}

static void *reload_save(void *ctx) { return ctx; }

static int reload_load(const ct_plugin_host_t *host, void *state, void **ctx)
{
    int err = ct_reload_adopt(NULL, host->self, state, sizeof(context_t), CONTEXT_LAYOUT);
#ifdef V2_REFUSE
    err = CT_ERR_VERSION;
#endif
    if (err < 0)
        return err;
    context_t *c = state;
    c->host = host;
    the_context = c;
    *ctx = c;
    return 0;
}

static void reload_abort(void *ctx, void *state)
{
    context_t *c = ctx;
    c->context_always_right &= state == ctx;
    c->aborts++;
}

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_ref_t provides[] = {CT_API_PROVIDE("test.v2", 1, test_v2_api_v1)};
    static const ct_api_need_t required[] = {
        CT_API_NEED_RANGE("ct.lua", 0, 1),
        CT_API_NEED_OPTIONAL("test.x", 1, 3),
        CT_API_NEED("ct.memory", 1),
    };
    static const ct_plugin_api_v2 plugin = {
        .magic = CT_PLUGIN_MAGIC,
        .struct_size = sizeof plugin,
        .name = "test.v2",
        .version = {V2_VERSION, 0, 0, 0},
        .provides = provides,
        .num_provides = CT_ARRAY_COUNT(provides),
        .required = required,
        .num_required = CT_ARRAY_COUNT(required),
        .init = init,
        .shutdown = shutdown,
        .frame_begin = frame_begin,
        .frame_end = frame_end,
        .reload_save = reload_save,
        .reload_load = reload_load,
        .reload_abort = reload_abort,
    };
    static const test_v2_api_v1 api_v1 = {code_version, chosen_lua,           chosen_x,
                                          frames,       context_always_right, aborts,
                                          kernel_minor, plugin_api_max};
    if (api == CT_PLUGIN_API && version == 2)
        return (void *)&plugin;
    if (api == TEST_V2_API && version == 1)
        return (void *)&api_v1;
    return NULL;
}
