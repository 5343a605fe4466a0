/*
 * render_queue.c: RenderContexts and merge-n-sort. Contexts are reused from frame to frame, so a
 * steady scene records without allocating; the merged stream is sorted by a stable LSD radix sort
 * over the 64-bit keys, 11 bits per pass, skipping the digits every key shares (the layer and
 * pass of a one-layer frame, say), with all histograms counted in one read of the keys.
 */
#include "render_core.h"
#include "ct_array.h"

#include <assert.h>
#include <string.h>

bool render__context_grow(render__context *c, ct_allocator_t *a)
{
    const uint32_t cap = c->cap < UINT32_MAX ? ct_array_capacity(c->cap, c->cap + 1, 1024) : c->cap;
    if (cap <= c->cap)
        return false; /* 2^32 packets in one context: refuse rather than wrap */
    uint64_t *keys =
        ct_realloc(a, c->keys, (size_t)c->cap * sizeof *keys, (size_t)cap * sizeof *keys);
    if (!keys)
        return false;
    c->keys = keys;
    render__command *cmds =
        ct_realloc(a, c->commands, (size_t)c->cap * sizeof *cmds, (size_t)cap * sizeof *cmds);
    if (!cmds) {
        /* Keep the two arrays the same capacity: shrink keys back. */
        c->keys = ct_realloc(a, c->keys, (size_t)cap * sizeof *keys, (size_t)c->cap * sizeof *keys);
        return false;
    }
    c->commands = cmds;
    c->cap = cap;
    return true;
}

void render__queue_init(render__queue *q, ct_allocator_t *a) { *q = (render__queue){.a = a}; }

void render__queue_free(render__queue *q)
{
    ct_allocator_t *a = q->a;
    for (uint32_t i = 0; i < q->contexts_cap; i++) {
        render__context *c = &q->contexts[i];
        ct_free(a, c->keys, (size_t)c->cap * sizeof *c->keys);
        ct_free(a, c->commands, (size_t)c->cap * sizeof *c->commands);
    }
    ct_free(a, q->contexts, (size_t)q->contexts_cap * sizeof *q->contexts);
    ct_free(a, q->sorted, (size_t)q->packets_cap * sizeof *q->sorted);
    ct_free(a, q->scratch, (size_t)q->packets_cap * sizeof *q->scratch);
    ct_free(a, q->draws, (size_t)q->draws_cap * sizeof *q->draws);
    *q = (render__queue){.a = a};
}

bool render__queue_begin(render__queue *q, uint32_t n)
{
    q->failed = false;
    q->num_packets = 0;
    if (n > q->contexts_cap) {
        render__context *c = ct_realloc(q->a, q->contexts, (size_t)q->contexts_cap * sizeof *c,
                                        (size_t)n * sizeof *c);
        if (!c) {
            q->num_contexts = 0;
            return false;
        }
        memset(c + q->contexts_cap, 0, (size_t)(n - q->contexts_cap) * sizeof *c);
        q->contexts = c;
        q->contexts_cap = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        q->contexts[i].n = 0;
        q->contexts[i].failed = false;
    }
    q->num_contexts = n;
    return true;
}

static bool reserve_packets(render__queue *q, uint64_t n)
{
    if (n <= q->packets_cap)
        return true;
    if (n > UINT32_MAX / 2)
        return false;
    const uint32_t cap = ct_array_capacity(q->packets_cap, (uint32_t)n, 4096);
    render__packet *s = ct_alloc(q->a, (size_t)cap * sizeof *s);
    render__packet *t = ct_alloc(q->a, (size_t)cap * sizeof *t);
    if (!s || !t) {
        ct_free(q->a, s, s ? (size_t)cap * sizeof *s : 0);
        ct_free(q->a, t, t ? (size_t)cap * sizeof *t : 0);
        return false;
    }
    ct_free(q->a, q->sorted, (size_t)q->packets_cap * sizeof *q->sorted);
    ct_free(q->a, q->scratch, (size_t)q->packets_cap * sizeof *q->scratch);
    q->sorted = s;
    q->scratch = t;
    q->packets_cap = cap;
    return true;
}

/* 11-bit digits: six passes cover the 64-bit key (eight byte passes were measurably slower),
 * and the 6 x 2048 counters still sit in cache. */
#define DIGIT_BITS 11
#define DIGITS 6
#define BUCKETS (1u << DIGIT_BITS)

static inline uint32_t digit(uint64_t key, int d)
{
    return (uint32_t)(key >> (DIGIT_BITS * d)) & (BUCKETS - 1);
}

/* Turns counts into start offsets; false when every key has the same digit (the pass would copy
 * the array as it is, so it is skipped). */
static bool prefix_sums(uint32_t *h, uint32_t n, uint64_t any_key, int d)
{
    if (n == 0 || h[digit(any_key, d)] == n)
        return false;
    uint32_t sum = 0;
    for (uint32_t b = 0; b < BUCKETS; b++) {
        const uint32_t c = h[b];
        h[b] = sum;
        sum += c;
    }
    return true;
}

/* The passes after the first; the result ends in `p`. */
static void radix_passes(render__packet *p, render__packet *scratch, uint32_t n,
                         uint32_t (*hist)[BUCKETS], int first_digit, bool in_scratch)
{
    render__packet *src = in_scratch ? scratch : p, *dst = in_scratch ? p : scratch;
    for (int d = first_digit; d < DIGITS; d++) {
        uint32_t *h = hist[d];
        if (!prefix_sums(h, n, src[0].key, d))
            continue;
        for (uint32_t i = 0; i < n; i++)
            dst[h[digit(src[i].key, d)]++] = src[i];
        render__packet *t = src;
        src = dst;
        dst = t;
    }
    if (src != p)
        memcpy(p, src, (size_t)n * sizeof *p);
}

void render__radix_sort(render__packet *p, render__packet *scratch, uint32_t n,
                        uint32_t hist[RENDER_RADIX_DIGITS][RENDER_RADIX_BUCKETS])
{
    static_assert(DIGIT_BITS * DIGITS >= 64, "the digits cover the key");
    static_assert(DIGITS == RENDER_RADIX_DIGITS && BUCKETS == RENDER_RADIX_BUCKETS, "one layout");
    memset(hist, 0, DIGITS * sizeof *hist);
    for (uint32_t i = 0; i < n; i++)
        for (int d = 0; d < DIGITS; d++)
            hist[d][digit(p[i].key, d)]++;
    radix_passes(p, scratch, n, hist, 0, false);
}

/* Merging is fused into the sort: the histograms are counted on the contexts' keys, and the first
 * pass that moves anything scatters straight from the contexts, so the merged stream is never
 * copied as such. Equal keys keep context order, then recording order. */
bool render__merge_sort(render__queue *q)
{
    uint64_t total = 0;
    for (uint32_t c = 0; c < q->num_contexts; c++) {
        total += q->contexts[c].n;
        q->failed |= q->contexts[c].failed;
    }
    if (!reserve_packets(q, total)) {
        q->num_packets = 0;
        q->failed = true;
        return false;
    }
    const uint32_t n = (uint32_t)total;
    q->num_packets = n;
    uint32_t(*hist)[BUCKETS] = q->histograms;
    memset(hist, 0, DIGITS * sizeof *hist);
    uint64_t any_key = 0;
    for (uint32_t c = 0; c < q->num_contexts; c++) {
        const render__context *ctx = &q->contexts[c];
        for (uint32_t i = 0; i < ctx->n; i++)
            for (int d = 0; d < DIGITS; d++)
                hist[d][digit(ctx->keys[i], d)]++;
        if (ctx->n)
            any_key = ctx->keys[0];
    }
    int d = 0;
    while (d < DIGITS && !prefix_sums(hist[d], n, any_key, d))
        d++;
    if (d == DIGITS) { /* every key is equal: the merge order is the sorted order */
        uint32_t at = 0;
        for (uint32_t c = 0; c < q->num_contexts; c++)
            for (uint32_t i = 0; i < q->contexts[c].n; i++)
                q->sorted[at++] = (render__packet){q->contexts[c].keys[i], c, i};
        return true;
    }
    uint32_t *h = hist[d];
    for (uint32_t c = 0; c < q->num_contexts; c++) {
        const render__context *ctx = &q->contexts[c];
        for (uint32_t i = 0; i < ctx->n; i++)
            q->scratch[h[digit(ctx->keys[i], d)]++] = (render__packet){ctx->keys[i], c, i};
    }
    radix_passes(q->sorted, q->scratch, n, hist, d + 1, true);
    return true;
}
