/* Decoding and checking a page's JSON message (editor_message.h). */
#include "editor/editor_message.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/message.h"

static const data_message_kind_t kinds[] = {
    {"hello", EDITOR_MSG_HELLO, {"user", "session", "pixels"}},
    {"ops", EDITOR_MSG_OPS, {"ops", "commit"}},
    {"commit", EDITOR_MSG_COMMIT, {NULL}},
    {"undo", EDITOR_MSG_UNDO, {NULL}},
    {"redo", EDITOR_MSG_REDO, {NULL}},
    {"copy", EDITOR_MSG_COPY, {"objects"}},
    {"paste", EDITOR_MSG_PASTE, {"text", "parent"}},
    {"duplicate", EDITOR_MSG_DUPLICATE, {"objects"}},
    {"delete", EDITOR_MSG_DELETE, {"objects"}},
    {"reparent", EDITOR_MSG_REPARENT, {"object", "parent"}},
    {"save", EDITOR_MSG_SAVE, {NULL}},
    {"play", EDITOR_MSG_PLAY, {NULL}},
    {"stop", EDITOR_MSG_STOP, {NULL}},
    {"camera", EDITOR_MSG_CAMERA, {"orbit", "pan", "zoom", "focus"}},
    {"pick", EDITOR_MSG_PICK, {"x", "y"}},
    {"select", EDITOR_MSG_SELECT, {"objects"}},
    {"place", EDITOR_MSG_PLACE, {"unit", "position"}},
    {"reload", EDITOR_MSG_RELOAD, {NULL}},
    {"view", EDITOR_MSG_VIEW, {"visible"}},
};
#define NUM_KINDS (sizeof kinds / sizeof kinds[0])

static const char *const op_names[] = {"create", "destroy", "set", "add", "remove"};
static const char *const value_names[] = {"vec3", "quat", "string", "guid", "set", "blob"};

static bool guid_of(const cJSON *item, ct_guid_t *out)
{
    return cJSON_IsString(item) && ct_guid_parse(item->valuestring, strlen(item->valuestring), out);
}

/* Reads a "field":["hex"...] list into m->objects. */
static int guid_list(const cJSON *root, const char *field, editor_message_t *m, char *err,
                     size_t es)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, field);
    if (!cJSON_IsArray(list))
        return data__message_fail(err, es, "field '%s' must be a list of GUIDs (32 hex digits)",
                                  field);
    int n = cJSON_GetArraySize(list);
    if (n < 1 || (uint32_t)n > EDITOR_MAX_OBJECTS)
        return data__message_fail(err, es, "field '%s' must list 1..%u objects", field,
                                  (unsigned)EDITOR_MAX_OBJECTS);
    m->objects = calloc((size_t)n, sizeof *m->objects);
    if (!m->objects)
        return CT_ERR_NOMEM;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        if (!guid_of(item, &m->objects[m->num_objects]))
            return data__message_fail(err, es, "'%s' item %u is not a GUID (32 hex digits)", field,
                                      (unsigned)m->num_objects);
        m->num_objects++;
    }
    return 0;
}

static int numbers(const cJSON *a, double *out, int n, const char *what, char *err, size_t es)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return data__message_fail(err, es, "%s must be a list of %d numbers", what, n);
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return data__message_fail(err, es, "%s must be a list of %d finite numbers", what, n);
        out[i++] = x->valuedouble;
    }
    return 0;
}

/* Counts the set members of every op's value, so one array holds them all. */
static uint32_t count_set_items(const cJSON *ops)
{
    uint32_t n = 0;
    const cJSON *op;
    cJSON_ArrayForEach(op, ops)
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(op, "value");
        const cJSON *s = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "set") : NULL;
        if (cJSON_IsArray(s))
            n += (uint32_t)cJSON_GetArraySize(s);
    }
    return n;
}

static int decode_value(const cJSON *v, ct_dm_value_t *out, ct_guid_t **set_cursor, uint32_t index,
                        char *err, size_t es)
{
    memset(out, 0, sizeof *out);
    if (cJSON_IsNull(v)) {
        out->type = CT_DM_NULL;
    } else if (cJSON_IsBool(v)) {
        out->type = CT_DM_BOOL;
        out->as.b = cJSON_IsTrue(v);
    } else if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble))
            return data__message_fail(err, es, "op %u: the value must be a finite number",
                                      (unsigned)index);
        out->type = CT_DM_DOUBLE;
        out->as.d = v->valuedouble;
    } else if (cJSON_IsObject(v)) {
        const cJSON *f = v->child;
        if (!f || f->next)
            return data__message_fail(
                err, es,
                "op %u: a value object holds exactly one of vec3, quat, string, "
                "guid, set, blob",
                (unsigned)index);
        char what[48];
        snprintf(what, sizeof what, "op %u: the value's '%s'", (unsigned)index, f->string);
        if (!strcmp(f->string, "vec3")) {
            out->type = CT_DM_VEC3;
            return numbers(f, out->as.v, 3, what, err, es);
        } else if (!strcmp(f->string, "quat")) {
            out->type = CT_DM_QUAT;
            return numbers(f, out->as.v, 4, what, err, es);
        } else if (!strcmp(f->string, "string") || !strcmp(f->string, "blob")) {
            if (!cJSON_IsString(f))
                return data__message_fail(err, es, "%s must be a string", what);
            size_t n = strlen(f->valuestring);
            if (n > UINT32_MAX / 2)
                return data__message_fail(err, es, "%s is too long", what);
            out->type = !strcmp(f->string, "string") ? CT_DM_STRING : CT_DM_BLOB;
            out->size = (uint32_t)n;
            if (out->type == CT_DM_STRING)
                out->as.s = f->valuestring;
            else
                out->as.blob = f->valuestring;
        } else if (!strcmp(f->string, "guid")) {
            out->type = CT_DM_GUID;
            if (!guid_of(f, &out->as.guid))
                return data__message_fail(err, es, "%s must be a GUID (32 hex digits)", what);
        } else if (!strcmp(f->string, "set")) {
            if (!cJSON_IsArray(f))
                return data__message_fail(err, es, "%s must be a list of GUIDs", what);
            out->type = CT_DM_SET;
            out->as.set = *set_cursor;
            const cJSON *x;
            cJSON_ArrayForEach(x, f)
            {
                if (!guid_of(x, *set_cursor))
                    return data__message_fail(err, es, "%s item %u is not a GUID (32 hex digits)",
                                              what, (unsigned)out->size);
                ++*set_cursor;
                out->size++;
            }
        } else {
            char kind[48];
            snprintf(kind, sizeof kind, "op %u: value kind", (unsigned)index);
            return data__message_unknown(err, es, kind, f->string, value_names, 6);
        }
    } else {
        return data__message_fail(
            err, es,
            "op %u: a value is null, true, false, a number or an object such as "
            "{\"vec3\":[x,y,z]}",
            (unsigned)index);
    }
    return 0;
}

static int decode_op(const cJSON *o, uint32_t i, editor_message_t *m, ct_guid_t **set_cursor,
                     char *err, size_t es)
{
    if (!cJSON_IsObject(o))
        return data__message_fail(err, es, "op %u must be an object", (unsigned)i);
    ct_dm_op_t *op = &m->ops[i];
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "op");
    if (!cJSON_IsString(kind))
        return data__message_fail(err, es, "op %u needs a string field 'op'", (unsigned)i);
    int k = -1;
    for (int j = 0; j < 5; j++)
        if (!strcmp(kind->valuestring, op_names[j]))
            k = j;
    if (k < 0) {
        char what[32];
        snprintf(what, sizeof what, "op %u: operation", (unsigned)i);
        return data__message_unknown(err, es, what, kind->valuestring, op_names, 5);
    }
    op->kind = (uint32_t)(k + 1);
    /* Which fields each operation takes. */
    bool want_key = op->kind >= CT_DM_OP_SET, want_value = op->kind == CT_DM_OP_SET,
         want_item = op->kind >= CT_DM_OP_ADD;
    const char *known[] = {"op", "object", "key", "value", "base", "item"};
    const cJSON *f;
    cJSON_ArrayForEach(f, o)
    {
        bool ok = !strcmp(f->string, "op") || !strcmp(f->string, "object") ||
                  (want_key && !strcmp(f->string, "key")) ||
                  (want_value && (!strcmp(f->string, "value") || !strcmp(f->string, "base"))) ||
                  (want_item && !strcmp(f->string, "item"));
        if (!ok) {
            char what[48];
            snprintf(what, sizeof what, "op %u ('%s'): field", (unsigned)i, op_names[k]);
            return data__message_unknown(err, es, what, f->string, known, 6);
        }
    }
    if (!guid_of(cJSON_GetObjectItemCaseSensitive(o, "object"), &op->object))
        return data__message_fail(err, es, "op %u needs a field 'object': a GUID (32 hex digits)",
                                  (unsigned)i);
    if (want_key) {
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(o, "key");
        if (!cJSON_IsString(key) || !key->valuestring[0] ||
            strlen(key->valuestring) > CT_DM_MAX_KEY)
            return data__message_fail(err, es, "op %u needs a field 'key': a string of 1..%u bytes",
                                      (unsigned)i, (unsigned)CT_DM_MAX_KEY);
        op->key = key->valuestring;
    }
    if (want_value) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "value");
        if (!v)
            return data__message_fail(err, es, "op %u ('set') needs a field 'value' (null removes)",
                                      (unsigned)i);
        int r = decode_value(v, &op->value, set_cursor, i, err, es);
        if (r)
            return r;
        const cJSON *base = cJSON_GetObjectItemCaseSensitive(o, "base");
        if (base && !cJSON_IsString(base) && !cJSON_IsNull(base))
            return data__message_fail(err, es, "op %u: 'base' must be a stamp string or null",
                                      (unsigned)i);
        m->bases[i] = cJSON_IsString(base) ? base->valuestring : NULL;
    }
    if (want_item && !guid_of(cJSON_GetObjectItemCaseSensitive(o, "item"), &op->item))
        return data__message_fail(err, es, "op %u needs a field 'item': a GUID (32 hex digits)",
                                  (unsigned)i);
    return 0;
}

static int decode_ops(const cJSON *root, editor_message_t *m, char *err, size_t es)
{
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(root, "ops");
    if (!cJSON_IsArray(ops))
        return data__message_fail(err, es, "an 'ops' message needs a list 'ops'");
    int n = cJSON_GetArraySize(ops);
    if (n < 1 || (uint32_t)n > EDITOR_MAX_OPS)
        return data__message_fail(err, es, "'ops' must hold 1..%u operations",
                                  (unsigned)EDITOR_MAX_OPS);
    uint32_t items = count_set_items(ops);
    m->ops = calloc((size_t)n, sizeof *m->ops);
    m->bases = calloc((size_t)n, sizeof *m->bases);
    m->set_items = items ? calloc(items, sizeof *m->set_items) : NULL;
    if (!m->ops || !m->bases || (items && !m->set_items))
        return CT_ERR_NOMEM;
    ct_guid_t *cursor = m->set_items;
    const cJSON *o;
    cJSON_ArrayForEach(o, ops)
    {
        int r = decode_op(o, m->num_ops, m, &cursor, err, es);
        if (r)
            return r;
        m->num_ops++;
    }
    const cJSON *commit = cJSON_GetObjectItemCaseSensitive(root, "commit");
    if (commit && !cJSON_IsBool(commit))
        return data__message_fail(err, es, "field 'commit' must be true or false");
    m->commit = cJSON_IsTrue(commit);
    return 0;
}

static int pair(const cJSON *root, const char *field, double out[2], char *err, size_t es)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, field);
    if (!a)
        return 0;
    char what[32];
    snprintf(what, sizeof what, "'%s'", field);
    int r = numbers(a, out, 2, what, err, es);
    if (!r && (fabs(out[0]) > 1e4 || fabs(out[1]) > 1e4))
        return data__message_fail(err, es, "'%s' must be within +-10000", field);
    return r;
}

static int decode_kind(const cJSON *root, editor_message_t *m, char *err, size_t es)
{
    const cJSON *item;
    switch (m->kind) {
    case EDITOR_MSG_HELLO:
        item = cJSON_GetObjectItemCaseSensitive(root, "user");
        if (!cJSON_IsString(item) || !item->valuestring[0] ||
            strlen(item->valuestring) > EDITOR_MAX_USER)
            return data__message_fail(err, es, "a 'hello' needs a field 'user': 1..%u bytes",
                                      (unsigned)EDITOR_MAX_USER);
        for (const char *p = item->valuestring; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == '"' || *p == '\\')
                return data__message_fail(
                    err, es, "'user' must not hold control characters, quotes or backslashes");
        m->user = item->valuestring;
        item = cJSON_GetObjectItemCaseSensitive(root, "session");
        if (item && (!cJSON_IsString(item) || strlen(item->valuestring) > 32))
            return data__message_fail(err, es,
                                      "'session' must be a string of at most 32 characters");
        m->session = item ? item->valuestring : "";
        item = cJSON_GetObjectItemCaseSensitive(root, "pixels");
        if (item && !cJSON_IsBool(item))
            return data__message_fail(err, es, "'pixels' must be true or false");
        m->pixels = cJSON_IsTrue(item);
        return 0;
    case EDITOR_MSG_OPS: return decode_ops(root, m, err, es);
    case EDITOR_MSG_COPY:
    case EDITOR_MSG_DUPLICATE:
    case EDITOR_MSG_DELETE:
    case EDITOR_MSG_SELECT: return guid_list(root, "objects", m, err, es);
    case EDITOR_MSG_PASTE:
        item = cJSON_GetObjectItemCaseSensitive(root, "text");
        if (!cJSON_IsString(item))
            return data__message_fail(err, es,
                                      "a 'paste' needs a string field 'text' (the clipboard)");
        m->text = item->valuestring;
        m->text_len = strlen(item->valuestring);
        item = cJSON_GetObjectItemCaseSensitive(root, "parent");
        if (item && !guid_of(item, &m->parent))
            return data__message_fail(err, es, "'parent' must be a GUID (32 hex digits)");
        m->has_parent = item != NULL;
        return 0;
    case EDITOR_MSG_REPARENT:
        m->objects = calloc(1, sizeof *m->objects);
        if (!m->objects)
            return CT_ERR_NOMEM;
        if (!guid_of(cJSON_GetObjectItemCaseSensitive(root, "object"), &m->objects[0]))
            return data__message_fail(err, es,
                                      "a 'reparent' needs 'object': a GUID (32 hex digits)");
        m->num_objects = 1;
        if (!guid_of(cJSON_GetObjectItemCaseSensitive(root, "parent"), &m->parent))
            return data__message_fail(err, es,
                                      "a 'reparent' needs 'parent': a GUID (all zeros: top level)");
        m->has_parent = true;
        return 0;
    case EDITOR_MSG_CAMERA: {
        int r = pair(root, "orbit", m->orbit, err, es);
        if (!r)
            r = pair(root, "pan", m->pan, err, es);
        if (r)
            return r;
        item = cJSON_GetObjectItemCaseSensitive(root, "zoom");
        if (item && (!cJSON_IsNumber(item) || !(fabs(item->valuedouble) <= 100)))
            return data__message_fail(err, es, "'zoom' must be a number within +-100");
        m->zoom = item ? item->valuedouble : 0;
        item = cJSON_GetObjectItemCaseSensitive(root, "focus");
        if (item && !guid_of(item, &m->focus))
            return data__message_fail(err, es, "'focus' must be a GUID (32 hex digits)");
        m->has_focus = item != NULL;
        return 0;
    }
    case EDITOR_MSG_PICK: {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(root, "x");
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(root, "y");
        if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) ||
            !(x->valuedouble >= 0 && x->valuedouble <= 1) ||
            !(y->valuedouble >= 0 && y->valuedouble <= 1))
            return data__message_fail(err, es,
                                      "a 'pick' needs 'x' and 'y' in [0, 1] (across the viewport)");
        m->x = x->valuedouble;
        m->y = y->valuedouble;
        return 0;
    }
    case EDITOR_MSG_PLACE:
        item = cJSON_GetObjectItemCaseSensitive(root, "unit");
        if (!cJSON_IsString(item) || !item->valuestring[0] || strlen(item->valuestring) > 200)
            return data__message_fail(
                err, es, "a 'place' needs a field 'unit': the unit's name (units/crate)");
        m->text = item->valuestring;
        m->text_len = strlen(item->valuestring);
        item = cJSON_GetObjectItemCaseSensitive(root, "position");
        if (item) {
            int r = numbers(item, m->position, 3, "'position'", err, es);
            if (r)
                return r;
            for (int i = 0; i < 3; i++)
                if (fabs(m->position[i]) > 1e9)
                    return data__message_fail(err, es, "'position' must be within +-1e9");
        }
        return 0;
    case EDITOR_MSG_VIEW:
        item = cJSON_GetObjectItemCaseSensitive(root, "visible");
        if (!cJSON_IsBool(item))
            return data__message_fail(err, es, "a 'view' needs a field 'visible': true or false");
        m->visible = cJSON_IsTrue(item);
        return 0;
    case EDITOR_MSG_RELOAD:
    case EDITOR_MSG_COMMIT:
    case EDITOR_MSG_UNDO:
    case EDITOR_MSG_REDO:
    case EDITOR_MSG_SAVE:
    case EDITOR_MSG_PLAY:
    case EDITOR_MSG_STOP: return 0;
    }
    return CT_ERR_BAD_DATA;
}

int editor_message__decode(const char *json, size_t len, editor_message_t *m, char *err,
                           size_t err_size)
{
    memset(m, 0, sizeof *m);
    data_message_t head;
    int rc = data__message_read(json, len, kinds, NUM_KINDS, &head, err, err_size);
    if (rc)
        return rc;
    m->root = head.root;
    m->kind = (editor_kind)head.kind->kind;
    m->has_id = head.has_id;
    m->id = head.id;
    rc = decode_kind(head.root, m, err, err_size);
    if (rc) {
        if (rc == CT_ERR_NOMEM)
            snprintf(err, err_size, "out of memory for a message");
        editor_message__free(m);
        return rc;
    }
    return 0;
}

void editor_message__free(editor_message_t *m)
{
    free(m->ops);
    free(m->bases);
    free(m->set_items);
    free(m->objects);
    if (m->root)
        cJSON_Delete(m->root);
    memset(m, 0, sizeof *m);
}
