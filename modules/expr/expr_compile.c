/*
 * The compiler: tokens straight from the source, Dijkstra's shunting yard to reverse Polish
 * notation, and each RPN item turned into bytecode the moment it comes out, folding constants
 * and taking constant operands inline on the way (see ct_expr.h, COMPILING).
 *
 * Everything lives in one compiler_t on the calling thread's stack (about 40 KB, only its
 * counters initialised, so a compile does not pay for clearing it); the only allocation is the
 * finished program's block.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"

#define MAX_PENDING 128u   /* operators and parentheses waiting on the shunting-yard stack */
#define MAX_NAME_BYTES 64u /* the longest name */
#define RPN_BYTES (2u * CT_EXPR_MAX_SOURCE + 256u)

enum tk_kind { TK_END, TK_NUM, TK_NAME, TK_OP, TK_LPAREN, TK_RPAREN, TK_COMMA, TK_SEP, TK_ASSIGN };

typedef struct token_t {
    enum tk_kind kind;
    uint32_t start, len;        /* bytes of the source */
    uint32_t line, col;         /* 1-based */
    uint32_t end_line, end_col; /* just after the token */
    int op;                     /* TK_OP: the binary operation (EXPR_OP_*), or -1 for '!' */
    float value;                /* TK_NUM */
} token_t;

/* The binary operators: precedence (higher binds tighter) and associativity. */
typedef struct binop_t {
    const char *text;
    int op;
    int prec;
    bool right;
} binop_t;

static const binop_t binops[] = {
    {"||", EXPR_OP_OR, 1, false}, {"&&", EXPR_OP_AND, 2, false}, {"==", EXPR_OP_EQ, 3, false},
    {"!=", EXPR_OP_NE, 3, false}, {"<=", EXPR_OP_LE, 4, false},  {">=", EXPR_OP_GE, 4, false},
    {"<", EXPR_OP_LT, 4, false},  {">", EXPR_OP_GT, 4, false},   {"+", EXPR_OP_ADD, 5, false},
    {"-", EXPR_OP_SUB, 5, false}, {"*", EXPR_OP_MUL, 6, false},  {"/", EXPR_OP_DIV, 6, false},
    {"%", EXPR_OP_MOD, 6, false}, {"^", EXPR_OP_POW, 8, true},
};
#define PREC_UNARY 7

typedef struct function_t {
    const char *name;
    int op;
    uint32_t arity;
} function_t;

static const function_t functions[] = {
    {"min", EXPR_OP_MIN, 2},
    {"max", EXPR_OP_MAX, 2},
    {"clamp", EXPR_OP_CLAMP, 3},
    {"lerp", EXPR_OP_LERP, 3},
    {"smoothstep", EXPR_OP_SMOOTHSTEP, 3},
    {"select", EXPR_OP_SELECT, 3},
    {"abs", EXPR_OP_ABS, 1},
    {"floor", EXPR_OP_FLOOR, 1},
    {"sqrt", EXPR_OP_SQRT, 1},
    {"sin", EXPR_OP_SIN, 1},
    {"cos", EXPR_OP_COS, 1},
    {"tan", EXPR_OP_TAN, 1},
    {"atan2", EXPR_OP_ATAN2, 2},
    {"exp", EXPR_OP_EXP, 1},
    {"log", EXPR_OP_LOG, 1},
    {"pow", EXPR_OP_POW, 2},
    {"rand", EXPR_OP_RAND, 1},
    {"noise", EXPR_OP_NOISE, 1},
};
#define NUM_FUNCTIONS (sizeof functions / sizeof functions[0])

static const struct {
    const char *name;
    float value;
} constants[] = {{"pi", 3.14159265358979f}, {"tau", 6.28318530717959f}};
#define NUM_CONSTANTS 2u

/* A waiting entry of the shunting yard: an operator, or a '(' (of a call when func >= 0). */
typedef struct pending_t {
    bool paren;
    int op; /* operator: EXPR_OP_*; paren: the function's index, or -1 */
    int prec;
    uint32_t args; /* paren of a call: commas seen */
    bool empty;    /* paren: nothing inside yet */
    token_t tok;
} pending_t;

/* What the code generator knows of each value on the VM stack. */
typedef struct value_t {
    uint32_t start;   /* its code begins at this word */
    uint32_t last_op; /* the word of the operation that made it */
    bool constant;
    float k;
    int input; /* the input it is, alone (a single PUSH_INPUT), or -1 */
} value_t;

typedef struct local_t {
    char name[MAX_NAME_BYTES + 1];
    bool constant;
    float k;
    uint32_t slot;
} local_t;

typedef struct compiler_t {
    const char *src;
    uint32_t len, pos, line, line_start;
    const ct_expr_desc_t *desc;
    uint32_t num_inputs, num_outputs;
    const char *const *inputs;
    const char *const *outputs;
    uint32_t seed_mix;
    expr_nearest_f nearest;
    ct_expr_error_t *err;
    bool failed;
    token_t last; /* the last token read (for "just after it") */

    uint32_t code[CT_EXPR_MAX_CODE];
    uint32_t num_code;
    uint32_t last_store; /* the word of the last STORE_OUTPUT */
    value_t values[CT_EXPR_MAX_STACK + 1];
    uint32_t num_values;
    pending_t pending[MAX_PENDING];
    uint32_t num_pending, depth;

    local_t locals[CT_EXPR_MAX_LOCALS];
    uint32_t num_locals, num_slots;
    uint32_t outputs_set;
    uint32_t constant_mask;
    float constant_values[CT_EXPR_MAX_NAMES];

    char rpn[RPN_BYTES];
    uint32_t rpn_len;
} compiler_t;

/* ---- errors ---------------------------------------------------------------------------------- */

void expr__error(ct_expr_error_t *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->line = err->column = 0;
    snprintf(err->text, sizeof err->text, "%s", err->message);
}

/* Fills the error at line:col of the source, with the source line and a caret under it. */
static void fail_at(compiler_t *c, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = true;
    ct_expr_error_t *err = c->err;
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->line = line;
    err->column = col;
    /* The line's text. */
    uint32_t l = 1, s = 0;
    for (uint32_t i = 0; i < c->len && l < line; i++)
        if (c->src[i] == '\n') {
            l++;
            s = i + 1;
        }
    uint32_t e = s;
    while (e < c->len && c->src[e] != '\n' && c->src[e] != '\r')
        e++;
    int n = snprintf(err->text, sizeof err->text, "%u:%u: %s\n  %.*s\n  ", line, col, err->message,
                     (int)(e - s > 200 ? 200 : e - s), c->src + s);
    size_t at = n > 0 ? (size_t)n : 0;
    /* The caret lines up under tabs too: copy the line's tabs, space the rest. */
    for (uint32_t i = 1; i < col && at + 2 < sizeof err->text; i++)
        err->text[at++] = s + i - 1 < e && c->src[s + i - 1] == '\t' ? '\t' : ' ';
    if (at + 1 < sizeof err->text)
        err->text[at++] = '^';
    err->text[at < sizeof err->text ? at : sizeof err->text - 1] = '\0';
}

#define FAIL_TOK(c, t, ...) fail_at((c), (t).line, (t).col, __VA_ARGS__)
/* Errors about something missing point just after the last token. */
#define FAIL_AFTER(c, ...) fail_at((c), (c)->last.end_line, (c)->last.end_col, __VA_ARGS__)

/* ---- tokens ---------------------------------------------------------------------------------- */

static bool is_alpha(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Reads the token at c->pos; with `advance` false the position stays (a peek). */
static token_t lex(compiler_t *c, bool advance)
{
    uint32_t pos = c->pos, line = c->line, line_start = c->line_start;
    /* Blanks and comments-free whitespace; a line break is a statement separator. */
    while (pos < c->len && (c->src[pos] == ' ' || c->src[pos] == '\t' || c->src[pos] == '\r'))
        pos++;
    token_t t = {.start = pos, .len = 1, .line = line, .col = pos - line_start + 1, .op = 0};
    if (pos >= c->len) {
        t.kind = TK_END;
        t.len = 0;
    } else {
        const char ch = c->src[pos];
        const char nx = pos + 1 < c->len ? c->src[pos + 1] : '\0';
        if (ch == '\n' || ch == ';') {
            t.kind = TK_SEP;
        } else if (is_digit(ch) || (ch == '.' && is_digit(nx))) {
            uint32_t e = pos;
            while (e < c->len && is_digit(c->src[e]))
                e++;
            if (e < c->len && c->src[e] == '.')
                for (e++; e < c->len && is_digit(c->src[e]);)
                    e++;
            if (e < c->len && (c->src[e] == 'e' || c->src[e] == 'E')) {
                uint32_t x = e + 1;
                if (x < c->len && (c->src[x] == '+' || c->src[x] == '-'))
                    x++;
                if (x < c->len && is_digit(c->src[x])) {
                    while (x < c->len && is_digit(c->src[x]))
                        x++;
                    e = x;
                }
            }
            char text[64];
            uint32_t n = e - pos < sizeof text - 1 ? e - pos : (uint32_t)sizeof text - 1;
            memcpy(text, c->src + pos, n);
            text[n] = '\0';
            t.kind = TK_NUM;
            t.len = e - pos;
            t.value = strtof(text, NULL);
        } else if (is_alpha(ch)) {
            uint32_t e = pos;
            while (e < c->len && (is_alpha(c->src[e]) || is_digit(c->src[e])))
                e++;
            t.kind = TK_NAME;
            t.len = e - pos;
        } else if (ch == '(') {
            t.kind = TK_LPAREN;
        } else if (ch == ')') {
            t.kind = TK_RPAREN;
        } else if (ch == ',') {
            t.kind = TK_COMMA;
        } else if (ch == '=' && nx != '=') {
            t.kind = TK_ASSIGN;
        } else if (ch == '!' && nx != '=') {
            t.kind = TK_OP;
            t.op = -1;
        } else {
            t.kind = TK_OP;
            t.op = -2;
            for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++) {
                size_t n = strlen(binops[i].text);
                if (!strncmp(c->src + pos, binops[i].text, n) && pos + n <= c->len) {
                    t.op = (int)i;
                    t.len = (uint32_t)n;
                    break;
                }
            }
            if (t.op == -2) {
                if ((unsigned char)ch >= 0x20 && (unsigned char)ch < 0x7f)
                    fail_at(c, t.line, t.col, "unexpected character '%c'", ch);
                else
                    fail_at(c, t.line, t.col, "unexpected byte 0x%02x", (unsigned char)ch);
                t.kind = TK_END;
            }
        }
    }
    t.end_line = line;
    t.end_col = t.col + t.len;
    if (advance) {
        c->pos = t.start + t.len;
        if (t.kind == TK_SEP && c->src[t.start] == '\n') {
            c->line = line + 1;
            c->line_start = c->pos;
        } else {
            c->line = line;
            c->line_start = line_start;
        }
        if (t.kind != TK_END && t.kind != TK_SEP)
            c->last = t;
    }
    return t;
}

static bool tok_is(const compiler_t *c, const token_t *t, const char *word)
{
    size_t n = strlen(word);
    return t->len == n && !strncmp(c->src + t->start, word, n);
}

static int find_name(const compiler_t *c, const token_t *t, const char *const *names, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (names[i] && tok_is(c, t, names[i]))
            return (int)i;
    return -1;
}

static int find_function(const compiler_t *c, const token_t *t)
{
    for (uint32_t i = 0; i < NUM_FUNCTIONS; i++)
        if (tok_is(c, t, functions[i].name))
            return (int)i;
    return -1;
}

static int find_constant(const compiler_t *c, const token_t *t)
{
    for (uint32_t i = 0; i < NUM_CONSTANTS; i++)
        if (tok_is(c, t, constants[i].name))
            return (int)i;
    return -1;
}

static int find_local(const compiler_t *c, const token_t *t)
{
    for (uint32_t i = 0; i < c->num_locals; i++)
        if (tok_is(c, t, c->locals[i].name))
            return (int)i;
    return -1;
}

/* The token's text as a C string (names are at most MAX_NAME_BYTES). */
static void tok_text(const compiler_t *c, const token_t *t, char *out, size_t size)
{
    size_t n = t->len < size - 1 ? t->len : size - 1;
    memcpy(out, c->src + t->start, n);
    out[n] = '\0';
}

/* "unknown name 'sped' (did you mean 'speed'?)": the nearest input, local or constant. */
static void fail_unknown(compiler_t *c, const token_t *t, bool function)
{
    char word[MAX_NAME_BYTES + 1];
    tok_text(c, t, word, sizeof word);
    const char *names[CT_EXPR_MAX_NAMES + CT_EXPR_MAX_LOCALS + NUM_FUNCTIONS + NUM_CONSTANTS];
    uint32_t n = 0;
    if (function) {
        for (uint32_t i = 0; i < NUM_FUNCTIONS; i++)
            names[n++] = functions[i].name;
    } else {
        for (uint32_t i = 0; i < c->num_inputs; i++)
            names[n++] = c->inputs[i];
        for (uint32_t i = 0; i < c->num_locals; i++)
            names[n++] = c->locals[i].name;
        for (uint32_t i = 0; i < NUM_CONSTANTS; i++)
            names[n++] = constants[i].name;
    }
    const char *near = c->nearest ? c->nearest(word, names, n) : NULL;
    if (near)
        FAIL_TOK(c, *t, "unknown %s '%s' (did you mean '%s'?)", function ? "function" : "name",
                 word, near);
    else
        FAIL_TOK(c, *t, "unknown %s '%s'", function ? "function" : "name", word);
}

/* ---- RPN text (for the listing) -------------------------------------------------------------- */

static void rpn_add(compiler_t *c, const char *text, uint32_t n)
{
    if (c->rpn_len + n + 2 >= sizeof c->rpn)
        return; /* the listing is cut; the program is not */
    if (c->rpn_len && c->rpn[c->rpn_len - 1] != ' ')
        c->rpn[c->rpn_len++] = ' ';
    memcpy(c->rpn + c->rpn_len, text, n);
    c->rpn_len += n;
    c->rpn[c->rpn_len] = '\0';
}

static void rpn_add_str(compiler_t *c, const char *text)
{
    rpn_add(c, text, (uint32_t)strlen(text));
}

/* ---- code generation ------------------------------------------------------------------------- */

static bool emit_words(compiler_t *c, const token_t *at, uint32_t a, uint32_t b, uint32_t n)
{
    if (c->num_code + n + 2 > CT_EXPR_MAX_CODE) { /* room for the last store and END */
        FAIL_TOK(c, *at, "expression too long: more than %u bytecode words", CT_EXPR_MAX_CODE);
        return false;
    }
    c->code[c->num_code++] = a;
    if (n > 1)
        c->code[c->num_code++] = b;
    return true;
}

static uint32_t float_word(float f)
{
    uint32_t w;
    memcpy(&w, &f, sizeof w);
    return w;
}

static void push_value(compiler_t *c, const token_t *at, uint32_t start, uint32_t last_op,
                       bool constant, float k, int input)
{
    if (c->num_values >= CT_EXPR_MAX_STACK) {
        FAIL_TOK(c, *at, "expression needs more than %u values on the stack at once",
                 CT_EXPR_MAX_STACK);
        return;
    }
    c->values[c->num_values++] = (value_t){start, last_op, constant, k, input};
}

static void emit_const(compiler_t *c, const token_t *at, float k)
{
    uint32_t start = c->num_code;
    if (emit_words(c, at, EXPR_WORD(EXPR_OP_PUSH_CONST, 0), float_word(k), 2))
        push_value(c, at, start, start, true, k, -1);
}

static void emit_push(compiler_t *c, const token_t *at, int op, uint32_t index)
{
    uint32_t start = c->num_code;
    if (emit_words(c, at, EXPR_WORD(op, index), 0, 1))
        push_value(c, at, start, start, false, 0.0f, op == EXPR_OP_PUSH_INPUT ? (int)index : -1);
}

/* Drops `n` words at `start` (a constant's or an input's push), moving what follows down. */
static void drop_words(compiler_t *c, uint32_t start, uint32_t n)
{
    memmove(c->code + start, c->code + start + n, (c->num_code - start - n) * sizeof(uint32_t));
    c->num_code -= n;
}

#define drop_const(c, start) drop_words((c), (start), 2)

/* Which of two operands is a lone mul_ii (in * in) beside an input pushed just before or after
 * it at the end of the code, or -1 when the pair is not that shape. */
static int mulii_operand(const compiler_t *c, const value_t *args)
{
    if (args[0].start + 1 != args[1].start || args[1].start + 1 != c->num_code)
        return -1;
    const int m = args[0].input >= 0 ? 1 : args[1].input >= 0 ? 0 : -1;
    if (m < 0 || args[m].last_op != args[m].start ||
        EXPR_WORD_OP(c->code[args[m].start]) != EXPR_OP_MUL_II)
        return -1;
    return m;
}

/* An operation of `n` arguments: folded when they are all constants, else emitted (a constant
 * operand of + - * / taken inline, a constant integer power made a POWI). */
static void emit_op(compiler_t *c, const token_t *at, int op, uint32_t n)
{
    if (c->failed)
        return;
    if (c->num_values < n) { /* cannot happen after the parser's checks; never read below */
        FAIL_TOK(c, *at, "expected an operand");
        return;
    }
    value_t *args = c->values + c->num_values - n;
    uint32_t word = EXPR_WORD(op, 0);
    /* The range first: converting a float an int cannot hold (1e30, NaN) is undefined. */
    if (op == EXPR_OP_POW && args[1].constant && args[1].k >= -16.0f && args[1].k <= 16.0f &&
        args[1].k == (float)(int)args[1].k) {
        word = EXPR_WORD(EXPR_OP_POWI, (uint32_t)(int32_t)args[1].k);
        op = EXPR_OP_POWI;
        drop_const(c, args[1].start);
        c->num_values--;
        n = 1;
    }
    bool all_constant = true;
    float k[3] = {0};
    for (uint32_t i = 0; i < n; i++) {
        all_constant &= args[i].constant;
        k[i] = args[i].k;
    }
    const uint32_t start = args[0].start;
    if (all_constant) {
        float v = expr__apply(word, 0.0f, k, c->seed_mix);
        c->num_code = start;
        c->num_values -= n;
        emit_const(c, at, v);
        return;
    }
    if ((op == EXPR_OP_SIN || op == EXPR_OP_COS) && args[0].last_op == start &&
        start + 2 == c->num_code && EXPR_WORD_OP(c->code[start]) == EXPR_OP_MULK_IN) {
        /* sin(k * input), a wave of a frequency: the product and the function in one. */
        c->code[start] = EXPR_WORD(op == EXPR_OP_SIN ? EXPR_OP_SIN_KIN : EXPR_OP_COS_KIN,
                                   EXPR_WORD_DATA(c->code[start]));
        c->num_values -= 1;
        push_value(c, at, start, start, false, 0.0f, -1);
        return;
    }
    /* The forms that take an operand inline: a constant (K), or an input read where it is
     * used (IN), with the operand on the right or, reversed, on the left. */
    static const struct {
        int op, right_k, left_k, right_in, left_in;
    } inline_forms[] = {
        {EXPR_OP_ADD, EXPR_OP_ADD_K, EXPR_OP_ADD_K, EXPR_OP_ADD_IN, EXPR_OP_ADD_IN},
        {EXPR_OP_MUL, EXPR_OP_MUL_K, EXPR_OP_MUL_K, EXPR_OP_MUL_IN, EXPR_OP_MUL_IN},
        {EXPR_OP_SUB, EXPR_OP_SUB_K, EXPR_OP_RSUB_K, EXPR_OP_SUB_IN, EXPR_OP_RSUB_IN},
        {EXPR_OP_DIV, EXPR_OP_DIV_K, EXPR_OP_RDIV_K, EXPR_OP_DIV_IN, EXPR_OP_RDIV_IN},
    };
    uint32_t b = 0, b2 = 0, words = 1;
    if (n == 2) {
        for (size_t i = 0; i < sizeof inline_forms / sizeof inline_forms[0]; i++) {
            if (inline_forms[i].op != op)
                continue;
            static const int two_inputs[] = {[EXPR_OP_ADD] = EXPR_OP_ADD_II,
                                             [EXPR_OP_SUB] = EXPR_OP_SUB_II,
                                             [EXPR_OP_MUL] = EXPR_OP_MUL_II,
                                             [EXPR_OP_DIV] = EXPR_OP_DIV_II};
            /* in + in * in, either way round: one operation of three inputs (the same product
             * and sum; IEEE addition gives the same bits in either order). */
            const int mul_at = op == EXPR_OP_ADD ? mulii_operand(c, args) : -1;
            if (mul_at >= 0) {
                const uint32_t prod = EXPR_WORD_DATA(c->code[args[mul_at].start]);
                word = EXPR_WORD(EXPR_OP_ADD_MULIII, EXPR_III(args[1 - mul_at].input,
                                                              EXPR_II_A(prod), EXPR_II_B(prod)));
                c->num_code = args[0].start;
            } else if (op == EXPR_OP_ADD && args[0].input < 0 && !args[0].constant &&
                       args[1].last_op == args[1].start && args[1].start + 1 == c->num_code &&
                       EXPR_WORD_OP(c->code[args[1].start]) == EXPR_OP_MUL_II) {
                /* x + in * in: the product goes onto the top in one operation. */
                word = EXPR_WORD(EXPR_OP_ADD_MULII, EXPR_WORD_DATA(c->code[args[1].start]));
                c->num_code = args[1].start;
            } else if (op == EXPR_OP_ADD && args[0].input < 0 && !args[0].constant &&
                       args[1].input < 0 && !args[1].constant &&
                       args[1].last_op + 2 == c->num_code &&
                       EXPR_WORD_OP(c->code[args[1].last_op]) == EXPR_OP_MUL_K) {
                /* x + y * k: the product joins the sum (base + amplitude * sin(...)). */
                b = c->code[args[1].last_op + 1];
                word = EXPR_WORD(EXPR_OP_ADD_MULK, 0);
                c->num_code = args[1].last_op;
                words = 2;
            } else if (args[0].input >= 0 && args[1].input >= 0) {
                /* Both operands are inputs read where they are used: one word, no pushes. */
                word = EXPR_WORD(two_inputs[op], EXPR_II(args[0].input, args[1].input));
                drop_words(c, args[0].start, 2);
            } else if (op == EXPR_OP_MUL && (args[0].input >= 0 || args[1].input >= 0) &&
                       (args[0].constant || args[1].constant)) {
                /* An input times a constant: one word pushes the product. */
                const int input = args[0].input >= 0 ? args[0].input : args[1].input;
                word = EXPR_WORD(EXPR_OP_MULK_IN, (uint32_t)input);
                b = float_word(args[0].constant ? args[0].k : args[1].k);
                drop_words(c, args[0].start, 3);
                words = 2;
            } else if (args[1].constant) {
                word = EXPR_WORD(inline_forms[i].right_k, 0);
                b = float_word(args[1].k);
                drop_const(c, args[1].start);
                words = 2;
                /* x * k1 + k2 (or - k2) is one operation: the same two roundings. So is the
                 * last step of Horner's scheme, (x + k1) * input + k2. */
                const uint32_t prev = args[0].last_op;
                const uint32_t prev_op = EXPR_WORD_OP(c->code[prev]);
                if ((op == EXPR_OP_ADD || op == EXPR_OP_SUB) && prev + 2 == c->num_code &&
                    (prev_op == EXPR_OP_MUL_K || prev_op == EXPR_OP_ADDK_MULIN)) {
                    const float k2 = op == EXPR_OP_ADD ? args[1].k : -args[1].k;
                    b2 = float_word(k2);
                    b = c->code[prev + 1];
                    word = prev_op == EXPR_OP_MUL_K
                               ? EXPR_WORD(EXPR_OP_MULADD_K, 0)
                               : EXPR_WORD(EXPR_OP_ADDK_MULIN_ADDK, EXPR_WORD_DATA(c->code[prev]));
                    c->num_code = prev;
                    words = 3;
                }
            } else if (args[0].constant) {
                word = EXPR_WORD(inline_forms[i].left_k, 0);
                b = float_word(args[0].k);
                drop_const(c, args[0].start);
                words = 2;
            } else if (args[1].input >= 0) {
                word = EXPR_WORD(inline_forms[i].right_in, (uint32_t)args[1].input);
                drop_words(c, args[1].start, 1);
                /* (x + k) * input, Horner's step, is one operation: the same two roundings. */
                const uint32_t prev = args[0].last_op;
                const uint32_t prev_op = EXPR_WORD_OP(c->code[prev]);
                if (op == EXPR_OP_MUL && prev + 2 == c->num_code &&
                    (prev_op == EXPR_OP_ADD_K || prev_op == EXPR_OP_SUB_K)) {
                    float k;
                    memcpy(&k, &c->code[prev + 1], sizeof k);
                    b = float_word(prev_op == EXPR_OP_ADD_K ? k : -k);
                    word = EXPR_WORD(EXPR_OP_ADDK_MULIN, (uint32_t)args[1].input);
                    c->num_code = prev;
                    words = 2;
                } else if (op == EXPR_OP_MUL && prev + 3 == c->num_code &&
                           prev_op == EXPR_OP_ADDK_MULIN_ADDK) {
                    /* ((x + k1) * in + k2) * input: two Horner steps, so that the chain's last
                     * step is the one a trailing constant joins. */
                    c->code[prev] = EXPR_WORD(EXPR_OP_ADDK_MULIN, EXPR_WORD_DATA(c->code[prev]));
                    b = c->code[prev + 2];
                    word = EXPR_WORD(EXPR_OP_ADDK_MULIN, (uint32_t)args[1].input);
                    c->num_code = prev + 2;
                    words = 2;
                }
            } else if (args[0].input >= 0) {
                word = EXPR_WORD(inline_forms[i].left_in, (uint32_t)args[0].input);
                drop_words(c, args[0].start, 1);
            }
        }
    }
    c->num_values -= n;
    const uint32_t op_at = c->num_code;
    if (c->num_code + words + 2 > CT_EXPR_MAX_CODE) {
        FAIL_TOK(c, *at, "expression too long: more than %u bytecode words", CT_EXPR_MAX_CODE);
        return;
    }
    c->code[c->num_code++] = word;
    if (words > 1)
        c->code[c->num_code++] = b;
    if (words > 2)
        c->code[c->num_code++] = b2;
    push_value(c, at, start, op_at, false, 0.0f, -1);
}

/* ---- the shunting yard ----------------------------------------------------------------------- */

/* Moves a waiting operator to the output. */
static void output_pending(compiler_t *c, const pending_t *p)
{
    if (p->op == EXPR_OP_NEG) {
        rpn_add_str(c, "neg");
        emit_op(c, &p->tok, EXPR_OP_NEG, 1);
    } else if (p->op == EXPR_OP_NOT) {
        rpn_add_str(c, "!");
        emit_op(c, &p->tok, EXPR_OP_NOT, 1);
    } else {
        rpn_add_str(c, expr__ops[p->op].text);
        emit_op(c, &p->tok, p->op, 2);
    }
}

static void push_pending(compiler_t *c, pending_t p)
{
    if (c->num_pending >= MAX_PENDING) {
        FAIL_TOK(c, p.tok, "expression nested too deeply (more than %u operators waiting)",
                 MAX_PENDING);
        return;
    }
    c->pending[c->num_pending++] = p;
}

/* Parses one expression up to a separator or the end. Returns false on error. */
static bool parse_expression(compiler_t *c)
{
    bool expect_operand = true;
    const uint32_t base = c->num_pending;
    for (;;) {
        token_t t = lex(c, true);
        if (c->failed)
            return false;
        switch (t.kind) {
        case TK_NUM:
            if (!expect_operand) {
                FAIL_TOK(c, t, "expected an operator");
                return false;
            }
            rpn_add(c, c->src + t.start, t.len);
            emit_const(c, &t, t.value);
            expect_operand = false;
            break;
        case TK_NAME: {
            if (!expect_operand) {
                FAIL_TOK(c, t, "expected an operator");
                return false;
            }
            if (t.len > MAX_NAME_BYTES) {
                FAIL_TOK(c, t, "name longer than %u bytes", MAX_NAME_BYTES);
                return false;
            }
            token_t next = lex(c, false);
            int f = find_function(c, &t);
            const bool known = find_name(c, &t, c->inputs, c->num_inputs) >= 0 ||
                               find_local(c, &t) >= 0 || find_constant(c, &t) >= 0;
            if (next.kind == TK_LPAREN && !known) {
                if (f < 0) {
                    fail_unknown(c, &t, true);
                    return false;
                }
                lex(c, true);
                if (++c->depth > CT_EXPR_MAX_DEPTH) {
                    FAIL_TOK(c, next, "nesting deeper than %u", CT_EXPR_MAX_DEPTH);
                    return false;
                }
                push_pending(c, (pending_t){.paren = true, .op = f, .empty = true, .tok = t});
                expect_operand = true;
                break;
            }
            int i, k;
            if ((i = find_name(c, &t, c->inputs, c->num_inputs)) >= 0) {
                emit_push(c, &t, EXPR_OP_PUSH_INPUT, (uint32_t)i);
            } else if ((i = find_local(c, &t)) >= 0) {
                const local_t *l = &c->locals[i];
                if (l->constant)
                    emit_const(c, &t, l->k);
                else
                    emit_push(c, &t, EXPR_OP_PUSH_LOCAL, l->slot);
            } else if ((k = find_constant(c, &t)) >= 0) {
                emit_const(c, &t, constants[k].value);
            } else if (f >= 0) {
                FAIL_TOK(c, t, "'%s' is a function: write %s(...)", functions[f].name,
                         functions[f].name);
                return false;
            } else {
                fail_unknown(c, &t, false);
                return false;
            }
            rpn_add(c, c->src + t.start, t.len);
            expect_operand = false;
            break;
        }
        case TK_OP:
            if (expect_operand) {
                if (t.op == -1 || binops[t.op].op == EXPR_OP_SUB) {
                    push_pending(c, (pending_t){.op = t.op == -1 ? EXPR_OP_NOT : EXPR_OP_NEG,
                                                .prec = PREC_UNARY,
                                                .tok = t});
                } else if (binops[t.op].op != EXPR_OP_ADD) { /* unary + does nothing */
                    FAIL_TOK(c, t, "expected an operand");
                    return false;
                }
                break;
            }
            if (t.op == -1) {
                FAIL_TOK(c, t, "expected an operator ('!' is unary)");
                return false;
            }
            {
                const binop_t *b = &binops[t.op];
                while (c->num_pending > base) {
                    const pending_t *top = &c->pending[c->num_pending - 1];
                    if (top->paren || top->prec < b->prec || (top->prec == b->prec && b->right))
                        break;
                    c->num_pending--;
                    output_pending(c, top);
                }
                push_pending(c, (pending_t){.op = b->op, .prec = b->prec, .tok = t});
                expect_operand = true;
            }
            break;
        case TK_LPAREN:
            if (!expect_operand) {
                FAIL_TOK(c, t, "expected an operator");
                return false;
            }
            if (++c->depth > CT_EXPR_MAX_DEPTH) {
                FAIL_TOK(c, t, "nesting deeper than %u", CT_EXPR_MAX_DEPTH);
                return false;
            }
            push_pending(c, (pending_t){.paren = true, .op = -1, .empty = true, .tok = t});
            break;
        case TK_RPAREN:
        case TK_COMMA: {
            /* Close what is open inside the innermost parenthesis. */
            bool zero_args = false;
            if (expect_operand) {
                const pending_t *top =
                    c->num_pending > base ? &c->pending[c->num_pending - 1] : NULL;
                zero_args = t.kind == TK_RPAREN && top && top->paren && top->op >= 0 && top->empty;
                if (!zero_args) {
                    FAIL_TOK(c, t, "expected an operand");
                    return false;
                }
            }
            while (c->num_pending > base && !c->pending[c->num_pending - 1].paren) {
                c->num_pending--;
                output_pending(c, &c->pending[c->num_pending]);
            }
            if (c->num_pending == base) {
                if (t.kind == TK_RPAREN)
                    FAIL_TOK(c, t, "')' without a matching '('");
                else
                    FAIL_TOK(c, t, "',' outside a function's arguments");
                return false;
            }
            pending_t *paren = &c->pending[c->num_pending - 1];
            if (t.kind == TK_COMMA) {
                if (paren->op < 0) {
                    FAIL_TOK(c, t, "',' outside a function's arguments");
                    return false;
                }
                paren->args++;
                expect_operand = true;
                break;
            }
            c->num_pending--;
            c->depth--;
            if (paren->op >= 0) {
                const function_t *f = &functions[paren->op];
                uint32_t got = zero_args ? 0 : paren->args + 1;
                if (got != f->arity) {
                    FAIL_TOK(c, paren->tok, "%s takes %u argument%s, not %u", f->name, f->arity,
                             f->arity == 1 ? "" : "s", got);
                    return false;
                }
                rpn_add_str(c, f->name);
                emit_op(c, &paren->tok, f->op, f->arity);
            }
            expect_operand = false;
            break;
        }
        case TK_ASSIGN:
            FAIL_TOK(c, t, "'=' sets a name at the start of a statement (compare with '==')");
            return false;
        case TK_SEP:
        case TK_END:
            if (expect_operand) {
                FAIL_AFTER(c, "expected an operand");
                return false;
            }
            while (c->num_pending > base) {
                const pending_t *top = &c->pending[--c->num_pending];
                if (top->paren) {
                    FAIL_TOK(c, top->tok, "'(' is never closed");
                    return false;
                }
                output_pending(c, top);
            }
            return !c->failed;
        }
        /* A '(' now holds something. */
        if (t.kind != TK_LPAREN && c->num_pending > base) {
            for (uint32_t i = c->num_pending; i-- > base;)
                if (c->pending[i].paren) {
                    if (t.kind != TK_NAME || c->pending[i].tok.start != t.start)
                        c->pending[i].empty = false;
                    break;
                }
        }
        if (c->failed)
            return false;
    }
}

/* ---- statements ------------------------------------------------------------------------------ */

static void set_output(compiler_t *c, const token_t *at, uint32_t o)
{
    const value_t *v = &c->values[c->num_values - 1];
    if (v->constant) {
        c->constant_mask |= 1u << o;
        c->constant_values[o] = v->k;
    }
    c->num_values--;
    if (emit_words(c, at, EXPR_WORD(EXPR_OP_STORE_OUTPUT, o), 0, 1))
        c->last_store = c->num_code - 1;
    c->outputs_set |= 1u << o;
}

static bool parse_statements(compiler_t *c)
{
    bool bare_seen = false;
    for (;;) {
        token_t t = lex(c, false);
        if (c->failed)
            return false;
        if (t.kind == TK_END)
            break;
        if (t.kind == TK_SEP) {
            lex(c, true);
            continue;
        }
        if (bare_seen) {
            FAIL_TOK(c, t,
                     "a statement follows a bare expression; write 'name = ...' before it "
                     "or put the bare expression last");
            return false;
        }
        if (c->rpn_len)
            rpn_add_str(c, ";");
        /* `name =` starts an assignment. */
        uint32_t save_pos = c->pos, save_line = c->line, save_start = c->line_start;
        token_t target = lex(c, true);
        token_t eq = lex(c, false);
        if (target.kind == TK_NAME && eq.kind == TK_ASSIGN) {
            lex(c, true);
            char name[MAX_NAME_BYTES + 1];
            tok_text(c, &target, name, sizeof name);
            int o = find_name(c, &target, c->outputs, c->num_outputs);
            if (target.len > MAX_NAME_BYTES) {
                FAIL_TOK(c, target, "name longer than %u bytes", MAX_NAME_BYTES);
                return false;
            }
            if (o < 0 && find_name(c, &target, c->inputs, c->num_inputs) >= 0) {
                FAIL_TOK(c, target, "'%s' is an input; it cannot be set", name);
                return false;
            }
            if (o < 0 && (find_function(c, &target) >= 0 || find_constant(c, &target) >= 0)) {
                FAIL_TOK(c, target, "'%s' is a built-in name; it cannot be set", name);
                return false;
            }
            if ((o >= 0 && (c->outputs_set >> o) & 1u) || find_local(c, &target) >= 0) {
                FAIL_TOK(c, target, "'%s' is set twice", name);
                return false;
            }
            if (!parse_expression(c))
                return false;
            rpn_add_str(c, "->");
            rpn_add_str(c, name);
            if (o >= 0) {
                set_output(c, &target, (uint32_t)o);
            } else {
                if (c->num_locals >= CT_EXPR_MAX_LOCALS) {
                    FAIL_TOK(c, target, "more than %u local names", CT_EXPR_MAX_LOCALS);
                    return false;
                }
                local_t *l = &c->locals[c->num_locals++];
                snprintf(l->name, sizeof l->name, "%s", name);
                const value_t *v = &c->values[--c->num_values];
                if (v->constant) {
                    l->constant = true;
                    l->k = v->k;
                    c->num_code = v->start; /* read as the constant wherever it is used */
                } else {
                    l->constant = false;
                    l->slot = c->num_slots++;
                    emit_words(c, &target, EXPR_WORD(EXPR_OP_STORE_LOCAL, l->slot), 0, 1);
                }
            }
        } else {
            c->pos = save_pos;
            c->line = save_line;
            c->line_start = save_start;
            if (!parse_expression(c))
                return false;
            if (c->outputs_set & 1u) {
                FAIL_TOK(c, t, "output '%s' is already set; a bare expression sets output 0",
                         c->num_outputs && c->outputs[0] ? c->outputs[0] : "");
                return false;
            }
            set_output(c, &t, 0);
            bare_seen = true;
        }
        if (c->failed)
            return false;
    }
    if (!c->outputs_set && !c->failed) {
        fail_at(c, c->last.end_line ? c->last.end_line : 1, c->last.end_col ? c->last.end_col : 1,
                "expected an operand");
        return false;
    }
    for (uint32_t o = 0; o < c->num_outputs; o++)
        if (!((c->outputs_set >> o) & 1u)) {
            FAIL_AFTER(c, "output '%s' is never set", c->outputs[o]);
            return false;
        }
    return !c->failed;
}

/* ---- the desc -------------------------------------------------------------------------------- */

static bool valid_name(const char *s)
{
    if (!s || !is_alpha(s[0]))
        return false;
    size_t n = 0;
    for (; s[n]; n++)
        if (!is_alpha(s[n]) && !is_digit(s[n]))
            return false;
    return n <= MAX_NAME_BYTES;
}

static bool builtin(const char *s)
{
    for (uint32_t i = 0; i < NUM_FUNCTIONS; i++)
        if (!strcmp(s, functions[i].name))
            return true;
    for (uint32_t i = 0; i < NUM_CONSTANTS; i++)
        if (!strcmp(s, constants[i].name))
            return true;
    return false;
}

/* Checks the declared names: valid, not built in, each once among the inputs and once among
 * the outputs. */
static bool check_desc(const ct_expr_desc_t *d, ct_expr_error_t *err)
{
    if (d->num_inputs > CT_EXPR_MAX_NAMES || d->num_outputs > CT_EXPR_MAX_NAMES) {
        expr__error(err, "more than %u inputs or outputs declared", CT_EXPR_MAX_NAMES);
        return false;
    }
    if ((d->num_inputs && !d->inputs) || (d->num_outputs && !d->outputs)) {
        expr__error(err, "names declared without a list");
        return false;
    }
    const uint32_t total = d->num_inputs + d->num_outputs;
    for (uint32_t i = 0; i < total; i++) {
        const char *s = i < d->num_inputs ? d->inputs[i] : d->outputs[i - d->num_inputs];
        const char *kind = i < d->num_inputs ? "input" : "output";
        if (!valid_name(s)) {
            expr__error(err,
                        "%s name '%s' is not a name ([A-Za-z_][A-Za-z0-9_]*, at most %u bytes)",
                        kind, s ? s : "(null)", MAX_NAME_BYTES);
            return false;
        }
        if (builtin(s)) {
            expr__error(err, "%s name '%s' is a built-in name", kind, s);
            return false;
        }
        /* An output may carry an input's name (the new value of that input); a list may not
         * name one thing twice. */
        const uint32_t first = i < d->num_inputs ? 0 : d->num_inputs;
        for (uint32_t j = first; j < i; j++) {
            const char *o = j < d->num_inputs ? d->inputs[j] : d->outputs[j - d->num_inputs];
            if (!strcmp(s, o)) {
                expr__error(err, "name '%s' is declared twice", s);
                return false;
            }
        }
    }
    return true;
}

ct_expr_program_o *expr__compile(const char *source, const ct_expr_desc_t *desc,
                                 ct_allocator_t *fallback, expr_nearest_f nearest,
                                 ct_expr_error_t *err)
{
    static const ct_expr_desc_t zero_desc = {0};
    if (!desc)
        desc = &zero_desc;
    if (!source) {
        expr__error(err, "no source");
        return NULL;
    }
    size_t len = strnlen(source, CT_EXPR_MAX_SOURCE + 1);
    if (len > CT_EXPR_MAX_SOURCE) {
        expr__error(err, "expression longer than %u bytes", CT_EXPR_MAX_SOURCE);
        return NULL;
    }
    if (!check_desc(desc, err))
        return NULL;
    static const char *const unnamed[] = {""};
    compiler_t cs;
    compiler_t *c = &cs;
    c->src = source;
    c->len = (uint32_t)len;
    c->pos = 0;
    c->line = 1;
    c->line_start = 0;
    c->desc = desc;
    c->num_inputs = desc->num_inputs;
    c->inputs = desc->inputs;
    c->num_outputs = desc->num_outputs ? desc->num_outputs : 1;
    c->outputs = desc->num_outputs ? desc->outputs : unnamed;
    c->seed_mix = expr__seed_mix(desc->seed);
    c->nearest = nearest;
    c->err = err;
    c->failed = false;
    memset(&c->last, 0, sizeof c->last);
    c->num_code = c->num_values = c->num_pending = c->depth = 0;
    c->last_store = UINT32_MAX;
    c->num_locals = c->num_slots = c->outputs_set = c->constant_mask = 0;
    memset(c->constant_values, 0, sizeof c->constant_values);
    c->rpn_len = 0;
    c->rpn[0] = '\0';
    ct_expr_program_o *p = NULL;
    if (parse_statements(c)) {
        /* A program that ends by storing an output ends with that store (one dispatch less). */
        if (c->last_store == c->num_code - 1)
            c->code[c->last_store] =
                EXPR_WORD(EXPR_OP_STORE_END, EXPR_WORD_DATA(c->code[c->last_store]));
        else
            c->code[c->num_code++] = EXPR_WORD(EXPR_OP_END, 0);
        /* The names, then the RPN text. */
        char names[CT_EXPR_MAX_NAMES * 2 * (MAX_NAME_BYTES + 1) + RPN_BYTES];
        uint32_t n = 0;
        for (uint32_t i = 0; i < c->num_inputs; i++) {
            size_t l = strlen(c->inputs[i]) + 1;
            memcpy(names + n, c->inputs[i], l);
            n += (uint32_t)l;
        }
        for (uint32_t o = 0; o < c->num_outputs; o++) {
            size_t l = strlen(c->outputs[o]) + 1;
            memcpy(names + n, c->outputs[o], l);
            n += (uint32_t)l;
        }
        memcpy(names + n, c->rpn, c->rpn_len);
        n += c->rpn_len;
        names[n++] = '\0';
        p = expr__build(c->code, c->num_code, c->num_inputs, c->num_outputs, c->num_slots,
                        desc->seed, c->constant_mask, c->constant_values, names, n,
                        desc->allocator ? desc->allocator : fallback, err);
    }
    return p;
}
