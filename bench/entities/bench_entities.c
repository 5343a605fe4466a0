/*
 * The entities module's figures, at 1,000,000 entities (median of RUNS runs, ns per entity):
 *   create, destroy, alive    single calls through ct_entity_api v2 (the batch calls as well)
 *   add_component             debug_name set on a fresh entity (hash insert + SoA append)
 *   iterate2                  a walk over a 2-component join: every instance of a bench
 *                             component (SoA position/velocity) is integrated and its entity's
 *                             debug-name instance looked up through the public API
 * and with ct_transforms.so, spawning a 10,000-entity level (transform + debug_name + the bench
 * component) in one spawn_level, against 10,000 spawn_unit calls of a one-entity unit.
 * Modules come from `--modules DIR` (DIR/entities/ct_entities.so, DIR/transforms/...).
 *
 * Memory is kept warm: the C library is told to keep freed memory mapped, so the medians measure
 * the module's work rather than the first touch of fresh pages, which on a virtual machine can
 * cost ~25 us per 4 KiB page (~6 ns per byte, more than the work done on it) and which a running
 * game pays once, not per level or per world.
 */
#include "../common/bench.h"
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "ct_entity.h"
#include "ct_resource.h"
#include "ct_world.h"
#include "kernel.h"
#include "plugins/registry.h"

enum { N = 1000000, RUNS = 5, LEVEL = 10000 };

static const ct_entity_api_v2 *entity;
static const ct_world_api_v1 *worlds;
static const ct_debug_name_api_v1 *names;

/* The bench component: a point mass (seed part 2) kept as SoA in one allocation. */
typedef struct body_manager_t {
    ct_allocator_t *a;
    uint32_t n, capacity;
    ct_entity_t *entity;
    float (*position)[3];
    float (*velocity)[3];
} body_manager_t;

static void *body_create(void *ud, ct_world_o *w, ct_allocator_t *a)
{
    (void)ud;
    (void)w;
    body_manager_t *m = ct_alloc(a, sizeof *m);
    *m = (body_manager_t){.a = a};
    return m;
}

static size_t body_bytes(uint32_t capacity) { return (size_t)capacity * (4 + 24); }

static void body_free(void *ud, void *manager)
{
    (void)ud;
    body_manager_t *m = manager;
    if (m->entity)
        ct_free(m->a, m->entity, body_bytes(m->capacity));
    ct_free(m->a, m, sizeof *m);
}

static void body_reserve(body_manager_t *m, uint32_t want)
{
    if (want <= m->capacity)
        return;
    uint32_t capacity = m->capacity ? m->capacity : 1024;
    while (capacity < want)
        capacity *= 2;
    void *block = ct_alloc(m->a, body_bytes(capacity));
    ct_entity_t *e = block;
    float(*p)[3] = (void *)(e + capacity);
    float(*v)[3] = p + capacity;
    if (m->n) {
        memcpy(e, m->entity, m->n * sizeof *e);
        memcpy(p, m->position, m->n * sizeof *p);
        memcpy(v, m->velocity, m->n * sizeof *v);
    }
    if (m->entity)
        ct_free(m->a, m->entity, body_bytes(m->capacity));
    *m = (body_manager_t){m->a, m->n, capacity, e, p, v};
}

static void body_add(body_manager_t *m, ct_entity_t e, const float v[3])
{
    body_reserve(m, m->n + 1);
    m->entity[m->n] = e;
    memset(m->position[m->n], 0, sizeof m->position[0]);
    memcpy(m->velocity[m->n], v, sizeof m->velocity[0]);
    m->n++;
}

static void body_spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                       const uint32_t *entity_index, const void *data)
{
    body_manager_t *m = manager;
    body_reserve(m, m->n + n);
    for (uint32_t i = 0; i < n; i++)
        body_add(m, ctx->entity_lookup[entity_index[i]], (const float *)data + 3 * i);
}

static void body_gc(void *manager) { (void)manager; }

static double per_entity(double t0) { return (bench_now_ns() - t0) / N; }

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* Every block from the heap (no mmap per big block) and no trimming: memory freed by one run
     * is reused, already mapped, by the next. */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
#endif
    const char *dir = bench_arg(argc, argv, "--modules");
    static char paths[2][1024];
    snprintf(paths[0], sizeof paths[0], "%s/entities/ct_entities.so", dir ? dir : BENCH_MODULE_DIR);
    snprintf(paths[1], sizeof paths[1], "%s/transforms/ct_transforms.so", dir ? dir : BENCH_MODULE_DIR);
    FILE *has_transforms = fopen(paths[1], "rb");
    if (has_transforms)
        fclose(has_transforms);
    kernel_desc_t desc = {.strict = true, .num_plugin_paths = has_transforms ? 2 : 1};
    desc.plugin_paths[0] = paths[0];
    desc.plugin_paths[1] = paths[1];
    if (kernel__boot(&desc)) {
        fprintf(stderr, "bench_entities: boot failed (modules from %s)\n", paths[0]);
        return 1;
    }
    entity = registry__get_engine_api(CT_ENTITY_API, 2);
    worlds = registry__get_engine_api(CT_WORLD_API, 1);
    names = registry__get_engine_api(CT_DEBUG_NAME_API, 1);
    const ct_component_api_v1 *components = registry__get_engine_api(CT_COMPONENT_API, 1);
    const ct_resource_api_v1 *resources = registry__get_engine_api(CT_RESOURCE_API, 1);
    ct_entity_t *e = malloc(N * sizeof *e);
    if (!entity || !worlds || !names || !components || !resources || !e) {
        fprintf(stderr, "bench_entities: setup failed\n");
        return 1;
    }
    uint64_t body = components->register_type(&(ct_component_type_t){
        .name = "bench_body", .spawn_order = 500, .create_manager = body_create,
        .destroy_manager = body_free, .instance_size = 12, .spawn = body_spawn, .gc = body_gc});

    double create[RUNS], destroy[RUNS], alive[RUNS], create_b[RUNS], destroy_b[RUNS];
    double add[RUNS], iterate[RUNS];
    uint64_t sink = 0;
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_now_ns();
        for (uint32_t i = 0; i < N; i++)
            e[i] = entity->create();
        create[r] = per_entity(t0);
        t0 = bench_now_ns();
        for (uint32_t i = 0; i < N; i++)
            sink += entity->alive(e[i]);
        alive[r] = per_entity(t0);

        ct_world_o *w = worlds->create_world(NULL);
        body_manager_t *bodies = components->manager(w, body);
        t0 = bench_now_ns();
        for (uint32_t i = 0; i < N; i++)
            names->set(w, e[i], "bench");
        add[r] = per_entity(t0);
        const float v[3] = {1, 2, 3};
        for (uint32_t i = 0; i < N; i++)
            body_add(bodies, e[(i * 7919u) % N], v);
        t0 = bench_now_ns();
        for (uint32_t i = 0; i < bodies->n; i++) {
            for (int k = 0; k < 3; k++)
                bodies->position[i][k] += bodies->velocity[i][k] * 0.016f;
            sink += names->lookup(w, bodies->entity[i]).i;
        }
        iterate[r] = per_entity(t0);
        worlds->destroy_world(w);

        t0 = bench_now_ns();
        for (uint32_t i = 0; i < N; i++)
            entity->destroy(e[i]);
        destroy[r] = per_entity(t0);

        t0 = bench_now_ns();
        entity->create_batch(e, N);
        create_b[r] = per_entity(t0);
        t0 = bench_now_ns();
        entity->destroy_batch(e, N);
        destroy_b[r] = per_entity(t0);
    }
    bench_report("entities.create_ns", bench_median(create, RUNS), "ns", "create(), 1M entities");
    bench_report("entities.destroy_ns", bench_median(destroy, RUNS), "ns", "destroy(), 1M entities");
    bench_report("entities.alive_ns", bench_median(alive, RUNS), "ns", "alive(), 1M live entities");
    bench_report("entities.add_component_ns", bench_median(add, RUNS), "ns",
                 "debug_name set on 1M entities (hash insert + SoA append)");
    bench_report("entities.iterate2_ns", bench_median(iterate, RUNS), "ns",
                 "SoA walk of 1M bodies + debug_name lookup of each body's entity");
    bench_report("entities.create_batch_ns", bench_median(create_b, RUNS), "ns",
                 "create_batch of 1M entities");
    bench_report("entities.destroy_batch_ns", bench_median(destroy_b, RUNS), "ns",
                 "destroy_batch of 1M entities");

    if (has_transforms) {
        char level[256];
        int len = snprintf(level, sizeof level,
                           "entities = [ { components = { transform = { position = [0 0 0] }\n"
                           "  debug_name = { name = \"crate\" } bench_body = { } }\n"
                           "  repeat = { count = %d spacing = [1 0 0] } } ]\n", LEVEL);
        const char unit[] = "entities = [ { components = { transform = { position = [0 0 0] }\n"
                            "  debug_name = { name = \"crate\" } bench_body = { } } } ]\n";
        if (resources->load_source("level", "bench/level", level, (size_t)len) ||
            resources->load_source("unit", "bench/unit", unit, sizeof unit - 1)) {
            fprintf(stderr, "bench_entities: could not compile the bench level\n");
            return 1;
        }
        double batch[RUNS], single[RUNS];
        for (int r = 0; r < RUNS; r++) {
            ct_world_o *w = worlds->create_world(NULL);
            double t0 = bench_now_ns();
            sink += (uint64_t)worlds->spawn_level(w, "bench/level");
            batch[r] = bench_now_ns() - t0;
            worlds->destroy_world(w);
            w = worlds->create_world(NULL);
            t0 = bench_now_ns();
            for (int i = 0; i < LEVEL; i++)
                sink += worlds->spawn_unit(w, "bench/unit", (float[3]){(float)i, 0, 0}, NULL).id;
            single[r] = bench_now_ns() - t0;
            worlds->destroy_world(w);
        }
        double b = bench_median(batch, RUNS), s = bench_median(single, RUNS);
        bench_report("entities.spawn_level_10k_us", b / 1000.0, "us",
                     "spawn_level: 10k entities with transform + debug_name + bench_body");
        bench_report("entities.spawn_batch_vs_single_ratio", s / b, "x",
                     "10k spawn_unit calls of one entity / one spawn_level of 10k");
    }
    components->unregister_type(body);
    bench_print_table();
    free(e);
    fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sink);
    return kernel__shutdown() ? 1 : 0;
}
