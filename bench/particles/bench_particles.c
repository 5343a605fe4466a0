/*
 * bench_particles: one step of 100,000 particles in one emitter, three expressions each
 * (velocity with three outputs, size, alpha), through the module in a booted kernel with two job
 * threads (ct.jobs), as a game calls Particles.simulate.
 *
 *   particles.update_100k_ms   wall time of one step (median of 40), 2 threads
 *   particles.render_100k_ms   wall time of Render.render of those 100,000 particles as
 *                              camera-facing quads (gl backend on llvmpipe; median of 10)
 *
 *   bench_particles [--modules DIR]
 *
 * Prints JSON lines and a table; never fails on time. The machine may be shared: figures are
 * noisy.
 */
#include "bench.h"
#include "bench_kernel.h"
#include "ct_particles.h"
#include "ct_render.h"
#include "ct_resource.h"
#include "ct_world.h"
#include "plugins/registry.h"

#define PARTICLES 100000
#define STEPS 40

static const char effect[] =
    "max_particles = 100000 burst = 100000 lifetime = 1000 shape = \"sphere\" radius = 1\n"
    "spawn = \"vx = rand(n) - 0.5; vy = 2 + rand(n + 0.5); vz = rand(n + 0.25) - 0.5\"\n"
    "velocity = \"drag = 1 - 0.5 * dt; vx = vx * drag + 0.3 * noise(py + t) * dt; "
    "vy = vy * drag - 9.81 * dt; vz = vz * drag\"\n"
    "size = \"0.05 + 0.2 * smoothstep(0, 1, life)\"\n"
    "alpha = \"(1 - life) * clamp(age * 4, 0, 1)\"\n";

static double step_ms(const ct_particles_api_v1 *particles, ct_world_o *world)
{
    double samples[STEPS];
    for (int s = 0; s < STEPS; s++) {
        const double t0 = bench_now_ns();
        particles->simulate(world, 1.0f / 60.0f);
        samples[s] = (bench_now_ns() - t0) / 1e6;
    }
    return bench_median(samples, STEPS);
}

int main(int argc, char **argv)
{
    static const char *const modules[] = {"entities/ct_entities.so", "transforms/ct_transforms.so",
                                          "expr/ct_expr.so", "particles/ct_particles.so",
                                          "rendering/ct_rendering.so"};
    bench_boot_modules(argc, argv, "bench_particles", modules, 5);
    const ct_resource_api_v1 *res = registry__get_engine_api(CT_RESOURCE_API, 1);
    const ct_world_api_v1 *worlds = registry__get_engine_api(CT_WORLD_API, 1);
    const ct_particles_api_v1 *particles = registry__get_engine_api(CT_PARTICLES_API, 1);
    if (!res || !worlds || !particles ||
        res->load_source("particles", "bench/fountain", effect, sizeof effect - 1)) {
        fprintf(stderr, "bench_particles: no effect\n");
        return 1;
    }
    ct_world_o *world = worlds->create_world(NULL);
    const float at[3] = {0, 0, 0};
    const ct_particle_emitter_t e = particles->spawn(world, "bench/fountain", at);
    particles->simulate(world, 1.0f / 60.0f); /* the burst */
    if (particles->count(world, e) != PARTICLES) {
        fprintf(stderr, "bench_particles: %u particles, not %u\n", particles->count(world, e),
                PARTICLES);
        return 1;
    }
    bench_report("particles.update_100k_ms", step_ms(particles, world), "ms",
                 "one step of 100k particles, 3 expressions each, 2 threads");

    /* Drawing them: a camera 12 m back, the gl backend (llvmpipe). */
    const ct_render_api_v1 *render = registry__get_engine_api(CT_RENDER_API, 1);
    static const char camera[] =
        "entities = [ { components = { transform = {} camera = { fov = 60 } } } ]";
    if (render && !res->load_source("unit", "bench/camera", camera, sizeof camera - 1) &&
        render->set_backend("gl") == 0) {
        const float back[3] = {0, 2, 12};
        const ct_entity_t cam = worlds->spawn_unit(world, "bench/camera", back, NULL);
        double samples[10];
        render->render(world, cam); /* warm: programs, buffers */
        for (int f = 0; f < 10; f++) {
            const double t0 = bench_now_ns();
            render->render(world, cam);
            samples[f] = (bench_now_ns() - t0) / 1e6;
        }
        bench_report("particles.render_100k_ms", bench_median(samples, 10), "ms",
                     "Render.render of 100k camera-facing quads, gl on llvmpipe");
        res->unload("unit", "bench/camera");
    } else {
        fprintf(stderr, "bench_particles: no gl backend; particles.render_100k_ms not measured\n");
    }
    worlds->destroy_world(world);
    res->unload("particles", "bench/fountain");
    bench_print_table();
    return kernel__shutdown() ? 1 : 0;
}
