/*
 * ct_data_api_v1: the read-only tree API over cJSON. A ct_data_o is a cJSON node; the casts are
 * the whole adapter, so walking a tree costs exactly what walking cJSON costs.
 */
#include "sjson.h"

#include <stdlib.h>

static const cJSON *node_of(const ct_data_o *node) { return (const cJSON *)node; }

static ct_data_o *data_parse(const char *text, size_t len, const char *filename, char *err,
                             size_t err_size)
{
    return (ct_data_o *)sjson__parse(text, len, filename, err, err_size);
}

static ct_data_o *data_load_file(const char *path, char *err, size_t err_size)
{
    size_t len;
    char *text = sjson__read_file(path, &len, err, err_size);
    if (!text)
        return NULL;
    cJSON *root = sjson__parse(text, len, path, err, err_size);
    free(text);
    return (ct_data_o *)root;
}

static void data_destroy(ct_data_o *root) { cJSON_Delete((cJSON *)root); }

static ct_data_type data_type(const ct_data_o *node)
{
    const cJSON *n = node_of(node);
    if (cJSON_IsNull(n))
        return CT_DATA_NULL;
    if (cJSON_IsBool(n))
        return CT_DATA_BOOL;
    if (cJSON_IsNumber(n))
        return CT_DATA_NUMBER;
    if (cJSON_IsString(n))
        return CT_DATA_STRING;
    if (cJSON_IsArray(n))
        return CT_DATA_ARRAY;
    if (cJSON_IsObject(n))
        return CT_DATA_OBJECT;
    return CT_DATA_INVALID;
}

static const ct_data_o *data_get(const ct_data_o *object, const char *key)
{
    const cJSON *n = node_of(object);
    if (!cJSON_IsObject(n) || !key)
        return NULL;
    return (const ct_data_o *)cJSON_GetObjectItemCaseSensitive(n, key);
}

static const ct_data_o *data_first_child(const ct_data_o *node)
{
    const cJSON *n = node_of(node);
    if (!cJSON_IsObject(n) && !cJSON_IsArray(n))
        return NULL;
    return (const ct_data_o *)n->child;
}

static const ct_data_o *data_next(const ct_data_o *child)
{
    return child ? (const ct_data_o *)node_of(child)->next : NULL;
}

static uint32_t data_count(const ct_data_o *node)
{
    uint32_t n = 0;
    for (const ct_data_o *c = data_first_child(node); c; c = data_next(c))
        n++;
    return n;
}

static const char *data_key(const ct_data_o *member)
{
    const cJSON *n = node_of(member);
    return n && n->string ? n->string : "";
}

static double data_number(const ct_data_o *node, double fallback)
{
    const cJSON *n = node_of(node);
    return cJSON_IsNumber(n) ? n->valuedouble : fallback;
}

static bool data_boolean(const ct_data_o *node, bool fallback)
{
    const cJSON *n = node_of(node);
    return cJSON_IsBool(n) ? cJSON_IsTrue(n) != 0 : fallback;
}

static const char *data_string(const ct_data_o *node, const char *fallback)
{
    const cJSON *n = node_of(node);
    return cJSON_IsString(n) ? n->valuestring : fallback;
}

const ct_data_api_v1 *data__api_v1(void)
{
    static const ct_data_api_v1 api = {
        .parse = data_parse,
        .load_file = data_load_file,
        .destroy = data_destroy,
        .type = data_type,
        .get = data_get,
        .first_child = data_first_child,
        .next = data_next,
        .count = data_count,
        .key = data_key,
        .number = data_number,
        .boolean = data_boolean,
        .string = data_string,
    };
    return &api;
}
