/* The batch VM in lanes of four: SSE2 on x86-64 (the modules' shared lanes), or, where there
 * is no SSE2 or EXPR_LANES_PORTABLE asks for it (the tests build both), lanes of one float in
 * plain C, which gives the same bits by construction. */
#include <string.h>

#include "expr_internal.h"

#if defined(__SSE2__) && !defined(EXPR_LANES_PORTABLE)
#include "expr_ops_sse2.h"
#define EXPR_LANES4_NAME "sse2"
#else
#define LANES_PORTABLE
#define EXPR_SFX(name) p_##name
#include "expr_ops_scalar.h"
#define EXPR_LANES4_NAME "portable"
#endif
#include "expr_math.h"

#define EXPR_BLOCK_NAME expr__block_lanes4
#include "expr_lanes_vm.h"

const char *expr__lanes4_name(void) { return EXPR_LANES4_NAME; }
