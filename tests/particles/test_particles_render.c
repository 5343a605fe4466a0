/*
 * Particles drawn by the rendering module: each emitter with live particles is one packet among
 * the frame's sorted packets (a draw in the stats, in the hash), none when it has none; through
 * the gl backend (llvmpipe) the frame with camera-facing quads renders and writes its PNG.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ct_particles.h"
#include "ct_render.h"
#include "test_kernel.h"

static void particles_are_packets_of_the_frame(void **state)
{
    (void)state;
    const char *paths[] = {
        CT_TEST_MODULE("entities", "ct_entities"), CT_TEST_MODULE("transforms", "ct_transforms"),
        CT_TEST_MODULE("expr", "ct_expr"), CT_TEST_MODULE("particles", "ct_particles"),
        CT_TEST_MODULE("rendering", "ct_rendering")};
    const kernel_desc_t desc = test_kernel_desc(paths, 5);
    const test_world_t *t = test_world_boot(&desc, "drawn");
    const ct_particles_api_v1 *particles = test_kernel_api(CT_PARTICLES_API, 1);
    const ct_render_api_v1 *render = test_kernel_api(CT_RENDER_API, 1);
    assert_non_null(particles);
    assert_non_null(render);
    assert_int_equal(render->set_backend("null"), 0);
    static const char camera[] =
        "entities = [ { components = { transform = {} camera = { fov = 60 } } } ]";
    assert_int_equal(t->resource->load_source("unit", "camera", camera, strlen(camera)), 0);
    static const char puff[] = "burst = 200 lifetime = 10 shape = \"box\" extent = [1 1 0.1] "
                               "color = [1 0.5 0.2 1] size = \"0.3\"";
    assert_int_equal(t->resource->load_source("particles", "puff", puff, strlen(puff)), 0);
    const ct_entity_t cam = t->worlds->spawn_unit(t->world, "camera", (float[3]){0, 0, 5}, NULL);
    assert_int_equal(render->render(t->world, cam), 0);
    const ct_render_stats_t empty = render->stats();
    assert_int_equal(empty.draws, 0);

    const ct_particle_emitter_t a = particles->spawn(t->world, "puff", (float[3]){0, 0, 0});
    const ct_particle_emitter_t b = particles->spawn(t->world, "puff", (float[3]){1, 0, -2});
    assert_int_equal(render->render(t->world, cam), 0);
    assert_int_equal(render->stats().draws, 0); /* not stepped yet: no particles */
    particles->simulate(t->world, 0.1f);
    assert_int_equal(render->render(t->world, cam), 0);
    const ct_render_stats_t two = render->stats();
    assert_int_equal(two.draws, 2);
    assert_int_equal(two.packets, empty.packets + 2);
    assert_int_equal(two.invalid, 0);
    assert_true(two.command_hash != empty.command_hash);
    particles->destroy(t->world, b);
    assert_int_equal(render->render(t->world, cam), 0);
    assert_int_equal(render->stats().draws, 1);

    /* The gl backend draws them (llvmpipe), and the frame can be written. */
    if (render->set_backend("gl") == 0) {
        assert_int_equal(render->render(t->world, cam), 0);
        assert_int_equal(render->stats().draws, 1);
        char path[64];
        snprintf(path, sizeof path, "particles_%d.png", (int)getpid());
        assert_int_equal(render->screenshot(path), 0);
        assert_int_equal(access(path, R_OK), 0);
        unlink(path);
    }
    particles->destroy(t->world, a);
    t->resource->unload("particles", "puff");
    t->resource->unload("unit", "camera");
    test_world_shutdown(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(particles_are_packets_of_the_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
