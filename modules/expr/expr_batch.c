/* Batches: whole blocks straight from the caller's arrays, the last partial block through
 * padded copies, and outputs through block buffers when they overlap an input (so every lane of
 * a block is read before any is written, whatever order the statements store in). */
#include <stdbool.h>
#include <string.h>

#include "expr_internal.h"

#include "ct_jobs.h"

const char *expr__lanes4_name(void);

static uint32_t forced_width; /* 0: the widest the CPU runs */

void expr__force_lanes(uint32_t width) { forced_width = width; }

static expr_block_f pick_block(void)
{
    if (forced_width == 4)
        return expr__block_lanes4;
    return expr__lanes8_available() ? expr__block_lanes8 : expr__block_lanes4;
}

const char *expr__lanes_name(void)
{
    return pick_block() == expr__block_lanes8 ? "avx2" : expr__lanes4_name();
}

static bool overlaps(const float *a, const float *b, uint32_t count)
{
    return a < b + count && b < a + count;
}

void expr__eval_batch(const ct_expr_program_o *p, const float *const *in, float *const *out,
                      uint32_t count)
{
    const expr_block_f block = pick_block();
    const uint32_t ni = p->num_inputs, no = p->num_outputs;
    bool alias = false;
    for (uint32_t o = 0; o < no; o++)
        for (uint32_t i = 0; i < ni; i++)
            alias |= overlaps(out[o], in[i], count);
    _Alignas(64) float tmp_out[CT_EXPR_MAX_NAMES][EXPR_BLOCK];
    const float *bin[CT_EXPR_MAX_NAMES];
    float *bout[CT_EXPR_MAX_NAMES];
    uint32_t base = 0;
    for (; base + EXPR_BLOCK <= count; base += EXPR_BLOCK) {
        for (uint32_t i = 0; i < ni; i++)
            bin[i] = in[i] + base;
        for (uint32_t o = 0; o < no; o++)
            bout[o] = alias ? tmp_out[o] : out[o] + base;
        block(p, bin, bout);
        if (alias)
            for (uint32_t o = 0; o < no; o++)
                memcpy(out[o] + base, tmp_out[o], sizeof tmp_out[o]);
    }
    const uint32_t rest = count - base;
    if (!rest)
        return;
    /* The tail: inputs padded with zeros (their lanes' results are dropped). */
    _Alignas(64) float tmp_in[CT_EXPR_MAX_NAMES][EXPR_BLOCK];
    for (uint32_t i = 0; i < ni; i++) {
        memcpy(tmp_in[i], in[i] + base, rest * sizeof(float));
        memset(tmp_in[i] + rest, 0, (EXPR_BLOCK - rest) * sizeof(float));
        bin[i] = tmp_in[i];
    }
    for (uint32_t o = 0; o < no; o++)
        bout[o] = tmp_out[o];
    block(p, bin, bout);
    for (uint32_t o = 0; o < no; o++)
        memcpy(out[o] + base, tmp_out[o], rest * sizeof(float));
}

/* A range of blocks of one eval_jobs call. */
typedef struct jobs_ctx_t {
    const ct_expr_program_o *p;
    const float *const *in;
    float *const *out;
    uint32_t count;
} jobs_ctx_t;

static void run_blocks(void *user_data, uint32_t begin, uint32_t end)
{
    const jobs_ctx_t *c = user_data;
    const float *in[CT_EXPR_MAX_NAMES];
    float *out[CT_EXPR_MAX_NAMES];
    const uint32_t first = begin * EXPR_BLOCK;
    uint32_t last = end * EXPR_BLOCK;
    if (last > c->count)
        last = c->count;
    for (uint32_t i = 0; i < c->p->num_inputs; i++)
        in[i] = c->in[i] + first;
    for (uint32_t o = 0; o < c->p->num_outputs; o++)
        out[o] = c->out[o] + first;
    expr__eval_batch(c->p, in, out, last - first);
}

/* Blocks are the unit: every range but the last is whole blocks, so each lane goes through
 * exactly the operations one eval_batch over everything would give it, and the bits are the
 * same. Below 8 blocks (1024 lanes) the hand-over costs more than it saves. */
void expr__eval_jobs(const ct_expr_program_o *p, const float *const *in, float *const *out,
                     uint32_t count, const ct_jobs_api_v1 *jobs)
{
    const uint32_t blocks = (count + EXPR_BLOCK - 1) / EXPR_BLOCK;
    if (!jobs || blocks < 8 || jobs->thread_count() < 2) {
        expr__eval_batch(p, in, out, count);
        return;
    }
    jobs_ctx_t c = {p, in, out, count};
    jobs->parallel_for(blocks, 8, run_blocks, &c);
}
