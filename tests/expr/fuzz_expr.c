/*
 * Fuzz target for the expression compiler and the program loader. Any text either compiles or
 * fails with a message and a place inside the source; a compiled program evaluates in bounds,
 * its batch gives the scalar bits (NaN as one), and its saved bytes load back to the same
 * listing. Bytes starting with 0xff go to the loader instead, which must refuse or verify them.
 */
#include <stdlib.h>
#include <string.h>

#include "data/nearest.h"
#include "expr_internal.h"
#include "test_alloc.h"

static uint32_t same_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return f != f ? 0x7fc00000u : u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static test_alloc_t alloc;
    test_alloc_init(&alloc);
    static const char *const inputs[] = {"t", "speed", "x", "z"};
    static const char *const outputs[] = {"fx", "fy", "fz"};
    ct_expr_error_t err;
    if (size && data[0] == 0xff) {
        ct_expr_program_o *p = expr__load(data + 1, size - 1, &alloc.base, &err);
        if (p) {
            float in[CT_EXPR_MAX_NAMES] = {0.5f, 2.0f}, out[CT_EXPR_MAX_NAMES];
            expr__eval(p, in, out);
            expr__destroy(p);
        }
        if (alloc.live_blocks)
            abort();
        return 0;
    }
    char *src = malloc(size + 1);
    memcpy(src, data, size);
    src[size] = '\0';
    /* Half the inputs declare three outputs, decided by the length. */
    ct_expr_desc_t d = {.inputs = inputs,
                        .num_inputs = 4,
                        .outputs = outputs,
                        .num_outputs = size % 2 ? 3 : 0,
                        .seed = (uint32_t)size,
                        .allocator = &alloc.base};
    ct_expr_program_o *p = expr__compile(src, &d, NULL, data__nearest_name, &err);
    if (!p) {
        if (!err.message[0] || err.column > strlen(src) + 2)
            abort();
    } else {
        enum { N = 133 };
        static float t[N], speed[N], x[N], z[N], scalar[3][N], batch[3][N];
        for (int i = 0; i < N; i++) {
            t[i] = (float)i * 0.25f - 16.0f;
            speed[i] = (float)(i % 5) - 2.0f;
            x[i] = (float)(i % 11) * 1.5f;
            z[i] = -(float)i;
            const float in[4] = {t[i], speed[i], x[i], z[i]};
            float out[3];
            expr__eval(p, in, out);
            for (uint32_t o = 0; o < p->num_outputs; o++)
                scalar[o][i] = out[o];
        }
        expr__eval_batch(p, (const float *const[]){t, speed, x, z},
                         (float *const[]){batch[0], batch[1], batch[2]}, N);
        for (uint32_t o = 0; o < p->num_outputs; o++)
            for (int i = 0; i < N; i++)
                if (same_bits(scalar[o][i]) != same_bits(batch[o][i]))
                    abort();
        static uint8_t bytes[64 * 1024];
        static char a[16384], b[16384];
        size_t n = expr__save(p, bytes, sizeof bytes);
        ct_expr_program_o *q = n <= sizeof bytes ? expr__load(bytes, n, &alloc.base, &err) : NULL;
        if (!q)
            abort();
        expr__disassemble(p, a, sizeof a);
        expr__disassemble(q, b, sizeof b);
        if (strcmp(a, b))
            abort();
        expr__destroy(q);
        expr__destroy(p);
    }
    free(src);
    if (alloc.live_blocks)
        abort();
    return 0;
}
