/*
 * The "particle_emitter" component: { effect = "effects/smoke" }. Its compiled data is the
 * effect's name; spawning loads the effect (one load per emitter, unloaded with it) and starts
 * an emitter that follows the entity's transform. The manager of each world is the world's
 * particles (particles_world_t), so script emitters live there too.
 */
#include <string.h>

#include "ct_data.h"
#include "particles_internal.h"

typedef struct emitter_desc_t {
    char effect[PARTICLES_NAME_BYTES];
} emitter_desc_t;

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    particles_world_t *w = ct_alloc(a, sizeof *w);
    if (w)
        *w = (particles_world_t){.world = world, .a = a};
    return w;
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    particles_world_t *w = manager;
    for (uint32_t i = 0; i < w->num_emitters; i++)
        if (w->emitters[i].entity.id)
            particles__m.resource->unload("particles", w->emitters[i].effect);
    particles__free_world(w);
    ct_free(w->a, w, sizeof *w);
}

static int compile_emitter(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {{"effect", CT_DATA_STRING, 0}};
    const ct_resource_api_v6 *res = particles__m.resource;
    if (!res->check_fields(ctx, src, CT_PARTICLES_COMPONENT_NAME, known, 1))
        return CT_ERR_BAD_DATA;
    const char *s = particles__m.data->string(particles__m.data->get(src, "effect"), NULL);
    char why[200];
    if (!s) {
        res->compile_error(ctx, "%s.effect: a resource name (string) is required",
                           CT_PARTICLES_COMPONENT_NAME);
        return CT_ERR_BAD_DATA;
    }
    if (strlen(s) >= PARTICLES_NAME_BYTES || res->check_name(s, why, sizeof why)) {
        res->compile_error(ctx, "%s.effect: '%s' is not a resource name: %s",
                           CT_PARTICLES_COMPONENT_NAME, s,
                           strlen(s) >= PARTICLES_NAME_BYTES ? "too long" : why);
        return CT_ERR_BAD_DATA;
    }
    if (!res->reference(ctx, CT_PARTICLES_COMPONENT_NAME ".effect", "particles", s))
        return CT_ERR_BAD_DATA;
    emitter_desc_t d;
    memset(&d, 0, sizeof d);
    memcpy(d.effect, s, strlen(s));
    memcpy(out, &d, sizeof d);
    return 0;
}

static void spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *data)
{
    particles_world_t *w = manager;
    for (uint32_t k = 0; k < n; k++) {
        emitter_desc_t d;
        memcpy(&d, (const uint8_t *)data + (size_t)k * sizeof d, sizeof d);
        d.effect[PARTICLES_NAME_BYTES - 1] = '\0';
        const ct_entity_t e = ctx->entity_lookup[entity_index[k]];
        if (particles__m.resource->load("particles", d.effect)) {
            particles__m.component->spawn_failed(ctx, CT_ERR_NOT_FOUND);
            return;
        }
        float pos[3] = {0, 0, 0};
        if (particles__m.transform)
            particles__m.transform->world_position(ctx->world, e, pos);
        if (!particles__spawn(w, d.effect, pos, e).id) {
            particles__m.resource->unload("particles", d.effect);
            particles__m.component->spawn_failed(ctx, CT_ERR_NOMEM);
            return;
        }
    }
}

static void destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    particles_world_t *w = manager;
    for (uint32_t i = 0; i < w->num_emitters;) {
        bool dead = false;
        for (uint32_t k = 0; k < n && !dead; k++)
            dead = w->emitters[i].entity.id && w->emitters[i].entity.id == entities[k].id;
        if (dead) {
            particles__m.resource->unload("particles", w->emitters[i].effect);
            particles__destroy(w, &w->emitters[i]);
        } else {
            i++;
        }
    }
}

static const ct_component_type_t type = {
    .name = CT_PARTICLES_COMPONENT_NAME,
    .spawn_order = CT_SPAWN_ORDER_PARTICLES,
    .create_manager = create_manager,
    .destroy_manager = destroy_manager,
    .instance_size = sizeof(emitter_desc_t),
    .compile = compile_emitter,
    .spawn = spawn,
    .destroyed = destroyed,
};

/* The layout of a compiled emitter inside levels and units (ct_resource_api_v6.declare_format):
 * a change is a new number, so cuttle-compile compiles the levels and units that hold one again
 * and older blobs are refused ("recompile"). */
#define EMITTER_FORMAT 1

int particles__register_component(void)
{
    particles__m.resource->declare_format("component." CT_PARTICLES_COMPONENT_NAME, EMITTER_FORMAT);
    particles__m.state->type_id = particles__m.component->register_type(&type);
    return particles__m.state->type_id ? 0 : CT_ERR_CONFLICT;
}

bool particles__rebind_component(void) { return particles__m.component->replace_type(&type); }

void particles__unregister_component(void)
{
    particles__m.component->unregister_type(particles__m.state->type_id);
}
