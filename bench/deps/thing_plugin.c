/* The resource type of bench_deps' synthetic project, as a plugin, so that the bench compiles it
 * with the cuttle-compile a user runs (`--plugin`): a "thing" is `refs = ["t/1/r5" ...]`, each a
 * reference to another thing; its blob is one byte. Built against api/ only. */
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

static int compile_thing(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    for (const ct_data_o *f = data->first_child(data->get(source, "refs")); f; f = data->next(f))
        if (!res->reference(ctx, "refs", "thing", data->string(f, "")))
            return CT_ERR_BAD_DATA;
    res->write(ctx, "t", 1);
    return 0;
}

static const ct_resource_type_t thing = {"thing", 1, NULL, compile_thing, load_any, NULL};

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)self;
    data = get_engine_api(CT_DATA_API, 1);
    res = get_engine_api(CT_RESOURCE_API, 6);
    if (!data || !res)
        return CT_ERR_MISSING_API;
    return res->register_type(&thing);
}

static void shutdown(void) { res->unregister_type("thing"); }

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_ref_t requires[] = {
        {.id = CT_DATA_API, .version = 1, .name = "ct.data"},
        {.id = CT_RESOURCE_API, .version = 6, .name = "ct.resource"},
    };
    static const ct_plugin_api_v1 plugin = {
        .name = "bench.thing",
        .version = {1, 0, 0, 0},
        .requires = requires,
        .num_requires = 2,
        .init = init,
        .shutdown = shutdown,
    };
    return api == CT_PLUGIN_API && version == 1 ? (void *)&plugin : NULL;
}
