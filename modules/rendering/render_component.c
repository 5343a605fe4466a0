/*
 * render_component.c: the "mesh", "camera" and "light" component types: compiling them, one
 * packed manager per type and world, spawning, and removal when entities die. A mesh instance
 * holds one load of its mesh and material resources, released when the instance goes.
 */
#include "render_internal.h"
#include "ct_array.h"
#include "ct_plugin.h" /* CT_ARRAY_COUNT */

#include <math.h>
#include <stdio.h>
#include <string.h>

static const uint32_t instance_sizes[RENDER_NUM_TYPES] = {
    [RENDER_MESH_TYPE] = sizeof(render__mesh_ref),
    [RENDER_CAMERA_TYPE] = sizeof(render__camera_desc),
    [RENDER_LIGHT_TYPE] = sizeof(render__light_desc),
};

render__manager *render__manager_of(ct_world_o *world, uint32_t type)
{
    return world ? render__m.component->manager(world, render__m.state->type_id[type]) : NULL;
}

/* Through the paged index (ct_entity_pages_t): its entry is the instance + 1; the entity kept at
 * that instance tells a live entity from an older one of the same index. */
static uint32_t find(const render__manager *m, ct_entity_t e)
{
    const uint32_t *at = ct_entity_pages_entry(&m->index, e);
    return at && *at && m->entity[*at - 1].id == e.id ? *at - 1 : UINT32_MAX;
}

void *render__instance_of(render__manager *m, ct_entity_t e)
{
    const uint32_t i = m ? find(m, e) : UINT32_MAX;
    return i == UINT32_MAX ? NULL : m->data + (size_t)i * m->size;
}

static bool reserve(render__manager *m, uint32_t n)
{
    if (n <= m->cap)
        return true;
    const uint32_t cap = ct_array_capacity(m->cap, n, 64);
    if (!cap)
        return false;
    ct_entity_t *e = ct_alloc(m->a, (size_t)cap * sizeof *e);
    uint8_t *d = ct_alloc(m->a, (size_t)cap * m->size);
    if (!e || !d) {
        ct_free(m->a, e, e ? (size_t)cap * sizeof *e : 0);
        ct_free(m->a, d, d ? (size_t)cap * m->size : 0);
        return false;
    }
    if (m->n) {
        memcpy(e, m->entity, (size_t)m->n * sizeof *e);
        memcpy(d, m->data, (size_t)m->n * m->size);
    }
    ct_free(m->a, m->entity, (size_t)m->cap * sizeof *e);
    ct_free(m->a, m->data, (size_t)m->cap * m->size);
    m->entity = e;
    m->data = d;
    m->cap = cap;
    return true;
}

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    const uint32_t type = (uint32_t)(uintptr_t)user_data;
    render__manager *m = ct_alloc(a, sizeof *m);
    if (m)
        *m = (render__manager){.a = a,
                               .world = world,
                               .type = type,
                               .size = instance_sizes[type],
                               .reloads_seen = render__m.state->reloads_seen};
    return m;
}

static void release_refs(const render__manager *m, uint32_t i)
{
    if (m->type != RENDER_MESH_TYPE)
        return;
    const render__mesh_ref *r = (const render__mesh_ref *)(m->data + (size_t)i * m->size);
    const render__named *names = render__m.state->names;
    render__m.resource->unload("mesh", names[r->mesh_name].name);
    render__m.resource->unload("material", names[r->material_name].name);
}

/* The entry of a resource name in render__state.names, made on first use; RENDER_NO_INDEX when
 * memory runs out. A linear walk: there are as many entries as distinct names. */
static uint32_t named(uint32_t type, const char *name)
{
    render__state *s = render__m.state;
    for (uint32_t i = 0; i < s->num_names; i++)
        if (s->names[i].type == type && !strcmp(s->names[i].name, name))
            return i;
    if (s->num_names == s->names_cap) {
        const uint32_t cap = s->names_cap ? 2 * s->names_cap : 32;
        render__named *grown =
            ct_realloc(render__m.allocator, s->names, (size_t)s->names_cap * sizeof *grown,
                       (size_t)cap * sizeof *grown);
        if (!grown)
            return RENDER_NO_INDEX;
        s->names = grown;
        s->names_cap = cap;
    }
    render__named *n = &s->names[s->num_names];
    *n = (render__named){.type = type, .slot = RENDER_NO_INDEX};
    snprintf(n->name, sizeof n->name, "%s", name);
    return s->num_names++;
}

void render__refresh_mesh_refs(render__manager *m)
{
    const render__state *s = render__m.state;
    if (!m || m->reloads_seen == s->reloads_seen)
        return;
    m->reloads_seen = s->reloads_seen;
    for (uint32_t i = 0; i < m->n; i++) {
        render__mesh_ref *r = (render__mesh_ref *)(void *)(m->data + (size_t)i * m->size);
        r->mesh = s->names[r->mesh_name].slot;
        r->material = s->names[r->material_name].slot;
    }
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    render__manager *m = manager;
    for (uint32_t i = 0; i < m->n; i++)
        release_refs(m, i);
    ct_allocator_t *a = m->a;
    ct_free(a, m->entity, (size_t)m->cap * sizeof *m->entity);
    ct_free(a, m->data, (size_t)m->cap * m->size);
    ct_entity_pages_free(&m->index, a);
    ct_free(a, m, sizeof *m);
}

/* One pass over the instances for a whole batch of dead entities. */
static void destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    (void)entities, (void)n;
    render__manager *m = manager;
    for (uint32_t i = 0; i < m->n;) {
        if (render__m.entity->alive(m->entity[i])) {
            i++;
            continue;
        }
        release_refs(m, i);
        uint32_t *at = ct_entity_pages_entry(&m->index, m->entity[i]);
        if (*at == i + 1) /* a newer entity of the same index may hold the entry already */
            *at = 0;
        m->n--;
        if (i < m->n) {
            m->entity[i] = m->entity[m->n];
            memcpy(m->data + (size_t)i * m->size, m->data + (size_t)m->n * m->size, m->size);
            *ct_entity_pages_entry(&m->index, m->entity[i]) = i + 1;
        }
    }
}

/* ---- compiling ----------------------------------------------------------------------------- */

static const ct_data_o *field(const ct_data_o *src, const char *name)
{
    return render__m.data->get(src, name);
}

static bool number_field(const ct_data_o *src, const char *what, const char *name, float lo,
                         float hi, float *out, ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = field(src, name);
    if (!v)
        return true;
    const double d = render__m.data->number(v, NAN);
    if (render__m.data->type(v) != CT_DATA_NUMBER || !(d >= lo && d <= hi)) {
        render__m.resource->compile_error(ctx, "%s.%s: must be a number in [%g, %g]", what, name,
                                          (double)lo, (double)hi);
        return false;
    }
    *out = (float)d;
    return true;
}

static bool color_field(const ct_data_o *src, const char *what, float out[3], ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = field(src, "color");
    if (!v)
        return true;
    const ct_data_api_v1 *data = render__m.data;
    bool ok = data->type(v) == CT_DATA_ARRAY && data->count(v) == 3;
    const ct_data_o *c = ok ? data->first_child(v) : NULL;
    for (int k = 0; ok && k < 3; k++, c = data->next(c)) {
        const double d = data->number(c, NAN);
        ok = d >= 0.0 && d <= 1000.0;
        out[k] = (float)d;
    }
    if (!ok)
        render__m.resource->compile_error(ctx, "%s.color: must be [r g b], numbers in [0, 1000]",
                                          what);
    return ok;
}

static bool name_field(const ct_data_o *src, const char *what, const char *name,
                       char out[RENDER_RESOURCE_NAME_SIZE], ct_compile_ctx_o *ctx)
{
    const char *s = render__m.data->string(field(src, name), NULL);
    char why[200];
    if (!s) {
        render__m.resource->compile_error(ctx, "%s.%s: a resource name (string) is required", what,
                                          name);
        return false;
    }
    if (strlen(s) >= RENDER_RESOURCE_NAME_SIZE ||
        render__m.resource->check_name(s, why, sizeof why)) {
        render__m.resource->compile_error(
            ctx, "%s.%s: '%s' is not a resource name: %s", what, name, s,
            strlen(s) >= RENDER_RESOURCE_NAME_SIZE ? "too long" : why);
        return false;
    }
    /* The field names the resource type ("mesh", "material"); noted in the reference index, and
     * a name with no such resource fails here rather than at spawn. */
    char path[64];
    snprintf(path, sizeof path, "%s.%s", what, name);
    if (!render__m.resource->reference(ctx, path, name, s))
        return false;
    memset(out, 0, RENDER_RESOURCE_NAME_SIZE);
    memcpy(out, s, strlen(s));
    return true;
}

/* The mesh component's compiled data is the two names (the instance's slots come at spawn), so
 * its instance_size differs from the manager's per-instance size. */
static int compile_mesh(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {{"mesh", CT_DATA_INVALID, 0},
                                       {"material", CT_DATA_INVALID, 0}};
    render__mesh_instance_desc d;
    if (!render__m.resource->check_fields(ctx, src, "mesh", known, CT_ARRAY_COUNT(known)) ||
        !name_field(src, "mesh", "mesh", d.mesh, ctx) ||
        !name_field(src, "mesh", "material", d.material, ctx))
        return CT_ERR_BAD_DATA;
    memcpy(out, &d, sizeof d);
    return 0;
}

static int compile_camera(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"fov", CT_DATA_INVALID, 0},
        {"near", CT_DATA_INVALID, 0},
        {"far", CT_DATA_INVALID, 0},
    };
    render__camera_desc d = {60.0f, 0.1f, 500.0f};
    if (!render__m.resource->check_fields(ctx, src, "camera", known, CT_ARRAY_COUNT(known)) ||
        !number_field(src, "camera", "fov", 1.0f, 179.0f, &d.fov_degrees, ctx) ||
        !number_field(src, "camera", "near", 1e-4f, 1e6f, &d.near_plane, ctx) ||
        !number_field(src, "camera", "far", 1e-3f, 1e7f, &d.far_plane, ctx))
        return CT_ERR_BAD_DATA;
    if (!(d.far_plane > d.near_plane)) {
        render__m.resource->compile_error(ctx,
                                          "camera.far (%g) must be greater than camera.near (%g)",
                                          (double)d.far_plane, (double)d.near_plane);
        return CT_ERR_BAD_DATA;
    }
    memcpy(out, &d, sizeof d);
    return 0;
}

static int compile_light(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"type", CT_DATA_STRING, 0},       {"color", CT_DATA_INVALID, 0},
        {"intensity", CT_DATA_INVALID, 0}, {"range", CT_DATA_INVALID, 0},
        {"angle", CT_DATA_INVALID, 0},     {"shadows", CT_DATA_BOOL, 0},
    };
    render__light_desc d = {RENDER_LIGHT_DIRECTIONAL, {1, 1, 1}, 1.0f, 10.0f, 30.0f, 0};
    if (!render__m.resource->check_fields(ctx, src, "light", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    const char *type = render__m.data->string(field(src, "type"), "directional");
    if (!strcmp(type, "point")) {
        d.type = RENDER_LIGHT_POINT;
    } else if (!strcmp(type, "spot")) {
        d.type = RENDER_LIGHT_SPOT;
    } else if (strcmp(type, "directional")) {
        render__m.resource->compile_error(
            ctx, "light.type: must be \"directional\", \"point\" or \"spot\", not \"%s\"", type);
        return CT_ERR_BAD_DATA;
    }
    if (!color_field(src, "light", d.color, ctx) ||
        !number_field(src, "light", "intensity", 0.0f, 1000.0f, &d.intensity, ctx) ||
        !number_field(src, "light", "range", 1e-3f, 1e6f, &d.range, ctx) ||
        !number_field(src, "light", "angle", 1.0f, 89.0f, &d.angle, ctx))
        return CT_ERR_BAD_DATA;
    if (field(src, "angle") && d.type != RENDER_LIGHT_SPOT) {
        render__m.resource->compile_error(
            ctx, "light.angle: only spot lights have a cone (type = \"spot\")");
        return CT_ERR_BAD_DATA;
    }
    d.shadows = render__m.data->boolean(field(src, "shadows"), false);
    if (d.shadows && d.type == RENDER_LIGHT_DIRECTIONAL) {
        render__m.resource->compile_error(
            ctx, "light.shadows: the sun's shadow is the render_config's shadow layer; "
                 "shadows here are for point and spot lights");
        return CT_ERR_BAD_DATA;
    }
    memcpy(out, &d, sizeof d);
    return 0;
}

/* ---- spawning ------------------------------------------------------------------------------ */

/* Resolves a mesh instance's resources (loading them), or false (logged) leaving none loaded. */
static bool resolve_mesh(const render__mesh_instance_desc *d, ct_entity_t e, render__mesh_ref *out)
{
    const ct_resource_api_v6 *res = render__m.resource;
    if (memchr(d->mesh, 0, sizeof d->mesh) == NULL ||
        memchr(d->material, 0, sizeof d->material) == NULL) {
        RENDER_LOG(CT_LOG_ERROR, "spawn mesh: entity %u: corrupt resource names", e.id);
        return false;
    }
    if (res->load("mesh", d->mesh)) {
        RENDER_LOG(CT_LOG_ERROR, "spawn mesh: entity %u: mesh '%s' does not load", e.id, d->mesh);
        return false;
    }
    if (res->load("material", d->material)) {
        RENDER_LOG(CT_LOG_ERROR, "spawn mesh: entity %u: material '%s' does not load", e.id,
                   d->material);
        res->unload("mesh", d->mesh);
        return false;
    }
    out->mesh_name = named(RENDER_NAMED_MESH, d->mesh);
    out->material_name = named(RENDER_NAMED_MATERIAL, d->material);
    if (out->mesh_name == RENDER_NO_INDEX || out->material_name == RENDER_NO_INDEX) {
        RENDER_LOG(CT_LOG_ERROR, "spawn mesh: entity %u: out of memory for resource names", e.id);
        res->unload("mesh", d->mesh);
        res->unload("material", d->material);
        return false;
    }
    render__state *s = render__m.state;
    out->mesh = s->names[out->mesh_name].slot = render__mesh_slot_of(d->mesh);
    out->material = s->names[out->material_name].slot = render__material_slot_of(d->material);
    return true;
}

static void spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *data)
{
    render__manager *m = manager;
    if (!reserve(m, m->n + n)) {
        RENDER_LOG(CT_LOG_ERROR, "spawn %s: out of memory for %u instances",
                   render__m.state->registered[m->type].name, n);
        return;
    }
    const uint32_t in_size = render__m.state->registered[m->type].instance_size;
    for (uint32_t k = 0; k < n; k++) {
        const ct_entity_t e = ctx->entity_lookup[entity_index[k]];
        if (!ct_entity_pages_reserve(&m->index, m->a, e)) {
            RENDER_LOG(CT_LOG_ERROR, "spawn %s: out of memory for the entity index",
                       render__m.state->registered[m->type].name);
            return;
        }
        const uint8_t *src = (const uint8_t *)data + (size_t)k * in_size;
        uint8_t *dst = m->data + (size_t)m->n * m->size;
        if (m->type == RENDER_MESH_TYPE) {
            render__mesh_instance_desc d;
            memcpy(&d, src, sizeof d);
            if (!resolve_mesh(&d, e, (render__mesh_ref *)(void *)dst))
                continue;
        } else {
            memcpy(dst, src, m->size);
        }
        *ct_entity_pages_entry(&m->index, e) = m->n + 1;
        m->entity[m->n++] = e;
    }
}

static ct_component_type_t types[RENDER_NUM_TYPES] = {
    [RENDER_MESH_TYPE] = {.name = CT_RENDER_MESH_COMPONENT_NAME,
                          .instance_size = sizeof(render__mesh_instance_desc),
                          .compile = compile_mesh},
    [RENDER_CAMERA_TYPE] = {.name = CT_RENDER_CAMERA_COMPONENT_NAME,
                            .instance_size = sizeof(render__camera_desc),
                            .compile = compile_camera},
    [RENDER_LIGHT_TYPE] = {.name = CT_RENDER_LIGHT_COMPONENT_NAME,
                           .instance_size = sizeof(render__light_desc),
                           .compile = compile_light},
};

/* The layouts of compiled component data, as levels and units record them: a change here is a
 * new number, so cuttle-compile compiles them again and older blobs are refused ("recompile").
 * mesh and camera 1, as first laid out (undeclared, 0, before formats were declared); light 2:
 * spot lights' angle and the shadows flag. */
static void declare_formats(void)
{
    render__m.resource->declare_format("component." CT_RENDER_MESH_COMPONENT_NAME, 1);
    render__m.resource->declare_format("component." CT_RENDER_CAMERA_COMPONENT_NAME, 1);
    render__m.resource->declare_format("component." CT_RENDER_LIGHT_COMPONENT_NAME, 2);
}

static void fill_types(void)
{
    declare_formats();
    for (uint32_t i = 0; i < RENDER_NUM_TYPES; i++) {
        types[i].spawn_order = CT_SPAWN_ORDER_RENDER;
        types[i].user_data = (void *)(uintptr_t)i;
        types[i].create_manager = create_manager;
        types[i].destroy_manager = destroy_manager;
        types[i].spawn = spawn;
        types[i].destroyed = destroyed;
    }
}

int render__register_components(void)
{
    render__state *s = render__m.state;
    fill_types();
    for (uint32_t i = 0; i < RENDER_NUM_TYPES; i++) {
        s->type_id[i] = render__m.component->register_type(&types[i]);
        if (!s->type_id[i]) {
            while (i--)
                render__m.component->unregister_type(s->type_id[i]);
            return CT_ERR_CONFLICT;
        }
        s->registered[i] = types[i];
    }
    return 0;
}

bool render__rebind_components(void)
{
    render__state *s = render__m.state;
    fill_types();
    for (uint32_t i = 0; i < RENDER_NUM_TYPES; i++)
        if (!render__m.component->replace_type(&types[i])) {
            while (i--)
                render__m.component->replace_type(&s->registered[i]);
            return false;
        }
    memcpy(s->registered, types, sizeof types);
    return true;
}

void render__unregister_components(void)
{
    render__state *s = render__m.state;
    for (uint32_t i = RENDER_NUM_TYPES; i--;)
        render__m.component->unregister_type(s->type_id[i]);
    ct_free(render__m.allocator, s->names, (size_t)s->names_cap * sizeof *s->names);
    s->names = NULL;
    s->num_names = s->names_cap = 0;
}
