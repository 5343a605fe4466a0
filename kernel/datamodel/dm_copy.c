/*
 * Copy and paste (seed: "Universal Undo, Copy and Paste"). Copy gathers the chosen objects and
 * everything they reference (a visited set, breadth first) and writes them as clipboard text:
 *
 *     cuttle_clipboard = 1
 *     copied = [ "<guid>" ... ]                      the roots, in the order given
 *     objects = [
 *       { id = "<guid>" properties = { "name" = "crate" "position" = { vec3 = [0 1 0] } } }
 *     ]
 *
 * Values are the change-set text form. Paste reads the text, gives every object a new GUID,
 * translates every reference to a copied object (references to anything else are kept), and adds
 * the objects as local ops in one batch: all or nothing, one undo.
 */
#include "datamodel_internal.h"

#include "dm_sjson.h"

static void put_guid_text(data_text_t *t, ct_guid_t g)
{
    char gs[33];
    ct_guid_format(g, gs);
    data__text_puts(t, "\"");
    data__text_puts(t, gs);
    data__text_puts(t, "\"");
}

static char *copy(ct_dm_doc_o *doc, const ct_guid_t *roots, uint32_t num_roots, size_t *len)
{
    char gs[33];
    dm_map_t seen = {0};
    uint32_t *queue = malloc((size_t)(doc->num_objs + 1) * sizeof *queue);
    uint32_t head = 0, tail = 0;
    data_text_t t = {0};
    if (!queue)
        goto nomem;
    for (uint32_t i = 0; i < num_roots; i++) {
        uint32_t o = dm__find_obj(doc, roots[i]);
        if (o == DM_NONE || !doc->objs[o].alive || o == 0) {
            dm__format_guid(roots[i], gs);
            dm__error(doc, "copy %s: %s", gs,
                      o == 0 ? "the root cannot be copied" : "the object does not exist");
            free(queue);
            return NULL;
        }
        if (dm_map__get(&seen, o, 0) == DM_NONE) {
            if (!dm_map__put(&seen, o, 0, 1))
                goto nomem;
            queue[tail++] = o;
        }
    }
    data__text_puts(&t, "cuttle_clipboard = 1\ncopied = [");
    for (uint32_t i = 0; i < num_roots; i++) {
        data__text_puts(&t, " ");
        put_guid_text(&t, roots[i]);
    }
    data__text_puts(&t, " ]\nobjects = [\n");
    while (head < tail) {
        uint32_t o = queue[head++];
        data__text_puts(&t, "  { id = ");
        put_guid_text(&t, doc->objs[o].guid);
        data__text_puts(&t, " properties = {");
        for (uint32_t p = doc->objs[o].first_prop; p != DM_NONE; p = doc->props[p].next) {
            const dm_prop_t *pr = &doc->props[p];
            if (pr->value.type == CT_DM_NULL)
                continue;
            const char *key = doc->keys.strs[pr->key];
            data__text_puts(&t, " ");
            data__text_string(&t, key, strlen(key));
            data__text_puts(&t, " = ");
            ct_dm_value_t v = dm__view(&pr->value);
            dm__put_value(&t, &v);
            /* Everything referenced comes along, except the root (which every document has). */
            uint32_t n = v.type == CT_DM_GUID ? 1 : v.type == CT_DM_SET ? v.size : 0;
            for (uint32_t i = 0; i < n; i++) {
                ct_guid_t g = v.type == CT_DM_GUID ? v.as.guid : v.as.set[i];
                uint32_t r = dm__find_obj(doc, g);
                if (r == DM_NONE || r == 0 || !doc->objs[r].alive ||
                    dm_map__get(&seen, r, 0) != DM_NONE)
                    continue;
                if (!dm_map__put(&seen, r, 0, 1))
                    goto nomem;
                queue[tail++] = r;
            }
        }
        data__text_puts(&t, " } }\n");
    }
    data__text_puts(&t, "]\n");
    if (t.failed)
        goto nomem;
    free(queue);
    dm_map__free(&seen);
    if (len)
        *len = t.len;
    return t.s;
nomem:
    free(queue);
    free(t.s);
    dm_map__free(&seen);
    dm__error(doc, "copy: out of memory");
    return NULL;
}

static bool parse_guid_node(const dm_sjson_t *js, uint32_t n, ct_guid_t *out)
{
    if (n == DM_NONE || js->nodes[n].type != DM_J_STRING)
        return false;
    uint32_t len;
    char *s = dm_sjson__decode(js, n, false, &len);
    bool ok = s && ct_guid_parse(s, len, out);
    free(s);
    return ok;
}

static int paste(ct_dm_doc_o *doc, const char *text, size_t len, ct_guid_t *new_roots, uint32_t max,
                 uint32_t *num_roots)
{
    char err[300], where[160];
    dm_sjson_t js;
    dm_arena_t arena = {0};
    dm_map_t renamed = {0};
    ct_guid_t *fresh = NULL;
    ct_dm_op_t *ops = NULL;
    uint32_t num_ops = 0, cap_ops = 0;
    int r = CT_ERR_BAD_DATA;
    if (num_roots)
        *num_roots = 0;
    if (!text || !dm_sjson__parse(&js, text, len, "clipboard", err, sizeof err)) {
        dm__error(doc, "paste: %s", text ? err : "no text");
        if (text)
            dm_sjson__free(&js);
        return CT_ERR_BAD_DATA;
    }
    uint32_t ver = dm_sjson__get(&js, 0, "cuttle_clipboard");
    uint32_t copied = dm_sjson__get(&js, 0, "copied");
    uint32_t objects = dm_sjson__get(&js, 0, "objects");
    if (ver == DM_NONE || js.nodes[ver].type != DM_J_NUMBER || js.nodes[ver].num != 1.0 ||
        copied == DM_NONE || js.nodes[copied].type != DM_J_ARRAY || objects == DM_NONE ||
        js.nodes[objects].type != DM_J_ARRAY) {
        dm__error(
            doc,
            "paste: clipboard: not clipboard text of format 1 (cuttle_clipboard, copied, objects)");
        goto out;
    }
    uint32_t n = js.nodes[objects].count;
    fresh = malloc((size_t)(n ? n : 1) * sizeof *fresh);
    if (!fresh)
        goto nomem;
    /* First pass: every object's new GUID. */
    uint32_t i = 0;
    for (uint32_t o = js.nodes[objects].first; o != DM_NONE; o = js.nodes[o].next, i++) {
        ct_guid_t old;
        dm_sjson__where(&js, js.nodes[o].start, "clipboard", where, sizeof where);
        if (js.nodes[o].type != DM_J_OBJECT ||
            !parse_guid_node(&js, dm_sjson__get(&js, o, "id"), &old) || ct_guid_is_root(old)) {
            dm__error(doc, "paste: %s: object %u: `id` must be a GUID of 32 hex digits, not 0",
                      where, i);
            goto out;
        }
        if (dm_map__get(&renamed, old.hi, old.lo) != DM_NONE) {
            dm__error(doc, "paste: %s: object %u: its id is listed twice", where, i);
            goto out;
        }
        fresh[i] = dm__random_guid(doc);
        if (!dm_map__put(&renamed, old.hi, old.lo, i))
            goto nomem;
    }
    /* Second pass: the ops, references translated. */
    i = 0;
    for (uint32_t o = js.nodes[objects].first; o != DM_NONE; o = js.nodes[o].next, i++) {
        uint32_t props = dm_sjson__get(&js, o, "properties");
        uint32_t count = props == DM_NONE ? 0 : js.nodes[props].count;
        if (!dm__grow((void **)&ops, &cap_ops, num_ops + 1 + count, sizeof *ops))
            goto nomem;
        ops[num_ops++] = (ct_dm_op_t){.kind = CT_DM_OP_CREATE, .object = fresh[i]};
        if (props == DM_NONE)
            continue;
        if (js.nodes[props].type != DM_J_OBJECT) {
            dm_sjson__where(&js, js.nodes[props].start, "clipboard", where, sizeof where);
            dm__error(doc, "paste: %s: object %u: `properties` must be an object", where, i);
            goto out;
        }
        for (uint32_t m = js.nodes[props].first; m != DM_NONE; m = js.nodes[m].next) {
            ct_dm_op_t op = {.kind = CT_DM_OP_SET, .object = fresh[i]};
            const char *why = NULL;
            uint32_t klen;
            char *key = dm_sjson__decode(&js, m, true, &klen);
            char *kcopy = key ? dm_arena__alloc(&arena, (size_t)klen + 1) : NULL;
            if (kcopy)
                memcpy(kcopy, key, (size_t)klen + 1);
            free(key);
            if (!kcopy)
                goto nomem;
            op.key = kcopy;
            if (!dm__read_value(&js, m, &arena, &op.value, &why)) {
                dm_sjson__where(&js, js.nodes[m].start, "clipboard", where, sizeof where);
                dm__error(doc, "paste: %s: object %u '%s': %s", where, i, kcopy, why);
                goto out;
            }
            uint32_t j;
            if (op.value.type == CT_DM_GUID &&
                (j = dm_map__get(&renamed, op.value.as.guid.hi, op.value.as.guid.lo)) != DM_NONE)
                op.value.as.guid = fresh[j];
            if (op.value.type == CT_DM_SET) {
                ct_guid_t *items = (ct_guid_t *)(uintptr_t)op.value.as.set;
                for (uint32_t k = 0; k < op.value.size; k++)
                    if ((j = dm_map__get(&renamed, items[k].hi, items[k].lo)) != DM_NONE)
                        items[k] = fresh[j];
            }
            ops[num_ops++] = op;
        }
    }
    /* The roots, translated. */
    uint32_t nr = 0;
    for (uint32_t c = js.nodes[copied].first; c != DM_NONE; c = js.nodes[c].next, nr++) {
        ct_guid_t old;
        uint32_t j;
        if (!parse_guid_node(&js, c, &old) ||
            (j = dm_map__get(&renamed, old.hi, old.lo)) == DM_NONE) {
            dm_sjson__where(&js, js.nodes[c].start, "clipboard", where, sizeof where);
            dm__error(doc, "paste: %s: copied root %u is not one of the objects", where, nr);
            goto out;
        }
        if (nr < max && new_roots)
            new_roots[nr] = fresh[j];
    }
    uint32_t failed;
    r = dm_doc__apply_ops(doc, ops, num_ops, &failed);
    if (r == 0 && num_roots)
        *num_roots = nr;
    goto out;
nomem:
    r = CT_ERR_NOMEM;
    dm__error(doc, "paste: out of memory");
out:
    free(ops);
    free(fresh);
    dm_map__free(&renamed);
    dm_arena__free(&arena);
    dm_sjson__free(&js);
    return r;
}

void dm_copy__fill(ct_datamodel_api_v1 *api)
{
    api->copy = copy;
    api->paste = paste;
}
