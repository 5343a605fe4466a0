/*
 * Change sets: lists of stamped operations, their text (SJSON) and binary (ct_stream.h) forms,
 * idempotent apply, merge by hybrid logical clock with every losing value reported, diff of two
 * documents, and whole documents in binary.
 */
#include "datamodel_internal.h"

#include <math.h>

#include "ct_stream.h"
#include "dm_sjson.h"

#define CS_MAGIC 0x53435443u  /* "CTCS" */
#define DOC_MAGIC 0x44435443u /* "CTCD" */
#define CS_VERSION 1u
/* Document format 1 had no stamps (every property read back as a base value, hlc 0); 2 adds
 * them. Both are read; 2 is written. */
#define DOC_VERSION 2u
#define MAX_BYTES (1u << 30)

/* ---- change sets ---- */

static ct_dm_changeset_o *create_changeset(void) { return calloc(1, sizeof(ct_dm_changeset_o)); }

static void destroy_changeset(ct_dm_changeset_o *cs)
{
    if (!cs)
        return;
    free(cs->ops);
    dm_arena__free(&cs->arena);
    free(cs);
}

static int changeset_append(ct_dm_changeset_o *cs, const ct_dm_op_t *op)
{
    if (op->stamp.hlc == 0 || !op->stamp.author || op->kind < CT_DM_OP_CREATE ||
        op->kind > CT_DM_OP_REMOVE)
        return CT_ERR_INVALID;
    bool keyed = op->kind >= CT_DM_OP_SET;
    if (keyed && (!op->key || !op->key[0] || strlen(op->key) > CT_DM_MAX_KEY))
        return CT_ERR_INVALID;
    if (!dm__grow((void **)&cs->ops, &cs->capacity, cs->count + 1, sizeof *cs->ops))
        return CT_ERR_NOMEM;
    ct_dm_op_t copy = *op;
    if (op->kind != CT_DM_OP_SET)
        copy.value = (ct_dm_value_t){0};
    if (!keyed)
        copy.key = NULL;
    /* One author string per run of ops by the same author. */
    const ct_dm_op_t *prev = cs->count ? &cs->ops[cs->count - 1] : NULL;
    copy.stamp.author = prev && strcmp(prev->stamp.author, op->stamp.author) == 0
                            ? prev->stamp.author
                            : dm_arena__strdup(&cs->arena, op->stamp.author);
    if (keyed)
        copy.key = prev && prev->key && strcmp(prev->key, op->key) == 0
                       ? prev->key
                       : dm_arena__strdup(&cs->arena, op->key);
    if (!copy.stamp.author || (keyed && !copy.key) ||
        !dm_arena__copy_value(&cs->arena, &copy.value))
        return CT_ERR_NOMEM;
    cs->ops[cs->count++] = copy;
    return 0;
}

static uint32_t changeset_count(const ct_dm_changeset_o *cs) { return cs ? cs->count : 0; }

static const ct_dm_op_t *changeset_op(const ct_dm_changeset_o *cs, uint32_t i)
{
    return cs && i < cs->count ? &cs->ops[i] : NULL;
}

/* ---- text form ---- */

void dm__put_number(data_text_t *t, double d)
{
    char buf[40];
    /* Whole numbers as such; otherwise the shortest spelling that reads back exactly. The range
     * is checked before the cast: converting a double an int64_t cannot hold (1e300, NaN) is
     * undefined behaviour, not a number that merely compares unequal. */
    int n = 0;
    if (d > -1e15 && d < 1e15 && d == (double)(int64_t)d) {
        n = snprintf(buf, sizeof buf, "%.0f", d);
        data__text_put(t, buf, (size_t)n);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        n = snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    data__text_put(t, buf, (size_t)n);
}

static void put_guid(data_text_t *t, ct_guid_t g)
{
    char gs[35];
    gs[0] = '"';
    ct_guid_format(g, gs + 1);
    gs[33] = '"';
    gs[34] = 0;
    data__text_put(t, gs, 34);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void dm__put_value(data_text_t *t, const ct_dm_value_t *v)
{
    switch (v->type) {
    case CT_DM_NULL: data__text_puts(t, "null"); break;
    case CT_DM_BOOL: data__text_puts(t, v->as.b ? "true" : "false"); break;
    case CT_DM_DOUBLE: dm__put_number(t, v->as.d); break;
    case CT_DM_VEC3:
    case CT_DM_QUAT: {
        int n = v->type == CT_DM_VEC3 ? 3 : 4;
        data__text_puts(t, n == 3 ? "{ vec3 = [" : "{ quat = [");
        for (int i = 0; i < n; i++) {
            data__text_puts(t, " ");
            dm__put_number(t, v->as.v[i]);
        }
        data__text_puts(t, " ] }");
        break;
    }
    case CT_DM_STRING: data__text_string(t, v->as.s, v->size); break;
    case CT_DM_BLOB: {
        data__text_puts(t, "{ blob = \"");
        const unsigned char *p = v->as.blob;
        for (uint32_t i = 0; i < v->size; i += 3) {
            uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < v->size ? (uint32_t)p[i + 1] << 8 : 0) |
                         (i + 2 < v->size ? p[i + 2] : 0);
            char q[4] = {b64[w >> 18], b64[(w >> 12) & 63],
                         i + 1 < v->size ? b64[(w >> 6) & 63] : '=',
                         i + 2 < v->size ? b64[w & 63] : '='};
            data__text_put(t, q, 4);
        }
        data__text_puts(t, "\" }");
        break;
    }
    case CT_DM_GUID:
        data__text_puts(t, "{ guid = ");
        put_guid(t, v->as.guid);
        data__text_puts(t, " }");
        break;
    case CT_DM_SET:
        data__text_puts(t, "{ set = [");
        for (uint32_t i = 0; i < v->size; i++) {
            data__text_puts(t, " ");
            put_guid(t, v->as.set[i]);
        }
        data__text_puts(t, " ] }");
        break;
    }
}

static const char *const op_names[] = {"", "create", "destroy", "set", "add", "remove"};

static void put_op(data_text_t *t, const ct_dm_op_t *op)
{
    data__text_puts(t, "  { op = \"");
    data__text_puts(t, op_names[op->kind]);
    data__text_puts(t, "\" object = ");
    put_guid(t, op->object);
    if (op->kind >= CT_DM_OP_SET) {
        data__text_puts(t, " key = ");
        data__text_string(t, op->key, strlen(op->key));
    }
    if (op->kind == CT_DM_OP_SET) {
        data__text_puts(t, " value = ");
        dm__put_value(t, &op->value);
    } else if (op->kind >= CT_DM_OP_ADD) {
        data__text_puts(t, " item = ");
        put_guid(t, op->item);
    }
    char at[24];
    snprintf(at, sizeof at, "%016llx ", (unsigned long long)op->stamp.hlc);
    data__text_puts(t, " at = \"");
    data__text_puts(t, at);
    size_t al = strlen(op->stamp.author);
    /* The author goes inside the quoted stamp: escape it like any string, minus the quotes. */
    data_text_t a = {0};
    data__text_string(&a, op->stamp.author, al);
    if (a.failed)
        t->failed = true;
    else
        data__text_put(t, a.s + 1, a.len - 2);
    free(a.s);
    data__text_puts(t, "\" }\n");
}

static char *changeset_to_text(const ct_dm_changeset_o *cs, size_t *len)
{
    data_text_t t = {0};
    data__text_puts(&t, "cuttle_changeset = 1\nops = [\n");
    for (uint32_t i = 0; cs && i < cs->count; i++)
        put_op(&t, &cs->ops[i]);
    data__text_puts(&t, "]\n");
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    if (len)
        *len = t.len;
    return t.s;
}

/* Reading values of the text form, shared with the clipboard (dm_copy.c). Strings and arrays go
 * into `arena`. Returns false with a message in why. */
bool dm__read_value(const dm_sjson_t *js, uint32_t n, dm_arena_t *arena, ct_dm_value_t *out,
                    const char **why)
{
    const dm_node_t *node = &js->nodes[n];
    *out = (ct_dm_value_t){0};
    switch (node->type) {
    case DM_J_NULL: return true;
    case DM_J_TRUE:
    case DM_J_FALSE:
        out->type = CT_DM_BOOL;
        out->as.b = node->type == DM_J_TRUE;
        return true;
    case DM_J_NUMBER:
        if (isnan(node->num)) {
            *why = "a number that is NaN";
            return false;
        }
        out->type = CT_DM_DOUBLE;
        out->as.d = node->num;
        return true;
    case DM_J_STRING: {
        uint32_t len;
        char *s = dm_sjson__decode(js, n, false, &len);
        char *copy = s ? dm_arena__alloc(arena, (size_t)len + 1) : NULL;
        if (!copy) {
            free(s);
            *why = "out of memory";
            return false;
        }
        memcpy(copy, s, (size_t)len + 1);
        free(s);
        out->type = CT_DM_STRING;
        out->size = len;
        out->as.s = copy;
        return true;
    }
    case DM_J_OBJECT: break;
    default: *why = "an array is not a value of the model (sets are { set = [...] })"; return false;
    }
    if (node->count != 1) {
        *why = "a typed value is { vec3 | quat | blob | guid | set = ... } with one member";
        return false;
    }
    uint32_t m = node->first;
    const dm_node_t *mv = &js->nodes[m];
    if (dm_sjson__key_is(js, m, "vec3") || dm_sjson__key_is(js, m, "quat")) {
        uint32_t want = dm_sjson__key_is(js, m, "vec3") ? 3 : 4;
        if (mv->type != DM_J_ARRAY || mv->count != want) {
            *why = want == 3 ? "vec3 needs [x y z]" : "quat needs [x y z w]";
            return false;
        }
        out->type = want == 3 ? CT_DM_VEC3 : CT_DM_QUAT;
        uint32_t i = 0;
        for (uint32_t e = mv->first; e != DM_NONE; e = js->nodes[e].next, i++) {
            if (js->nodes[e].type != DM_J_NUMBER || isnan(js->nodes[e].num)) {
                *why = "a vector's members must be numbers";
                return false;
            }
            out->as.v[i] = js->nodes[e].num;
        }
        return true;
    }
    if (dm_sjson__key_is(js, m, "guid")) {
        uint32_t len;
        char *s = mv->type == DM_J_STRING ? dm_sjson__decode(js, m, false, &len) : NULL;
        bool ok = s && ct_guid_parse(s, len, &out->as.guid);
        free(s);
        if (!ok) {
            *why = "a GUID must be 32 hex digits";
            return false;
        }
        out->type = CT_DM_GUID;
        return true;
    }
    if (dm_sjson__key_is(js, m, "set")) {
        if (mv->type != DM_J_ARRAY) {
            *why = "set needs [ \"guid\" ... ]";
            return false;
        }
        ct_guid_t *items =
            dm_arena__alloc(arena, (size_t)(mv->count ? mv->count : 1) * sizeof *items);
        if (!items) {
            *why = "out of memory";
            return false;
        }
        uint32_t i = 0;
        for (uint32_t e = mv->first; e != DM_NONE; e = js->nodes[e].next, i++) {
            uint32_t len;
            char *s =
                js->nodes[e].type == DM_J_STRING ? dm_sjson__decode(js, e, false, &len) : NULL;
            bool ok = s && ct_guid_parse(s, len, &items[i]);
            free(s);
            if (!ok) {
                *why = "a set member must be a GUID of 32 hex digits";
                return false;
            }
        }
        out->type = CT_DM_SET;
        out->size = mv->count;
        out->as.set = items;
        return true;
    }
    if (dm_sjson__key_is(js, m, "blob")) {
        uint32_t len;
        char *s = mv->type == DM_J_STRING ? dm_sjson__decode(js, m, false, &len) : NULL;
        unsigned char *bytes = s ? dm_arena__alloc(arena, len / 4 * 3 + 1) : NULL;
        bool ok = bytes && len % 4 == 0;
        uint32_t n_out = 0;
        for (uint32_t i = 0; ok && i < len; i += 4) {
            uint32_t w = 0, pad = 0;
            for (int k = 0; k < 4; k++) {
                char c = s[i + (uint32_t)k];
                const char *f = c ? strchr(b64, c) : NULL;
                if (c == '=' && i + 4 == len && k >= 2) {
                    pad++;
                    w <<= 6;
                } else if (f && !pad) {
                    w = w << 6 | (uint32_t)(f - b64);
                } else {
                    ok = false;
                }
            }
            bytes[n_out++] = (unsigned char)(w >> 16);
            if (pad < 2)
                bytes[n_out++] = (unsigned char)(w >> 8);
            if (pad < 1)
                bytes[n_out++] = (unsigned char)w;
        }
        free(s);
        if (!ok) {
            *why = "blob needs base64 text";
            return false;
        }
        out->type = CT_DM_BLOB;
        out->size = n_out;
        out->as.blob = bytes;
        return true;
    }
    *why = "a typed value is { vec3 | quat | blob | guid | set = ... }";
    return false;
}

static bool read_guid_member(const dm_sjson_t *js, uint32_t obj, const char *key, ct_guid_t *out)
{
    uint32_t m = dm_sjson__get(js, obj, key);
    if (m == DM_NONE || js->nodes[m].type != DM_J_STRING)
        return false;
    uint32_t len;
    char *s = dm_sjson__decode(js, m, false, &len);
    bool ok = s && ct_guid_parse(s, len, out);
    free(s);
    return ok;
}

static ct_dm_changeset_o *changeset_from_text(const char *text, size_t len, const char *filename,
                                              char *err, size_t err_size)
{
    char dummy[8];
    if (!err || !err_size) {
        err = dummy;
        err_size = sizeof dummy;
    }
    const char *file = filename ? filename : "<changeset>";
    dm_sjson_t js;
    ct_dm_changeset_o *cs = NULL, *tmp = NULL;
    if (!text || !dm_sjson__parse(&js, text ? text : "", text ? len : 0, file, err, err_size))
        goto out;
    uint32_t v = dm_sjson__get(&js, 0, "cuttle_changeset");
    uint32_t ops = dm_sjson__get(&js, 0, "ops");
    if (v == DM_NONE || js.nodes[v].type != DM_J_NUMBER || js.nodes[v].num != 1.0) {
        snprintf(err, err_size, "%s: not a change set of format 1 (`cuttle_changeset = 1` missing)",
                 file);
        goto out;
    }
    if (ops == DM_NONE || js.nodes[ops].type != DM_J_ARRAY) {
        snprintf(err, err_size, "%s: `ops = [ ... ]` missing", file);
        goto out;
    }
    if (!(tmp = create_changeset()))
        goto out;
    uint32_t index = 0;
    for (uint32_t o = js.nodes[ops].first; o != DM_NONE; o = js.nodes[o].next, index++) {
        char where[160];
        dm_sjson__where(&js, js.nodes[o].start, file, where, sizeof where);
        const char *why = NULL;
        ct_dm_op_t op = {0};
        char *kind = NULL, *key = NULL, *at = NULL;
        uint32_t m;
        if (js.nodes[o].type != DM_J_OBJECT) {
            why = "an op must be { op = ... }";
        } else if ((m = dm_sjson__get(&js, o, "op")) == DM_NONE ||
                   js.nodes[m].type != DM_J_STRING ||
                   !(kind = dm_sjson__decode(&js, m, false, NULL))) {
            why = "`op` (create, destroy, set, add or remove) missing";
        } else {
            for (uint32_t k = 1; k <= 5; k++)
                op.kind = strcmp(kind, op_names[k]) == 0 ? k : op.kind;
            if (!op.kind)
                why = "`op` must be create, destroy, set, add or remove";
        }
        if (!why && !read_guid_member(&js, o, "object", &op.object))
            why = "`object` must be a GUID of 32 hex digits";
        if (!why && op.kind >= CT_DM_OP_SET) {
            m = dm_sjson__get(&js, o, "key");
            if (m == DM_NONE || js.nodes[m].type != DM_J_STRING ||
                !(key = dm_sjson__decode(&js, m, false, NULL)) || !key[0] ||
                strlen(key) > CT_DM_MAX_KEY)
                why = "`key` must be a string of 1..255 bytes";
            op.key = key;
        }
        if (!why && op.kind == CT_DM_OP_SET) {
            m = dm_sjson__get(&js, o, "value");
            if (m == DM_NONE)
                why = "`value` missing";
            else
                dm__read_value(&js, m, &tmp->arena, &op.value, &why);
        }
        if (!why && op.kind >= CT_DM_OP_ADD && !read_guid_member(&js, o, "item", &op.item))
            why = "`item` must be a GUID of 32 hex digits";
        if (!why) {
            m = dm_sjson__get(&js, o, "at");
            uint32_t al = 0;
            at = m != DM_NONE && js.nodes[m].type == DM_J_STRING
                     ? dm_sjson__decode(&js, m, false, &al)
                     : NULL;
            char *end = NULL;
            if (at && al > 17 && at[16] == ' ') {
                at[16] = 0;
                op.stamp.hlc = strtoull(at, &end, 16);
            }
            if (!at || al <= 17 || end != at + 16 || op.stamp.hlc == 0)
                why = "`at` must be \"<16 hex digits of hlc, not 0> <author>\"";
            else
                op.stamp.author = at + 17;
        }
        int r = why ? 0 : changeset_append(tmp, &op);
        if (r)
            why = r == CT_ERR_NOMEM ? "out of memory" : "invalid op";
        free(kind);
        free(key);
        free(at);
        if (why) {
            snprintf(err, err_size, "%s: op %u: %s", where, index, why);
            goto out;
        }
    }
    cs = tmp;
    tmp = NULL;
out:
    destroy_changeset(tmp);
    dm_sjson__free(&js);
    return cs;
}

/* ---- binary form: one two-way function per type ---- */

static void stream_guid(ct_stream_t *s, const char *name, ct_guid_t *g)
{
    if (s->mode == CT_STREAM_DUMP) {
        char gs[33];
        ct_guid_format(*g, gs);
        ct_stream__indent(s);
        ct_stream__text(s, "%s = \"%s\"\n", name, gs);
        return;
    }
    ct_stream_u64(s, name, &g->hi);
    ct_stream_u64(s, name, &g->lo);
}

/* A NUL-terminated string: on read it is copied into the arena (the input has no NULs). */
static void stream_cstr(ct_stream_t *s, const char *name, const char **str, uint32_t max,
                        dm_arena_t *arena)
{
    const void *p = *str;
    uint32_t len = p ? (uint32_t)strlen(*str) : 0;
    ct_stream_bytes(s, name, &p, &len, max);
    if (s->mode != CT_STREAM_READ)
        return;
    if (s->failed || memchr(p, 0, len)) {
        ct_stream_fail(s, name, "a string with a NUL byte");
        *str = "";
        return;
    }
    char *copy = dm_arena__alloc(arena, (size_t)len + 1);
    if (!copy) {
        ct_stream_fail(s, name, "out of memory");
        *str = "";
        return;
    }
    memcpy(copy, p, len);
    copy[len] = 0;
    *str = copy;
}

static void stream_value(ct_stream_t *s, ct_dm_value_t *v, dm_arena_t *arena)
{
    ct_stream_u32_range(s, "type", &v->type, CT_DM_NULL, CT_DM_SET);
    switch (s->failed ? CT_DM_NULL : v->type) {
    case CT_DM_BOOL: {
        uint32_t b = v->as.b;
        ct_stream_u32_range(s, "bool", &b, 0, 1);
        v->as.b = b != 0;
        break;
    }
    case CT_DM_DOUBLE:
        ct_stream_f64(s, "double", &v->as.d);
        if (ct_stream_reading(s) && isnan(v->as.d))
            ct_stream_fail(s, "double", "NaN");
        break;
    case CT_DM_VEC3:
    case CT_DM_QUAT:
        for (int i = 0; i < (v->type == CT_DM_VEC3 ? 3 : 4); i++) {
            ct_stream_f64(s, "v", &v->as.v[i]);
            if (ct_stream_reading(s) && isnan(v->as.v[i]))
                ct_stream_fail(s, "v", "NaN");
        }
        break;
    case CT_DM_STRING: {
        const char *str = v->as.s;
        if (!ct_stream_reading(s) && !str)
            str = "";
        stream_cstr(s, "string", &str, MAX_BYTES, arena);
        v->as.s = str;
        v->size = (uint32_t)strlen(str);
        break;
    }
    case CT_DM_BLOB: {
        const void *p = v->as.blob;
        ct_stream_bytes(s, "blob", &p, &v->size, MAX_BYTES);
        if (ct_stream_reading(s) && !s->failed) {
            void *copy = dm_arena__alloc(arena, v->size ? v->size : 1);
            if (copy)
                memcpy(copy, p, v->size);
            else
                ct_stream_fail(s, "blob", "out of memory");
            p = copy;
        }
        v->as.blob = p;
        break;
    }
    case CT_DM_GUID: stream_guid(s, "guid", &v->as.guid); break;
    case CT_DM_SET: {
        size_t left = ct_stream_reading(s) ? (s->size - s->pos) / 16 : UINT32_MAX;
        ct_stream_u32_range(s, "count", &v->size, 0,
                            left > UINT32_MAX ? UINT32_MAX : (uint32_t)left);
        ct_guid_t *items = (ct_guid_t *)(uintptr_t)v->as.set;
        if (ct_stream_reading(s)) {
            items = s->failed ? NULL : dm_arena__alloc(arena, (size_t)(v->size ? v->size : 1) * 16);
            if (!items) {
                ct_stream_fail(s, "set", "out of memory");
                v->size = 0;
            }
        }
        for (uint32_t i = 0; i < v->size && !s->failed; i++)
            stream_guid(s, "item", &items[i]);
        v->as.set = items;
        break;
    }
    default: break;
    }
    if (s->failed && ct_stream_reading(s))
        *v = (ct_dm_value_t){0};
}

static void stream_op(ct_stream_t *s, ct_dm_op_t *op, dm_arena_t *arena)
{
    ct_stream_begin(s, "op");
    ct_stream_u32_range(s, "kind", &op->kind, CT_DM_OP_CREATE, CT_DM_OP_REMOVE);
    stream_guid(s, "object", &op->object);
    if (op->kind >= CT_DM_OP_SET) {
        stream_cstr(s, "key", &op->key, CT_DM_MAX_KEY, arena);
        if (ct_stream_reading(s) && !s->failed && !op->key[0])
            ct_stream_fail(s, "key", "empty");
    }
    if (op->kind == CT_DM_OP_SET)
        stream_value(s, &op->value, arena);
    if (op->kind >= CT_DM_OP_ADD)
        stream_guid(s, "item", &op->item);
    ct_stream_u64(s, "hlc", &op->stamp.hlc);
    if (ct_stream_reading(s) && !s->failed && op->stamp.hlc == 0)
        ct_stream_fail(s, "hlc", "0 is no stamp");
    stream_cstr(s, "author", &op->stamp.author, 1024, arena);
    ct_stream_end(s);
}

static void *changeset_to_binary(const ct_dm_changeset_o *cs, size_t *size)
{
    ct_stream_t s;
    ct_stream_init_write(&s, CS_VERSION);
    uint32_t magic = CS_MAGIC, version = CS_VERSION, n = cs ? cs->count : 0;
    ct_stream_u32(&s, "magic", &magic);
    ct_stream_u32(&s, "version", &version);
    ct_stream_u32(&s, "count", &n);
    for (uint32_t i = 0; i < n; i++) {
        ct_dm_op_t op = cs->ops[i];
        stream_op(&s, &op, NULL);
    }
    if (s.failed) {
        ct_stream_free(&s);
        return NULL;
    }
    if (size)
        *size = s.size;
    return s.data;
}

static ct_dm_changeset_o *changeset_from_binary(const void *data, size_t size, const char *filename,
                                                char *err, size_t err_size)
{
    const char *file = filename ? filename : "<changeset>";
    ct_dm_changeset_o *cs = create_changeset();
    if (!cs)
        return NULL;
    ct_stream_t s;
    ct_stream_init_read(&s, data, data ? size : 0, CS_VERSION);
    uint32_t magic = 0, version = 0, n = 0;
    ct_stream_u32_range(&s, "magic", &magic, CS_MAGIC, CS_MAGIC);
    ct_stream_u32_range(&s, "version", &version, 1, CS_VERSION);
    ct_stream_set_version(&s, version);
    /* Every op takes at least 33 bytes: a count beyond that is a lie. */
    ct_stream_u32_range(&s, "count", &n, 0, (uint32_t)((s.size - s.pos) / 33 + 1));
    uint32_t i = 0;
    for (; i < n && !s.failed; i++) {
        ct_dm_op_t op = {0};
        stream_op(&s, &op, &cs->arena);
        if (!s.failed && changeset_append(cs, &op) != 0)
            ct_stream_fail(&s, "op", "out of memory");
    }
    if (!s.failed && s.pos != s.size)
        ct_stream_fail(&s, "end", "%zu bytes after the last op", s.size - s.pos);
    if (s.failed) {
        if (err && err_size)
            snprintf(err, err_size, "%s: op %u: %s", file, i ? i - 1 : 0, s.error);
        destroy_changeset(cs);
        return NULL;
    }
    return cs;
}

/* ---- apply and merge ---- */

bool dm__seen_has(const ct_dm_doc_o *doc, uint32_t author, uint64_t hlc)
{
    if (author >= doc->num_seen)
        return false;
    const dm_seen_t *s = &doc->seen[author];
    if (!s->count || hlc > s->hlc[s->count - 1])
        return false;
    uint32_t lo = 0, hi = s->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->hlc[mid] < hlc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->count && s->hlc[lo] == hlc;
}

bool dm__seen_add(ct_dm_doc_o *doc, uint32_t author, uint64_t hlc)
{
    if (author >= doc->num_seen) {
        uint32_t n = doc->authors.count;
        dm_seen_t *g = realloc(doc->seen, (size_t)n * sizeof *g);
        if (!g)
            return false;
        memset(g + doc->num_seen, 0, (size_t)(n - doc->num_seen) * sizeof *g);
        doc->seen = g;
        doc->num_seen = n;
    }
    dm_seen_t *s = &doc->seen[author];
    if (!dm__grow((void **)&s->hlc, &s->capacity, s->count + 1, sizeof *s->hlc))
        return false;
    uint32_t at = s->count;
    while (at > 0 && s->hlc[at - 1] > hlc)
        at--;
    if (at > 0 && s->hlc[at - 1] == hlc)
        return true;
    memmove(s->hlc + at + 1, s->hlc + at, (size_t)(s->count - at) * sizeof *s->hlc);
    s->hlc[at] = hlc;
    s->count++;
    return true;
}

static int op_cmp(const ct_dm_op_t *x, const ct_dm_op_t *y)
{
    if (x->stamp.hlc != y->stamp.hlc)
        return x->stamp.hlc < y->stamp.hlc ? -1 : 1;
    return x->stamp.author == y->stamp.author ? 0 : strcmp(x->stamp.author, y->stamp.author);
}

/* Stable natural merge sort of op pointers by stamp. Change sets are runs already sorted (one
 * author's clock only grows): the runs are found in one pass and merged pairwise, log2(runs)
 * passes, not log2(ops); and the stamps are sorted beside the pointers, so a comparison reads
 * two adjacent words, not two ops scattered over the change sets. */
typedef struct dm_sort_t {
    uint64_t hlc;
    const ct_dm_op_t *op;
} dm_sort_t;

static bool sort_before(const dm_sort_t *x, const dm_sort_t *y) /* strictly */
{
    return x->hlc != y->hlc ? x->hlc < y->hlc : op_cmp(x->op, y->op) < 0;
}

static bool sort_ops(const ct_dm_op_t **ops, uint32_t n)
{
    dm_sort_t *a = malloc((size_t)(n ? n : 1) * 2 * sizeof *a), *b = a ? a + n : NULL;
    uint32_t *runs = malloc(((size_t)n + 2) * sizeof *runs); /* run starts, then n */
    if (!a || !runs) {
        free(a);
        free(runs);
        return false;
    }
    uint32_t num = 0;
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (dm_sort_t){ops[i]->stamp.hlc, ops[i]};
        if (i == 0 || sort_before(&a[i], &a[i - 1]))
            runs[num++] = i;
    }
    runs[num] = n;
    while (num > 1) {
        uint32_t out = 0;
        for (uint32_t r = 0; r < num; r += 2) {
            uint32_t lo = runs[r], mid = runs[r + 1], hi = r + 2 <= num ? runs[r + 2] : n;
            if (r + 1 >= num)
                mid = hi = n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = sort_before(&a[j], &a[i]) ? a[j++] : a[i++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
            runs[out++] = lo;
        }
        runs[out] = n;
        num = out;
        dm_sort_t *t = a;
        a = b;
        b = t;
    }
    for (uint32_t i = 0; i < n; i++)
        ops[i] = a[i].op;
    free(a < b ? a : b);
    free(runs);
    return true;
}

static bool add_conflict(ct_dm_doc_o *doc, const ct_dm_op_t *op, ct_dm_value_t winner,
                         ct_dm_stamp_t winner_stamp, ct_dm_value_t loser, ct_dm_stamp_t loser_stamp,
                         bool deleted)
{
    if (!dm__grow((void **)&doc->conflicts, &doc->cap_conflicts, doc->num_conflicts + 1,
                  sizeof *doc->conflicts))
        return false;
    dm_arena_t *a = &doc->report_arena;
    ct_dm_conflict_t c = {.object = op->object,
                          .winner = winner,
                          .loser = loser,
                          .winner_stamp = winner_stamp,
                          .loser_stamp = loser_stamp,
                          .deleted = deleted};
    c.key = op->key ? dm_arena__strdup(a, op->key) : NULL;
    c.winner_stamp.author = dm_arena__strdup(a, winner_stamp.author);
    c.loser_stamp.author = dm_arena__strdup(a, loser_stamp.author);
    if (!c.winner_stamp.author || !c.loser_stamp.author || !dm_arena__copy_value(a, &c.winner) ||
        !dm_arena__copy_value(a, &c.loser))
        return false;
    doc->conflicts[doc->num_conflicts++] = c;
    return true;
}

/* Change sets keep one string per run of ops (changeset_append), and nothing changes them during a
 * merge: a merge caches the ids of author names and keys by their address, so a run of ops
 * alternating between two sets neither hashes nor compares a string. */
typedef struct dm_ptr_id_t {
    const char *s;
    uint32_t id;
} dm_ptr_id_t;

#define DM_PTR_CACHE 64u

static uint32_t ptr_slot(const char *s)
{
    return (uint32_t)(((uintptr_t)s >> 4) * 0x9e3779b1u) >> 26; /* 64 slots */
}

static uint32_t cached_author(ct_dm_doc_o *doc, dm_ptr_id_t *cache, const char *name)
{
    dm_ptr_id_t *c = &cache[ptr_slot(name)];
    if (c->s != name) {
        uint32_t id = dm__author(doc, name);
        if (id == DM_NONE)
            return DM_NONE;
        *c = (dm_ptr_id_t){name, id};
    }
    return c->id;
}

static uint32_t cached_key(ct_dm_doc_o *doc, dm_ptr_id_t *cache, const char *key)
{
    dm_ptr_id_t *c = &cache[ptr_slot(key)];
    if (c->s == key) {
        doc->keys.last = c->id; /* so the op's own intern of this key skips the hash too */
        return c->id;
    }
    uint32_t id = dm_strings__find(&doc->keys, key, strlen(key));
    if (id != DM_NONE) /* a key not yet known may be interned by this very op: not cached */
        *c = (dm_ptr_id_t){key, id};
    return id;
}

static int merge(ct_dm_doc_o *doc, const ct_dm_changeset_o *const *sets, uint32_t num_sets,
                 ct_dm_merge_report_t *report)
{
    if (report)
        *report = (ct_dm_merge_report_t){0};
    doc->num_conflicts = 0;
    dm_arena__free(&doc->report_arena);
    uint64_t total = 0;
    for (uint32_t i = 0; i < num_sets; i++)
        total += sets[i] ? sets[i]->count : 0;
    if (total > UINT32_MAX / 2) {
        dm__error(doc, "merge: too many ops");
        return CT_ERR_INVALID;
    }
    const ct_dm_op_t **ops = malloc((size_t)(total ? total : 1) * sizeof *ops);
    uint64_t *ids = malloc((size_t)(total ? total : 1) * 2 * sizeof *ids);
    if (!ops || !ids) {
        free(ops);
        free(ids);
        dm__error(doc, "merge: out of memory");
        return CT_ERR_NOMEM;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < num_sets; i++)
        for (uint32_t j = 0; sets[i] && j < sets[i]->count; j++)
            ops[n++] = &sets[i]->ops[j];
    int r = sort_ops(ops, n) ? 0 : CT_ERR_NOMEM;
    /* Nearly every op leaves one inverse: room for them all at once, not a doubling per op. */
    if (r == 0 && !dm__log_reserve(&doc->txn, n))
        r = CT_ERR_NOMEM;
    dm_ptr_id_t authors[DM_PTR_CACHE] = {{0}}, keys[DM_PTR_CACHE] = {{0}};
    uint32_t applied = 0, already = 0, num_ids = 0, txn_from = doc->txn.count, failed_at = 0;
    doc->log = &doc->txn;
    for (uint32_t i = 0; i < n && r == 0; i++) {
        const ct_dm_op_t *op = ops[i];
        uint32_t author = cached_author(doc, authors, op->stamp.author);
        if (author == DM_NONE) {
            r = CT_ERR_NOMEM;
            break;
        }
        /* Already applied: an op id seen before (in an earlier merge, or just now: duplicates
         * sort next to each other), or this document's own op coming back. */
        bool own = author == doc->me && op->stamp.hlc >= doc->local_first &&
                   op->stamp.hlc <= doc->local_last;
        if (own || (i > 0 && op_cmp(ops[i - 1], op) == 0) ||
            dm__seen_has(doc, author, op->stamp.hlc)) {
            already++;
            continue;
        }
        dm_stamp_t stamp = {op->stamp.hlc, author};
        if (stamp.hlc > doc->hlc)
            doc->hlc = stamp.hlc;
        /* The value this op competes with, before it runs. */
        const dm_prop_t *prev = NULL;
        uint32_t o = dm__find_obj(doc, op->object);
        if (op->kind == CT_DM_OP_SET && o != DM_NONE && doc->objs[o].alive) {
            uint32_t k = cached_key(doc, keys, op->key);
            uint32_t p = k == DM_NONE ? DM_NONE : dm__find_prop(doc, o, k);
            prev = p == DM_NONE ? NULL : &doc->props[p];
        }
        ct_dm_value_t prev_value = {0};
        dm_stamp_t prev_stamp = {0};
        bool contest = prev && prev->stamp.hlc != 0 && prev->stamp.author != author;
        if (contest) {
            prev_value = dm__view(&prev->value);
            prev_stamp = prev->stamp;
            /* Copy now: applying the op frees the old value. */
            contest = !dm__values_equal(&prev_value, &op->value);
            if (contest && !dm_arena__copy_value(&doc->report_arena, &prev_value))
                r = CT_ERR_NOMEM;
        }
        int a = r ? r : dm__apply(doc, op, stamp, CT_DM_FROM_REMOTE);
        ct_dm_stamp_t ps = {prev_stamp.hlc, doc->authors.strs[prev_stamp.author]};
        if (a == 0) {
            applied++;
            if (contest)
                add_conflict(doc, op, op->value, op->stamp, prev_value, ps, false);
        } else if (a == 1) {
            already++;
            if (contest)
                add_conflict(doc, op, prev_value, ps, op->value, op->stamp, false);
        } else if (a == 2) {
            const dm_obj_t *ob = &doc->objs[o];
            add_conflict(doc, op, (ct_dm_value_t){0},
                         (ct_dm_stamp_t){ob->stamp.hlc, doc->authors.strs[ob->stamp.author]},
                         op->value, op->stamp, true);
        } else {
            r = a;
            failed_at = i;
            break;
        }
        ids[2 * num_ids] = stamp.hlc;
        ids[2 * num_ids + 1] = author;
        num_ids++;
    }
    if (r) {
        char msg[sizeof doc->error];
        snprintf(msg, sizeof msg, "%s", doc->error);
        dm__rollback(doc, &doc->txn, txn_from);
        doc->num_conflicts = 0;
        dm__error(doc, "merge: op %u (stamp %016llx %s): %s", failed_at,
                  n ? (unsigned long long)ops[failed_at]->stamp.hlc : 0ull,
                  n ? ops[failed_at]->stamp.author : "", msg);
    } else {
        dm__log_clear(&doc->txn, txn_from);
        for (uint32_t i = 0; i < num_ids; i++)
            dm__seen_add(doc, (uint32_t)ids[2 * i + 1], ids[2 * i]);
        if (report)
            *report = (ct_dm_merge_report_t){applied, already, doc->num_conflicts, doc->conflicts};
    }
    doc->log = NULL;
    free(ops);
    free(ids);
    return r;
}

static int apply(ct_dm_doc_o *doc, const ct_dm_changeset_o *cs, ct_dm_merge_report_t *report)
{
    return merge(doc, &cs, 1, report);
}

/* ---- diff ---- */

static const dm_prop_t *prop_of(ct_dm_doc_o *doc, uint32_t obj, const char *key)
{
    uint32_t k = dm_strings__find(&doc->keys, key, strlen(key));
    uint32_t p = k == DM_NONE ? DM_NONE : dm__find_prop(doc, obj, k);
    return p == DM_NONE || doc->props[p].value.type == CT_DM_NULL ? NULL : &doc->props[p];
}

static ct_dm_changeset_o *diff(ct_dm_doc_o *from, ct_dm_doc_o *to, ct_dm_stamp_t stamp)
{
    ct_dm_changeset_o *cs = create_changeset();
    if (!cs)
        return NULL;
    ct_dm_op_t op = {.stamp = stamp};
    if (!op.stamp.author)
        op.stamp.author = "diff";
    if (!op.stamp.hlc)
        op.stamp.hlc = 1;
    int r = 0;
#define EMIT()                                                                                     \
    do {                                                                                           \
        r = r ? r : changeset_append(cs, &op);                                                     \
        op.stamp.hlc++;                                                                            \
    } while (0)
    /* Creations first (so later ops may name the new objects), then properties, then
     * destructions. */
    for (uint32_t o = 1; o < to->num_objs; o++) {
        uint32_t f = dm__find_obj(from, to->objs[o].guid);
        if (to->objs[o].alive && (f == DM_NONE || !from->objs[f].alive)) {
            op.kind = CT_DM_OP_CREATE;
            op.object = to->objs[o].guid;
            EMIT();
        }
    }
    for (uint32_t o = 0; o < to->num_objs && r == 0; o++) {
        if (!to->objs[o].alive)
            continue;
        ct_guid_t g = to->objs[o].guid;
        uint32_t f = dm__find_obj(from, g);
        bool fresh = f == DM_NONE || !from->objs[f].alive;
        op.object = g;
        for (uint32_t p = to->objs[o].first_prop; p != DM_NONE; p = to->props[p].next) {
            const dm_prop_t *tp = &to->props[p];
            if (tp->value.type == CT_DM_NULL)
                continue;
            op.key = to->keys.strs[tp->key];
            const dm_prop_t *fp = fresh ? NULL : prop_of(from, f, op.key);
            ct_dm_value_t tv = dm__view(&tp->value);
            ct_dm_value_t fv = fp ? dm__view(&fp->value) : (ct_dm_value_t){0};
            if (fp && tv.type == CT_DM_SET && fv.type == CT_DM_SET) {
                /* Sets merge by member: adds and removes, never a whole new value. */
                for (uint32_t i = 0; i < tv.size; i++) {
                    uint32_t j = 0;
                    while (j < fv.size && !ct_guid_eq(fv.as.set[j], tv.as.set[i]))
                        j++;
                    if (j == fv.size) {
                        op.kind = CT_DM_OP_ADD;
                        op.item = tv.as.set[i];
                        EMIT();
                    }
                }
                for (uint32_t j = 0; j < fv.size; j++) {
                    uint32_t i = 0;
                    while (i < tv.size && !ct_guid_eq(fv.as.set[j], tv.as.set[i]))
                        i++;
                    if (i == tv.size) {
                        op.kind = CT_DM_OP_REMOVE;
                        op.item = fv.as.set[j];
                        EMIT();
                    }
                }
                continue;
            }
            if (fp && dm__values_equal(&tv, &fv))
                continue;
            op.kind = CT_DM_OP_SET;
            op.value = tv;
            EMIT();
        }
        if (fresh)
            continue;
        for (uint32_t p = from->objs[f].first_prop; p != DM_NONE; p = from->props[p].next) {
            const dm_prop_t *fp = &from->props[p];
            if (fp->value.type == CT_DM_NULL || prop_of(to, o, from->keys.strs[fp->key]))
                continue;
            op.kind = CT_DM_OP_SET;
            op.key = from->keys.strs[fp->key];
            op.value = (ct_dm_value_t){0};
            EMIT();
        }
    }
    op.key = NULL;
    op.value = (ct_dm_value_t){0};
    for (uint32_t f = 1; f < from->num_objs && r == 0; f++) {
        uint32_t o = dm__find_obj(to, from->objs[f].guid);
        if (from->objs[f].alive && (o == DM_NONE || !to->objs[o].alive)) {
            op.kind = CT_DM_OP_DESTROY;
            op.object = from->objs[f].guid;
            EMIT();
        }
    }
#undef EMIT
    if (r) {
        destroy_changeset(cs);
        return NULL;
    }
    return cs;
}

/* ---- whole documents in binary ---- */

static void *doc_to_binary(ct_dm_doc_o *doc, size_t *size)
{
    ct_stream_t s;
    ct_stream_init_write(&s, DOC_VERSION);
    uint32_t magic = DOC_MAGIC, version = DOC_VERSION;
    ct_stream_u32(&s, "magic", &magic);
    ct_stream_u32(&s, "version", &version);
    ct_stream_u32(&s, "objects", &doc->num_objs);
    for (uint32_t o = 0; o < doc->num_objs; o++) {
        dm_obj_t *ob = &doc->objs[o];
        stream_guid(&s, "guid", &ob->guid);
        uint32_t alive = ob->alive, n = 0;
        ct_stream_u32(&s, "alive", &alive);
        uint64_t hlc = ob->stamp.hlc;
        ct_stream_u64(&s, "hlc", &hlc);
        const char *author = doc->authors.strs[ob->stamp.author];
        stream_cstr(&s, "author", &author, 1024, NULL);
        for (uint32_t p = ob->first_prop; p != DM_NONE; p = doc->props[p].next)
            n++;
        ct_stream_u32(&s, "properties", &n);
        for (uint32_t p = ob->first_prop; p != DM_NONE; p = doc->props[p].next) {
            dm_prop_t *pr = &doc->props[p];
            const char *key = doc->keys.strs[pr->key];
            stream_cstr(&s, "key", &key, CT_DM_MAX_KEY, NULL);
            ct_dm_value_t v = dm__view(&pr->value);
            stream_value(&s, &v, NULL);
            if (ct_stream_since(&s, 2)) {
                uint64_t phlc = pr->stamp.hlc;
                ct_stream_u64(&s, "hlc", &phlc);
                const char *pa = doc->authors.strs[pr->stamp.author];
                stream_cstr(&s, "author", &pa, 1024, NULL);
            }
        }
    }
    if (s.failed) {
        ct_stream_free(&s);
        return NULL;
    }
    if (size)
        *size = s.size;
    return s.data;
}

static ct_dm_doc_o *doc_from_binary(const void *data, size_t size, const ct_dm_doc_desc_t *desc,
                                    const char *filename, char *err, size_t err_size)
{
    const char *file = filename ? filename : "<document>";
    ct_dm_doc_o *doc = dm__create_doc(desc);
    if (!doc)
        return NULL;
    dm_arena_t arena = {0};
    ct_stream_t s;
    ct_stream_init_read(&s, data, data ? size : 0, DOC_VERSION);
    uint32_t magic = 0, version = 0, n = 0, o = 0;
    ct_stream_u32_range(&s, "magic", &magic, DOC_MAGIC, DOC_MAGIC);
    ct_stream_u32_range(&s, "version", &version, 1, DOC_VERSION);
    ct_stream_set_version(&s, version);
    ct_stream_u32_range(&s, "objects", &n, 1, (uint32_t)((s.size - s.pos) / 28 + 1));
    for (; o < n && !s.failed; o++) {
        ct_guid_t g = {0};
        uint32_t alive = 0, np = 0;
        ct_dm_stamp_t os = {0};
        stream_guid(&s, "guid", &g);
        ct_stream_u32_range(&s, "alive", &alive, 0, 1);
        ct_stream_u64(&s, "hlc", &os.hlc);
        stream_cstr(&s, "author", &os.author, 1024, &arena);
        if (!s.failed && o == 0 && (!ct_guid_is_root(g) || !alive))
            ct_stream_fail(&s, "guid", "the first object must be the live root");
        if (!s.failed && o > 0 && (ct_guid_is_root(g) || dm__find_obj(doc, g) != DM_NONE))
            ct_stream_fail(&s, "guid", "a GUID listed twice");
        uint32_t author = s.failed ? 0 : dm__author(doc, os.author);
        if (!s.failed && o == 0)
            doc->objs[0].stamp = (dm_stamp_t){os.hlc, author};
        if (!s.failed && o > 0) {
            doc->log = NULL;
            dm_stamp_t st = {os.hlc, author};
            ct_dm_op_t op = {.kind = CT_DM_OP_CREATE, .object = g};
            if (author == DM_NONE || dm__apply(doc, &op, st, CT_DM_FROM_LOCAL) != 0)
                ct_stream_fail(&s, "guid", "out of memory");
        }
        ct_stream_u32_range(&s, "properties", &np, 0, (uint32_t)((s.size - s.pos) / 8 + 1));
        for (uint32_t p = 0; p < np && !s.failed; p++) {
            const char *key = "";
            ct_dm_value_t v = {0};
            ct_dm_stamp_t ps = {0, ""};
            stream_cstr(&s, "key", &key, CT_DM_MAX_KEY, &arena);
            stream_value(&s, &v, &arena);
            if (ct_stream_since(&s, 2)) {
                ct_stream_u64(&s, "hlc", &ps.hlc);
                stream_cstr(&s, "author", &ps.author, 1024, &arena);
            }
            if (s.failed)
                break;
            uint32_t pa = dm__author(doc, ps.author);
            ct_dm_op_t op = {.kind = CT_DM_OP_SET, .object = g, .key = key, .value = v};
            int r = pa == DM_NONE ? CT_ERR_NOMEM
                                  : dm__apply(doc, &op, (dm_stamp_t){ps.hlc, pa}, CT_DM_FROM_LOCAL);
            if (r)
                ct_stream_fail(&s, "key", "%s", doc->error);
        }
        if (!s.failed && o > 0 && !alive) {
            ct_dm_op_t op = {.kind = CT_DM_OP_DESTROY, .object = g};
            dm__apply(doc, &op, (dm_stamp_t){os.hlc, author}, CT_DM_FROM_LOCAL);
        }
    }
    if (!s.failed && s.pos != s.size)
        ct_stream_fail(&s, "end", "%zu bytes after the last object", s.size - s.pos);
    dm_arena__free(&arena);
    if (s.failed) {
        if (err && err_size)
            snprintf(err, err_size, "%s: object %u: %s", file, o ? o - 1 : 0, s.error);
        dm__destroy_doc(doc);
        return NULL;
    }
    for (uint32_t i = 0; i < doc->num_props; i++)
        if (doc->props[i].stamp.hlc > doc->hlc)
            doc->hlc = doc->props[i].stamp.hlc;
    return doc;
}

static void free_text(char *text) { free(text); }

void dm_changeset__fill(ct_datamodel_api_v1 *api)
{
    api->create_changeset = create_changeset;
    api->destroy_changeset = destroy_changeset;
    api->changeset_append = changeset_append;
    api->changeset_count = changeset_count;
    api->changeset_op = changeset_op;
    api->changeset_to_text = changeset_to_text;
    api->changeset_from_text = changeset_from_text;
    api->changeset_to_binary = changeset_to_binary;
    api->changeset_from_binary = changeset_from_binary;
    api->diff = diff;
    api->apply = apply;
    api->merge = merge;
    api->doc_to_binary = doc_to_binary;
    api->doc_from_binary = doc_from_binary;
    api->free_text = free_text;
}
