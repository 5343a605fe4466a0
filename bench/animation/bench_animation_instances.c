/*
 * bench_animation_instances: finding and removing animation instances by entity, through the
 * public API, in a world of many animated entities (each a two-bone arm from an inline BVH).
 *
 *   animation.find_by_entity_<N>_ns
 *       ct_animation_api_v1.time(world, e) for each of N animated entities in a shuffled order:
 *       median per call over 21 passes. The call is a lookup from entity to instance and a read.
 *   animation.destroy_batch_<N>_ms
 *       ct_entity_api_v2.destroy_batch of a third of the N animated entities (each instance found
 *       and removed, the others moved down) plus the next ct_animation_api_v1.evaluate, which
 *       destroys the dead instances' bones: median of 5 fresh worlds.
 *
 * N is 1,000 and 10,000. Modules come from `--modules DIR` (default: this build's), so the same
 * program measures another build's modules.
 */
#include "../common/bench.h"
#include "../common/bench_kernel.h"

#include "ct_animation.h"
#include "ct_resource.h"
#include "ct_world.h"
#include "plugins/registry.h"

static const ct_animation_api_v1 *anim;
static const ct_entity_api_v2 *entity;
static const ct_world_api_v1 *worlds;

static ct_world_o *spawn_arms(ct_entity_t *e, uint32_t n)
{
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "arms"});
    for (uint32_t i = 0; i < n; i++)
        e[i] = worlds->spawn_unit(w, "arm", (const float[3]){(float)i, 0, 0}, NULL);
    anim->evaluate(w, 0);
    return w;
}

static void measure(uint32_t n, ct_entity_t *e, ct_entity_t *order)
{
    char name[64];
    double samples[21];
    ct_world_o *w = spawn_arms(e, n);
    bench_shuffle_entities(e, order, n);
    volatile float sink = 0;
    for (int rep = 0; rep < 21; rep++) {
        const double start = bench_now_ns();
        for (uint32_t i = 0; i < n; i++)
            sink += anim->time(w, order[i]);
        samples[rep] = (bench_now_ns() - start) / n;
    }
    (void)sink;
    snprintf(name, sizeof name, "animation.find_by_entity_%u_ns", n);
    bench_report(name, bench_median(samples, 21), "ns",
                 "time(world, e): entity -> instance, shuffled");
    worlds->destroy_world(w);

    for (int rep = 0; rep < 5; rep++) {
        w = spawn_arms(e, n);
        uint32_t dead = 0;
        for (uint32_t i = 0; i < n; i += 3)
            order[dead++] = e[i];
        const double start = bench_now_ns();
        entity->destroy_batch(order, dead);
        anim->evaluate(w, 0);
        samples[rep] = (bench_now_ns() - start) / 1e6;
        worlds->destroy_world(w);
    }
    snprintf(name, sizeof name, "animation.destroy_batch_%u_ms", n);
    bench_report(name, bench_median(samples, 5), "ms",
                 "a third of the animated entities destroyed in one batch + next evaluate");
}

int main(int argc, char **argv)
{
    const char *const modules[] = {"entities/ct_entities.so", "transforms/ct_transforms.so",
                                   "animation/ct_animation.so"};
    bench_boot_modules(argc, argv, "bench_animation_instances", modules, 3);
    const ct_resource_api_v1 *resource = registry__get_engine_api(CT_RESOURCE_API, 1);
    anim = registry__get_engine_api(CT_ANIMATION_API, 1);
    entity = registry__get_engine_api(CT_ENTITY_API, 2);
    worlds = registry__get_engine_api(CT_WORLD_API, 1);
    static const char arm[] =
        "bvh = \"HIERARCHY\\nROOT a\\n{\\nOFFSET 0 0 0\\nCHANNELS 1 Zrotation\\n"
        "JOINT b\\n{\\nOFFSET 0 1 0\\n}\\n}\\nMOTION\\nFrames: 2\\n"
        "Frame Time: 1\\n0\\n90\\n\"";
    static const char unit[] = "entities = [ { components = { transform = {} animation = { "
                               "skeleton = \"arm\" clip = \"arm\" loop = true } } } ]";
    if (!resource || !anim || !entity || !worlds ||
        resource->load_source("skeleton", "arm", arm, sizeof arm - 1) ||
        resource->load_source("clip", "arm", arm, sizeof arm - 1) ||
        resource->load_source("unit", "arm", unit, sizeof unit - 1)) {
        fprintf(stderr, "bench_animation_instances: setup failed\n");
        return 1;
    }
    static ct_entity_t e[10000], order[10000];
    measure(1000, e, order);
    measure(10000, e, order);
    kernel__shutdown();
    bench_print_table();
    return 0;
}
