/*
 * The "network" component: which entities of a world are replicated objects, and the two walks
 * that move state between entities and objects each frame. An owned entity's local position
 * and rotation go into its object (only the fields that changed, so unchanged objects send
 * nothing); a replica's object state goes into its transform. Replicas whose object is
 * destroyed are destroyed with it.
 *
 * In a resource:  network = {}   (no fields: script fields are declared at run time with
 * Network.declare_fields). An entity spawned with it is replicated when a session runs.
 */
#include "network_internal.h"

#include "ct_array.h"
#include "ct_data.h"

#define LOG(level, ...) network__m.log->write(network__m.self, level, __VA_ARGS__)

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    network__manager_t *m = ct_alloc(a, sizeof *m);
    if (m)
        *m = (network__manager_t){.a = a, .world = world};
    return m;
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    network__manager_t *m = manager;
    ct_free(m->a, m->entity, m->cap * sizeof *m->entity);
    ct_free(m->a, m->object, m->cap * sizeof *m->object);
    ct_entity_pages_free(&m->index, m->a);
    ct_free(m->a, m, sizeof *m);
}

network__manager_t *network__manager(ct_world_o *world)
{
    return world ? network__m.component->manager(world, network__m.state->type_id) : NULL;
}

/* The instance of e, or UINT32_MAX. */
static uint32_t find(const network__manager_t *m, ct_entity_t e)
{
    const uint32_t *at = e.id ? ct_entity_pages_entry(&m->index, e) : NULL;
    return at && *at && *at <= m->n && m->entity[*at - 1].id == e.id ? *at - 1 : UINT32_MAX;
}

/* The word in the session's slot of `object` that keeps its instance + 1 here, or NULL (no
 * session, another world, or an object the session does not know). Only the session's world
 * has entries while it runs, and network__stop unlinks them all, so a word never outlives its
 * session and a new session never finds an old one's entities. */
static uint32_t *object_word(const network__manager_t *m, uint32_t object)
{
    network__state_t *st = network__m.state;
    return st->running && m->world == st->world ? net_object_user(&st->session, object) : NULL;
}

/* The instance of object, or UINT32_MAX: one probe of the session's map, not a walk. */
static uint32_t find_object(const network__manager_t *m, uint32_t object)
{
    const uint32_t *at = object_word(m, object);
    return at && *at && *at <= m->n && m->object[*at - 1] == object ? *at - 1 : UINT32_MAX;
}

/* Points object's word at instance i (UINT32_MAX: at none) if it points at `was` + 1. */
static void move_object_word(const network__manager_t *m, uint32_t object, uint32_t was, uint32_t i)
{
    uint32_t *at = object_word(m, object);
    if (at && *at == was + 1)
        *at = i + 1;
}

/* Both columns to the next capacity, or neither: growing one and failing the other would leave
 * a block larger than `cap` says (and freed with the wrong size). */
static bool grow(network__manager_t *m)
{
    const uint32_t cap = ct_array_capacity(m->cap, m->n + 1, 16);
    if (cap > UINT32_MAX / 8)
        return false;
    ct_entity_t *entity = ct_alloc(m->a, (size_t)cap * sizeof *entity);
    uint32_t *object = ct_alloc(m->a, (size_t)cap * sizeof *object);
    if (!entity || !object) {
        ct_free(m->a, entity, (size_t)cap * sizeof *entity);
        ct_free(m->a, object, (size_t)cap * sizeof *object);
        return false;
    }
    if (m->n) {
        memcpy(entity, m->entity, (size_t)m->n * sizeof *entity);
        memcpy(object, m->object, (size_t)m->n * sizeof *object);
    }
    ct_free(m->a, m->entity, (size_t)m->cap * sizeof *m->entity);
    ct_free(m->a, m->object, (size_t)m->cap * sizeof *m->object);
    m->entity = entity, m->object = object, m->cap = cap;
    return true;
}

/* Appends e -> object; false (out of memory) with the manager as it was. */
static bool add(network__manager_t *m, ct_entity_t e, uint32_t object)
{
    if (!ct_entity_pages_reserve(&m->index, m->a, e))
        return false;
    if (m->n == m->cap && !grow(m))
        return false;
    *ct_entity_pages_entry(&m->index, e) = m->n + 1;
    uint32_t *word = object_word(m, object);
    if (word)
        *word = m->n + 1;
    m->entity[m->n] = e;
    m->object[m->n++] = object;
    return true;
}

/* Swap-and-pop: the last instance moves into i (the arrays stay packed for the walks) and its
 * entries (entity index, object word) follow it. An entry is changed only where it points at
 * the instance concerned: one taken over by a newer entity of the same index stays that
 * entity's. */
static void remove_at(network__manager_t *m, uint32_t i)
{
    const uint32_t last = --m->n;
    uint32_t *gone = ct_entity_pages_entry(&m->index, m->entity[i]);
    if (gone && *gone == i + 1)
        *gone = 0;
    move_object_word(m, m->object[i], i, UINT32_MAX);
    if (i == last)
        return;
    m->entity[i] = m->entity[last];
    m->object[i] = m->object[last];
    uint32_t *moved = ct_entity_pages_entry(&m->index, m->entity[i]);
    if (moved && *moved == last + 1)
        *moved = i + 1;
    move_object_word(m, m->object[i], last, i);
}

uint32_t network__object_of(ct_world_o *world, ct_entity_t e)
{
    network__manager_t *m = network__manager(world);
    const uint32_t i = m ? find(m, e) : UINT32_MAX;
    return i == UINT32_MAX ? 0 : m->object[i];
}

static void pose_fields(const ct_transform_pose_t *pose, float *fields)
{
    memcpy(fields, pose->position, sizeof pose->position);
    memcpy(fields + 3, pose->rotation, sizeof pose->rotation);
}

int network__replicate(ct_world_o *world, ct_entity_t e)
{
    network__state_t *st = network__m.state;
    network__manager_t *m = network__manager(world);
    if (!network__m.entity->alive(e))
        return CT_ERR_STALE;
    if (!st->running || !st->session.joined || !m || world != st->world) {
        LOG(CT_LOG_WARNING, "replicate: entity %u: no joined session for this world", e.id);
        return CT_ERR_INVALID;
    }
    if (find(m, e) != UINT32_MAX)
        return 0;
    const ct_transform_t t = network__m.transform->lookup(world, e);
    if (!t.i) {
        LOG(CT_LOG_WARNING, "replicate: entity %u has no transform", e.id);
        return CT_ERR_INVALID;
    }
    float fields[NET_FIELDS] = {0};
    const ct_transform_pose_t pose = network__m.transform->local(world, t);
    pose_fields(&pose, fields);
    const uint32_t object = net_object_spawn(&st->session, fields, 0xffff);
    if (!object || !add(m, e, object)) {
        if (object)
            net_object_destroy(&st->session, object);
        return CT_ERR_FULL;
    }
    return 0;
}

int network__migrate(ct_world_o *world, ct_entity_t e, uint8_t peer)
{
    const uint32_t object = network__object_of(world, e);
    if (!object || !network__m.state->running)
        return CT_ERR_NOT_FOUND;
    return net_object_migrate(&network__m.state->session, object, peer);
}

uint8_t network__owner(ct_world_o *world, ct_entity_t e)
{
    const uint32_t object = network__object_of(world, e);
    const net_object_t *o = object && network__m.state->running
                                ? net_object_find(&network__m.state->session, object)
                                : NULL;
    return o ? o->owner : 0;
}

void network__replica_created(uint32_t object)
{
    network__state_t *st = network__m.state;
    network__manager_t *m = network__manager(st->world);
    const net_object_t *o = net_object_find(&st->session, object);
    if (!m || !o || o->owner == st->session.my_id || find_object(m, object) != UINT32_MAX)
        return;
    const ct_entity_t e = network__m.entity->create();
    ct_transform_pose_t pose = {.scale = {1, 1, 1}};
    memcpy(pose.position, o->fields, sizeof pose.position);
    memcpy(pose.rotation, o->fields + 3, sizeof pose.rotation);
    if (!e.id || !network__m.transform->create(st->world, e, &pose).i || !add(m, e, object)) {
        LOG(CT_LOG_ERROR, "replica of object %08x: no room for its entity", object);
        if (e.id)
            network__m.entity->destroy(e);
        return;
    }
    network__replicas_created(e, o, (double)net_udp_now() * 1e-6);
}

void network__unlink_all(void)
{
    network__manager_t *m = network__manager(network__m.state->world);
    while (m && m->n)
        remove_at(m, m->n - 1);
}

void network__gather(void)
{
    network__state_t *st = network__m.state;
    network__manager_t *m = network__manager(st->world);
    for (uint32_t i = 0; m && i < m->n; i++) {
        const net_object_t *o = net_object_find(&st->session, m->object[i]);
        const ct_transform_t t = network__m.transform->lookup(st->world, m->entity[i]);
        if (!o || o->owner != st->session.my_id || !t.i)
            continue;
        float fields[NET_FIELDS];
        const ct_transform_pose_t pose = network__m.transform->local(st->world, t);
        pose_fields(&pose, fields);
        uint16_t mask = 0;
        for (uint32_t f = 0; f < NET_SCRIPT_FIELD0; f++)
            mask |= (uint16_t)((fields[f] != o->fields[f]) << f);
        if (mask)
            net_object_set(&st->session, m->object[i], mask, fields);
    }
}

void network__apply(void)
{
    network__state_t *st = network__m.state;
    const double now = (double)net_udp_now() * 1e-6;
    network__manager_t *m = network__manager(st->world);
    for (uint32_t i = m ? m->n : 0; i-- > 0;) {
        const net_object_t *o = net_object_find(&st->session, m->object[i]);
        if (!o) {
            /* Destroyed by its owner: the replica goes too (owned ones were destroyed here). */
            const ct_entity_t e = m->entity[i];
            network__replicas_destroyed(e, m->object[i], 0);
            remove_at(m, i);
            if (network__m.entity->alive(e))
                network__m.entity->destroy(e);
            continue;
        }
        if (o->owner == st->session.my_id)
            continue;
        const ct_transform_t t = network__m.transform->lookup(st->world, m->entity[i]);
        if (!t.i)
            continue;
        ct_transform_pose_t pose = network__m.transform->local(st->world, t);
        /* Drawn between the snapshots received (network_replicas.c), else as it arrived. */
        float drawn[7];
        if (!network__replicas_pose(m->entity[i], o, now, drawn))
            memcpy(drawn, o->fields, sizeof drawn);
        memcpy(pose.position, drawn, sizeof pose.position);
        memcpy(pose.rotation, drawn + 3, sizeof pose.rotation);
        network__m.transform->set_local(st->world, t, &pose);
    }
}

/* ---- The component type --------------------------------------------------------------------- */

static int compile(void *user_data, const struct ct_data_o *source, void *out,
                   struct ct_compile_ctx_o *ctx)
{
    (void)user_data;
    memset(out, 0, 4);
    /* The component takes no fields (scripts declare what replicates with
     * Network.declare_fields): check_fields refuses any, naming the file and the entity. */
    if (!network__m.resource->check_fields(ctx, source, "network", NULL, 0)) {
        if (network__m.data->type(source) == CT_DATA_OBJECT)
            network__m.resource->compile_error(ctx,
                                               "network: the component takes no fields; "
                                               "scripts declare them with Network.declare_fields");
        return CT_ERR_BAD_DATA;
    }
    return 0;
}

static void spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *data)
{
    (void)data;
    network__manager_t *m = manager;
    for (uint32_t k = 0; k < n; k++)
        network__replicate(m->world, ctx->entity_lookup[entity_index[k]]);
}

/* A batch of entities died: one lookup each, and each of ours leaves by swap-and-pop. */
static void destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    network__manager_t *m = manager;
    network__state_t *st = network__m.state;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = find(m, entities[k]);
        if (i == UINT32_MAX)
            continue;
        if (st->running)
            net_object_destroy(&st->session, m->object[i]); /* refused unless we own it */
        remove_at(m, i);
    }
}

static const ct_component_type_t network_type = {
    .name = CT_NETWORK_COMPONENT_NAME,
    .spawn_order = CT_SPAWN_ORDER_NETWORK,
    .create_manager = create_manager,
    .destroy_manager = destroy_manager,
    .instance_size = 4,
    .compile = compile,
    .spawn = spawn,
    .destroyed = destroyed,
};

int network__register_component(void)
{
    /* The layout of a compiled network component inside levels and units
     * (ct_resource_api_v6.declare_format): a change is a new number, so cuttle-compile compiles
     * them again and older blobs are refused ("recompile"). */
    network__m.resource->declare_format("component." CT_NETWORK_COMPONENT_NAME, 1);
    network__m.state->type_id = network__m.component->register_type(&network_type);
    return network__m.state->type_id ? 0 : CT_ERR_CONFLICT;
}

bool network__rebind_component(void) { return network__m.component->replace_type(&network_type); }

void network__unregister_component(void)
{
    if (network__m.state->type_id)
        network__m.component->unregister_type(network__m.state->type_id);
    network__m.state->type_id = 0;
}
