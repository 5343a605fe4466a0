/* The lane operations of expr_math.h and expr_lanes_vm.h for four floats in SSE2, on top of the
 * modules' shared lanes (modules/common/lanes_f32x4.h) plus the compares and integer operations
 * only the expression VM needs. Each rounds as expr_ops_scalar.h does; compares follow C's
 * (ordered, != unordered), min and max are C's ternaries (minps and maxps are exactly those).
 * No include guard: one inclusion per file. */
#include <emmintrin.h>

#include "../common/lanes_f32x4.h"

#define EXPR_W 4
typedef f32x4 V;
typedef mask32x4 M;
typedef __m128i I;

/* SSE2 has no 32-bit low multiply (SSE4.1's pmulld): two 32x32->64 products of the even and
 * the odd lanes, their low halves put back in place. */
static inline I i4_mul(I a, I b)
{
    __m128i even = _mm_mul_epu32(a, b);
    __m128i odd = _mm_mul_epu32(_mm_srli_si128(a, 4), _mm_srli_si128(b, 4));
    return _mm_unpacklo_epi32(_mm_shuffle_epi32(even, _MM_SHUFFLE(0, 0, 2, 0)),
                              _mm_shuffle_epi32(odd, _MM_SHUFFLE(0, 0, 2, 0)));
}

#define EXPR_SFX(name) l4_##name
#define V_K(c) f32x4_splat((float)(c))
#define V_ADD(a, b) f32x4_add((a), (b))
#define V_SUB(a, b) f32x4_sub((a), (b))
#define V_MUL(a, b) f32x4_mul((a), (b))
#define V_DIV(a, b) f32x4_div((a), (b))
#define V_SQRT(a) f32x4_sqrt(a)
#define V_NEG(a) _mm_xor_ps((a), _mm_set1_ps(-0.0f))
#define V_ABS(a) _mm_andnot_ps(_mm_set1_ps(-0.0f), (a))
#define V_MIN(a, b) _mm_min_ps((a), (b))
#define V_MAX(a, b) f32x4_max((a), (b))
#define M_LT(a, b) _mm_cmplt_ps((a), (b))
#define M_LE(a, b) _mm_cmple_ps((a), (b))
#define M_GT(a, b) _mm_cmpgt_ps((a), (b))
#define M_GE(a, b) _mm_cmpge_ps((a), (b))
#define M_EQ(a, b) _mm_cmpeq_ps((a), (b))
#define M_NE(a, b) _mm_cmpneq_ps((a), (b))
#define M_IPOS(i) _mm_castsi128_ps(_mm_cmpgt_epi32((i), _mm_setzero_si128()))
#define M_OR(a, b) mask32x4_or((a), (b))
#define M_AND(a, b) _mm_and_ps((a), (b))
#define V_SEL(m, yes, no) f32x4_pick((m), (yes), (no))
#define I_K(c) _mm_set1_epi32((int32_t)(c))
#define I_ADD(a, b) _mm_add_epi32((a), (b))
#define I_SUB(a, b) _mm_sub_epi32((a), (b))
#define I_AND(a, b) _mm_and_si128((a), (b))
#define I_OR(a, b) _mm_or_si128((a), (b))
#define I_XOR(a, b) _mm_xor_si128((a), (b))
#define I_MUL(a, b) i4_mul((a), (b))
#define I_SHL(a, n) _mm_slli_epi32((a), (n))
#define I_SHR(a, n) _mm_srli_epi32((a), (n))
#define V_BITS(v) _mm_castps_si128(v)
#define V_FROM_BITS(i) _mm_castsi128_ps(i)
#define V_FROM_I(i) _mm_cvtepi32_ps(i)
#define I_FROM_V(v) _mm_cvttps_epi32(v)
#define V_LOAD(p) _mm_loadu_ps(p)
#define V_STORE(p, v) _mm_storeu_ps((p), (v))
