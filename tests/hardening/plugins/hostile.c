/*
 * A plugin (API v0, the simplest) that does what hostile or careless plugins do, chosen by the
 * environment variable HOSTILE at init:
 *   HOSTILE=error_in_init   raises a Lua error from init (caught: hooks run protected);
 *   HOSTILE=overflow        writes one byte past a 16-byte block it never frees, then prints
 *                           what ct_memory_api_v2.verify finds ("hostile: verify found N");
 *                           only run it with --memory-debug canary (else the write is real);
 *   HOSTILE=leak            allocates a block it never frees;
 *   HOSTILE=error_in_compile registers resource type "hostile", whose compiler raises a Lua error
 *                           (run by cuttle-compile, outside any Lua call);
 *   HOSTILE=dependency      registers resource type "racing" ({ file = "x.txt" }), whose compiler
 *                           reads the file through source_file into the blob, and then, when
 *                           HOSTILE_TAMPER is "change" or "delete", changes or deletes it (what
 *                           an editor saving during the compile does).
 * And always registers Hostile.call_global(name), which calls back into the Lua global `name`
 * through ct_lua_api_v1 (so Lua -> C -> Lua re-entry can recurse), and Hostile.echo(...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_data.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_resource.h"
#include "ct_plugin.h"

static const ct_lua_api_v1 *lua;

static int l_call_global(lua_State *L)
{
    const char *name = lua->check_string(L, 1, NULL);
    lua->push_number(L, lua->call_global(name, 0));
    return 1;
}

static int l_echo(lua_State *L) { return lua->get_top(L); }

static int compile_raises(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data, (void)source, (void)ctx;
    return lua->error(lua->main_state(), "raised by compile on purpose");
}

static const ct_resource_api_v2 *resource2;
static const ct_data_api_v1 *data;

static int compile_racing(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    char path[1024], bytes[256];
    const char *file = data->string(data->get(source, "file"), "");
    if (!resource2->source_file(ctx, "file", file, path, sizeof path))
        return CT_ERR_BAD_DATA;
    FILE *f = fopen(path, "rb");
    if (!f) {
        resource2->compile_error(ctx, "file: cannot read \"%s\"", file);
        return CT_ERR_NOT_FOUND;
    }
    const size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    resource2->write(ctx, bytes, n);
    const char *tamper = getenv("HOSTILE_TAMPER");
    if (tamper && !strcmp(tamper, "delete"))
        remove(path);
    if (tamper && !strcmp(tamper, "change") && (f = fopen(path, "ab"))) {
        fputs("changed while compiling\n", f);
        fclose(f);
    }
    return 0;
}

static void *load_nothing(void *user_data, const void *payload, uint64_t size, char *err,
                          size_t err_size)
{
    (void)user_data, (void)payload, (void)size, (void)err, (void)err_size;
    return NULL;
}

static void init(ct_get_api_f get_engine_api)
{
    lua = get_engine_api(CT_LUA_API, 1);
    if (!lua)
        return;
    lua->add_module_function("Hostile", "call_global", l_call_global);
    lua->add_module_function("Hostile", "echo", l_echo);
    const char *what = getenv("HOSTILE");
    /* More functions than the kernel has fixed trampolines for (512): the last ones are closures
     * whose upvalue holds their slot, which scripts can reach. */
    for (int i = 0; what && strcmp(what, "many_slots") == 0 && i < 1100; i++) {
        char name[16];
        snprintf(name, sizeof name, "echo%d", i);
        lua->add_module_function("Hostile", name, l_echo);
    }
    if (what && strcmp(what, "error_in_init") == 0)
        lua->error(lua->main_state(), "raised by init on purpose");
    const ct_resource_api_v1 *resource = get_engine_api(CT_RESOURCE_API, 1);
    if (what && strcmp(what, "error_in_compile") == 0 && resource) {
        static const ct_resource_type_t type = {.type = "hostile",
                                                .format_version = 1,
                                                .compile = compile_raises,
                                                .load = load_nothing};
        resource->register_type(&type);
    }
    resource2 = get_engine_api(CT_RESOURCE_API, 2);
    data = get_engine_api(CT_DATA_API, 1);
    if (what && strcmp(what, "dependency") == 0 && resource2 && data) {
        static const ct_resource_type_t type = {
            .type = "racing", .format_version = 1, .compile = compile_racing, .load = load_nothing};
        resource2->register_type(&type);
    }
    const ct_memory_api_v2 *memory = get_engine_api(CT_MEMORY_API, 2);
    bool overflow = what && strcmp(what, "overflow") == 0;
    if ((overflow || (what && strcmp(what, "leak") == 0)) && memory) {
        ct_allocator_t *a = memory->create_child(NULL, "hostile");
        char *block = ct_alloc(a, 16);
        memset(block, 'x', overflow ? 17 : 16);
        printf("hostile: verify found %llu\n", (unsigned long long)memory->verify(a));
    }
}

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static ct_plugin_api_v0 v0 = {.init = init};
    return api == CT_PLUGIN_API && version == 0 ? &v0 : NULL;
}
