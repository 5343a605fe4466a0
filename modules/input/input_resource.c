/*
 * input_resource.c: the `input` resource type. A source `input/controls.input` binds action names
 * to control names (api/ct_input.h, "Actions"); it compiles to the bindings blob of input_core.h.
 */
#include "input_internal.h"

#include <string.h>

static void write_name(ct_compile_ctx_o *ctx, const char *name)
{
    const uint8_t n = (uint8_t)strlen(name);
    input__m.resource->write(ctx, &n, 1);
    input__m.resource->write(ctx, name, n);
}

static void write_u32(ct_compile_ctx_o *ctx, uint32_t v)
{
    const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    input__m.resource->write(ctx, b, 4);
}

/* Checks every action before writing anything, so a bad source writes nothing. */
static int check_source(const ct_data_o *source, ct_compile_ctx_o *ctx)
{
    const ct_data_api_v1 *data = input__m.data;
    const ct_resource_api_v4 *res = input__m.resource;
    if (data->type(source) != CT_DATA_OBJECT) {
        res->compile_error(ctx, "an input binding file is an object of action = [controls]");
        return CT_ERR_BAD_DATA;
    }
    if (data->count(source) > CT_INPUT_MAX_ACTIONS) {
        res->compile_error(ctx, "%u actions, at most %u", data->count(source),
                           CT_INPUT_MAX_ACTIONS);
        return CT_ERR_BAD_DATA;
    }
    int err = 0;
    for (const ct_data_o *a = data->first_child(source); a; a = data->next(a)) {
        const char *name = data->key(a);
        if (!input__name_ok(name, strlen(name))) {
            res->compile_error(ctx, "action '%s': not a name (1..31 of a-z 0-9 _ :)", name);
            err = CT_ERR_BAD_DATA;
            continue;
        }
        if (data->type(a) != CT_DATA_ARRAY || data->count(a) > CT_INPUT_MAX_BINDS) {
            res->compile_error(ctx, "action '%s': wants an array of at most %u control names", name,
                               CT_INPUT_MAX_BINDS);
            err = CT_ERR_BAD_DATA;
            continue;
        }
        for (const ct_data_o *c = data->first_child(a); c; c = data->next(c)) {
            const char *control = data->string(c, NULL);
            if (!control || !input__name_ok(control, strlen(control))) {
                res->compile_error(
                    ctx,
                    "action '%s': %s%s%s is not a control name (lower case: \"space\", "
                    "\"mouse:left\", \"gamepad:a\")",
                    name, control ? "'" : "a ", control ? control : "non-string",
                    control ? "'" : "");
                err = CT_ERR_BAD_DATA;
            }
        }
    }
    return err;
}

static int compile(void *ud, const ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)ud;
    const ct_data_api_v1 *data = input__m.data;
    const int err = check_source(source, ctx);
    if (err)
        return err;
    write_u32(ctx, INPUT_BINDINGS_MAGIC);
    write_u32(ctx, data->count(source));
    for (const ct_data_o *a = data->first_child(source); a; a = data->next(a)) {
        write_name(ctx, data->key(a));
        const uint8_t n = (uint8_t)data->count(a);
        input__m.resource->write(ctx, &n, 1);
        for (const ct_data_o *c = data->first_child(a); c; c = data->next(c))
            write_name(ctx, data->string(c, ""));
    }
    return 0;
}

/* The runtime object is the payload itself; the size is kept beside it. */
typedef struct loaded_bindings {
    const void *payload;
    uint64_t size;
} loaded_bindings;

static void *load(void *ud, const void *payload, uint64_t size, char *err, size_t err_size)
{
    (void)ud;
    if (!input__bindings_check(payload, (size_t)size, err, err_size))
        return NULL;
    loaded_bindings *b = ct_alloc(input__m.allocator, sizeof *b);
    if (!b) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    *b = (loaded_bindings){payload, size};
    return b;
}

static void unload(void *ud, void *runtime)
{
    (void)ud;
    ct_free(input__m.allocator, runtime, sizeof(loaded_bindings));
}

static const ct_resource_type_t input_type = {
    .type = "input",
    .format_version = 1,
    .compile = compile,
    .load = load,
    .unload = unload,
};

int input__register_resources(void) { return input__m.resource->register_type(&input_type); }
void input__unregister_resources(void) { input__m.resource->unregister_type("input"); }
int input__rebind_resources(void) { return input__m.resource->replace_type(&input_type); }

int input__use_bindings(const char *name)
{
    const ct_resource_api_v4 *res = input__m.resource;
    int r = res->load("input", name);
    if (r)
        return r;
    const loaded_bindings *b = res->get("input", name);
    char err[160];
    r = b ? input__bindings_apply(&input__m.state->core, b->payload, (size_t)b->size, err,
                                  sizeof err)
          : CT_ERR_NOT_FOUND;
    if (r)
        INPUT_LOG(CT_LOG_ERROR, "use_bindings %s: %s", name, b ? err : "not loaded");
    else
        INPUT_LOG(CT_LOG_INFO, "use_bindings %s: %u actions", name,
                  input__m.state->core.num_actions);
    res->unload("input", name);
    return r;
}
