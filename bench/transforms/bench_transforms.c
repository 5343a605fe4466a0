/*
 * The transform component's figures, over one world of 1,000,000 nodes in 200,000 chains five
 * deep (the seed's expected depth):
 *   - propagation: every chain's root is moved with one set_local_batch, which recomputes the
 *     world matrices of all 1,000,000 nodes; ns per node;
 *   - moving whole chains: every node gets a new pose, once with v1 set_local per node (each call
 *     updates the node's whole subtree at once: 15 matrix products per chain) and once with v2
 *     set_local_batch (each subtree once: 5 per chain); the time ratio.
 * Modules come from `--modules DIR` (DIR/entities/ct_entities.so, DIR/transforms/...).
 *
 * Timings are the thread's CPU time, not wall time: the figure is what the work costs, and a
 * busy machine (tests building on every core) then only adds cache noise, not whole time slices
 * spent in other processes.
 */
#include <math.h>

#include "../common/bench.h"
#include "ct_entity.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "kernel.h"
#include "plugins/registry.h"

enum { DEPTH = 5, CHAINS = 200000, NODES = DEPTH * CHAINS, RUNS = 9 };

static double cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static const ct_transform_api_v1 *tv1;
static const ct_transform_api_v2 *tv2;

static ct_transform_pose_t pose_for(uint32_t k, float phase)
{
    const float h = 0.001f * (float)k + phase;
    return (ct_transform_pose_t){{1, 0.5f, phase}, {0, sinf(h), 0, cosf(h)}, {1, 1, 1}};
}

/* Median ns per node of `runs` timings of fn. */
static double median_ns_per_node(void (*fn)(ct_world_o *, const ct_transform_t *,
                                            ct_transform_pose_t *, uint32_t),
                                 ct_world_o *w, const ct_transform_t *t, ct_transform_pose_t *p,
                                 uint32_t n, uint32_t nodes)
{
    double samples[RUNS];
    for (int r = 0; r < RUNS; r++) {
        for (uint32_t k = 0; k < n; k++)
            p[k].position[2] = (float)r;
        const double t0 = cpu_now_ns();
        fn(w, t, p, n);
        samples[r] = (cpu_now_ns() - t0) / nodes;
    }
    return bench_median(samples, RUNS);
}

static void batch(ct_world_o *w, const ct_transform_t *t, ct_transform_pose_t *p, uint32_t n)
{
    tv2->set_local_batch(w, t, p, n);
}

static void single(ct_world_o *w, const ct_transform_t *t, ct_transform_pose_t *p, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        tv1->set_local(w, t[k], &p[k]);
}

int main(int argc, char **argv)
{
    const char *dir = bench_arg(argc, argv, "--modules");
    static char paths[2][1024];
    snprintf(paths[0], sizeof paths[0], "%s/entities/ct_entities.so", dir ? dir : BENCH_MODULE_DIR);
    snprintf(paths[1], sizeof paths[1], "%s/transforms/ct_transforms.so",
             dir ? dir : BENCH_MODULE_DIR);
    kernel_desc_t desc = {.strict = true, .num_plugin_paths = 2};
    desc.plugin_paths[0] = paths[0];
    desc.plugin_paths[1] = paths[1];
    if (kernel__boot(&desc)) {
        fprintf(stderr, "bench_transforms: boot failed (modules from %s)\n", paths[0]);
        return 1;
    }
    const ct_entity_api_v2 *entity = registry__get_engine_api(CT_ENTITY_API, 2);
    const ct_world_api_v1 *worlds = registry__get_engine_api(CT_WORLD_API, 1);
    tv1 = registry__get_engine_api(CT_TRANSFORM_API, 1);
    tv2 = registry__get_engine_api(CT_TRANSFORM_API, 2);
    ct_world_o *w = worlds ? worlds->create_world(NULL) : NULL;
    ct_entity_t *e = malloc(NODES * sizeof *e);
    ct_transform_t *t = malloc(NODES * sizeof *t);
    ct_transform_t *roots = malloc(CHAINS * sizeof *roots);
    ct_transform_pose_t *p = malloc(NODES * sizeof *p);
    if (!entity || !tv1 || !tv2 || !w || !e || !t || !roots || !p ||
        entity->create_batch(e, NODES) != NODES) {
        fprintf(stderr, "bench_transforms: setup failed\n");
        return 1;
    }

    /* The poses are made and the handle array is touched before the clock starts: the figure is
     * what transforms cost, not the first touches of the benchmark's own 44 MB (a page fault
     * costs microseconds on a virtual machine). */
    for (uint32_t k = 0; k < NODES; k++)
        p[k] = pose_for(k, 0);
    memset(t, 0, NODES * sizeof *t);
    memset(roots, 0, CHAINS * sizeof *roots);

    /* Chains are created one after the other, so a chain's nodes sit together in memory, as a
     * spawned resource's do. */
    const double t0 = cpu_now_ns();
    for (uint32_t k = 0; k < NODES; k++) {
        t[k] = tv2->create(w, e[k], &p[k]);
        if (k % DEPTH)
            tv2->link(w, t[k], t[k - 1]);
        else
            roots[k / DEPTH] = t[k];
    }
    const double build_ns = (cpu_now_ns() - t0) / NODES;

    ct_transform_pose_t *root_poses = malloc(CHAINS * sizeof *root_poses);
    for (uint32_t c = 0; c < CHAINS; c++)
        root_poses[c] = pose_for(c, 0.25f);
    const double propagate_ns = median_ns_per_node(batch, w, roots, root_poses, CHAINS, NODES);
    bench_report("transforms.propagate_ns_per_node", propagate_ns, "ns",
                 "set_local_batch of 200k chain roots updating 1M world matrices, per node");

    const double single_ns = median_ns_per_node(single, w, t, p, NODES, NODES);
    const double batch_ns = median_ns_per_node(batch, w, t, p, NODES, NODES);
    bench_report("transforms.chain_batch_vs_single_ratio", single_ns / batch_ns, "x",
                 "moving whole 5-deep chains: v1 set_local per node / v2 set_local_batch");
    bench_report("transforms.chain_single_ns_per_node", single_ns, "ns",
                 "v1 set_local on every node of 5-deep chains, top down");
    bench_report("transforms.chain_batch_ns_per_node", batch_ns, "ns",
                 "v2 set_local_batch of every node of 5-deep chains");
    bench_report("transforms.create_link_ns_per_node", build_ns, "ns",
                 "v2 create + link, one node at a time, 1M nodes");

    float sum = 0;
    for (uint32_t c = 0; c < CHAINS; c += 997) {
        const ct_transform_matrix_t m = tv2->world_matrix(w, t[c * DEPTH + DEPTH - 1]);
        sum += m.m[3];
    }
    printf("(checksum %g)\n", (double)sum);
    worlds->destroy_world(w);
    entity->destroy_batch(e, NODES);
    free(root_poses);
    free(p);
    free(roots);
    free(t);
    free(e);
    kernel__shutdown();
    bench_print_table();
    return 0;
}
