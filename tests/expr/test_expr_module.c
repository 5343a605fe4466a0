/*
 * The expression module as the engine serves it: ct_expr_api_v1 through get_engine_api (eval_jobs
 * on two threads gives eval_batch's bits), and the Lua module Expr (compile, eval with values in
 * order or by name, disassemble, errors as nil + text).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ct_expr.h"
#include "test_kernel.h"

static const ct_lua_api_v1 *lua;
static const ct_expr_api_v1 *expr;

static int boot(void **state)
{
    (void)state;
    const char *paths[] = {CT_TEST_MODULE("expr", "ct_expr")};
    kernel_desc_t desc = test_kernel_desc(paths, 1);
    assert_int_equal(test_kernel_boot(paths, 1), 0);
    (void)desc;
    lua = test_kernel_api(CT_LUA_API, 1);
    expr = test_kernel_api(CT_EXPR_API, 1);
    assert_non_null(lua);
    assert_non_null(expr);
    assert_null(test_kernel_api(CT_EXPR_API, 2));
    return 0;
}

static int shutdown_kernel(void **state)
{
    (void)state;
    assert_int_equal(test_kernel_shutdown(), 0);
    return 0;
}

static void run_lua(const char *code)
{
    if (lua->run_string(code, "=test"))
        fail_msg("Lua failed: %s", code);
}

static void lua_compiles_and_evaluates(void **state)
{
    (void)state;
    run_lua(
        "local p = assert(Expr.compile('sin(t) + 0.1 * cos(10 * t)', {'t'}))\n"
        "local v = Expr.eval(p, {0.5})\n"
        "assert(math.abs(v - (math.sin(0.5) + 0.1 * math.cos(5))) < 1e-6, v)\n"
        "assert(Expr.eval(p, {t = 0.5}) == v)\n"
        "assert(p:eval({0.5}) == v)\n"
        "local text = Expr.disassemble(p)\n"
        "assert(text:find('rpn: t sin 0.1 10 t * cos * +', 1, true), text)\n"
        "local f = assert(Expr.compile('r = x*x + 1; fx = x / r; fy = 2', {'x'}, {'fx', 'fy'}))\n"
        "local a, b = Expr.eval(f, {x = 1})\n"
        "assert(a == 0.5 and b == 2, a)\n"
        "local bad, why = Expr.compile('speed * (t + ', {'t', 'speed'})\n"
        "assert(bad == nil)\n"
        "assert(why == '1:13: expected an operand\\n  speed * (t + \\n              ^', why)\n"
        "local _, why2 = Expr.compile('sped', {'speed'})\n"
        "assert(why2:find(\"did you mean 'speed'\", 1, true), why2)\n"
        "assert(not pcall(Expr.eval, p, {}))\n"
        "assert(not pcall(Expr.eval, p))\n"
        "assert(Expr.eval(Expr.compile('rand(7)', nil, nil, 1)) ~= "
        "Expr.eval(Expr.compile('rand(7)', nil, nil, 2)))\n"
        "p = nil; f = nil; collectgarbage(); collectgarbage()\n");
}

static void jobs_give_the_batch_bits(void **state)
{
    (void)state;
    static const char *const inputs[] = {"t", "speed"};
    static const char *const outputs[] = {"a", "b"};
    ct_expr_error_t err;
    ct_expr_program_o *p = expr->compile(
        "s = sin(t * speed); a = s * s + noise(t); b = exp(-abs(t) * 0.01) * s",
        &(ct_expr_desc_t){
            .inputs = inputs, .num_inputs = 2, .outputs = outputs, .num_outputs = 2, .seed = 9},
        &err);
    if (!p)
        fail_msg("%s", err.text);
    assert_int_equal(expr->num_inputs(p), 2);
    assert_int_equal(expr->num_outputs(p), 2);
    float k;
    assert_false(expr->constant(p, 0, &k));
    enum { N = 100003 };
    static float t[N], speed[N], a1[N], b1[N], a2[N], b2[N];
    for (uint32_t i = 0; i < N; i++) {
        t[i] = (float)i * 0.01f - 500.0f;
        speed[i] = 1.0f + (float)(i % 17) * 0.125f;
    }
    expr->eval_batch(p, (const float *const[]){t, speed}, (float *const[]){a1, b1}, N);
    expr->eval_jobs(p, (const float *const[]){t, speed}, (float *const[]){a2, b2}, N);
    assert_memory_equal(a1, a2, sizeof a1);
    assert_memory_equal(b1, b2, sizeof b1);
    float in[2] = {t[77777], speed[77777]}, out[2];
    expr->eval(p, in, out);
    assert_true(out[0] == a1[77777] && out[1] == b1[77777]);
    expr->destroy(p);
    expr->destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lua_compiles_and_evaluates),
        cmocka_unit_test(jobs_give_the_batch_bits),
    };
    return cmocka_run_group_tests(tests, boot, shutdown_kernel);
}
