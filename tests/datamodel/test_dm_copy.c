/* Copy and paste: the clipboard text (exact), pasting twice gives two independent copies with
 * every inner reference translated and outer references kept, one undo removes a paste, and bad
 * clipboard text is refused with nothing added. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "datamodel.h"

static const ct_datamodel_api_v1 *dm;
static uint64_t now_ms = 1000;
static uint64_t fixed_clock(void *user_data) { return *(uint64_t *)user_data; }

static const ct_guid_t root = {0, 0}, a = {0, 0xa}, b = {0, 0xb}, c = {0, 0xc}, x = {0, 0xee};

static ct_dm_doc_o *scene(void)
{
    ct_dm_doc_o *d = dm->create_doc(&(ct_dm_doc_desc_t){
        .author = "alice", .clock = fixed_clock, .clock_user_data = &now_ms, .guid_seed = 9});
    dm->create(d, a);
    dm->create(d, b);
    dm->create(d, c);
    dm->create(d, x);
    dm->add_to_set(d, root, "entities", a);
    dm->add_to_set(d, root, "entities", x);
    ct_dm_value_t name = {.type = CT_DM_STRING, .size = 4, .as.s = "door"};
    dm->set_property(d, a, "name", &name);
    dm->add_to_set(d, a, "children", b);
    ct_dm_value_t ref = {.type = CT_DM_GUID, .as.guid = c};
    dm->set_property(d, b, "hinge", &ref);
    ref.as.guid = x; /* referenced, so a copy of a takes x along */
    dm->set_property(d, c, "anchor", &ref);
    ref.as.guid = root;
    dm->set_property(d, c, "level", &ref);
    dm->restore_point(d);
    return d;
}

static void copy_takes_everything_referenced(void **state)
{
    (void)state;
    ct_dm_doc_o *d = scene();
    size_t len;
    char *text = dm->copy(d, &a, 1, &len);
    assert_non_null(text);
    assert_string_equal(
        text, "cuttle_clipboard = 1\n"
              "copied = [ \"0000000000000000000000000000000a\" ]\n"
              "objects = [\n"
              "  { id = \"0000000000000000000000000000000a\" properties = { \"name\" = \"door\" "
              "\"children\" = { set = [ \"0000000000000000000000000000000b\" ] } } }\n"
              "  { id = \"0000000000000000000000000000000b\" properties = { \"hinge\" = { guid = "
              "\"0000000000000000000000000000000c\" } } }\n"
              "  { id = \"0000000000000000000000000000000c\" properties = { \"anchor\" = { guid = "
              "\"000000000000000000000000000000ee\" } \"level\" = { guid = "
              "\"00000000000000000000000000000000\" } } }\n"
              "  { id = \"000000000000000000000000000000ee\" properties = { } }\n"
              "]\n");
    dm->free_text(text);
    assert_null(dm->copy(d, &root, 1, &len));
    assert_string_equal(dm->last_error(d),
                        "copy 00000000000000000000000000000000: the root cannot be copied");
    dm->destroy_doc(d);
}

static void pasting_twice_gives_two_independent_copies(void **state)
{
    (void)state;
    ct_dm_doc_o *d = scene();
    /* Copying a takes b (a child), c (b.hinge) and x (c.anchor); the root stays shared. */
    char *text = dm->copy(d, &a, 1, NULL);
    uint32_t before = dm->num_objects(d);
    ct_guid_t r1, r2;
    uint32_t n = 0;
    assert_int_equal(dm->paste(d, text, strlen(text), &r1, 1, &n), 0);
    assert_int_equal(n, 1);
    dm->restore_point(d);
    assert_int_equal(dm->paste(d, text, strlen(text), &r2, 1, &n), 0);
    dm->restore_point(d);
    assert_int_equal(dm->num_objects(d), before + 8);
    assert_false(ct_guid_eq(r1, r2));
    assert_false(ct_guid_eq(r1, a));
    const char *name;
    assert_int_equal(dm->get_string(d, r1, "name", &name), 0);
    assert_string_equal(name, "door");
    /* The copies' inner references point at their own copies. */
    const ct_guid_t *kids1, *kids2;
    uint32_t k1, k2;
    assert_int_equal(dm->get_set(d, r1, "children", &kids1, &k1), 0);
    ct_guid_t child1 = kids1[0];
    assert_int_equal(dm->get_set(d, r2, "children", &kids2, &k2), 0);
    assert_int_equal(k1, 1);
    assert_false(ct_guid_eq(child1, b));
    assert_false(ct_guid_eq(child1, kids2[0]));
    ct_guid_t hinge, level;
    assert_int_equal(dm->get_guid(d, child1, "hinge", &hinge), 0);
    assert_false(ct_guid_eq(hinge, c));
    assert_int_equal(dm->get_guid(d, hinge, "level", &level), 0);
    assert_true(ct_guid_is_root(level));
    /* Editing one copy leaves the other and the original alone. */
    ct_dm_value_t v = {.type = CT_DM_STRING, .size = 4, .as.s = "gate"};
    dm->set_property(d, r1, "name", &v);
    assert_int_equal(dm->get_string(d, r2, "name", &name), 0);
    assert_string_equal(name, "door");
    assert_int_equal(dm->get_string(d, a, "name", &name), 0);
    assert_string_equal(name, "door");
    /* One undo removes the rename, the next the second paste whole. */
    dm->restore_point(d);
    dm->undo(d, NULL);
    dm->undo(d, NULL);
    assert_false(dm->exists(d, r2));
    assert_true(dm->exists(d, r1));
    assert_int_equal(dm->num_objects(d), before + 4);
    dm->free_text(text);
    dm->destroy_doc(d);
}

static void bad_clipboard_text_adds_nothing(void **state)
{
    (void)state;
    ct_dm_doc_o *d = scene();
    uint32_t before = dm->num_objects(d);
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"hello", "paste: clipboard:1:6: expected '=' or ':' after the key"},
        {"cuttle_clipboard = 1 copied = [] objects = [ { id = \"12\" } ]",
         "paste: clipboard:1:46: object 0: `id` must be a GUID of 32 hex digits, not 0"},
        {"cuttle_clipboard = 1 copied = [ \"0000000000000000000000000000000a\" ] objects = [\n"
         "{ id = \"0000000000000000000000000000000a\" properties = { k = { vec3 = [1 2] } } } ]",
         "paste: clipboard:2:62: object 0 'k': vec3 needs [x y z]"},
        {"cuttle_clipboard = 1 copied = [ \"0000000000000000000000000000000b\" ] objects = [\n"
         "{ id = \"0000000000000000000000000000000a\" } ]",
         "paste: clipboard:1:33: copied root 0 is not one of the objects"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_guid_t r;
        uint32_t n = 7;
        assert_int_equal(dm->paste(d, cases[i].text, strlen(cases[i].text), &r, 1, &n),
                         CT_ERR_BAD_DATA);
        assert_string_equal(dm->last_error(d), cases[i].error);
        assert_int_equal(n, 0);
        assert_int_equal(dm->num_objects(d), before);
    }
    dm->destroy_doc(d);
}

int main(void)
{
    dm = datamodel__api_v1();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_takes_everything_referenced),
        cmocka_unit_test(pasting_twice_gives_two_independent_copies),
        cmocka_unit_test(bad_clipboard_text_adds_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
