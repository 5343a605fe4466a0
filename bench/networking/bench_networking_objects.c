/*
 * bench_networking_objects: the "network" component at scale, through the public API a game
 * calls, in a booted kernel (entities, transforms, networking) hosting a session on 127.0.0.1
 * with nobody joined (nothing is sent; every figure is the engine's own work).
 *
 *   networking.owner_<N>_ns
 *       ct_network_api_v1.owner(world, e) for each of N replicated entities in a shuffled order:
 *       median per call over 21 passes. The call finds the entity's object (the component's
 *       entity -> object lookup) and reads the object's owner from the session.
 *   networking.destroy_batch_<N>_ms
 *       ct_entity_api_v2.destroy_batch of all N replicated entities at once, in a shuffled order:
 *       every component's destroy callback runs (the network component finds and drops each
 *       object, transforms remove theirs). Median of 5 fresh worlds and sessions.
 *
 * N is 1,000 and 10,000. Modules come from `--modules DIR` (default: this build's), so the same
 * program measures another build's modules.
 */
#include "../common/bench.h"
#include "../common/bench_kernel.h"

#include "ct_network.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "plugins/registry.h"

static const ct_network_api_v1 *net;
static const ct_entity_api_v2 *entity;
static const ct_transform_api_v2 *tf;
static const ct_world_api_v1 *worlds;

/* A new world hosting a session, with n replicated entities in e. */
static ct_world_o *replicate_many(ct_entity_t *e, uint32_t n)
{
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "net"});
    if (!w || net->start(&(ct_network_desc_t){.host = 1, .world = w, .max_objects = 16384})) {
        fprintf(stderr, "bench_networking_objects: cannot host a session\n");
        exit(1);
    }
    for (uint32_t i = 0; i < n; i++) {
        e[i] = entity->create();
        const ct_transform_pose_t pose = {{(float)i, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        if (!tf->create(w, e[i], &pose).i || net->replicate(w, e[i])) {
            fprintf(stderr, "bench_networking_objects: entity %u was not replicated\n", i);
            exit(1);
        }
    }
    return w;
}

static void end_world(ct_world_o *w)
{
    net->stop();
    worlds->destroy_world(w);
}

static void measure(uint32_t n, ct_entity_t *e, ct_entity_t *order)
{
    char name[64];
    double samples[21];
    ct_world_o *w = replicate_many(e, n);
    bench_shuffle_entities(e, order, n);
    uint32_t owned = 0;
    for (int rep = 0; rep < 21; rep++) {
        owned = 0;
        const double start = bench_now_ns();
        for (uint32_t i = 0; i < n; i++)
            owned += net->owner(w, order[i]) == 1;
        samples[rep] = (bench_now_ns() - start) / n;
    }
    if (owned != n) {
        fprintf(stderr, "bench_networking_objects: %u of %u entities found owned\n", owned, n);
        exit(1);
    }
    snprintf(name, sizeof name, "networking.owner_%u_ns", n);
    bench_report(name, bench_median(samples, 21), "ns",
                 "owner(world, e): entity -> object -> owner, shuffled");
    entity->destroy_batch(e, n);
    end_world(w);

    for (int rep = 0; rep < 5; rep++) {
        w = replicate_many(e, n);
        bench_shuffle_entities(e, order, n);
        const double start = bench_now_ns();
        entity->destroy_batch(order, n);
        samples[rep] = (bench_now_ns() - start) / 1e6;
        if (net->stats().objects != 0 || net->owner(w, e[0]) != 0) {
            fprintf(stderr, "bench_networking_objects: objects left after the batch\n");
            exit(1);
        }
        end_world(w);
    }
    snprintf(name, sizeof name, "networking.destroy_batch_%u_ms", n);
    bench_report(name, bench_median(samples, 5), "ms",
                 "all replicated entities destroyed in one batch");
}

int main(int argc, char **argv)
{
    const char *const modules[] = {"entities/ct_entities.so", "transforms/ct_transforms.so",
                                   "networking/ct_networking.so"};
    bench_boot_modules(argc, argv, "bench_networking_objects", modules, 3);
    net = registry__get_engine_api(CT_NETWORK_API, 1);
    entity = registry__get_engine_api(CT_ENTITY_API, 2);
    tf = registry__get_engine_api(CT_TRANSFORM_API, 2);
    worlds = registry__get_engine_api(CT_WORLD_API, 1);
    if (!net || !entity || !tf || !worlds) {
        fprintf(stderr, "bench_networking_objects: setup failed\n");
        return 1;
    }
    static ct_entity_t e[10000], order[10000];
    measure(1000, e, order);
    measure(10000, e, order);
    kernel__shutdown();
    bench_print_table();
    return 0;
}
