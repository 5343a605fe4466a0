/*
 * Levels and units as documents (api/ct_datamodel.h, "LEVELS AND UNITS AS DOCUMENTS").
 *
 * Reading flattens each entity's fields into dotted keys (components.transform.position) and
 * keeps the parsed source with its spans. Writing compares the document with that source entity
 * by entity and key by key, and edits only what differs: a changed value's span is replaced, a
 * removed field's or entity's lines are cut, a new field goes after its siblings with their
 * indentation, a new entity before the next kept sibling. Everything else is copied byte for
 * byte, comments included, so an untouched document writes its source back unchanged and a
 * one-field edit is a one-line diff.
 */
#include "datamodel.h"
#include "datamodel_internal.h"

#include <math.h>

#include "ct_hash.h"
#include "dm_sjson.h"

typedef struct dm_ent_t {
    uint32_t node;
    uint32_t obj; /* the document's index of its object (objects never move) */
    ct_guid_t guid, parent;
    bool has_id;
} dm_ent_t;

struct dm_level_t {
    char *text;
    uint32_t len;
    dm_sjson_t js;
    dm_ent_t *ents; /* in reading order, which is node order: the parser numbers nodes in
                       pre-order, and entities are read in pre-order too */
    uint32_t num_ents, cap_ents;
};

static const ct_guid_t root_guid = {0, 0};

/* The entity read from node e (binary search: ents are in node order). */
static const dm_ent_t *ent_of(const dm_level_t *lv, uint32_t e)
{
    uint32_t lo = 0, hi = lv->num_ents;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (lv->ents[mid].node < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &lv->ents[lo];
}

void dm_level__free(dm_level_t *level)
{
    if (!level)
        return;
    free(level->text);
    dm_sjson__free(&level->js);
    free(level->ents);
    free(level);
}

/* ---- leaves: a source value as a model value ---- */

/* Room for a short string value decoded on the stack (longer ones go to the heap). */
#define DM_LEAF_BUF 256

/* The model value of a leaf node. Strings are decoded into buf (DM_LEAF_BUF bytes) when they fit,
 * else into *scratch (malloc'd, the caller frees); anything the model has no type for (other
 * arrays, empty objects, null) is a blob of its source text, pointing into the text. */
static void leaf_value(const dm_sjson_t *js, uint32_t n, ct_dm_value_t *out, char *buf,
                       char **scratch)
{
    const dm_node_t *node = &js->nodes[n];
    *out = (ct_dm_value_t){0};
    switch (node->type) {
    case DM_J_NUMBER:
        if (!isnan(node->num)) {
            out->type = CT_DM_DOUBLE;
            out->as.d = node->num;
            return;
        }
        break;
    case DM_J_TRUE:
    case DM_J_FALSE:
        out->type = CT_DM_BOOL;
        out->as.b = node->type == DM_J_TRUE;
        return;
    case DM_J_STRING: {
        uint32_t len = dm_sjson__decode_to(js, n, false, buf, DM_LEAF_BUF);
        const char *s = buf;
        if (len == UINT32_MAX)
            s = *scratch = dm_sjson__decode(js, n, false, &len);
        if (s) {
            out->type = CT_DM_STRING;
            out->size = len;
            out->as.s = s;
            return;
        }
        break;
    }
    case DM_J_ARRAY:
        if (node->count == 3 || node->count == 4) {
            uint32_t i = 0;
            bool numbers = true;
            for (uint32_t e = node->first; e != DM_NONE; e = js->nodes[e].next, i++) {
                numbers = numbers && js->nodes[e].type == DM_J_NUMBER && !isnan(js->nodes[e].num);
                out->as.v[i] = js->nodes[e].num;
            }
            if (numbers) {
                out->type = node->count == 3 ? CT_DM_VEC3 : CT_DM_QUAT;
                return;
            }
        }
        break;
    default: break;
    }
    out->type = CT_DM_BLOB;
    out->size = node->end - node->start;
    out->as.blob = js->text + node->start;
}

/* Calls f for every leaf of object `obj` with its dotted key (klen bytes); members named in `skip`
 * (top level only) are passed over. Non-empty objects recurse; everything else is a leaf. */
typedef int (*leaf_f)(void *ctx, const char *key, size_t klen, uint32_t member);

static int flatten(const dm_sjson_t *js, uint32_t obj, char *key, size_t prefix,
                   const char *const *skip, leaf_f f, void *ctx)
{
    for (uint32_t m = js->nodes[obj].first; m != DM_NONE; m = js->nodes[m].next) {
        const dm_node_t *n = &js->nodes[m];
        const char *t = js->text + n->key_start;
        bool quoted = t[0] == '"', skipped = false;
        /* A skipped name's first letter first: most members are no skipped name. */
        for (const char *const *s = skip; s && *s && !skipped; s++)
            skipped = t[quoted] == (*s)[0] && dm_sjson__key_is(js, m, *s);
        if (skipped)
            continue;
        size_t at = prefix ? prefix + 1 : 0;
        uint32_t klen = n->key_end - n->key_start;
        if (!quoted) {
            /* A bare key is letters, digits and '_' (never a '.'): copied as it is. */
            if (at + klen > CT_DM_MAX_KEY)
                return CT_ERR_BAD_DATA;
            memcpy(key + at, t, klen);
        } else {
            /* Decoded on the stack; a key too long for it even before decoding goes to the heap. */
            char kb[CT_DM_MAX_KEY + 3], *heap = NULL;
            const char *k = kb;
            klen = dm_sjson__decode_to(js, m, true, kb, sizeof kb);
            if (klen == UINT32_MAX && !(k = heap = dm_sjson__decode(js, m, true, &klen)))
                return CT_ERR_NOMEM;
            if (at + klen > CT_DM_MAX_KEY || klen == 0 || memchr(k, '.', klen)) {
                free(heap);
                return CT_ERR_BAD_DATA;
            }
            memcpy(key + at, k, klen);
            free(heap);
        }
        if (prefix)
            key[prefix] = '.';
        key[at + klen] = 0;
        int r = n->type == DM_J_OBJECT && n->count ? flatten(js, m, key, at + klen, NULL, f, ctx)
                                                   : f(ctx, key, at + klen, m);
        key[prefix] = 0;
        if (r)
            return r;
    }
    return 0;
}

/* ---- reading ---- */

/* Key ids remembered by leaf number (see read_leaf). */
#define DM_GUESSES 32

typedef struct reader_t {
    ct_dm_doc_o *doc;
    dm_level_t *lv;
    uint32_t obj; /* the object whose fields are being read */
    const char *filename;
    char *err;
    size_t err_size;
    uint32_t order_key, parent_key, children_key; /* key ids of @order, @parent, children */
    uint32_t leaf;                                /* the current object's leaves so far */
    uint32_t guess[DM_GUESSES]; /* by leaf number: the key id the last object had there */
} reader_t;

static const dm_prop_t *prop(ct_dm_doc_o *doc, ct_guid_t g, const char *key);
static void fail_at(reader_t *rd, uint32_t at, const char *what);

static int read_leaf(void *ctx, const char *key, size_t klen, uint32_t member)
{
    reader_t *rd = ctx;
    char buf[DM_LEAF_BUF], *scratch = NULL;
    ct_dm_value_t v;
    leaf_value(&rd->lv->js, member, &v, buf, &scratch);
    /* The key: most likely the one the previous entity had at this place (a level's entities
     * mostly share their shape), else interned. */
    const dm_strings_t *keys = &rd->doc->keys;
    uint32_t *guess = &rd->guess[rd->leaf++ % DM_GUESSES], k = *guess, known = keys->count;
    if (k >= known || keys->lens[k] != klen || memcmp(keys->strs[k], key, klen) != 0)
        k = *guess = dm_strings__intern(&rd->doc->keys, key, klen);
    /* Base values: stamp 0, so no later write ever counts as a conflict with the file. */
    int r = k == DM_NONE ? CT_ERR_NOMEM
                         : dm__set_new(rd->doc, rd->obj, k, keys->count != known, &v,
                                       (dm_stamp_t){0, rd->doc->me});
    free(scratch);
    /* A field given twice has no one value to write back: refused (the compilers' reader would
     * silently take one of them). */
    if (r == CT_ERR_CONFLICT) {
        char what[CT_DM_MAX_KEY + 64];
        snprintf(what, sizeof what, "field '%s' is given twice", key);
        fail_at(rd, rd->lv->js.nodes[member].key_start, what);
    }
    return r;
}

static void fail_at(reader_t *rd, uint32_t at, const char *what)
{
    char where[200];
    dm_sjson__where(&rd->lv->js, at, rd->filename, where, sizeof where);
    snprintf(rd->err, rd->err_size, "%s: %s", where, what);
}

/* The GUID of an entity without an `id`: from its parent, name and rank among same-named
 * siblings, so every reader of one hand-written file agrees. */
static ct_guid_t derived_guid(ct_guid_t parent, const char *name, uint32_t rank)
{
    size_t n = strlen(name);
    unsigned char buf[16 + 4 + CT_DM_MAX_KEY + 1];
    if (n > CT_DM_MAX_KEY)
        n = CT_DM_MAX_KEY;
    memcpy(buf, &parent, 16);
    memcpy(buf + 16, &rank, 4);
    memcpy(buf + 20, name, n);
    ct_guid_t g = {ct_murmur64a(buf, 20 + n, 0x1d5eed), ct_murmur64a(buf, 20 + n, 0x2d5eed)};
    if (ct_guid_is_root(g))
        g.lo = 1;
    return g;
}

/* The members of entity node e that the reader treats apart: id, name, children. */
static void entity_members(const dm_sjson_t *js, uint32_t e, uint32_t *id, uint32_t *name,
                           uint32_t *kids)
{
    *id = *name = *kids = DM_NONE;
    for (uint32_t m = js->nodes[e].first; m != DM_NONE; m = js->nodes[m].next) {
        if (*id == DM_NONE && dm_sjson__key_is(js, m, "id"))
            *id = m;
        else if (*name == DM_NONE && dm_sjson__key_is(js, m, "name"))
            *name = m;
        else if (*kids == DM_NONE && dm_sjson__key_is(js, m, "children"))
            *kids = m;
    }
}

/*
 * The entities of one list (`entities` of the root, `children` of an entity) into the document,
 * owner object index `owner` (GUID parent), set key id `set_key`. The document is the reader's
 * own (no undo log, no listeners, no recording), so what the five operations would do is done
 * directly, with base stamps: each entity's object; the owner's set, made at its first entity;
 * the entity's @order and @parent, then its fields. No lookup by key is made, so the property
 * index is built at the document's first lookup, not property by property while reading.
 */
static int read_entities(reader_t *rd, uint32_t array, uint32_t owner, ct_guid_t parent,
                         uint32_t set_key)
{
    dm_sjson_t *js = &rd->lv->js;
    ct_dm_doc_o *doc = rd->doc;
    if (js->nodes[array].type != DM_J_ARRAY) {
        fail_at(rd, js->nodes[array].start,
                ct_guid_is_root(parent) ? "`entities` must be an array"
                                        : "`children` must be an array");
        return CT_ERR_BAD_DATA;
    }
    /* Ranks among same-named siblings without ids: a count per name hash. */
    dm_map_t ranks = {0};
    uint32_t order = 0, set = DM_NONE;
    int r = 0;
    const dm_stamp_t base = {0, doc->me};
    for (uint32_t e = js->nodes[array].first; e != DM_NONE && !r; e = js->nodes[e].next, order++) {
        if (js->nodes[e].type != DM_J_OBJECT) {
            fail_at(rd, js->nodes[e].start, "an entity must be an object { ... }");
            r = CT_ERR_BAD_DATA;
            break;
        }
        uint32_t idn, namen, kids;
        entity_members(js, e, &idn, &namen, &kids);
        ct_guid_t g;
        if (idn != DM_NONE) {
            char buf[DM_LEAF_BUF];
            uint32_t len = js->nodes[idn].type == DM_J_STRING
                               ? dm_sjson__decode_to(js, idn, false, buf, sizeof buf)
                               : UINT32_MAX;
            if (len == UINT32_MAX || !ct_guid_parse(buf, len, &g) || ct_guid_is_root(g)) {
                fail_at(rd, js->nodes[idn].start, "`id` must be a GUID of 32 hex digits, not 0");
                r = CT_ERR_BAD_DATA;
                break;
            }
        } else {
            char *name = namen != DM_NONE && js->nodes[namen].type == DM_J_STRING
                             ? dm_sjson__decode(js, namen, false, NULL)
                             : NULL;
            const char *nm = name ? name : "";
            uint64_t h = dm__hash_bytes(nm, strlen(nm));
            uint32_t rank = dm_map__get(&ranks, h, 0);
            rank = rank == DM_NONE ? 0 : rank;
            if (!dm_map__put(&ranks, h, 0, rank + 1)) {
                free(name);
                r = CT_ERR_NOMEM;
                break;
            }
            g = derived_guid(parent, nm, rank);
            free(name);
        }
        dm_level_t *lv = rd->lv;
        if (!dm__grow((void **)&lv->ents, &lv->cap_ents, lv->num_ents + 1, sizeof *lv->ents)) {
            r = CT_ERR_NOMEM;
            break;
        }
        bool exists;
        uint32_t o = dm__create_new(doc, g, base, &exists);
        if (exists) {
            fail_at(rd, js->nodes[e].start,
                    idn != DM_NONE ? "two entities have this `id`"
                                   : "an entity's derived id collides (give it an `id`)");
            r = CT_ERR_BAD_DATA;
            break;
        }
        if (o == DM_NONE) {
            r = CT_ERR_NOMEM;
            break;
        }
        lv->ents[lv->num_ents++] = (dm_ent_t){e, o, g, parent, idn != DM_NONE};
        if (set == DM_NONE &&
            (set = dm__set_fresh(doc, owner, set_key, &(ct_dm_value_t){.type = CT_DM_SET}, base)) ==
                DM_NONE) {
            r = CT_ERR_NOMEM;
            break;
        }
        ct_dm_value_t at = {.type = CT_DM_DOUBLE, .as.d = order};
        ct_dm_value_t up = {.type = CT_DM_GUID, .as.guid = parent};
        if (!dm__set_append(doc, set, g) ||
            dm__set_fresh(doc, o, rd->order_key, &at, base) == DM_NONE ||
            dm__set_fresh(doc, o, rd->parent_key, &up, base) == DM_NONE) {
            r = CT_ERR_NOMEM;
            break;
        }
        char key[CT_DM_MAX_KEY + 1] = "";
        static const char *const skip[] = {"id", "children", NULL};
        rd->obj = o;
        rd->leaf = 0;
        r = flatten(js, e, key, 0, skip, read_leaf, rd);
        if (r == CT_ERR_BAD_DATA)
            fail_at(rd, js->nodes[e].start,
                    "a field name that is empty, has a '.', or makes a key over 255 bytes");
        if (!r && kids != DM_NONE)
            r = read_entities(rd, kids, o, g, rd->children_key);
    }
    dm_map__free(&ranks);
    return r;
}

static ct_dm_doc_o *read_level(const char *text, size_t len, const char *filename,
                               const ct_dm_doc_desc_t *desc, char *err, size_t err_size)
{
    char dummy[8];
    if (!err || !err_size) {
        err = dummy;
        err_size = sizeof dummy;
    }
    err[0] = 0;
    const char *file = filename ? filename : "<level>";
    ct_dm_doc_o *doc = dm__create_doc(desc);
    dm_level_t *lv = calloc(1, sizeof *lv);
    if (!doc || !lv || !text || len >= UINT32_MAX || !(lv->text = malloc(len + 1))) {
        snprintf(err, err_size, "%s: %s", file, text ? "out of memory" : "no text");
        goto fail;
    }
    memcpy(lv->text, text, len);
    lv->text[len] = 0;
    lv->len = (uint32_t)len;
    if (!dm_sjson__parse(&lv->js, lv->text, len, file, err, err_size))
        goto fail;
    doc->level = lv;
    /* Room for what the reading makes, at once: an object per entity (bounded by the objects
     * that are array elements) and a property per leaf (bounded by the members that are not
     * objects with members), two more per entity and the lists; not a doubling and a re-index
     * each time. Not more: the object index is probed at random, and a table sized for every
     * object of the text (components too) would not stay in cache. */
    uint32_t leaves = 0, entities = 1;
    for (uint32_t i = 1; i < lv->js.count; i++) {
        const dm_node_t *nd = &lv->js.nodes[i];
        bool member = nd->key_end != 0, branch = nd->type == DM_J_OBJECT && nd->count;
        leaves += member && !branch;
        entities += !member && nd->type == DM_J_OBJECT;
    }
    if (!dm__reserve(doc, entities, leaves + 3 * entities)) {
        snprintf(err, err_size, "%s: out of memory", file);
        goto fail;
    }
    reader_t rd = {.doc = doc,
                   .lv = lv,
                   .filename = file,
                   .err = err,
                   .err_size = err_size,
                   .order_key = dm_strings__intern(&doc->keys, "@order", 6),
                   .parent_key = dm_strings__intern(&doc->keys, "@parent", 7),
                   .children_key = dm_strings__intern(&doc->keys, "children", 8)};
    uint32_t entities_key = dm_strings__intern(&doc->keys, "entities", 8);
    char key[CT_DM_MAX_KEY + 1] = "";
    static const char *const skip[] = {"entities", NULL};
    doc->log = NULL;
    int r = rd.order_key == DM_NONE || rd.parent_key == DM_NONE || rd.children_key == DM_NONE ||
                    entities_key == DM_NONE
                ? CT_ERR_NOMEM
                : flatten(&lv->js, 0, key, 0, skip, read_leaf, &rd);
    if (r == CT_ERR_BAD_DATA)
        fail_at(&rd, 0, "a top-level field name that is empty or has a '.'");
    uint32_t ents = dm_sjson__get(&lv->js, 0, "entities");
    if (!r && ents != DM_NONE)
        r = read_entities(&rd, ents, 0, root_guid, entities_key);
    if (r) {
        if (!err[0])
            snprintf(err, err_size, "%s: %s", file,
                     r == CT_ERR_NOMEM ? "out of memory" : doc->error);
        dm__destroy_doc(doc);
        return NULL;
    }
    return doc;
fail:
    if (doc && doc->level == lv)
        doc->level = NULL;
    dm_level__free(lv);
    dm__destroy_doc(doc);
    return NULL;
}

/* ---- writing ---- */

typedef struct edit_t {
    uint32_t start, end; /* replaced span; start == end inserts */
    uint32_t seq;        /* insertions at one place keep the order they were made in */
    char *text;
} edit_t;

typedef struct writer_t {
    ct_dm_doc_o *doc;
    dm_level_t *lv; /* NULL: a fresh write */
    bool assign_ids;
    edit_t *edits;
    uint32_t num_edits, cap_edits;
    bool failed;
    /* Per property: the write_fields pass that found it in the source (so the ones it did not
     * find are new). Per object, for write_list: the pass that found it a member of the list
     * (and where) and in the source list (and which node). Shared with the writers of moved
     * entities, as is the pass counter. */
    uint32_t *mark, *pass;
    uint32_t *in_doc, *doc_pos, *in_src, *src_node;
} writer_t;

static void add_edit(writer_t *w, uint32_t start, uint32_t end, data_text_t *t)
{
    if (t->failed ||
        !dm__grow((void **)&w->edits, &w->cap_edits, w->num_edits + 1, sizeof *w->edits)) {
        w->failed = true;
        free(t->s);
        return;
    }
    w->edits[w->num_edits] = (edit_t){start, end, w->num_edits, t->s};
    w->num_edits++;
    *t = (data_text_t){0};
}

/* Property (key id) k of object o, or DM_NONE. An entity or the root has a few properties, next
 * to each other when read from a file: they are walked, and the document's index (which a
 * freshly read document builds on its first lookup, all at once) is asked only about bigger
 * objects. */
static uint32_t prop_near(ct_dm_doc_o *doc, uint32_t o, uint32_t k)
{
    uint32_t p = doc->objs[o].first_prop;
    for (int i = 0; i < 32 && p != DM_NONE; i++, p = doc->props[p].next)
        if (doc->props[p].key == k)
            return p;
    return p == DM_NONE ? DM_NONE : dm__find_prop(doc, o, k);
}

/* Property `key` of the object at index o, or NULL. */
static const dm_prop_t *prop_of(ct_dm_doc_o *doc, uint32_t o, const char *key)
{
    uint32_t k = o == DM_NONE ? DM_NONE : dm_strings__find(&doc->keys, key, strlen(key));
    uint32_t p = k == DM_NONE ? DM_NONE : prop_near(doc, o, k);
    return p == DM_NONE || doc->props[p].value.type == CT_DM_NULL ? NULL : &doc->props[p];
}

/* Property `key` of object g, or NULL. */
static const dm_prop_t *prop(ct_dm_doc_o *doc, ct_guid_t g, const char *key)
{
    return prop_of(doc, dm__find_obj(doc, g), key);
}

/* A value in source spelling: numbers, "strings", [x y z], blobs verbatim. */
static void put_source_value(data_text_t *t, const ct_dm_value_t *v)
{
    char gs[33];
    switch (v->type) {
    case CT_DM_BOOL: data__text_puts(t, v->as.b ? "true" : "false"); break;
    case CT_DM_DOUBLE: dm__put_number(t, v->as.d); break;
    case CT_DM_VEC3:
    case CT_DM_QUAT:
        data__text_puts(t, "[");
        for (int i = 0; i < (v->type == CT_DM_VEC3 ? 3 : 4); i++) {
            if (i)
                data__text_puts(t, " ");
            dm__put_number(t, v->as.v[i]);
        }
        data__text_puts(t, "]");
        break;
    case CT_DM_STRING: data__text_string(t, v->as.s, v->size); break;
    case CT_DM_BLOB: data__text_put(t, v->as.blob, v->size); break;
    case CT_DM_GUID:
        ct_guid_format(v->as.guid, gs);
        data__text_puts(t, "\"");
        data__text_puts(t, gs);
        data__text_puts(t, "\"");
        break;
    case CT_DM_SET:
        data__text_puts(t, "[");
        for (uint32_t i = 0; i < v->size; i++) {
            ct_guid_format(v->as.set[i], gs);
            data__text_puts(t, i ? " \"" : "\"");
            data__text_puts(t, gs);
            data__text_puts(t, "\"");
        }
        data__text_puts(t, "]");
        break;
    default: data__text_puts(t, "null"); break;
    }
}

static bool is_meta(const char *key)
{
    return key[0] == '@' || strcmp(key, "children") == 0 || strcmp(key, "entities") == 0;
}

static bool bare_key(const char *k, size_t n)
{
    if (!n || (k[0] >= '0' && k[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

static void put_key(data_text_t *t, const char *k, size_t n)
{
    if (bare_key(k, n))
        data__text_put(t, k, n);
    else
        data__text_string(t, k, n);
}

static void indent(data_text_t *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        data__text_puts(t, " ");
}

/*
 * Writes `keys` (dotted, relative, grouped as field_keys groups them) of object g as SJSON
 * members, nesting shared prefixes: "a.b = 1", "a.c = 2" -> `a = { b = 1 c = 2 }`. A group of
 * leaves only goes on one line; deeper groups go one member a line at `ind`. `skip` chars of every
 * key are already written. A key that other keys extend ("a" beside "a.b": an empty object `{}`
 * read from a file, then a field set under it) is not written: its name opens the group of the
 * longer keys, and writing both would give the name twice.
 */
static void put_members(data_text_t *t, ct_dm_doc_o *doc, ct_guid_t g, const char **keys,
                        uint32_t n, size_t skip, uint32_t ind, bool multiline)
{
    bool first = true;
    for (uint32_t i = 0; i < n;) {
        const char *k = keys[i] + skip;
        size_t seg = strcspn(k, ".");
        /* The run of keys with this first segment: the key itself and the longer ones. */
        uint32_t j = i, leaf = DM_NONE, longer = 0;
        for (; j < n && strncmp(keys[j] + skip, k, seg) == 0 &&
               (keys[j][skip + seg] == '.' || keys[j][skip + seg] == 0);
             j++) {
            if (keys[j][skip + seg] == 0)
                leaf = j;
            else
                keys[i + longer++] = keys[j];
        }
        if (multiline)
            indent(t, ind);
        else if (!first)
            data__text_puts(t, " ");
        first = false;
        put_key(t, k, seg);
        data__text_puts(t, " = ");
        if (!longer) {
            const dm_prop_t *p = prop(doc, g, keys[leaf]);
            ct_dm_value_t v = p ? dm__view(&p->value) : (ct_dm_value_t){0};
            put_source_value(t, &v);
        } else {
            bool deep = false;
            for (uint32_t m = i; m < i + longer; m++)
                deep = deep || strchr(keys[m] + skip + seg + 1, '.');
            data__text_puts(t, deep ? "{\n" : "{ ");
            put_members(t, doc, g, keys + i, longer, skip + seg + 1, ind + 2, deep);
            if (deep)
                indent(t, ind);
            data__text_puts(t, deep ? "}" : " }");
        }
        if (multiline)
            data__text_puts(t, "\n");
        i = j;
    }
}

/* How many whole dotted segments two keys share at their start. */
static uint32_t shared_segments(const char *a, const char *b)
{
    uint32_t n = 0;
    for (size_t i = 0;; i++) {
        bool end_a = a[i] == '.' || a[i] == 0, end_b = b[i] == '.' || b[i] == 0;
        if (end_a || end_b) {
            if (!(end_a && end_b))
                return n;
            n++;
            if (!a[i] || !b[i])
                return n;
        } else if (a[i] != b[i]) {
            return n;
        }
    }
}

/* The keys of g that are fields (not @order, @parent, children), grouped so keys sharing a
 * prefix of segments are adjacent at every depth (first-set order otherwise): "a.x.p", "a.y",
 * "a.x.q" -> "a.x.p", "a.x.q", "a.y", so put_members writes `x` once. Caller frees. */
static const char **field_keys_of(ct_dm_doc_o *doc, ct_guid_t g, uint32_t *n, uint32_t **props)
{
    uint32_t o = dm__find_obj(doc, g), count = 0;
    for (uint32_t p = doc->objs[o].first_prop; p != DM_NONE; p = doc->props[p].next)
        count++;
    const char **keys = malloc((size_t)(count ? count : 1) * sizeof *keys);
    uint32_t *at_prop = props ? malloc((size_t)(count ? count : 1) * sizeof *at_prop) : NULL;
    *n = 0;
    if (!keys || (props && !at_prop)) {
        free(keys);
        free(at_prop);
        return NULL;
    }
    if (props)
        *props = at_prop;
    for (uint32_t p = doc->objs[o].first_prop; p != DM_NONE; p = doc->props[p].next) {
        const char *k = doc->keys.strs[doc->props[p].key];
        if (doc->props[p].value.type == CT_DM_NULL || is_meta(k))
            continue;
        /* Insert after the last key sharing the most segments with it (the keys sharing any
         * prefix are one run already, so that run's end keeps every depth grouped). */
        uint32_t at = *n, best = 0;
        for (uint32_t i = *n; i-- > 0;) {
            uint32_t c = shared_segments(keys[i], k);
            if (c > best) {
                best = c;
                at = i + 1;
            } else if (!c && best) {
                break; /* past the run sharing a first segment with k: nothing before shares more */
            }
        }
        memmove(keys + at + 1, keys + at, (size_t)(*n - at) * sizeof *keys);
        keys[at] = k;
        if (at_prop) {
            memmove(at_prop + at + 1, at_prop + at, (size_t)(*n - at) * sizeof *at_prop);
            at_prop[at] = p;
        }
        (*n)++;
    }
    return keys;
}

static const char **field_keys(ct_dm_doc_o *doc, ct_guid_t g, uint32_t *n)
{
    return field_keys_of(doc, g, n, NULL);
}

/* A member of a list: its place, its GUID, its object. */
typedef struct ranked_t {
    double order;
    ct_guid_t g;
    uint32_t obj;
} ranked_t;

static int ranked_cmp(const void *x, const void *y)
{
    const ranked_t *a = x, *b = y;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    if (a->g.hi != b->g.hi)
        return a->g.hi < b->g.hi ? -1 : 1;
    return a->g.lo < b->g.lo ? -1 : a->g.lo > b->g.lo;
}

/* Object o's @order (0 when it has none). Entities read from a file have it first among their
 * properties: a short walk finds it without a lookup. */
static double order_of(ct_dm_doc_o *doc, uint32_t o, uint32_t order_key)
{
    uint32_t p = order_key == DM_NONE ? DM_NONE : prop_near(doc, o, order_key);
    return p != DM_NONE && doc->props[p].value.type == CT_DM_DOUBLE ? doc->props[p].value.as.d : 0;
}

bool datamodel__sort_entities(ct_dm_doc_o *doc, ct_guid_t *items, double *orders, uint32_t n)
{
    ranked_t *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    if (!r)
        return false;
    uint32_t order_key = dm_strings__find(&doc->keys, "@order", 6);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t o = dm__find_obj(doc, items[i]);
        r[i] = (ranked_t){o == DM_NONE ? 0 : order_of(doc, o, order_key), items[i], o};
    }
    qsort(r, n, sizeof *r, ranked_cmp);
    for (uint32_t i = 0; i < n; i++) {
        items[i] = r[i].g;
        if (orders)
            orders[i] = r[i].order;
    }
    free(r);
    return true;
}

/* The live members of set property `key` of the object at index o, sorted by @order then GUID
 * (each @order looked up once). NULL when there are none (*n 0) or out of memory (*n not 0).
 * Caller frees. */
static ranked_t *sorted_members(ct_dm_doc_o *doc, uint32_t o, const char *key, uint32_t *n)
{
    const dm_prop_t *p = prop_of(doc, o, key);
    *n = 0;
    if (!p || p->value.type != CT_DM_SET)
        return NULL;
    const dm_set_t *s = p->value.as.set;
    ranked_t *r = s->count ? malloc((size_t)s->count * sizeof *r) : NULL;
    if (!r) {
        *n = s->count;
        return NULL;
    }
    bool sorted = true;
    uint32_t order_key = dm_strings__find(&doc->keys, "@order", 6);
    /* Members made one after another (a list read from a file) are next to each other in the
     * object array: the one after the last found is tried before the GUID is looked up. */
    uint32_t next = DM_NONE;
    for (uint32_t i = 0; i < s->count; i++) {
        uint32_t m = next < doc->num_objs && ct_guid_eq(doc->objs[next].guid, s->items[i])
                         ? next
                         : dm__find_obj(doc, s->items[i]);
        if (m == DM_NONE || !doc->objs[m].alive)
            continue;
        next = m + 1;
        r[*n] = (ranked_t){order_of(doc, m, order_key), s->items[i], m};
        sorted = sorted && (*n == 0 || ranked_cmp(&r[*n - 1], &r[*n]) <= 0);
        (*n)++;
    }
    if (!sorted)
        qsort(r, *n, sizeof *r, ranked_cmp);
    if (!*n) {
        free(r);
        return NULL;
    }
    return r;
}

static void put_entity(data_text_t *t, ct_dm_doc_o *doc, ct_guid_t g, uint32_t o, uint32_t ind);

static void put_entity_list(data_text_t *t, ct_dm_doc_o *doc, const ranked_t *items, uint32_t n,
                            uint32_t ind)
{
    for (uint32_t i = 0; i < n; i++) {
        indent(t, ind);
        put_entity(t, doc, items[i].g, items[i].obj, ind);
        data__text_puts(t, "\n");
    }
}

/* A whole entity (g, at object index o), fresh: `{`, id, fields, children, `}` (the caller
 * indents the first line). */
static void put_entity(data_text_t *t, ct_dm_doc_o *doc, ct_guid_t g, uint32_t o, uint32_t ind)
{
    char gs[33];
    ct_guid_format(g, gs);
    data__text_puts(t, "{\n");
    indent(t, ind + 2);
    data__text_puts(t, "id = \"");
    data__text_puts(t, gs);
    data__text_puts(t, "\"\n");
    uint32_t n;
    const char **keys = field_keys(doc, g, &n);
    if (!keys) {
        t->failed = true;
        return;
    }
    put_members(t, doc, g, keys, n, 0, ind + 2, true);
    free(keys);
    ranked_t *kids = sorted_members(doc, o, "children", &n);
    if (n && !kids)
        t->failed = true;
    if (kids) {
        indent(t, ind + 2);
        data__text_puts(t, "children = [\n");
        put_entity_list(t, doc, kids, n, ind + 4);
        indent(t, ind + 2);
        data__text_puts(t, "]\n");
    }
    free(kids);
    indent(t, ind);
    data__text_puts(t, "}");
}

/* ---- the minimal-diff writer ---- */

static uint32_t line_start(const dm_level_t *lv, uint32_t pos)
{
    uint32_t p = pos;
    while (p > 0 && (lv->text[p - 1] == ' ' || lv->text[p - 1] == '\t'))
        p--;
    return p == 0 || lv->text[p - 1] == '\n' ? p : pos;
}

static uint32_t line_end(const dm_level_t *lv, uint32_t end)
{
    uint32_t p = end;
    while (p < lv->len && (lv->text[p] == ' ' || lv->text[p] == '\t' || lv->text[p] == ','))
        p++;
    if (p < lv->len && lv->text[p] == '\r')
        p++;
    return p < lv->len && lv->text[p] == '\n' ? p + 1 : p == lv->len ? p : end;
}

/* Whether only blanks stand before pos on its line. */
static bool own_line(const dm_level_t *lv, uint32_t pos)
{
    uint32_t p = line_start(lv, pos);
    return p == 0 || lv->text[p - 1] == '\n';
}

static uint32_t column(const dm_level_t *lv, uint32_t pos) { return pos - line_start(lv, pos); }

/* Cuts a member or element: its whole lines when it stands alone on them. */
static void cut(writer_t *w, uint32_t start, uint32_t end)
{
    const dm_level_t *lv = w->lv;
    uint32_t s = line_start(lv, start), e = line_end(lv, end);
    data_text_t t = {0};
    data__text_puts(&t, "");
    if (own_line(lv, start) && (e != end || end == lv->len)) {
        add_edit(w, s, e, &t);
    } else {
        /* Shares its line: cut it and one space before it. */
        if (start > 0 && lv->text[start - 1] == ' ')
            start--;
        add_edit(w, start, end, &t);
    }
}

typedef struct compare_t {
    writer_t *w;
    ct_guid_t g;
    uint32_t obj;
    uint32_t cursor; /* the property after the last one found: most likely the next leaf's */
} compare_t;

static int compare_leaf(void *ctx, const char *key, size_t klen, uint32_t member)
{
    compare_t *c = ctx;
    writer_t *w = c->w;
    ct_dm_doc_o *doc = w->doc;
    const dm_sjson_t *js = &w->lv->js;
    /* A document read from this source has its properties in the source's order: the cursor
     * finds each leaf's property without a lookup. Elsewhere, the key is looked up. */
    uint32_t q = c->cursor;
    while (q != DM_NONE && doc->keys.strs[doc->props[q].key][0] == '@')
        q = doc->props[q].next;
    uint32_t qk = q == DM_NONE ? DM_NONE : doc->props[q].key;
    if (q == DM_NONE || doc->keys.lens[qk] != klen || memcmp(doc->keys.strs[qk], key, klen) != 0) {
        uint32_t k = dm_strings__find(&doc->keys, key, klen);
        q = k == DM_NONE ? DM_NONE : prop_near(doc, c->obj, k);
    }
    const dm_prop_t *p = NULL;
    if (q != DM_NONE) {
        c->cursor = doc->props[q].next;
        w->mark[q] = *w->pass;
        if (doc->props[q].value.type != CT_DM_NULL)
            p = &doc->props[q];
    }
    if (!p) {
        cut(w, js->nodes[member].key_start, js->nodes[member].end);
        return 0;
    }
    char buf[DM_LEAF_BUF], *scratch = NULL;
    ct_dm_value_t was, now = dm__view(&p->value);
    leaf_value(js, member, &was, buf, &scratch);
    bool same = dm__values_equal(&was, &now);
    free(scratch);
    if (!same) {
        data_text_t t = {0};
        put_source_value(&t, &now);
        add_edit(w, js->nodes[member].start, js->nodes[member].end, &t);
    }
    return 0;
}

/* The object node at the end of `key`'s longest existing path inside obj; *used gets how many
 * bytes of the key that path covers (0: obj itself). */
static uint32_t anchor_of(const dm_sjson_t *js, uint32_t obj, const char *key, size_t *used)
{
    *used = 0;
    for (;;) {
        const char *k = key + *used;
        size_t seg = strcspn(k, ".");
        if (k[seg] != '.')
            return obj;
        char name[CT_DM_MAX_KEY + 1];
        memcpy(name, k, seg);
        name[seg] = 0;
        uint32_t m = dm_sjson__get(js, obj, name);
        if (m == DM_NONE || js->nodes[m].type != DM_J_OBJECT)
            return obj;
        obj = m;
        *used += seg + 1;
    }
}

/* Inserts members (given as keys relative to `used`) into object node obj. */
static void insert_members(writer_t *w, uint32_t obj, ct_guid_t g, const char **keys, uint32_t n,
                           size_t used)
{
    const dm_level_t *lv = w->lv;
    const dm_node_t *o = &lv->js.nodes[obj];
    data_text_t t = {0};
    uint32_t last = o->last;
    if (last != DM_NONE && own_line(lv, lv->js.nodes[last].key_start)) {
        /* One member a line: new ones follow the last with its indentation. */
        uint32_t ind = column(lv, lv->js.nodes[last].key_start);
        data__text_puts(&t, "\n");
        put_members(&t, w->doc, g, keys, n, used, ind, true);
        t.s[--t.len] = 0; /* the final newline: the text after the last member keeps its own */
        add_edit(w, lv->js.nodes[last].end, lv->js.nodes[last].end, &t);
    } else if (last != DM_NONE) {
        data__text_puts(&t, " ");
        put_members(&t, w->doc, g, keys, n, used, 0, false);
        add_edit(w, lv->js.nodes[last].end, lv->js.nodes[last].end, &t);
    } else if (obj == 0 && lv->js.nodes[0].start == 0) {
        put_members(&t, w->doc, g, keys, n, used, 0, true);
        add_edit(w, 0, 0, &t);
    } else {
        /* `{}`: inside the braces. */
        data__text_puts(&t, " ");
        put_members(&t, w->doc, g, keys, n, used, 0, false);
        data__text_puts(&t, " ");
        add_edit(w, o->start + 1, o->end - 1, &t);
    }
}

/* Fields of g (the document's object o) in the source object `obj` (an entity, or the root)
 * brought in line with the doc. */
static int write_fields(writer_t *w, uint32_t obj, ct_guid_t g, uint32_t o, const char *const *skip)
{
    compare_t c = {w, g, o, w->doc->objs[o].first_prop};
    ++*w->pass;
    char key[CT_DM_MAX_KEY + 1] = "";
    int r = flatten(&w->lv->js, obj, key, 0, skip, compare_leaf, &c);
    /* New keys: those the source did not have (not marked in this pass), grouped by the object
     * they go into. */
    uint32_t n = 0, fresh = 0, *props = NULL;
    bool any = false;
    for (uint32_t p = w->doc->objs[o].first_prop; p != DM_NONE && !any; p = w->doc->props[p].next)
        any = w->mark[p] != *w->pass && w->doc->props[p].value.type != CT_DM_NULL &&
              !is_meta(w->doc->keys.strs[w->doc->props[p].key]);
    if (!any) /* the usual case: nothing new, nothing to group */
        return r;
    const char **keys = r ? NULL : field_keys_of(w->doc, g, &n, &props);
    if (!r && !keys)
        r = CT_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        if (w->mark[props[i]] != *w->pass)
            keys[fresh++] = keys[i];
    }
    free(props);
    for (uint32_t i = 0; i < fresh && !r;) {
        size_t used;
        uint32_t anchor = anchor_of(&w->lv->js, obj, keys[i], &used);
        /* The run of new keys that share this anchor and path prefix. */
        uint32_t j = i + 1;
        while (j < fresh) {
            size_t u2;
            if (anchor_of(&w->lv->js, obj, keys[j], &u2) != anchor || u2 != used)
                break;
            j++;
        }
        insert_members(w, anchor, g, keys + i, j - i, used);
        i = j;
    }
    free(keys);
    return r;
}

static int write_list(writer_t *w, uint32_t owner, uint32_t array, uint32_t parent,
                      const char *set_key);

static int edit_cmp(const void *x, const void *y)
{
    const edit_t *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The source text from `from` to `to` with w's edits (all inside that span) applied, onto out;
 * the edits are used up. */
static void apply_edits(writer_t *w, uint32_t from, uint32_t to, data_text_t *out)
{
    if (w->num_edits)
        qsort(w->edits, w->num_edits, sizeof *w->edits, edit_cmp);
    uint32_t at = from;
    for (uint32_t i = 0; i < w->num_edits; i++) {
        edit_t *e = &w->edits[i];
        /* Edits never overlap, except a cut inside a cut entity's span: skip those. */
        if (e->start < at) {
            free(e->text);
            continue;
        }
        data__text_put(out, w->lv->text + at, e->start - at);
        if (e->text)
            data__text_puts(out, e->text);
        at = e->end > at ? e->end : at;
        free(e->text);
    }
    data__text_put(out, w->lv->text + at, to - at);
    free(w->edits);
    w->edits = NULL;
    w->num_edits = w->cap_edits = 0;
}

static void drop_edits(writer_t *w)
{
    for (uint32_t i = 0; i < w->num_edits; i++)
        free(w->edits[i].text);
    free(w->edits);
    w->edits = NULL;
    w->num_edits = w->cap_edits = 0;
}

static int write_entity(writer_t *w, uint32_t e);

/* Entity node e's own source text with the document's changes to it applied (the text of an
 * entity that moves to another place in its list: comments inside it move with it). */
static int moved_entity(writer_t *w, uint32_t e, data_text_t *out)
{
    writer_t sub = *w;
    sub.edits = NULL;
    sub.num_edits = sub.cap_edits = 0;
    sub.failed = false;
    int r = write_entity(&sub, e);
    if (r || sub.failed) {
        drop_edits(&sub);
        return r ? r : CT_ERR_NOMEM;
    }
    apply_edits(&sub, w->lv->js.nodes[e].start, w->lv->js.nodes[e].end, out);
    return out->failed ? CT_ERR_NOMEM : 0;
}

static int write_entity(writer_t *w, uint32_t e)
{
    const dm_level_t *lv = w->lv;
    const dm_ent_t *ent = ent_of(lv, e);
    ct_guid_t g = ent->guid;
    if (w->assign_ids && !ent->has_id) {
        char gs[33];
        ct_guid_format(g, gs);
        const dm_node_t *n = &lv->js.nodes[e];
        data_text_t t = {0};
        uint32_t first = n->first;
        if (first != DM_NONE && own_line(lv, lv->js.nodes[first].key_start)) {
            uint32_t at = line_start(lv, lv->js.nodes[first].key_start);
            indent(&t, column(lv, lv->js.nodes[first].key_start));
            data__text_puts(&t, "id = \"");
            data__text_puts(&t, gs);
            data__text_puts(&t, "\"\n");
            add_edit(w, at, at, &t);
        } else {
            data__text_puts(&t, " id = \"");
            data__text_puts(&t, gs);
            data__text_puts(&t, first == DM_NONE ? "\" " : "\"");
            add_edit(w, n->start + 1, n->start + 1, &t);
        }
    }
    static const char *const skip[] = {"id", "children", NULL};
    int r = write_fields(w, e, g, ent->obj, skip);
    if (r)
        return r;
    return write_list(w, e, dm_sjson__get(&lv->js, e, "children"), ent->obj, "children");
}

/* The entities of one list (`entities` of the root, `children` of an entity) of the document's
 * object at index `parent`, whose source is node `owner` (its list node `array`, or DM_NONE). */
static int write_list(writer_t *w, uint32_t owner, uint32_t array, uint32_t parent,
                      const char *set_key)
{
    const dm_level_t *lv = w->lv;
    const dm_sjson_t *js = &lv->js;
    uint32_t n;
    ranked_t *members = sorted_members(w->doc, parent, set_key, &n);
    if (n && !members)
        return CT_ERR_NOMEM;
    /* Which members are where (by object index, marked with this pass): the members, and this
     * list's source entities. */
    uint32_t pass = ++*w->pass;
    uint32_t num_src = array != DM_NONE ? js->nodes[array].count : 0, num_kept = 0;
    uint32_t *next_src = malloc((size_t)(n ? n : 1) * 3 * sizeof *next_src), *obj = next_src + n;
    uint32_t *src_of = obj + n; /* each member's source node in this list, or DM_NONE */
    uint32_t *kept = malloc((size_t)(num_src ? num_src : 1) * sizeof *kept);
    int r = next_src && kept ? 0 : CT_ERR_NOMEM;
    for (uint32_t i = 0; i < n && !r; i++) {
        obj[i] = members[i].obj;
        w->in_doc[obj[i]] = pass;
        w->doc_pos[obj[i]] = i;
    }
    /* Source entities: kept (still in this list) or cut. */
    if (array != DM_NONE) {
        for (uint32_t e = js->nodes[array].first; e != DM_NONE && !r; e = js->nodes[e].next) {
            uint32_t o = ent_of(lv, e)->obj;
            w->in_src[o] = pass;
            w->src_node[o] = e;
            if (w->in_doc[o] == pass)
                kept[num_kept++] = e;
            else
                cut(w, js->nodes[e].start, js->nodes[e].end);
        }
    }
    /* Read out now: the writes below mark other lists with later passes. */
    for (uint32_t i = 0; i < n && !r; i++)
        src_of[i] = w->in_src[obj[i]] == pass ? w->src_node[obj[i]] : DM_NONE;
    /* The kept entities fill the places kept entities had, in the document's order: the j-th
     * kept member takes the j-th kept place. One in its own place is edited where it stands;
     * one that moved replaces the text of its new place with its own (edited) text. For each
     * member, next_src gets the place of the next kept member after it. Written front to back
     * (the order the text, the nodes and the properties are in); each entity's edits lie inside
     * its own braces, so the order entities are written in changes no edit's place. */
    uint32_t pending = 0; /* the first member whose next_src is not known yet */
    for (uint32_t i = 0, j = 0; i < n && !r; i++) {
        uint32_t e = src_of[i];
        if (e == DM_NONE)
            continue;
        uint32_t place = kept[j++];
        for (; pending < i; pending++)
            next_src[pending] = place;
        if (place == e) {
            r = write_entity(w, e);
        } else {
            data_text_t t = {0};
            r = moved_entity(w, e, &t);
            if (r)
                free(t.s);
            else
                add_edit(w, js->nodes[place].start, js->nodes[place].end, &t);
        }
    }
    for (; pending < n; pending++)
        next_src[pending] = DM_NONE;
    /* New members: before the next kept source entity in order, or at the end of the list. */
    for (uint32_t i = 0; i < n && !r; i++) {
        if (src_of[i] != DM_NONE)
            continue;
        uint32_t next = next_src[i];
        data_text_t t = {0};
        if (array == DM_NONE) {
            /* No list yet: a new `children = [ ... ]` (or `entities`) member of the owner. */
            uint32_t last = js->nodes[owner].last;
            uint32_t ind = last != DM_NONE && own_line(lv, js->nodes[last].key_start)
                               ? column(lv, js->nodes[last].key_start)
                               : 2;
            uint32_t at =
                last != DM_NONE ? js->nodes[last].end : js->nodes[owner].start + (owner ? 1 : 0);
            data__text_puts(&t, "\n");
            indent(&t, ind);
            data__text_puts(&t, set_key);
            data__text_puts(&t, " = [\n");
            put_entity_list(&t, w->doc, members + i, n - i, ind + 2);
            indent(&t, ind);
            data__text_puts(&t, "]");
            add_edit(w, at, at, &t);
            break;
        }
        uint32_t first = js->nodes[array].first;
        uint32_t ind = first != DM_NONE && own_line(lv, js->nodes[first].start)
                           ? column(lv, js->nodes[first].start)
                           : column(lv, js->nodes[array].start) + 2;
        uint32_t at;
        if (next != DM_NONE) {
            at = line_start(lv, js->nodes[next].start);
        } else {
            uint32_t close = js->nodes[array].end - 1;
            at = line_start(lv, close);
            if (!own_line(lv, close)) /* `]` shares its line: a new line before it */
                data__text_puts(&t, "\n");
        }
        indent(&t, ind);
        put_entity(&t, w->doc, members[i].g, members[i].obj, ind);
        data__text_puts(&t, "\n");
        add_edit(w, at, at, &t);
    }
    free(next_src);
    free(kept);
    free(members);
    return r;
}

static char *write_level(ct_dm_doc_o *doc, const ct_dm_write_desc_t *desc, size_t *len)
{
    uint32_t pass = 0;
    writer_t w = {
        .doc = doc, .lv = doc->level, .assign_ids = desc && desc->assign_ids, .pass = &pass};
    data_text_t out = {0};
    if (!w.lv) {
        /* A fresh file: the root's fields, then the entities. */
        uint32_t n;
        const char **keys = field_keys(doc, root_guid, &n);
        if (!keys) {
            dm__error(doc, "write_level: out of memory");
            return NULL;
        }
        put_members(&out, doc, root_guid, keys, n, 0, 0, true);
        free(keys);
        ranked_t *ents = sorted_members(doc, 0, "entities", &n);
        if (n && !ents)
            out.failed = true;
        data__text_puts(&out, "entities = [\n");
        put_entity_list(&out, doc, ents, n, 2);
        data__text_puts(&out, "]\n");
        free(ents);
    } else {
        static const char *const skip[] = {"entities", NULL};
        /* One block: a mark per property, four words per object. */
        size_t np = doc->num_props, no = doc->num_objs;
        w.mark = calloc(np + 4 * no + 1, sizeof *w.mark);
        if (w.mark) {
            w.in_doc = w.mark + np;
            w.doc_pos = w.in_doc + no;
            w.in_src = w.doc_pos + no;
            w.src_node = w.in_src + no;
        }
        int r = w.mark ? write_fields(&w, 0, root_guid, 0, skip) : CT_ERR_NOMEM;
        r = r ? r : write_list(&w, 0, dm_sjson__get(&w.lv->js, 0, "entities"), 0, "entities");
        if (r || w.failed) {
            drop_edits(&w);
            free(w.mark);
            dm__error(doc, "write_level: out of memory");
            return NULL;
        }
        apply_edits(&w, 0, w.lv->len, &out);
        free(w.mark);
        if (!out.s)
            data__text_puts(&out, "");
    }
    if (out.failed) {
        free(out.s);
        dm__error(doc, "write_level: out of memory");
        return NULL;
    }
    if (len)
        *len = out.len;
    return out.s;
}

void dm_level__fill(ct_datamodel_api_v1 *api)
{
    api->read_level = read_level;
    api->write_level = write_level;
}
