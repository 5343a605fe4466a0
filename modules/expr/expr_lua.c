/*
 * The Lua module "Expr": compile, eval, disassemble. A program is a userdata of type
 * "ct.expr.program" holding the compiled program, freed by its __gc.
 */
#include <string.h>

#include "expr_internal.h"

#include "ct_lua.h"
#include "ct_plugin.h"

#define PROGRAM_TYPE "ct.expr.program"

typedef struct lua_program_t {
    ct_expr_program_o *program;
} lua_program_t;

static const ct_lua_api_v2 *lua;
static const ct_expr_api_v1 *api;

/* Reads the array of names at idx into names (at most CT_EXPR_MAX_NAMES); raises when it is
 * not an array of strings. The strings stay on the Lua stack's table, alive during the call. */
static uint32_t arg_names(lua_State *L, int idx, const char **names, const char *what)
{
    if (lua->type(L, idx) == CT_LUA_NIL || lua->type(L, idx) == CT_LUA_NONE)
        return 0;
    if (lua->type(L, idx) != CT_LUA_TABLE)
        return (uint32_t)lua->error(L, "Expr.compile: %s must be an array of names", what);
    const size_t n = lua->length(L, idx);
    if (n > CT_EXPR_MAX_NAMES)
        return (uint32_t)lua->error(L, "Expr.compile: more than %u %s", CT_EXPR_MAX_NAMES, what);
    for (size_t i = 0; i < n; i++) {
        if (lua->get_index(L, idx, (int)i + 1) != CT_LUA_STRING)
            return (uint32_t)lua->error(L, "Expr.compile: %s[%zu] is not a string", what, i + 1);
        names[i] = lua->to_string(L, -1, NULL);
        lua->set_top(L, -2); /* the table keeps the string alive */
    }
    return (uint32_t)n;
}

/* Expr.compile(source [, inputs [, outputs [, seed]]]) -> program | nil, error text */
static int l_expr_compile(lua_State *L, void *ctx)
{
    (void)ctx;
    const char *source = lua->check_string(L, 1, NULL);
    const char *inputs[CT_EXPR_MAX_NAMES], *outputs[CT_EXPR_MAX_NAMES];
    ct_expr_desc_t desc = {.inputs = inputs, .outputs = outputs};
    desc.num_inputs = arg_names(L, 2, inputs, "inputs");
    desc.num_outputs = arg_names(L, 3, outputs, "outputs");
    const double seed = lua->opt_number(L, 4, 0);
    if (!(seed >= 0 && seed <= 4294967295.0 && seed == (double)(uint32_t)seed))
        return lua->error(L, "Expr.compile: seed must be a whole number in 0..2^32-1");
    desc.seed = (uint32_t)seed;
    lua_program_t *u = lua->new_userdata(L, sizeof *u, PROGRAM_TYPE);
    ct_expr_error_t err;
    u->program = api->compile(source, &desc, &err);
    if (!u->program) {
        lua->push_nil(L);
        lua->push_string(L, err.text, strlen(err.text));
        return 2;
    }
    return 1;
}

static const ct_expr_program_o *arg_program(lua_State *L, int idx)
{
    lua_program_t *u = lua->check_userdata(L, idx, PROGRAM_TYPE);
    if (!u->program)
        lua->error(L, "Expr: argument %d is a program that failed to compile", idx);
    return u->program;
}

/* Expr.eval(program [, inputs]) -> output values. Inputs are {v1, v2, ...} in the declared order
 * or {name = value, ...}; a missing input is an error. */
static int l_expr_eval(lua_State *L, void *ctx)
{
    (void)ctx;
    const ct_expr_program_o *p = arg_program(L, 1);
    float in[CT_EXPR_MAX_NAMES] = {0}, out[CT_EXPR_MAX_NAMES];
    if (p->num_inputs && lua->type(L, 2) != CT_LUA_TABLE)
        return lua->error(L, "Expr.eval: the program has %u inputs; pass them in a table",
                          p->num_inputs);
    for (uint32_t i = 0; i < p->num_inputs; i++) {
        const char *name = expr__name(p, i);
        ct_lua_type t = lua->get_index(L, 2, (int)i + 1);
        if (t == CT_LUA_NIL) {
            lua->set_top(L, -2);
            t = lua->get_field(L, 2, name);
        }
        if (t != CT_LUA_NUMBER)
            return lua->error(L, "Expr.eval: input '%s' (%u) is missing or not a number", name,
                              i + 1);
        in[i] = (float)lua->to_number(L, -1);
        lua->set_top(L, -2);
    }
    api->eval(p, in, out);
    for (uint32_t o = 0; o < p->num_outputs; o++)
        lua->push_number(L, out[o]);
    return (int)p->num_outputs;
}

/* Expr.disassemble(program) -> the listing: the RPN, then the bytecode. */
static int l_expr_disassemble(lua_State *L, void *ctx)
{
    (void)ctx;
    const ct_expr_program_o *p = arg_program(L, 1);
    char text[8192];
    size_t n = api->disassemble(p, text, sizeof text);
    lua->push_string(L, text, n < sizeof text ? n : sizeof text - 1);
    return 1;
}

static int l_program_gc(lua_State *L, void *ctx)
{
    (void)ctx;
    lua_program_t *u = lua->to_userdata(L, 1, PROGRAM_TYPE);
    if (u && u->program) {
        api->destroy(u->program);
        u->program = NULL;
    }
    return 0;
}

void expr__register_lua(const ct_lua_api_v2 *l, const ct_expr_api_v1 *a)
{
    lua = l;
    api = a;
    static const ct_lua_closure_reg_t methods[] = {
        {"__gc", l_program_gc},
        {"eval", l_expr_eval},
        {"disassemble", l_expr_disassemble},
    };
    lua->register_type(PROGRAM_TYPE, methods, CT_ARRAY_COUNT(methods), NULL);
    static const ct_lua_closure_reg_t fns[] = {
        {"compile", l_expr_compile},
        {"eval", l_expr_eval},
        {"disassemble", l_expr_disassemble},
    };
    lua->register_closures("Expr", fns, CT_ARRAY_COUNT(fns), NULL);
}
