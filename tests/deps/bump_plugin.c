/* A plugin that bumps one declared format, as a module whose component layout changed would:
 * it loads after the engine's modules (it requires their APIs) and declares the format that
 * CUTTLE_TEST_BUMP_FORMAT names ("component.body") at one more than they declared. The format
 * bump test compiles the demo with it and checks that exactly the users recompile. */
#include <stdlib.h>

#include "ct_animation.h"
#include "ct_particles.h"
#include "ct_physics.h"
#include "ct_plugin.h"
#include "ct_render.h"
#include "ct_resource.h"
#include "ct_transform.h"

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)self;
    const ct_resource_api_v6 *res = get_engine_api(CT_RESOURCE_API, 6);
    const char *what = getenv("CUTTLE_TEST_BUMP_FORMAT");
    if (!res)
        return CT_ERR_MISSING_API;
    if (what && what[0])
        res->declare_format(what, res->format(what) + 1);
    return 0;
}

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_ref_t requires[] = {
        {.id = CT_RESOURCE_API, .version = 6, .name = "ct.resource"},
        {.id = CT_TRANSFORM_API, .version = 1, .name = "ct.transform"},
        {.id = CT_PHYSICS_API, .version = 1, .name = "ct.physics"},
        {.id = CT_ANIMATION_API, .version = 1, .name = "ct.animation"},
        {.id = CT_PARTICLES_API, .version = 1, .name = "ct.particles"},
        {.id = CT_RENDER_API, .version = 1, .name = "ct.render"},
    };
    static const ct_plugin_api_v1 plugin = {
        .name = "test.bump_format",
        .version = {1, 0, 0, 0},
        .requires = requires,
        .num_requires = sizeof requires / sizeof requires[0],
        .init = init,
    };
    return api == CT_PLUGIN_API && version == 1 ? (void *)&plugin : NULL;
}
