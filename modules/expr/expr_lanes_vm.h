/*
 * expr_lanes_vm.h: the batch VM over one block of EXPR_BLOCK lanes, written once for any lane
 * width (the includer has included an expr_ops_*.h and expr_math.h, and defines
 * EXPR_BLOCK_NAME). No include guard.
 *
 * Each operation runs over the whole block before the next is decoded, so decoding costs once
 * per EXPR_BLOCK lanes. The stack holds pointers: an input or a local is pushed by pointing at
 * it (nothing copied), a result goes into the slot's own buffer, or straight into the output
 * array when the next word stores it there.
 */

/* The loops below are macros because each applies a different lane expression; they hold no
 * control flow beyond the loop over the block. */
#define LANES_UNARY(F)                                                                             \
    do {                                                                                           \
        const float *x_ = ptr[top];                                                                \
        float *d_ = dest(pc, out, buf[top]);                                                       \
        for (uint32_t i = 0; i < EXPR_BLOCK; i += EXPR_W) {                                        \
            V x = V_LOAD(x_ + i);                                                                  \
            V_STORE(d_ + i, F);                                                                    \
        }                                                                                          \
        ptr[top] = d_;                                                                             \
    } while (0)

/* LANES_UNARY for the long functions (sin, cos, tan, exp, log): two vectors a step, so that two
 * independent chains of dependent operations are in flight together. A sine's chain is some
 * twenty operations deep, and one vector a step left the floating-point units waiting on it (the
 * seed's batch: about 0.1 of its 1.2 ns a lane). Each lane still runs the same operations. */
#define LANES_UNARY2(F)                                                                            \
    do {                                                                                           \
        const float *x_ = ptr[top];                                                                \
        float *d_ = dest(pc, out, buf[top]);                                                       \
        for (uint32_t i = 0; i < EXPR_BLOCK; i += 2 * EXPR_W) {                                    \
            V x = V_LOAD(x_ + i);                                                                  \
            const V x2_ = V_LOAD(x_ + i + EXPR_W);                                                 \
            const V r1_ = F;                                                                       \
            x = x2_;                                                                               \
            const V r2_ = F;                                                                       \
            V_STORE(d_ + i, r1_);                                                                  \
            V_STORE(d_ + i + EXPR_W, r2_);                                                         \
        }                                                                                          \
        ptr[top] = d_;                                                                             \
    } while (0)

#define LANES_BINARY(F)                                                                            \
    do {                                                                                           \
        const float *x_ = ptr[top - 1], *y_ = ptr[top];                                            \
        float *d_ = dest(pc, out, buf[top - 1]);                                                   \
        for (uint32_t i = 0; i < EXPR_BLOCK; i += EXPR_W) {                                        \
            V x = V_LOAD(x_ + i), y = V_LOAD(y_ + i);                                              \
            V_STORE(d_ + i, F);                                                                    \
        }                                                                                          \
        ptr[--top] = d_;                                                                           \
    } while (0)

#define LANES_TERNARY(F)                                                                           \
    do {                                                                                           \
        const float *x_ = ptr[top - 2], *y_ = ptr[top - 1], *z_ = ptr[top];                        \
        float *d_ = dest(pc, out, buf[top - 2]);                                                   \
        for (uint32_t i = 0; i < EXPR_BLOCK; i += EXPR_W) {                                        \
            V x = V_LOAD(x_ + i), y = V_LOAD(y_ + i), z = V_LOAD(z_ + i);                          \
            V_STORE(d_ + i, F);                                                                    \
        }                                                                                          \
        top -= 2;                                                                                  \
        ptr[top] = d_;                                                                             \
    } while (0)

/* The longest chain of Horner steps one MULK_IN pass takes on (a cubic has two; longer
 * polynomials continue in passes of their own). */
#define EXPR_HORNER_MAX 3u

/* Where an operation writes: the output array when the next word stores its result there. */
static inline float *EXPR_SFX(dest_)(const uint32_t *pc, float *const *out, float *own)
{
    const uint32_t op = EXPR_WORD_OP(*pc);
    return op == EXPR_OP_STORE_OUTPUT || op == EXPR_OP_STORE_END ? out[EXPR_WORD_DATA(*pc)] : own;
}
#define dest EXPR_SFX(dest_)

static inline void EXPR_SFX(fill_)(float *d, float k)
{
    V v = V_K(k);
    for (uint32_t i = 0; i < EXPR_BLOCK; i += EXPR_W)
        V_STORE(d + i, v);
}

void EXPR_BLOCK_NAME(const ct_expr_program_o *p, const float *const *in, float *const *out)
{
    _Alignas(64) float buf[CT_EXPR_MAX_STACK][EXPR_BLOCK];
    _Alignas(64) float local[CT_EXPR_MAX_LOCALS][EXPR_BLOCK];
    const float *ptr[CT_EXPR_MAX_STACK];
    int top = -1;
    const uint32_t *pc = p->code;
    const uint32_t seed = p->seed_mix;
    float kf;
    for (;;) {
        const uint32_t w = *pc++;
        const uint32_t d = EXPR_WORD_DATA(w);
        switch (EXPR_WORD_OP(w)) {
        case EXPR_OP_END: return;
        case EXPR_OP_PUSH_CONST:
            memcpy(&kf, pc++, sizeof kf);
            top++;
            EXPR_SFX(fill_)(buf[top], kf);
            ptr[top] = buf[top];
            break;
        case EXPR_OP_PUSH_INPUT: ptr[++top] = in[d]; break;
        case EXPR_OP_PUSH_LOCAL: ptr[++top] = local[d]; break;
        case EXPR_OP_STORE_LOCAL:
            if (ptr[top] != local[d])
                memcpy(local[d], ptr[top], sizeof local[d]);
            top--;
            break;
        case EXPR_OP_STORE_OUTPUT:
            if (ptr[top] != out[d])
                memcpy(out[d], ptr[top], EXPR_BLOCK * sizeof(float));
            top--;
            break;
        case EXPR_OP_STORE_END:
            if (ptr[top] != out[d])
                memcpy(out[d], ptr[top], EXPR_BLOCK * sizeof(float));
            return;
        case EXPR_OP_NEG: LANES_UNARY(V_NEG(x)); break;
        case EXPR_OP_NOT: LANES_UNARY(EXPR_SFX(bool)(M_EQ(x, V_K(0.0f)))); break;
        case EXPR_OP_ABS: LANES_UNARY(V_ABS(x)); break;
        case EXPR_OP_FLOOR: LANES_UNARY(EXPR_SFX(floor)(x)); break;
        case EXPR_OP_SQRT: LANES_UNARY(V_SQRT(x)); break;
        case EXPR_OP_SIN: LANES_UNARY2(EXPR_SFX(sin)(x)); break;
        case EXPR_OP_COS: LANES_UNARY2(EXPR_SFX(cos)(x)); break;
        case EXPR_OP_TAN: LANES_UNARY2(EXPR_SFX(tan)(x)); break;
        case EXPR_OP_EXP: LANES_UNARY2(EXPR_SFX(exp)(x)); break;
        case EXPR_OP_LOG: LANES_UNARY2(EXPR_SFX(log)(x)); break;
        case EXPR_OP_RAND: LANES_UNARY(EXPR_SFX(rand)(x, seed)); break;
        case EXPR_OP_NOISE: LANES_UNARY(EXPR_SFX(noise)(x, seed)); break;
        case EXPR_OP_POWI: {
            const int32_t n = (int32_t)(d << 8) >> 8;
            LANES_UNARY(EXPR_SFX(powi)(x, n));
            break;
        }
        case EXPR_OP_ADD: LANES_BINARY(V_ADD(x, y)); break;
        case EXPR_OP_SUB: LANES_BINARY(V_SUB(x, y)); break;
        case EXPR_OP_MUL: LANES_BINARY(V_MUL(x, y)); break;
        case EXPR_OP_DIV: LANES_BINARY(V_DIV(x, y)); break;
        case EXPR_OP_MOD: LANES_BINARY(EXPR_SFX(mod)(x, y)); break;
        case EXPR_OP_POW: LANES_BINARY(EXPR_SFX(pow)(x, y)); break;
        case EXPR_OP_LT: LANES_BINARY(EXPR_SFX(bool)(M_LT(x, y))); break;
        case EXPR_OP_LE: LANES_BINARY(EXPR_SFX(bool)(M_LE(x, y))); break;
        case EXPR_OP_GT: LANES_BINARY(EXPR_SFX(bool)(M_GT(x, y))); break;
        case EXPR_OP_GE: LANES_BINARY(EXPR_SFX(bool)(M_GE(x, y))); break;
        case EXPR_OP_EQ: LANES_BINARY(EXPR_SFX(bool)(M_EQ(x, y))); break;
        case EXPR_OP_NE: LANES_BINARY(EXPR_SFX(bool)(M_NE(x, y))); break;
        case EXPR_OP_AND:
            LANES_BINARY(EXPR_SFX(bool)(M_AND(M_NE(x, V_K(0.0f)), M_NE(y, V_K(0.0f)))));
            break;
        case EXPR_OP_OR:
            LANES_BINARY(EXPR_SFX(bool)(M_OR(M_NE(x, V_K(0.0f)), M_NE(y, V_K(0.0f)))));
            break;
        case EXPR_OP_MIN: LANES_BINARY(V_MIN(x, y)); break;
        case EXPR_OP_MAX: LANES_BINARY(V_MAX(x, y)); break;
        case EXPR_OP_ATAN2: LANES_BINARY(EXPR_SFX(atan2)(x, y)); break;
        case EXPR_OP_ADD_K: {
            memcpy(&kf, pc++, sizeof kf);
            const V k = V_K(kf);
            LANES_UNARY(V_ADD(x, k));
            break;
        }
        case EXPR_OP_SUB_K: {
            memcpy(&kf, pc++, sizeof kf);
            const V k = V_K(kf);
            LANES_UNARY(V_SUB(x, k));
            break;
        }
        case EXPR_OP_RSUB_K: {
            memcpy(&kf, pc++, sizeof kf);
            const V k = V_K(kf);
            LANES_UNARY(V_SUB(k, x));
            break;
        }
        case EXPR_OP_MUL_K: {
            memcpy(&kf, pc++, sizeof kf);
            const V k = V_K(kf);
            LANES_UNARY(V_MUL(x, k));
            break;
        }
        case EXPR_OP_DIV_K: {
            memcpy(&kf, pc++, sizeof kf);
            const V k = V_K(kf);
            LANES_UNARY(V_DIV(x, k));
            break;
        }
        case EXPR_OP_RDIV_K: {
            memcpy(&kf, pc++, sizeof kf);
            const V k = V_K(kf);
            LANES_UNARY(V_DIV(k, x));
            break;
        }
        case EXPR_OP_ADD_IN: {
            const float *y_ = in[d];
            LANES_UNARY(V_ADD(x, V_LOAD(y_ + i)));
            break;
        }
        case EXPR_OP_SUB_IN: {
            const float *y_ = in[d];
            LANES_UNARY(V_SUB(x, V_LOAD(y_ + i)));
            break;
        }
        case EXPR_OP_RSUB_IN: {
            const float *y_ = in[d];
            LANES_UNARY(V_SUB(V_LOAD(y_ + i), x));
            break;
        }
        case EXPR_OP_MUL_IN: {
            const float *y_ = in[d];
            LANES_UNARY(V_MUL(x, V_LOAD(y_ + i)));
            break;
        }
        case EXPR_OP_DIV_IN: {
            const float *y_ = in[d];
            LANES_UNARY(V_DIV(x, V_LOAD(y_ + i)));
            break;
        }
        case EXPR_OP_RDIV_IN: {
            const float *y_ = in[d];
            LANES_UNARY(V_DIV(V_LOAD(y_ + i), x));
            break;
        }
        case EXPR_OP_MULADD_K: {
            float k2;
            memcpy(&kf, pc++, sizeof kf);
            memcpy(&k2, pc++, sizeof k2);
            const V k = V_K(kf), b = V_K(k2);
            LANES_UNARY(V_ADD(V_MUL(x, k), b));
            break;
        }
        case EXPR_OP_ADD_II:
        case EXPR_OP_SUB_II:
        case EXPR_OP_MUL_II:
        case EXPR_OP_DIV_II: {
            const float *x_ = in[EXPR_II_A(d)], *y_ = in[EXPR_II_B(d)];
            const uint32_t op = EXPR_WORD_OP(w);
            top++;
            float *d_ = dest(pc, out, buf[top]);
            for (uint32_t i = 0; i < EXPR_BLOCK; i += EXPR_W) {
                const V x = V_LOAD(x_ + i), y = V_LOAD(y_ + i);
                V_STORE(d_ + i, op == EXPR_OP_ADD_II   ? V_ADD(x, y)
                                : op == EXPR_OP_SUB_II ? V_SUB(x, y)
                                : op == EXPR_OP_MUL_II ? V_MUL(x, y)
                                                       : V_DIV(x, y));
            }
            ptr[top] = d_;
            break;
        }
        case EXPR_OP_ADD_MULII: {
            const float *p_ = in[EXPR_II_A(d)], *q_ = in[EXPR_II_B(d)];
            LANES_UNARY(V_ADD(x, V_MUL(V_LOAD(p_ + i), V_LOAD(q_ + i))));
            break;
        }
        case EXPR_OP_ADDK_MULIN: {
            memcpy(&kf, pc++, sizeof kf);
            const V k = V_K(kf);
            const float *y_ = in[d];
            LANES_UNARY(V_MUL(V_ADD(x, k), V_LOAD(y_ + i)));
            break;
        }
        case EXPR_OP_MULK_IN: {
            /* k * in, and the Horner steps on the same input that follow it ((x + k) * in, the
             * last perhaps with its + k: how a polynomial in t compiles): one pass over the block
             * for the whole chain instead of one per step, each lane through the same
             * operations in the same order (batch arith 0.26 -> 0.20 ns a lane). */
            memcpy(&kf, pc++, sizeof kf);
            const float *x_ = in[d];
            float ks[EXPR_HORNER_MAX + 1] = {0};
            uint32_t steps = 0, end = 0;
            while (steps < EXPR_HORNER_MAX && EXPR_WORD_DATA(*pc) == d &&
                   (EXPR_WORD_OP(*pc) == EXPR_OP_ADDK_MULIN ||
                    EXPR_WORD_OP(*pc) == EXPR_OP_ADDK_MULIN_ADDK)) {
                memcpy(&ks[steps++], pc + 1, sizeof kf);
                if (EXPR_WORD_OP(*pc) == EXPR_OP_ADDK_MULIN_ADDK) {
                    memcpy(&ks[EXPR_HORNER_MAX], pc + 2, sizeof kf);
                    end = 1;
                    pc += 3;
                    break;
                }
                pc += 2;
            }
            top++;
            float *d_ = dest(pc, out, buf[top]);
            const V k = V_K(kf), k0 = V_K(ks[0]), k1 = V_K(ks[1]), k2 = V_K(ks[2]),
                    kend = V_K(ks[EXPR_HORNER_MAX]);
            /* Each chain length its own loop, so the constants stay in registers. */
#define HORNER(STEPS)                                                                              \
    for (uint32_t i = 0; i < EXPR_BLOCK; i += EXPR_W) {                                            \
        const V t = V_LOAD(x_ + i);                                                                \
        V v = V_MUL(t, k);                                                                         \
        STEPS;                                                                                     \
        V_STORE(d_ + i, end ? V_ADD(v, kend) : v);                                                 \
    }
#define STEP(kj) v = V_MUL(V_ADD(v, kj), t)
            switch (steps) {
            case 0: HORNER((void)0); break;
            case 1: HORNER(STEP(k0)); break;
            case 2: HORNER(STEP(k0); STEP(k1)); break;
            default: HORNER(STEP(k0); STEP(k1); STEP(k2)); break;
            }
#undef STEP
#undef HORNER
            ptr[top] = d_;
            break;
        }
        case EXPR_OP_SIN_KIN:
        case EXPR_OP_COS_KIN: {
            memcpy(&kf, pc++, sizeof kf);
            const V k = V_K(kf);
            const float *x_ = in[d];
            top++;
            float *d_ = dest(pc, out, buf[top]);
            if (EXPR_WORD_OP(w) == EXPR_OP_SIN_KIN)
                for (uint32_t i = 0; i < EXPR_BLOCK; i += 2 * EXPR_W) {
                    const V a_ = EXPR_SFX(sin)(V_MUL(V_LOAD(x_ + i), k));
                    const V b_ = EXPR_SFX(sin)(V_MUL(V_LOAD(x_ + i + EXPR_W), k));
                    V_STORE(d_ + i, a_);
                    V_STORE(d_ + i + EXPR_W, b_);
                }
            else
                for (uint32_t i = 0; i < EXPR_BLOCK; i += 2 * EXPR_W) {
                    const V a_ = EXPR_SFX(cos)(V_MUL(V_LOAD(x_ + i), k));
                    const V b_ = EXPR_SFX(cos)(V_MUL(V_LOAD(x_ + i + EXPR_W), k));
                    V_STORE(d_ + i, a_);
                    V_STORE(d_ + i + EXPR_W, b_);
                }
            ptr[top] = d_;
            break;
        }
        case EXPR_OP_ADDK_MULIN_ADDK: {
            float k2;
            memcpy(&kf, pc++, sizeof kf);
            memcpy(&k2, pc++, sizeof k2);
            const V k = V_K(kf), b = V_K(k2);
            const float *y_ = in[d];
            LANES_UNARY(V_ADD(V_MUL(V_ADD(x, k), V_LOAD(y_ + i)), b));
            break;
        }
        case EXPR_OP_ADD_MULK: {
            memcpy(&kf, pc++, sizeof kf);
            const V k = V_K(kf);
            LANES_BINARY(V_ADD(x, V_MUL(y, k)));
            break;
        }
        case EXPR_OP_ADD_MULIII: {
            const float *x_ = in[EXPR_III_A(d)], *y_ = in[EXPR_III_B(d)], *z_ = in[EXPR_III_C(d)];
            top++;
            float *d_ = dest(pc, out, buf[top]);
            for (uint32_t i = 0; i < EXPR_BLOCK; i += EXPR_W)
                V_STORE(d_ + i, V_ADD(V_LOAD(x_ + i), V_MUL(V_LOAD(y_ + i), V_LOAD(z_ + i))));
            ptr[top] = d_;
            break;
        }
        case EXPR_OP_SELECT: LANES_TERNARY(V_SEL(M_NE(x, V_K(0.0f)), y, z)); break;
        case EXPR_OP_CLAMP: LANES_TERNARY(EXPR_SFX(clamp)(x, y, z)); break;
        case EXPR_OP_LERP: LANES_TERNARY(EXPR_SFX(lerp)(x, y, z)); break;
        case EXPR_OP_SMOOTHSTEP: LANES_TERNARY(EXPR_SFX(smoothstep)(x, y, z)); break;
        default: return;
        }
    }
}

#undef dest
#undef EXPR_HORNER_MAX
#undef LANES_UNARY
#undef LANES_UNARY2
#undef LANES_BINARY
#undef LANES_TERNARY
