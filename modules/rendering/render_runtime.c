/* render_runtime.c: changes scripts make to drawn entities while the game runs (api/ct_render.h,
 * Render.set_material). */
#include "render_internal.h"

#include <stdio.h>
#include <string.h>

#define L_API (render__m.lua)

/* Gives entity e's mesh the material `name` (loaded here; the old one's load is dropped). */
static int set_material(ct_world_o *world, ct_entity_t e, const char *name, char *err,
                        size_t err_size)
{
    render__manager *m = render__manager_of(world, RENDER_MESH_TYPE);
    render__mesh_ref *r = render__instance_of(m, e);
    if (!r) {
        snprintf(err, err_size, "entity %u has no mesh in this world", e.id);
        return CT_ERR_NOT_FOUND;
    }
    if (!name || strlen(name) >= RENDER_RESOURCE_NAME_SIZE ||
        render__m.resource->load("material", name)) {
        snprintf(err, err_size, "material '%s' does not load (the log says why)",
                 name ? name : "(null)");
        return CT_ERR_NOT_FOUND;
    }
    const render__state *s = render__m.state;
    if (r->material < s->materials_cap && s->material_slots[r->material].used)
        render__m.resource->unload("material", s->material_slots[r->material].name);
    r->material = render__material_slot_of(name);
    return 0;
}

static int l_render_set_material(lua_State *L)
{
    ct_world_o *w = L_API->to_light_userdata(L, 1);
    if (!w)
        return L_API->error(L, "Render.set_material: argument 1 is not a world");
    const double id = L_API->check_number(L, 2);
    const char *name = L_API->check_string(L, 3, NULL);
    char err[RENDER_RESOURCE_NAME_SIZE + 96];
    const ct_entity_t e = {
        id >= 1 && id <= (double)UINT32_MAX && id == (double)(uint32_t)id ? (uint32_t)id : 0};
    if (set_material(w, e, name, err, sizeof err))
        return L_API->error(L, "Render.set_material: %s", err);
    return 0;
}

void render__register_runtime_lua(void)
{
    static const ct_lua_reg_t fns[] = {{"set_material", l_render_set_material}};
    L_API->register_module("Render", fns, sizeof fns / sizeof fns[0]);
}
