/* animation_lua.c: module Animation (documented in api/ct_animation.h). Every binding goes
 * through the v1 table, so Lua gets exactly the checks C callers get; failures become Lua errors
 * naming the entity and the argument. */
#include "animation_internal.h"

#include "../common/lua_checks.h"

#include <math.h>
#include <string.h>

#define L_API (anim__m.lua)

/* A time in seconds (or a time step): finite and within +-1e6. */
static float check_seconds(lua_State *L, int idx, const char *fn)
{
    return (float)check__range(L_API, L, idx, fn, -1e6, 1e6);
}

/* The optional {loop =, speed =} table at idx. */
static ct_animation_play_t check_options(lua_State *L, int idx, const char *what)
{
    ct_animation_play_t d = {1.0f, false};
    const ct_lua_type t = L_API->type(L, idx);
    if (t == CT_LUA_NIL || t == CT_LUA_NONE)
        return d;
    if (t != CT_LUA_TABLE)
        L_API->error(L, "%s: argument %d must be a table {loop =, speed =}", what, idx);
    if (L_API->get_field(L, idx, "loop") != CT_LUA_NIL)
        d.loop = L_API->to_boolean(L, -1);
    L_API->set_top(L, -2);
    if (L_API->get_field(L, idx, "speed") != CT_LUA_NIL) {
        const double s = L_API->type(L, -1) == CT_LUA_NUMBER ? L_API->to_number(L, -1) : NAN;
        if (!isfinite(s) || fabs(s) > 1000 || s == 0)
            L_API->error(L, "%s: speed must be a finite non-zero number up to 1000", what);
        d.speed = (float)s;
    }
    L_API->set_top(L, -2);
    return d;
}

static int fail(lua_State *L, int err, const char *what, ct_entity_t e, const char *clip)
{
    if (err == CT_ERR_NOT_FOUND)
        return L_API->error(L, "%s: entity %u has no animation, or \"%s\" is no clip", what, e.id,
                            clip ? clip : "");
    return L_API->error(L, "%s: entity %u: %s (see the log)", what, e.id,
                        anim__m.log->error_message(err));
}

static int l_play(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Animation.play", NULL);
    const ct_entity_t e = check__entity(L_API, L, 2, "Animation.play");
    const char *clip = L_API->check_string(L, 3, NULL);
    const ct_animation_play_t d = check_options(L, 4, "Animation.play");
    const int err = anim__api_v1.play(w, e, clip, &d);
    return err ? fail(L, err, "Animation.play", e, clip) : 0;
}

static int l_crossfade(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Animation.crossfade", NULL);
    const ct_entity_t e = check__entity(L_API, L, 2, "Animation.crossfade");
    const char *clip = L_API->check_string(L, 3, NULL);
    const float seconds = check_seconds(L, 4, "Animation.crossfade");
    const ct_animation_play_t d = check_options(L, 5, "Animation.crossfade");
    const int err = anim__api_v1.crossfade(w, e, clip, seconds, &d);
    return err ? fail(L, err, "Animation.crossfade", e, clip) : 0;
}

static int l_time(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Animation.time", NULL);
    const ct_entity_t e = check__entity(L_API, L, 2, "Animation.time");
    if (!anim__find(anim__manager_of(w, "Animation.time"), e))
        return fail(L, CT_ERR_NOT_FOUND, "Animation.time", e, NULL);
    L_API->push_number(L, anim__api_v1.time(w, e));
    return 1;
}

static int l_set_time(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Animation.set_time", NULL);
    const ct_entity_t e = check__entity(L_API, L, 2, "Animation.set_time");
    const int err = anim__api_v1.set_time(w, e, check_seconds(L, 3, "Animation.set_time"));
    return err ? fail(L, err, "Animation.set_time", e, NULL) : 0;
}

static int l_evaluate(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Animation.evaluate", NULL);
    const float dt = check_seconds(L, 2, "Animation.evaluate");
    if (dt < 0)
        return L_API->error(L, "Animation.evaluate: dt must be >= 0 (got %g)", (double)dt);
    anim__api_v1.evaluate(w, dt);
    return 0;
}

static int l_events(lua_State *L)
{
    uint32_t size, at = 0;
    ct_world_o *w = check__world(L_API, L, 1, "Animation.events", NULL);
    const void *stream = anim__api_v1.events(w, &size);
    L_API->new_table(L, 0, 0);
    int n = 0;
    for (const ct_animation_event_header_t *h; (h = ct_animation_event_next(stream, size, &at));) {
        if (h->type != CT_ANIMATION_EVENT_MARKER || h->size < sizeof(ct_animation_event_t))
            continue;
        ct_animation_event_t ev;
        memcpy(&ev, h + 1, sizeof ev);
        L_API->new_table(L, 0, 3);
        L_API->push_number(L, ev.entity);
        L_API->set_field(L, -2, "entity");
        L_API->push_string(L, ev.name, strnlen(ev.name, sizeof ev.name));
        L_API->set_field(L, -2, "name");
        L_API->push_number(L, ev.time);
        L_API->set_field(L, -2, "time");
        L_API->set_index(L, -2, ++n);
    }
    return 1;
}

/* Animation.bone(world, e, name or 1-based index) -> bone entity or nil. */
static int l_bone(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Animation.bone", NULL);
    const ct_entity_t e = check__entity(L_API, L, 2, "Animation.bone");
    uint32_t i;
    if (L_API->type(L, 3) == CT_LUA_NUMBER) {
        const double n = L_API->to_number(L, 3);
        i = n >= 1 && n <= ANIM_MAX_BONES && n == floor(n) ? (uint32_t)n - 1 : UINT32_MAX;
    } else {
        i = anim__api_v1.bone_index(w, e, L_API->check_string(L, 3, NULL));
    }
    const ct_entity_t b = i == UINT32_MAX ? (ct_entity_t){0} : anim__api_v1.bone(w, e, i);
    if (!b.id)
        L_API->push_nil(L);
    else
        L_API->push_number(L, b.id);
    return 1;
}

static int l_bone_count(lua_State *L)
{
    ct_world_o *w = check__world(L_API, L, 1, "Animation.bone_count", NULL);
    const ct_entity_t e = check__entity(L_API, L, 2, "Animation.bone_count");
    L_API->push_number(L, anim__api_v1.bone_count(w, e));
    return 1;
}

/* Animation.clips(name, ...) -> { {name =, duration =, bones =}, ... }: the named clip resources
 * (loaded on first use, like play), each with its length in seconds and its bone count, in the
 * order given; an unknown clip raises naming it. */
static int l_clips(lua_State *L)
{
    const int n = L_API->get_top(L);
    L_API->new_table(L, n, 0);
    for (int i = 1; i <= n; i++) {
        size_t len;
        const char *name = L_API->check_string(L, i, &len);
        const ct_animation_clip_o *c = anim__api_v1.clip(name);
        if (!c)
            return L_API->error(
                L,
                "Animation.clips: argument %d: no clip '%s' (not compiled, or its blob is bad: "
                "the log says which)",
                i, name);
        L_API->new_table(L, 0, 3);
        L_API->push_string(L, name, len);
        L_API->set_field(L, -2, "name");
        L_API->push_number(L, anim__api_v1.clip_duration(c));
        L_API->set_field(L, -2, "duration");
        L_API->push_number(L, anim__api_v1.clip_bones(c));
        L_API->set_field(L, -2, "bones");
        L_API->set_index(L, -2, i);
    }
    return 1;
}

void anim__register_lua(void)
{
    static const ct_lua_reg_t fns[] = {
        {"play", l_play},         {"crossfade", l_crossfade},   {"time", l_time},
        {"set_time", l_set_time}, {"evaluate", l_evaluate},     {"events", l_events},
        {"bone", l_bone},         {"bone_count", l_bone_count}, {"clips", l_clips},
    };
    L_API->register_module("Animation", fns, sizeof fns / sizeof fns[0]);
}
