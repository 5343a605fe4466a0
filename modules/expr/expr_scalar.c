/* One evaluation: the stack machine over single floats, the top of the stack kept in a
 * register. Constant folding calls expr__apply, which runs the very same functions. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "expr_internal.h"

/* GCC merges the threaded dispatch's many `goto *labels[...]` into one shared indirect jump
 * (cross-jumping, and GCSE hoisting the table load), which then predicts badly: sqrt(x*x + y*y +
 * z*z + t) took 11 ns instead of 7. These two passes are off for this file only; neither changes
 * what an operation computes. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-crossjumping", "no-gcse")
#endif

#include "expr_ops_scalar.h"
#include "expr_math.h"

uint32_t expr__seed_mix(uint32_t seed) { return s_hash(seed ^ 0x6a09e667u); }

float expr__apply(uint32_t word, float k, const float *a, uint32_t seed_mix)
{
    switch (EXPR_WORD_OP(word)) {
    case EXPR_OP_NEG: return -a[0];
    case EXPR_OP_NOT: return s_bool(a[0] == 0.0f);
    case EXPR_OP_ABS: return fabsf(a[0]);
    case EXPR_OP_FLOOR: return s_floor(a[0]);
    case EXPR_OP_SQRT: return V_SQRT(a[0]);
    case EXPR_OP_SIN: return s_sin(a[0]);
    case EXPR_OP_COS: return s_cos(a[0]);
    case EXPR_OP_TAN: return s_tan(a[0]);
    case EXPR_OP_EXP: return s_exp(a[0]);
    case EXPR_OP_LOG: return s_log(a[0]);
    case EXPR_OP_RAND: return s_rand(a[0], seed_mix);
    case EXPR_OP_NOISE: return s_noise(a[0], seed_mix);
    case EXPR_OP_POWI: return s_powi(a[0], (int32_t)(EXPR_WORD_DATA(word) << 8) >> 8);
    case EXPR_OP_ADD: return a[0] + a[1];
    case EXPR_OP_SUB: return a[0] - a[1];
    case EXPR_OP_MUL: return a[0] * a[1];
    case EXPR_OP_DIV: return a[0] / a[1];
    case EXPR_OP_MOD: return s_mod(a[0], a[1]);
    case EXPR_OP_POW: return s_pow(a[0], a[1]);
    case EXPR_OP_LT: return s_bool(a[0] < a[1]);
    case EXPR_OP_LE: return s_bool(a[0] <= a[1]);
    case EXPR_OP_GT: return s_bool(a[0] > a[1]);
    case EXPR_OP_GE: return s_bool(a[0] >= a[1]);
    case EXPR_OP_EQ: return s_bool(a[0] == a[1]);
    case EXPR_OP_NE: return s_bool(a[0] != a[1]);
    case EXPR_OP_AND: return s_bool((a[0] != 0.0f) & (a[1] != 0.0f));
    case EXPR_OP_OR: return s_bool((a[0] != 0.0f) | (a[1] != 0.0f));
    case EXPR_OP_MIN: return V_MIN(a[0], a[1]);
    case EXPR_OP_MAX: return V_MAX(a[0], a[1]);
    case EXPR_OP_ATAN2: return s_atan2(a[0], a[1]);
    case EXPR_OP_ADD_K: return a[0] + k;
    case EXPR_OP_SUB_K: return a[0] - k;
    case EXPR_OP_RSUB_K: return k - a[0];
    case EXPR_OP_MUL_K: return a[0] * k;
    case EXPR_OP_DIV_K: return a[0] / k;
    case EXPR_OP_RDIV_K: return k / a[0];
    case EXPR_OP_SELECT: return a[0] != 0.0f ? a[1] : a[2];
    case EXPR_OP_CLAMP: return s_clamp(a[0], a[1], a[2]);
    case EXPR_OP_LERP: return s_lerp(a[0], a[1], a[2]);
    case EXPR_OP_SMOOTHSTEP: return s_smoothstep(a[0], a[1], a[2]);
    default: return 0.0f; /* pushes and stores are never folded */
    }
}

static inline float word_float(uint32_t w) { return v_from_bits(w); }

/* Whole programs of one operation and its store: when the code is just [op (its constant),
 * store_end o] and the operation is one of these, expr__eval computes, stores and returns
 * without entering the VM (no frame, no dispatch), the way a library's node for `a + b * t` is
 * one call. HORNER is a polynomial in one input: mulk_in, then addk_mulin steps on the same
 * input, perhaps ending with addk_mulin_addk, then store_end. Their numbers (1 up; 0 is the VM)
 * live only in a built program, never in its words, so the bytecode format does not change. */
#define EXPR_FORMS(X)                                                                              \
    X(PUSH_CONST)                                                                                  \
    X(PUSH_INPUT)                                                                                  \
    X(ADD_II)                                                                                      \
    X(SUB_II)                                                                                      \
    X(MUL_II)                                                                                      \
    X(DIV_II)                                                                                      \
    X(MULK_IN)                                                                                     \
    X(ADD_MULIII)                                                                                  \
    X(SIN_KIN)                                                                                     \
    X(COS_KIN)

enum {
    EXPR_FORM_VM,
#define EXPR_FORM_ENUM(name) EXPR_FORM_##name,
    EXPR_FORMS(EXPR_FORM_ENUM)
#undef EXPR_FORM_ENUM
        EXPR_FORM_HORNER
};

/* Whether the code is a HORNER form: k * in, at least one (x + k) * in on the same input, the
 * last perhaps with its + k, then the store that ends the program. */
static bool is_horner(const uint32_t *code, uint32_t num_code)
{
    if (EXPR_WORD_OP(code[0]) != EXPR_OP_MULK_IN)
        return false;
    const uint32_t in = EXPR_WORD_DATA(code[0]);
    uint32_t pc = 2, steps = 0;
    while (pc < num_code && EXPR_WORD_OP(code[pc]) == EXPR_OP_ADDK_MULIN &&
           EXPR_WORD_DATA(code[pc]) == in) {
        pc += 2;
        steps++;
    }
    if (pc < num_code && EXPR_WORD_OP(code[pc]) == EXPR_OP_ADDK_MULIN_ADDK &&
        EXPR_WORD_DATA(code[pc]) == in) {
        pc += 3;
        steps++;
    }
    return steps && pc + 1 == num_code && EXPR_WORD_OP(code[pc]) == EXPR_OP_STORE_END;
}

uint32_t expr__entry(const uint32_t *code, uint32_t num_code)
{
    if (is_horner(code, num_code))
        return EXPR_FORM_HORNER;
    const uint32_t op = EXPR_WORD_OP(code[0]);
    const uint32_t store = 1u + expr__ops[op].has_k;
    if (num_code != store + 1 || EXPR_WORD_OP(code[store]) != EXPR_OP_STORE_END)
        return EXPR_FORM_VM;
    switch (op) {
#define EXPR_FORM_CASE(name)                                                                       \
    case EXPR_OP_##name: return EXPR_FORM_##name;
        EXPR_FORMS(EXPR_FORM_CASE)
#undef EXPR_FORM_CASE
    default: return EXPR_FORM_VM;
    }
}

/* The dispatch: threaded code (a jump table of label addresses, one indirect jump per operation,
 * each predicted on its own) with GCC and clang, a switch elsewhere. OP and NEXT are the two
 * spellings of "an operation starts" and "go to the next one". */
#if defined(__GNUC__) && !defined(EXPR_SWITCH_DISPATCH)
#define EXPR_THREADED 1
#define EXPR_LABEL(name, text, pops, pushes, has_k) &&L_##name,
#define OP(name) L_##name
#define NEXT()                                                                                     \
    do {                                                                                           \
        w = *pc++;                                                                                 \
        goto *labels[EXPR_WORD_OP(w)];                                                             \
    } while (0)
#else
#define OP(name) case EXPR_OP_##name
#define NEXT() continue
#endif
#define D EXPR_WORD_DATA(w)

/* The whole-program forms come first and touch no stack array, so the compiler sets up the VM's
 * frame only on the VM's path. The function starts on a 64-byte line: how its branches fall in
 * the lines moved a one-operation call by up to 0.6 ns between builds of the same code. */
#if defined(__GNUC__)
__attribute__((aligned(64)))
#endif
void expr__eval(const ct_expr_program_o *p, const float *in, float *out)
{
    if (p->entry != EXPR_FORM_VM) {
        const uint32_t *code = p->code;
        const uint32_t w = code[0];
        switch (p->entry) {
        case EXPR_FORM_PUSH_CONST: out[EXPR_WORD_DATA(code[2])] = word_float(code[1]); return;
        case EXPR_FORM_PUSH_INPUT: out[EXPR_WORD_DATA(code[1])] = in[D]; return;
        case EXPR_FORM_ADD_II:
            out[EXPR_WORD_DATA(code[1])] = in[EXPR_II_A(D)] + in[EXPR_II_B(D)];
            return;
        case EXPR_FORM_SUB_II:
            out[EXPR_WORD_DATA(code[1])] = in[EXPR_II_A(D)] - in[EXPR_II_B(D)];
            return;
        case EXPR_FORM_MUL_II:
            out[EXPR_WORD_DATA(code[1])] = in[EXPR_II_A(D)] * in[EXPR_II_B(D)];
            return;
        case EXPR_FORM_DIV_II:
            out[EXPR_WORD_DATA(code[1])] = in[EXPR_II_A(D)] / in[EXPR_II_B(D)];
            return;
        case EXPR_FORM_MULK_IN: out[EXPR_WORD_DATA(code[2])] = in[D] * word_float(code[1]); return;
        case EXPR_FORM_ADD_MULIII:
            out[EXPR_WORD_DATA(code[1])] =
                in[EXPR_III_A(D)] + in[EXPR_III_B(D)] * in[EXPR_III_C(D)];
            return;
        case EXPR_FORM_SIN_KIN:
            out[EXPR_WORD_DATA(code[2])] = s_sin(in[D] * word_float(code[1]));
            return;
        case EXPR_FORM_COS_KIN:
            out[EXPR_WORD_DATA(code[2])] = s_cos(in[D] * word_float(code[1]));
            return;
        case EXPR_FORM_HORNER: {
            const float t = in[D];
            float v = t * word_float(code[1]);
            const uint32_t *q = code + 2;
            for (; EXPR_WORD_OP(*q) == EXPR_OP_ADDK_MULIN; q += 2)
                v = (v + word_float(q[1])) * t;
            if (EXPR_WORD_OP(*q) == EXPR_OP_ADDK_MULIN_ADDK) {
                v = (v + word_float(q[1])) * t + word_float(q[2]);
                q += 3;
            }
            out[EXPR_WORD_DATA(*q)] = v;
            return;
        }
        default: break; /* expr__entry gives no other */
        }
    }
    /* The stack below the top; the program was verified to stay within CT_EXPR_MAX_STACK. */
    float stack[CT_EXPR_MAX_STACK + 1], local[CT_EXPR_MAX_LOCALS];
    float *sp = stack, a = 0.0f;
    const uint32_t *pc = p->code;
    const uint32_t seed = p->seed_mix;
    uint32_t w;
#ifdef EXPR_THREADED
    static const void *const labels[EXPR_OP_COUNT] = {EXPR_OPS(EXPR_LABEL)};
    NEXT();
#else
    for (;;) {
        w = *pc++;
        switch (EXPR_WORD_OP(w)) {
#endif
    OP(END) : return;
    OP(PUSH_CONST) : *sp++ = a;
    a = word_float(*pc++);
    NEXT();
    OP(PUSH_INPUT) : *sp++ = a;
    a = in[D];
    NEXT();
    OP(PUSH_LOCAL) : *sp++ = a;
    a = local[D];
    NEXT();
    OP(STORE_LOCAL) : local[D] = a;
    a = *--sp;
    NEXT();
    OP(STORE_OUTPUT) : out[D] = a;
    a = *--sp;
    NEXT();
    OP(NEG) : a = -a;
    NEXT();
    OP(NOT) : a = s_bool(a == 0.0f);
    NEXT();
    OP(ABS) : a = fabsf(a);
    NEXT();
    OP(FLOOR) : a = s_floor(a);
    NEXT();
    OP(SQRT) : a = V_SQRT(a);
    NEXT();
    OP(SIN) : a = s_sin(a);
    NEXT();
    OP(COS) : a = s_cos(a);
    NEXT();
    OP(TAN) : a = s_tan(a);
    NEXT();
    OP(EXP) : a = s_exp(a);
    NEXT();
    OP(LOG) : a = s_log(a);
    NEXT();
    OP(RAND) : a = s_rand(a, seed);
    NEXT();
    OP(NOISE) : a = s_noise(a, seed);
    NEXT();
    OP(POWI) : a = s_powi(a, (int32_t)(D << 8) >> 8);
    NEXT();
    OP(ADD) : a = *--sp + a;
    NEXT();
    OP(SUB) : a = *--sp - a;
    NEXT();
    OP(MUL) : a = *--sp * a;
    NEXT();
    OP(DIV) : a = *--sp / a;
    NEXT();
    OP(MOD) : sp--;
    a = s_mod(*sp, a);
    NEXT();
    OP(POW) : sp--;
    a = s_pow(*sp, a);
    NEXT();
    OP(LT) : sp--;
    a = s_bool(*sp < a);
    NEXT();
    OP(LE) : sp--;
    a = s_bool(*sp <= a);
    NEXT();
    OP(GT) : sp--;
    a = s_bool(*sp > a);
    NEXT();
    OP(GE) : sp--;
    a = s_bool(*sp >= a);
    NEXT();
    OP(EQ) : sp--;
    a = s_bool(*sp == a);
    NEXT();
    OP(NE) : sp--;
    a = s_bool(*sp != a);
    NEXT();
    OP(AND) : sp--;
    a = s_bool((*sp != 0.0f) & (a != 0.0f));
    NEXT();
    OP(OR) : sp--;
    a = s_bool((*sp != 0.0f) | (a != 0.0f));
    NEXT();
    OP(MIN) : sp--;
    a = V_MIN(*sp, a);
    NEXT();
    OP(MAX) : sp--;
    a = V_MAX(*sp, a);
    NEXT();
    OP(ATAN2) : sp--;
    a = s_atan2(*sp, a);
    NEXT();
    OP(ADD_K) : a = a + word_float(*pc++);
    NEXT();
    OP(SUB_K) : a = a - word_float(*pc++);
    NEXT();
    OP(RSUB_K) : a = word_float(*pc++) - a;
    NEXT();
    OP(MUL_K) : a = a * word_float(*pc++);
    NEXT();
    OP(DIV_K) : a = a / word_float(*pc++);
    NEXT();
    OP(RDIV_K) : a = word_float(*pc++) / a;
    NEXT();
    OP(ADD_IN) : a = a + in[D];
    NEXT();
    OP(SUB_IN) : a = a - in[D];
    NEXT();
    OP(RSUB_IN) : a = in[D] - a;
    NEXT();
    OP(MUL_IN) : a = a * in[D];
    NEXT();
    OP(DIV_IN) : a = a / in[D];
    NEXT();
    OP(RDIV_IN) : a = in[D] / a;
    NEXT();
    OP(MULADD_K) : a = a * word_float(pc[0]) + word_float(pc[1]);
    pc += 2;
    NEXT();
    OP(ADD_II) : *sp++ = a;
    a = in[EXPR_II_A(D)] + in[EXPR_II_B(D)];
    NEXT();
    OP(SUB_II) : *sp++ = a;
    a = in[EXPR_II_A(D)] - in[EXPR_II_B(D)];
    NEXT();
    OP(MUL_II) : *sp++ = a;
    a = in[EXPR_II_A(D)] * in[EXPR_II_B(D)];
    NEXT();
    OP(DIV_II) : *sp++ = a;
    a = in[EXPR_II_A(D)] / in[EXPR_II_B(D)];
    NEXT();
    OP(STORE_END) : out[D] = a;
    return;
    OP(MULK_IN) : *sp++ = a;
    a = in[D] * word_float(*pc++);
    NEXT();
    OP(ADD_MULII) : a = a + in[EXPR_II_A(D)] * in[EXPR_II_B(D)];
    NEXT();
    OP(ADDK_MULIN) : a = (a + word_float(*pc++)) * in[D];
    NEXT();
    OP(SELECT) : sp -= 2;
    a = sp[0] != 0.0f ? sp[1] : a;
    NEXT();
    OP(CLAMP) : sp -= 2;
    a = s_clamp(sp[0], sp[1], a);
    NEXT();
    OP(LERP) : sp -= 2;
    a = s_lerp(sp[0], sp[1], a);
    NEXT();
    OP(SMOOTHSTEP) : sp -= 2;
    a = s_smoothstep(sp[0], sp[1], a);
    NEXT();
    OP(ADDK_MULIN_ADDK) : a = (a + word_float(pc[0])) * in[D] + word_float(pc[1]);
    pc += 2;
    NEXT();
    OP(ADD_MULK) : a = *--sp + a * word_float(*pc++);
    NEXT();
    OP(SIN_KIN) : *sp++ = a;
    a = s_sin(in[D] * word_float(*pc++));
    NEXT();
    OP(COS_KIN) : *sp++ = a;
    a = s_cos(in[D] * word_float(*pc++));
    NEXT();
    OP(ADD_MULIII) : *sp++ = a;
    a = in[EXPR_III_A(D)] + in[EXPR_III_B(D)] * in[EXPR_III_C(D)];
    NEXT();
#ifndef EXPR_THREADED
default: return; /* verified programs hold no other word */
}
}
#endif
}
