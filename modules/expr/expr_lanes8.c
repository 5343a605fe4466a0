/* The batch VM in lanes of eight with AVX2, compiled for AVX2 whatever the rest of the build
 * targets and chosen at run time only where the CPU has it (expr_batch.c). Wider lanes pay here
 * because a block is long straight-line work over arrays; elsewhere this file is empty. */
#include <string.h>

#include "expr_internal.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(EXPR_LANES_PORTABLE)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#include "expr_ops_avx2.h"
#include "expr_math.h"
#define EXPR_BLOCK_NAME expr__block_lanes8
#include "expr_lanes_vm.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* Asked once: every batch picks its lanes with this. */
int expr__lanes8_available(void)
{
    static _Atomic int known = -1;
    int k = known;
    if (k < 0) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("avx2") ? 1 : 0;
        known = k;
    }
    return k;
}
#else
void expr__block_lanes8(const ct_expr_program_o *p, const float *const *in, float *const *out)
{
    expr__block_lanes4(p, in, out);
}

int expr__lanes8_available(void) { return 0; }
#endif
