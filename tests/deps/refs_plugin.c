/* A plugin with two resource types that reference things, so cuttle-compile writes a reference
 * index the cuttle-deps tests can query and rewrite without the engine's modules:
 *     thing:  `file = "things/apple.txt"` (optional): a file it is built from, and
 *             `refs = ["t/1/r5" ...]` (optional) other things (bench_deps' synthetic project)
 *     holder: `uses = ["things/apple" ...]` things, `holders = ["h2" ...]` other holders
 * REFS_PLUGIN_NAME names the plugin: two builds provide the same types under two names (a
 * swapped provider). Built against api/ only, as a third party would. */
#include "ct_data.h"
#include "ct_plugin.h"
#include "ct_resource.h"

static const ct_resource_api_v6 *res;
static const ct_data_api_v1 *data;

static void *load_any(void *user_data, const void *payload, uint64_t size, char *err,
                      size_t err_size)
{
    (void)user_data, (void)size, (void)err, (void)err_size;
    return (void *)payload;
}

static int names(const struct ct_data_o *source, ct_compile_ctx_o *ctx, const char *field,
                 const char *type)
{
    for (const ct_data_o *f = data->first_child(data->get(source, field)); f; f = data->next(f))
        if (!res->reference(ctx, field, type, data->string(f, "")))
            return CT_ERR_BAD_DATA;
    return 0;
}

static int compile_thing(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const char *file = data->string(data->get(source, "file"), NULL);
    char path[4096];
    if (file && !res->source_file(ctx, "file", file, path, sizeof path))
        return CT_ERR_BAD_DATA;
    const int rc = names(source, ctx, "refs", "thing");
    res->write(ctx, "t", 1);
    return rc;
}

static int compile_holder(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    int rc = names(source, ctx, "uses", "thing");
    if (!rc)
        rc = names(source, ctx, "holders", "holder");
    res->write(ctx, "h", 1);
    return rc;
}

static const ct_resource_type_t thing = {"thing", 1, NULL, compile_thing, load_any, NULL};
static const ct_resource_type_t holder = {"holder", 1, NULL, compile_holder, load_any, NULL};

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)self;
    data = get_engine_api(CT_DATA_API, 1);
    res = get_engine_api(CT_RESOURCE_API, 6);
    if (!data || !res)
        return CT_ERR_MISSING_API;
    int rc = res->register_type(&thing);
    return rc ? rc : res->register_type(&holder);
}

static void shutdown(void)
{
    res->unregister_type("holder");
    res->unregister_type("thing");
}

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_ref_t requires[] = {
        {.id = CT_DATA_API, .version = 1, .name = "ct.data"},
        {.id = CT_RESOURCE_API, .version = 6, .name = "ct.resource"},
    };
    static const ct_plugin_api_v1 plugin = {
        .name = REFS_PLUGIN_NAME,
        .version = {1, 0, 0, 0},
        .requires = requires,
        .num_requires = 2,
        .init = init,
        .shutdown = shutdown,
    };
    return api == CT_PLUGIN_API && version == 1 ? (void *)&plugin : NULL;
}
