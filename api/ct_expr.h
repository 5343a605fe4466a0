/*
 * ct_expr.h: the expression language. Module "ct.expr", API "ct.expr".
 *
 * One-line maths that artists and designers write into data instead of a number
 * (after the seed post "A Tiny Expression Language"):
 *
 *     sin(t) + 0.1 * cos(10 * t)
 *
 * is compiled once into bytecode for a small stack machine and then evaluated as often as
 * wanted: once, over a batch of structure-of-arrays inputs (a lane per particle), or over a batch
 * split across the job pool. Particles, animation controllers and force fields are its users.
 *
 * THE LANGUAGE
 *   A program is one or more statements separated by ';' or line breaks:
 *       name = expression      sets an output the host declared, or a local (any other new
 *                              name) that later statements read: a subexpression shared by
 *                              several outputs is written once as a local;
 *       expression             (the last statement only) sets output 0.
 *   With no outputs declared the program has one output (index 0) and is usually just one
 *   expression. Every declared output must be set exactly once, and every name at most once.
 *   An output may have an input's name (`vy = vy - 9.81 * dt`): reading the name reads the
 *   input, setting it sets the output.
 *   Values are 32-bit floats. Numbers: 12, 0.5, .5, 1e-3, 2.5E+2. Names: [A-Za-z_][A-Za-z0-9_]*.
 *   Names the host declares as inputs (t, speed, ...) read the frame's inputs. Constants: pi, tau.
 *   Truth: comparisons and logic give 1 or 0; anything but 0 counts as true (NaN too).
 *
 *   Precedence, loosest first (a row binds tighter than the rows above it):
 *       1  ||                     left        a || b: 1 if either is true
 *       2  &&                     left
 *       3  ==  !=                 left
 *       4  <  <=  >  >=           left
 *       5  +  -                   left
 *       6  *  /  %                left        a % b = a - b * floor(a / b) (sign of b)
 *       7  unary -  +  !          prefix      -a^2 is -(a^2); 2^-1 is 2^(-1)
 *       8  ^                      right       2^3^2 is 2^(3^2) = 512
 *       9  f(...)  ( )  numbers, names
 *   a ^ b is pow(a, b); with a constant integer b in -16..16 it is repeated multiplication
 *   (so (-2)^3 is -8 and x^2 is x*x exactly).
 *
 *   Functions (arguments are evaluated, all of them, left to right):
 *       min(a, b)  max(a, b)       a < b ? a : b,  a > b ? a : b (a NaN b gives b)
 *       clamp(x, lo, hi)           min(max(x, lo), hi)
 *       lerp(a, b, t)              a + (b - a) * t
 *       smoothstep(e0, e1, x)      u = clamp((x - e0) / (e1 - e0), 0, 1); u * u * (3 - 2 * u)
 *       select(c, a, b)            c != 0 ? a : b
 *       abs floor sqrt             exact (IEEE)
 *       sin cos tan                polynomial, error < 2e-7 for |x| < 100, < 1e-5 to |x| < 1e4,
 *                                  finite but meaningless from 1e5 to about 7e6; further out
 *                                  neither bounded nor always finite (sin reduces by pi, cos
 *                                  by odd multiples of pi/2, tan by pi/2)
 *       atan2(y, x)                in [-pi, pi], error < 2e-7
 *       exp(x)                     relative error < 2e-7; 0 below x = -87, inf above 88.72
 *       log(x)                     relative error < 2e-7; -inf at 0, NaN below 0
 *       pow(a, b)                  exp(b * log(a)) (NaN for a < 0 unless b is a constant
 *                                  integer, see ^); pow(0, b) = 0 for b > 0, 1 for b = 0
 *       rand(x)                    in [0, 1): a hash of x's bits and the program's seed, so
 *                                  the same x gives the same number (pass a particle id, t, ...)
 *       noise(x)                   smooth value noise in [-1, 1], period 2^31, seeded like rand
 *   These are the engine's own polynomials, not the C library's, and the scalar and batch
 *   evaluations run the same operations in the same order (no fused multiply-add): a program
 *   gives the same bits for the same inputs in eval, eval_batch and eval_jobs, on any thread,
 *   so replays and lockstep networking stay deterministic. The one exception is NaN: a NaN
 *   result is NaN everywhere, but its sign and payload may differ (which NaN an x86 addition
 *   passes on depends on an operand order C compilers are free to swap).
 *
 * COMPILING
 *   The tokens go through the shunting-yard algorithm to reverse Polish notation (the seed's
 *   example becomes `t sin 0.1 10 t * cos * +`), then to bytecode: 32-bit words, the upper 8
 *   bits the operation, the lower 24 its operand (an input, local or output index; a constant
 *   follows in the next word). Constant subexpressions are folded (`2 * sin(pi)` is one constant;
 *   a program whose outputs are all constant reports it through constant()), locals holding a
 *   constant are folded where they are read, and an operation with a constant operand takes the
 *   constant inline. Common shapes become one operation each (in + in * in, x + y * k, a step of
 *   Horner's scheme (x + k) * in with its trailing + k, sin(k * in), ...), which rounds exactly
 *   as the operations it replaces, in the same order: fusing changes no result, only the count
 *   of operations. `disassemble` shows both the RPN and the bytecode.
 *
 *   Limits: CT_EXPR_MAX_SOURCE bytes of source, CT_EXPR_MAX_DEPTH nested parentheses or calls,
 *   CT_EXPR_MAX_STACK values on the stack, CT_EXPR_MAX_LOCALS locals, CT_EXPR_MAX_NAMES inputs
 *   and as many outputs, CT_EXPR_MAX_CODE bytecode words. Past any of them compile fails and says
 *   which.
 *
 * ERRORS
 *   compile returns NULL and fills a ct_expr_error_t: the 1-based line and column of the problem
 *   (for a source cut short, the column just after the last token: `speed * (t + ` gives
 *   1:13), the message alone ("expected an operand"), and `text`, ready to print:
 *       1:13: expected an operand
 *         speed * (t +
 *                     ^
 *   An unknown name suggests the nearest declared one ("unknown name 'sped' (did you mean
 *   'speed'?)"). Resource compilers put the file and field in front (see "IN RESOURCES").
 *
 * EVALUATING
 *   The caller owns the frame: `inputs` holds num_inputs floats in the order declared, `outputs`
 *   receives num_outputs floats. The stack and locals live in the evaluating function's own
 *   frame, bounded by the limits above. Batches are structure of arrays: inputs[i] points at
 *   `count` floats of input i, outputs[o] at `count` floats for output o (an output array may be
 *   an input array: each lane is read before it is written). A batch runs in lanes of 8 (AVX2,
 *   where the CPU has it) or 4 (SSE2; plain C elsewhere) over blocks of 128 lanes.
 *
 * THREADS AND ALLOCATION
 *   A compiled program is immutable: any number of threads may evaluate it at once. compile
 *   allocates the program as one block from desc->allocator (NULL: the module's allocator) and
 *   nothing else survives it; destroy frees it. eval, eval_batch and eval_jobs allocate nothing.
 *   compile and destroy may be called from any thread.
 *
 * IN RESOURCES
 *   A resource field whose value is an expression is an SJSON string: `velocity_y = "2 - age"`.
 *   Its compiler calls compile and, on failure, reports "file: field: line:col: message" through
 *   its compile context, then the source line and the caret; what it writes
 *   into its blob is the output of `save` (about 4 bytes per operation), which `load` checks
 *   word by word (operations, indices, stack depth) before anything runs it.
 *
 * LUA
 *   Expr.compile(source [, inputs [, outputs [, seed]]]) -> a program, or nil and the error text.
 *       inputs and outputs are arrays of names; the program is freed by the garbage collector.
 *   Expr.eval(program, {values...}) -> the outputs as numbers (one per output), or
 *   Expr.eval(program, {name = value, ...}).
 *   Expr.disassemble(program) -> the text of disassemble.
 */
#ifndef CT_EXPR_H
#define CT_EXPR_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_EXPR_API 0x167ea745u /* "ct.expr" */

#define CT_EXPR_MAX_SOURCE 4096u
#define CT_EXPR_MAX_DEPTH 32u
#define CT_EXPR_MAX_STACK 32u
#define CT_EXPR_MAX_LOCALS 32u
#define CT_EXPR_MAX_NAMES 32u
#define CT_EXPR_MAX_CODE 2048u

/* A compiled program: immutable, shared by threads, freed by destroy. */
typedef struct ct_expr_program_o ct_expr_program_o;

/* What compile needs besides the source. Zero is a valid description: no inputs, one output,
 * seed 0, the module's allocator. */
typedef struct ct_expr_desc_t {
    /* Names of the inputs, in the order of the frame's `inputs` (borrowed during compile). */
    const char *const *inputs;
    uint32_t num_inputs;
    /* Names of the outputs, in the order of `outputs`; 0 outputs means one unnamed output. */
    const char *const *outputs;
    uint32_t num_outputs;
    /* Seeds rand and noise: two programs with the same text and seed give the same numbers. */
    uint32_t seed;
    /* Where the program's block comes from; NULL: the module's own allocator. */
    ct_allocator_t *allocator;
} ct_expr_desc_t;

/* Why compile or load failed. */
typedef struct ct_expr_error_t {
    uint32_t line;   /* 1-based; 0 when the error is about no place (load, limits of desc) */
    uint32_t column; /* 1-based, in bytes */
    char message[160];
    /* "line:col: message\n  <source line>\n  <caret under the column>" (no trailing newline);
     * just the message when there is no place. */
    char text[512];
} ct_expr_error_t;

typedef struct ct_expr_api_v1 {
    /* Compiles `source` (a NUL-terminated string). Returns the program, or NULL with `err`
     * filled (err may be NULL). desc may be NULL (see ct_expr_desc_t). */
    ct_expr_program_o *(*compile)(const char *source, const ct_expr_desc_t *desc,
                                  ct_expr_error_t *err);
    /* Frees a program; accepts NULL. No thread may be evaluating it. */
    void (*destroy)(ct_expr_program_o *program);

    /* How many inputs the program reads and how many outputs it writes. */
    uint32_t (*num_inputs)(const ct_expr_program_o *program);
    uint32_t (*num_outputs)(const ct_expr_program_o *program);
    /* True when output `output` does not depend on the inputs; its value goes into *value. A
     * host can then skip evaluation altogether. */
    bool (*constant)(const ct_expr_program_o *program, uint32_t output, float *value);

    /* One evaluation: inputs[num_inputs] in, outputs[num_outputs] out. */
    void (*eval)(const ct_expr_program_o *program, const float *inputs, float *outputs);
    /* `count` evaluations over structure-of-arrays inputs and outputs (see EVALUATING), on the
     * calling thread. Same bits as `count` calls of eval. */
    void (*eval_batch)(const ct_expr_program_o *program, const float *const *inputs,
                       float *const *outputs, uint32_t count);
    /* eval_batch split into blocks over ct.jobs (runs inline when the pool has one thread or
     * the batch is small). Same bits again. Must not be called from a job that holds a lock a
     * worker may need. */
    void (*eval_jobs)(const ct_expr_program_o *program, const float *const *inputs,
                      float *const *outputs, uint32_t count);

    /* Writes a readable listing into buf (size bytes, always NUL-terminated when size > 0):
     *     rpn: t sin 0.1 10 t * cos * +
     *     0000 push_input 0 (t)
     *     ...
     * Returns the length the whole listing needs (as snprintf). */
    size_t (*disassemble)(const ct_expr_program_o *program, char *buf, size_t size);

    /* The program as bytes for a compiled resource (little-endian, versioned): writes at most
     * `size` bytes into buf and returns the size needed (call with size 0 to ask). */
    size_t (*save)(const ct_expr_program_o *program, void *buf, size_t size);
    /* A program from save's bytes, checked first (header, version, every word, every index,
     * stack depth, ending); NULL with err filled when they are not a valid program. `allocator`
     * as in ct_expr_desc_t. */
    ct_expr_program_o *(*load)(const void *bytes, size_t size, ct_allocator_t *allocator,
                               ct_expr_error_t *err);
} ct_expr_api_v1;

#ifdef __cplusplus
}
#endif
#endif
