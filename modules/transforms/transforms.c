/*
 * ct_transforms.so: the plugin entry, the module's APIs and the ct.transform v1/v2/v3 tables.
 *
 * Every API call finds the world's manager through the component registry, checks its handles
 * (misuse is logged with the function's name and ignored, STYLE rule 7) and hands the work to the
 * graph layer. v1 and v2 are prefixes of v3: their tables point at the same functions.
 */
#include "transforms_internal.h"

#include "ct_data.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_module.h"
#include "ct_plugin.h"
#include "ct_resource.h"
#include "transforms_layout.h"

transforms__module_t transforms__m;

#define LOG_MISUSE(...) transforms__m.log->write(transforms__m.self, CT_LOG_WARNING, __VA_ARGS__)

transforms__manager_t *transforms__manager_of(ct_world_o *world, const char *what)
{
    transforms__manager_t *m =
        world ? transforms__m.component->manager(world, transforms__m.state->type_id) : NULL;
    if (!m)
        LOG_MISUSE("%s: %p is not a world with transforms", what, (void *)world);
    return m;
}

/* The manager and slot a handle names; NULL (logged) for a bad world or an invalid or stale
 * handle. */
static transforms__manager_t *checked(ct_world_o *world, ct_transform_t h, const char *what,
                                      uint32_t *i)
{
    transforms__manager_t *m = transforms__manager_of(world, what);
    *i = m ? transforms__index(m, h) : 0;
    if (m && !*i) {
        const uint32_t slot = h.i & TRANSFORMS_INDEX_MASK;
        LOG_MISUSE("%s: transform instance 0x%08x is %s", what, h.i,
                   transforms__valid(m, slot) ? "stale (its instance was destroyed or moved)"
                                              : "not an instance of this world");
        return NULL;
    }
    return m;
}

static ct_transform_t t_create(ct_world_o *world, ct_entity_t e, const ct_transform_pose_t *local)
{
    ct_transform_t out = {0};
    transforms__manager_t *m = transforms__manager_of(world, "create");
    if (!m)
        return out;
    if (!transforms__m.entity->alive(e)) {
        LOG_MISUSE("create: entity %u is not alive", e.id);
        return out;
    }
    ct_transform_pose_t pose = local ? *local : transforms__identity_pose;
    char why[160];
    if (!transforms__check_pose(&pose, why, sizeof why)) {
        LOG_MISUSE("create: entity %u: %s; refused", e.id, why);
        return out;
    }
    const int err = transforms__create(m, &e, NULL, &pose, 1, &out, NULL);
    if (err)
        transforms__m.log->write(transforms__m.self, CT_LOG_ERROR, "create: entity %u: %s", e.id,
                                 transforms__m.log->error_message(err));
    else if (!out.i)
        LOG_MISUSE("create: entity %u already has a transform in this world", e.id);
    return out;
}

static void t_destroy(ct_world_o *world, ct_transform_t i)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "destroy", &s);
    if (m)
        transforms__destroy(m, s);
}

static ct_transform_t t_lookup(ct_world_o *world, ct_entity_t e)
{
    transforms__manager_t *m = transforms__manager_of(world, "lookup");
    return m ? transforms__handle(m, transforms__find(m, e.id)) : (ct_transform_t){0};
}

static ct_entity_t t_entity(ct_world_o *world, ct_transform_t i)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "entity", &s);
    return m ? m->entity[s] : (ct_entity_t){0};
}

static uint32_t t_count(ct_world_o *world)
{
    transforms__manager_t *m = transforms__manager_of(world, "count");
    return m ? m->n - 1 : 0;
}

static ct_transform_pose_t t_local(ct_world_o *world, ct_transform_t i)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "local", &s);
    return m ? m->pose[s] : transforms__identity_pose;
}

static ct_transform_matrix_t t_local_matrix(ct_world_o *world, ct_transform_t i)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "local_matrix", &s);
    return m ? m->local_m[s] : transforms__identity_matrix;
}

static ct_transform_matrix_t t_world_matrix(ct_world_o *world, ct_transform_t i)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "world_matrix", &s);
    return m ? m->world_m[s] : transforms__identity_matrix;
}

static void t_set_local(ct_world_o *world, ct_transform_t i, const ct_transform_pose_t *local)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "set_local", &s);
    if (!m || !local)
        return;
    ct_transform_pose_t pose = *local;
    char why[160];
    if (!transforms__check_pose(&pose, why, sizeof why)) {
        LOG_MISUSE("set_local: entity %u: %s; refused", m->entity[s].id, why);
        return;
    }
    transforms__write_local(m, s, &pose);
    transforms__propagate(m, s);
}

static void t_link(ct_world_o *world, ct_transform_t child, ct_transform_t parent)
{
    uint32_t c, p;
    transforms__manager_t *m = checked(world, child, "link", &c);
    if (!m || !checked(world, parent, "link", &p))
        return;
    if (transforms__link(m, c, p) < 0) {
        LOG_MISUSE("link: entity %u is entity %u or one of its descendants (a cycle)",
                   m->entity[p].id, m->entity[c].id);
        return;
    }
    transforms__propagate(m, c);
}

static void t_unlink(ct_world_o *world, ct_transform_t child)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, child, "unlink", &s);
    if (m)
        transforms__unlink(m, s);
}

static ct_transform_t t_parent(ct_world_o *world, ct_transform_t i)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "parent", &s);
    return m ? transforms__handle(m, m->parent[s]) : (ct_transform_t){0};
}

static ct_transform_t t_first_child(ct_world_o *world, ct_transform_t i)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "first_child", &s);
    return m ? transforms__handle(m, m->first_child[s]) : (ct_transform_t){0};
}

static ct_transform_t t_next_sibling(ct_world_o *world, ct_transform_t i)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "next_sibling", &s);
    return m ? transforms__handle(m, m->next_sibling[s]) : (ct_transform_t){0};
}

static ct_transform_t t_prev_sibling(ct_world_o *world, ct_transform_t i)
{
    uint32_t s;
    transforms__manager_t *m = checked(world, i, "prev_sibling", &s);
    return m ? transforms__handle(m, m->prev_sibling[s]) : (ct_transform_t){0};
}

/* Names the first entry set_local_batch skipped and why (one line per call, not per entry). */
static void report_batch_skips(const transforms__manager_t *m, const ct_transform_t *instances,
                               const ct_transform_pose_t *locals, uint32_t n, uint32_t skipped)
{
    for (uint32_t k = 0; k < n; k++) {
        ct_transform_pose_t pose = locals[k];
        char why[160];
        const uint32_t i = transforms__index(m, instances[k]);
        if (!i) {
            LOG_MISUSE("set_local_batch: skipped %u of %u entries; the first, [%u], is an invalid "
                       "or stale instance 0x%08x",
                       skipped, n, k, instances[k].i);
            return;
        }
        if (!transforms__check_pose(&pose, why, sizeof why)) {
            LOG_MISUSE("set_local_batch: skipped %u of %u entries; the first, [%u] (entity %u): %s",
                       skipped, n, k, m->entity[i].id, why);
            return;
        }
    }
}

static void t_set_local_batch(ct_world_o *world, const ct_transform_t *instances,
                              const ct_transform_pose_t *locals, uint32_t n)
{
    transforms__manager_t *m = transforms__manager_of(world, "set_local_batch");
    if (!m || n == 0 || !instances || !locals)
        return;
    const uint32_t skipped = transforms__set_local_batch(m, instances, locals, n);
    if (skipped)
        report_batch_skips(m, instances, locals, n, skipped);
}

/* The instance of e for the per-entity calls; 0 when there is none (not misuse: physics asks for
 * bodies whether or not they have a transform). */
static uint32_t entity_instance(ct_world_o *world, ct_entity_t e, transforms__manager_t **m,
                                const char *what)
{
    *m = transforms__manager_of(world, what);
    return *m ? transforms__find(*m, e.id) : 0;
}

static bool t_world_position(ct_world_o *world, ct_entity_t e, float out[3])
{
    transforms__manager_t *m;
    const uint32_t i = entity_instance(world, e, &m, "world_position");
    if (!i)
        return false;
    for (int k = 0; k < 3; k++)
        out[k] = m->world_m[i].m[4 * k + 3];
    return true;
}

static bool t_world_rotation(ct_world_o *world, ct_entity_t e, float out[4])
{
    transforms__manager_t *m;
    const uint32_t i = entity_instance(world, e, &m, "world_rotation");
    if (!i)
        return false;
    transforms__world_rotation(m, i, out);
    return true;
}

static bool t_set_world_position(ct_world_o *world, ct_entity_t e, const float position[3])
{
    transforms__manager_t *m;
    const uint32_t i = entity_instance(world, e, &m, "set_world_position");
    if (!i || !position)
        return false;
    char why[160];
    if (!transforms__check_position(position, why, sizeof why)) {
        LOG_MISUSE("set_world_position: entity %u: %s; refused", e.id, why);
        return false;
    }
    if (!transforms__set_world_position(m, i, position)) {
        LOG_MISUSE("set_world_position: the parent of entity %u has a singular matrix", e.id);
        return false;
    }
    return true;
}

static bool t_set_world_rotation(ct_world_o *world, ct_entity_t e, const float rotation[4])
{
    transforms__manager_t *m;
    const uint32_t i = entity_instance(world, e, &m, "set_world_rotation");
    if (!i || !rotation)
        return false;
    float q[4] = {rotation[0], rotation[1], rotation[2], rotation[3]};
    char why[160];
    if (!transforms__check_rotation(q, why, sizeof why)) {
        LOG_MISUSE("set_world_rotation: entity %u: %s; refused", e.id, why);
        return false;
    }
    transforms__set_world_rotation(m, i, q);
    return true;
}

uint32_t transforms__destroy_tree(ct_world_o *world, ct_entity_t e)
{
    transforms__manager_t *m = transforms__manager_of(world, "destroy_tree");
    if (!m)
        return 0;
    if (!transforms__m.entity->alive(e)) {
        LOG_MISUSE("destroy_tree: entity %u is not alive", e.id);
        return 0;
    }
    const uint32_t i = transforms__find(m, e.id);
    if (!i) {
        transforms__m.entity->destroy(e);
        return 1;
    }
    uint32_t n;
    ct_entity_t *tree = transforms__subtree_entities(m, i, &n);
    if (!tree) {
        transforms__m.log->write(transforms__m.self, CT_LOG_ERROR,
                                 "destroy_tree: entity %u: out of memory; nothing destroyed", e.id);
        return 0;
    }
    transforms__m.entity->destroy_batch(tree, n);
    ct_free(m->a, tree, (size_t)n * sizeof *tree);
    return n;
}

/* Each version starts with the one before it, in the same order (a frozen struct only grows at
 * its end), so the tables share these lists. */
#define TRANSFORM_API_V1_FUNCTIONS                                                                 \
    .create = t_create, .destroy = t_destroy, .lookup = t_lookup, .entity = t_entity,              \
    .count = t_count, .local = t_local, .local_matrix = t_local_matrix,                            \
    .world_matrix = t_world_matrix, .set_local = t_set_local, .link = t_link, .unlink = t_unlink,  \
    .parent = t_parent, .first_child = t_first_child, .next_sibling = t_next_sibling,              \
    .prev_sibling = t_prev_sibling

#define TRANSFORM_API_V2_ADDED                                                                     \
    .set_local_batch = t_set_local_batch, .world_position = t_world_position,                      \
    .world_rotation = t_world_rotation, .set_world_position = t_set_world_position,                \
    .set_world_rotation = t_set_world_rotation

/* The world's change counter; 0 for a world without transforms. */
static uint64_t t_changes(ct_world_o *world)
{
    transforms__manager_t *m =
        world ? transforms__m.component->manager(world, transforms__m.state->type_id) : NULL;
    return m ? m->changes : 0;
}

static const ct_transform_api_v4 api_v4 = {
    TRANSFORM_API_V1_FUNCTIONS,
    TRANSFORM_API_V2_ADDED,
    .destroy_tree = transforms__destroy_tree,
    .changes = t_changes,
};

static const ct_transform_api_v3 api_v3 = {
    TRANSFORM_API_V1_FUNCTIONS,
    TRANSFORM_API_V2_ADDED,
    .destroy_tree = transforms__destroy_tree,
};

static const ct_transform_api_v2 api_v2 = {
    TRANSFORM_API_V1_FUNCTIONS,
    TRANSFORM_API_V2_ADDED,
};

static const ct_transform_api_v1 api_v1 = {
    TRANSFORM_API_V1_FUNCTIONS,
};

/* ---- plugin ------------------------------------------------------------------------------- */

static int start(void)
{
    const int err = transforms__register_component();
    if (err < 0)
        return err;
    transforms__register_lua();
    return 0;
}

/* Points the Lua functions (the kernel swaps them in place, or back if we refuse) and the
 * "transform" component type at this code. The API tables are the kernel's to swap. */
static int rebind(void)
{
    transforms__register_lua();
    return transforms__rebind_component() ? 0 : CT_ERR_VERSION;
}

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.transform", 1, ct_transform_api_v1),
    CT_API_PROVIDE("ct.transform", 2, ct_transform_api_v2),
    CT_API_PROVIDE("ct.transform", 3, ct_transform_api_v3),
    CT_API_PROVIDE("ct.transform", 4, ct_transform_api_v4),
};

/* ct.memory gives the module's state its block; managers allocate from the per-world allocator
 * the component registry hands them. */
static const ct_module_api_t apis[] = {
    CT_MODULE_API(entity, 2, &transforms__m.entity),
    CT_MODULE_API(component, 2, &transforms__m.component),
    CT_MODULE_API(log, 1, &transforms__m.log),
    CT_MODULE_API_NO_SLOT(memory, 1),
    CT_MODULE_API(lua, 1, &transforms__m.lua),
    CT_MODULE_API(data, 1, &transforms__m.data),
    CT_MODULE_API(resource, 6, &transforms__m.resource),
};

/* The old code may keep running (the new code can refuse), so a reload hands the state over as
 * is. */
static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.transforms", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides)},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &transforms__m.self,
               .allocator = &transforms__m.allocator,
               .state = &transforms__m.state,
               .state_size = sizeof(transforms__state_t),
               .layout_version = TRANSFORMS_LAYOUT_VERSION,
               .start = start,
               .stop = transforms__unregister_component,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {
        {CT_TRANSFORM_API, 1, &api_v1},
        {CT_TRANSFORM_API, 2, &api_v2},
        {CT_TRANSFORM_API, 3, &api_v3},
        {CT_TRANSFORM_API, 4, &api_v4},
    };
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
