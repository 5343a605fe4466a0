/*
 * ct_rendering.so in a booted kernel (entities, transforms, rendering) with a scratch project
 * folder: frames through the null backend with fixed counts, culling, hashes equal across runs
 * and thread counts, entity death releasing resources, bad data refused (materials, pipelines,
 * meshes, components, paths leaving the project), the pipeline's hot reload through the kernel's
 * followed sources (a broken edit keeps the old one; a FIFO or a link to /dev/zero in its place
 * neither hangs nor grows memory; a source over 64 KiB reloads), a material reloaded under
 * instances that keep drawing, the Lua module's checks, a screenshot through the gl backend, and
 * a frame prepared on the main thread and executed on another (ct.render v3) giving the same
 * pixels, with the shadow map capped, and two cameras rendered in one frame (the demo's close-ups)
 * each giving the pixels it gives alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ct_entity.h"
#include "ct_lua.h"
#include "ct_render.h"
#include "ct_render_frame.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "plugins/loader.h"
#include "render_capture.h" /* the capture's layout: where the frame's shadow matrix is */
#include "test_kernel.h"

static char project[256];
static const ct_render_api_v1 *render;
static const ct_resource_api_v1 *resource;
static const ct_resource_api_v5 *resource5;
static const ct_world_api_v1 *worlds;
static const ct_entity_api_v2 *entity;
static const ct_lua_api_v1 *lua;

static void write_file(const char *name, const char *text)
{
    test_project_write(project, name, text);
}

static const char cube_obj[] =
    "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv 0.5 0.5 -0.5\nv -0.5 0.5 -0.5\n"
    "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n"
    "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 4 8 7 3\nf 1 5 8 4\nf 2 3 7 6\n";

static const char *rendering_path = CT_TEST_MODULE("rendering", "ct_rendering");

static void boot(uint32_t jobs)
{
    kernel_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.project_dir = project;
    desc.jobs = jobs;
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"), rendering_path};
    for (uint32_t i = 0; i < 3; i++)
        desc.plugin_paths[desc.num_plugin_paths++] = paths[i];
    assert_int_equal(kernel__boot(&desc), 0);
    render = test_kernel_api(CT_RENDER_API, 1);
    resource = test_kernel_api(CT_RESOURCE_API, 1);
    resource5 = test_kernel_api(CT_RESOURCE_API, 5);
    assert_non_null(resource5);
    worlds = test_kernel_api(CT_WORLD_API, 1);
    entity = test_kernel_api(CT_ENTITY_API, 2);
    lua = test_kernel_api(CT_LUA_API, 1);
    assert_non_null(render);
    assert_non_null(test_kernel_api(CT_RENDER_API, 2));
    assert_non_null(test_kernel_api(CT_RENDER_API, 3));
    assert_null(test_kernel_api(CT_RENDER_API, 4));
    assert_int_equal(render->set_backend("null"), 0);
}

static int make_project(void **state)
{
    (void)state;
    test_project_make(project, sizeof project, "cuttle_render");
    write_file("project.sjson", "modules = []\n");
    write_file("cube.obj", cube_obj);
    write_file("broken.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n");
    /* glTF files from Debian's assimp-testmodels, good and broken, seen from inside the project
     * under canonical (lower-case) names, their buffers beside them under the names they use. */
    static const char *const models[][2] = {
        {"IndexOutOfRange/IndexOutOfRange.gltf", "index_out_of_range"},
        {"MissingBin/BoxTextured.gltf", "missing_bin"},
        {"wrongTypes/badArray.gltf", "bad_array"},
        {"BoxTextured-glTF-Binary/BoxTextured.glb", "box_glb"},
        {"2CylinderEngine-glTF-Binary/2CylinderEngine.glb", "engine"}};
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd,
                 "d=%s/gltf/%s && src=" ASSIMP_GLTF2
                 "/%s && mkdir -p $d && ln -s $(dirname $src)/* $d/ && "
                 "ln -s $src $d/model.${src##*.}",
                 project, models[k][1], models[k][0]);
        assert_int_equal(system(cmd), 0);
    }
    return 0;
}

static int remove_project(void **state)
{
    (void)state;
    return test_project_remove(project);
}

static int load(const char *type, const char *name, const char *source)
{
    return resource->load_source(type, name, source, strlen(source));
}

/* The units both scenes here spawn: "camera" (a 60 degree field of view) and "sun" (a
 * directional light). */
static void load_camera_and_sun(void)
{
    assert_int_equal(
        load("unit", "camera",
             "entities = [ { components = { transform = {} camera = { fov = 60 } } } ]"),
        0);
    assert_int_equal(load("unit", "sun",
                          "entities = [ { components = { transform = {} light = { type = "
                          "\"directional\" } } } ]"),
                     0);
}

/* The scene: a camera at (0, 0, 5) looking down -Z, a sun, `n` cubes in a row at z = 0 (in view)
 * and one at z = 20 (behind the camera). */
static ct_world_o *scene(uint32_t n, ct_entity_t *camera, ct_entity_t *row)
{
    assert_int_equal(load("mesh", "cube", "source = \"cube.obj\""), 0);
    assert_int_equal(load("material", "red", "program = \"unlit\" color = [1 0 0]"), 0);
    assert_int_equal(
        load("material", "grey", "program = \"lit\" color = [0.5 0.5 0.5 1] specular = 0.2"), 0);
    char unit[512];
    snprintf(unit, sizeof unit,
             "entities = [ { components = { transform = { scale = [0.01 0.01 0.01] } "
             "mesh = { mesh = \"cube\" material = \"red\" } } repeat = { count = %u spacing = "
             "[0.001 0 0] } }\n"
             "{ components = { transform = { position = [0 1 0] } mesh = { mesh = \"cube\" "
             "material = \"grey\" } } } ]",
             n);
    assert_int_equal(load("unit", "row", unit), 0);
    assert_int_equal(load("unit", "far",
                          "entities = [ { components = { transform = { position = [0 0 20] } "
                          "mesh = { mesh = \"cube\" material = \"grey\" } } } ]"),
                     0);
    load_camera_and_sun();
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "render"});
    assert_non_null(w);
    const ct_entity_t first = worlds->spawn_unit(w, "row", (float[3]){-0.5f, 0, 0}, NULL);
    if (row)
        *row = first;
    worlds->spawn_unit(w, "far", (float[3]){0, 0, 0}, NULL);
    worlds->spawn_unit(w, "sun", (float[3]){0, 5, 0}, NULL);
    *camera = worlds->spawn_unit(w, "camera", (float[3]){0, 0, 5}, NULL);
    assert_int_not_equal(camera->id, 0);
    return w;
}

static void release_scene(ct_world_o *w)
{
    worlds->destroy_world(w);
    const char *units[] = {"row", "far", "camera", "sun"};
    for (int k = 0; k < 4; k++)
        resource->unload("unit", units[k]);
    resource->unload("material", "red");
    resource->unload("material", "grey");
    resource->unload("mesh", "cube");
}

static void test_frames_counts_and_hashes(void **state)
{
    (void)state;
    uint64_t hashes[2];
    for (uint32_t jobs = 1; jobs <= 2; jobs++) {
        boot(jobs);
        ct_entity_t camera;
        ct_entity_t row_first;
        ct_world_o *w = scene(3000, &camera, &row_first);
        assert_int_equal(render->render(w, camera), 0);
        const ct_render_stats_t s = render->stats();
        assert_int_equal(s.frame, 1);
        assert_int_equal(s.objects, 3002);
        assert_int_equal(s.visible, 3001); /* the cube behind the camera is culled */
        assert_int_equal(s.draws, 3001);
        assert_int_equal(s.packets, 3001 + 2); /* + the two layers' begin packets */
        assert_int_equal(s.contexts, 1 + 3);   /* the pipeline's, then one per 1,024 instances */
        assert_int_equal(s.invalid, 0);
        /* opaque layer: bind program, material, mesh for red; then program and material for grey;
         * transparent layer: its begin. */
        assert_int_equal(s.state_changes, 1 + 3 + 2 + 1);
        assert_int_equal(render->render(w, camera), 0);
        assert_int_equal(render->stats().command_hash, s.command_hash); /* nothing moved */
        hashes[jobs - 1] = s.command_hash;
        /* Entities that die leave the next frame, and their resources go with the last one. */
        assert_true(entity->alive(row_first));
        entity->destroy(row_first);
        assert_int_equal(render->render(w, camera), 0);
        assert_int_equal(render->stats().objects, 3001);
        assert_int_not_equal(render->stats().command_hash, s.command_hash);
        release_scene(w);
        assert_null(resource->get("mesh", "cube"));
        assert_int_equal(test_kernel_shutdown(), 0);
    }
    assert_int_equal(hashes[0], hashes[1]);
}

static void test_bad_data_is_refused(void **state)
{
    (void)state;
    boot(1);
    /* Materials. */
    assert_int_not_equal(load("material", "a", "program = \"pbr\""), 0);
    assert_int_not_equal(load("material", "b", "program = \"lit\" colour = [1 0 0]"), 0);
    assert_int_not_equal(load("material", "c", "color = [1 0 2]"), 0);
    assert_int_not_equal(load("material", "d", "program = \"vignette\""), 0);
    assert_int_equal(load("material", "e", "program = \"lit\" layer = \"nowhere\""),
                     0); /* warned at use */
    resource->unload("material", "e");
    /* Pipelines. */
    assert_int_not_equal(load("render_config", "p1", "layers = []"), 0);
    assert_int_not_equal(
        load("render_config", "p2", "layers = [ { name = \"a\" target = \"hdr\" } ]"), 0);
    assert_int_not_equal(
        load("render_config", "p3", "layers = [ { name = \"a\" } { name = \"a\" } ]"), 0);
    assert_int_not_equal(
        load("render_config", "p4", "resolution = [0 10] layers = [ { name = \"a\" } ]"), 0);
    assert_int_not_equal(load("render_config", "p5",
                              "layers = [ { name = \"a\" fullscreen = { program = \"lit\" input = "
                              "\"backbuffer\" } } ]"),
                         0);
    assert_int_not_equal(
        load("render_config", "p6",
             "targets = [ { name = \"t\" scale = 2 } ] layers = [ { name = \"a\" } ]"),
        0);
    assert_int_not_equal(
        load("render_config", "p7", "layers = [ { name = \"a\" sort = \"random\" } ]"), 0);
    assert_int_equal(render->set_pipeline("p7"), CT_ERR_NOT_FOUND);
    /* Shadow layers: two of them, a fractional size, an unknown field, a full-screen one. */
    assert_int_equal(load("render_config", "h1",
                          "layers = [ { name = \"a\" shadow = {} } { name = \"b\" shadow = {} } ]"),
                     CT_ERR_BAD_DATA);
    assert_int_equal(
        load("render_config", "h2", "layers = [ { name = \"a\" shadow = { size = 100.5 } } ]"),
        CT_ERR_BAD_DATA);
    assert_int_equal(
        load("render_config", "h3", "layers = [ { name = \"a\" shadow = { szie = 512 } } ]"),
        CT_ERR_BAD_DATA);
    assert_int_equal(
        load("render_config", "h4",
             "targets = [ { name = \"t\" } ] layers = [ { name = \"a\" target = \"t\" } "
             "{ name = \"b\" fullscreen = { program = \"copy\" input = \"t\" } shadow = {} } ]"),
        CT_ERR_BAD_DATA);
    assert_int_equal(
        load("render_config", "h5",
             "layers = [ { name = \"s\" shadow = { size = 512 extent = 10 softness = 2 } } "
             "{ name = \"opaque\" } ]"),
        0);
    resource->unload("render_config", "h5");
    /* Meshes: files outside the project, missing, malformed. */
    assert_int_not_equal(load("mesh", "m1", "source = \"../cube.obj\""), 0);
    assert_int_not_equal(load("mesh", "m2", "source = \"/etc/passwd.obj\""), 0);
    assert_int_not_equal(load("mesh", "m3", "source = \"missing.obj\""), 0);
    assert_int_not_equal(load("mesh", "m4", "source = \"broken.obj\""), 0);
    assert_int_not_equal(load("mesh", "m5", "source = \"cube.fbx\""), 0);
    assert_int_not_equal(load("mesh", "m6", "source = \"cube.obj\" gltf_mesh = 0"), 0);
    assert_int_not_equal(load("mesh", "m7", "path = \"cube.obj\""), 0);
    /* Skinned meshes: a file without skins, a units without a skin, a bad units. */
    assert_int_equal(load("mesh", "s1", "source = \"gltf/box_glb/model.glb\" skin = 0"),
                     CT_ERR_BAD_DATA);
    assert_int_equal(load("mesh", "s2", "source = \"gltf/box_glb/model.glb\" units = 0.01"),
                     CT_ERR_BAD_DATA);
    assert_int_equal(load("mesh", "s3", "source = \"cube.obj\" skin = 0"), CT_ERR_BAD_DATA);
    assert_int_not_equal(load("mesh", "g1", "source = \"gltf/index_out_of_range/model.gltf\""), 0);
    assert_int_not_equal(load("mesh", "g2", "source = \"gltf/missing_bin/model.gltf\""), 0);
    assert_int_not_equal(load("mesh", "g3", "source = \"gltf/bad_array/model.gltf\""), 0);
    assert_int_not_equal(load("mesh", "g4", "source = \"gltf/box_glb/model.glb\" gltf_mesh = 7"),
                         0);
    assert_int_not_equal(load("mesh", "g7", "source = \"gltf/box_glb/BoxTextured.glb\""),
                         0); /* not canonical */
    assert_int_equal(load("mesh", "g5", "source = \"gltf/box_glb/model.glb\" gltf_mesh = 0"), 0);
    assert_int_equal(load("mesh", "g6", "source = \"gltf/engine/model.glb\""), 0);
    resource->unload("mesh", "g5");
    resource->unload("mesh", "g6");
    /* Components. */
    assert_int_not_equal(
        load("unit", "u1", "entities = [ { components = { camera = { near = 10 far = 1 } } } ]"),
        0);
    assert_int_not_equal(
        load("unit", "u2", "entities = [ { components = { light = { type = \"area\" } } } ]"), 0);
    /* Lights: a cone only for spots, within (1, 89) degrees; shadows only for point and spot lights. */
    assert_int_not_equal(
        load("unit", "l1",
             "entities = [ { components = { light = { type = \"point\" angle = 30 } } } ]"),
        0);
    assert_int_not_equal(
        load("unit", "l2",
             "entities = [ { components = { light = { type = \"spot\" angle = 95 } } } ]"),
        0);
    assert_int_not_equal(
        load("unit", "l3", "entities = [ { components = { light = { shadows = true } } } ]"), 0);
    assert_int_not_equal(
        load("unit", "l4",
             "entities = [ { components = { light = { type = \"spot\" shadows = 1 } } } ]"),
        0);
    assert_int_equal(load("unit", "l5",
                          "entities = [ { components = { light = { type = \"spot\" angle = 20 "
                          "shadows = true } } } ]"),
                     0);
    resource->unload("unit", "l5");
    /* Materials' normal maps: a scale needs a map; a map is an image. */
    assert_int_not_equal(load("material", "n1", "normal_scale = 2"), 0);
    assert_int_not_equal(load("material", "n2", "normal_texture = \"cube.obj\""), 0);
    assert_int_not_equal(load("material", "n3", "normal_texture = \"missing.png\""), 0);
    assert_int_not_equal(
        load("unit", "u3", "entities = [ { components = { mesh = { mesh = \"cube\" } } } ]"), 0);
    assert_int_not_equal(
        load("unit", "u4",
             "entities = [ { components = { mesh = { mesh = \"Cube\" material = \"x\" } } } ]"),
        0);
    assert_int_not_equal(
        load("unit", "u5", "entities = [ { components = { camera = { fov = 0 } } } ]"), 0);
    /* The API. */
    assert_int_equal(render->set_backend("vulkan"), CT_ERR_INVALID);
    assert_int_equal(render->screenshot("x.png"), CT_ERR_INVALID); /* no frame yet */
    assert_int_equal(render->capture("x.capture"), CT_ERR_INVALID);
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "empty"});
    assert_int_equal(render->render(w, (ct_entity_t){12345}), CT_ERR_NOT_FOUND);
    worlds->destroy_world(w);
    assert_int_equal(test_kernel_shutdown(), 0);
}

static const char pipeline_two[] =
    "layers = [ { name = \"opaque\" clear_color = [0 0 0 1] clear_depth = 1 } "
    "{ name = \"transparent\" sort = \"back_to_front\" } ]";
static const char pipeline_post[] =
    "targets = [ { name = \"scene\" } ] layers = [ "
    "{ name = \"opaque\" target = \"scene\" clear_color = [0 0 0 1] clear_depth = 1 } "
    "{ name = \"post\" fullscreen = { program = \"copy\" input = \"scene\" } } ]";

/* A frame as the engine runs it: the kernel's frame (where followed sources are reloaded), then
 * the render call a boot script would make. */
static void frame(ct_world_o *w, ct_entity_t camera)
{
    assert_int_equal(kernel__frame(0.0), 0);
    assert_int_equal(render->render(w, camera), 0);
}

static void test_pipeline_hot_reload(void **state)
{
    (void)state;
    boot(2);
    ct_entity_t camera;
    ct_world_o *w = scene(10, &camera, NULL);
    write_file("main.render_config", pipeline_two);
    assert_int_equal(load("render_config", "main", pipeline_two), 0);
    assert_int_equal(render->set_pipeline("main"), 0);
    resource->unload("render_config", "main"); /* set_pipeline holds its own load */
    frame(w, camera);
    assert_int_equal(render->stats().packets, 11 + 2);
    /* The source changes on disk: the next frame uses it (a layer begin and a full-screen pass,
     * and the transparent layer is gone). The mtime must move: wait past its resolution. */
    usleep(20000);
    write_file("main.render_config", pipeline_post);
    frame(w, camera);
    assert_int_equal(render->stats().packets, 11 + 3);
    /* A broken edit is reported and the running pipeline stays. */
    usleep(20000);
    write_file("main.render_config", "layers = [ { name = \"opaque\" target = \"nowhere\" } ]");
    frame(w, camera);
    assert_int_equal(render->stats().packets, 11 + 3);
    usleep(20000);
    write_file("main.render_config", "layers = [ {");
    frame(w, camera);
    assert_int_equal(render->stats().packets, 11 + 3);
    /* A source over 64 KiB (a long comment) is a source like any other. */
    usleep(20000);
    char *big = malloc(80 * 1024);
    assert_non_null(big);
    memset(big, ' ', 80 * 1024);
    memcpy(big, "// padding", 10);
    big[70 * 1024] = '\n';
    snprintf(big + 70 * 1024 + 1, 10 * 1024 - 1, "%s", pipeline_two);
    write_file("main.render_config", big);
    free(big);
    frame(w, camera);
    assert_int_equal(render->stats().packets, 11 + 2);
    release_scene(w);
    assert_int_equal(test_kernel_shutdown(), 0);
}

/* Issue 28, item 19: the followed render_config source replaced by a FIFO (nobody writes to it)
 * or by a link to /dev/zero (endless). Before, the frame opened and read it blocking and without
 * a limit: the FIFO hung the engine, /dev/zero grew its memory until allocation failed. Now the
 * kernel refuses both unread (not a regular file) and the running pipeline stays. Run in a child
 * process with an alarm (and, without ASan, an address-space cap) so the old behaviour fails
 * the test instead of hanging it or exhausting the machine. */
static void hostile_source(bool fifo)
{
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
#if !defined(__SANITIZE_ADDRESS__)
        const struct rlimit cap = {(rlim_t)4 << 30, (rlim_t)4 << 30};
        setrlimit(RLIMIT_AS, &cap);
#endif
        boot(1);
        ct_entity_t camera;
        ct_world_o *w = scene(10, &camera, NULL);
        write_file("main.render_config", pipeline_two);
        bool ok =
            load("render_config", "main", pipeline_two) == 0 && render->set_pipeline("main") == 0;
        resource->unload("render_config", "main");
        ok = ok && kernel__frame(0.0) == 0 && render->render(w, camera) == 0;
        struct rusage before, after;
        getrusage(RUSAGE_SELF, &before);
        char path[512];
        snprintf(path, sizeof path, "%s/main.render_config", project);
        unlink(path);
        ok = ok && (fifo ? mkfifo(path, 0600) : symlink("/dev/zero", path)) == 0;
        for (int k = 0; k < 3 && ok; k++)
            ok = kernel__frame(0.0) == 0 && render->render(w, camera) == 0 &&
                 render->stats().packets == 11 + 2;
        getrusage(RUSAGE_SELF, &after);
        unlink(path);
        const long grown_kb = after.ru_maxrss - before.ru_maxrss;
        if (grown_kb > 64 * 1024)
            fprintf(stderr, "the frame's peak memory grew by %ld KiB\n", grown_kb);
        _exit(ok && grown_kb <= 64 * 1024 ? 0 : 3);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("the frame did not come back: killed by signal %d (the alarm: it hung)",
                 WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_pipeline_source_fifo(void **state)
{
    (void)state;
    hostile_source(true);
}

static void test_pipeline_source_dev_zero(void **state)
{
    (void)state;
    hostile_source(false);
}

/* Issue 22: a material reloaded while instances use it (the console's `reload`, a source edit).
 * Its new version has a new slot and the old one is released; before, the instances kept the old
 * slot and vanished (or drew with whatever material took that slot next). */
static void test_material_reload_keeps_instances(void **state)
{
    (void)state;
    boot(2);
    ct_entity_t camera;
    ct_world_o *w = scene(10, &camera, NULL);
    frame(w, camera);
    const ct_render_stats_t before = render->stats();
    assert_int_equal(before.draws, 11);
    write_file("red.material", "program = \"unlit\" color = [0 0 1]");
    assert_int_equal(resource5->reload_source("material", "red"), 0);
    frame(w, camera);
    const ct_render_stats_t reloaded = render->stats();
    assert_int_equal(reloaded.packets, before.packets);
    assert_int_equal(reloaded.draws, before.draws);
    assert_int_not_equal(reloaded.command_hash, before.command_hash); /* the new colour */
    /* Another material loaded now may take the slot the old red left: red's instances must not
     * change (before, they drew with the newcomer's look). */
    assert_int_equal(load("material", "blue", "program = \"lit\" color = [0 0 1]"), 0);
    frame(w, camera);
    assert_int_equal(render->stats().command_hash, reloaded.command_hash);
    resource->unload("material", "blue");
    frame(w, camera);
    assert_int_equal(render->stats().command_hash, reloaded.command_hash);
    release_scene(w);
    assert_int_equal(test_kernel_shutdown(), 0);
}

/* Textures (issue 22): PNG and JPEG files and a glTF material's embedded PNG load; a missing,
 * corrupt, too large or not regular (FIFO) image is refused, the FIFO without waiting on it. */
static void test_textures(void **state)
{
    (void)state;
    boot(1);
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "ln -sf /usr/share/glmark2/textures/crate-base.png %s/crate.png && "
             "ln -sf " ASSIMP_MODELS "/IRRMesh/brownground_1-1.jpg %s/ground.jpg",
             project, project);
    assert_int_equal(system(cmd), 0);
    write_file("corrupt.png", "\x89PNG\r\n\x1a\nthis is not a PNG stream");
    /* A PNG whose header says 5000 x 5000: refused from the header, nothing decoded. */
    static const unsigned char huge[] = {0x89, 'P',  'N', 'G', '\r', '\n', 0x1a, '\n', 0,    0, 0,
                                         13,   'I',  'H', 'D', 'R',  0,    0,    0x13, 0x88, 0, 0,
                                         0x13, 0x88, 8,   6,   0,    0,    0,    0,    0,    0, 0};
    char path[512];
    snprintf(path, sizeof path, "%s/huge.png", project);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(huge, 1, sizeof huge, f), sizeof huge);
    fclose(f);
    snprintf(path, sizeof path, "%s/fifo.png", project);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(load("material", "t1", "texture = \"crate.png\""), 0);
    assert_int_equal(load("material", "t2", "texture = \"ground.jpg\" program = \"unlit\""), 0);
    assert_int_equal(load("material", "t3", "gltf = \"gltf/box_glb/model.glb\""), 0);
    assert_int_equal(load("material", "t4", "gltf = \"gltf/box_glb/model.glb\" color = [1 0 0 1]"),
                     0);
    assert_int_equal(load("material", "b1", "texture = \"missing.png\""), CT_ERR_BAD_DATA);
    assert_int_equal(load("material", "b2", "texture = \"corrupt.png\""), CT_ERR_BAD_DATA);
    assert_int_equal(load("material", "b3", "texture = \"huge.png\""), CT_ERR_BAD_DATA);
    assert_int_equal(load("material", "b4", "texture = \"fifo.png\""), CT_ERR_BAD_DATA);
    assert_int_equal(load("material", "b5", "texture = \"../crate.png\""), CT_ERR_BAD_DATA);
    assert_int_equal(load("material", "b6", "gltf = \"gltf/box_glb/model.glb\" gltf_material = 3"),
                     CT_ERR_BAD_DATA);
    assert_int_equal(
        load("material", "b7", "gltf = \"gltf/box_glb/model.glb\" texture = \"crate.png\""),
        CT_ERR_BAD_DATA);
    assert_int_equal(load("material", "b8", "gltf_material = 0"), CT_ERR_BAD_DATA);
    /* Normal maps: a file, or a glTF material's normalTexture (here a data URI holding a 4 x 4
     * PNG); corrupt ones are refused like base colour textures. */
    write_file(
        "normal.gltf",
        "{ \"asset\": { \"version\": \"2.0\" }, \"images\": [ { \"uri\": "
        "\"data:image/"
        "png;base64,iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAFElEQVR4XmO81XCLAQaYGJAAbg4A"
        "bywCPAWNlVMAAAAASUVORK5CYII=\" } ], \"textures\": [ { \"source\": 0 } ], \"materials\": [ "
        "{ "
        "\"normalTexture\": { \"index\": 0, \"scale\": 0.5 } } ] }");
    write_file(
        "bad_normal.gltf",
        "{ \"asset\": { \"version\": \"2.0\" }, \"images\": [ { \"uri\": "
        "\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAA=\" } ], \"textures\": [ { "
        "\"source\": 0 } ], \"materials\": [ { \"normalTexture\": { \"index\": 0 } } ] }");
    assert_int_equal(load("material", "t5", "normal_texture = \"crate.png\" normal_scale = 0.5"),
                     0);
    assert_int_equal(load("material", "t6", "gltf = \"normal.gltf\""), 0);
    assert_int_equal(load("material", "b9", "normal_texture = \"corrupt.png\""), CT_ERR_BAD_DATA);
    assert_int_equal(load("material", "b10", "gltf = \"bad_normal.gltf\""), CT_ERR_BAD_DATA);
    assert_int_equal(
        load("material", "b11", "gltf = \"normal.gltf\" normal_texture = \"crate.png\""),
        CT_ERR_BAD_DATA);
    unlink(path);
    const char *const good[] = {"t1", "t2", "t3", "t4", "t5", "t6"};
    for (int k = 0; k < 6; k++) {
        assert_non_null(resource->get("material", good[k]));
        resource->unload("material", good[k]);
    }
    assert_int_equal(test_kernel_shutdown(), 0);
}

/* Debug drawing (ct_render_api_v2): what is asked for before a render is drawn by it as one
 * batch of lines and one of text, then forgotten; bad input is ignored; Lua checks arguments. */
static void test_debug_drawing(void **state)
{
    (void)state;
    boot(1);
    const ct_render_api_v2 *r2 = test_kernel_api(CT_RENDER_API, 2);
    assert_non_null(r2);
    ct_entity_t camera;
    ct_world_o *w = scene(3, &camera, NULL);
    assert_int_equal(render->render(w, camera), 0);
    const ct_render_stats_t plain = render->stats();
    const float a[3] = {0, 0, 0}, b[3] = {1, 1, 1}, nan3[3] = {NAN, 0, 0}, red[4] = {1, 0, 0, 1};
    r2->debug_line(a, b, red);
    r2->debug_line(nan3, b, red); /* ignored */
    r2->debug_box(a, b, NULL, NULL);
    r2->debug_sphere(b, 0.5f, red);
    r2->debug_arrow(a, b, red);
    r2->debug_text(10, 10, NULL, "frame 1\nlabel");
    assert_int_equal(r2->debug_physics(w, NULL), 0); /* ct.physics is not loaded: nothing */
    assert_int_equal(r2->debug_physics(NULL, red), 0);
    assert_int_equal(render->render(w, camera), 0);
    const ct_render_stats_t with = render->stats();
    assert_int_equal(with.packets, plain.packets + 2);
    assert_int_equal(with.invalid, 0);
    assert_int_equal(render->render(w, camera), 0);
    assert_int_equal(render->stats().packets, plain.packets); /* forgotten after one frame */
    assert_int_equal(
        lua->run_string("Render.debug_line(0, 0, 0, 1, 1, 1) Render.debug_text(1, 2, 'x', 0, 1, 0)",
                        "=debug"),
        0);
    assert_int_not_equal(lua->run_string("Render.debug_line(0, 0, 0, 1, 1)", "=debug"), 0);
    assert_int_not_equal(lua->run_string("Render.debug_sphere(0, 0, 0, -1)", "=debug"), 0);
    assert_int_not_equal(lua->run_string("Render.debug_box(0, 0, 0, 1, 1, 1, 2)", "=debug"), 0);
    assert_int_equal(render->render(w, camera), 0);
    assert_int_equal(render->stats().packets, plain.packets + 2);
    release_scene(w);
    assert_int_equal(test_kernel_shutdown(), 0);
}

/* Sets a pipeline of a sun's shadow map of `size` then an opaque layer; `resolution` is "" (the
 * default) or a `resolution = [W H] ` field. */
static void use_shadowed_pipeline(const char *resolution, int size)
{
    char source[256];
    snprintf(source, sizeof source,
             "%slayers = [ { name = \"shadow\" shadow = { size = %d extent = 8 } } "
             "{ name = \"opaque\" clear_depth = 1 } ]",
             resolution, size);
    assert_int_equal(load("render_config", "shadowed", source), 0);
    assert_int_equal(render->set_pipeline("shadowed"), 0);
    resource->unload("render_config", "shadowed");
}

/* Captures the last frame and reads `size` bytes at `offset` of the capture file into out. A
 * capture starts with 8 bytes of header, then the pipeline, 64 bytes of view, then the lights. */
static void read_capture(long offset, void *out, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/last.capture", project);
    assert_int_equal(render->capture(path), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    assert_int_equal(fread(out, size, 1, f), 1);
    fclose(f);
}

/* Where a capture holds the frame's lights. */
#define CAPTURE_LIGHTS (8 + (long)sizeof(render__pipeline) + 64)

/* The sun's shadow matrix of the last frame, read back from a capture (its lights, v[12..15]). */
static void shadow_matrix(float out[16])
{
    render__frame_lights lights;
    read_capture(CAPTURE_LIGHTS, &lights, sizeof lights);
    memcpy(out, lights.v[12], 16 * sizeof(float));
}

/* Shadows stay put as the camera moves: the map's box moves in whole texels only, so a move of a
 * fraction of a texel leaves the matrix as it was, and a move of many texels shifts it by a whole
 * number of texels (2 / size in clip units). */
static void test_shadow_is_stable(void **state)
{
    (void)state;
    boot(1);
    ct_entity_t camera;
    ct_world_o *w = scene(3, &camera, NULL);
    use_shadowed_pipeline("", 1024);
    const ct_transform_api_v2 *tr = test_kernel_api(CT_TRANSFORM_API, 2);
    assert_non_null(tr);
    float base[16], nudged[16], moved[16], p[3];
    assert_true(tr->world_position(w, camera, p));
    assert_int_equal(render->render(w, camera), 0);
    shadow_matrix(base);
    assert_true(base[15] == 1.0f); /* a shadow map this frame */
    const float texel = 8.0f / 1024.0f;
    /* Up from a texel's middle: the view point (half the extent in front) stays within it. */
    tr->set_world_position(w, camera, (float[3]){p[0] + 0.1f * texel, p[1], p[2]});
    assert_int_equal(render->render(w, camera), 0);
    shadow_matrix(nudged);
    tr->set_world_position(w, camera, (float[3]){p[0] + 37.3f * texel, p[1], p[2]});
    assert_int_equal(render->render(w, camera), 0);
    shadow_matrix(moved);
    for (int k = 0; k < 12; k++)
        assert_true(moved[k] == base[k]); /* the light's axes never change */
    for (int k = 12; k < 14; k++) {
        const double shift = (moved[k] - base[k]) / (2.0 / 1024.0);
        assert_true(fabs(shift - round(shift)) < 1e-2); /* whole texels */
    }
    assert_true(fabs(moved[12] - base[12]) + fabs(moved[13] - base[13]) > 0);
    int same = 0;
    for (int k = 0; k < 16; k++)
        same += nudged[k] == base[k];
    assert_true(same >= 15); /* a tenth of a texel: at most the depth offset may move */
    release_scene(w);
    assert_int_equal(test_kernel_shutdown(), 0);
}

static void test_lua(void **state)
{
    (void)state;
    boot(1);
    ct_entity_t camera;
    ct_world_o *w = scene(2, &camera, NULL);
    lua->push_light_userdata(lua->main_state(), w);
    lua->run_string("", "=(reset)");
    char code[2048];
    snprintf(code, sizeof code,
             "local w = ...\n"
             "local k = Render.decode_key('032fa2fbbc003039')\n"
             "assert(k.layer == 3 and k.pass == 2 and k.program == 1000 and k.material == 0xbeef "
             "and k.depth == 12345)\n"
             "assert(not pcall(Render.decode_key, 'xyz'))\n"
             "assert(not pcall(Render.decode_key, '12345678901234567'))\n"
             "assert(not pcall(Render.decode_key, '-1'))\n"
             "assert(not pcall(Render.decode_key, '0x12'))\n"
             "assert(Render.decode_key('FF00000000000000').layer == 255)\n"
             "assert(Render.backend() == 'null')\n"
             "assert(not pcall(Render.set_backend, 'vulkan'))\n"
             "local ok, err = pcall(Render.set_backend, 'nul')\n"
             "assert(not ok and err:find('Render.set_backend: argument 1 is \"nul\", not one of "
             "null, gl %%(did you mean \"null\"%%?%%)'), err)\n"
             "assert(not pcall(Render.screenshot, '../outside.png'))\n"
             "assert(not pcall(Render.screenshot, '/tmp/abs.png'))\n"
             "assert(not pcall(Render.render, nil, 1))\n"
             "assert(not pcall(Render.render, w, -1))\n"
             "assert(not pcall(Render.render, w, 99999))\n"
             "assert(not pcall(Render.look_at, w, 99999, 0, 0, 0))\n"
             "assert(not pcall(Render.look_at, w, %u, 0, 0, 0/0))\n"
             "assert(not pcall(Render.set_pipeline, 'no/such/config'))\n"
             "Render.render(w, %u)\n"
             "local s = Render.stats()\n"
             "assert(s.frame == 1 and s.draws == 3 and s.objects == 4 and #s.hash == 16)\n"
             "assert(not pcall(Render.screenshot, 'null_has_no_pixels.png'))\n",
             camera.id, camera.id);
    /* Run as a function taking the world, so the test does not need globals. */
    char wrapped[2300];
    snprintf(wrapped, sizeof wrapped, "function render_lua_test(...)\n%s\nend", code);
    assert_int_equal(lua->run_string(wrapped, "=render_lua_test"), 0);
    lua->push_light_userdata(lua->main_state(), w);
    assert_int_equal(lua->call_global("render_lua_test", 1), 0);
    release_scene(w);
    assert_int_equal(test_kernel_shutdown(), 0);
}

static void test_gl_screenshot(void **state)
{
    (void)state;
    boot(2);
    ct_entity_t camera;
    ct_world_o *w = scene(5, &camera, NULL);
    assert_int_equal(render->set_backend("gl"), 0);
    assert_string_equal(render->backend(), "gl");
    assert_int_equal(render->render(w, camera), 0);
    char path[300];
    snprintf(path, sizeof path, "%s/shot.png", project);
    assert_int_equal(render->screenshot(path), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 100);
    snprintf(path, sizeof path, "%s/no/such/folder/shot.png", project);
    assert_int_equal(render->screenshot(path), CT_ERR_IO);
    release_scene(w);
    assert_int_equal(test_kernel_shutdown(), 0);
}

/* The shadow map's size in the last frame, read back from a capture (its pipeline). */
static uint32_t capture_shadow_size(void)
{
    render__pipeline p;
    read_capture(8, &p, sizeof p);
    return p.shadow_size;
}

typedef struct execute_job {
    const ct_render_api_v3 *v3;
    uint8_t *rgba;
    size_t capacity;
    uint32_t width, height;
    int result;
} execute_job;

static void *execute_on_thread(void *arg)
{
    execute_job *j = arg;
    j->result = j->v3->execute(j->rgba, j->capacity, &j->width, &j->height);
    return NULL;
}

static int execute_elsewhere(execute_job *j)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, execute_on_thread, j), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    return j->result;
}

/* ct.render v3: a frame prepared here and executed on another thread is the frame render()
 * draws, pixel for pixel; the main thread keeps the context afterwards (a screenshot, a mesh
 * loaded); execute with nothing prepared or a short buffer is refused; the shadow map is capped
 * and uncapped. */
static void test_frame_on_a_thread(void **state)
{
    (void)state;
    boot(2);
    const ct_render_api_v3 *v3 = test_kernel_api(CT_RENDER_API, 3);
    const ct_render_frame_api_v1 *frame = test_kernel_api(CT_RENDER_FRAME_API, 1);
    assert_non_null(v3);
    assert_non_null(frame);
    ct_entity_t camera;
    ct_world_o *w = scene(5, &camera, NULL);
    use_shadowed_pipeline("resolution = [160 90] ", 1024);
    assert_int_equal(render->set_backend("gl"), 0);
    assert_int_equal(v3->execute(NULL, 0, NULL, NULL), CT_ERR_INVALID); /* nothing prepared */

    enum { W = 160, H = 90, SIZE = W * H * 4 };
    static uint8_t drawn[SIZE], threaded[SIZE];
    uint32_t width = 0, height = 0;
    assert_int_equal(render->render(w, camera), 0);
    assert_int_equal(frame->read(drawn, SIZE, &width, &height), 0);
    assert_int_equal(capture_shadow_size(), 1024);
    const uint64_t hash = render->stats().command_hash;

    assert_int_equal(v3->prepare(w, camera), 0);
    assert_int_equal(render->stats().command_hash, hash); /* stats describe the prepared frame */
    execute_job job = {.v3 = v3, .rgba = threaded, .capacity = SIZE};
    assert_int_equal(execute_elsewhere(&job), 0);
    assert_int_equal(job.width, W);
    assert_int_equal(job.height, H);
    assert_memory_equal(threaded, drawn, SIZE);
    assert_int_equal(v3->execute(NULL, 0, NULL, NULL), CT_ERR_INVALID); /* executed once */

    /* The context is back on this thread for what needs it. */
    char path[300];
    snprintf(path, sizeof path, "%s/threaded.png", project);
    assert_int_equal(render->screenshot(path), 0);
    assert_int_equal(load("mesh", "cube2", "source = \"cube.obj\""), 0);
    resource->unload("mesh", "cube2");
    memset(threaded, 0, SIZE);
    assert_int_equal(frame->read(threaded, SIZE, &width, &height), 0);
    assert_memory_equal(threaded, drawn, SIZE);

    /* A short buffer: the frame is drawn, the size it needs said, nothing copied. */
    assert_int_equal(v3->prepare(w, camera), 0);
    job = (execute_job){.v3 = v3, .rgba = threaded, .capacity = 16};
    assert_int_equal(execute_elsewhere(&job), CT_ERR_INVALID);
    assert_int_equal(job.width, W);
    assert_int_equal(job.height, H);

    /* The cap: the map drawn smaller, clamped to 64..4096, and back. */
    v3->set_max_shadow_size(256);
    assert_int_equal(render->render(w, camera), 0);
    assert_int_equal(capture_shadow_size(), 256);
    assert_int_equal(frame->read(threaded, SIZE, &width, &height), 0);
    v3->set_max_shadow_size(3);
    assert_int_equal(render->render(w, camera), 0);
    assert_int_equal(capture_shadow_size(), 64);
    v3->set_max_shadow_size(100000); /* above the pipeline's own: its own */
    assert_int_equal(render->render(w, camera), 0);
    assert_int_equal(capture_shadow_size(), 1024);
    v3->set_max_shadow_size(0);
    assert_int_equal(render->render(w, camera), 0);
    assert_int_equal(capture_shadow_size(), 1024);
    assert_int_equal(frame->read(threaded, SIZE, &width, &height), 0);
    assert_memory_equal(threaded, drawn, SIZE);
    release_scene(w);
    assert_int_equal(test_kernel_shutdown(), 0);
}

/* The point and spot lights' count of the last frame, read back from a capture. */
static float capture_local_lights(void)
{
    render__frame_lights lights;
    read_capture(CAPTURE_LIGHTS, &lights, sizeof lights);
    return lights.v[1][3];
}

/* A frame without point or spot lights draws the lean lit program (no lights' loop): the same
 * pixels, exactly, as the full program with a point light that reaches nothing. Fails if the lean
 * variant drops anything else, or is not used (then nothing differs: see the frame with the light
 * in reach, which must differ). */
static void test_lean_lit_same_pixels(void **state)
{
    (void)state;
    boot(2);
    const ct_render_frame_api_v1 *frame = test_kernel_api(CT_RENDER_FRAME_API, 1);
    ct_entity_t camera;
    ct_world_o *w = scene(5, &camera, NULL);
    use_shadowed_pipeline("resolution = [160 90] ", 512);
    assert_int_equal(render->set_backend("gl"), 0);
    enum { SIZE = 160 * 90 * 4 };
    static uint8_t lean[SIZE], full[SIZE], lit[SIZE];
    uint32_t width, height;
    assert_int_equal(render->render(w, camera), 0);
    assert_true(capture_local_lights() == 0.0f);
    assert_int_equal(frame->read(lean, SIZE, &width, &height), 0);
    assert_int_equal(load("unit", "far_lamp",
                          "entities = [ { components = { transform = {} light = { type = "
                          "\"point\" color = [1 1 1] intensity = 4 range = 0.5 } } } ]"),
                     0);
    const ct_entity_t lamp = worlds->spawn_unit(w, "far_lamp", (float[3]){0, 40, -40}, NULL);
    assert_int_equal(render->render(w, camera), 0);
    assert_true(capture_local_lights() == 1.0f);
    assert_int_equal(frame->read(full, SIZE, &width, &height), 0);
    assert_memory_equal(lean, full, SIZE);
    /* The same lamp beside the lit cube (at 0 1 0): now the loop adds light. */
    entity->destroy(lamp);
    const ct_entity_t near = worlds->spawn_unit(w, "far_lamp", (float[3]){0, 1, 0.9f}, NULL);
    assert_int_equal(render->render(w, camera), 0);
    assert_int_equal(frame->read(lit, SIZE, &width, &height), 0);
    assert_memory_not_equal(lean, lit, SIZE);
    entity->destroy(near);
    resource->unload("unit", "far_lamp");
    release_scene(w);
    assert_int_equal(test_kernel_shutdown(), 0);
}

/* ---- two cameras in one frame (the demo's close-ups of the ragdoll) ---- */

/* Points entity e of world w at (x, y, z), as a boot script does with Render.look_at. */
static void look_at(ct_world_o *w, ct_entity_t e, float x, float y, float z)
{
    char code[256];
    snprintf(code, sizeof code, "function test_look_at(w) Render.look_at(w, %u, %g, %g, %g) end",
             e.id, (double)x, (double)y, (double)z);
    assert_int_equal(lua->run_string(code, "=look_at"), 0);
    lua->push_light_userdata(lua->main_state(), w);
    assert_int_equal(lua->call_global("test_look_at", 1), 0);
}

enum { VIEW_W = 160, VIEW_H = 90, VIEW_SIZE = VIEW_W * VIEW_H * 4 };

/* The demo's pipeline in small: the sun's shadow map, a sky-coloured clear into a target of its
 * own, and a full-screen pass copying it to the backbuffer. */
static const char pipeline_sky[] =
    "resolution = [160 90] ambient = [0.1 0.1 0.1] targets = [ { name = \"scene\" } ] layers = [ "
    "{ name = \"shadow\" shadow = { size = 1024 extent = 12 } } "
    "{ name = \"opaque\" target = \"scene\" clear_color = [0.55 0.68 0.82 1] clear_depth = 1 } "
    "{ name = \"transparent\" target = \"scene\" sort = \"back_to_front\" } "
    "{ name = \"post\" fullscreen = { program = \"copy\" input = \"scene\" } } ]";

typedef struct two_views {
    ct_world_o *w;
    ct_entity_t front, side; /* the cameras: the main one and the close-up */
} two_views;

/* A floor, a lit box above it, a sun high on +X (the box's shadow falls on the floor towards
 * -X), a camera in front and a second one at the side, as the demo's two cameras. */
static two_views two_views_scene(void)
{
    assert_int_equal(load("mesh", "cube", "source = \"cube.obj\""), 0);
    assert_int_equal(
        load("material", "grey", "program = \"lit\" color = [0.6 0.6 0.6 1] specular = 0"), 0);
    assert_int_equal(load("unit", "floor",
                          "entities = [ { components = { transform = { scale = [12 0.2 12] } "
                          "mesh = { mesh = \"cube\" material = \"grey\" } } } ]"),
                     0);
    assert_int_equal(load("unit", "box",
                          "entities = [ { components = { transform = {} "
                          "mesh = { mesh = \"cube\" material = \"grey\" } } } ]"),
                     0);
    load_camera_and_sun();
    assert_int_equal(load("render_config", "sky", pipeline_sky), 0);
    assert_int_equal(render->set_pipeline("sky"), 0);
    two_views v = {.w = worlds->create_world(&(ct_world_desc_t){.name = "two views"})};
    assert_non_null(v.w);
    worlds->spawn_unit(v.w, "floor", (float[3]){0, -0.1f, 0}, NULL);
    worlds->spawn_unit(v.w, "box", (float[3]){0, 1, 0}, NULL);
    const ct_entity_t sun = worlds->spawn_unit(v.w, "sun", (float[3]){4, 8, 0}, NULL);
    look_at(v.w, sun, 0, 0, 0);
    v.front = worlds->spawn_unit(v.w, "camera", (float[3]){0, 4, 8}, NULL);
    look_at(v.w, v.front, 0, 0.5f, 0);
    v.side = worlds->spawn_unit(v.w, "camera", (float[3]){-3.5f, 2.2f, 1.5f}, NULL);
    look_at(v.w, v.side, -0.5f, 0.3f, 0);
    return v;
}

static void two_views_release(two_views *v)
{
    worlds->destroy_world(v->w);
    const char *units[] = {"floor", "box", "camera", "sun"};
    for (int k = 0; k < 4; k++)
        resource->unload("unit", units[k]);
    resource->unload("render_config", "sky");
    resource->unload("material", "grey");
    resource->unload("mesh", "cube");
}

/* In the side camera's picture: the floor in the box's shadow, and in the sun. */
enum { SHADOW_X = 80, SHADOW_Y = 50, LIT_X = 80, LIT_Y = 75 };

static const uint8_t *pixel(const uint8_t *rgba, int x, int y)
{
    return rgba + 4 * ((size_t)y * VIEW_W + (size_t)x);
}

/* What the side camera must show wherever it is drawn: the sky's colour above the floor, and the
 * box's shadow on the floor darker than the floor in the sun. */
static void assert_side_view(const uint8_t *rgba)
{
    const uint8_t sky[3] = {140, 173, 209}; /* 0.55 0.68 0.82 */
    for (int x = 10; x < VIEW_W; x += 70)
        for (int k = 0; k < 3; k++)
            assert_in_range(pixel(rgba, x, 1)[k], sky[k] - 1, sky[k] + 1);
    const uint8_t *shadowed = pixel(rgba, SHADOW_X, SHADOW_Y), *lit = pixel(rgba, LIT_X, LIT_Y);
    const int dark = shadowed[0] + shadowed[1] + shadowed[2], bright = lit[0] + lit[1] + lit[2];
    assert_true(bright > 150);
    assert_true(2 * dark < bright);
}

/* The bytes of a file (at most `cap`), their count into *size. */
static void read_bytes(const char *path, uint8_t *out, size_t cap, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    *size = fread(out, 1, cap, f);
    fclose(f);
    assert_true(*size > 100 && *size < cap);
}

/* The demo's frames of close-ups: the main camera rendered (with debug text), then the second
 * camera rendered into the same frame and its screenshot taken. Each camera's pixels must be
 * those it gives rendered alone in a frame, whatever was drawn before it in the frame: through
 * render(), render() then a screenshot, and prepare/execute (here and on another thread). */
static void test_two_views_in_one_frame(void **state)
{
    (void)state;
    boot(2);
    const ct_render_api_v3 *v3 = test_kernel_api(CT_RENDER_API, 3);
    const ct_render_frame_api_v1 *frame = test_kernel_api(CT_RENDER_FRAME_API, 1);
    two_views v = two_views_scene();
    assert_int_equal(render->set_backend("gl"), 0);
    static uint8_t side_alone[VIEW_SIZE], front_alone[VIEW_SIZE], first[VIEW_SIZE],
        second[VIEW_SIZE];
    const float white[4] = {1, 1, 1, 1};
    uint32_t width, height;

    /* Each camera alone in a frame: the side one first (nothing drawn before it at all). */
    assert_int_equal(kernel__frame(0.0), 0);
    assert_int_equal(v3->render(v.w, v.side), 0);
    assert_int_equal(frame->read(side_alone, VIEW_SIZE, &width, &height), 0);
    assert_int_equal(width, VIEW_W);
    assert_int_equal(height, VIEW_H);
    assert_side_view(side_alone);
    assert_int_equal(kernel__frame(0.0), 0);
    v3->debug_text(4, 4, white, "frame");
    assert_int_equal(v3->render(v.w, v.front), 0);
    assert_int_equal(frame->read(front_alone, VIEW_SIZE, &width, &height), 0);
    assert_memory_not_equal(front_alone, side_alone, VIEW_SIZE);

    /* Both in one frame, the main camera first (the debug text is drawn once, into it). */
    for (int round = 0; round < 2; round++) {
        assert_int_equal(kernel__frame(0.0), 0);
        v3->debug_text(4, 4, white, "frame");
        assert_int_equal(v3->render(v.w, v.front), 0);
        assert_int_equal(frame->read(first, VIEW_SIZE, &width, &height), 0);
        assert_int_equal(v3->render(v.w, v.side), 0);
        assert_int_equal(frame->read(second, VIEW_SIZE, &width, &height), 0);
        assert_memory_equal(first, front_alone, VIEW_SIZE);
        assert_side_view(second);
        assert_memory_equal(second, side_alone, VIEW_SIZE);
    }

    /* A screenshot after the two renders is the second camera's, byte for byte. */
    char alone_png[300], pair_png[300];
    snprintf(alone_png, sizeof alone_png, "%s/side_alone.png", project);
    snprintf(pair_png, sizeof pair_png, "%s/side_pair.png", project);
    assert_int_equal(kernel__frame(0.0), 0);
    assert_int_equal(v3->render(v.w, v.side), 0);
    assert_int_equal(v3->screenshot(alone_png), 0);
    assert_int_equal(kernel__frame(0.0), 0);
    v3->debug_text(4, 4, white, "frame");
    assert_int_equal(v3->render(v.w, v.front), 0);
    assert_int_equal(v3->render(v.w, v.side), 0);
    assert_int_equal(v3->screenshot(pair_png), 0);
    static uint8_t alone_file[1 << 17], pair_file[1 << 17];
    size_t alone_size, pair_size;
    read_bytes(alone_png, alone_file, sizeof alone_file, &alone_size);
    read_bytes(pair_png, pair_file, sizeof pair_file, &pair_size);
    assert_int_equal(pair_size, alone_size);
    assert_memory_equal(pair_file, alone_file, alone_size);

    /* prepare / execute twice in a frame: on this thread, then each execute on another. */
    assert_int_equal(kernel__frame(0.0), 0);
    v3->debug_text(4, 4, white, "frame");
    assert_int_equal(v3->prepare(v.w, v.front), 0);
    assert_int_equal(v3->execute(first, VIEW_SIZE, &width, &height), 0);
    assert_int_equal(v3->prepare(v.w, v.side), 0);
    assert_int_equal(v3->execute(second, VIEW_SIZE, &width, &height), 0);
    assert_memory_equal(first, front_alone, VIEW_SIZE);
    assert_memory_equal(second, side_alone, VIEW_SIZE);
    assert_int_equal(kernel__frame(0.0), 0);
    v3->debug_text(4, 4, white, "frame");
    assert_int_equal(v3->prepare(v.w, v.front), 0);
    execute_job job = {.v3 = v3, .rgba = first, .capacity = VIEW_SIZE};
    assert_int_equal(execute_elsewhere(&job), 0);
    assert_int_equal(v3->prepare(v.w, v.side), 0);
    job = (execute_job){.v3 = v3, .rgba = second, .capacity = VIEW_SIZE};
    assert_int_equal(execute_elsewhere(&job), 0);
    assert_memory_equal(first, front_alone, VIEW_SIZE);
    assert_memory_equal(second, side_alone, VIEW_SIZE);
    assert_side_view(second);
    two_views_release(&v);
    assert_int_equal(test_kernel_shutdown(), 0);
}

/* Puts a build at `path` the way a compiler would: a new file renamed into place. */
static void install(const char *built, const char *path)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s.part' && mv '%s.part' '%s'", built, path, path, path);
    assert_int_equal(system(cmd), 0);
}

/* A hot reload keeps the meshes, materials, pipeline and frame count: the next frame is the same
 * bytes; a build with another state layout is refused and the old code keeps drawing. */
static void test_hot_reload(void **state)
{
    (void)state;
    char copy[300];
    snprintf(copy, sizeof copy, "%s/ct_rendering.so", project);
    install(CT_TEST_MODULE("rendering", "ct_rendering"), copy);
    rendering_path = copy;
    boot(2);
    ct_entity_t camera;
    ct_world_o *w = scene(1500, &camera, NULL);
    assert_int_equal(render->render(w, camera), 0);
    const ct_render_stats_t before = render->stats();
    install(CT_TEST_MODULE("rendering", "ct_rendering"), copy);
    assert_int_equal(loader__reload("ct.rendering"), 0);
    assert_int_equal(render->render(w, camera), 0);
    ct_render_stats_t after = render->stats();
    assert_int_equal(after.frame, before.frame + 1);
    assert_int_equal(after.draws, before.draws);
    assert_int_equal(after.command_hash, before.command_hash);
    assert_int_equal(lua->run_string("assert(Render.stats().frame == 2)", "=reloaded"), 0);
    install(RENDER_LAYOUT2, copy);
    assert_int_not_equal(loader__reload("ct.rendering"), 0);
    assert_int_equal(render->render(w, camera), 0);
    after = render->stats();
    assert_int_equal(after.frame, before.frame + 2);
    assert_int_equal(after.command_hash, before.command_hash);
    release_scene(w);
    assert_int_equal(test_kernel_shutdown(), 0);
    rendering_path = CT_TEST_MODULE("rendering", "ct_rendering");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_counts_and_hashes),
        cmocka_unit_test(test_bad_data_is_refused),
        cmocka_unit_test(test_pipeline_hot_reload),
        cmocka_unit_test(test_pipeline_source_fifo),
        cmocka_unit_test(test_pipeline_source_dev_zero),
        cmocka_unit_test(test_material_reload_keeps_instances),
        cmocka_unit_test(test_textures),
        cmocka_unit_test(test_debug_drawing),
        cmocka_unit_test(test_shadow_is_stable),
        cmocka_unit_test(test_lua),
        cmocka_unit_test(test_gl_screenshot),
        cmocka_unit_test(test_frame_on_a_thread),
        cmocka_unit_test(test_lean_lit_same_pixels),
        cmocka_unit_test(test_two_views_in_one_frame),
        cmocka_unit_test(test_hot_reload),
    };
    return cmocka_run_group_tests(tests, make_project, remove_project);
}
