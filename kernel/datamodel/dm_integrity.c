/*
 * Integrity (seed: "Universal Undo, Copy and Paste"): every GUID used names an object (dangling
 * references), every object is reachable from the root (orphans), and object replacement (every
 * reference to A becomes B) as ordinary recorded operations, so one undo reverses it.
 */
#include "datamodel_internal.h"

static bool add_issue(ct_dm_doc_o *doc, ct_dm_issue_t issue)
{
    if (!dm__grow((void **)&doc->issues, &doc->cap_issues, doc->num_issues + 1,
                  sizeof *doc->issues))
        return false;
    doc->issues[doc->num_issues++] = issue;
    return true;
}

/* Visits a reference from object `from`'s property: queues the target or reports it. */
static void follow(ct_dm_doc_o *doc, uint32_t from, uint32_t key, ct_guid_t target, uint8_t *seen,
                   uint32_t *queue, uint32_t *tail)
{
    uint32_t t = dm__find_obj(doc, target);
    if (t == DM_NONE || !doc->objs[t].alive) {
        add_issue(doc, (ct_dm_issue_t){CT_DM_ISSUE_DANGLING, doc->objs[from].guid,
                                       doc->keys.strs[key], target});
        return;
    }
    if (!seen[t]) {
        seen[t] = 1;
        queue[(*tail)++] = t;
    }
}

uint32_t dm_integrity__check(ct_dm_doc_o *doc, const ct_dm_issue_t **issues)
{
    doc->num_issues = 0;
    *issues = NULL;
    uint8_t *seen = calloc(doc->num_objs, 1);
    uint32_t *queue = malloc((size_t)doc->num_objs * sizeof *queue);
    if (!seen || !queue) {
        free(seen);
        free(queue);
        dm__error(doc, "check: out of memory");
        return 0;
    }
    /* Breadth first from the root; dangling references are found on the way, so an unreachable
     * object's own dangling references are listed in a second walk below. */
    uint32_t head = 0, tail = 0;
    seen[0] = 1;
    queue[tail++] = 0;
    for (int pass = 0; pass < 2; pass++) {
        while (head < tail) {
            uint32_t o = queue[head++];
            for (uint32_t p = doc->objs[o].first_prop; p != DM_NONE; p = doc->props[p].next) {
                const dm_value_t *v = &doc->props[p].value;
                if (v->type == CT_DM_GUID)
                    follow(doc, o, doc->props[p].key, v->as.guid, seen, queue, &tail);
                else if (v->type == CT_DM_SET)
                    for (uint32_t i = 0; i < v->as.set->count; i++)
                        follow(doc, o, doc->props[p].key, v->as.set->items[i], seen, queue, &tail);
            }
        }
        if (pass == 0) {
            for (uint32_t o = 0; o < doc->num_objs; o++) {
                if (doc->objs[o].alive && !seen[o]) {
                    add_issue(doc,
                              (ct_dm_issue_t){CT_DM_ISSUE_ORPHAN, doc->objs[o].guid, NULL, {0, 0}});
                    seen[o] = 1;
                    queue[tail++] = o;
                }
            }
        }
    }
    free(seen);
    free(queue);
    *issues = doc->issues;
    return doc->num_issues;
}

int dm_integrity__replace(ct_dm_doc_o *doc, const ct_guid_t *from, const ct_guid_t *to, uint32_t n)
{
    char a[33], b[33];
    if (n && (!from || !to)) {
        dm__error(doc, "replace: no pairs given");
        return CT_ERR_INVALID;
    }
    dm_map_t map = {0};
    for (uint32_t i = 0; i < n; i++) {
        if (!dm_map__put(&map, from[i].hi, from[i].lo, i)) {
            dm_map__free(&map);
            dm__error(doc, "replace: out of memory");
            return CT_ERR_NOMEM;
        }
    }
    /* Chains resolve to their end; a chain that comes back to where it started is a cycle. */
    ct_guid_t *final = malloc((n ? n : 1) * sizeof *final);
    if (!final) {
        dm_map__free(&map);
        dm__error(doc, "replace: out of memory");
        return CT_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        ct_guid_t g = to[i];
        uint32_t steps = 0, j;
        while ((j = dm_map__get(&map, g.hi, g.lo)) != DM_NONE && steps++ <= n)
            g = to[j];
        if (steps > n || ct_guid_eq(g, from[i])) {
            dm__format_guid(from[i], a);
            dm__format_guid(to[i], b);
            dm__error(doc, "replace %s -> %s: the replacements form a cycle", a, b);
            free(final);
            dm_map__free(&map);
            return CT_ERR_INVALID;
        }
        final[i] = g;
    }
    int r = 0;
    uint32_t undo_from = doc->undo.count;
    bool was_open = doc->action_open;
    ct_dm_op_t op = {0};
    doc->log = &doc->undo;
    for (uint32_t o = 0; o < doc->num_objs && r == 0; o++) {
        if (!doc->objs[o].alive)
            continue;
        for (uint32_t p = doc->objs[o].first_prop; p != DM_NONE && r == 0; p = doc->props[p].next) {
            dm_value_t *v = &doc->props[p].value;
            const char *key = doc->keys.strs[doc->props[p].key];
            uint32_t j;
            if (v->type == CT_DM_GUID &&
                (j = dm_map__get(&map, v->as.guid.hi, v->as.guid.lo)) != DM_NONE) {
                op = (ct_dm_op_t){.kind = CT_DM_OP_SET,
                                  .object = doc->objs[o].guid,
                                  .key = key,
                                  .value = {.type = CT_DM_GUID, .as.guid = final[j]}};
                r = dm__apply(doc, &op, dm__local_stamp(doc), CT_DM_FROM_LOCAL);
            } else if (v->type == CT_DM_SET) {
                /* Members are replaced one by one; the walk restarts after each change since
                 * removing shifts the members. */
                for (uint32_t i = 0; i < v->as.set->count && r == 0;) {
                    ct_guid_t item = v->as.set->items[i];
                    if ((j = dm_map__get(&map, item.hi, item.lo)) == DM_NONE) {
                        i++;
                        continue;
                    }
                    op = (ct_dm_op_t){.kind = CT_DM_OP_REMOVE,
                                      .object = doc->objs[o].guid,
                                      .key = key,
                                      .item = item};
                    r = dm__apply(doc, &op, dm__local_stamp(doc), CT_DM_FROM_LOCAL);
                    op.kind = CT_DM_OP_ADD;
                    op.item = final[j];
                    if (r == 0)
                        r = dm__apply(doc, &op, dm__local_stamp(doc), CT_DM_FROM_LOCAL);
                    v = &doc->props[p].value;
                }
            }
        }
    }
    if (r) {
        dm__rollback(doc, &doc->undo, undo_from);
        doc->action_open = was_open;
    } else if (doc->undo.count > undo_from && doc->redo.count) {
        dm__log_clear(&doc->redo, 0);
    }
    doc->log = NULL;
    free(final);
    dm_map__free(&map);
    return r;
}
