/*
 * Compiling entity resources (levels and units) from SJSON into the layout of api/ct_world.h.
 *
 * Two passes. The first flattens the entity tree breadth-first (so a parent always precedes its
 * children) and expands `repeat`. The second walks the registered component types in spawn
 * order and writes one section per type that any entity uses, asking the type to compile each
 * instance. The compiler is not on a hot path; it favours simple code over speed.
 */
#include <stdio.h>
#include <string.h>

#include "ct_array.h"
#include "ct_datamodel.h"
#include "entities_internal.h"

#define MAX_REPEAT 1000000.0

typedef struct flat_entity_t {
    const ct_data_o *node;
    uint32_t parent;
    bool report;      /* give warnings for its children (not a repeat copy's subtree) */
    bool shifted;     /* a repeat copy past the first: offset applies */
    double offset[3]; /* added to components.transform.position */
} flat_entity_t;

typedef struct text_t {
    char *bytes;
    uint32_t size;
    uint32_t capacity;
} text_t;

typedef struct compiler_t {
    ct_compile_ctx_o *ctx;
    flat_entity_t *entities;
    uint32_t num_entities;
    uint32_t capacity;
    text_t text; /* scratch for the rewritten source of shifted transforms */
} compiler_t;

#define R (entities__services.resource)
#define D (entities__services.data)

static bool push_entity(compiler_t *c, const flat_entity_t *e)
{
    if (c->num_entities == CT_ENTITY_MAX_LIVE) {
        R->compile_error(c->ctx, "more than %u entities", CT_ENTITY_MAX_LIVE);
        return false;
    }
    if (!ct_array_reserve_of(entities__services.a, &c->entities, &c->capacity, c->num_entities + 1,
                             64)) {
        R->compile_error(c->ctx, "out of memory flattening entities");
        return false;
    }
    c->entities[c->num_entities++] = *e;
    return true;
}

/* The source of component `type_name` of an entity, or NULL. */
static const ct_data_o *component_of(const ct_data_o *entity, const char *type_name)
{
    const ct_data_o *components = D->get(entity, "components");
    return components ? D->get(components, type_name) : NULL;
}

static void check_components(compiler_t *c, const ct_data_o *components, const char *entity_name)
{
    if (!components)
        return;
    uint32_t num_types;
    const uint32_t *order = entities__spawn_order(&num_types);
    const char *known[ENTITIES_MAX_TYPES];
    for (uint32_t t = 0; t < num_types && t < ENTITIES_MAX_TYPES; t++)
        known[t] = entities__type_at(order[t])->name;
    for (const ct_data_o *m = D->first_child(components); m; m = D->next(m)) {
        if (entities__type_slot(entities__type_id(D->key(m))) >= 0)
            continue;
        const char *near = R->nearest_name(D->key(m), known, num_types);
        R->compile_warning(c->ctx, "entity '%s': unknown component type '%s' (skipped)%s%s%s",
                           entity_name, D->key(m), near ? "; did you mean '" : "", near ? near : "",
                           near ? "'?" : "");
    }
}

/* Reads `repeat = { count = N spacing = [x y z] }`; count 1 when absent. */
static bool read_repeat(compiler_t *c, const ct_data_o *repeat, const char *entity_name,
                        uint32_t *count, double spacing[3])
{
    *count = 1;
    spacing[0] = spacing[1] = spacing[2] = 0.0;
    if (!repeat)
        return true;
    double n = D->number(D->get(repeat, "count"), -1.0);
    if (D->type(repeat) != CT_DATA_OBJECT || !(n >= 1.0 && n <= MAX_REPEAT) ||
        n != (double)(uint32_t)n) {
        R->compile_error(c->ctx, "entity '%s': repeat.count must be a whole number in 1..%.0f",
                         entity_name, MAX_REPEAT);
        return false;
    }
    *count = (uint32_t)n;
    const ct_data_o *s = D->get(repeat, "spacing");
    if (s && (D->type(s) != CT_DATA_ARRAY || D->count(s) != 3)) {
        R->compile_error(c->ctx, "entity '%s': repeat.spacing must be [x y z]", entity_name);
        return false;
    }
    const ct_data_o *v = s ? D->first_child(s) : NULL;
    for (int i = 0; v && i < 3; i++, v = D->next(v))
        spacing[i] = D->number(v, 0.0);
    /* Copies on top of each other are almost always a mistake, and one a physics world pays for
     * quadratically (every copy touches every other). */
    if (*count > 1 && spacing[0] == 0.0 && spacing[1] == 0.0 && spacing[2] == 0.0)
        R->compile_warning(c->ctx,
                           "entity '%s': repeat.count is %u but repeat.spacing is %s: "
                           "every copy is at the same place",
                           entity_name, *count, s ? "[0 0 0]" : "missing");
    return true;
}

static const char *entity_name(const ct_data_o *node)
{
    return D->string(D->get(node, "name"), "(unnamed)");
}

/* Names the entity in every message about it, including its components' compilers'. */
static void set_entity_scope(compiler_t *c, const ct_data_o *node)
{
    char scope[160];
    snprintf(scope, sizeof scope, "entity '%s'", entity_name(node));
    R->set_scope(c->ctx, node ? scope : NULL);
}

/* The fields of an entity and of its `repeat`, checked once per source entity. */
static bool check_entity_fields(compiler_t *c, const ct_data_o *node)
{
    static const ct_field_t entity_fields[] = {
        {"id", CT_DATA_STRING, 0},         {"name", CT_DATA_STRING, 0},
        {"components", CT_DATA_OBJECT, 0}, {"children", CT_DATA_ARRAY, 0},
        {"repeat", CT_DATA_OBJECT, 0},
    };
    static const ct_field_t repeat_fields[] = {{"count", CT_DATA_NUMBER, 0},
                                               {"spacing", CT_DATA_ARRAY, 3}};
    set_entity_scope(c, node);
    /* The likeliest slip: a component written beside `components` instead of inside it. */
    for (const ct_data_o *m = D->first_child(node); m; m = D->next(m)) {
        if (entities__type_slot(entities__type_id(D->key(m))) >= 0) {
            R->compile_error(c->ctx, "%s: a component belongs inside components = { ... }",
                             D->key(m));
            R->set_scope(c->ctx, NULL);
            return false;
        }
    }
    const ct_data_o *repeat = D->get(node, "repeat");
    bool ok = R->check_fields(c->ctx, node, NULL, entity_fields, 5);
    /* `id`: the stable GUID a tool gave the entity (api/ct_datamodel.h); only tools read it. */
    const char *id = D->string(D->get(node, "id"), NULL);
    ct_guid_t guid;
    if (id && !ct_guid_parse(id, strlen(id), &guid)) {
        R->compile_error(c->ctx, "id: \"%s\" is not a GUID of 32 hex digits", id);
        ok = false;
    }
    ok = (!repeat || R->check_fields(c->ctx, repeat, "repeat", repeat_fields, 2)) && ok;
    R->set_scope(c->ctx, NULL);
    return ok;
}

/* Appends the entities of `list` (an array) under `parent`, expanding `repeat`. Warnings are
 * given only when `report` (not again for every copy of a repeated entity's subtree). Errors name
 * the list: the root `entities`, or the parent's `children`. */
static bool push_list(compiler_t *c, const ct_data_o *list, uint32_t parent, bool report)
{
    const char *owner = parent == UINT32_MAX ? NULL : entity_name(c->entities[parent].node);
    const char *field = owner ? "children" : "entities";
    if (D->type(list) != CT_DATA_ARRAY) {
        R->compile_error(c->ctx, "%s%s%s`%s` must be an array", owner ? "entity '" : "",
                         owner ? owner : "", owner ? "': " : "", field);
        return false;
    }
    uint32_t position = 0;
    for (const ct_data_o *node = D->first_child(list); node; node = D->next(node), position++) {
        const char *name = entity_name(node);
        if (D->type(node) != CT_DATA_OBJECT) {
            R->compile_error(c->ctx, "%s%s%s`%s` entry %u is not an object (an entity)",
                             owner ? "entity '" : "", owner ? owner : "", owner ? "': " : "", field,
                             position);
            return false;
        }
        if (report && !check_entity_fields(c, node))
            return false;
        const ct_data_o *components = D->get(node, "components");
        if (components && D->type(components) != CT_DATA_OBJECT) {
            R->compile_error(c->ctx, "entity '%s': `components` must be an object", name);
            return false;
        }
        if (report)
            check_components(c, components, name);
        uint32_t count;
        double spacing[3];
        if (!read_repeat(c, D->get(node, "repeat"), name, &count, spacing))
            return false;
        for (uint32_t k = 0; k < count; k++) {
            flat_entity_t e = {node,
                               parent,
                               report && k == 0,
                               k > 0,
                               {k * spacing[0], k * spacing[1], k * spacing[2]}};
            if (!push_entity(c, &e))
                return false;
        }
    }
    return true;
}

/* Breadth first, as in the seed's example (A, B, C, D, E): a parent precedes its children, and
 * siblings are contiguous. The flat array is its own queue. */
static bool flatten(compiler_t *c, const ct_data_o *roots)
{
    if (!push_list(c, roots, UINT32_MAX, true))
        return false;
    for (uint32_t i = 0; i < c->num_entities; i++) {
        const ct_data_o *children = D->get(c->entities[i].node, "children");
        if (children && !push_list(c, children, i, c->entities[i].report))
            return false;
    }
    return true;
}

static bool append(text_t *t, const char *s, size_t len)
{
    if (len > UINT32_MAX - t->size ||
        !ct_array_reserve_of(entities__services.a, &t->bytes, &t->capacity, t->size + (uint32_t)len,
                             256))
        return false;
    memcpy(t->bytes + t->size, s, len);
    t->size += (uint32_t)len;
    return true;
}

static bool append_number(text_t *t, double v)
{
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%.17g ", v);
    return append(t, buf, (size_t)len);
}

static bool append_string(text_t *t, const char *s)
{
    bool ok = append(t, "\"", 1);
    for (; ok && *s; s++) {
        char esc[8];
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            ok = append(t, "\\", 1) && append(t, s, 1);
        else if (ch < 0x20)
            ok = append(t, esc, (size_t)snprintf(esc, sizeof esc, "\\u%04x", ch));
        else
            ok = append(t, s, 1);
    }
    return ok && append(t, "\" ", 2);
}

/* Writes node back as SJSON (an object's members without braces when `bare`). */
static bool write_sjson(text_t *t, const ct_data_o *node, bool bare)
{
    switch (D->type(node)) {
    case CT_DATA_BOOL: return append(t, D->boolean(node, false) ? "true " : "false ", 5);
    case CT_DATA_NUMBER: return append_number(t, D->number(node, 0.0));
    case CT_DATA_STRING: return append_string(t, D->string(node, ""));
    case CT_DATA_ARRAY:
    case CT_DATA_OBJECT: {
        bool object = D->type(node) == CT_DATA_OBJECT;
        bool ok = bare || append(t, object ? "{ " : "[ ", 2);
        for (const ct_data_o *m = D->first_child(node); ok && m; m = D->next(m)) {
            if (object)
                ok = append_string(t, D->key(m)) && append(t, "= ", 2);
            ok = ok && write_sjson(t, m, false);
        }
        return ok && (bare || append(t, object ? "} " : "] ", 2));
    }
    default: return append(t, "null ", 5);
    }
}

/* A transform source with `offset` added to its position, parsed from rewritten text. The
 * caller destroys the tree. */
static ct_data_o *shifted_source(compiler_t *c, const ct_data_o *source, const double offset[3])
{
    text_t *t = &c->text;
    t->size = 0;
    double position[3] = {0, 0, 0};
    const ct_data_o *p = D->get(source, "position");
    const ct_data_o *v = D->first_child(p);
    for (int i = 0; v && i < 3; i++, v = D->next(v))
        position[i] = D->number(v, 0.0);
    bool ok = true;
    for (const ct_data_o *m = D->first_child(source); ok && m; m = D->next(m)) {
        if (strcmp(D->key(m), "position") != 0)
            ok = append_string(t, D->key(m)) && append(t, "= ", 2) && write_sjson(t, m, false);
    }
    ok = ok && append(t, "position = [ ", 13);
    for (int i = 0; ok && i < 3; i++)
        ok = append_number(t, position[i] + offset[i]);
    ok = ok && append(t, "]", 1);
    char err[256];
    ct_data_o *tree =
        ok ? D->parse(t->bytes, t->size, R->source_path(c->ctx), err, sizeof err) : NULL;
    if (!tree)
        R->compile_error(c->ctx, "could not rewrite a repeated transform: %s",
                         ok ? err : "out of memory");
    return tree;
}

static int compile_instance(compiler_t *c, const ct_component_type_t *type, const flat_entity_t *e,
                            const ct_data_o *source, void *out)
{
    if (!type->compile)
        return 0;
    bool shift = e->shifted && strcmp(type->name, "transform") == 0;
    ct_data_o *tree = shift ? shifted_source(c, source, e->offset) : NULL;
    if (shift && !tree)
        return CT_ERR_BAD_DATA;
    set_entity_scope(c, e->node);
    int err = type->compile(type->user_data, tree ? tree : source, out, c->ctx);
    R->set_scope(c->ctx, NULL);
    D->destroy(tree);
    return err;
}

static void write_u32(compiler_t *c, uint32_t v) { R->write(c->ctx, &v, 4); }

static void pad8(compiler_t *c)
{
    static const uint8_t zeros[8];
    R->write(c->ctx, zeros, (8u - (R->written(c->ctx) & 7u)) & 7u);
}

static uint32_t count_instances(const compiler_t *c, const char *type_name)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->num_entities; i++)
        n += component_of(c->entities[i].node, type_name) != NULL;
    return n;
}

/* The instances of a variable-size type (CT_COMPONENT_VARIABLE_SIZE), each compiled into a
 * zeroed scratch of the type's maximum, checked against it and written at its own size, padded
 * to 8. Their sizes are only known once compiled, so they follow the entity_index the caller
 * wrote. */
static int write_variable_instances(compiler_t *c, const ct_component_type_t *type)
{
    const uint32_t max = type->instance_size & ~CT_COMPONENT_VARIABLE_SIZE;
    uint8_t *scratch = ct_alloc(entities__services.a, max);
    if (!scratch) {
        R->compile_error(c->ctx, "out of memory compiling '%s'", type->name);
        return CT_ERR_NOMEM;
    }
    int err = 0;
    for (uint32_t i = 0; i < c->num_entities && err == 0; i++) {
        const ct_data_o *source = component_of(c->entities[i].node, type->name);
        if (!source)
            continue;
        memset(scratch, 0, max);
        err = compile_instance(c, type, &c->entities[i], source, scratch);
        uint32_t size;
        memcpy(&size, scratch, 4);
        if (err == 0 && (size < 4u || size > max)) {
            set_entity_scope(c, c->entities[i].node);
            R->compile_error(c->ctx, "%s: compiled to %u bytes, not 4 to %u (a bug in its module)",
                             type->name, size, max);
            R->set_scope(c->ctx, NULL);
            err = CT_ERR_BAD_DATA;
        }
        if (err == 0) {
            R->write(c->ctx, scratch, size);
            pad8(c);
        }
    }
    ct_free(entities__services.a, scratch, max);
    return err;
}

/* Writes the section of one type: header, entity_index, instance data. */
static int write_section(compiler_t *c, const ct_component_type_t *type, uint32_t n)
{
    const bool variable = (type->instance_size & CT_COMPONENT_VARIABLE_SIZE) != 0;
    size_t data_size = variable ? 0 : (size_t)n * type->instance_size;
    uint8_t *data = data_size ? ct_alloc(entities__services.a, data_size) : NULL;
    if (data_size && !data) {
        R->compile_error(c->ctx, "out of memory compiling '%s'", type->name);
        return CT_ERR_NOMEM;
    }
    if (data)
        memset(data, 0, data_size);
    uint64_t id = entities__type_id(type->name);
    char format_name[96];
    snprintf(format_name, sizeof format_name, "component.%s", type->name);
    if (!R->uses_format(c->ctx, format_name)) {
        if (data)
            ct_free(entities__services.a, data, data_size);
        return CT_ERR_BAD_DATA;
    }
    R->write(c->ctx, &id, 8);
    write_u32(c, n);
    write_u32(c, type->instance_size);
    write_u32(c, R->format(format_name));
    write_u32(c, 0);
    int err = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->num_entities && err == 0; i++) {
        const ct_data_o *source = component_of(c->entities[i].node, type->name);
        if (!source)
            continue;
        write_u32(c, i);
        if (!variable)
            err = compile_instance(c, type, &c->entities[i], source,
                                   data ? data + (size_t)k * type->instance_size : NULL);
        k++;
    }
    pad8(c);
    if (variable && err == 0)
        err = write_variable_instances(c, type);
    if (err == 0 && data)
        R->write(c->ctx, data, data_size);
    pad8(c);
    if (data)
        ct_free(entities__services.a, data, data_size);
    return err;
}

int entities__resource_compile(void *user_data, const ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    compiler_t c = {.ctx = ctx};
    const ct_data_o *list = D->get(source, "entities");
    const ct_data_o *conflicts = D->get(source, "merge_conflicts");
    int err = 0;
    if (conflicts) {
        /* cuttle-merge's record of a merge it could not finish: the file holds one side's value
         * for each listed property until someone decides (see README, "Merging levels"). */
        R->compile_error(ctx,
                         "unresolved merge conflicts (%u): check the values listed in "
                         "`merge_conflicts`, then remove it",
                         D->count(conflicts));
        err = CT_ERR_BAD_DATA;
    } else if (!list) {
        R->compile_error(ctx, "missing `entities = [ ... ]`");
        err = CT_ERR_BAD_DATA;
    } else if (!flatten(&c, list)) {
        err = CT_ERR_BAD_DATA;
    }

    uint32_t num_types, counts[ENTITIES_MAX_TYPES], num_sections = 0;
    const uint32_t *order = entities__spawn_order(&num_types);
    for (uint32_t t = 0; t < num_types && err == 0; t++) {
        counts[t] = count_instances(&c, entities__type_at(order[t])->name);
        num_sections += counts[t] > 0;
    }
    if (err == 0) {
        write_u32(&c, c.num_entities);
        write_u32(&c, num_sections);
        for (uint32_t i = 0; i < c.num_entities; i++)
            write_u32(&c, c.entities[i].parent);
        pad8(&c);
    }
    for (uint32_t t = 0; t < num_types && err == 0; t++) {
        if (counts[t])
            err = write_section(&c, entities__type_at(order[t]), counts[t]);
    }
    if (c.entities)
        ct_free(entities__services.a, c.entities, c.capacity * sizeof *c.entities);
    if (c.text.bytes)
        ct_free(entities__services.a, c.text.bytes, c.text.capacity);
    return err;
}
