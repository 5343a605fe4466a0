/* The model: the five operations and their inverses, undo/redo with reports, batches all or
 * nothing, typed getters, integrity checks and replacement, listeners. Fixed clock and GUID seed,
 * so every stamp and GUID below is a fixed value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "datamodel.h"

static const ct_datamodel_api_v1 *dm;

static uint64_t fixed_clock(void *user_data) { return *(uint64_t *)user_data; }
static uint64_t now_ms = 1000;

static ct_dm_doc_o *doc_of(const char *author)
{
    return dm->create_doc(&(ct_dm_doc_desc_t){
        .author = author, .clock = fixed_clock, .clock_user_data = &now_ms, .guid_seed = 42});
}

static const ct_guid_t root = {0, 0};
static const ct_guid_t a = {0, 0xa}, b = {0, 0xb}, c = {0, 0xc};

static ct_dm_value_t dbl(double d) { return (ct_dm_value_t){.type = CT_DM_DOUBLE, .as.d = d}; }
static ct_dm_value_t str(const char *s)
{
    return (ct_dm_value_t){.type = CT_DM_STRING, .size = (uint32_t)strlen(s), .as.s = s};
}

static void guids_have_one_text_form(void **state)
{
    (void)state;
    ct_guid_t g = {0x0123456789abcdefull, 0xfedcba9876543210ull}, back = {0, 0};
    char text[33];
    ct_guid_format(g, text);
    assert_string_equal(text, "0123456789abcdeffedcba9876543210");
    assert_true(ct_guid_parse(text, 32, &back));
    assert_true(ct_guid_eq(g, back));
    assert_true(ct_guid_parse("0123456789ABCDEFFEDCBA9876543210", 32, &back));
    /* Not 128 bits of hex: refused, *out untouched. */
    ct_guid_t untouched = {7, 7};
    assert_false(ct_guid_parse("0123456789abcdeffedcba987654321", 31, &untouched));
    assert_false(ct_guid_parse("0123456789abcdeffedcba98765432100", 33, &untouched));
    assert_false(ct_guid_parse("0123456789abcdefgedcba9876543210", 32, &untouched));
    assert_false(ct_guid_parse(NULL, 32, &untouched));
    assert_true(untouched.hi == 7 && untouched.lo == 7);
}

static void the_five_operations_and_duck_typed_reads(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    assert_true(dm->exists(d, root));
    assert_int_equal(dm->num_objects(d), 1);
    assert_int_equal(dm->create(d, a), 0);
    ct_dm_value_t v = dbl(2.5);
    assert_int_equal(dm->set_property(d, a, "mass", &v), 0);
    v = (ct_dm_value_t){.type = CT_DM_VEC3, .as.v = {1, 2, 3}};
    assert_int_equal(dm->set_property(d, a, "position", &v), 0);
    v = str("crate");
    assert_int_equal(dm->set_property(d, a, "name", &v), 0);
    assert_int_equal(dm->add_to_set(d, root, "entities", a), 0);
    assert_int_equal(dm->add_to_set(d, root, "entities", a), 0); /* already a member: no-op */

    double mass = 0, pos[3] = {0};
    const char *name = NULL;
    assert_int_equal(dm->get_double(d, a, "mass", &mass), 0);
    assert_true(mass == 2.5);
    assert_int_equal(dm->get_vec3(d, a, "position", pos), 0);
    assert_true(pos[0] == 1 && pos[1] == 2 && pos[2] == 3);
    assert_int_equal(dm->get_string(d, a, "name", &name), 0);
    assert_string_equal(name, "crate");
    const ct_guid_t *items;
    uint32_t n;
    assert_int_equal(dm->get_set(d, root, "entities", &items, &n), 0);
    assert_int_equal(n, 1);
    assert_true(ct_guid_eq(items[0], a));
    const char *keys[8];
    assert_int_equal(dm->keys(d, a, keys, 8), 3);
    assert_string_equal(keys[0], "mass");
    assert_string_equal(keys[2], "name");

    /* Wrong type: a clear failure naming object, key, both types; the output untouched. */
    mass = -1;
    assert_int_equal(dm->get_double(d, a, "name", &mass), CT_ERR_INVALID);
    assert_true(mass == -1);
    assert_string_equal(dm->last_error(d),
                        "get 0000000000000000000000000000000a 'name': the property holds a string, "
                        "not a double");
    assert_int_equal(dm->get_double(d, a, "missing", &mass), CT_ERR_NOT_FOUND);
    assert_int_equal(dm->get_double(d, b, "mass", &mass), CT_ERR_NOT_FOUND);

    /* Setting null removes. */
    assert_int_equal(dm->set_property(d, a, "mass", NULL), 0);
    assert_int_equal(dm->get_double(d, a, "mass", &mass), CT_ERR_NOT_FOUND);
    assert_int_equal(dm->keys(d, a, keys, 8), 2);

    assert_int_equal(dm->remove_from_set(d, root, "entities", a), 0);
    assert_false(dm->set_contains(d, root, "entities", a));
    assert_int_equal(dm->destroy(d, a), 0);
    assert_false(dm->exists(d, a));
    assert_int_equal(dm->num_objects(d), 1);
    dm->destroy_doc(d);
}

static void misuse_is_refused_and_changes_nothing(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    assert_int_equal(dm->create(d, a), 0);
    ct_dm_value_t v = str("x");
    assert_int_equal(dm->set_property(d, a, "name", &v), 0);
    assert_int_equal(dm->create(d, a), CT_ERR_INVALID);
    assert_string_equal(dm->last_error(d),
                        "create 0000000000000000000000000000000a: the object exists already");
    assert_int_equal(dm->destroy(d, root), CT_ERR_INVALID);
    assert_int_equal(dm->destroy(d, b), CT_ERR_INVALID);
    assert_int_equal(dm->set_property(d, b, "name", &v), CT_ERR_INVALID);
    assert_string_equal(dm->last_error(d),
                        "set_property 0000000000000000000000000000000b 'name': the object does not "
                        "exist");
    /* A set operation on a non-set. */
    assert_int_equal(dm->add_to_set(d, a, "name", b), CT_ERR_INVALID);
    assert_string_equal(dm->last_error(d),
                        "add_to_set 0000000000000000000000000000000a 'name': the property holds a "
                        "string, not a set");
    assert_int_equal(dm->remove_from_set(d, a, "name", b), CT_ERR_INVALID);
    /* Values of no model type, NaN, empty keys. */
    v = (ct_dm_value_t){.type = 99};
    assert_int_equal(dm->set_property(d, a, "k", &v), CT_ERR_INVALID);
    v = dbl(0.0 / 0.0);
    assert_int_equal(dm->set_property(d, a, "k", &v), CT_ERR_INVALID);
    v = dbl(1);
    assert_int_equal(dm->set_property(d, a, "", &v), CT_ERR_INVALID);
    const char *name;
    assert_int_equal(dm->get_string(d, a, "name", &name), 0);
    assert_string_equal(name, "x");
    const char *keys[4];
    assert_int_equal(dm->keys(d, a, keys, 4), 1);
    dm->destroy_doc(d);
}

static void undo_and_redo_by_restore_points(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    ct_dm_value_t v = dbl(1);
    /* Action 1: make a, named. */
    dm->create(d, a);
    v = str("first");
    dm->set_property(d, a, "name", &v);
    dm->add_to_set(d, root, "entities", a);
    dm->restore_point(d);
    /* Action 2: rename, add a child set, remove from root. */
    v = str("second");
    dm->set_property(d, a, "name", &v);
    dm->add_to_set(d, a, "children", b);
    dm->remove_from_set(d, root, "entities", a);
    dm->restore_point(d);

    ct_dm_undo_report_t report;
    assert_int_equal(dm->undo(d, &report), 0);
    assert_int_equal(report.applied, 4); /* add->remove, set-set->null, remove->add, name */
    assert_int_equal(report.num_skipped, 0);
    const char *name;
    assert_int_equal(dm->get_string(d, a, "name", &name), 0);
    assert_string_equal(name, "first");
    assert_true(dm->set_contains(d, root, "entities", a));
    ct_dm_value_t got;
    assert_int_equal(dm->get(d, a, "children", &got), CT_ERR_NOT_FOUND);

    assert_int_equal(dm->undo(d, &report), 0);
    assert_false(dm->exists(d, a));
    assert_false(dm->set_contains(d, root, "entities", a));
    assert_false(dm->can_undo(d));
    assert_int_equal(dm->undo(d, &report), CT_ERR_NOT_FOUND);

    assert_int_equal(dm->redo(d, &report), 0);
    assert_int_equal(dm->get_string(d, a, "name", &name), 0);
    assert_string_equal(name, "first");
    assert_int_equal(dm->redo(d, &report), 0);
    assert_int_equal(dm->get_string(d, a, "name", &name), 0);
    assert_string_equal(name, "second");
    assert_true(dm->set_contains(d, a, "children", b));
    assert_false(dm->set_contains(d, root, "entities", a));
    assert_false(dm->can_redo(d));

    /* Undo of a destroy brings the object back whole; a new op forgets the redo stack. */
    dm->destroy(d, a);
    dm->restore_point(d);
    assert_false(dm->exists(d, a));
    assert_int_equal(dm->undo(d, &report), 0);
    assert_int_equal(dm->get_string(d, a, "name", &name), 0);
    assert_string_equal(name, "second");
    assert_true(dm->set_contains(d, a, "children", b));
    assert_true(dm->can_redo(d));
    v = dbl(3);
    dm->set_property(d, a, "mass", &v);
    assert_false(dm->can_redo(d));
    dm->destroy_doc(d);
}

static void undo_reports_what_someone_else_changed_since(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    dm->create(d, a);
    ct_dm_value_t v = str("mine");
    dm->set_property(d, a, "name", &v);
    dm->add_to_set(d, a, "tags", b);
    dm->restore_point(d);
    /* Bob's merged change overwrites the name and removes the tag. */
    ct_dm_op_t theirs[2] = {
        {.kind = CT_DM_OP_SET,
         .object = a,
         .key = "name",
         .value = str("bob's"),
         .stamp = {CT_DM_HLC(5000, 0), "bob"}},
        {.kind = CT_DM_OP_REMOVE,
         .object = a,
         .key = "tags",
         .item = b,
         .stamp = {CT_DM_HLC(5000, 1), "bob"}},
    };
    assert_int_equal(dm->apply_ops(d, theirs, 2, NULL), 0);
    ct_dm_undo_report_t report;
    assert_int_equal(dm->undo(d, &report), 0);
    /* The set of "tags" (null -> empty set) and the create still undo? No: the tag set's
     * inverse (set to null) is Alice's own and is applied; the name and the tag removal are
     * skipped; the create's inverse is skipped because Bob edited the object. */
    assert_int_equal(report.num_skipped, 3);
    assert_int_equal(report.skipped[0].kind, CT_DM_OP_REMOVE);
    assert_string_equal(report.skipped[0].why, "someone else has removed the item since");
    assert_int_equal(report.skipped[1].kind, CT_DM_OP_SET);
    assert_string_equal(report.skipped[1].key, "name");
    assert_int_equal(report.skipped[1].wanted.type, CT_DM_NULL);
    assert_string_equal(report.skipped[1].current.as.s, "bob's");
    assert_string_equal(report.skipped[1].current_stamp.author, "bob");
    assert_true(report.skipped[1].current_stamp.hlc == CT_DM_HLC(5000, 0));
    assert_int_equal(report.skipped[2].kind, CT_DM_OP_DESTROY);
    assert_string_equal(report.skipped[2].why, "someone else has edited the object since");
    assert_int_equal(report.applied, 1);
    const char *name;
    assert_int_equal(dm->get_string(d, a, "name", &name), 0);
    assert_string_equal(name, "bob's");
    dm->destroy_doc(d);
}

static void a_batch_is_all_or_nothing(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    dm->create(d, a);
    ct_dm_value_t one = dbl(1);
    dm->set_property(d, a, "x", &one);
    dm->restore_point(d);
    ct_dm_op_t ops[4] = {
        {.kind = CT_DM_OP_CREATE, .object = b},
        {.kind = CT_DM_OP_SET, .object = a, .key = "x", .value = dbl(2)},
        {.kind = CT_DM_OP_ADD, .object = root, .key = "entities", .item = b},
        {.kind = CT_DM_OP_ADD, .object = a, .key = "x", .item = b}, /* x is no set */
    };
    uint32_t failed = 99;
    assert_int_equal(dm->apply_ops(d, ops, 4, &failed), CT_ERR_INVALID);
    assert_int_equal(failed, 3);
    assert_false(dm->exists(d, b));
    double x;
    assert_int_equal(dm->get_double(d, a, "x", &x), 0);
    assert_true(x == 1);
    assert_false(dm->set_contains(d, root, "entities", b));
    /* The undo stack is as before: one undo removes the first action. */
    assert_int_equal(dm->apply_ops(d, ops, 3, &failed), 0);
    assert_true(dm->exists(d, b));
    dm->restore_point(d);
    assert_int_equal(dm->undo(d, NULL), 0);
    assert_false(dm->exists(d, b));
    assert_int_equal(dm->get_double(d, a, "x", &x), 0);
    assert_true(x == 1);
    dm->destroy_doc(d);
}

static void remote_ops_in_a_batch_apply_once(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    dm->create(d, a);
    ct_dm_op_t theirs[2] = {
        {.kind = CT_DM_OP_SET,
         .object = a,
         .key = "n",
         .value = dbl(1),
         .stamp = {CT_DM_HLC(5000, 0), "bob"}},
        {.kind = CT_DM_OP_SET,
         .object = a,
         .key = "n",
         .value = dbl(2),
         .stamp = {CT_DM_HLC(4000, 0), "carol"}},
    };
    assert_int_equal(dm->apply_ops(d, theirs, 2, NULL), 0);
    double n;
    assert_int_equal(dm->get_double(d, a, "n", &n), 0);
    assert_true(n == 1); /* carol's older write lost */
    /* A set op applied twice: without op ids, the second add would bring back what alice
     * removed in between. */
    ct_dm_op_t add = {.kind = CT_DM_OP_ADD,
                      .object = a,
                      .key = "tags",
                      .item = b,
                      .stamp = {CT_DM_HLC(6000, 0), "bob"}};
    assert_int_equal(dm->apply_ops(d, &add, 1, NULL), 0);
    assert_true(dm->set_contains(d, a, "tags", b));
    dm->remove_from_set(d, a, "tags", b);
    assert_int_equal(dm->apply_ops(d, &add, 1, NULL), 0);
    assert_false(dm->set_contains(d, a, "tags", b));
    assert_false(dm->can_redo(d));
    dm->destroy_doc(d);
}

static void integrity_finds_dangling_references_and_orphans(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    dm->create(d, a);
    dm->create(d, b);
    dm->create(d, c);
    dm->add_to_set(d, root, "entities", a);
    ct_dm_value_t ref = {.type = CT_DM_GUID, .as.guid = {0, 0xdead}};
    dm->set_property(d, a, "target", &ref);
    /* b is reachable from nothing; c is reached only from b. */
    dm->add_to_set(d, b, "links", c);
    const ct_dm_issue_t *issues;
    assert_int_equal(dm->check(d, &issues), 3);
    assert_int_equal(issues[0].kind, CT_DM_ISSUE_DANGLING);
    assert_true(ct_guid_eq(issues[0].object, a));
    assert_string_equal(issues[0].key, "target");
    assert_true(issues[0].target.lo == 0xdead);
    assert_int_equal(issues[1].kind, CT_DM_ISSUE_ORPHAN);
    assert_true(ct_guid_eq(issues[1].object, b));
    assert_int_equal(issues[2].kind, CT_DM_ISSUE_ORPHAN);
    assert_true(ct_guid_eq(issues[2].object, c));
    dm->add_to_set(d, a, "links", b);
    ref.as.guid = c;
    dm->set_property(d, a, "target", &ref);
    assert_int_equal(dm->check(d, &issues), 0);
    dm->destroy_doc(d);
}

static void replacement_is_one_undoable_action_and_refuses_cycles(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    dm->create(d, a);
    dm->create(d, b);
    dm->create(d, c);
    dm->add_to_set(d, root, "entities", a);
    dm->add_to_set(d, root, "entities", c);
    ct_dm_value_t ref = {.type = CT_DM_GUID, .as.guid = a};
    dm->set_property(d, c, "target", &ref);
    dm->restore_point(d);

    /* A cycle (a->b, b->a) and a self-replacement are refused; nothing changes. */
    ct_guid_t from[2] = {a, b}, to[2] = {b, a};
    assert_int_equal(dm->replace(d, from, to, 2), CT_ERR_INVALID);
    assert_string_equal(
        dm->last_error(d),
        "replace 0000000000000000000000000000000a -> 0000000000000000000000000000000b: "
        "the replacements form a cycle");
    assert_int_equal(dm->replace(d, from, from, 1), CT_ERR_INVALID);
    ct_guid_t got;
    assert_int_equal(dm->get_guid(d, c, "target", &got), 0);
    assert_true(ct_guid_eq(got, a));

    /* a -> b: the GUID property and the set member follow. */
    assert_int_equal(dm->replace(d, &a, &b, 1), 0);
    dm->restore_point(d);
    assert_int_equal(dm->get_guid(d, c, "target", &got), 0);
    assert_true(ct_guid_eq(got, b));
    assert_true(dm->set_contains(d, root, "entities", b));
    assert_false(dm->set_contains(d, root, "entities", a));
    assert_int_equal(dm->undo(d, NULL), 0);
    assert_int_equal(dm->get_guid(d, c, "target", &got), 0);
    assert_true(ct_guid_eq(got, a));
    assert_true(dm->set_contains(d, root, "entities", a));
    assert_false(dm->set_contains(d, root, "entities", b));
    /* A chain resolves: a -> b, b -> c makes a's references c. */
    ct_guid_t cf[2] = {a, b}, ct[2] = {b, c};
    assert_int_equal(dm->replace(d, cf, ct, 2), 0);
    assert_int_equal(dm->get_guid(d, c, "target", &got), 0);
    assert_true(ct_guid_eq(got, c));
    dm->destroy_doc(d);
}

typedef struct seen_t {
    uint32_t count;
    uint32_t kinds[16];
    ct_dm_source sources[16];
} seen_t;

static void listen(void *user_data, ct_dm_doc_o *doc, const ct_dm_op_t *op, ct_dm_source source)
{
    (void)doc;
    seen_t *s = user_data;
    if (s->count < 16) {
        s->kinds[s->count] = op->kind;
        s->sources[s->count] = source;
    }
    s->count++;
}

static void listeners_see_every_applied_operation(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    seen_t seen = {0};
    uint32_t id = dm->add_listener(d, listen, &seen);
    assert_true(id > 0);
    dm->create(d, a);
    ct_dm_value_t v = dbl(1);
    dm->set_property(d, a, "x", &v);
    dm->set_property(d, b, "x", &v); /* refused: not seen */
    dm->restore_point(d);
    dm->undo(d, NULL);
    assert_int_equal(seen.count, 4);
    assert_int_equal(seen.kinds[0], CT_DM_OP_CREATE);
    assert_int_equal(seen.kinds[1], CT_DM_OP_SET);
    assert_int_equal(seen.kinds[2], CT_DM_OP_SET); /* x back to null */
    assert_int_equal(seen.sources[2], CT_DM_FROM_UNDO);
    assert_int_equal(seen.kinds[3], CT_DM_OP_DESTROY);
    dm->remove_listener(d, id);
    dm->redo(d, NULL);
    assert_int_equal(seen.count, 4);
    dm->destroy_doc(d);
}

/* Many properties made in runs (fresh keys, keys other objects have, interleaved objects), read
 * back between runs, overwritten, undone and redone: every read finds its own value. (The
 * document indexes properties lazily, at the first lookup after a run of new ones, and undo
 * finds them by their index in the document: this walks both.) */
static void many_properties_in_runs_read_back_exactly(void **state)
{
    (void)state;
    enum { KEYS = 3000 };
    ct_dm_doc_o *d = doc_of("ed");
    assert_int_equal(dm->create(d, a), 0);
    assert_int_equal(dm->create(d, b), 0);
    char key[32];
    double x;
    dm->restore_point(d);
    for (int run = 0; run < 3; run++) {
        for (int i = run * 1000; i < (run + 1) * 1000; i++) {
            snprintf(key, sizeof key, "k%d", i);
            ct_dm_value_t v = dbl(i);
            assert_int_equal(dm->set_property(d, a, key, &v), 0); /* a new key */
            v = dbl(-i);
            assert_int_equal(dm->set_property(d, b, key, &v), 0); /* a key a has */
        }
        for (int i = 0; i < (run + 1) * 1000; i += 7) {
            snprintf(key, sizeof key, "k%d", i);
            assert_int_equal(dm->get_double(d, a, key, &x), 0);
            assert_true(x == i);
            assert_int_equal(dm->get_double(d, b, key, &x), 0);
            assert_true(x == -i);
        }
    }
    assert_int_equal(dm->get_double(d, a, "k3000", &x), CT_ERR_NOT_FOUND);
    /* Overwrite every other key of a as one action; undo it, redo it. */
    dm->restore_point(d);
    for (int i = 0; i < KEYS; i += 2) {
        snprintf(key, sizeof key, "k%d", i);
        ct_dm_value_t v = dbl(i + 0.5);
        assert_int_equal(dm->set_property(d, a, key, &v), 0);
    }
    ct_dm_undo_report_t rep;
    assert_int_equal(dm->undo(d, &rep), 0);
    assert_int_equal(rep.applied, KEYS / 2);
    for (int i = 0; i < KEYS; i++) {
        snprintf(key, sizeof key, "k%d", i);
        assert_int_equal(dm->get_double(d, a, key, &x), 0);
        assert_true(x == i);
    }
    assert_int_equal(dm->redo(d, &rep), 0);
    for (int i = 0; i < KEYS; i += 3) {
        snprintf(key, sizeof key, "k%d", i);
        assert_int_equal(dm->get_double(d, a, key, &x), 0);
        assert_true(x == (i % 2 ? i : i + 0.5));
    }
    /* Undo both actions: the first one removes all 6,000 properties. */
    assert_int_equal(dm->undo(d, &rep), 0);
    assert_int_equal(dm->undo(d, &rep), 0);
    assert_int_equal(rep.applied, 2 * KEYS);
    const char *keys[4];
    assert_int_equal(dm->keys(d, a, keys, 4), 0);
    assert_int_equal(dm->keys(d, b, keys, 4), 0);
    assert_int_equal(dm->get_double(d, b, "k10", &x), CT_ERR_NOT_FOUND);
    dm->destroy_doc(d);
}

static void big_sets_stay_exact(void **state)
{
    (void)state;
    ct_dm_doc_o *d = doc_of("alice");
    for (uint64_t i = 1; i <= 1000; i++)
        assert_int_equal(dm->add_to_set(d, root, "s", (ct_guid_t){0, i}), 0);
    for (uint64_t i = 1; i <= 1000; i += 2)
        assert_int_equal(dm->remove_from_set(d, root, "s", (ct_guid_t){0, i}), 0);
    const ct_guid_t *items;
    uint32_t n;
    assert_int_equal(dm->get_set(d, root, "s", &items, &n), 0);
    assert_int_equal(n, 500);
    assert_true(items[0].lo == 2 && items[499].lo == 1000);
    assert_true(dm->set_contains(d, root, "s", (ct_guid_t){0, 500}));
    assert_false(dm->set_contains(d, root, "s", (ct_guid_t){0, 501}));
    dm->restore_point(d);
    assert_int_equal(dm->undo(d, NULL), 0);
    assert_int_equal(dm->get(d, root, "s", &(ct_dm_value_t){0}), CT_ERR_NOT_FOUND);
    dm->destroy_doc(d);
}

/* Documents made one after another reuse the memory of the ones before (kept blocks): a new one
 * sees none of an old one's keys or values, and each reads back exactly what it was given. */
static void documents_made_after_others_start_clean(void **state)
{
    (void)state;
    enum { KEYS = 20000 };
    char key[32];
    double x;
    for (int r = 0; r < 3; r++) {
        ct_dm_doc_o *d = doc_of("ed");
        assert_int_equal(dm->create(d, a), 0);
        for (int i = 0; i < KEYS; i++) {
            snprintf(key, sizeof key, "r%dk%d", r, i);
            ct_dm_value_t v = dbl(r * 1e6 + i);
            assert_int_equal(dm->set_property(d, a, key, &v), 0);
        }
        for (int i = 0; i < KEYS; i++) {
            snprintf(key, sizeof key, "r%dk%d", r, i);
            assert_int_equal(dm->get_double(d, a, key, &x), 0);
            assert_true(x == r * 1e6 + i);
            if (r > 0) {
                snprintf(key, sizeof key, "r%dk%d", r - 1, i);
                assert_int_equal(dm->get_double(d, a, key, &x), CT_ERR_NOT_FOUND);
            }
        }
        assert_int_equal(dm->keys(d, a, NULL, 0), KEYS);
        dm->destroy_doc(d);
    }
    /* A key's length is checked to the byte: 255 bytes is a key, 256 is not. */
    ct_dm_doc_o *d = doc_of("ed");
    assert_int_equal(dm->create(d, a), 0);
    char longest[CT_DM_MAX_KEY + 2];
    memset(longest, 'k', sizeof longest);
    longest[CT_DM_MAX_KEY] = '\0';
    ct_dm_value_t v = dbl(1);
    assert_int_equal(dm->set_property(d, a, longest, &v), 0);
    longest[CT_DM_MAX_KEY] = 'k';
    longest[CT_DM_MAX_KEY + 1] = '\0';
    assert_int_equal(dm->set_property(d, a, longest, &v), CT_ERR_INVALID);
    assert_int_equal(dm->set_property(d, a, "", &v), CT_ERR_INVALID);
    dm->destroy_doc(d);
}

int main(void)
{
    dm = datamodel__api_v1();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(guids_have_one_text_form),
        cmocka_unit_test(the_five_operations_and_duck_typed_reads),
        cmocka_unit_test(misuse_is_refused_and_changes_nothing),
        cmocka_unit_test(undo_and_redo_by_restore_points),
        cmocka_unit_test(undo_reports_what_someone_else_changed_since),
        cmocka_unit_test(a_batch_is_all_or_nothing),
        cmocka_unit_test(remote_ops_in_a_batch_apply_once),
        cmocka_unit_test(integrity_finds_dangling_references_and_orphans),
        cmocka_unit_test(replacement_is_one_undoable_action_and_refuses_cycles),
        cmocka_unit_test(listeners_see_every_applied_operation),
        cmocka_unit_test(big_sets_stay_exact),
        cmocka_unit_test(many_properties_in_runs_read_back_exactly),
        cmocka_unit_test(documents_made_after_others_start_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
