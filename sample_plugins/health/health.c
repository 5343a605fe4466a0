/*
 * health: the example component plugin "acme.health", built on the SDK's ct_component_store.h.
 * `cuttle-new-plugin NAME --component NAME` writes a copy of it under the names given.
 *
 * The component, in a level or unit:   health = { value = 80 max = 100 regen = 5 }
 *   max    above 0 (default 100); value in [0, max] (default max); regen per second (default 0).
 * It is compiled with check_fields (a misspelt or mistyped field names the entity and the
 * field), each compiled instance is validated when a resource is loaded (a hand-edited blob with
 * value > max is refused), spawned in batches, collected lazily once its entity dies, and served
 * to C (acme_health.h) and Lua:
 *   Health.value(world, e) -> number | nil     Health.damage(world, e, amount) -> left | nil
 *   Health.regenerate(world, dt)               Health.count(world) -> n
 * On a hot reload the new code takes over the component type, its validation and the Lua
 * functions; the managers (and so every instance) stay where they are.
 */
#include <math.h>
#include <stdio.h>

#include "acme_health.h"
#include "ct_component_store.h"
#include "ct_data.h"
#include "ct_lua.h"
#include "ct_module.h"
#include "ct_resource.h"
#include "ct_world.h"

#define HEALTH_NAME "health" /* the component's name in sources and its type id's */
#define HEALTH_LAYOUT 1u     /* bump when health_state_t changes */

/* The compiled instance (the component's source, checked): 12 bytes per instance in a level. */
typedef struct health_data_t {
    float value, max, regen;
} health_data_t;

/* The columns of a world's store: one array per field. */
enum { HEALTH_VALUE, HEALTH_MAX, HEALTH_REGEN, HEALTH_COLUMNS };
static const uint32_t health_columns[HEALTH_COLUMNS] = {sizeof(float), sizeof(float),
                                                        sizeof(float)};

/* One world's manager. */
typedef struct health_manager_t {
    ct_component_store_t store;
    uint32_t rng; /* for the lazy collection */
} health_manager_t;

/* What survives a reload (the managers belong to the worlds, so nothing else needs to). */
typedef struct health_state_t {
    ct_reload_header_t header;
    uint64_t type_id;
} health_state_t;

static const ct_log_api_v1 *log_api;
static const ct_lua_api_v2 *lua_api;
static const ct_data_api_v1 *data_api;
static const ct_resource_api_v3 *resource_api;
static const ct_entity_api_v1 *entity_api;
static const ct_component_api_v2 *component_api;
static const ct_world_api_v2 *world_api;
static ct_plugin_o *self_;
static ct_allocator_t *allocator;
static health_state_t *state;

#define CT_LOG_TABLE log_api
#define CT_LOG_SELF self_

/* ---- the component type ---------------------------------------------------------------- */

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    (void)world;
    health_manager_t *m = ct_alloc(a, sizeof *m);
    if (m && !ct_component_store_init(&m->store, a, health_columns, HEALTH_COLUMNS)) {
        ct_free(a, m, sizeof *m);
        return NULL;
    }
    if (m)
        m->rng = 0x2545f491u;
    return m;
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    health_manager_t *m = manager;
    ct_allocator_t *a = m->store.a;
    ct_component_store_free(&m->store);
    ct_free(a, m, sizeof *m);
}

/* The one place the rules live: the compiler and the load-time validation both ask it. */
static bool health_check(const health_data_t *d, char *why, size_t why_size)
{
    if (!isfinite(d->value) || !isfinite(d->max) || !isfinite(d->regen))
        snprintf(why, why_size, "a field is not a finite number");
    else if (d->max <= 0.0f)
        snprintf(why, why_size, "max: %g is not above 0", (double)d->max);
    else if (d->value < 0.0f || d->value > d->max)
        snprintf(why, why_size, "value: %g is not within [0, max = %g]", (double)d->value,
                 (double)d->max);
    else
        return true;
    return false;
}

static int compile(void *user_data, const ct_data_o *source, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t fields[] = {
        {"value", CT_DATA_NUMBER, 0}, {"max", CT_DATA_NUMBER, 0}, {"regen", CT_DATA_NUMBER, 0}};
    if (!resource_api->check_fields(ctx, source, HEALTH_NAME, fields, CT_ARRAY_COUNT(fields)))
        return CT_ERR_BAD_DATA;
    health_data_t d;
    d.max = (float)data_api->number(data_api->get(source, "max"), 100.0);
    d.value = (float)data_api->number(data_api->get(source, "value"), d.max);
    d.regen = (float)data_api->number(data_api->get(source, "regen"), 0.0);
    char why[128];
    if (!health_check(&d, why, sizeof why)) {
        resource_api->compile_error(ctx, HEALTH_NAME ".%s", why);
        return CT_ERR_BAD_DATA;
    }
    memcpy(out, &d, sizeof d);
    return 0;
}

static bool validate(void *user_data, const void *instance, char *why, size_t why_size)
{
    (void)user_data;
    health_data_t d;
    memcpy(&d, instance, sizeof d);
    return health_check(&d, why, why_size);
}

static void spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *data)
{
    health_manager_t *m = manager;
    for (uint32_t k = 0; k < n; k++) {
        const ct_entity_t e = ctx->entity_lookup[entity_index[k]];
        const uint32_t i = ct_component_store_add(&m->store, e);
        if (i == CT_STORE_NONE) {
            while (k-- > 0) /* leave the manager as it was */
                ct_component_store_remove(&m->store, ctx->entity_lookup[entity_index[k]]);
            component_api->spawn_failed(ctx, CT_ERR_NOMEM);
            return;
        }
        health_data_t d;
        memcpy(&d, (const char *)data + (size_t)k * sizeof d, sizeof d);
        CT_STORE_COLUMN(&m->store, HEALTH_VALUE, float)[i] = d.value;
        CT_STORE_COLUMN(&m->store, HEALTH_MAX, float)[i] = d.max;
        CT_STORE_COLUMN(&m->store, HEALTH_REGEN, float)[i] = d.regen;
    }
}

static bool entity_alive(void *user_data, ct_entity_t e)
{
    (void)user_data;
    return entity_api->alive(e);
}

static void gc(void *manager)
{
    health_manager_t *m = manager;
    ct_component_store_gc(&m->store, entity_alive, NULL, &m->rng, 4);
}

static const ct_component_type_t health_type = {
    .name = HEALTH_NAME,
    .spawn_order = CT_SPAWN_ORDER_TRANSFORM + 1,
    .create_manager = create_manager,
    .destroy_manager = destroy_manager,
    .instance_size = sizeof(health_data_t),
    .compile = compile,
    .spawn = spawn,
    .gc = gc,
};

/* x kept within [lo, hi] (no libm, so the plugin links nothing). */
static float clamp(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

/* ---- the API (C) ------------------------------------------------------------------------ */

/* The manager of a live world, or NULL (a destroyed world's pointer is never dereferenced). */
static health_manager_t *manager_of(ct_world_o *world)
{
    for (uint32_t i = 0, n = world_api->world_count(); i < n; i++)
        if (world_api->world_at(i) == world)
            return component_api->manager(world, state->type_id);
    return NULL;
}

static bool value(ct_world_o *world, ct_entity_t e, float *out)
{
    health_manager_t *m = manager_of(world);
    const uint32_t i = m ? ct_component_store_lookup(&m->store, e) : CT_STORE_NONE;
    if (i == CT_STORE_NONE)
        return false;
    *out = CT_STORE_COLUMN(&m->store, HEALTH_VALUE, float)[i];
    return true;
}

static float damage(ct_world_o *world, ct_entity_t e, float amount)
{
    health_manager_t *m = manager_of(world);
    const uint32_t i = m ? ct_component_store_lookup(&m->store, e) : CT_STORE_NONE;
    if (i == CT_STORE_NONE || !isfinite(amount))
        return -1.0f;
    float *v = &CT_STORE_COLUMN(&m->store, HEALTH_VALUE, float)[i];
    const float max = CT_STORE_COLUMN(&m->store, HEALTH_MAX, float)[i];
    *v = clamp(*v - amount, 0.0f, max);
    return *v;
}

static void regenerate(ct_world_o *world, float dt)
{
    health_manager_t *m = manager_of(world);
    if (!m || !isfinite(dt))
        return;
    float *v = CT_STORE_COLUMN(&m->store, HEALTH_VALUE, float);
    const float *max = CT_STORE_COLUMN(&m->store, HEALTH_MAX, float);
    const float *regen = CT_STORE_COLUMN(&m->store, HEALTH_REGEN, float);
    for (uint32_t i = 0; i < m->store.n; i++)
        v[i] = clamp(v[i] + regen[i] * dt, 0.0f, max[i]);
}

static uint32_t count(ct_world_o *world)
{
    health_manager_t *m = manager_of(world);
    return m ? m->store.n : 0;
}

/* ---- Lua -------------------------------------------------------------------------------- */

static ct_world_o *arg_world(lua_State *L, const char *fn)
{
    ct_world_o *w =
        lua_api->type(L, 1) == CT_LUA_LIGHTUSERDATA ? lua_api->to_light_userdata(L, 1) : NULL;
    if (!manager_of(w))
        lua_api->error(L, "%s: argument 1 is not a live world", fn);
    return w;
}

static ct_entity_t arg_entity(lua_State *L, const char *fn)
{
    const double id = lua_api->type(L, 2) == CT_LUA_NUMBER ? lua_api->to_number(L, 2) : 0.0;
    if (!(id >= 1.0 && id <= (double)UINT32_MAX && id == (double)(uint32_t)id))
        lua_api->error(L, "%s: argument 2 is not an entity id", fn);
    return (ct_entity_t){(uint32_t)id};
}

/* Pushes x, or nil when x < 0 (no such instance). */
static int push_or_nil(lua_State *L, float x)
{
    if (x < 0.0f)
        lua_api->push_nil(L);
    else
        lua_api->push_number(L, x);
    return 1;
}

static int l_value(lua_State *L)
{
    ct_world_o *w = arg_world(L, "Health.value");
    float v = -1.0f;
    value(w, arg_entity(L, "Health.value"), &v);
    return push_or_nil(L, v);
}

static int l_damage(lua_State *L)
{
    ct_world_o *w = arg_world(L, "Health.damage");
    const ct_entity_t e = arg_entity(L, "Health.damage");
    return push_or_nil(L, damage(w, e, (float)lua_api->check_number(L, 3)));
}

static int l_regenerate(lua_State *L)
{
    regenerate(arg_world(L, "Health.regenerate"), (float)lua_api->check_number(L, 2));
    return 0;
}

static int l_count(lua_State *L)
{
    lua_api->push_number(L, count(arg_world(L, "Health.count")));
    return 1;
}

/* ---- the plugin ------------------------------------------------------------------------- */

/* Points the Lua functions and the validation at this code (init and, after a reload, rebind). */
static int bind(void)
{
    static const ct_lua_reg_t fns[] = {
        {"value", l_value}, {"damage", l_damage}, {"regenerate", l_regenerate}, {"count", l_count}};
    lua_api->register_module("Health", fns, CT_ARRAY_COUNT(fns));
    return component_api->set_validate(state->type_id, validate) ? 0 : CT_ERR_NOT_FOUND;
}

static int start(void)
{
    state->type_id = component_api->register_type(&health_type);
    if (!state->type_id)
        return CT_ERR_CONFLICT; /* the name is taken: logged, naming the other plugin */
    const int err = bind();
    if (err)
        component_api->unregister_type(state->type_id);
    return err;
}

static int rebind(void)
{
    return component_api->replace_type(&health_type) ? bind() : CT_ERR_VERSION;
}

static void stop(void) { component_api->unregister_type(state->type_id); }

static const ct_module_api_t apis[] = {
    CT_MODULE_API(log, 1, &log_api),       CT_MODULE_API(lua, 2, &lua_api),
    CT_MODULE_API(data, 1, &data_api),     CT_MODULE_API(resource, 3, &resource_api),
    CT_MODULE_API(entity, 1, &entity_api), CT_MODULE_API(component, 2, &component_api),
    CT_MODULE_API(world, 2, &world_api),   CT_MODULE_API_NO_SLOT(memory, 1),
};
static const ct_api_ref_t provides[] = {CT_API_PROVIDE("acme.health", 1, acme_health_api_v1)};

static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "acme.health", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides)},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &self_,
               .allocator = &allocator,
               .state = &state,
               .state_size = sizeof(health_state_t),
               .layout_version = HEALTH_LAYOUT,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const acme_health_api_v1 table = {
        .value = value, .damage = damage, .regenerate = regenerate, .count = count};
    static const ct_api_table_t tables[] = {{ACME_HEALTH_API, 1, &table}};
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
