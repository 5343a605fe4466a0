/* Levels and units as documents: the demo's files round-trip byte for byte, a one-field edit is a
 * one-line diff, ids are assigned on a tool's first write (and match the ids derived from names),
 * new and removed fields and entities keep the rest of the text, bad sources are refused naming
 * file, line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "datamodel.h"

static const ct_datamodel_api_v1 *dm;
static const ct_guid_t root = {0, 0};

static char *slurp(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CT_TEST_SOURCE_ROOT, rel);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static ct_dm_doc_o *read_text(const char *text)
{
    char err[256];
    ct_dm_doc_o *d =
        dm->read_level(text, strlen(text), "t.level",
                       &(ct_dm_doc_desc_t){.author = "ed", .guid_seed = 5}, err, sizeof err);
    if (!d)
        fprintf(stderr, "%s\n", err);
    assert_non_null(d);
    return d;
}

static char *write(ct_dm_doc_o *d, bool ids)
{
    char *out = dm->write_level(d, &(ct_dm_write_desc_t){.assign_ids = ids}, NULL);
    assert_non_null(out);
    return out;
}

/* The entity of the root's list with this name. */
static ct_guid_t named(ct_dm_doc_o *d, const char *name)
{
    const ct_guid_t *items;
    uint32_t n;
    assert_int_equal(dm->get_set(d, root, "entities", &items, &n), 0);
    for (uint32_t i = 0; i < n; i++) {
        const char *s;
        if (dm->get_string(d, items[i], "name", &s) == 0 && strcmp(s, name) == 0)
            return items[i];
    }
    fail_msg("no entity named %s", name);
    return root;
}

static void the_demo_round_trips_byte_for_byte(void **state)
{
    (void)state;
    static const char *files[] = {
        "projects/demo/levels/arena.level", "projects/demo/units/crate.unit",
        "projects/demo/units/camera.unit",  "projects/demo/units/dancer.unit",
        "projects/demo/units/sun.unit",     "projects/demo/units/joint.unit"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t len, out_len;
        char *text = slurp(files[i], &len);
        char err[256];
        ct_dm_doc_o *d = dm->read_level(text, len, files[i], NULL, err, sizeof err);
        assert_non_null(d);
        char *out = dm->write_level(d, NULL, &out_len);
        assert_int_equal(out_len, len);
        assert_memory_equal(out, text, len);
        dm->free_text(out);
        dm->destroy_doc(d);
        free(text);
    }
}

static void the_arena_as_a_document(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("projects/demo/levels/arena.level", &len);
    ct_dm_doc_o *d = read_text(text);
    ct_guid_t floor = named(d, "floor"), marker = named(d, "marker");
    double pos[3], he[3], count, order;
    assert_int_equal(dm->get_vec3(d, floor, "components.transform.position", pos), 0);
    assert_true(pos[0] == 0 && pos[1] == -0.5 && pos[2] == 0);
    assert_int_equal(dm->get_vec3(d, floor, "components.body.half_extents", he), 0);
    assert_true(he[0] == 50 && he[1] == 0.5);
    const char *kind;
    assert_int_equal(dm->get_string(d, floor, "components.body.kind", &kind), 0);
    assert_string_equal(kind, "static");
    assert_int_equal(dm->get_double(d, marker, "repeat.count", &count), 0);
    assert_true(count == 10000);
    assert_int_equal(dm->get_double(d, marker, "@order", &order), 0);
    assert_true(order == 7); /* after the floor and the six stairs */
    /* Derived ids are the same for every reader. */
    ct_dm_doc_o *again = read_text(text);
    assert_true(ct_guid_eq(named(again, "marker"), marker));
    const ct_dm_issue_t *issues;
    assert_int_equal(dm->check(d, &issues), 0);
    dm->destroy_doc(again);
    dm->destroy_doc(d);
    free(text);
}

/* Counts lines that differ between two texts of the same line count (or -1). */
static int changed_lines(const char *a, const char *b)
{
    int n = 0;
    while (*a || *b) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        if (!ea || !eb)
            return ea == eb && strcmp(a, b) == 0 ? n : n + 1;
        if (ea - a != eb - b || memcmp(a, b, (size_t)(ea - a)) != 0)
            n++;
        a = ea + 1;
        b = eb + 1;
    }
    return n;
}

static void a_one_field_edit_is_a_one_line_diff(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("projects/demo/levels/arena.level", &len);
    ct_dm_doc_o *d = read_text(text);
    ct_dm_value_t v = {.type = CT_DM_DOUBLE, .as.d = 0.75};
    assert_int_equal(dm->set_property(d, named(d, "floor"), "components.body.friction", &v), 0);
    char *out = write(d, false);
    assert_int_equal(changed_lines(text, out), 1);
    assert_non_null(strstr(out, "      body = { kind = \"static\" shape = \"box\" half_extents = "
                                "[50 0.5 50] friction = 0.75 }\n"));
    /* A vector too. */
    v = (ct_dm_value_t){.type = CT_DM_VEC3, .as.v = {1, 2, 3}};
    assert_int_equal(dm->set_property(d, named(d, "marker"), "components.transform.position", &v),
                     0);
    dm->free_text(out);
    out = write(d, false);
    assert_int_equal(changed_lines(text, out), 2);
    assert_non_null(strstr(out, "      transform = { position = [1 2 3] }\n"));
    dm->free_text(out);
    dm->destroy_doc(d);
    free(text);
}

static void a_tools_first_write_assigns_ids(void **state)
{
    (void)state;
    const char *text = "// two crates\n"
                       "entities = [\n"
                       "  {\n"
                       "    name = \"crate\"\n"
                       "    components = { transform = {} }\n"
                       "  }\n"
                       "  { name = \"crate\" }\n"
                       "]\n";
    ct_dm_doc_o *d = read_text(text);
    const ct_guid_t *items;
    uint32_t n;
    assert_int_equal(dm->get_set(d, root, "entities", &items, &n), 0);
    assert_int_equal(n, 2);
    ct_guid_t first = items[0], second = items[1];
    assert_false(ct_guid_eq(first, second)); /* same name, different rank */
    char *out = write(d, true);
    char g1[33], g2[33], expected[512];
    ct_guid_format(first, g1);
    ct_guid_format(second, g2);
    snprintf(expected, sizeof expected,
             "// two crates\n"
             "entities = [\n"
             "  {\n"
             "    id = \"%s\"\n"
             "    name = \"crate\"\n"
             "    components = { transform = {} }\n"
             "  }\n"
             "  { id = \"%s\" name = \"crate\" }\n"
             "]\n",
             g1, g2);
    assert_string_equal(out, expected);
    /* Read back: the ids are the GUIDs every reader derived before. */
    ct_dm_doc_o *back = read_text(out);
    assert_true(dm->exists(back, first));
    assert_true(dm->exists(back, second));
    char *again = write(back, true);
    assert_string_equal(again, out);
    dm->free_text(again);
    dm->free_text(out);
    dm->destroy_doc(back);
    dm->destroy_doc(d);
}

static const char base[] = "entities = [\n"
                           "  {\n"
                           "    name = \"a\" // the first\n"
                           "    components = {\n"
                           "      transform = { position = [0 0 0] }\n"
                           "    }\n"
                           "  }\n"
                           "  {\n"
                           "    name = \"b\"\n"
                           "    components = { body = { kind = \"static\" mass = 2 } }\n"
                           "  }\n"
                           "]\n";

static void new_and_removed_fields_and_entities(void **state)
{
    (void)state;
    ct_dm_doc_o *d = read_text(base);
    ct_guid_t a = named(d, "a"), b = named(d, "b");
    ct_dm_value_t v = {.type = CT_DM_DOUBLE, .as.d = 0.5};
    dm->set_property(d, a, "components.transform.scale", &v); /* into an inline object */
    v = (ct_dm_value_t){.type = CT_DM_STRING, .size = 3, .as.s = "box"};
    dm->set_property(d, a, "components.mesh.mesh", &v);   /* a new component */
    dm->set_property(d, b, "components.body.mass", NULL); /* a removed field */
    /* A new entity after b. */
    ct_guid_t c = {0, 0xc};
    dm->create(d, c);
    v = (ct_dm_value_t){.type = CT_DM_STRING, .size = 1, .as.s = "c"};
    dm->set_property(d, c, "name", &v);
    v = (ct_dm_value_t){.type = CT_DM_VEC3, .as.v = {1, 2, 3}};
    dm->set_property(d, c, "components.transform.position", &v);
    v = (ct_dm_value_t){.type = CT_DM_DOUBLE, .as.d = 2};
    dm->set_property(d, c, "@order", &v);
    dm->add_to_set(d, root, "entities", c);
    char *out = write(d, false);
    assert_string_equal(out, "entities = [\n"
                             "  {\n"
                             "    name = \"a\" // the first\n"
                             "    components = {\n"
                             "      transform = { position = [0 0 0] scale = 0.5 }\n"
                             "      mesh = { mesh = \"box\" }\n"
                             "    }\n"
                             "  }\n"
                             "  {\n"
                             "    name = \"b\"\n"
                             "    components = { body = { kind = \"static\" } }\n"
                             "  }\n"
                             "  {\n"
                             "    id = \"0000000000000000000000000000000c\"\n"
                             "    name = \"c\"\n"
                             "    components = {\n"
                             "      transform = { position = [1 2 3] }\n"
                             "    }\n"
                             "  }\n"
                             "]\n");
    dm->free_text(out);
    /* Removing an entity cuts its lines, comments inside it with it. */
    dm->remove_from_set(d, root, "entities", a);
    dm->destroy(d, a);
    out = write(d, false);
    assert_string_equal(out, "entities = [\n"
                             "  {\n"
                             "    name = \"b\"\n"
                             "    components = { body = { kind = \"static\" } }\n"
                             "  }\n"
                             "  {\n"
                             "    id = \"0000000000000000000000000000000c\"\n"
                             "    name = \"c\"\n"
                             "    components = {\n"
                             "      transform = { position = [1 2 3] }\n"
                             "    }\n"
                             "  }\n"
                             "]\n");
    dm->free_text(out);
    dm->destroy_doc(d);
}

static void children_are_a_set_and_fresh_documents_write_whole(void **state)
{
    (void)state;
    const char *text = "entities = [ { name = \"car\" children = [ { name = \"wheel\" } { name = "
                       "\"wheel\" } ] } ]\n";
    ct_dm_doc_o *d = read_text(text);
    ct_guid_t car = named(d, "car");
    const ct_guid_t *kids;
    uint32_t n;
    assert_int_equal(dm->get_set(d, car, "children", &kids, &n), 0);
    assert_int_equal(n, 2);
    ct_guid_t parent;
    assert_int_equal(dm->get_guid(d, kids[1], "@parent", &parent), 0);
    assert_true(ct_guid_eq(parent, car));
    char *out = write(d, false);
    assert_string_equal(out, text);
    dm->free_text(out);
    dm->destroy_doc(d);

    /* A document made with the API writes a whole file. */
    ct_dm_doc_o *f = dm->create_doc(&(ct_dm_doc_desc_t){.guid_seed = 1});
    ct_guid_t e = {0, 0xe}, k = {0, 0xf};
    dm->create(f, e);
    dm->create(f, k);
    dm->add_to_set(f, root, "entities", e);
    dm->add_to_set(f, e, "children", k);
    ct_dm_value_t v = {.type = CT_DM_STRING, .size = 4, .as.s = "lamp"};
    dm->set_property(f, e, "name", &v);
    v = (ct_dm_value_t){.type = CT_DM_DOUBLE, .as.d = 3};
    dm->set_property(f, e, "components.light.intensity", &v);
    v = (ct_dm_value_t){.type = CT_DM_VEC3, .as.v = {1, 1, 0.5}};
    dm->set_property(f, e, "components.light.color", &v);
    v = (ct_dm_value_t){.type = CT_DM_BLOB, .size = 2, .as.blob = "{}"};
    dm->set_property(f, k, "components.transform", &v);
    out = write(f, false);
    assert_string_equal(out, "entities = [\n"
                             "  {\n"
                             "    id = \"0000000000000000000000000000000e\"\n"
                             "    name = \"lamp\"\n"
                             "    components = {\n"
                             "      light = { intensity = 3 color = [1 1 0.5] }\n"
                             "    }\n"
                             "    children = [\n"
                             "      {\n"
                             "        id = \"0000000000000000000000000000000f\"\n"
                             "        components = { transform = {} }\n"
                             "      }\n"
                             "    ]\n"
                             "  }\n"
                             "]\n");
    /* And reads back as the same document. */
    ct_dm_doc_o *back = read_text(out);
    assert_true(dm->set_contains(back, e, "children", k));
    double c[3];
    assert_int_equal(dm->get_vec3(back, e, "components.light.color", c), 0);
    assert_true(c[2] == 0.5);
    dm->free_text(out);
    dm->destroy_doc(back);
    dm->destroy_doc(f);
}

/* Counts the occurrences of needle in s. */
static int count_of(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* A field set under an empty `{}` goes inside those braces, once: the empty object it replaces
 * is not written beside it (it was: `components = {}` and `components = { ... }`, a key twice),
 * and keys sharing a prefix at any depth are written as one group (`light` was written twice when
 * another component's key was set between two of its fields). */
static void a_field_under_an_empty_object_replaces_it(void **state)
{
    (void)state;
    const char *text = "entities = [\n"
                       "  {\n"
                       "    name = \"a\"\n"
                       "    components = {}\n"
                       "  }\n"
                       "]\n";
    ct_dm_doc_o *d = read_text(text);
    ct_guid_t a = named(d, "a");
    ct_dm_value_t v = {.type = CT_DM_VEC3, .as.v = {1, 2, 3}};
    assert_int_equal(dm->set_property(d, a, "components.transform.position", &v), 0);
    char *out = write(d, false);
    assert_string_equal(out, "entities = [\n"
                             "  {\n"
                             "    name = \"a\"\n"
                             "    components = { transform = { position = [1 2 3] } }\n"
                             "  }\n"
                             "]\n");
    /* It reads back with the one field, and the empty object is gone from the document too. */
    ct_dm_doc_o *back = read_text(out);
    double pos[3];
    assert_int_equal(dm->get_vec3(back, named(back, "a"), "components.transform.position", pos), 0);
    ct_dm_value_t any;
    assert_int_equal(dm->get(back, named(back, "a"), "components", &any), CT_ERR_NOT_FOUND);
    dm->free_text(out);
    dm->destroy_doc(back);

    /* A whole entity written fresh (a new one, or a paste) the same way. */
    ct_guid_t c = {0, 0xc};
    dm->create(d, c);
    v = (ct_dm_value_t){.type = CT_DM_BLOB, .size = 2, .as.blob = "{}"};
    assert_int_equal(dm->set_property(d, c, "components", &v), 0);
    v = (ct_dm_value_t){.type = CT_DM_DOUBLE, .as.d = 2};
    assert_int_equal(dm->set_property(d, c, "components.light.intensity", &v), 0);
    /* Set in the order light, mesh, light: still one `light = { ... }`. */
    v = (ct_dm_value_t){.type = CT_DM_STRING, .size = 3, .as.s = "box"};
    assert_int_equal(dm->set_property(d, c, "components.mesh.mesh", &v), 0);
    v = (ct_dm_value_t){.type = CT_DM_BOOL, .as.b = true};
    assert_int_equal(dm->set_property(d, c, "components.light.shadows", &v), 0);
    v = (ct_dm_value_t){.type = CT_DM_DOUBLE, .as.d = 5};
    assert_int_equal(dm->set_property(d, c, "@order", &v), 0);
    assert_int_equal(dm->add_to_set(d, root, "entities", c), 0);
    out = write(d, false);
    assert_int_equal(count_of(out, "components ="), 2);
    assert_non_null(strstr(out, "    components = {\n"
                                "      light = { intensity = 2 shadows = true }\n"
                                "      mesh = { mesh = \"box\" }\n"
                                "    }\n"));
    assert_null(strstr(out, "{}"));
    dm->free_text(out);
    dm->destroy_doc(d);
}

/* Entities whose order changed in the document are written in that order (they kept their source
 * order before), each with its own text, comments and edits; new entities still go before the
 * next kept one in the new order, and children lists reorder the same way. */
static void reordered_entities_are_written_in_the_new_order(void **state)
{
    (void)state;
    const char *text = "entities = [\n"
                       "  {\n"
                       "    name = \"a\" // the first\n"
                       "    components = { transform = { position = [0 0 0] } }\n"
                       "  }\n"
                       "  { name = \"b\" }\n"
                       "  {\n"
                       "    name = \"c\"\n"
                       "    children = [ { name = \"x\" } { name = \"y\" } ]\n"
                       "  }\n"
                       "]\n";
    ct_dm_doc_o *d = read_text(text);
    ct_guid_t a = named(d, "a"), b = named(d, "b"), c = named(d, "c");
    /* c first, then a (edited), then b; c's children swapped. */
    ct_dm_value_t v = {.type = CT_DM_DOUBLE, .as.d = -1};
    assert_int_equal(dm->set_property(d, c, "@order", &v), 0);
    v.as.d = 5;
    assert_int_equal(dm->set_property(d, b, "@order", &v), 0);
    v = (ct_dm_value_t){.type = CT_DM_VEC3, .as.v = {1, 2, 3}};
    assert_int_equal(dm->set_property(d, a, "components.transform.position", &v), 0);
    const ct_guid_t *kids;
    uint32_t n;
    assert_int_equal(dm->get_set(d, c, "children", &kids, &n), 0);
    assert_int_equal(n, 2);
    ct_guid_t x = kids[0];
    v = (ct_dm_value_t){.type = CT_DM_DOUBLE, .as.d = 9};
    assert_int_equal(dm->set_property(d, x, "@order", &v), 0);
    /* And a new entity between a and b. */
    ct_guid_t e = {0, 0xe};
    assert_int_equal(dm->create(d, e), 0);
    v = (ct_dm_value_t){.type = CT_DM_STRING, .size = 1, .as.s = "e"};
    assert_int_equal(dm->set_property(d, e, "name", &v), 0);
    v = (ct_dm_value_t){.type = CT_DM_DOUBLE, .as.d = 2};
    assert_int_equal(dm->set_property(d, e, "@order", &v), 0);
    assert_int_equal(dm->add_to_set(d, root, "entities", e), 0);
    char *out = write(d, false);
    assert_string_equal(out, "entities = [\n"
                             "  {\n"
                             "    name = \"c\"\n"
                             "    children = [ { name = \"y\" } { name = \"x\" } ]\n"
                             "  }\n"
                             "  {\n"
                             "    name = \"a\" // the first\n"
                             "    components = { transform = { position = [1 2 3] } }\n"
                             "  }\n"
                             "  {\n"
                             "    id = \"0000000000000000000000000000000e\"\n"
                             "    name = \"e\"\n"
                             "  }\n"
                             "  { name = \"b\" }\n"
                             "]\n");
    /* Read back, the order is the document's; written again, unchanged. */
    ct_dm_doc_o *back = read_text(out);
    double order;
    assert_int_equal(dm->get_double(back, named(back, "c"), "@order", &order), 0);
    assert_true(order == 0);
    assert_int_equal(dm->get_double(back, named(back, "b"), "@order", &order), 0);
    assert_true(order == 3);
    char *again = write(back, false);
    assert_string_equal(again, out);
    dm->free_text(again);
    dm->free_text(out);
    dm->destroy_doc(back);
    dm->destroy_doc(d);
}

static void bad_sources_are_refused_with_a_place(void **state)
{
    (void)state;
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"entities = [ { id = \"123\" } ]",
         "t.level:1:21: `id` must be a GUID of 32 hex digits, not 0"},
        {"entities = { }", "t.level:1:12: `entities` must be an array"},
        {"entities = [ 3 ]", "t.level:1:14: an entity must be an object { ... }"},
        {"entities = [ { id = \"0000000000000000000000000000000a\" }\n { id = "
         "\"0000000000000000000000000000000A\" } ]",
         "t.level:2:2: two entities have this `id`"},
        {"entities = [ { name = \"x\" ", "t.level:1:27: expected '}', found end of file"},
        {"entities = [ { name = \"a\" name = \"b\" } ]",
         "t.level:1:27: field 'name' is given twice"},
        {"entities = [ { \"a.b\" = 1 } ]",
         "t.level:1:14: a field name that is empty, has a '.', or makes a key over 255 bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[256] = "";
        ct_dm_doc_o *d =
            dm->read_level(cases[i].text, strlen(cases[i].text), "t.level", NULL, err, sizeof err);
        assert_null(d);
        assert_string_equal(err, cases[i].error);
    }
}

/* Numbers are read exactly as strtod reads them, bit for bit (the reader has a fast path for
 * plain decimals): fixed cases at the edges of that path, then 20,000 generated decimals of 1 to
 * 20 digits with the point anywhere, signs and leading zeros. */
static void numbers_read_exactly_as_strtod(void **state)
{
    (void)state;
    static const char *const fixed[] = {"0",
                                        "-0",
                                        "+1.5",
                                        ".5",
                                        "5.",
                                        "-0.0",
                                        "0.1",
                                        "0.25",
                                        "1e5",
                                        "-2.5E-3",
                                        "0x10",
                                        "1.7976931348623157e308",
                                        "9007199254740991",
                                        "9007199254740992",
                                        "9007199254740993",
                                        "900719925474099.3",
                                        "0.0000000000000000000001",
                                        "0.00000000000000000000001",
                                        "123456789012345678901234",
                                        "4.9e-324",
                                        "0.30000000000000004"};
    enum { GENERATED = 20000 };
    size_t n_fixed = sizeof fixed / sizeof fixed[0], cap = (n_fixed + GENERATED) * 48, len = 0;
    char *text = malloc(cap), (*tokens)[32] = malloc((n_fixed + GENERATED) * sizeof *tokens);
    assert_non_null(text);
    assert_non_null(tokens);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n_fixed + GENERATED; i++) {
        if (i < n_fixed) {
            snprintf(tokens[i], sizeof tokens[i], "%s", fixed[i]);
        } else {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            uint32_t digits = 1 + (uint32_t)(rng % 20), dot = (uint32_t)(rng >> 8) % (digits + 2);
            char *t = tokens[i];
            if ((rng >> 20) % 3 == 0)
                *t++ = '-';
            for (uint32_t d = 0; d < digits; d++) {
                if (d == dot)
                    *t++ = '.';
                uint64_t r = rng >> (24 + d % 32);
                /* Leading zeros now and then (they do not count against the exact range). */
                *t++ = (char)('0' + (d == 0 && (rng >> 40) % 4 == 0 ? 0 : r % 10));
            }
            *t = 0;
        }
        len += (size_t)snprintf(text + len, cap - len, "n%zu = %s\n", i, tokens[i]);
    }
    char err[256];
    ct_dm_doc_o *d = dm->read_level(text, len, "numbers.level", NULL, err, sizeof err);
    if (!d)
        fprintf(stderr, "%s\n", err);
    assert_non_null(d);
    uint32_t differ = 0;
    for (size_t i = 0; i < n_fixed + GENERATED; i++) {
        char key[32];
        snprintf(key, sizeof key, "n%zu", i);
        double got = 0, want = strtod(tokens[i], NULL);
        assert_int_equal(dm->get_double(d, root, key, &got), 0);
        if (memcmp(&got, &want, sizeof got) != 0 && differ++ < 5)
            fprintf(stderr, "%s: read %.17g, strtod %.17g\n", tokens[i], got, want);
    }
    assert_int_equal(differ, 0);
    dm->destroy_doc(d);
    free(tokens);
    free(text);
}

/* An allocator for the documents' lookup tables that fails while `index_fails` is set, counting
 * what it gave and what it refused. */
static bool index_fails;
static uint32_t index_given, index_refused;

static void *index_realloc(ct_allocator_t *a, void *ptr, size_t old_size, size_t new_size,
                           const char *file, uint32_t line)
{
    (void)a, (void)old_size, (void)file, (void)line;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    if (index_fails) {
        index_refused++;
        return NULL;
    }
    index_given++;
    return realloc(ptr, new_size);
}

/* A level's reader makes no property lookups, so a document is read without its property index
 * (it is made at the first lookup). When that index cannot get memory, every property is still
 * found (by a search), overwritten in place rather than made twice, written and undone; once
 * memory comes back, the index is made and gives the same answers. */
static void properties_are_found_without_their_index(void **state)
{
    (void)state;
    static ct_allocator_t failing = {NULL, index_realloc};
    datamodel__set_index_allocator(&failing);
    enum { N = 40 };
    char text[N * 120 + 64];
    size_t len = (size_t)snprintf(text, sizeof text, "gravity = -9.5\nentities = [\n");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "  { id = \"%032x\" name = \"e%d\" mass = { kg = %d } }\n", i + 1,
                                i, i);
    len += (size_t)snprintf(text + len, sizeof text - len, "]\n");
    char err[256];
    index_given = index_refused = 0;
    ct_dm_doc_o *d = dm->read_level(text, len, "t.level", NULL, err, sizeof err);
    assert_non_null(d);
    assert_int_equal(index_refused, 0);
    assert_true(index_given > 0); /* the GUID and key tables came from this allocator */

    index_fails = true;
    for (int i = 0; i < N; i++) {
        ct_guid_t g = {0, (uint64_t)i + 1};
        double kg = -1;
        const char *name = NULL;
        char want[8];
        snprintf(want, sizeof want, "e%d", i);
        assert_int_equal(dm->get_double(d, g, "mass.kg", &kg), 0);
        assert_true(kg == i);
        assert_int_equal(dm->get_string(d, g, "name", &name), 0);
        assert_string_equal(name, want);
    }
    /* The property index was asked for and refused: the answers above came from the search. */
    assert_true(index_refused > 0);
    double x;
    assert_int_equal(dm->get_double(d, root, "gravity", &x), 0);
    assert_true(x == -9.5);
    const ct_guid_t e5 = {0, 6};
    assert_int_equal(dm->get_double(d, e5, "gravity", &x), CT_ERR_NOT_FOUND);
    const char *before[8], *after[8];
    uint32_t n_before = dm->keys(d, e5, before, 8);
    ct_dm_value_t v = {.type = CT_DM_DOUBLE, .as.d = 50};
    assert_int_equal(dm->set_property(d, e5, "mass.kg", &v), 0);
    assert_int_equal(dm->keys(d, e5, after, 8), n_before); /* overwritten, not made twice */
    assert_int_equal(dm->get_double(d, e5, "mass.kg", &x), 0);
    assert_true(x == 50);
    char *out = dm->write_level(d, NULL, NULL);
    assert_non_null(out);
    assert_non_null(strstr(out, "  { id = \"00000000000000000000000000000006\" name = \"e5\" "
                                "mass = { kg = 50 } }\n"));
    dm->free_text(out);
    assert_int_equal(dm->undo(d, NULL), 0);
    assert_int_equal(dm->get_double(d, e5, "mass.kg", &x), 0);
    assert_true(x == 5);

    /* Memory again: the index is made (from the same allocator) and agrees. */
    index_fails = false;
    uint32_t given = index_given;
    assert_int_equal(dm->get_double(d, (ct_guid_t){0, 40}, "mass.kg", &x), 0);
    assert_true(x == 39);
    assert_true(index_given > given);
    assert_int_equal(dm->redo(d, NULL), 0);
    assert_int_equal(dm->get_double(d, e5, "mass.kg", &x), 0);
    assert_true(x == 50);
    assert_int_equal(dm->get_double(d, e5, "gravity", &x), CT_ERR_NOT_FOUND);
    /* Tables keep the allocator they were made with: freed through it after the default is back. */
    datamodel__set_index_allocator(NULL);
    dm->destroy_doc(d);
}

int main(void)
{
    dm = datamodel__api_v1();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_demo_round_trips_byte_for_byte),
        cmocka_unit_test(the_arena_as_a_document),
        cmocka_unit_test(a_one_field_edit_is_a_one_line_diff),
        cmocka_unit_test(a_tools_first_write_assigns_ids),
        cmocka_unit_test(new_and_removed_fields_and_entities),
        cmocka_unit_test(children_are_a_set_and_fresh_documents_write_whole),
        cmocka_unit_test(bad_sources_are_refused_with_a_place),
        cmocka_unit_test(a_field_under_an_empty_object_replaces_it),
        cmocka_unit_test(reordered_entities_are_written_in_the_new_order),
        cmocka_unit_test(numbers_read_exactly_as_strtod),
        cmocka_unit_test(properties_are_found_without_their_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
