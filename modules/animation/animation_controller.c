/*
 * Animation controllers: an instance's play speed and crossfade weight as expressions
 * (ct_expr.h) of controller variables that scripts set.
 *
 *   Animation.set_controller(world, e, { variables = {"speed", "lean"},
 *                                        speed = "speed * 1.5", weight = "smoothstep(0, 1, fade)" })
 *   Animation.set_variable(world, e, "speed", 2.5)     Animation.variable(world, e, "speed")
 *   Animation.set_controller(world, e, nil)            removes it
 *
 * The expressions read the variables (0 until set) and `time` (the playing clip's time), `fade`
 * (the crossfade's progress, 0..1; 1 when none runs) and `dt`. Before each evaluate the `speed`
 * expression sets the playing clip's speed (clamped to +-1000, NaN gives 0); during a crossfade
 * the `weight` expression (clamped to 0..1) replaces the linear weight of the new clip for the
 * blend, while the fade's own clock runs on unchanged. Either expression may be absent. Errors
 * (a bad expression, an unknown variable, an entity without an animation) raise a Lua error
 * naming the field or the nearest variable.
 *
 * Controllers live in their world's manager (anim__controller), by entity: one whose entity is
 * gone is dropped at the next evaluate, all of them go with the world, and a hot reload of the
 * module keeps them, variables and all, as it keeps the instances. They need ct.expr: without it
 * set_controller raises.
 */
#include "animation_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ct_expr.h"

#include "ct_array.h"

/* The frame: the built-ins, then the variables (the programs declare them in this order). */
enum { IN_TIME, IN_FADE, IN_DT, IN_VARIABLES };
_Static_assert(IN_VARIABLES + ANIM_CONTROLLER_VARIABLES == ANIM_CONTROLLER_INPUTS,
               "the inputs are the built-ins, then the variables");

typedef anim__controller controller_t;

static controller_t *find(anim__manager *m, ct_entity_t e)
{
    for (uint32_t i = 0; i < m->num_controllers; i++)
        if (m->controllers[i].entity.id == e.id)
            return &m->controllers[i];
    return NULL;
}

static void release(anim__manager *m, controller_t *c)
{
    anim__m.expr->destroy(c->speed);
    anim__m.expr->destroy(c->weight);
    *c = m->controllers[--m->num_controllers];
}

void anim__controllers_free(anim__manager *m)
{
    while (m->num_controllers)
        release(m, &m->controllers[m->num_controllers - 1]);
    if (m->controllers)
        ct_free(m->a, m->controllers, (size_t)m->cap_controllers * sizeof *m->controllers);
    m->controllers = NULL;
    m->cap_controllers = 0;
}

/* Before the instances advance: drop controllers whose entity is gone, set the speeds. */
void anim__controllers_before(anim__manager *m, float dt)
{
    for (uint32_t i = 0; i < m->num_controllers;) {
        controller_t *c = &m->controllers[i];
        anim__instance *inst = anim__find(m, c->entity);
        if (!inst) {
            release(m, c);
            continue;
        }
        c->inputs[IN_TIME] = inst->layer[0].time;
        c->inputs[IN_FADE] = inst->layer[1].name[0] ? inst->fade / inst->fade_time : 1.0f;
        c->inputs[IN_DT] = dt;
        if (c->speed) {
            float s;
            anim__m.expr->eval(c->speed, c->inputs, &s);
            inst->layer[0].speed = s != s         ? 0.0f
                                   : s > 1000.0f  ? 1000.0f
                                   : s < -1000.0f ? -1000.0f
                                                  : s;
        }
        i++;
    }
}

/* After the instances advance, before their poses are sampled: the weight expression stands in
 * for the fade (saved, and put back by anim__controllers_after). */
void anim__controllers_weights(anim__manager *m)
{
    for (uint32_t i = 0; i < m->num_controllers; i++) {
        controller_t *c = &m->controllers[i];
        c->overridden = false;
        if (!c->weight)
            continue;
        anim__instance *inst = anim__find(m, c->entity);
        if (!inst || !inst->layer[1].name[0] || !(inst->fade_time > 0))
            continue;
        c->inputs[IN_TIME] = inst->layer[0].time;
        c->inputs[IN_FADE] = inst->fade / inst->fade_time;
        float w;
        anim__m.expr->eval(c->weight, c->inputs, &w);
        w = w != w ? 0.0f : w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
        c->saved_fade = inst->fade;
        c->overridden = true;
        inst->fade = w * inst->fade_time;
    }
}

void anim__controllers_after(anim__manager *m)
{
    for (uint32_t i = 0; i < m->num_controllers; i++) {
        controller_t *c = &m->controllers[i];
        if (!c->overridden)
            continue;
        anim__instance *inst = anim__find(m, c->entity);
        if (inst)
            inst->fade = c->saved_fade;
        c->overridden = false;
    }
}

/* ---- Lua ---------------------------------------------------------------------------------- */

#define L_API anim__m.lua

static anim__instance *arg_instance(lua_State *L, const char *what, anim__manager **out,
                                    ct_entity_t *e)
{
    ct_world_o *w = L_API->to_light_userdata(L, 1);
    const double id = L_API->check_number(L, 2);
    anim__manager *m = w ? anim__manager_of(w, what) : NULL;
    *out = m;
    if (!m)
        L_API->error(L, "Animation.%s: argument 1 is not a world", what);
    if (!(id >= 1 && id <= UINT32_MAX && id == floor(id)))
        L_API->error(L, "Animation.%s: argument 2 (%g) is not an entity id", what, id);
    *e = (ct_entity_t){(uint32_t)id};
    anim__instance *inst = anim__find(m, *e);
    if (!inst)
        L_API->error(L, "Animation.%s: entity %u has no animation in this world", what, e->id);
    return inst;
}

/* Compiles table[field] (absent: NULL, no error) over the controller's variables and the
 * built-ins; on a bad expression returns NULL with the message in err. */
static ct_expr_program_o *field_program(lua_State *L, int table, const char *field,
                                        const controller_t *c, ct_expr_error_t *err, bool *bad)
{
    *bad = false;
    if (L_API->get_field(L, table, field) != CT_LUA_STRING) {
        *bad = L_API->type(L, -1) != CT_LUA_NIL;
        if (*bad)
            snprintf(err->text, sizeof err->text, "not a string");
        L_API->set_top(L, -2);
        return NULL;
    }
    const char *src = L_API->to_string(L, -1, NULL);
    const char *inputs[ANIM_CONTROLLER_INPUTS] = {"time", "fade", "dt"};
    uint32_t n = IN_VARIABLES;
    for (uint32_t v = 0; v < c->num_variables; v++)
        inputs[n++] = c->names[v];
    ct_expr_program_o *p =
        anim__m.expr->compile(src, &(ct_expr_desc_t){.inputs = inputs, .num_inputs = n}, err);
    *bad = !p;
    L_API->set_top(L, -2);
    return p;
}

/* Animation.set_controller(world, e, {variables = {...}, speed = "...", weight = "..."} | nil) */
static int l_set_controller(lua_State *L)
{
    anim__manager *m;
    ct_entity_t e;
    arg_instance(L, "set_controller", &m, &e);
    controller_t *old = find(m, e);
    if (L_API->type(L, 3) == CT_LUA_NIL || L_API->type(L, 3) == CT_LUA_NONE) {
        if (old)
            release(m, old);
        return 0;
    }
    if (!anim__m.expr)
        return L_API->error(L, "Animation.set_controller: ct.expr is not loaded");
    if (L_API->type(L, 3) != CT_LUA_TABLE)
        return L_API->error(L, "Animation.set_controller: argument 3 must be a table or nil");
    controller_t c;
    memset(&c, 0, sizeof c);
    c.entity = e;
    if (L_API->get_field(L, 3, "variables") == CT_LUA_TABLE) {
        const size_t n = L_API->length(L, -1);
        if (n > ANIM_CONTROLLER_VARIABLES)
            return L_API->error(L, "Animation.set_controller: more than %u variables",
                                ANIM_CONTROLLER_VARIABLES);
        for (size_t v = 0; v < n; v++) {
            L_API->get_index(L, -1, (int)v + 1);
            size_t len;
            const char *name = L_API->to_string(L, -1, &len);
            if (!name || !len || len >= ANIM_CONTROLLER_NAME)
                return L_API->error(L, "Animation.set_controller: variables[%zu] is not a name",
                                    v + 1);
            memcpy(c.names[v], name, len + 1);
            L_API->set_top(L, -2);
        }
        c.num_variables = (uint32_t)n;
    }
    L_API->set_top(L, -2);
    ct_expr_error_t err;
    bool bad;
    c.speed = field_program(L, 3, "speed", &c, &err, &bad);
    if (bad)
        return L_API->error(L, "Animation.set_controller: speed: %s", err.text);
    c.weight = field_program(L, 3, "weight", &c, &err, &bad);
    if (bad) {
        anim__m.expr->destroy(c.speed);
        return L_API->error(L, "Animation.set_controller: weight: %s", err.text);
    }
    old = find(m, e); /* again: the table's fields may have run scripts that changed the list */
    if (old) {
        /* Variables keep their values across a redefinition when the name stays. */
        for (uint32_t v = 0; v < c.num_variables; v++)
            for (uint32_t k = 0; k < old->num_variables; k++)
                if (!strcmp(c.names[v], old->names[k]))
                    c.inputs[IN_VARIABLES + v] = old->inputs[IN_VARIABLES + k];
        anim__m.expr->destroy(old->speed);
        anim__m.expr->destroy(old->weight);
        *old = c;
        return 0;
    }
    if (!ct_array_reserve(m->a, &m->controllers, &m->cap_controllers, m->num_controllers + 1,
                          sizeof *m->controllers, 8)) {
        anim__m.expr->destroy(c.speed);
        anim__m.expr->destroy(c.weight);
        return L_API->error(L, "Animation.set_controller: out of memory");
    }
    m->controllers[m->num_controllers++] = c;
    return 0;
}

static uint32_t arg_variable(lua_State *L, const char *what, controller_t **out)
{
    anim__manager *m;
    ct_entity_t e;
    arg_instance(L, what, &m, &e);
    const char *name = L_API->check_string(L, 3, NULL);
    controller_t *c = find(m, e);
    if (!c)
        return (uint32_t)L_API->error(L, "Animation.%s: entity %u has no controller", what, e.id);
    for (uint32_t v = 0; v < c->num_variables; v++)
        if (!strcmp(c->names[v], name)) {
            *out = c;
            return v;
        }
    const char *names[ANIM_CONTROLLER_VARIABLES];
    for (uint32_t v = 0; v < c->num_variables; v++)
        names[v] = c->names[v];
    const char *near = anim__m.resource->nearest_name(name, names, c->num_variables);
    return (uint32_t)L_API->error(L, "Animation.%s: no variable '%s'%s%s%s", what, name,
                                  near ? " (did you mean '" : "", near ? near : "",
                                  near ? "'?)" : "");
}

/* Animation.set_variable(world, e, name, value) */
static int l_set_variable(lua_State *L)
{
    controller_t *c;
    const uint32_t v = arg_variable(L, "set_variable", &c);
    const double value = L_API->check_number(L, 4);
    if (!isfinite(value))
        return L_API->error(L, "Animation.set_variable: %g is not a finite number", value);
    c->inputs[IN_VARIABLES + v] = (float)value;
    return 0;
}

static int l_variable(lua_State *L)
{
    controller_t *c;
    const uint32_t v = arg_variable(L, "variable", &c);
    L_API->push_number(L, c->inputs[IN_VARIABLES + v]);
    return 1;
}

void anim__register_controller_lua(void)
{
    L_API->add_module_function("Animation", "set_controller", l_set_controller);
    L_API->add_module_function("Animation", "set_variable", l_set_variable);
    L_API->add_module_function("Animation", "variable", l_variable);
}
