/*
 * The entities module's figures, at 1,000,000 entities (median of RUNS runs, ns per entity):
 *   create, alive, destroy    single calls through ct_entity_api v2; destroy is timed while the
 *                             entities still have components in a live world (a debug name each,
 *                             which the destroy callback removes), as a game destroys them
 *   create/destroy_batch      the batch calls
 *   add_component             debug_name set on a fresh entity (index entry + SoA append)
 *   sort_by_entity            putting two shuffled managers (bench_position, bench_velocity, like
 *                             flecs' Position/Velocity) in entity order (ct_component_api_v2)
 *   iterate2                  the system walk over both: p += v * dt for every entity that has
 *                             both, found by ct_entity_join_run (the cached-query equivalent)
 *   iterate2_hash_lookup      the same walk done the naive way: for each position, a lookup of
 *                             its entity's debug name (what iterate2 measured before; the name
 *                             is kept from when debug names were found through a hash)
 * and with ct_transforms.so, a 10,000-entity level (transform + debug_name + bench_position):
 *   spawn_level_10k           one spawn_level, warm (memory touched by earlier runs), median of
 *                             LEVEL_RUNS
 *   spawn_level_10k_cold      the first spawn_level of a fresh process (this program run again
 *                             with --cold): managers empty, their memory never touched; the level
 *                             is compiled and loaded just before, untimed; median of COLD_RUNS
 *   spawn_level_10k_cold_unloaded  the same, with the level still on disk: a temporary project
 *                             holds it compiled, and spawn_level reads, checks and spawns it
 *   spawn_batch_vs_single     10k entities made one by one through the public API (create, then
 *                             transform create, debug_name set, bench_position add) / the spawn
 * Modules come from `--modules DIR` (DIR/entities/ct_entities.so, DIR/transforms/...).
 *
 * Memory is kept warm for the warm figures: the C library is told to keep freed memory mapped,
 * so the medians measure the module's work rather than the first touch of fresh pages, which on a
 * virtual machine can cost ~25 us per 4 KiB page and which a running game pays once.
 */
#include "../common/bench.h"
#include <ftw.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "ct_entity.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "compiler.h"
#include "ct_world.h"
#include "kernel.h"
#include "plugins/registry.h"

/* A level spawn is short (~0.2 ms) and the machine is shared: more runs steady its median. */
enum { N = 1000000, RUNS = 5, LEVEL = 10000, LEVEL_RUNS = 21, COLD_RUNS = 9 };

static const ct_entity_api_v2 *entity;
static const ct_world_api_v1 *worlds;
static const ct_debug_name_api_v1 *names;
static const ct_component_api_v2 *components;
static const ct_transform_api_v2 *transforms;
static const ct_resource_api_v1 *resources;

/* A bench component: one vec3 per entity, SoA in one allocation (the seed's part 2 manager).
 * Registered twice, as bench_position and bench_velocity. */
typedef struct vec3_manager_t {
    ct_allocator_t *a;
    uint32_t n, capacity;
    ct_entity_t *entity;
    float (*value)[3];
} vec3_manager_t;

static void *vec3_create(void *ud, ct_world_o *w, ct_allocator_t *a)
{
    (void)ud;
    (void)w;
    vec3_manager_t *m = ct_alloc(a, sizeof *m);
    *m = (vec3_manager_t){.a = a};
    return m;
}

static size_t vec3_bytes(uint32_t capacity) { return (size_t)capacity * (4 + 12); }

static void vec3_free(void *ud, void *manager)
{
    (void)ud;
    vec3_manager_t *m = manager;
    if (m->entity)
        ct_free(m->a, m->entity, vec3_bytes(m->capacity));
    ct_free(m->a, m, sizeof *m);
}

static void vec3_reserve(vec3_manager_t *m, uint32_t want)
{
    if (want <= m->capacity)
        return;
    uint32_t capacity = m->capacity ? m->capacity : 1024;
    while (capacity < want)
        capacity *= 2;
    void *block = ct_alloc(m->a, vec3_bytes(capacity));
    ct_entity_t *e = block;
    float(*v)[3] = (void *)(e + capacity);
    if (m->n) {
        memcpy(e, m->entity, m->n * sizeof *e);
        memcpy(v, m->value, m->n * sizeof *v);
    }
    if (m->entity)
        ct_free(m->a, m->entity, vec3_bytes(m->capacity));
    *m = (vec3_manager_t){m->a, m->n, capacity, e, v};
}

static void vec3_add(vec3_manager_t *m, ct_entity_t e, const float v[3])
{
    vec3_reserve(m, m->n + 1);
    m->entity[m->n] = e;
    memcpy(m->value[m->n], v, sizeof m->value[0]);
    m->n++;
}

static void vec3_spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                       const uint32_t *entity_index, const void *data)
{
    vec3_manager_t *m = manager;
    vec3_reserve(m, m->n + n);
    for (uint32_t i = 0; i < n; i++) {
        m->entity[m->n + i] = ctx->entity_lookup[entity_index[i]];
        memcpy(m->value[m->n + i], (const float *)data + 3 * i, sizeof m->value[0]);
    }
    m->n += n;
}

/* Puts the manager's arrays in entity order: the permutation from sort_by_entity, applied
 * through a scratch copy (`scratch` holds 4 * n u32, then reused for n vec3). */
static void vec3_sort(vec3_manager_t *m, uint32_t *scratch)
{
    uint32_t *order = scratch, *work = scratch + m->n;
    components->sort_by_entity(m->entity, m->n, order, work);
    ct_entity_t *e = (ct_entity_t *)work;
    for (uint32_t i = 0; i < m->n; i++)
        e[i] = m->entity[order[i]];
    memcpy(m->entity, e, m->n * sizeof *e);
    float(*v)[3] = (void *)work;
    for (uint32_t i = 0; i < m->n; i++)
        memcpy(v[i], m->value[order[i]], sizeof v[i]);
    memcpy(m->value, v, m->n * sizeof *v);
}

static void vec3_gc(void *manager) { (void)manager; }

static ct_component_type_t vec3_type(const char *name)
{
    return (ct_component_type_t){.name = name,
                                 .spawn_order = 500,
                                 .create_manager = vec3_create,
                                 .destroy_manager = vec3_free,
                                 .instance_size = 12,
                                 .spawn = vec3_spawn,
                                 .gc = vec3_gc};
}

static double per_entity(double t0) { return (bench_now_ns() - t0) / N; }

static const char level_unit[] =
    "entities = [ { components = { transform = { position = [0 0 0] }\n"
    "  debug_name = { name = \"crate\" } bench_position = { } } } ]\n";

/* The bench level's source text; returns its length. */
static int level_source(char *out, size_t size)
{
    return snprintf(out, size,
                    "entities = [ { components = { transform = { position = [0 0 0] }\n"
                    "  debug_name = { name = \"crate\" } bench_position = { } }\n"
                    "  repeat = { count = %d spacing = [1 0 0] } } ]\n",
                    LEVEL);
}

static int load_level(void)
{
    char level[256];
    const int len = level_source(level, sizeof level);
    return resources->load_source("level", "bench/level", level, (size_t)len);
}

/* The entity-level figures. */
static void bench_entities(uint64_t position_type, uint64_t velocity_type, uint64_t *sink)
{
    double create[RUNS], destroy[RUNS], alive[RUNS], create_b[RUNS], destroy_b[RUNS];
    double add[RUNS], sort[RUNS], iterate[RUNS], lookup[RUNS];
    ct_entity_t *e = malloc(N * sizeof *e);
    uint32_t *scratch = malloc((size_t)N * 4 * sizeof(uint32_t));
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_now_ns();
        for (uint32_t i = 0; i < N; i++)
            e[i] = entity->create();
        create[r] = per_entity(t0);
        t0 = bench_now_ns();
        for (uint32_t i = 0; i < N; i++)
            *sink += entity->alive(e[i]);
        alive[r] = per_entity(t0);

        ct_world_o *w = worlds->create_world(NULL);
        vec3_manager_t *pos = components->manager(w, position_type);
        vec3_manager_t *vel = components->manager(w, velocity_type);
        t0 = bench_now_ns();
        for (uint32_t i = 0; i < N; i++)
            names->set(w, e[i], "bench");
        add[r] = per_entity(t0);
        /* Two different permutations (7919 and 104729 are primes, N = 2^6 5^6), so neither
         * manager is in entity order to begin with. */
        const float zero[3] = {0, 0, 0}, v[3] = {1, 2, 3};
        for (uint32_t i = 0; i < N; i++) {
            vec3_add(pos, e[(uint64_t)i * 7919u % N], zero);
            vec3_add(vel, e[(uint64_t)i * 104729u % N], v);
        }
        t0 = bench_now_ns();
        for (uint32_t i = 0; i < pos->n; i++) {
            for (int k = 0; k < 3; k++)
                pos->value[i][k] += 0.016f;
            *sink += names->lookup(w, pos->entity[i]).i;
        }
        lookup[r] = per_entity(t0);
        t0 = bench_now_ns();
        vec3_sort(pos, scratch);
        vec3_sort(vel, scratch);
        sort[r] = per_entity(t0);
        t0 = bench_now_ns();
        uint32_t run;
        for (ct_entity_join_t j = {0, 0};
             (run = ct_entity_join_run(pos->entity, pos->n, vel->entity, vel->n, &j)) != 0;
             j.a += run, j.b += run) {
            float(*p)[3] = pos->value + j.a;
            const float(*dv)[3] = (const float(*)[3])vel->value + j.b;
            for (uint32_t i = 0; i < run; i++)
                for (int k = 0; k < 3; k++)
                    p[i][k] += dv[i][k] * 0.016f;
        }
        iterate[r] = per_entity(t0);
        *sink += (uint64_t)pos->value[N / 2][1];

        t0 = bench_now_ns();
        for (uint32_t i = 0; i < N; i++)
            entity->destroy(e[i]);
        destroy[r] = per_entity(t0);
        worlds->destroy_world(w);

        t0 = bench_now_ns();
        entity->create_batch(e, N);
        create_b[r] = per_entity(t0);
        t0 = bench_now_ns();
        entity->destroy_batch(e, N);
        destroy_b[r] = per_entity(t0);
    }
    bench_report("entities.create_ns", bench_median(create, RUNS), "ns", "create(), 1M entities");
    bench_report("entities.destroy_ns", bench_median(destroy, RUNS), "ns",
                 "destroy(), 1M entities with a debug name in a live world");
    bench_report("entities.alive_ns", bench_median(alive, RUNS), "ns", "alive(), 1M live entities");
    bench_report("entities.add_component_ns", bench_median(add, RUNS), "ns",
                 "debug_name set on 1M entities (index entry + SoA append)");
    bench_report("entities.sort_by_entity_ns", bench_median(sort, RUNS), "ns",
                 "two shuffled 1M managers put in entity order (sort_by_entity + apply)");
    bench_report("entities.iterate2_ns", bench_median(iterate, RUNS), "ns",
                 "p += v * dt over 1M entities of two managers, ct_entity_join_run");
    bench_report("entities.iterate2_hash_lookup_ns", bench_median(lookup, RUNS), "ns",
                 "walk of 1M shuffled positions + debug_name lookup each (paged index)");
    bench_report("entities.create_batch_ns", bench_median(create_b, RUNS), "ns",
                 "create_batch of 1M entities");
    bench_report("entities.destroy_batch_ns", bench_median(destroy_b, RUNS), "ns",
                 "destroy_batch of 1M entities");
    free(scratch);
    free(e);
}

/* 10k entities the way a game without levels would make them: one at a time, each component
 * through its public API. */
static void make_one_by_one(ct_world_o *w, uint64_t position_type)
{
    vec3_manager_t *pos = components->manager(w, position_type);
    for (int i = 0; i < LEVEL; i++) {
        const ct_entity_t e = entity->create();
        const ct_transform_pose_t pose = {{(float)i, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        transforms->create(w, e, &pose);
        names->set(w, e, "crate");
        vec3_add(pos, e, (const float[3]){0, 0, 0});
    }
}

/* Destroys every entity a run made (each has a debug name), then the world. */
static void destroy_world_and_entities(ct_world_o *w)
{
    const uint32_t n = names->count(w);
    ct_entity_t *e = malloc((size_t)n * sizeof *e);
    for (uint32_t i = 0; i < n; i++)
        e[i] = names->entity(w, (ct_debug_name_instance_t){i + 1});
    entity->destroy_batch(e, n);
    free(e);
    worlds->destroy_world(w);
}

static void bench_levels(uint64_t position_type, uint64_t *sink)
{
    if (load_level() ||
        resources->load_source("unit", "bench/unit", level_unit, sizeof level_unit - 1)) {
        fprintf(stderr, "bench_entities: could not compile the bench level\n");
        exit(1);
    }
    double batch[LEVEL_RUNS], single[LEVEL_RUNS];
    for (int r = 0; r < LEVEL_RUNS; r++) {
        ct_world_o *w = worlds->create_world(NULL);
        double t0 = bench_now_ns();
        *sink += (uint64_t)worlds->spawn_level(w, "bench/level");
        batch[r] = bench_now_ns() - t0;
        destroy_world_and_entities(w);
        w = worlds->create_world(NULL);
        t0 = bench_now_ns();
        make_one_by_one(w, position_type);
        single[r] = bench_now_ns() - t0;
        destroy_world_and_entities(w);
    }
    double b = bench_median(batch, LEVEL_RUNS), s = bench_median(single, LEVEL_RUNS);
    bench_report("entities.spawn_level_10k_us", b / 1000.0, "us",
                 "spawn_level, warm: 10k entities with transform + debug_name + bench_position");
    bench_report("entities.spawn_batch_vs_single_ratio", s / b, "x",
                 "10k entities made one by one through the public API / one spawn_level");
}

/* A child run: one spawn_level in this fresh process, printed as a bare number of microseconds.
 * With `loaded`, the level is compiled and loaded first, untimed; without, spawn_level loads it
 * from the project's compiled/ folder inside the timing (the process booted with that project). */
static void spawn_cold(bool loaded)
{
    if (loaded && load_level()) {
        fprintf(stderr, "bench_entities: could not compile the bench level\n");
        exit(1);
    }
    ct_world_o *w = worlds->create_world(NULL);
    const double t0 = bench_now_ns();
    const int n = worlds->spawn_level(w, "bench/level");
    const double us = (bench_now_ns() - t0) / 1000.0;
    printf("%.3f %d\n", us, n);
    worlds->destroy_world(w);
}

/* A temporary project holding the bench level, compiled (compiled/level/bench/level.bin) the
 * way cuttle-compile does it, in this process, where bench_position is registered. */
static bool make_level_project(char *dir, size_t size)
{
    snprintf(dir, size, "%s/cuttle-bench-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return false;
    char project[1100], source[1100], level[256];
    snprintf(project, sizeof project, "%s/project.sjson", dir);
    snprintf(source, sizeof source, "%s/bench/level.level", dir);
    const int len = level_source(level, sizeof level);
    uint32_t compiled = 0, up_to_date = 0, failed = 0;
    return compiler__write_file(project, "", 0) == 0 &&
           compiler__write_file(source, level, (size_t)len) == 0 &&
           compiler__compile_project(dir, &compiled, &up_to_date, &failed) == 0 && compiled == 1 &&
           failed == 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Runs `command` COLD_RUNS times, each a fresh process printing "us entities"; the median. */
static bool cold_median(const char *command, double *median)
{
    double cold[COLD_RUNS];
    int got = 0;
    for (int r = 0; r < COLD_RUNS; r++) {
        FILE *p = popen(command, "r");
        double us;
        int n;
        if (p && fscanf(p, "%lf %d", &us, &n) == 2 && n == LEVEL)
            cold[got++] = us;
        if (p)
            pclose(p);
    }
    if (got)
        *median = bench_median(cold, got);
    return got > 0;
}

/* The first spawn of a fresh process, with the level loaded before (the figure flecs' first
 * bulk instantiation compares with) and with it still on disk (what a game's first spawn of a
 * level costs: reading, checking and spawning it). */
static void bench_cold(const char *self, const char *modules)
{
    char command[4096], project[1024];
    double us;
    snprintf(command, sizeof command, "'%s' --cold loaded --modules '%s'", self, modules);
    if (cold_median(command, &us))
        bench_report("entities.spawn_level_10k_cold_us", us, "us",
                     "first spawn_level of a fresh process (level loaded untimed just before)");
    if (!make_level_project(project, sizeof project)) {
        fprintf(stderr, "bench_entities: could not make the bench project in %s\n", project);
    } else {
        snprintf(command, sizeof command, "'%s' --cold '%s' --modules '%s'", self, project,
                 modules);
        if (cold_median(command, &us))
            bench_report("entities.spawn_level_10k_cold_unloaded_us", us, "us",
                         "first spawn_level of a fresh process, the level read from compiled/");
    }
    nftw(project, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(int argc, char **argv)
{
    /* --cold loaded | --cold PROJECT: a child run of bench_cold. */
    const char *cold_mode = bench_arg(argc, argv, "--cold");
    const bool cold = cold_mode != NULL;
    const char *cold_project = cold && strcmp(cold_mode, "loaded") != 0 ? cold_mode : NULL;
#ifdef __GLIBC__
    /* Every block from the heap (no mmap per big block) and no trimming: memory freed by one run
     * is reused, already mapped, by the next. */
    if (!cold) {
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, -1);
    }
#endif
    const char *dir = bench_arg(argc, argv, "--modules");
    if (!dir)
        dir = BENCH_MODULE_DIR;
    static char paths[2][1024];
    snprintf(paths[0], sizeof paths[0], "%s/entities/ct_entities.so", dir);
    snprintf(paths[1], sizeof paths[1], "%s/transforms/ct_transforms.so", dir);
    FILE *has_transforms = fopen(paths[1], "rb");
    if (has_transforms)
        fclose(has_transforms);
    kernel_desc_t desc = {
        .strict = true, .num_plugin_paths = has_transforms ? 2 : 1, .project_dir = cold_project};
    desc.plugin_paths[0] = paths[0];
    desc.plugin_paths[1] = paths[1];
    if (kernel__boot(&desc)) {
        fprintf(stderr, "bench_entities: boot failed (modules from %s)\n", paths[0]);
        return 1;
    }
    entity = registry__get_engine_api(CT_ENTITY_API, 2);
    worlds = registry__get_engine_api(CT_WORLD_API, 1);
    names = registry__get_engine_api(CT_DEBUG_NAME_API, 1);
    components = registry__get_engine_api(CT_COMPONENT_API, 2);
    transforms = registry__get_engine_api(CT_TRANSFORM_API, 2);
    resources = registry__get_engine_api(CT_RESOURCE_API, 1);
    if (!entity || !worlds || !names || !components || !resources) {
        fprintf(stderr, "bench_entities: setup failed\n");
        return 1;
    }
    const ct_component_type_t position = vec3_type("bench_position");
    const ct_component_type_t velocity = vec3_type("bench_velocity");
    uint64_t position_type = components->register_type(&position);
    uint64_t velocity_type = components->register_type(&velocity);
    uint64_t sink = 0;
    if (cold && has_transforms) {
        spawn_cold(cold_project == NULL);
    } else {
        bench_entities(position_type, velocity_type, &sink);
        if (has_transforms && transforms) {
            bench_levels(position_type, &sink);
            bench_cold(argv[0], dir);
        }
        bench_print_table();
        fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sink);
    }
    components->unregister_type(velocity_type);
    components->unregister_type(position_type);
    return kernel__shutdown() ? 1 : 0;
}
