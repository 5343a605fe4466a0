/* A program's block: building it (compile and load), the verifier every program passes before
 * anything runs it, the listing, and the bytes a compiled resource holds. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "expr_internal.h"

const expr_op_info_t expr__ops[EXPR_OP_COUNT] = {
#define EXPR_OP_INFO(name, text, pops, pushes, has_k) {text, pops, pushes, has_k},
    EXPR_OPS(EXPR_OP_INFO)
#undef EXPR_OP_INFO
};

const char *expr__verify(const uint32_t *code, uint32_t num_code, uint32_t num_inputs,
                         uint32_t num_outputs, uint32_t num_locals, uint32_t *max_stack)
{
    uint32_t depth = 0, deepest = 0, stored = 0, locals_set = 0;
    for (uint32_t pc = 0; pc < num_code; pc++) {
        const uint32_t w = code[pc], op = EXPR_WORD_OP(w), d = EXPR_WORD_DATA(w);
        if (op >= EXPR_OP_COUNT)
            return "unknown operation";
        const expr_op_info_t *info = &expr__ops[op];
        if (op == EXPR_OP_STORE_END) {
            if (d >= num_outputs || ((stored >> d) & 1u))
                return "output index out of range or stored twice";
            stored |= 1u << d;
            if (depth != 1)
                return "values left on the stack at the end";
            depth = 0;
        }
        if (op == EXPR_OP_END || op == EXPR_OP_STORE_END) {
            if (pc + 1 != num_code)
                return "words after the end";
            if (depth)
                return "values left on the stack at the end";
            if (stored != (num_outputs >= 32 ? 0xffffffffu : (1u << num_outputs) - 1u))
                return "an output is never stored";
            *max_stack = deepest;
            return NULL;
        }
        switch (op) {
        case EXPR_OP_PUSH_INPUT:
        case EXPR_OP_MULK_IN:
        case EXPR_OP_SIN_KIN:
        case EXPR_OP_COS_KIN:
        case EXPR_OP_ADDK_MULIN:
        case EXPR_OP_ADDK_MULIN_ADDK:
        case EXPR_OP_ADD_IN:
        case EXPR_OP_SUB_IN:
        case EXPR_OP_RSUB_IN:
        case EXPR_OP_MUL_IN:
        case EXPR_OP_DIV_IN:
        case EXPR_OP_RDIV_IN:
            if (d >= num_inputs)
                return "input index out of range";
            break;
        case EXPR_OP_PUSH_LOCAL:
            if (d >= num_locals || !((locals_set >> d) & 1u))
                return "local read before it is set";
            break;
        case EXPR_OP_STORE_LOCAL:
            if (d >= num_locals || ((locals_set >> d) & 1u))
                return "local index out of range or set twice";
            locals_set |= 1u << d;
            break;
        case EXPR_OP_STORE_OUTPUT:
            if (d >= num_outputs || ((stored >> d) & 1u))
                return "output index out of range or stored twice";
            stored |= 1u << d;
            break;
        case EXPR_OP_POWI: break; /* any signed 24-bit exponent */
        case EXPR_OP_ADD_II:
        case EXPR_OP_SUB_II:
        case EXPR_OP_MUL_II:
        case EXPR_OP_DIV_II:
        case EXPR_OP_ADD_MULII:
            if (EXPR_II_A(d) >= num_inputs || EXPR_II_B(d) >= num_inputs)
                return "input index out of range";
            break;
        case EXPR_OP_ADD_MULIII:
            if (EXPR_III_A(d) >= num_inputs || EXPR_III_B(d) >= num_inputs ||
                EXPR_III_C(d) >= num_inputs)
                return "input index out of range";
            break;
        default:
            if (d)
                return "operand on an operation that takes none";
        }
        if (depth < info->pops)
            return "stack underflow";
        depth = depth - info->pops + info->pushes;
        if (depth > CT_EXPR_MAX_STACK)
            return "stack deeper than the limit";
        if (depth > deepest)
            deepest = depth;
        if ((pc += info->has_k) >= num_code)
            return "constant cut off";
    }
    return "no end";
}

ct_expr_program_o *expr__build(const uint32_t *code, uint32_t num_code, uint32_t num_inputs,
                               uint32_t num_outputs, uint32_t num_locals, uint32_t seed,
                               uint32_t constant_mask, const float *constant_values,
                               const char *names, uint32_t names_size, ct_allocator_t *a,
                               ct_expr_error_t *err)
{
    uint32_t max_stack = 0;
    const char *why =
        num_code > CT_EXPR_MAX_CODE || num_inputs > CT_EXPR_MAX_NAMES ||
                num_outputs > CT_EXPR_MAX_NAMES || !num_outputs || num_locals > CT_EXPR_MAX_LOCALS
            ? "counts beyond the limits"
            : expr__verify(code, num_code, num_inputs, num_outputs, num_locals, &max_stack);
    if (why) {
        expr__error(err, "invalid program: %s", why);
        return NULL;
    }
    if (!a) {
        expr__error(err, "no allocator");
        return NULL;
    }
    const size_t size = sizeof(ct_expr_program_o) + (size_t)num_code * 4u + names_size;
    ct_expr_program_o *p = ct_alloc(a, size);
    if (!p) {
        expr__error(err, "out of memory (%zu bytes)", size);
        return NULL;
    }
    p->allocator = a;
    p->size = (uint32_t)size;
    p->num_inputs = num_inputs;
    p->num_outputs = num_outputs;
    p->num_locals = num_locals;
    p->max_stack = max_stack;
    p->num_code = num_code;
    p->seed = seed;
    p->seed_mix = expr__seed_mix(seed);
    p->constant_mask = constant_mask;
    memset(p->constant_values, 0, sizeof p->constant_values);
    for (uint32_t o = 0; o < num_outputs; o++)
        if ((constant_mask >> o) & 1u)
            p->constant_values[o] = constant_values[o];
    memcpy(p->code, code, (size_t)num_code * 4u);
    p->entry = expr__entry(code, num_code);
    p->names_offset = (uint32_t)(sizeof(ct_expr_program_o) + (size_t)num_code * 4u);
    p->names_size = names_size;
    memcpy((char *)p + p->names_offset, names, names_size);
    return p;
}

void expr__destroy(ct_expr_program_o *p)
{
    if (p)
        ct_free(p->allocator, p, p->size);
}

const char *expr__names(const ct_expr_program_o *p) { return (const char *)p + p->names_offset; }

const char *expr__name(const ct_expr_program_o *p, uint32_t i)
{
    const char *s = expr__names(p);
    while (i--)
        s += strlen(s) + 1;
    return s;
}

const char *expr__rpn(const ct_expr_program_o *p)
{
    return expr__name(p, p->num_inputs + p->num_outputs);
}

/* ---- the listing ----------------------------------------------------------------------------- */

typedef struct out_t {
    char *buf;
    size_t size, len;
} out_t;

static void put(out_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->size ? o->size - o->len : 0;
    int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

size_t expr__disassemble(const ct_expr_program_o *p, char *buf, size_t size)
{
    out_t o = {buf, size, 0};
    if (size)
        buf[0] = '\0';
    put(&o, "rpn: %s\n", expr__rpn(p));
    for (uint32_t pc = 0; pc < p->num_code; pc++) {
        const uint32_t w = p->code[pc], op = EXPR_WORD_OP(w), d = EXPR_WORD_DATA(w);
        put(&o, "%04u %s", pc, expr__ops[op].text);
        float k;
        switch (op) {
        case EXPR_OP_PUSH_INPUT:
        case EXPR_OP_MULK_IN:
        case EXPR_OP_SIN_KIN:
        case EXPR_OP_COS_KIN:
        case EXPR_OP_ADDK_MULIN:
        case EXPR_OP_ADDK_MULIN_ADDK:
        case EXPR_OP_ADD_IN:
        case EXPR_OP_SUB_IN:
        case EXPR_OP_RSUB_IN:
        case EXPR_OP_MUL_IN:
        case EXPR_OP_DIV_IN:
        case EXPR_OP_RDIV_IN: put(&o, " %u (%s)", d, expr__name(p, d)); break;
        case EXPR_OP_PUSH_LOCAL:
        case EXPR_OP_STORE_LOCAL: put(&o, " %u", d); break;
        case EXPR_OP_ADD_II:
        case EXPR_OP_SUB_II:
        case EXPR_OP_MUL_II:
        case EXPR_OP_DIV_II:
        case EXPR_OP_ADD_MULII:
            put(&o, " %u %u (%s %s)", EXPR_II_A(d), EXPR_II_B(d), expr__name(p, EXPR_II_A(d)),
                expr__name(p, EXPR_II_B(d)));
            break;
        case EXPR_OP_ADD_MULIII:
            put(&o, " %u %u %u (%s %s %s)", EXPR_III_A(d), EXPR_III_B(d), EXPR_III_C(d),
                expr__name(p, EXPR_III_A(d)), expr__name(p, EXPR_III_B(d)),
                expr__name(p, EXPR_III_C(d)));
            break;
        case EXPR_OP_STORE_END:
        case EXPR_OP_STORE_OUTPUT: {
            const char *name = expr__name(p, p->num_inputs + d);
            put(&o, name[0] ? " %u (%s)" : " %u", d, name);
            break;
        }
        case EXPR_OP_POWI: put(&o, " %d", (int32_t)(d << 8) >> 8); break;
        default: break;
        }
        for (uint32_t j = 0; j < expr__ops[op].has_k; j++) {
            memcpy(&k, &p->code[++pc], sizeof k);
            put(&o, " %.9g", (double)k);
        }
        put(&o, "\n");
    }
    return o.len;
}

/* ---- bytes ------------------------------------------------------------------------------------ */

#define SAVE_MAGIC 0x58455443u /* "CTEX" */
#define SAVE_VERSION 1u
#define SAVE_HEADER_WORDS 9u

static void put32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* magic, version, inputs, outputs, locals, seed, constant mask, code words, name bytes; then
 * one constant per output, the code, the names. */
size_t expr__save(const ct_expr_program_o *p, void *buf, size_t size)
{
    const size_t need =
        4u * (SAVE_HEADER_WORDS + p->num_outputs + p->num_code) + (size_t)p->names_size;
    if (!buf || size < need)
        return need;
    uint8_t *b = buf;
    const uint32_t header[SAVE_HEADER_WORDS] = {
        SAVE_MAGIC, SAVE_VERSION,     p->num_inputs, p->num_outputs, p->num_locals,
        p->seed,    p->constant_mask, p->num_code,   p->names_size,
    };
    for (uint32_t i = 0; i < SAVE_HEADER_WORDS; i++, b += 4)
        put32(b, header[i]);
    for (uint32_t o = 0; o < p->num_outputs; o++, b += 4) {
        uint32_t w;
        memcpy(&w, &p->constant_values[o], sizeof w);
        put32(b, w);
    }
    for (uint32_t i = 0; i < p->num_code; i++, b += 4)
        put32(b, p->code[i]);
    memcpy(b, expr__names(p), p->names_size);
    return need;
}

ct_expr_program_o *expr__load(const void *bytes, size_t size, ct_allocator_t *a,
                              ct_expr_error_t *err)
{
    const uint8_t *b = bytes;
    if (!b || size < 4u * SAVE_HEADER_WORDS) {
        expr__error(err, "expression bytes: %zu bytes, shorter than the header", size);
        return NULL;
    }
    uint32_t h[SAVE_HEADER_WORDS];
    for (uint32_t i = 0; i < SAVE_HEADER_WORDS; i++)
        h[i] = get32(b + 4 * i);
    if (h[0] != SAVE_MAGIC || h[1] != SAVE_VERSION) {
        expr__error(err, "expression bytes: not a version %u program", SAVE_VERSION);
        return NULL;
    }
    const uint32_t ni = h[2], no = h[3], nl = h[4], seed = h[5], mask = h[6], nc = h[7], nn = h[8];
    if (ni > CT_EXPR_MAX_NAMES || !no || no > CT_EXPR_MAX_NAMES || nl > CT_EXPR_MAX_LOCALS || !nc ||
        nc > CT_EXPR_MAX_CODE || nn > 64u * 1024u || (no < 32 && (mask >> no))) {
        expr__error(err, "expression bytes: counts beyond the limits");
        return NULL;
    }
    const size_t need = 4u * ((size_t)SAVE_HEADER_WORDS + no + nc) + nn;
    if (size != need) {
        expr__error(err, "expression bytes: %zu bytes where the header says %zu", size, need);
        return NULL;
    }
    const uint8_t *at = b + 4u * SAVE_HEADER_WORDS;
    float constants[CT_EXPR_MAX_NAMES];
    for (uint32_t o = 0; o < no; o++, at += 4) {
        uint32_t w = get32(at);
        memcpy(&constants[o], &w, sizeof w);
    }
    uint32_t code[CT_EXPR_MAX_CODE];
    for (uint32_t i = 0; i < nc; i++, at += 4)
        code[i] = get32(at);
    /* The names: inputs, outputs and the RPN text, each NUL-terminated, nothing after. */
    const char *names = (const char *)at;
    uint32_t strings = 0;
    for (uint32_t i = 0; i < nn; i++)
        strings += names[i] == '\0';
    if (!nn || names[nn - 1] != '\0' || strings != ni + no + 1) {
        expr__error(err, "expression bytes: the names are malformed");
        return NULL;
    }
    return expr__build(code, nc, ni, no, nl, seed, mask, constants, names, nn, a, err);
}
