/*
 * The level in the engine: a world of the editor's own, spawned from the document's level text
 * (the same compilers as a game, through load_source), an orbiting camera, a light, frames drawn
 * after every change and published as PNG, picking, and play.
 *
 * Which entity is which object: the entities compiler lays entities out breadth first (roots in
 * order, then each entity's children, a `repeat` emitting its copies in a row), so walking the
 * document the same way (siblings by "@order", then GUID, as write_level writes them) gives each
 * spawned entity its object and copy number. A transform edit then moves those entities directly
 * (no respawn: this is the path a drag takes); any other edit spawns the level again.
 */
#include "editor/editor_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "ct_array.h"
#include "ct_file.h"
#include "ct_heap.h"
#include "ct_physics.h"
#include "ct_render.h"
#include "ct_render_frame.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "datamodel/datamodel.h"
#include "plugins/registry.h"
#include "resources/resources.h"

#define MAX_ENTITIES (1u << 20)

typedef struct slot_t {
    ct_guid_t object;
    uint32_t copy; /* repeat copy k */
} slot_t;

static struct {
    const ct_world_api_v2 *world_api;
    const ct_entity_api_v2 *entity_api;
    const ct_transform_api_v3 *transform_api;
    const ct_render_api_v1 *render_api;
    const ct_render_api_v3 *render3; /* prepare / execute: frames on a thread (editor_render.c) */
    const ct_render_frame_api_v1 *frame_api; /* pixels without a file (NULL: PNG only) */
    uint8_t *pixels;                         /* the last frame, rgba rows from the top */
    size_t pixels_capacity;
    bool png_current; /* png_path holds the last frame */
    const ct_physics_api_v3 *physics_api;
    const ct_resource_api_v1 *res;
    ct_world_o *world;
    ct_entity_t *entities; /* spawned from the level, in resource order */
    slot_t *slots;         /* the object of each */
    uint32_t num_entities, capacity;
    ct_entity_t camera, light;
    uint32_t level_generation; /* alternates the in-memory level's name */
    bool level_loaded;
    /* The orbit camera. */
    double target[3], yaw, pitch, distance, fov;
    bool dirty, playing;
    uint64_t play_clock; /* uv_hrtime of the last step */
    double play_left;    /* seconds of wall time not yet simulated */
    uint64_t frames;
    uint64_t frames_here; /* the last frame drawn on this thread (the rest: editor_render.c) */
    uint64_t prepared_ops, frame_ops; /* editor_session__ops_seq at the frame's prepare */
    uint32_t width, height;
    char png_path[256];
} g_w;

ct_world_o *editor_world__world(void) { return g_w.world; }
uint64_t editor_world__frames(void) { return g_w.frames; }
bool editor_world__playing(void) { return g_w.playing; }
void editor_world__dirty(void) { g_w.dirty = true; }
bool editor_world__is_dirty(void) { return g_w.dirty; }
uint32_t editor_world__entity_count(void) { return g_w.num_entities; }

static const char *level_name(uint32_t generation)
{
    return generation & 1 ? "editor/level_b" : "editor/level_a";
}

int editor_world__start(void)
{
    memset(&g_w, 0, sizeof g_w);
    g_w.world_api = registry__get_engine_api(CT_WORLD_API, 2);
    g_w.entity_api = registry__get_engine_api(CT_ENTITY_API, 2);
    g_w.transform_api = registry__get_engine_api(CT_TRANSFORM_API, 3);
    g_w.render_api = registry__get_engine_api(CT_RENDER_API, 1);
    g_w.frame_api = registry__get_engine_api(CT_RENDER_FRAME_API, 1);
    g_w.render3 = registry__get_engine_api(CT_RENDER_API, 3);
    /* The viewport's frame, drawn after every edit, with the sun's shadow map at most
     * EDITOR_SHADOW_SIZE texels (the game keeps its render_config's): see editor.h. */
    if (g_w.render3)
        g_w.render3->set_max_shadow_size(EDITOR_SHADOW_SIZE);
    g_w.physics_api = registry__get_engine_api(CT_PHYSICS_API, 3);
    g_w.res = resources__api_v1();
    if (!g_w.world_api || !g_w.entity_api || !g_w.transform_api) {
        log__error("editor: the project must load ct.entities and ct.transforms (ct.world v2, "
                   "ct.entity v2, ct.transform v3) to edit a level");
        return CT_ERR_NOT_FOUND;
    }
    if (!g_w.render_api)
        log__warning("editor: no ct.render in this project: the viewport stays empty");
    g_w.world = g_w.world_api->create_world(&(ct_world_desc_t){.name = "editor"});
    if (!g_w.world)
        return CT_ERR_NOMEM;
    g_w.yaw = 0.6;
    g_w.pitch = 0.45;
    g_w.distance = 14;
    g_w.target[1] = 1;
    g_w.fov = 50;
    g_w.dirty = true;
    snprintf(g_w.png_path, sizeof g_w.png_path, "%s/cuttle-editor-%d.png",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    /* The editor's own camera and light, as units compiled from text like any level. */
    static const char camera_unit[] =
        "entities = [ { name = \"editor camera\" components = { transform = {} "
        "camera = { fov = 50 near = 0.1 far = 2000 } } } ]";
    static const char light_unit[] =
        "entities = [ { name = \"editor light\" components = { transform = { rotation = "
        "[-0.3535534 0.3535534 0.1464466 0.8535534] } light = { type = \"directional\" "
        "color = [1 1 1] intensity = 1 } } } ]";
    if (g_w.render_api) {
        if (!g_w.res->load_source("unit", "editor/camera", camera_unit, sizeof camera_unit - 1))
            g_w.camera = g_w.world_api->spawn_unit(g_w.world, "editor/camera", NULL, NULL);
        if (!g_w.res->load_source("unit", "editor/light", light_unit, sizeof light_unit - 1))
            g_w.light = g_w.world_api->spawn_unit(g_w.world, "editor/light", NULL, NULL);
    }
    return 0;
}

static void destroy_level_entities(void)
{
    if (g_w.num_entities)
        g_w.entity_api->destroy_batch(g_w.entities, g_w.num_entities);
    g_w.num_entities = 0;
    g_w.world_api->collect_garbage(g_w.world);
}

void editor_world__start_thread(uv_loop_t *loop, void (*drawn)(void))
{
    if (g_w.render3 && g_w.frame_api)
        editor_render__start(loop, g_w.render3, g_w.frame_api, drawn);
}

void editor_world__stop(void)
{
    editor_render__stop();
    if (g_w.world) {
        destroy_level_entities();
        if (g_w.camera.id)
            g_w.entity_api->destroy(g_w.camera);
        if (g_w.light.id)
            g_w.entity_api->destroy(g_w.light);
        g_w.world_api->destroy_world(g_w.world);
    }
    if (g_w.level_loaded)
        g_w.res->unload("level", level_name(g_w.level_generation));
    free(g_w.entities);
    free(g_w.slots);
    free(g_w.pixels);
    if (g_w.png_path[0])
        unlink(g_w.png_path);
    memset(&g_w, 0, sizeof g_w);
}

/* ---- the document's entities in the compiler's order ---- */

typedef struct walk_t {
    ct_dm_doc_o *doc;
    const ct_datamodel_api_v1 *dm;
    slot_t *slots;
    uint32_t n, capacity;
} walk_t;

static uint32_t repeat_count(walk_t *w, ct_guid_t g)
{
    double count = 1;
    w->dm->get_double(w->doc, g, "repeat.count", &count);
    return count >= 1 && count <= MAX_ENTITIES ? (uint32_t)count : 1;
}

/* Appends the members of set `key` of `owner`, sorted, each `repeat` times. */
static bool push_set(walk_t *w, ct_guid_t owner, const char *key)
{
    const ct_guid_t *items;
    uint32_t count;
    if (w->dm->get_set(w->doc, owner, key, &items, &count) != 0 || !count)
        return true;
    /* The writer's and cuttle-merge's order (@order, then GUID): one rule in the data model. */
    ct_guid_t *s = malloc(count * sizeof *s);
    if (!s)
        return false;
    memcpy(s, items, count * sizeof *s);
    if (!datamodel__sort_entities(w->doc, s, NULL, count)) {
        free(s);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t copies = repeat_count(w, s[i]);
        for (uint32_t k = 0; k < copies; k++) {
            if (w->n == MAX_ENTITIES ||
                !ct_array_reserve_of(ct_heap_allocator(), &w->slots, &w->capacity, w->n + 1, 256)) {
                free(s);
                return false;
            }
            w->slots[w->n++] = (slot_t){s[i], k};
        }
    }
    free(s);
    return true;
}

static bool walk(walk_t *w)
{
    if (!push_set(w, (ct_guid_t){0, 0}, "entities"))
        return false;
    for (uint32_t i = 0; i < w->n; i++)
        if (!push_set(w, w->slots[i].object, "children"))
            return false;
    return true;
}

int editor_world__respawn(ct_dm_doc_o *doc, char *err, size_t err_size)
{
    const ct_datamodel_api_v1 *dm = editor_session__dm();
    size_t len;
    char *text = dm->write_level(doc, NULL, &len);
    if (!text) {
        snprintf(err, err_size, "the level could not be written: %s", dm->last_error(doc));
        return CT_ERR_NOMEM;
    }
    uint32_t next = g_w.level_generation + 1;
    int r = g_w.res->load_source("level", level_name(next), text, len);
    dm->free_text(text);
    if (r) {
        snprintf(err, err_size,
                 "the level does not compile (%s): the engine's log names the "
                 "entity and field; the world keeps the last good level",
                 log__error_name(r));
        return r;
    }
    walk_t w = {doc, dm, NULL, 0, 0};
    if (!walk(&w)) {
        free(w.slots);
        g_w.res->unload("level", level_name(next));
        snprintf(err, err_size, "out of memory walking the level");
        return CT_ERR_NOMEM;
    }
    destroy_level_entities();
    if (w.n > g_w.capacity) {
        ct_entity_t *e = realloc(g_w.entities, w.n * sizeof *e);
        if (!e) {
            free(w.slots);
            g_w.res->unload("level", level_name(next));
            snprintf(err, err_size, "out of memory for the level's entities");
            return CT_ERR_NOMEM;
        }
        g_w.entities = e;
        g_w.capacity = w.n;
    }
    const void *resource = g_w.res->get("level", level_name(next));
    int n = g_w.world_api->spawn_resource(g_w.world, resource, NULL, NULL, g_w.entities, w.n);
    if (g_w.level_loaded)
        g_w.res->unload("level", level_name(g_w.level_generation));
    g_w.level_loaded = true;
    g_w.level_generation = next;
    free(g_w.slots);
    g_w.slots = w.slots;
    if (n < 0) {
        g_w.num_entities = 0;
        snprintf(err, err_size, "the level could not be spawned (%s)", log__error_name(n));
        return n;
    }
    if ((uint32_t)n != w.n)
        log__warning("editor: the level spawned %d entities, the document walks to %u: picking "
                     "and moving may name the wrong entity",
                     n, (unsigned)w.n);
    g_w.num_entities = (uint32_t)n < w.n ? (uint32_t)n : w.n;
    g_w.dirty = true;
    return 0;
}

uint32_t editor_world__entity(ct_guid_t object)
{
    for (uint32_t i = 0; i < g_w.num_entities; i++)
        if (ct_guid_eq(g_w.slots[i].object, object))
            return g_w.entities[i].id;
    return 0;
}

bool editor_world__move(ct_dm_doc_o *doc, ct_guid_t object)
{
    const ct_datamodel_api_v1 *dm = editor_session__dm();
    double p[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1}, spacing[3] = {0, 0, 0};
    dm->get_vec3(doc, object, "components.transform.position", p);
    dm->get_quat(doc, object, "components.transform.rotation", q);
    dm->get_vec3(doc, object, "components.transform.scale", s);
    dm->get_vec3(doc, object, "repeat.spacing", spacing);
    bool found = false;
    for (uint32_t i = 0; i < g_w.num_entities; i++) {
        if (!ct_guid_eq(g_w.slots[i].object, object))
            continue;
        ct_transform_t t = g_w.transform_api->lookup(g_w.world, g_w.entities[i]);
        if (!t.i)
            return false;
        double k = g_w.slots[i].copy;
        ct_transform_pose_t pose = {{(float)(p[0] + k * spacing[0]), (float)(p[1] + k * spacing[1]),
                                     (float)(p[2] + k * spacing[2])},
                                    {(float)q[0], (float)q[1], (float)q[2], (float)q[3]},
                                    {(float)s[0], (float)s[1], (float)s[2]}};
        g_w.transform_api->set_local(g_w.world, t, &pose);
        found = true;
    }
    g_w.dirty = found || g_w.dirty;
    return found;
}

/* ---- camera, frames, picking ---- */

static void camera_pose(ct_transform_pose_t *pose)
{
    double cp = cos(g_w.pitch), sp = sin(g_w.pitch), cy = cos(g_w.yaw), sy = sin(g_w.yaw);
    pose->position[0] = (float)(g_w.target[0] + g_w.distance * cp * sy);
    pose->position[1] = (float)(g_w.target[1] + g_w.distance * sp);
    pose->position[2] = (float)(g_w.target[2] + g_w.distance * cp * cy);
    /* Yaw about Y, then pitch down about X: the camera looks down its -Z at the target. */
    double hy = g_w.yaw / 2, hp = -g_w.pitch / 2;
    double qy[4] = {0, sin(hy), 0, cos(hy)}, qx[4] = {sin(hp), 0, 0, cos(hp)};
    pose->rotation[0] = (float)(qy[3] * qx[0] + qy[0] * qx[3] + qy[1] * qx[2] - qy[2] * qx[1]);
    pose->rotation[1] = (float)(qy[3] * qx[1] - qy[0] * qx[2] + qy[1] * qx[3] + qy[2] * qx[0]);
    pose->rotation[2] = (float)(qy[3] * qx[2] + qy[0] * qx[1] - qy[1] * qx[0] + qy[2] * qx[3]);
    pose->rotation[3] = (float)(qy[3] * qx[3] - qy[0] * qx[0] - qy[1] * qx[1] - qy[2] * qx[2]);
    pose->scale[0] = pose->scale[1] = pose->scale[2] = 1;
}

/* The camera's axes in world space: right, up, back (its +Z). */
static void camera_axes(double right[3], double up[3], double back[3])
{
    double cp = cos(g_w.pitch), sp = sin(g_w.pitch), cy = cos(g_w.yaw), sy = sin(g_w.yaw);
    back[0] = cp * sy, back[1] = sp, back[2] = cp * cy;
    right[0] = cy, right[1] = 0, right[2] = -sy;
    up[0] = back[1] * right[2] - back[2] * right[1];
    up[1] = back[2] * right[0] - back[0] * right[2];
    up[2] = back[0] * right[1] - back[1] * right[0];
}

int editor_world__camera_json(char *out, size_t size)
{
    ct_transform_pose_t pose;
    double r[3], u[3], b[3];
    camera_pose(&pose);
    camera_axes(r, u, b);
    int n = snprintf(out, size,
                     "{\"eye\":[%.6g,%.6g,%.6g],\"right\":[%.6g,%.6g,%.6g],\"up\":[%.6g,%.6g,%.6g],"
                     "\"back\":[%.6g,%.6g,%.6g],\"fov\":%.6g}",
                     pose.position[0], pose.position[1], pose.position[2], r[0], r[1], r[2], u[0],
                     u[1], u[2], b[0], b[1], b[2], g_w.fov);
    return n > 0 && (size_t)n < size ? n : 0;
}

void editor_world__camera(const editor_message_t *m)
{
    g_w.yaw -= m->orbit[0] * 0.01;
    g_w.pitch += m->orbit[1] * 0.01;
    if (g_w.pitch > 1.5)
        g_w.pitch = 1.5;
    if (g_w.pitch < -1.5)
        g_w.pitch = -1.5;
    double right[3], up[3], back[3];
    camera_axes(right, up, back);
    double scale = g_w.distance * 0.002;
    for (int i = 0; i < 3; i++)
        g_w.target[i] += (-m->pan[0] * right[i] + m->pan[1] * up[i]) * scale;
    g_w.distance *= exp(m->zoom * 0.1);
    if (g_w.distance < 0.5)
        g_w.distance = 0.5;
    if (g_w.distance > 1500)
        g_w.distance = 1500;
    if (m->has_focus) {
        uint32_t id = editor_world__entity(m->focus);
        float p[3];
        if (id && g_w.transform_api->world_position(g_w.world, (ct_entity_t){id}, p))
            for (int i = 0; i < 3; i++)
                g_w.target[i] = p[i];
    }
    g_w.dirty = true;
}

/* The ray through viewport point (u, v): origin and unit direction. */
static void viewport_ray(double u, double v, float origin[3], float dir[3])
{
    ct_transform_pose_t pose;
    camera_pose(&pose);
    double right[3], up[3], back[3];
    camera_axes(right, up, back);
    double aspect = g_w.height ? (double)g_w.width / g_w.height : 16.0 / 9.0;
    double t = tan(g_w.fov * M_PI / 360.0);
    double x = (2 * u - 1) * t * aspect, y = (1 - 2 * v) * t, len = 0;
    double d[3];
    for (int i = 0; i < 3; i++) {
        d[i] = x * right[i] + y * up[i] - back[i];
        len += d[i] * d[i];
        origin[i] = pose.position[i];
    }
    len = sqrt(len);
    for (int i = 0; i < 3; i++)
        dir[i] = (float)(d[i] / len);
}

static ct_guid_t object_of(uint32_t entity_id, bool *found)
{
    *found = false;
    for (uint32_t i = 0; i < g_w.num_entities; i++)
        if (g_w.entities[i].id == entity_id) {
            *found = true;
            return g_w.slots[i].object;
        }
    return (ct_guid_t){0, 0};
}

bool editor_world__pick(double u, double v, ct_guid_t *out)
{
    float o[3], d[3];
    viewport_ray(u, v, o, d);
    /* Entities without a body are picked by a sphere of radius 0.5 (scaled) around their
     * origin; the nearest of those and the physics hit wins. */
    double best = 1e30;
    bool any = false;
    ct_physics_hit_t hit;
    if (g_w.physics_api && g_w.physics_api->raycast(g_w.world, o, d, 5000.0f, &hit)) {
        bool found;
        ct_guid_t g = object_of(hit.entity, &found);
        if (found) {
            best = hit.distance;
            *out = g;
            any = true;
        }
    }
    for (uint32_t i = 0; i < g_w.num_entities; i++) {
        float p[3];
        if (!g_w.transform_api->world_position(g_w.world, g_w.entities[i], p))
            continue;
        double w[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
        double along = w[0] * d[0] + w[1] * d[1] + w[2] * d[2];
        if (along <= 0 || along >= best)
            continue;
        double dist2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2] - along * along;
        if (dist2 <= 0.25) {
            best = along;
            *out = g_w.slots[i].object;
            any = true;
        }
    }
    return any;
}

void editor_world__play(bool on)
{
    g_w.playing = on;
    g_w.play_clock = uv_hrtime();
    g_w.play_left = 0;
    g_w.dirty = true;
}

/* Reads the PNG's size from its header (IHDR follows the 8-byte signature). */
static void png_size(const uint8_t *png, size_t size)
{
    if (size < 24)
        return;
    g_w.width =
        (uint32_t)png[16] << 24 | (uint32_t)png[17] << 16 | (uint32_t)png[18] << 8 | png[19];
    g_w.height =
        (uint32_t)png[20] << 24 | (uint32_t)png[21] << 16 | (uint32_t)png[22] << 8 | png[23];
}

/* The camera where the orbit puts it. */
static void place_camera(void)
{
    ct_transform_pose_t pose;
    camera_pose(&pose);
    ct_transform_t t = g_w.transform_api->lookup(g_w.world, g_w.camera);
    if (t.i)
        g_w.transform_api->set_local(g_w.world, t, &pose);
}

bool editor_world__frame(double dt)
{
    if (g_w.playing && g_w.physics_api) {
        /* Play keeps to the wall clock in fixed steps of dt, whatever a frame costs to draw
         * (at most 8 steps a frame, so a stall does not snowball). */
        uint64_t now = uv_hrtime();
        g_w.play_left += (double)(now - g_w.play_clock) / 1e9;
        g_w.play_clock = now;
        for (int i = 0; i < 8 && g_w.play_left >= dt; i++, g_w.play_left -= dt)
            g_w.physics_api->simulate(g_w.world, (float)dt);
        if (g_w.play_left > dt)
            g_w.play_left = 0;
        g_w.dirty = true;
    }
    if (!g_w.dirty || !g_w.render_api || !g_w.camera.id)
        return false;
    if (editor_render__running()) {
        /* One frame at a time: a change made while one is drawn is drawn after it. */
        if (editor_render__busy())
            return false;
        g_w.dirty = false;
        place_camera();
        g_w.prepared_ops = editor_session__ops_seq();
        if (g_w.render3->prepare(g_w.world, g_w.camera) == 0)
            editor_render__execute();
        return false;
    }
    return editor_world__frame_now();
}

uint64_t editor_world__frame_ops(void) { return g_w.frame_ops; }

void editor_world__drawn(void)
{
    g_w.frame_ops = g_w.prepared_ops;
    g_w.png_current = false;
    g_w.frames++;
}

bool editor_world__frame_now(void)
{
    if (!g_w.render_api || !g_w.camera.id)
        return false;
    g_w.dirty = false;
    place_camera();
    if (g_w.render_api->render(g_w.world, g_w.camera) != 0)
        return false;
    g_w.frame_ops = editor_session__ops_seq();
    g_w.png_current = false;
    g_w.frames_here = ++g_w.frames;
    uint32_t w, h;
    if (g_w.frame_api && g_w.frame_api->size(&w, &h)) {
        size_t need = (size_t)w * h * 4;
        if (need > g_w.pixels_capacity) {
            uint8_t *grown = realloc(g_w.pixels, need);
            if (!grown)
                return true;
            g_w.pixels = grown;
            g_w.pixels_capacity = need;
        }
        if (g_w.frame_api->read(g_w.pixels, g_w.pixels_capacity, &w, &h) == 0) {
            g_w.width = w;
            g_w.height = h;
        }
    }
    return true;
}

bool editor_world__pixels(editor_pixels_t *out)
{
    if (editor_render__running() && g_w.frames > g_w.frames_here && editor_render__pixels(out)) {
        g_w.width = out->width, g_w.height = out->height;
        return true;
    }
    if (!g_w.frame_api || !g_w.pixels || !g_w.width)
        return false;
    *out = (editor_pixels_t){.rgba = g_w.pixels, .width = g_w.width, .height = g_w.height};
    return true;
}

bool editor_world__png(void)
{
    if (g_w.png_current)
        return true;
    if (!g_w.frames || g_w.render_api->screenshot(g_w.png_path) != 0)
        return false;
    size_t size;
    uint8_t *png = ct_file_read(g_w.png_path, ct_heap_allocator(), 256u << 20, &size, NULL, 0);
    if (png && size) {
        png_size(png, size);
        editor_server__set_frame(png, size);
        g_w.png_current = true;
    }
    free(png);
    return g_w.png_current;
}
