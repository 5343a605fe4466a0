/* Decoding and checking a client's JSON message. */
#include "console/console_message.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "data/message.h"

static const data_message_kind_t kinds[] = {
    {"auth", CONSOLE_MSG_AUTH, {"token"}},
    {"script", CONSOLE_MSG_SCRIPT, {"script"}},
    {"log", CONSOLE_MSG_LOG, {"subscribe", "level"}},
    {"profiler", CONSOLE_MSG_PROFILER, {"subscribe"}},
    {"command", CONSOLE_MSG_COMMAND, {"command", "frames", "resource", "name"}},
    {"file", CONSOLE_MSG_FILE, {"resource", "name", "path"}},
};

static const char *const commands[] = {"pause", "resume", "step", "quit", "reload", "status"};
static const char *const levels[] = {"debug", "info", "warning", "error"};

/* The index of `item` (a string) among names, or -1 with err set. The index is the result, not
 * an out-parameter, so no caller can read a value that was never written. */
static int one_of(const cJSON *item, const char *field, const char *const *names, size_t n,
                  char *err, size_t err_size)
{
    if (!cJSON_IsString(item)) {
        data__message_fail(err, err_size, "field '%s' must be a string", field);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(item->valuestring, names[i]) == 0)
            return (int)i;
    data__message_unknown(err, err_size, field, item->valuestring, names, n);
    return -1;
}

static const char *string_field(const cJSON *root, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, name);
    return cJSON_IsString(item) ? item->valuestring : NULL;
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
            return data__message_fail(err, err_size, "a '%s' message needs a string field '%s'",
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
            return data__message_fail(err, err_size, "field '%s' must be true or false",
                                      "subscribe");
        if (item)
            m->subscribe = cJSON_IsTrue(item);
        m->level = CT_LOG_INFO;
        item = cJSON_GetObjectItemCaseSensitive(root, "level");
        if (item) {
            const int level = one_of(item, "level", levels, 4, err, err_size);
            if (level < 0)
                return CT_ERR_BAD_DATA;
            m->level = (ct_log_level)level;
        }
        return 0;
    case CONSOLE_MSG_COMMAND: {
        item = cJSON_GetObjectItemCaseSensitive(root, "command");
        if (!item)
            return data__message_fail(err, err_size, "a 'command' message needs a field '%s'",
                                      "command");
        const int command = one_of(item, "command", commands, 6, err, err_size);
        if (command < 0)
            return CT_ERR_BAD_DATA;
        m->command = (console_command)command;
        item = cJSON_GetObjectItemCaseSensitive(root, "frames");
        if (m->command == CONSOLE_CMD_STEP) {
            double f = cJSON_IsNumber(item) ? item->valuedouble : 1.0;
            if (item &&
                (!cJSON_IsNumber(item) || !(f >= 1 && f <= CONSOLE_MAX_STEP) || f != floor(f)))
                return data__message_fail(err, err_size,
                                          "'frames' must be a whole number in 1..1000000");
            m->frames = (uint32_t)f;
        } else if (item) {
            return data__message_fail(err, err_size, "'frames' belongs to 'step' only");
        }
        bool reload = m->command == CONSOLE_CMD_RELOAD;
        m->resource = string_field(root, "resource");
        m->name = string_field(root, "name");
        if (reload && (!m->resource || !m->name))
            return data__message_fail(err, err_size,
                                      "'reload' needs string fields 'resource' and 'name'");
        if (!reload && (cJSON_GetObjectItemCaseSensitive(root, "resource") ||
                        cJSON_GetObjectItemCaseSensitive(root, "name")))
            return data__message_fail(err, err_size,
                                      "'resource' and 'name' belong to 'reload' only");
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
            return data__message_fail(err, err_size,
                                      "a 'file' message needs string fields 'resource' and "
                                      "'name', or 'path' alone");
        m->text_len = m->text ? strlen(m->text) : 0;
        return 0;
    }
    }
    return CT_ERR_BAD_DATA;
}

int console_message__decode(const char *json, size_t len, console_message_t *m, char *err,
                            size_t err_size)
{
    memset(m, 0, sizeof *m);
    data_message_t head;
    int rc =
        data__message_read(json, len, kinds, sizeof kinds / sizeof kinds[0], &head, err, err_size);
    if (rc)
        return rc;
    m->kind = (console_kind)head.kind->kind;
    m->has_id = head.has_id;
    m->id = head.id;
    rc = decode_kind(head.root, m, err, err_size);
    if (rc) {
        cJSON_Delete(head.root);
        memset(m, 0, sizeof *m);
        return rc;
    }
    m->root = head.root;
    return 0;
}

void console_message__free(console_message_t *m)
{
    if (m->root)
        cJSON_Delete(m->root);
    m->root = NULL;
}
