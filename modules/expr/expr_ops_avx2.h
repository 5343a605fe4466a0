/* The lane operations of expr_math.h and expr_lanes_vm.h for eight floats in AVX2 (the file
 * that includes this compiles for AVX2 and runs only where the CPU says it has it). Same
 * rounding and the same compare rules as expr_ops_scalar.h: AVX's arithmetic is IEEE single
 * precision like SSE's, and nothing here fuses a multiply with an add. No include guard. */
#include <immintrin.h>

#define EXPR_W 8
typedef __m256 V;
typedef __m256 M;
typedef __m256i I;

#define EXPR_SFX(name) l8_##name
#define V_K(c) _mm256_set1_ps((float)(c))
#define V_ADD(a, b) _mm256_add_ps((a), (b))
#define V_SUB(a, b) _mm256_sub_ps((a), (b))
#define V_MUL(a, b) _mm256_mul_ps((a), (b))
#define V_DIV(a, b) _mm256_div_ps((a), (b))
#define V_SQRT(a) _mm256_sqrt_ps(a)
#define V_NEG(a) _mm256_xor_ps((a), _mm256_set1_ps(-0.0f))
#define V_ABS(a) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), (a))
#define V_MIN(a, b) _mm256_min_ps((a), (b))
#define V_MAX(a, b) _mm256_max_ps((a), (b))
#define M_LT(a, b) _mm256_cmp_ps((a), (b), _CMP_LT_OQ)
#define M_LE(a, b) _mm256_cmp_ps((a), (b), _CMP_LE_OQ)
#define M_GT(a, b) _mm256_cmp_ps((a), (b), _CMP_GT_OQ)
#define M_GE(a, b) _mm256_cmp_ps((a), (b), _CMP_GE_OQ)
#define M_EQ(a, b) _mm256_cmp_ps((a), (b), _CMP_EQ_OQ)
#define M_NE(a, b) _mm256_cmp_ps((a), (b), _CMP_NEQ_UQ)
#define M_IPOS(i) _mm256_castsi256_ps(_mm256_cmpgt_epi32((i), _mm256_setzero_si256()))
#define M_OR(a, b) _mm256_or_ps((a), (b))
#define M_AND(a, b) _mm256_and_ps((a), (b))
#define V_SEL(m, yes, no) _mm256_blendv_ps((no), (yes), (m))
#define I_K(c) _mm256_set1_epi32((int32_t)(c))
#define I_ADD(a, b) _mm256_add_epi32((a), (b))
#define I_SUB(a, b) _mm256_sub_epi32((a), (b))
#define I_AND(a, b) _mm256_and_si256((a), (b))
#define I_OR(a, b) _mm256_or_si256((a), (b))
#define I_XOR(a, b) _mm256_xor_si256((a), (b))
#define I_MUL(a, b) _mm256_mullo_epi32((a), (b))
#define I_SHL(a, n) _mm256_slli_epi32((a), (n))
#define I_SHR(a, n) _mm256_srli_epi32((a), (n))
#define V_BITS(v) _mm256_castps_si256(v)
#define V_FROM_BITS(i) _mm256_castsi256_ps(i)
#define V_FROM_I(i) _mm256_cvtepi32_ps(i)
#define I_FROM_V(v) _mm256_cvttps_epi32(v)
#define V_ROUND_EVEN(v) _mm256_round_ps((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define V_LOAD(p) _mm256_loadu_ps(p)
#define V_STORE(p, v) _mm256_storeu_ps((p), (v))
