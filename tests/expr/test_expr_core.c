/*
 * The expression language's core, compiled directly (no kernel but its nearest-name function):
 * the seed's example and its RPN, precedence, every function against fixed values and libm,
 * errors with their places, limits, several outputs with locals, the three evaluations giving
 * the same bits, save/load and its checks, and evaluation allocating nothing.
 *
 * Built twice: with the SSE2/AVX2 lanes and threaded dispatch, and with EXPR_LANES_PORTABLE and
 * EXPR_SWITCH_DISPATCH (plain C lanes, the switch), against the same expected values.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "data/nearest.h"
#include "expr_internal.h"
#include "test_alloc.h"

static test_alloc_t alloc;

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The bits, with every NaN as one: C compilers may swap the operands of a commutative
 * operation, and which NaN x86 passes on depends on that order (see ct_expr.h). */
static uint32_t same_bits(float f) { return f != f ? 0x7fc00000u : bits(f); }

static ct_expr_program_o *compile_in(const char *src, const char *const *inputs, uint32_t ni,
                                     const char *const *outputs, uint32_t no, ct_expr_error_t *err)
{
    ct_expr_desc_t d = {.inputs = inputs,
                        .num_inputs = ni,
                        .outputs = outputs,
                        .num_outputs = no,
                        .allocator = &alloc.base};
    return expr__compile(src, &d, NULL, data__nearest_name, err);
}

/* The value of a program of no inputs and one output. */
static float value_of(const char *src)
{
    ct_expr_error_t err;
    ct_expr_program_o *p = compile_in(src, NULL, 0, NULL, 0, &err);
    if (!p)
        fail_msg("%s: %s", src, err.text);
    float out = -1.0f;
    expr__eval(p, NULL, &out);
    float k;
    /* Every input-free program folds to a constant. */
    assert_true((p->constant_mask & 1u) != 0);
    k = p->constant_values[0];
    assert_int_equal(bits(k), bits(out));
    expr__destroy(p);
    return out;
}

/* Compiling `src` fails at line:col with `message`. */
static void assert_error(const char *src, uint32_t line, uint32_t col, const char *message)
{
    static const char *const inputs[] = {"t", "speed"};
    ct_expr_error_t err;
    ct_expr_program_o *p = compile_in(src, inputs, 2, NULL, 0, &err);
    if (p)
        fail_msg("'%s' compiled", src);
    if (err.line != line || err.column != col || strcmp(err.message, message))
        fail_msg("'%s': got %u:%u: %s; expected %u:%u: %s", src, err.line, err.column, err.message,
                 line, col, message);
}

/* ---- the seed's example ------------------------------------------------------------------- */

static void seed_example_compiles_to_the_posts_rpn(void **state)
{
    (void)state;
    static const char *const inputs[] = {"t"};
    ct_expr_error_t err;
    ct_expr_program_o *p = compile_in("sin(t) + 0.1 * cos(10 * t)", inputs, 1, NULL, 0, &err);
    assert_non_null(p);
    assert_string_equal(expr__rpn(p), "t sin 0.1 10 t * cos * +");
    char text[1024];
    expr__disassemble(p, text, sizeof text);
    assert_string_equal(text, "rpn: t sin 0.1 10 t * cos * +\n"
                              "0000 push_input 0 (t)\n"
                              "0001 sin\n"
                              "0002 cos_kin 0 (t) 10\n"
                              "0004 add_mulk 0.100000001\n"
                              "0006 store_end 0\n");
    /* Its value matches the C expression (libm) closely, and fixed bits exactly. */
    static const float ts[] = {0.0f, 0.5f, 1.0f, 2.0f, -3.25f, 10.0f};
    static const uint32_t expected[] = {0x3dcccccd, 0x3f01fea4, 0x3f41efb4,
                                        0x3f733a1f, 0x3e1eb004, 0xbeea6358};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        float out;
        expr__eval(p, &ts[i], &out);
        const double c = sin((double)ts[i]) + 0.1 * cos(10.0 * (double)ts[i]);
        assert_true(fabs((double)out - c) < 1e-6);
        if (bits(out) != expected[i])
            fail_msg("t = %g: 0x%08x, expected 0x%08x", (double)ts[i], bits(out), expected[i]);
    }
    /* The bytes of a saved program, loaded again, list the same. */
    uint8_t bytes[512];
    size_t n = expr__save(p, bytes, sizeof bytes);
    assert_true(n < sizeof bytes);
    ct_expr_program_o *q = expr__load(bytes, n, &alloc.base, &err);
    assert_non_null(q);
    char text2[1024];
    expr__disassemble(q, text2, sizeof text2);
    assert_string_equal(text, text2);
    expr__destroy(q);
    expr__destroy(p);
    assert_int_equal(alloc.live_blocks, 0);
}

/* ---- precedence and folding ---------------------------------------------------------------- */

static void precedence_follows_the_table(void **state)
{
    (void)state;
    assert_true(value_of("-2^2") == -4.0f);
    assert_true(value_of("2^3^2") == 512.0f);
    assert_true(value_of("2^-1") == 0.5f);
    assert_true(value_of("(-2)^3") == -8.0f);
    assert_true(value_of("1 + 2 * 3") == 7.0f);
    assert_true(value_of("(1 + 2) * 3") == 9.0f);
    assert_true(value_of("2 - 3 - 4") == -5.0f);
    assert_true(value_of("8 / 4 / 2") == 1.0f);
    assert_true(value_of("7 % 3") == 1.0f);
    assert_true(value_of("-7 % 3") == 2.0f);
    assert_true(value_of("7 % -3") == -2.0f);
    assert_true(value_of("1 < 2 && 3 > 2") == 1.0f);
    assert_true(value_of("1 + 1 == 2") == 1.0f);
    assert_true(value_of("0 || 0 && 1") == 0.0f);
    assert_true(value_of("1 || 0 && 0") == 1.0f);
    assert_true(value_of("!0 + !5") == 1.0f);
    assert_true(value_of("2 <= 2 != 0") == 1.0f);
    assert_true(value_of("-(-3)") == 3.0f);
    assert_true(value_of("+4 - -4") == 8.0f);
    assert_true(value_of("1e2 + .5 + 2.5E-1") == 100.75f);
    assert_true(value_of("a = 2; b = a * a; b + a") == 6.0f);
    assert_true(value_of("2 * sin(pi)") == 2.0f * value_of("sin(pi)"));
}

static void constants_fold_to_one_push(void **state)
{
    (void)state;
    static const char *const inputs[] = {"t"};
    ct_expr_error_t err;
    ct_expr_program_o *p = compile_in("2 * sin(pi) + t * (3 - 1)", inputs, 1, NULL, 0, &err);
    assert_non_null(p);
    char text[512];
    expr__disassemble(p, text, sizeof text);
    /* t * 2 first, then + the folded 2 * sin(pi). */
    assert_non_null(strstr(text, "0000 mulk_in 0 (t) 2\n0002 add_k "));
    assert_false(p->constant_mask & 1u);
    expr__destroy(p);
    p = compile_in("x = 3\ny = x * 2\ny + 1", NULL, 0, NULL, 0, &err);
    assert_non_null(p);
    assert_int_equal(p->num_code, 3); /* push_const 7, store_end */
    assert_true(p->constant_values[0] == 7.0f);
    expr__destroy(p);
}

/* ---- functions ------------------------------------------------------------------------------ */

static void functions_give_fixed_values(void **state)
{
    (void)state;
    assert_true(value_of("min(2, 3)") == 2.0f);
    assert_true(value_of("max(2, 3)") == 3.0f);
    assert_true(value_of("clamp(5, 0, 1)") == 1.0f);
    assert_true(value_of("clamp(-5, 0, 1)") == 0.0f);
    assert_true(value_of("lerp(2, 4, 0.25)") == 2.5f);
    assert_true(value_of("smoothstep(0, 1, 0.5)") == 0.5f);
    assert_true(value_of("smoothstep(0, 1, 2)") == 1.0f);
    assert_true(value_of("select(0, 1, 2)") == 2.0f);
    assert_true(value_of("select(-1, 1, 2)") == 1.0f);
    assert_true(value_of("abs(-3.5)") == 3.5f);
    assert_true(value_of("floor(-0.5)") == -1.0f);
    assert_true(value_of("floor(2.75)") == 2.0f);
    assert_true(value_of("floor(1e10)") == 1e10f);
    assert_true(value_of("sqrt(16)") == 4.0f);
    assert_true(value_of("exp(0)") == 1.0f);
    assert_true(value_of("log(1)") == 0.0f);
    assert_true(value_of("pow(2, 0)") == 1.0f);
    assert_true(value_of("pow(0, 0)") == 1.0f);
    assert_true(value_of("pow(0, 2.5)") == 0.0f);
    /* Constant exponents no int holds (once converted to int before their range was checked). */
    assert_true(value_of("1^1e30") == 1.0f);
    assert_true(isinf(value_of("2^1e30")));
    assert_true(value_of("pow(0.5, 3e9)") == 0.0f);
    assert_true(value_of("sin(0)") == 0.0f);
    assert_true(value_of("cos(0)") == 1.0f);
    assert_true(value_of("atan2(0, 1)") == 0.0f);
    assert_true(isinf(value_of("exp(100)")));
    assert_true(value_of("exp(-100)") == 0.0f);
    assert_true(isinf(value_of("log(0)")) && value_of("log(0)") < 0);
    assert_true(isnan(value_of("log(-1)")));
    assert_true(isnan(value_of("pow(-2, 0.5)")));
    /* Fixed bits of the polynomials. */
    assert_int_equal(bits(value_of("exp(1)")), 0x402df854);
    assert_int_equal(bits(value_of("log(10)")), 0x40135d8e);
    assert_int_equal(bits(value_of("atan2(1, -2)")), 0x402b6374);
    assert_int_equal(bits(value_of("tan(1)")), 0x3fc75924);
    assert_int_equal(bits(value_of("pow(2, 0.5)")), 0x3fb504f3);
    assert_int_equal(bits(value_of("rand(1)")), bits(value_of("rand(1)")));
    assert_int_equal(bits(value_of("rand(1)")), 0x3f51adf5);
    assert_int_equal(bits(value_of("noise(0.5)")), 0xbdeafae8);
    assert_true(value_of("rand(1)") != value_of("rand(2)"));
}

/* The polynomials against libm in double over their documented ranges. */
static void functions_are_accurate(void **state)
{
    (void)state;
    static const char *const inputs[] = {"x"};
    static const struct {
        const char *src;
        double (*ref)(double);
        double lo, hi, abs_err, rel_err;
    } cases[] = {
        {"sin(x)", sin, -100, 100, 2.5e-7, 0}, {"cos(x)", cos, -100, 100, 2.5e-7, 0},
        {"sin(x)", sin, -1e4, 1e4, 1e-5, 0},   {"exp(x)", exp, -80, 80, 0, 3e-7},
        {"log(x)", log, 1e-30, 1e30, 0, 3e-7}, {"log(x)", log, 0.5, 2, 3e-7, 0},
        {"tan(x)", tan, -1.4, 1.4, 0, 1e-6},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ct_expr_error_t err;
        ct_expr_program_o *p = compile_in(cases[c].src, inputs, 1, NULL, 0, &err);
        assert_non_null(p);
        const bool geometric = cases[c].lo > 0 && cases[c].hi / cases[c].lo > 1e3;
        for (int i = 0; i <= 20000; i++) {
            double u = i / 20000.0;
            double xd = geometric ? cases[c].lo * pow(cases[c].hi / cases[c].lo, u)
                                  : cases[c].lo + (cases[c].hi - cases[c].lo) * u;
            float x = (float)xd, out;
            expr__eval(p, &x, &out);
            double ref = cases[c].ref((double)x);
            double e = fabs((double)out - ref);
            double limit = cases[c].abs_err + cases[c].rel_err * fabs(ref);
            if (!(e <= limit))
                fail_msg("%s at %.9g: %.9g, libm %.9g", cases[c].src, (double)x, (double)out, ref);
        }
        expr__destroy(p);
    }
    /* atan2 over the circle. */
    static const char *const xy[] = {"y", "x"};
    ct_expr_error_t err;
    ct_expr_program_o *p = compile_in("atan2(y, x)", xy, 2, NULL, 0, &err);
    for (int i = 0; i < 4000; i++) {
        float in[2] = {(float)sin(i * 0.00157 - 3.1), (float)cos(i * 0.00157 - 3.1) * 3.0f}, out;
        expr__eval(p, in, &out);
        assert_true(fabs((double)out - atan2((double)in[0], (double)in[1])) < 4e-7);
    }
    expr__destroy(p);
    /* Meaningless but bounded and finite from 1e5 to 7e6, as the header says. */
    static const char *const far[] = {"sin(x)", "cos(x)", "tan(x)"};
    for (size_t f = 0; f < 3; f++) {
        p = compile_in(far[f], inputs, 1, NULL, 0, &err);
        assert_non_null(p);
        for (int i = 0; i <= 20000; i++) {
            const float x = (float)(1e5 * pow(70.0, i / 20000.0)) * (i % 2 ? -1.0f : 1.0f);
            float out;
            expr__eval(p, &x, &out);
            if (!isfinite(out) || (f < 2 && fabsf(out) > 1.0f))
                fail_msg("%s at %.9g: %.9g", far[f], (double)x, (double)out);
        }
        expr__destroy(p);
    }
}

/* ---- errors --------------------------------------------------------------------------------- */

static void errors_name_the_place(void **state)
{
    (void)state;
    static const char *const inputs[] = {"t", "speed"};
    ct_expr_error_t err;
    assert_null(compile_in("speed * (t + ", inputs, 2, NULL, 0, &err));
    assert_int_equal(err.line, 1);
    assert_int_equal(err.column, 13);
    assert_string_equal(err.message, "expected an operand");
    assert_string_equal(err.text, "1:13: expected an operand\n  speed * (t + \n              ^");

    assert_error("sped * t", 1, 1, "unknown name 'sped' (did you mean 'speed'?)");
    assert_error("sinn(t)", 1, 1, "unknown function 'sinn' (did you mean 'sin'?)");
    assert_error("t * qqqq", 1, 5, "unknown name 'qqqq'");
    assert_error("1 +* 2", 1, 4, "expected an operand");
    assert_error("1 2", 1, 3, "expected an operator");
    assert_error("t (1)", 1, 3, "expected an operator");
    assert_error("(1 + t", 1, 1, "'(' is never closed");
    assert_error("1 + t)", 1, 6, "')' without a matching '('");
    assert_error("sin", 1, 1, "'sin' is a function: write sin(...)");
    assert_error("sin(1, 2)", 1, 1, "sin takes 1 argument, not 2");
    assert_error("min(t)", 1, 1, "min takes 2 arguments, not 1");
    assert_error("sin()", 1, 1, "sin takes 1 argument, not 0");
    assert_error("()", 1, 2, "expected an operand");
    assert_error("1, 2", 1, 2, "',' outside a function's arguments");
    assert_error("t $ 2", 1, 3, "unexpected character '$'");
    assert_error("t = 1", 1, 1, "'t' is an input; it cannot be set");
    assert_error("pi = 3", 1, 1, "'pi' is a built-in name; it cannot be set");
    assert_error("a = 1\na = 2\na", 2, 1, "'a' is set twice");
    assert_error("t\nt + 1", 2, 1,
                 "a statement follows a bare expression; write 'name = ...' before it or put "
                 "the bare expression last");
    assert_error("1 + t = 2", 1, 7,
                 "'=' sets a name at the start of a statement (compare with '==')");
    assert_error("t +\n", 1, 4, "expected an operand");
    assert_error("a = t\n\n  b = a +", 3, 10, "expected an operand");
    assert_error("", 1, 1, "expected an operand");
    assert_error("a = 2", 1, 6, "expected an operand");
}

static void limits_are_bounded_with_a_message(void **state)
{
    (void)state;
    char src[CT_EXPR_MAX_SOURCE + 64];
    /* Nesting. */
    size_t n = 0;
    for (int i = 0; i < 33; i++)
        src[n++] = '(';
    src[n++] = 't';
    for (int i = 0; i < 33; i++)
        src[n++] = ')';
    src[n] = '\0';
    assert_error(src, 1, 33, "nesting deeper than 32");
    /* Stack depth: a right-associative chain pushes every operand first. */
    n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)sprintf(src + n, "t^");
    src[n++] = 't';
    src[n] = '\0';
    assert_error(src, 1, 65, "expression needs more than 32 values on the stack at once");
    /* Length. */
    memset(src, ' ', CT_EXPR_MAX_SOURCE + 1);
    src[0] = 't';
    src[CT_EXPR_MAX_SOURCE + 1] = '\0';
    ct_expr_error_t err;
    assert_null(compile_in(src, NULL, 0, NULL, 0, &err));
    assert_int_equal(err.line, 0);
    assert_string_equal(err.message, "expression longer than 4096 bytes");
    /* Code size: a long sum of negated inputs that cannot fold (a word per byte). */
    n = 0;
    while (n < CT_EXPR_MAX_SOURCE - 8)
        n += (size_t)sprintf(src + n, "-t+");
    src[n++] = 't';
    src[n] = '\0';
    assert_null(compile_in(src, (const char *const[]){"t"}, 1, NULL, 0, &err));
    assert_string_equal(err.message, "expression too long: more than 2048 bytecode words");
    /* Bad declarations. */
    assert_null(compile_in("1", (const char *const[]){"sin"}, 1, NULL, 0, &err));
    assert_string_equal(err.message, "input name 'sin' is a built-in name");
    assert_null(compile_in("1", (const char *const[]){"a b"}, 1, NULL, 0, &err));
    assert_null(compile_in("1", (const char *const[]){"a", "a"}, 2, NULL, 0, &err));
    assert_string_equal(err.message, "name 'a' is declared twice");
    assert_int_equal(alloc.live_blocks, 0);
}

/* ---- several outputs ------------------------------------------------------------------------- */

static void outputs_share_a_local(void **state)
{
    (void)state;
    static const char *const inputs[] = {"x", "y", "z"};
    static const char *const outputs[] = {"fx", "fy", "fz"};
    ct_expr_error_t err;
    ct_expr_program_o *p = compile_in("r = sqrt(x*x + z*z) + 1\n"
                                      "fx = -z / r; fy = 2\n"
                                      "fz = x / r",
                                      inputs, 3, outputs, 3, &err);
    if (!p)
        fail_msg("%s", err.text);
    const float in[3] = {3.0f, 7.0f, 4.0f};
    float out[3];
    expr__eval(p, in, out);
    if (out[0] != -4.0f / 6.0f)
        fail_msg("fx %.9g %.9g %.9g", (double)out[0], (double)out[1], (double)out[2]);
    assert_true(out[1] == 2.0f);
    assert_true(out[2] == 3.0f / 6.0f);
    assert_false(p->constant_mask & 1u);
    assert_true(p->constant_mask & 2u);
    assert_int_equal(p->num_locals, 1);
    /* The local is computed once: one sqrt in the code. */
    char text[1024];
    expr__disassemble(p, text, sizeof text);
    const char *code = strchr(text, '\n');
    assert_non_null(strstr(code, "sqrt"));
    assert_null(strstr(strstr(code, "sqrt") + 1, "sqrt"));
    expr__destroy(p);

    assert_null(compile_in("fx = x", inputs, 3, outputs, 3, &err));
    assert_string_equal(err.message, "output 'fy' is never set");
    assert_null(compile_in("fx = x; fy = 1; fz = 2; fx = 3", inputs, 3, outputs, 3, &err));
    assert_string_equal(err.message, "'fx' is set twice");
    /* An output may be named like an input: reading reads the input. */
    static const char *const v_in[] = {"vx", "dt"};
    static const char *const v_out[] = {"vx"};
    p = compile_in("vx = vx - 2 * dt", v_in, 2, v_out, 1, &err);
    assert_non_null(p);
    expr__eval(p, (const float[]){3.0f, 0.5f}, out);
    assert_true(out[0] == 2.0f);
    expr__destroy(p);
    /* A bare last expression sets output 0. */
    p = compile_in("fy = 1; fz = 2; x + 1", inputs, 3, outputs, 3, &err);
    assert_non_null(p);
    expr__eval(p, in, out);
    assert_true(out[0] == 4.0f);
    expr__destroy(p);
}

/* ---- the three evaluations agree ------------------------------------------------------------- */

#define N 1000u

/* in + in * in, either way round, is one operation of three inputs; a polynomial in Horner's
 * form is one operation a degree. */
static void fused_operations(void **state)
{
    (void)state;
    static const char *const inputs[] = {"a", "b", "t"};
    static const char *const sources[] = {"a + b * t", "b * t + a"};
    for (size_t s = 0; s < 2; s++) {
        ct_expr_error_t err;
        ct_expr_program_o *p = compile_in(sources[s], inputs, 3, NULL, 0, &err);
        assert_non_null(p);
        char text[512];
        expr__disassemble(p, text, sizeof text);
        if (!strstr(text, "0000 add_muliii 0 1 2 (a b t)\n0001 store_end 0\n"))
            fail_msg("%s:\n%s", sources[s], text);
        const float in[3] = {1.5f, 0.25f, 3.0f};
        float out;
        expr__eval(p, in, &out);
        assert_true(out == 2.25f);
        expr__destroy(p);
    }
    /* Horner's scheme: every step is one operation, and the last takes the trailing constant. */
    ct_expr_error_t err;
    ct_expr_program_o *p =
        compile_in("((0.5 * t - 1.5) * t + 2) * t - 7", inputs, 3, NULL, 0, &err);
    assert_non_null(p);
    char text[512];
    expr__disassemble(p, text, sizeof text);
    if (!strstr(text, "0000 mulk_in 2 (t) 0.5\n0002 addk_mulin 2 (t) -1.5\n"
                      "0004 addk_mulin_addk 2 (t) 2 -7\n0007 store_end 0\n"))
        fail_msg("%s", text);
    const float in[3] = {0, 0, 3.0f};
    float out;
    expr__eval(p, in, &out);
    assert_true(out == ((0.5f * 3 - 1.5f) * 3 + 2) * 3 - 7);
    expr__destroy(p);
}

/* A whole program of one operation and its store, or a polynomial in one input, runs without
 * the VM (expr__entry picks its form); each gives the VM's bits on the same code, and the
 * batch's. */
static void whole_program_forms_skip_the_vm(void **state)
{
    (void)state;
    static const char *const inputs[] = {"t", "a", "b"};
    static const struct {
        const char *src, *listing;
    } cases[] = {
        {"a + b * t", "0000 add_muliii 1 2 0 (a b t)\n0001 store_end 0\n"},
        {"t * b + a", "0000 add_muliii 1 0 2 (a t b)\n0001 store_end 0\n"},
        {"a + b", "0000 add_ii 1 2 (a b)\n0001 store_end 0\n"},
        {"a - t", "0000 sub_ii 1 0 (a t)\n0001 store_end 0\n"},
        {"b * t", "0000 mul_ii 2 0 (b t)\n0001 store_end 0\n"},
        {"t / a", "0000 div_ii 0 1 (t a)\n0001 store_end 0\n"},
        {"2.5 * t", "0000 mulk_in 0 (t) 2.5\n0002 store_end 0\n"},
        {"sin(3 * t)", "0000 sin_kin 0 (t) 3\n0002 store_end 0\n"},
        {"cos(t * 0.5)", "0000 cos_kin 0 (t) 0.5\n0002 store_end 0\n"},
        {"b", "0000 push_input 2 (b)\n0001 store_end 0\n"},
        {"sin(1) * 2", "0000 push_const 1.68294191\n0002 store_end 0\n"},
        {"((0.5 * t - 1.5) * t + 2) * t - 7",
         "0002 addk_mulin 0 (t) -1.5\n0004 addk_mulin_addk 0 (t) 2 -7\n0007 store_end 0\n"},
        {"(2 * a + 1) * a", "0000 mulk_in 1 (a) 2\n0002 addk_mulin 1 (a) 1\n0004 store_end 0\n"},
        {"(((0.5 * t - 1.5) * t + 2) * t - 7) * t + 0.25",
         "0006 addk_mulin_addk 0 (t) -7 0.25\n0009 store_end 0\n"},
    };
    static float t[N], a[N], b[N], batch[N];
    for (uint32_t i = 0; i < N; i++) {
        t[i] = (float)i * 0.37f - 180.0f;
        a[i] = (float)(i % 13) * 0.25f - 1.0f;
        b[i] = (float)(i % 7) * 1.5f + 0.5f;
    }
    t[3] = 0.0f;
    t[9] = NAN;
    t[11] = INFINITY;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ct_expr_error_t err;
        ct_expr_program_o *p = compile_in(cases[c].src, inputs, 3, NULL, 0, &err);
        if (!p)
            fail_msg("%s", err.text);
        char text[512];
        expr__disassemble(p, text, sizeof text);
        if (!strstr(text, cases[c].listing))
            fail_msg("%s:\n%s", cases[c].src, text);
        if (!p->entry)
            fail_msg("%s: no form of its own", cases[c].src);
        expr__eval_batch(p, (const float *const[]){t, a, b}, (float *const[]){batch}, N);
        const uint32_t entry = p->entry;
        for (uint32_t i = 0; i < N; i++) {
            const float in[3] = {t[i], a[i], b[i]};
            float form = -1.0f, vm = -2.0f;
            p->entry = entry;
            expr__eval(p, in, &form);
            p->entry = 0; /* the same code through the VM */
            expr__eval(p, in, &vm);
            if (same_bits(form) != same_bits(vm) || same_bits(form) != same_bits(batch[i]))
                fail_msg("%s at t = %g: form 0x%08x, vm 0x%08x, batch 0x%08x", cases[c].src,
                         (double)t[i], bits(form), bits(vm), bits(batch[i]));
        }
        p->entry = entry;
        /* Loaded from its bytes, it starts the same way. */
        uint8_t bytes[256];
        const size_t n = expr__save(p, bytes, sizeof bytes);
        ct_expr_program_o *q = expr__load(bytes, n, &alloc.base, &err);
        assert_non_null(q);
        assert_int_equal(q->entry, entry);
        expr__destroy(q);
        expr__destroy(p);
    }
    /* Two outputs, two operations, a Horner chain over two inputs or with more after it go
     * through the VM. */
    static const char *const vm_sources[] = {"x = a + b; y = t", "a + b * t + 1", "sin(t)",
                                             "(3 * t + 1) * a + 2",
                                             "((t * 3 - 1) * t + 0.5) * t * t"};
    for (size_t c = 0; c < sizeof vm_sources / sizeof vm_sources[0]; c++) {
        ct_expr_error_t err;
        static const char *const xy[] = {"x", "y"};
        ct_expr_program_o *p =
            compile_in(vm_sources[c], inputs, 3, c == 0 ? xy : NULL, c == 0 ? 2 : 0, &err);
        if (!p)
            fail_msg("%s", err.text);
        assert_int_equal(p->entry, 0);
        expr__destroy(p);
    }
}

static void batch_gives_the_scalar_bits(void **state)
{
    (void)state;
    static const char *const sources[] = {
        "sin(t) + 0.1 * cos(10 * t)",
        "((0.5 * t - 1.5) * t + 2) * t - 7",
        "exp(t * 0.1) + log(abs(t) + 1e-3) + tan(t) + atan2(t, speed)",
        "pow(abs(t), speed) + t^3 + t^-2 + sqrt(abs(t)) + floor(t) + t % 2.5",
        "select(t > 0, min(t, speed), max(t, speed)) + clamp(t, -1, 1) + lerp(t, speed, 0.3)",
        "smoothstep(-5, 5, t) + rand(t) + noise(t * speed) + (t <= speed) + (t != 0) + !(t == 1)",
        "(t >= 1 || speed < 0) && t / speed + 1 / t - (2 - t) + 3 / speed",
        "sqrt(t * t + speed * speed + t * speed + 1) + (t + 2) * speed + t * speed / t - t / speed",
        "t + speed * t - (speed * speed + t) * 2",
        "sin(t * 37) * cos(t * 100) + sin(t * 1e5) + cos(t * 3e4)",
        /* Horner chains of every length the batch fuses, one longer, one on two inputs. */
        "(2 * t + 1) * t",
        "((t * 3 - 1) * t + 0.5) * t * t",
        "(((0.5 * t - 1.5) * t + 2) * t - 7) * t + 0.25",
        "((((0.1 * t + 0.2) * t + 0.3) * t + 0.4) * t + 0.5) * t",
        "(3 * t + 1) * speed + 2",
    };
    static const char *const inputs[] = {"t", "speed"};
    static float t[N], speed[N], scalar[N], batch[N], copy[N];
    for (uint32_t i = 0; i < N; i++) {
        t[i] = (float)i * 0.37f - 180.0f + (i % 7 == 0 ? 0.5f : 0.0f);
        speed[i] = (float)(i % 13) * 0.25f - 1.0f;
    }
    t[3] = 0.0f;
    t[5] = -0.0f;
    t[9] = NAN;
    t[11] = INFINITY;
    for (size_t s = 0; s < sizeof sources / sizeof sources[0]; s++) {
        ct_expr_error_t err;
        ct_expr_program_o *p = compile_in(sources[s], inputs, 2, NULL, 0, &err);
        if (!p)
            fail_msg("%s", err.text);
        for (uint32_t i = 0; i < N; i++) {
            const float in[2] = {t[i], speed[i]};
            expr__eval(p, in, &scalar[i]);
        }
        const int64_t before = alloc.allocations;
        for (uint32_t width = 4; width <= 8; width += 4) {
            expr__force_lanes(width);
            for (uint32_t count = N; count >= N - 130; count -= 130) {
                memset(batch, 0, sizeof batch);
                expr__eval_batch(p, (const float *const[]){t, speed}, (float *const[]){batch},
                                 count);
                for (uint32_t i = 0; i < count; i++)
                    if (same_bits(batch[i]) != same_bits(scalar[i]))
                        fail_msg("%s, %u lanes, lane %u (t = %g): batch 0x%08x, scalar 0x%08x",
                                 sources[s], width, i, (double)t[i], bits(batch[i]),
                                 bits(scalar[i]));
            }
            /* The output may be an input array. */
            memcpy(copy, t, sizeof copy);
            expr__eval_batch(p, (const float *const[]){copy, speed}, (float *const[]){copy}, N);
            for (uint32_t i = 0; i < N; i++)
                assert_int_equal(same_bits(copy[i]), same_bits(scalar[i]));
        }
        expr__force_lanes(0);
        assert_int_equal(alloc.allocations, before); /* evaluation allocates nothing */
        expr__destroy(p);
    }
}

/* ---- saved bytes ----------------------------------------------------------------------------- */

static void load_refuses_bad_bytes(void **state)
{
    (void)state;
    static const char *const inputs[] = {"t"};
    ct_expr_error_t err;
    ct_expr_program_o *p = compile_in("a = t * 2; a + sin(a)", inputs, 1, NULL, 0, &err);
    assert_non_null(p);
    uint8_t bytes[512], bad[512];
    size_t n = expr__save(p, bytes, sizeof bytes);
    assert_int_equal(n, expr__save(p, NULL, 0));
    ct_expr_program_o *q = expr__load(bytes, n, &alloc.base, &err);
    assert_non_null(q);
    float x = 0.75f, a, b;
    expr__eval(p, &x, &a);
    expr__eval(q, &x, &b);
    assert_int_equal(bits(a), bits(b));
    expr__destroy(q);
    /* Truncated, or one longer. */
    assert_null(expr__load(bytes, n - 1, &alloc.base, &err));
    assert_null(expr__load(bytes, 10, &alloc.base, &err));
    /* A wrong magic. */
    memcpy(bad, bytes, n);
    bad[0] ^= 1;
    assert_null(expr__load(bad, n, &alloc.base, &err));
    assert_string_equal(err.message, "expression bytes: not a version 1 program");
    /* Every single-word change of the code either loads a valid program or is refused. */
    const size_t code_at = 4u * (9u + 1u);
    for (size_t w = 0; w < p->num_code; w++) {
        static const uint32_t evil[] = {0xff000000u, 0x02000005u, 0x03000000u, 0x05000001u,
                                        0x00000000u, 0x13000000u, 0x06000001u};
        for (size_t e = 0; e < sizeof evil / sizeof evil[0]; e++) {
            memcpy(bad, bytes, n);
            bad[code_at + 4 * w] = (uint8_t)evil[e];
            bad[code_at + 4 * w + 1] = (uint8_t)(evil[e] >> 8);
            bad[code_at + 4 * w + 2] = (uint8_t)(evil[e] >> 16);
            bad[code_at + 4 * w + 3] = (uint8_t)(evil[e] >> 24);
            q = expr__load(bad, n, &alloc.base, &err);
            if (q) {
                expr__eval(q, &x, &b); /* verified, so it runs in bounds */
                expr__destroy(q);
            } else {
                assert_non_null(strstr(err.message, "invalid program: "));
            }
        }
    }
    expr__destroy(p);
    assert_int_equal(alloc.live_blocks, 0);
}

int main(void)
{
    test_alloc_init(&alloc);
    printf("expr lanes: %s\n", expr__lanes_name());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_example_compiles_to_the_posts_rpn),
        cmocka_unit_test(precedence_follows_the_table),
        cmocka_unit_test(constants_fold_to_one_push),
        cmocka_unit_test(functions_give_fixed_values),
        cmocka_unit_test(functions_are_accurate),
        cmocka_unit_test(errors_name_the_place),
        cmocka_unit_test(limits_are_bounded_with_a_message),
        cmocka_unit_test(outputs_share_a_local),
        cmocka_unit_test(fused_operations),
        cmocka_unit_test(whole_program_forms_skip_the_vm),
        cmocka_unit_test(batch_gives_the_scalar_bits),
        cmocka_unit_test(load_refuses_bad_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
