/* Reading and checking a server's JSON message (data/message.h). */
#include "data/message.h"

#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "data/nearest.h"

int data__message_fail(char *err, size_t err_size, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, err_size, fmt, args);
    va_end(args);
    return CT_ERR_BAD_DATA;
}

int data__message_unknown(char *err, size_t err_size, const char *what, const char *word,
                          const char *const *names, size_t n)
{
    const char *near = data__nearest_name(word, names, (uint32_t)n);
    return data__message_fail(err, err_size, "%s '%.60s' is unknown%s%s%s", what, word,
                              near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
}

/* Exactly one object in `len` bytes (whitespace may follow); *out is the caller's on success. */
static int parse_object(const char *json, size_t len, cJSON **out, char *err, size_t err_size)
{
    *out = NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, false);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t offset = at && at >= json && at <= json + len ? (size_t)(at - json) : 0;
        return data__message_fail(err, err_size, "bad JSON near byte %zu", offset);
    }
    while (end && end < json + len && (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t'))
        end++;
    int rc = 0;
    if (end && end < json + len && *end != '\0')
        rc = data__message_fail(err, err_size, "bad JSON: text after the object at byte %zu",
                                (size_t)(end - json));
    else if (!cJSON_IsObject(root))
        rc = data__message_fail(err, err_size, "a message must be a JSON object");
    if (rc)
        cJSON_Delete(root);
    else
        *out = root;
    return rc;
}

static const data_message_kind_t *find_kind(const cJSON *root, const data_message_kind_t *kinds,
                                            size_t num_kinds, char *err, size_t err_size)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    if (!cJSON_IsString(type)) {
        data__message_fail(err, err_size, "a message needs a string field 'type'");
        return NULL;
    }
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < num_kinds; i++) {
        if (!strcmp(type->valuestring, kinds[i].name))
            return &kinds[i];
        if (n < sizeof names / sizeof names[0])
            names[n++] = kinds[i].name;
    }
    data__message_unknown(err, err_size, "message type", type->valuestring, names, n);
    return NULL;
}

/* Every present field belongs to the kind (or is "type" or "id"). */
static int check_fields(const cJSON *root, const data_message_kind_t *kind, char *err,
                        size_t err_size)
{
    const char *known[DATA_MESSAGE_MAX_FIELDS + 2] = {"type", "id"};
    size_t n = 2;
    for (size_t i = 0; i < DATA_MESSAGE_MAX_FIELDS && kind->fields[i]; i++)
        known[n++] = kind->fields[i];
    const cJSON *item;
    cJSON_ArrayForEach(item, root)
    {
        bool ok = false;
        for (size_t i = 0; i < n && !ok; i++)
            ok = item->string && !strcmp(item->string, known[i]);
        if (!ok) {
            char what[64];
            snprintf(what, sizeof what, "field of a '%s' message", kind->name);
            return data__message_unknown(err, err_size, what, item->string ? item->string : "?",
                                         known, n);
        }
        if (item->type == cJSON_String && !item->valuestring)
            return data__message_fail(err, err_size, "field '%s' is a broken string", item->string);
    }
    return 0;
}

int data__message_read(const char *json, size_t len, const data_message_kind_t *kinds,
                       size_t num_kinds, data_message_t *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    cJSON *root;
    int rc = parse_object(json, len, &root, err, err_size);
    if (rc)
        return rc;
    const data_message_kind_t *kind = find_kind(root, kinds, num_kinds, err, err_size);
    rc = kind ? check_fields(root, kind, err, err_size) : CT_ERR_BAD_DATA;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    if (!rc && id && (!cJSON_IsNumber(id) || !isfinite(id->valuedouble)))
        rc = data__message_fail(err, err_size, "field 'id' must be a finite number");
    if (rc) {
        cJSON_Delete(root);
        return rc;
    }
    *out = (data_message_t){
        .root = root, .kind = kind, .has_id = id != NULL, .id = id ? id->valuedouble : 0};
    return 0;
}
