/* One evaluation: the stack machine over single floats, the top of the stack kept in a
 * register. Constant folding calls expr__apply, which runs the very same functions. */
#include <math.h>
#include <string.h>

#include "expr_internal.h"

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
    case EXPR_OP_SQRT: return sqrtf(a[0]);
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

void expr__eval(const ct_expr_program_o *p, const float *in, float *out)
{
    /* The stack below the top; the program was verified to stay within CT_EXPR_MAX_STACK. */
    float stack[CT_EXPR_MAX_STACK + 1], local[CT_EXPR_MAX_LOCALS];
    float *sp = stack, a = 0.0f;
    const uint32_t *pc = p->code;
    const uint32_t seed = p->seed_mix;
    for (;;) {
        const uint32_t w = *pc++;
        const uint32_t d = EXPR_WORD_DATA(w);
        switch (EXPR_WORD_OP(w)) {
        case EXPR_OP_END: return;
        case EXPR_OP_PUSH_CONST: *sp++ = a; a = word_float(*pc++); break;
        case EXPR_OP_PUSH_INPUT: *sp++ = a; a = in[d]; break;
        case EXPR_OP_PUSH_LOCAL: *sp++ = a; a = local[d]; break;
        case EXPR_OP_STORE_LOCAL: local[d] = a; a = *--sp; break;
        case EXPR_OP_STORE_OUTPUT: out[d] = a; a = *--sp; break;
        case EXPR_OP_NEG: a = -a; break;
        case EXPR_OP_NOT: a = s_bool(a == 0.0f); break;
        case EXPR_OP_ABS: a = fabsf(a); break;
        case EXPR_OP_FLOOR: a = s_floor(a); break;
        case EXPR_OP_SQRT: a = sqrtf(a); break;
        case EXPR_OP_SIN: a = s_sin(a); break;
        case EXPR_OP_COS: a = s_cos(a); break;
        case EXPR_OP_TAN: a = s_tan(a); break;
        case EXPR_OP_EXP: a = s_exp(a); break;
        case EXPR_OP_LOG: a = s_log(a); break;
        case EXPR_OP_RAND: a = s_rand(a, seed); break;
        case EXPR_OP_NOISE: a = s_noise(a, seed); break;
        case EXPR_OP_POWI: a = s_powi(a, (int32_t)(d << 8) >> 8); break;
        case EXPR_OP_ADD: a = *--sp + a; break;
        case EXPR_OP_SUB: a = *--sp - a; break;
        case EXPR_OP_MUL: a = *--sp * a; break;
        case EXPR_OP_DIV: a = *--sp / a; break;
        case EXPR_OP_MOD: sp--; a = s_mod(*sp, a); break;
        case EXPR_OP_POW: sp--; a = s_pow(*sp, a); break;
        case EXPR_OP_LT: sp--; a = s_bool(*sp < a); break;
        case EXPR_OP_LE: sp--; a = s_bool(*sp <= a); break;
        case EXPR_OP_GT: sp--; a = s_bool(*sp > a); break;
        case EXPR_OP_GE: sp--; a = s_bool(*sp >= a); break;
        case EXPR_OP_EQ: sp--; a = s_bool(*sp == a); break;
        case EXPR_OP_NE: sp--; a = s_bool(*sp != a); break;
        case EXPR_OP_AND: sp--; a = s_bool((*sp != 0.0f) & (a != 0.0f)); break;
        case EXPR_OP_OR: sp--; a = s_bool((*sp != 0.0f) | (a != 0.0f)); break;
        case EXPR_OP_MIN: sp--; a = V_MIN(*sp, a); break;
        case EXPR_OP_MAX: sp--; a = V_MAX(*sp, a); break;
        case EXPR_OP_ATAN2: sp--; a = s_atan2(*sp, a); break;
        case EXPR_OP_ADD_K: a = a + word_float(*pc++); break;
        case EXPR_OP_SUB_K: a = a - word_float(*pc++); break;
        case EXPR_OP_RSUB_K: a = word_float(*pc++) - a; break;
        case EXPR_OP_MUL_K: a = a * word_float(*pc++); break;
        case EXPR_OP_DIV_K: a = a / word_float(*pc++); break;
        case EXPR_OP_RDIV_K: a = word_float(*pc++) / a; break;
        case EXPR_OP_SELECT: sp -= 2; a = sp[0] != 0.0f ? sp[1] : a; break;
        case EXPR_OP_CLAMP: sp -= 2; a = s_clamp(sp[0], sp[1], a); break;
        case EXPR_OP_LERP: sp -= 2; a = s_lerp(sp[0], sp[1], a); break;
        case EXPR_OP_SMOOTHSTEP: sp -= 2; a = s_smoothstep(sp[0], sp[1], a); break;
        default: return; /* verified programs hold no other word */
        }
    }
}
