/* Decoding and checking a client's JSON message. */
#include "console/console_message.h"

#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct kind_spec_t {
    const char *name;
    console_kind kind;
    const char *fields[6]; /* besides "type" and "id" */
} kind_spec_t;

static const kind_spec_t kinds[] = {
    {"auth", CONSOLE_MSG_AUTH, {"token"}},
    {"script", CONSOLE_MSG_SCRIPT, {"script"}},
    {"log", CONSOLE_MSG_LOG, {"subscribe", "level"}},
    {"profiler", CONSOLE_MSG_PROFILER, {"subscribe"}},
    {"command", CONSOLE_MSG_COMMAND, {"command", "frames", "resource", "name"}},
    {"file", CONSOLE_MSG_FILE, {"resource", "name", "path"}},
};

static const char *const commands[] = {"pause", "resume", "step", "quit", "reload", "status"};
static const char *const levels[] = {"debug", "info", "warning", "error"};

/* Edit distance, for "did you mean"; names here are short. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return 99;
    size_t row[32];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *console_message__nearest(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = 3;
    for (size_t i = 0; i < n && names[i]; i++) {
        size_t d = distance(word, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}

static int fail(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t err_size, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, err_size, fmt, args);
    va_end(args);
    return CT_ERR_BAD_DATA;
}

static int unknown_name(char *err, size_t err_size, const char *what, const char *word,
                        const char *const *names, size_t n)
{
    const char *near = console_message__nearest(word, names, n);
    char hint[64] = "";
    if (near)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
    char text[160];
    snprintf(text, sizeof text, "%s '%.60s' is unknown%s", what, word, hint);
    return fail(err, err_size, "%s", text);
}

static int one_of(const cJSON *item, const char *field, const char *const *names, size_t n,
                  int *out, char *err, size_t err_size)
{
    if (!cJSON_IsString(item))
        return fail(err, err_size, "field '%s' must be a string", field);
    for (size_t i = 0; i < n; i++)
        if (strcmp(item->valuestring, names[i]) == 0) {
            *out = (int)i;
            return 0;
        }
    char what[64];
    snprintf(what, sizeof what, "%s", field);
    return unknown_name(err, err_size, what, item->valuestring, names, n);
}

static const char *string_field(const cJSON *root, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, name);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* Fields common to all kinds, and that every present field belongs to the kind. */
static int check_fields(const cJSON *root, const kind_spec_t *spec, char *err, size_t err_size)
{
    const char *known[8] = {"type", "id"};
    size_t n = 2;
    for (size_t i = 0; i < 6 && spec->fields[i]; i++)
        known[n++] = spec->fields[i];
    const cJSON *item;
    cJSON_ArrayForEach(item, root)
    {
        bool ok = false;
        for (size_t i = 0; i < n && !ok; i++)
            ok = item->string && strcmp(item->string, known[i]) == 0;
        if (!ok) {
            char what[64];
            snprintf(what, sizeof what, "field of a '%s' message", spec->name);
            return unknown_name(err, err_size, what, item->string ? item->string : "?", known, n);
        }
        if (item->type == cJSON_String && !item->valuestring)
            return fail(err, err_size, "field '%s' is a broken string", item->string);
    }
    return 0;
}

static int decode_kind(const cJSON *root, console_message_t *m, char *err, size_t err_size)
{
    const cJSON *item;
    switch (m->kind) {
    case CONSOLE_MSG_AUTH:
    case CONSOLE_MSG_SCRIPT: {
        const char *field = m->kind == CONSOLE_MSG_AUTH ? "token" : "script";
        item = cJSON_GetObjectItemCaseSensitive(root, field);
        if (!cJSON_IsString(item))
            return fail(err, err_size, "a '%s' message needs a string field '%s'",
                        m->kind == CONSOLE_MSG_AUTH ? "auth" : "script", field);
        m->text = item->valuestring;
        m->text_len = strlen(item->valuestring);
        return 0;
    }
    case CONSOLE_MSG_LOG:
    case CONSOLE_MSG_PROFILER:
        m->subscribe = true;
        item = cJSON_GetObjectItemCaseSensitive(root, "subscribe");
        if (item && !cJSON_IsBool(item))
            return fail(err, err_size, "field '%s' must be true or false", "subscribe");
        if (item)
            m->subscribe = cJSON_IsTrue(item);
        m->level = CT_LOG_INFO;
        item = cJSON_GetObjectItemCaseSensitive(root, "level");
        if (item) {
            int level;
            if (one_of(item, "level", levels, 4, &level, err, err_size))
                return CT_ERR_BAD_DATA;
            m->level = (ct_log_level)level;
        }
        return 0;
    case CONSOLE_MSG_COMMAND: {
        int command;
        item = cJSON_GetObjectItemCaseSensitive(root, "command");
        if (!item)
            return fail(err, err_size, "a 'command' message needs a field '%s'", "command");
        if (one_of(item, "command", commands, 6, &command, err, err_size))
            return CT_ERR_BAD_DATA;
        m->command = (console_command)command;
        item = cJSON_GetObjectItemCaseSensitive(root, "frames");
        if (m->command == CONSOLE_CMD_STEP) {
            double f = cJSON_IsNumber(item) ? item->valuedouble : 1.0;
            if (item && (!cJSON_IsNumber(item) || !(f >= 1 && f <= CONSOLE_MAX_STEP) || f != floor(f)))
                return fail(err, err_size, "'frames' must be a whole number in 1..1000000");
            m->frames = (uint32_t)f;
        } else if (item) {
            return fail(err, err_size, "'frames' belongs to 'step' only");
        }
        bool reload = m->command == CONSOLE_CMD_RELOAD;
        m->resource = string_field(root, "resource");
        m->name = string_field(root, "name");
        if (reload && (!m->resource || !m->name))
            return fail(err, err_size, "'reload' needs string fields 'resource' and 'name'");
        if (!reload && (cJSON_GetObjectItemCaseSensitive(root, "resource") ||
                        cJSON_GetObjectItemCaseSensitive(root, "name")))
            return fail(err, err_size, "'resource' and 'name' belong to 'reload' only");
        return 0;
    }
    case CONSOLE_MSG_FILE: {
        m->resource = string_field(root, "resource");
        m->name = string_field(root, "name");
        m->text = string_field(root, "path");
        bool has_resource = cJSON_GetObjectItemCaseSensitive(root, "resource") ||
                            cJSON_GetObjectItemCaseSensitive(root, "name");
        bool blob = m->resource && m->name && !cJSON_GetObjectItemCaseSensitive(root, "path");
        bool file = m->text && !has_resource;
        if (!blob && !file)
            return fail(err, err_size, "a 'file' message needs string fields 'resource' and "
                                       "'name', or 'path' alone");
        m->text_len = m->text ? strlen(m->text) : 0;
        return 0;
    }
    }
    return CT_ERR_BAD_DATA;
}

int console_message__parse_object(const char *json, size_t len, struct cJSON **out, char *err,
                                  size_t err_size)
{
    *out = NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, false);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t offset = at && at >= json && at <= json + len ? (size_t)(at - json) : 0;
        snprintf(err, err_size, "bad JSON near byte %zu", offset);
        return CT_ERR_BAD_DATA;
    }
    /* Whitespace may follow the object; anything else is a second value or garbage. */
    while (end && end < json + len && (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t'))
        end++;
    int rc = 0;
    if (end && end < json + len && *end != '\0')
        rc = fail(err, err_size, "bad JSON: text after the object at byte %zu", (size_t)(end - json));
    else if (!cJSON_IsObject(root))
        rc = fail(err, err_size, "a message must be a JSON object");
    if (rc)
        cJSON_Delete(root);
    else
        *out = root;
    return rc;
}

int console_message__decode(const char *json, size_t len, console_message_t *m, char *err,
                            size_t err_size)
{
    memset(m, 0, sizeof *m);
    cJSON *root;
    int rc = console_message__parse_object(json, len, &root, err, err_size);
    if (rc)
        return rc;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    if (!rc && !cJSON_IsString(type))
        rc = fail(err, err_size, "a message needs a string field 'type'");
    const kind_spec_t *spec = NULL;
    if (!rc) {
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            if (strcmp(type->valuestring, kinds[i].name) == 0)
                spec = &kinds[i];
        if (!spec) {
            const char *names[] = {"auth", "script", "log", "profiler", "command", "file"};
            rc = unknown_name(err, err_size, "message type", type->valuestring, names, 6);
        }
    }
    if (!rc)
        rc = check_fields(root, spec, err, err_size);
    if (!rc) {
        m->kind = spec->kind;
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
        if (id && (!cJSON_IsNumber(id) || !isfinite(id->valuedouble)))
            rc = fail(err, err_size, "field 'id' must be a finite number");
        m->has_id = id != NULL;
        m->id = id ? id->valuedouble : 0;
    }
    if (!rc)
        rc = decode_kind(root, m, err, err_size);
    if (rc) {
        cJSON_Delete(root);
        memset(m, 0, sizeof *m);
        return rc;
    }
    m->root = root;
    return 0;
}

void console_message__free(console_message_t *m)
{
    if (m->root)
        cJSON_Delete(m->root);
    m->root = NULL;
}
