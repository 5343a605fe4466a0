/* Component types, worlds and the debug-name manager (ct.component, ct.world, ct.debug_name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_hash.h"
#include "fixture.h"

static void registry_and_managers(void **state)
{
    (void)state;
    ct_world_o *before = fx.world->create_world(&(ct_world_desc_t){.name = "before"});
    assert_non_null(before);
    uint64_t probe = probe_register(false);
    ct_world_o *after = fx.world->create_world(NULL);
    /* Worlds made before and after the registration both get a manager. */
    assert_non_null(fx.component->manager(before, probe));
    assert_non_null(fx.component->manager(after, probe));
    assert_ptr_not_equal(fx.component->manager(before, probe), fx.component->manager(after, probe));
    assert_int_equal(fx.component->type_id("probe"), probe);
    assert_non_null(fx.component->manager(after, fx.component->type_id("debug_name")));

    /* A taken name, and a type with both or neither of destroyed/gc, are refused. */
    ct_component_type_t bad = {.name = "probe"};
    assert_int_equal(fx.component->register_type(&bad), 0);
    probe_manager_t *m = fx.component->manager(before, probe);
    assert_non_null(m);
    ct_component_type_t both = {.name = "both", .create_manager = NULL};
    assert_int_equal(fx.component->register_type(&both), 0);

    fx.component->unregister_type(probe);
    assert_null(fx.component->manager(before, probe));
    assert_null(fx.component->manager(after, probe));
    fx.world->destroy_world(before);
    fx.world->destroy_world(after);
    fx.world->destroy_world(NULL);
}

static uint32_t count_dead(const probe_manager_t *m)
{
    uint32_t dead = 0;
    for (uint32_t i = 0; i < m->n; i++)
        dead += !fx.entity->alive(m->items[i].entity);
    return dead;
}

static void destroyed_removes_at_once_and_gc_lazily(void **state)
{
    (void)state;
    /* Eager: the destroy callback empties the manager. */
    uint64_t probe = probe_register(false);
    ct_world_o *w = fx.world->create_world(NULL);
    const ct_resource_api_v1 *r = fx.resource;
    const char src[] = "entities = [ { components = { probe = { value = 1 } } }"
                       "              { components = { probe = { value = 2 } } } ]";
    assert_int_equal(r->load_source("unit", "two", src, sizeof src - 1), 0);
    ct_entity_t out[2];
    assert_int_equal(fx.world->spawn_resource(w, r->get("unit", "two"), NULL, NULL, out, 2), 2);
    probe_manager_t *m = fx.component->manager(w, probe);
    assert_int_equal(m->n, 2);
    fx.entity->destroy_batch(out, 2);
    assert_int_equal(m->n, 0);
    assert_int_equal(m->destroyed_calls, 1);
    fx.component->unregister_type(probe);

    /* Lazy: nothing happens until collect_garbage, which removes only the dead. */
    probe = probe_register(true);
    m = fx.component->manager(w, probe);
    enum { N = 200 };
    ct_entity_t many[N];
    for (int round = 0; round < N / 2; round++)
        assert_int_equal(
            fx.world->spawn_resource(w, r->get("unit", "two"), NULL, NULL, many + 2 * round, 2), 2);
    assert_int_equal(m->n, N);
    for (int i = 0; i < N; i += 4)
        fx.entity->destroy(many[i]);
    assert_int_equal(m->n, N);
    /* The random probe finds the dead over a few rounds (deterministic: the probe's generator
     * has a fixed seed); the live ones are never touched. */
    uint32_t rounds = 0;
    while (count_dead(m) > 0 && rounds < 10000) {
        fx.world->collect_garbage(w);
        rounds++;
    }
    assert_int_equal(count_dead(m), 0);
    assert_int_equal(m->n, N - N / 4);
    fx.entity->destroy_batch(many, N);
    r->unload("unit", "two");
    fx.world->destroy_world(w);
}

static const char *name_of(ct_world_o *w, ct_entity_t e)
{
    return fx.debug_name->name(w, fx.debug_name->lookup(w, e));
}

/* The position part of a debug-name instance handle (the rest is its generation). */
#define POSITION_MASK 0x3fffffu

/* Removing from the middle moves the last instance into the hole; every lookup still finds its
 * own name, and instances stay packed. */
static void debug_name_swap_erase(void **state)
{
    (void)state;
    ct_world_o *w = fx.world->create_world(NULL);
    ct_entity_t e[5];
    fx.entity->create_batch(e, 5);
    const char *names[5] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        assert_int_equal(fx.debug_name->set(w, e[i], names[i]), 0);
    assert_int_equal(fx.debug_name->count(w), 5);
    assert_int_equal(fx.debug_name->lookup(w, e[1]).i & POSITION_MASK, 2);
    const ct_debug_name_instance_t removed = fx.debug_name->lookup(w, e[1]);
    const ct_debug_name_instance_t moved = fx.debug_name->lookup(w, e[4]);
    const ct_debug_name_instance_t kept = fx.debug_name->lookup(w, e[0]);
    assert_string_equal(fx.debug_name->name(w, moved), "e");
    fx.debug_name->remove(w, e[1]);
    assert_int_equal(fx.debug_name->count(w), 4);
    assert_int_equal(fx.debug_name->lookup(w, e[1]).i, 0);
    assert_int_equal(fx.debug_name->lookup(w, e[4]).i & POSITION_MASK,
                     2); /* the last took the hole */
    /* Handles carry a generation: the removed and the moved instance's old handles are stale
     * (the old code named "e" through the removed one), an untouched one still works. */
    assert_null(fx.debug_name->name(w, removed));
    assert_int_equal(fx.debug_name->entity(w, removed).id, 0);
    assert_null(fx.debug_name->name(w, moved));
    assert_string_equal(fx.debug_name->name(w, kept), "a");
    assert_string_equal(fx.debug_name->name(w, fx.debug_name->lookup(w, e[4])), "e");
    /* Re-adding into the freed last slot does not revive a handle to it. */
    assert_int_equal(fx.debug_name->set(w, e[1], "again"), 0);
    assert_null(fx.debug_name->name(w, moved));
    fx.debug_name->remove(w, e[1]);
    for (int i = 0; i < 5; i++) {
        if (i != 1)
            assert_string_equal(name_of(w, e[i]), names[i]);
    }
    assert_int_equal(fx.debug_name->entity(w, (ct_debug_name_instance_t){2}).id, e[4].id);
    /* Replacing keeps one instance; long names are truncated; dead entities are refused. */
    assert_int_equal(fx.debug_name->set(w, e[0], "a-much-longer-name-than-thirty-one-bytes"), 0);
    assert_int_equal(fx.debug_name->count(w), 4);
    assert_int_equal(strlen(name_of(w, e[0])), CT_DEBUG_NAME_MAX - 1);
    /* A cut never splits a UTF-8 character: it backs up to the character's first byte. */
    const char *utf8[][2] = {
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xe2\x82\xac", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaa\xf0\x9f\x90\x99x", "aaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
    };
    for (size_t k = 0; k < sizeof utf8 / sizeof utf8[0]; k++) {
        assert_int_equal(fx.debug_name->set(w, e[0], utf8[k][0]), 0);
        assert_string_equal(name_of(w, e[0]), utf8[k][1]);
    }
    fx.entity->destroy(e[2]);
    assert_int_equal(fx.debug_name->count(w), 3); /* the destroy callback removed it */
    assert_int_equal(fx.debug_name->set(w, e[2], "x"), CT_ERR_STALE);
    assert_null(name_of(w, e[2]));
    fx.entity->destroy_batch(e, 5);
    assert_int_equal(fx.debug_name->count(w), 0);
    fx.world->destroy_world(w);
}

/* Random create/destroy/set/remove/lookup against a plain array model. */
static void debug_name_matches_a_reference_model(void **state)
{
    (void)state;
    enum { SLOTS = 3000, STEPS = 200000 };
    ct_world_o *w = fx.world->create_world(NULL);
    static ct_entity_t ent[SLOTS];
    static int has_name[SLOTS]; /* -1: no name, else the number in the name */
    memset(ent, 0, sizeof ent);
    uint32_t live_names = 0;
    uint32_t rng = 99;
    for (int step = 0; step < STEPS; step++) {
        rng = rng * 1664525u + 1013904223u;
        uint32_t s = (rng >> 8) % SLOTS;
        uint32_t op = (rng >> 24) % 5;
        char buf[CT_DEBUG_NAME_MAX];
        if (ent[s].id == 0) {
            ent[s] = fx.entity->create();
            has_name[s] = -1;
        } else if (op == 0) {
            if (has_name[s] >= 0)
                live_names--;
            fx.entity->destroy(ent[s]);
            ent[s].id = 0;
        } else if (op == 1 || op == 2) {
            snprintf(buf, sizeof buf, "n%d", step);
            assert_int_equal(fx.debug_name->set(w, ent[s], buf), 0);
            live_names += has_name[s] < 0;
            has_name[s] = step;
        } else if (op == 3) {
            fx.debug_name->remove(w, ent[s]);
            live_names -= has_name[s] >= 0;
            has_name[s] = -1;
        } else {
            const char *got = name_of(w, ent[s]);
            if (has_name[s] < 0) {
                assert_null(got);
            } else {
                snprintf(buf, sizeof buf, "n%d", has_name[s]);
                assert_non_null(got);
                assert_string_equal(got, buf);
            }
        }
        assert_int_equal(fx.debug_name->count(w), live_names);
    }
    /* The whole manager agrees with the model. */
    for (uint32_t i = 1; i <= fx.debug_name->count(w); i++) {
        ct_entity_t e = fx.debug_name->entity(w, (ct_debug_name_instance_t){i});
        assert_true(fx.entity->alive(e));
        assert_int_equal(fx.debug_name->lookup(w, e).i & POSITION_MASK, i);
    }
    for (uint32_t s = 0; s < SLOTS; s++) {
        if (ent[s].id)
            fx.entity->destroy(ent[s]);
    }
    assert_int_equal(fx.debug_name->count(w), 0);
    fx.world->destroy_world(w);
}

/* Growth from empty to tens of thousands of names, over entity indices that were recycled (so
 * they straddle every map size on the way), in two insertion orders, then a spawned batch into a
 * manager that already holds names: every name is still found, and removal keeps the rest. */
static void debug_name_grows_over_recycled_indices(void **state)
{
    (void)state;
    enum { FIRST = 20000, N = 30000, SPAWNED = 3000 };
    static ct_entity_t e[N];
    assert_int_equal(fx.entity->create_batch(e, FIRST), FIRST);
    fx.entity->destroy_batch(e, FIRST);
    for (uint32_t i = 0; i < N; i++)
        e[i] = fx.entity->create();
    ct_world_o *forward = fx.world->create_world(NULL);
    ct_world_o *backward = fx.world->create_world(NULL);
    char buf[CT_DEBUG_NAME_MAX];
    for (uint32_t i = 0; i < N; i++) {
        snprintf(buf, sizeof buf, "e%u", i);
        assert_int_equal(fx.debug_name->set(forward, e[i], buf), 0);
        assert_int_equal(fx.debug_name->set(backward, e[N - 1 - i], buf), 0);
    }
    for (uint32_t i = 0; i < N; i++) {
        snprintf(buf, sizeof buf, "e%u", i);
        assert_string_equal(name_of(forward, e[i]), buf);
        snprintf(buf, sizeof buf, "e%u", N - 1 - i);
        assert_string_equal(name_of(backward, e[i]), buf);
    }
    /* Renaming in a manager whose storage is exactly full (64 is its first capacity) adds
     * nothing. */
    ct_world_o *full = fx.world->create_world(NULL);
    for (uint32_t round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < 64; i++) {
            snprintf(buf, sizeof buf, "r%u.%u", round, i);
            assert_int_equal(fx.debug_name->set(full, e[i], buf), 0);
        }
    }
    assert_int_equal(fx.debug_name->count(full), 64);
    assert_string_equal(name_of(full, e[63]), "r1.63");
    fx.world->destroy_world(full);

    for (uint32_t i = 0; i < N; i += 3)
        fx.debug_name->remove(forward, e[i]);
    assert_int_equal(fx.debug_name->count(forward), N - (N + 2) / 3);

    char src[256];
    int len = snprintf(src, sizeof src,
                       "entities = [ { components = { debug_name = { name = "
                       "\"crate\" } } repeat = { count = %d spacing = [0 0 1] } } ]\n",
                       SPAWNED);
    assert_int_equal(fx.resource->load_source("level", "crates", src, (size_t)len), 0);
    static ct_entity_t spawned[SPAWNED];
    assert_int_equal(fx.world->spawn_resource(forward, fx.resource->get("level", "crates"), NULL,
                                              NULL, spawned, SPAWNED),
                     SPAWNED);
    assert_int_equal(fx.debug_name->count(forward), N - (N + 2) / 3 + SPAWNED);
    for (uint32_t i = 0; i < SPAWNED; i++)
        assert_string_equal(name_of(forward, spawned[i]), "crate");
    for (uint32_t i = 0; i < N; i++) {
        snprintf(buf, sizeof buf, "e%u", i);
        if (i % 3 == 0)
            assert_null(name_of(forward, e[i]));
        else
            assert_string_equal(name_of(forward, e[i]), buf);
    }
    fx.entity->destroy_batch(spawned, SPAWNED);
    fx.entity->destroy_batch(e, N);
    assert_int_equal(fx.debug_name->count(forward), 0);
    assert_int_equal(fx.debug_name->count(backward), 0);
    fx.resource->unload("level", "crates");
    fx.world->destroy_world(forward);
    fx.world->destroy_world(backward);
}

/* A type for replace_type: its manager counts destroy batches, in the version of `destroyed`
 * that the type has at the time. */
typedef struct versioned_manager_t {
    ct_allocator_t *a;
    uint32_t batches[2];
} versioned_manager_t;

static void *versioned_create(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    (void)world;
    versioned_manager_t *m = ct_alloc(a, sizeof *m);
    if (m)
        *m = (versioned_manager_t){a, {0, 0}};
    return m;
}

static void versioned_destroy(void *user_data, void *manager)
{
    (void)user_data;
    versioned_manager_t *m = manager;
    ct_free(m->a, m, sizeof *m);
}

static void versioned_spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                            const uint32_t *entity_index, const void *data)
{
    (void)manager, (void)ctx, (void)n, (void)entity_index, (void)data;
}

static void destroyed_v0(void *manager, const ct_entity_t *entities, uint32_t n)
{
    (void)entities, (void)n;
    ((versioned_manager_t *)manager)->batches[0]++;
}

static void destroyed_v1(void *manager, const ct_entity_t *entities, uint32_t n)
{
    (void)entities, (void)n;
    ((versioned_manager_t *)manager)->batches[1]++;
}

static void replace_type_keeps_managers(void **state)
{
    (void)state;
    ct_component_type_t type = {
        .name = "versioned",
        .create_manager = versioned_create,
        .destroy_manager = versioned_destroy,
        .instance_size = 4,
        .spawn = versioned_spawn,
        .destroyed = destroyed_v0,
    };
    uint64_t id = fx.component->register_type(&type);
    assert_true(id != 0);
    ct_world_o *w = fx.world->create_world(NULL);
    versioned_manager_t *m = fx.component->manager(w, id);
    assert_non_null(m);
    fx.entity->destroy(fx.entity->create());
    assert_int_equal(m->batches[0], 1);

    type.destroyed = destroyed_v1;
    assert_true(fx.component->replace_type(&type));
    assert_ptr_equal(fx.component->manager(w, id), m);
    fx.entity->destroy(fx.entity->create());
    assert_int_equal(m->batches[0], 1);
    assert_int_equal(m->batches[1], 1);

    /* Another instance size, an unknown name or a bad type are refused, changing nothing. */
    ct_component_type_t bad = type;
    bad.instance_size = 8;
    bad.destroyed = destroyed_v0;
    assert_false(fx.component->replace_type(&bad));
    bad = type;
    bad.name = "unknown";
    assert_false(fx.component->replace_type(&bad));
    bad = type;
    bad.spawn = NULL;
    assert_false(fx.component->replace_type(&bad));
    assert_false(fx.component->replace_type(NULL));
    fx.entity->destroy(fx.entity->create());
    assert_int_equal(m->batches[1], 2);
    fx.world->destroy_world(w);
    fx.component->unregister_type(id);
}

/* Lazily collected managers lose their dead entities' instances frame by frame with no script
 * asking (the old code collected only in collect_garbage), at most CT_COMPONENT_GC_PROBES probes
 * per manager per frame. */
static void garbage_is_collected_every_frame_within_a_bound(void **state)
{
    (void)state;
    uint64_t probe = probe_register(true);
    ct_world_o *w = fx.world->create_world(NULL);
    const char src[] = "entities = [ { components = { probe = { value = 1 } } repeat = { count = "
                       "200 spacing = [1 0 0] } } ]";
    assert_int_equal(fx.resource->load_source("level", "two_hundred", src, sizeof src - 1), 0);
    ct_entity_t e[200];
    assert_int_equal(
        fx.world->spawn_resource(w, fx.resource->get("level", "two_hundred"), NULL, NULL, e, 200),
        200);
    probe_manager_t *m = fx.component->manager(w, probe);
    assert_int_equal(m->n, 200);
    assert_int_equal(kernel__frame(0.016), 0);
    assert_int_equal(m->n, 200); /* nothing dead: nothing goes */
    fx.entity->destroy_batch(e, 150);
    assert_int_equal(kernel__frame(0.016), 0);
    assert_true(m->collected > 0 && m->collected <= CT_COMPONENT_GC_PROBES);
    uint32_t frames = 1;
    while (count_dead(m) > 0 && frames < 1000) {
        assert_int_equal(kernel__frame(0.016), 0);
        frames++;
    }
    assert_int_equal(count_dead(m), 0);
    assert_int_equal(m->n, 50);
    assert_true(frames >= 150 / CT_COMPONENT_GC_PROBES);
    fx.entity->destroy_batch(e + 150, 50);
    fx.world->destroy_world(w);
}

/* gc_probe itself: bounded by the budget and by four live entities in a row. */
static void gc_probe_is_bounded(void **state)
{
    (void)state;
    ct_entity_t e[8];
    fx.entity->create_batch(e, 8);
    uint64_t rng = 7;
    uint32_t budget = 100;
    assert_int_equal(fx.component_v2->gc_probe(e, 8, &rng, &budget), UINT32_MAX);
    assert_int_equal(budget, 96);
    fx.entity->destroy_batch(e, 8);
    budget = 3;
    uint32_t found = 0;
    while (fx.component_v2->gc_probe(e, 8, &rng, &budget) != UINT32_MAX)
        found++;
    assert_int_equal(found, 3);
    assert_int_equal(budget, 0);
    assert_int_equal(fx.component_v2->gc_probe(NULL, 8, &rng, &budget), UINT32_MAX);
}

/* A spawner that fails (out of memory) fails the whole spawn: no entity is left, and the types
 * spawned before it lose what they made (the old code reported success with half-built
 * entities). */
static void failing(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                    const uint32_t *entity_index, const void *data)
{
    (void)manager, (void)n, (void)entity_index, (void)data;
    fx.component_v2->spawn_failed(ctx, CT_ERR_NOMEM);
}

static void *failing_create(void *ud, ct_world_o *w, ct_allocator_t *a)
{
    (void)ud, (void)w, (void)a;
    static int token;
    return &token;
}

static void failing_destroy(void *ud, void *m) { (void)ud, (void)m; }
static void failing_destroyed(void *m, const ct_entity_t *e, uint32_t n)
{
    (void)m, (void)e, (void)n;
}
static int failing_compile(void *ud, const ct_data_o *source, void *out, ct_compile_ctx_o *ctx)
{
    (void)ud, (void)source, (void)out, (void)ctx;
    return 0;
}

static void a_failed_spawn_leaves_the_world_unchanged(void **state)
{
    (void)state;
    uint64_t probe = probe_register(false);
    ct_world_o *w = fx.world->create_world(NULL);
    const char src[] =
        "entities = [ { components = { probe = { value = 1 } debug_name = { name = \"a\" } } }\n"
        "  { components = { probe = { value = 2 } failing = {} } } ]";
    uint64_t failing_id =
        fx.component->register_type(&(ct_component_type_t){.name = "failing",
                                                           .spawn_order = 500,
                                                           .create_manager = failing_create,
                                                           .destroy_manager = failing_destroy,
                                                           .compile = failing_compile,
                                                           .spawn = failing,
                                                           .destroyed = failing_destroyed});
    assert_true(failing_id != 0);
    assert_int_equal(fx.resource->load_source("unit", "half", src, sizeof src - 1), 0);
    const uint32_t live = fx.entity->live_count();
    ct_entity_t out[2];
    probe_manager_t *m = fx.component->manager(w, probe);
    const uint32_t spawn_calls = m->spawn_calls;
    assert_int_equal(
        fx.world->spawn_resource(w, fx.resource->get("unit", "half"), NULL, NULL, out, 2),
        CT_ERR_NOMEM);
    assert_int_equal(m->spawn_calls, spawn_calls + 1); /* probe spawned first ... */
    assert_int_equal(m->n, 0);                         /* ... and lost it again */
    assert_int_equal(fx.debug_name->count(w), 0);      /* debug_name (after) never ran */
    assert_int_equal(fx.entity->live_count(), live);
    assert_int_equal(fx.world->spawn_unit(w, "half", NULL, NULL).id, 0);
    assert_int_equal(fx.entity->live_count(), live);
    /* Outside a spawn it is only misuse, logged. */
    fx.component_v2->spawn_failed(&(ct_spawn_context_t){0}, CT_ERR_NOMEM);
    fx.component->unregister_type(failing_id);
    fx.world->destroy_world(w);
}

/* A type's validation refuses, at load, instance data the compiler would never have made. */
static bool probe_value_positive(void *ud, const void *instance, char *why, size_t why_size)
{
    (void)ud;
    float v;
    memcpy(&v, instance, 4);
    if (v > 0)
        return true;
    snprintf(why, why_size, "value %g is not positive", (double)v);
    return false;
}

static void validation_runs_at_load(void **state)
{
    (void)state;
    uint64_t probe = probe_register(false);
    assert_false(fx.component_v2->set_validate(12345, probe_value_positive));
    assert_true(fx.component_v2->set_validate(probe, probe_value_positive));
    const char good[] = "entities = [ { components = { probe = { value = 1 } } } ]";
    const char bad[] = "entities = [ { components = { debug_name = { name = \"x\" } } }\n"
                       "  { components = { probe = { value = -1 } } } ]";
    assert_int_equal(fx.resource->load_source("unit", "good", good, sizeof good - 1), 0);
    assert_true(fx.resource->load_source("unit", "bad", bad, sizeof bad - 1) < 0);
    assert_null(fx.resource->get("unit", "bad"));
    assert_true(fx.component_v2->set_validate(probe, NULL));
    assert_int_equal(fx.resource->load_source("unit", "bad", bad, sizeof bad - 1), 0);
}

/* sort_by_entity orders by index then generation (stably), and join_run finds exactly the shared
 * entities, in runs. */
static void sort_by_entity_and_join(void **state)
{
    (void)state;
    enum { N = 3000 };
    static ct_entity_t all[N], a[N], b[N], sorted[N];
    static uint32_t order[N], scratch[3 * N];
    assert_int_equal(fx.entity->create_batch(all, N), N);
    /* Recycle some indices so generations differ. */
    fx.entity->destroy_batch(all, 1500);
    assert_int_equal(fx.entity->create_batch(all, 1500), 1500);
    uint32_t na = 0, nb = 0;
    for (uint32_t i = 0; i < N; i++) {
        const ct_entity_t e = all[(uint64_t)i * 1237u % N];
        if (i % 3 != 0)
            a[na++] = e;
        if (i % 5 != 0)
            b[nb++] = e;
    }
    fx.component_v2->sort_by_entity(a, na, order, scratch);
    for (uint32_t i = 0; i < na; i++)
        sorted[i] = a[order[i]];
    for (uint32_t i = 1; i < na; i++)
        assert_true(ct_entity_order_key(sorted[i - 1]) < ct_entity_order_key(sorted[i]));
    memcpy(a, sorted, na * sizeof *a);
    fx.component_v2->sort_by_entity(b, nb, order, scratch);
    for (uint32_t i = 0; i < nb; i++)
        sorted[i] = b[order[i]];
    memcpy(b, sorted, nb * sizeof *b);
    /* Shared: i % 3 != 0 and i % 5 != 0 over the permutation, 3000 * 2/3 * 4/5 = 1600. */
    uint32_t pairs = 0, runs = 0, run;
    for (ct_entity_join_t j = {0, 0}; (run = ct_entity_join_run(a, na, b, nb, &j)) != 0;
         j.a += run, j.b += run) {
        runs++;
        for (uint32_t k = 0; k < run; k++)
            assert_int_equal(a[j.a + k].id, b[j.b + k].id);
        pairs += run;
    }
    assert_int_equal(pairs, 1600);
    assert_true(runs > 1 && runs < pairs);
    /* Identical arrays are one run. */
    ct_entity_join_t j = {0, 0};
    assert_int_equal(ct_entity_join_run(a, na, a, na, &j), na);
    fx.entity->destroy_batch(all, N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(registry_and_managers, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(destroyed_removes_at_once_and_gc_lazily, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(replace_type_keeps_managers, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(debug_name_swap_erase, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(debug_name_matches_a_reference_model, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(debug_name_grows_over_recycled_indices, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(garbage_is_collected_every_frame_within_a_bound,
                                        fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(gc_probe_is_bounded, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(a_failed_spawn_leaves_the_world_unchanged, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(validation_runs_at_load, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(sort_by_entity_and_join, fixture_setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
