/* input_lua.c: the Input module for scripts (api/ct_input.h, "Lua"). Everything goes through the
 * ct.input table; a bad control name raises an error naming it. */
#include "input_internal.h"

#include "ct_entity.h" /* lua_checks.h uses ct_entity_t and does not include it */
#include "../common/lua_checks.h"

#include <math.h>
#include <string.h>

#define L_API (input__m.lua)

static uint32_t check_control(lua_State *L, int idx, const char *fn)
{
    size_t len;
    const char *name = L_API->check_string(L, idx, &len);
    const uint32_t id = strlen(name) == len ? input__api_v1.control(name) : 0;
    if (!id)
        L_API->error(
            L,
            "Input.%s: '%s' is not a control name (1..31 of a-z 0-9 _ :, e.g. \"w\", \"space\", "
            "\"mouse:left\", \"gamepad:a\")",
            fn, name);
    return id;
}

static int l_down(lua_State *L)
{
    L_API->push_boolean(L, input__api_v1.down(check_control(L, 1, "down")));
    return 1;
}

static int l_pressed(lua_State *L)
{
    L_API->push_boolean(L, input__api_v1.pressed(check_control(L, 1, "pressed")));
    return 1;
}

static int l_released(lua_State *L)
{
    L_API->push_boolean(L, input__api_v1.released(check_control(L, 1, "released")));
    return 1;
}

static int l_axis(lua_State *L)
{
    L_API->push_number(L, input__api_v1.axis(check_control(L, 1, "axis")) / 32767.0);
    return 1;
}

static int l_mouse(lua_State *L)
{
    const ct_input_mouse_t m = input__api_v1.mouse();
    const int32_t v[6] = {m.x, m.y, m.dx, m.dy, m.wheel_x, m.wheel_y};
    for (int i = 0; i < 6; i++)
        L_API->push_number(L, v[i]);
    return 6;
}

static void set_number(lua_State *L, const char *key, double v)
{
    L_API->push_number(L, v);
    L_API->set_field(L, -2, key);
}

static void set_string(lua_State *L, const char *key, const char *v)
{
    L_API->push_string(L, v, strlen(v));
    L_API->set_field(L, -2, key);
}

static int l_events(lua_State *L)
{
    static const char *const types[] = {"", "down", "up", "motion", "wheel", "axis"};
    uint32_t n;
    const ct_input_event_t *e = input__api_v1.events(&n);
    L_API->new_table(L, (int)n, 0);
    for (uint32_t i = 0; i < n; i++) {
        L_API->new_table(L, 0, 5);
        set_string(L, "type", types[e[i].type]);
        switch (e[i].type) {
        case CT_INPUT_DOWN:
        case CT_INPUT_UP: set_string(L, "control", input__api_v1.control_name(e[i].control)); break;
        case CT_INPUT_AXIS:
            set_string(L, "control", input__api_v1.control_name(e[i].control));
            set_number(L, "value", e[i].value / 32767.0);
            break;
        case CT_INPUT_MOTION:
            set_number(L, "dx", e[i].dx);
            set_number(L, "dy", e[i].dy);
            set_number(L, "x", e[i].x);
            set_number(L, "y", e[i].y);
            break;
        default: /* the wheel */
            set_number(L, "x", e[i].x);
            set_number(L, "y", e[i].y);
            break;
        }
        L_API->set_index(L, -2, (int)i + 1);
    }
    return 1;
}

/* A pixel position or motion: a whole number within a million (a fraction is not rounded). */
static int32_t check_pixels(lua_State *L, int idx)
{
    const double v = check__range(L_API, L, idx, "Input.inject", -1e6, 1e6);
    if (v != floor(v))
        check__fail(L_API, L, idx, "Input.inject", "is not a whole number of pixels");
    return (int32_t)v;
}

static int l_inject(lua_State *L)
{
    static const char *const kinds[] = {"down", "up", "motion", "wheel", "axis"};
    const uint32_t kind =
        check__enum(L_API, L, 1, "Input.inject", kinds, sizeof kinds / sizeof kinds[0],
                    input__m.resource->nearest_name);
    ct_input_event_t e = {0};
    if (kind <= 1) {
        e.type = kind == 0 ? CT_INPUT_DOWN : CT_INPUT_UP;
        e.control = check_control(L, 2, "inject");
    } else if (kind == 4) {
        e.type = CT_INPUT_AXIS;
        e.control = check_control(L, 2, "inject");
        e.value = (int32_t)lrint(check__range(L_API, L, 3, "Input.inject", -1.0, 1.0) * 32767.0);
    } else if (kind == 2) {
        e.type = CT_INPUT_MOTION;
        e.x = check_pixels(L, 2), e.y = check_pixels(L, 3);
        e.dx = L_API->type(L, 4) == CT_LUA_NONE ? 0 : check_pixels(L, 4);
        e.dy = L_API->type(L, 5) == CT_LUA_NONE ? 0 : check_pixels(L, 5);
    } else {
        e.type = CT_INPUT_WHEEL;
        e.x = check_pixels(L, 2), e.y = check_pixels(L, 3);
    }
    if (input__api_v1.inject(&e))
        return L_API->error(L, "Input.inject: the queue is full");
    return 0;
}

static int l_action(lua_State *L)
{
    const char *name = L_API->check_string(L, 1, NULL);
    const uint32_t a = input__api_v1.action(name);
    if (!a)
        return L_API->error(
            L, "Input.action: no binding defines '%s' (Input.bind or Input.use_bindings)", name);
    L_API->push_boolean(L, input__api_v1.action_down(a));
    L_API->push_boolean(L, input__api_v1.action_pressed(a));
    L_API->push_boolean(L, input__api_v1.action_released(a));
    return 3;
}

static int l_bind(lua_State *L)
{
    const char *name = L_API->check_string(L, 1, NULL);
    if (L_API->type(L, 2) != CT_LUA_TABLE)
        return L_API->error(L, "Input.bind: argument 2 is a list of control names");
    const size_t n = L_API->length(L, 2);
    if (n > CT_INPUT_MAX_BINDS)
        return L_API->error(L, "Input.bind: '%s': %zu controls, at most %u", name, n,
                            CT_INPUT_MAX_BINDS);
    const char *controls[CT_INPUT_MAX_BINDS];
    for (size_t i = 0; i < n; i++) {
        L_API->get_index(L, 2, (int)i + 1);
        controls[i] = L_API->to_string(L, -1, NULL); /* the table keeps the string alive */
        L_API->set_top(L, -2);
        if (!controls[i])
            return L_API->error(L, "Input.bind: '%s': entry %zu is not a string", name, i + 1);
    }
    char err[160];
    if (!input__bind(&input__m.state->core, name, controls, (uint32_t)n, err, sizeof err))
        return L_API->error(L, "Input.bind: %s", err);
    return 0;
}

static int l_use_bindings(lua_State *L)
{
    const char *name = L_API->check_string(L, 1, NULL);
    if (input__api_v1.use_bindings(name))
        return L_API->error(L, "Input.use_bindings: '%s' was not used (the log says why)", name);
    return 0;
}

static int l_set_capture(lua_State *L)
{
    input__api_v1.set_capture(L_API->to_boolean(L, 1));
    return 0;
}

static int l_frame(lua_State *L)
{
    L_API->push_number(L, input__api_v1.frame());
    return 1;
}

void input__register_lua(void)
{
    static const ct_lua_reg_t fns[] = {
        {"down", l_down},
        {"pressed", l_pressed},
        {"released", l_released},
        {"axis", l_axis},
        {"mouse", l_mouse},
        {"events", l_events},
        {"inject", l_inject},
        {"action", l_action},
        {"bind", l_bind},
        {"frame", l_frame},
        {"use_bindings", l_use_bindings},
        {"set_capture", l_set_capture},
    };
    L_API->register_module("Input", fns, sizeof fns / sizeof fns[0]);
}
