#include "test_type.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAYLOAD_MAGIC 0x4d554e54u /* "TNUM" */

static const ct_data_api_v1 *data;
static const ct_resource_api_v1 *res;

void test_type_use(const ct_data_api_v1 *data_api, const ct_resource_api_v1 *resource_api)
{
    data = data_api;
    res = resource_api;
}

static void put32(ct_compile_ctx_o *ctx, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    res->write(ctx, b, 4);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int compile(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    test_type_counters_t *counters = user_data;
    if (counters)
        counters->compiles++;
    const ct_data_o *values = data->get(source, "values");
    if (data->type(values) != CT_DATA_ARRAY) {
        res->compile_error(ctx, "'values' must be an array of numbers");
        return CT_ERR_BAD_DATA;
    }
    uint32_t count = data->count(values);
    if (count > TEST_MAX_VALUES) {
        res->compile_error(ctx, "more than %d values", TEST_MAX_VALUES);
        return CT_ERR_BAD_DATA;
    }
    const char *label = data->string(data->get(source, "label"), "");
    uint32_t label_len = (uint32_t)strnlen(label, 63);
    put32(ctx, PAYLOAD_MAGIC);
    put32(ctx, count);
    put32(ctx, 16 + 4 * count);
    put32(ctx, label_len);
    for (const ct_data_o *v = data->first_child(values); v; v = data->next(v))
        put32(ctx, (uint32_t)(int32_t)data->number(v, 0));
    res->write(ctx, label, label_len);
    return 0;
}

static void *load(void *user_data, const void *payload, uint64_t size, char *err, size_t err_size)
{
    const uint8_t *p = payload;
    if (size < 16 || get32(p) != PAYLOAD_MAGIC) {
        snprintf(err, err_size, "not a numbers payload");
        return NULL;
    }
    uint32_t count = get32(p + 4), label_ofs = get32(p + 8), label_len = get32(p + 12);
    if (count > TEST_MAX_VALUES || 16 + 4 * (uint64_t)count > size || label_len > 63 ||
        label_ofs > size || label_len > size - label_ofs) {
        snprintf(err, err_size, "count or label out of range");
        return NULL;
    }
    test_numbers_t *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    n->count = count;
    for (uint32_t i = 0; i < count; i++)
        n->values[i] = (int32_t)get32(p + 16 + 4 * i);
    memcpy(n->label, p + label_ofs, label_len);
    test_type_counters_t *counters = user_data;
    if (counters)
        counters->loads++;
    return n;
}

static void unload(void *user_data, void *runtime)
{
    test_type_counters_t *counters = user_data;
    if (counters)
        counters->unloads++;
    free(runtime);
}

ct_resource_type_t test_type(uint32_t format_version, test_type_counters_t *counters)
{
    return (ct_resource_type_t){
        .type = TEST_TYPE,
        .format_version = format_version,
        .user_data = counters,
        .compile = compile,
        .load = load,
        .unload = unload,
    };
}
