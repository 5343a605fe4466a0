/* The expression module's private contract: the bytecode, the program block, and the core
 * functions that know nothing of the kernel (tests and the benchmark compile them directly). */
#ifndef EXPR_INTERNAL_H
#define EXPR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ct_expr.h"

/* Every operation: name (EXPR_OP_<name>), the token the listing shows, how many values it pops
 * and pushes, and whether a constant word follows it. One list makes the enum, the listing, the
 * verifier's stack effects and the folding table, so they cannot disagree. */
#define EXPR_OPS(X)                                                                                \
    X(END, "end", 0, 0, 0)                                                                         \
    X(PUSH_CONST, "push_const", 0, 1, 1)                                                           \
    X(PUSH_INPUT, "push_input", 0, 1, 0)                                                           \
    X(PUSH_LOCAL, "push_local", 0, 1, 0)                                                           \
    X(STORE_LOCAL, "store_local", 1, 0, 0)                                                         \
    X(STORE_OUTPUT, "store_output", 1, 0, 0)                                                       \
    X(NEG, "neg", 1, 1, 0)                                                                         \
    X(NOT, "!", 1, 1, 0)                                                                           \
    X(ABS, "abs", 1, 1, 0)                                                                         \
    X(FLOOR, "floor", 1, 1, 0)                                                                     \
    X(SQRT, "sqrt", 1, 1, 0)                                                                       \
    X(SIN, "sin", 1, 1, 0)                                                                         \
    X(COS, "cos", 1, 1, 0)                                                                         \
    X(TAN, "tan", 1, 1, 0)                                                                         \
    X(EXP, "exp", 1, 1, 0)                                                                         \
    X(LOG, "log", 1, 1, 0)                                                                         \
    X(RAND, "rand", 1, 1, 0)                                                                       \
    X(NOISE, "noise", 1, 1, 0)                                                                     \
    X(POWI, "powi", 1, 1, 0)                                                                       \
    X(ADD, "+", 2, 1, 0)                                                                           \
    X(SUB, "-", 2, 1, 0)                                                                           \
    X(MUL, "*", 2, 1, 0)                                                                           \
    X(DIV, "/", 2, 1, 0)                                                                           \
    X(MOD, "%", 2, 1, 0)                                                                           \
    X(POW, "^", 2, 1, 0)                                                                           \
    X(LT, "<", 2, 1, 0)                                                                            \
    X(LE, "<=", 2, 1, 0)                                                                           \
    X(GT, ">", 2, 1, 0)                                                                            \
    X(GE, ">=", 2, 1, 0)                                                                           \
    X(EQ, "==", 2, 1, 0)                                                                           \
    X(NE, "!=", 2, 1, 0)                                                                           \
    X(AND, "&&", 2, 1, 0)                                                                          \
    X(OR, "||", 2, 1, 0)                                                                           \
    X(MIN, "min", 2, 1, 0)                                                                         \
    X(MAX, "max", 2, 1, 0)                                                                         \
    X(ATAN2, "atan2", 2, 1, 0)                                                                     \
    X(ADD_K, "add_k", 1, 1, 1)                                                                     \
    X(SUB_K, "sub_k", 1, 1, 1)                                                                     \
    X(RSUB_K, "rsub_k", 1, 1, 1)                                                                   \
    X(MUL_K, "mul_k", 1, 1, 1)                                                                     \
    X(DIV_K, "div_k", 1, 1, 1)                                                                     \
    X(RDIV_K, "rdiv_k", 1, 1, 1)                                                                   \
    X(ADD_IN, "add_in", 1, 1, 0)                                                                   \
    X(SUB_IN, "sub_in", 1, 1, 0)                                                                   \
    X(RSUB_IN, "rsub_in", 1, 1, 0)                                                                 \
    X(MUL_IN, "mul_in", 1, 1, 0)                                                                   \
    X(DIV_IN, "div_in", 1, 1, 0)                                                                   \
    X(RDIV_IN, "rdiv_in", 1, 1, 0)                                                                 \
    X(MULADD_K, "muladd_k", 1, 1, 2)                                                               \
    X(ADD_II, "add_ii", 0, 1, 0)                                                                   \
    X(SUB_II, "sub_ii", 0, 1, 0)                                                                   \
    X(MUL_II, "mul_ii", 0, 1, 0)                                                                   \
    X(DIV_II, "div_ii", 0, 1, 0)                                                                   \
    X(STORE_END, "store_end", 1, 0, 0)                                                             \
    X(MULK_IN, "mulk_in", 0, 1, 1)                                                                 \
    X(ADDK_MULIN, "addk_mulin", 1, 1, 1)                                                           \
    X(ADD_MULII, "add_mulii", 1, 1, 0)                                                             \
    X(SELECT, "select", 3, 1, 0)                                                                   \
    X(CLAMP, "clamp", 3, 1, 0)                                                                     \
    X(LERP, "lerp", 3, 1, 0)                                                                       \
    X(SMOOTHSTEP, "smoothstep", 3, 1, 0)                                                           \
    X(ADD_MULIII, "add_muliii", 0, 1, 0)                                                           \
    X(ADDK_MULIN_ADDK, "addk_mulin_addk", 1, 1, 2)                                                 \
    X(ADD_MULK, "add_mulk", 2, 1, 1)                                                               \
    X(SIN_KIN, "sin_kin", 0, 1, 1)                                                                 \
    X(COS_KIN, "cos_kin", 0, 1, 1)

enum {
#define EXPR_OP_ENUM(name, text, pops, pushes, has_k) EXPR_OP_##name,
    EXPR_OPS(EXPR_OP_ENUM)
#undef EXPR_OP_ENUM
        EXPR_OP_COUNT
};

/* A word: the operation in the upper 8 bits, the operand in the lower 24 (POWI's is a signed
 * exponent in two's complement; the _II operations' two inputs are its lower and upper 12 bits).
 * STORE_END stores an output and ends the program in one word. */
#define EXPR_WORD(op, data) (((uint32_t)(op) << 24) | ((uint32_t)(data)&0xffffffu))
#define EXPR_WORD_OP(w) ((w) >> 24)
#define EXPR_WORD_DATA(w) ((w)&0xffffffu)
#define EXPR_II(a, b) ((uint32_t)(a) | (uint32_t)(b) << 12)
#define EXPR_II_A(d) ((d)&0xfffu)
#define EXPR_II_B(d) ((d) >> 12)
/* ADD_MULIII's three inputs, 8 bits each (a + b * c: in[A] + in[B] * in[C]). New operations go
 * at the end of the list: saved programs keep their numbers. */
#define EXPR_III(a, b, c) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16)
#define EXPR_III_A(d) ((d)&0xffu)
#define EXPR_III_B(d) (((d) >> 8) & 0xffu)
#define EXPR_III_C(d) ((d) >> 16)

typedef struct expr_op_info_t {
    const char *text;
    uint8_t pops, pushes, has_k;
} expr_op_info_t;
extern const expr_op_info_t expr__ops[EXPR_OP_COUNT];

/* A program is one block: this header, then `num_code` words, then the names (inputs, then
 * outputs, each NUL-terminated) and the RPN text, NUL-terminated. Nothing in it changes after
 * compile, so threads share it freely. */
struct ct_expr_program_o {
    ct_allocator_t *allocator; /* where the block came from */
    uint32_t size;             /* bytes of the whole block */
    uint32_t num_inputs, num_outputs, num_locals;
    uint32_t max_stack; /* values on the stack at the deepest point */
    uint32_t num_code;  /* words, END included */
    uint32_t seed;      /* as given; mixed by expr__seed_mix for rand and noise */
    uint32_t seed_mix;
    uint32_t constant_mask; /* bit o: output o is constant */
    float constant_values[CT_EXPR_MAX_NAMES];
    uint32_t names_offset; /* bytes from the block's start */
    uint32_t names_size;   /* the names' and the RPN text's bytes */
    uint32_t entry;        /* where expr__eval starts (expr__entry), derived from the code */
    uint32_t code[];
};

/* The names of a program's inputs then outputs, and the RPN text after them. */
const char *expr__names(const ct_expr_program_o *p);
const char *expr__rpn(const ct_expr_program_o *p);
/* The name of input i or output num_inputs + o ("" for an unnamed output). */
const char *expr__name(const ct_expr_program_o *p, uint32_t i);

/* The nearest name from a list, for "did you mean"; the module passes the kernel's. */
typedef const char *(*expr_nearest_f)(const char *word, const char *const *names, uint32_t count);

ct_expr_program_o *expr__compile(const char *source, const ct_expr_desc_t *desc,
                                 ct_allocator_t *fallback, expr_nearest_f nearest,
                                 ct_expr_error_t *err);
void expr__destroy(ct_expr_program_o *p);
/* Builds the block around finished code, names and RPN (compile and load share it); checks the
 * code with expr__verify first. NULL with err filled on failure. */
ct_expr_program_o *expr__build(const uint32_t *code, uint32_t num_code, uint32_t num_inputs,
                               uint32_t num_outputs, uint32_t num_locals, uint32_t seed,
                               uint32_t constant_mask, const float *constant_values,
                               const char *names, uint32_t names_size, ct_allocator_t *a,
                               ct_expr_error_t *err);
/* Checks code word by word: known operations, indices below the counts, no stack underflow,
 * at most CT_EXPR_MAX_STACK deep, every output stored once, END last. Writes the deepest
 * stack into *max_stack. Returns NULL, or the reason. */
const char *expr__verify(const uint32_t *code, uint32_t num_code, uint32_t num_inputs,
                         uint32_t num_outputs, uint32_t num_locals, uint32_t *max_stack);

uint32_t expr__seed_mix(uint32_t seed);
/* One operation on scalars (constant folding uses exactly what eval runs). */
float expr__apply(uint32_t word, float k, const float *args, uint32_t seed_mix);

void expr__eval(const ct_expr_program_o *p, const float *inputs, float *outputs);
/* Where expr__eval starts a verified program: the first word's operation, or, for a whole
 * program of one operation and its store (`a + b * t`, `sin(3 * t)`), a form of that operation
 * that stores and returns, so the call dispatches once. Derived when a program is built (compiled
 * or loaded), never saved: the bytecode and its listing stay as they are. */
uint32_t expr__entry(const uint32_t *code, uint32_t num_code);
/* The calling thread's batch: lanes of 8 where the CPU has AVX2, else 4. */
void expr__eval_batch(const ct_expr_program_o *p, const float *const *inputs, float *const *outputs,
                      uint32_t count);
/* eval_batch split into ranges of whole blocks over the job pool (inline without one). */
struct ct_jobs_api_v1;
void expr__eval_jobs(const ct_expr_program_o *p, const float *const *inputs, float *const *outputs,
                     uint32_t count, const struct ct_jobs_api_v1 *jobs);
/* Which lanes eval_batch uses ("avx2", "sse2", "portable"); `force` (tests, the benchmark)
 * picks one: 8, 4 or 0 for automatic. */
const char *expr__lanes_name(void);
void expr__force_lanes(uint32_t width);

/* Lanes per block of the batch VM; blocks are what eval_jobs hands out. */
#define EXPR_BLOCK 128u

/* The batch VM over one block of EXPR_BLOCK lanes; each width's file defines one. */
typedef void (*expr_block_f)(const ct_expr_program_o *p, const float *const *inputs,
                             float *const *outputs);
void expr__block_lanes4(const ct_expr_program_o *p, const float *const *inputs,
                        float *const *outputs);
void expr__block_lanes8(const ct_expr_program_o *p, const float *const *inputs,
                        float *const *outputs);
/* Whether expr__block_lanes8 exists in this build and the CPU runs it. */
int expr__lanes8_available(void);

size_t expr__disassemble(const ct_expr_program_o *p, char *buf, size_t size);
size_t expr__save(const ct_expr_program_o *p, void *buf, size_t size);
ct_expr_program_o *expr__load(const void *bytes, size_t size, ct_allocator_t *a,
                              ct_expr_error_t *err);

/* Fills err with a message about no place. */
void expr__error(ct_expr_error_t *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
