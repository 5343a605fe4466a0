/* The lane operations of expr_math.h and expr_lanes_vm.h for one float: plain C, which every
 * compiler rounds the same way (IEEE single precision, no contraction: the build says
 * -ffp-contract=off). expr_scalar.c uses it, and so does the batch VM where the CPU has no
 * vector unit we use (a "lane" of one). No include guard: one inclusion per file. */
#include <math.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#define EXPR_W 1
typedef float V;
typedef int M;
typedef uint32_t I;

static inline I v_bits(V v)
{
    I i;
    memcpy(&i, &v, sizeof i);
    return i;
}

static inline V v_from_bits(I i)
{
    V v;
    memcpy(&v, &i, sizeof v);
    return v;
}

/* sqrtf without its errno path: a negative argument made the VM call the C library, which put
 * the whole interpreter's state in saved registers. sqrtss is IEEE's correctly rounded square
 * root, like sqrtps in the lanes. */
static inline V s_sqrt_(V a)
{
#if defined(__SSE__)
    return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(a)));
#else
    return sqrtf(a);
#endif
}

#ifndef EXPR_SFX
#define EXPR_SFX(name) s_##name
#endif
#define V_K(c) ((float)(c))
#define V_ADD(a, b) ((a) + (b))
#define V_SUB(a, b) ((a) - (b))
#define V_MUL(a, b) ((a) * (b))
#define V_DIV(a, b) ((a) / (b))
#define V_SQRT(a) s_sqrt_(a)
#define V_NEG(a) (-(a))
#define V_ABS(a) fabsf(a)
#define V_MIN(a, b) ((a) < (b) ? (a) : (b))
#define V_MAX(a, b) ((a) > (b) ? (a) : (b))
#define M_LT(a, b) ((a) < (b))
#define M_LE(a, b) ((a) <= (b))
#define M_GT(a, b) ((a) > (b))
#define M_GE(a, b) ((a) >= (b))
#define M_EQ(a, b) ((a) == (b))
#define M_NE(a, b) ((a) != (b))
#define M_IPOS(i) ((int32_t)(i) > 0)
#define M_OR(a, b) ((a) | (b))
#define M_AND(a, b) ((a) & (b))
#define V_SEL(m, yes, no) ((m) ? (yes) : (no))
#define I_K(c) ((I)(c))
#define I_ADD(a, b) ((a) + (b))
#define I_SUB(a, b) ((a) - (b))
#define I_AND(a, b) ((a) & (b))
#define I_OR(a, b) ((a) | (b))
#define I_XOR(a, b) ((a) ^ (b))
#define I_MUL(a, b) ((a) * (b))
#define I_SHL(a, n) ((a) << (n))
#define I_SHR(a, n) ((a) >> (n))
#define V_BITS(v) v_bits(v)
#define V_FROM_BITS(i) v_from_bits(i)
#define V_FROM_I(i) ((float)(int32_t)(i))
#define I_FROM_V(v) ((I)(int32_t)(v))
#define V_LOAD(p) (*(p))
#define V_STORE(p, v) (*(p) = (v))
