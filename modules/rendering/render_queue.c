/*
 * render_queue.c: RenderContexts and merge-n-sort. Contexts are reused from frame to frame, so a
 * steady scene records without allocating; the merged stream is sorted by a stable LSD radix sort
 * over the 64-bit keys, one byte per pass, skipping the bytes every key shares (the layer and pass
 * bytes of a one-layer frame, say), with all eight histograms counted in one read of the data.
 */
#include "render_core.h"

#include <string.h>

bool render__context_grow(render__context *c, ct_allocator_t *a)
{
    const uint32_t cap = c->cap ? c->cap * 2 : 1024;
    if (cap <= c->cap)
        return false; /* 2^32 packets in one context: refuse rather than wrap */
    uint64_t *keys = ct_realloc(a, c->keys, (size_t)c->cap * sizeof *keys, (size_t)cap * sizeof *keys);
    if (!keys)
        return false;
    c->keys = keys;
    render__command *cmds = ct_realloc(a, c->commands, (size_t)c->cap * sizeof *cmds,
                                       (size_t)cap * sizeof *cmds);
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
    uint32_t cap = q->packets_cap ? q->packets_cap : 4096;
    while (cap < n)
        cap *= 2;
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

void render__radix_sort(render__packet *p, render__packet *scratch, uint32_t n)
{
    uint32_t hist[8][256];
    memset(hist, 0, sizeof hist);
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t k = p[i].key;
        for (int d = 0; d < 8; d++)
            hist[d][(k >> (8 * d)) & 0xff]++;
    }
    render__packet *src = p, *dst = scratch;
    for (int d = 0; d < 8; d++) {
        uint32_t *h = hist[d];
        /* Every key has the same byte here: this pass would copy the array as it is. */
        if (n == 0 || h[(src[0].key >> (8 * d)) & 0xff] == n)
            continue;
        uint32_t sum = 0;
        for (int b = 0; b < 256; b++) {
            const uint32_t c = h[b];
            h[b] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            dst[h[(src[i].key >> (8 * d)) & 0xff]++] = src[i];
        render__packet *t = src;
        src = dst;
        dst = t;
    }
    if (src != p)
        memcpy(p, src, (size_t)n * sizeof *p);
}

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
    uint32_t n = 0;
    for (uint32_t c = 0; c < q->num_contexts; c++) {
        const render__context *ctx = &q->contexts[c];
        for (uint32_t i = 0; i < ctx->n; i++)
            q->sorted[n++] = (render__packet){ctx->keys[i], c, i};
    }
    q->num_packets = n;
    render__radix_sort(q->sorted, q->scratch, n);
    return true;
}
