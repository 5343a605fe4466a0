/*
 * network_sim.c: the network conditioner. Datagrams a node sends pass through it: lost (at
 * random or in bursts: a two-state Gilbert model), duplicated, delayed by latency plus jitter,
 * held back to reorder, and serialised at a link rate whose queue holds at most one second.
 * Delayed datagrams wait in a heap ordered by (due time, arrival order), so equal due times
 * keep their order and a seed gives one exact schedule. The pool of delayed datagrams is
 * bounded (`limit`); past it datagrams are dropped, as a router's queue would.
 */
#include "network_sim.h"

#include "ct_array.h"

void net_conditioner_init(net_conditioner_t *q, ct_allocator_t *a, uint64_t seed, uint32_t limit)
{
    *q = (net_conditioner_t){.a = a, .rng = seed ? seed : 0x853c49e6748fea9bull, .limit = limit};
}

void net_conditioner_free(net_conditioner_t *q)
{
    if (!q->a)
        return;
    ct_free(q->a, q->heap, (size_t)q->cap * sizeof *q->heap);
    ct_free(q->a, q->bytes, (size_t)q->cap * NET_MAX_DATAGRAM);
    ct_free(q->a, q->free_slots, (size_t)q->cap * sizeof *q->free_slots);
    q->a = NULL;
}

static bool earlier(const net_delayed_t *x, const net_delayed_t *y)
{
    return x->due != y->due ? x->due < y->due : x->order < y->order;
}

static bool reserve(net_conditioner_t *q)
{
    if (q->num_free)
        return true;
    if (q->cap >= q->limit)
        return false;
    uint32_t cap = ct_array_capacity(q->cap, q->cap + 1, 64);
    cap = cap < q->limit ? cap : q->limit;
    net_delayed_t *heap = ct_alloc(q->a, (size_t)cap * sizeof *heap);
    uint8_t *bytes = ct_alloc(q->a, (size_t)cap * NET_MAX_DATAGRAM);
    uint32_t *free_slots = ct_alloc(q->a, (size_t)cap * sizeof *free_slots);
    if (!heap || !bytes || !free_slots) {
        ct_free(q->a, heap, (size_t)cap * sizeof *heap);
        ct_free(q->a, bytes, (size_t)cap * NET_MAX_DATAGRAM);
        ct_free(q->a, free_slots, (size_t)cap * sizeof *free_slots);
        return false;
    }
    if (q->cap) {
        memcpy(heap, q->heap, (size_t)q->num * sizeof *heap);
        memcpy(bytes, q->bytes, (size_t)q->cap * NET_MAX_DATAGRAM);
    }
    ct_free(q->a, q->heap, (size_t)q->cap * sizeof *q->heap);
    ct_free(q->a, q->bytes, (size_t)q->cap * NET_MAX_DATAGRAM);
    ct_free(q->a, q->free_slots, (size_t)q->cap * sizeof *q->free_slots);
    q->heap = heap;
    q->bytes = bytes;
    q->free_slots = free_slots;
    for (uint32_t s = q->cap; s < cap; s++)
        q->free_slots[q->num_free++] = s;
    q->cap = cap;
    return true;
}

static void enqueue(net_conditioner_t *q, const net_addr_t *to, const uint8_t *p, uint32_t n,
                    uint64_t due)
{
    if (!reserve(q)) {
        q->dropped++;
        return;
    }
    const uint32_t slot = q->free_slots[--q->num_free];
    memcpy(q->bytes + (size_t)slot * NET_MAX_DATAGRAM, p, n);
    uint32_t i = q->num++;
    q->heap[i] = (net_delayed_t){due, q->order++, *to, n, slot};
    while (i && earlier(&q->heap[i], &q->heap[(i - 1) / 2])) {
        const net_delayed_t t = q->heap[i];
        q->heap[i] = q->heap[(i - 1) / 2];
        q->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    q->delayed++;
}

void net_conditioner_push(net_conditioner_t *q, const net_conditions_t *c, net_link_state_t *link,
                          const net_addr_t *to, const uint8_t *p, uint32_t n, uint64_t now,
                          void (*emit)(void *, const net_addr_t *, const uint8_t *, uint32_t),
                          void *user)
{
    if (n > NET_MAX_DATAGRAM)
        return;
    if (link->in_burst ? net_rand01(&q->rng) < c->burst_exit : net_rand01(&q->rng) < c->burst_enter)
        link->in_burst = !link->in_burst;
    if (link->in_burst || net_rand01(&q->rng) < c->loss) {
        q->dropped++;
        return;
    }
    const int copies = net_rand01(&q->rng) < c->duplicate ? 2 : 1;
    q->duplicated += copies - 1;
    for (int k = 0; k < copies; k++) {
        uint64_t due = now;
        if (c->bytes_per_second) {
            if (link->busy_until < now)
                link->busy_until = now;
            if (link->busy_until - now > 1000000) {
                q->dropped++;
                continue;
            }
            link->busy_until += (uint64_t)n * 1000000u / c->bytes_per_second;
            due = link->busy_until;
        }
        int64_t delay = c->latency_us;
        if (c->jitter_us)
            delay +=
                (int64_t)(net_rand(&q->rng) % (2ull * c->jitter_us + 1)) - (int64_t)c->jitter_us;
        if (net_rand01(&q->rng) < c->reorder)
            delay += c->latency_us + c->jitter_us + 1000;
        due += delay > 0 ? (uint64_t)delay : 0;
        if (due <= now)
            emit(user, to, p, n);
        else
            enqueue(q, to, p, n, due);
    }
}

void net_conditioner_release(net_conditioner_t *q, uint64_t now,
                             void (*emit)(void *, const net_addr_t *, const uint8_t *, uint32_t),
                             void *user)
{
    while (q->num && q->heap[0].due <= now) {
        const net_delayed_t top = q->heap[0];
        q->heap[0] = q->heap[--q->num];
        for (uint32_t i = 0;;) {
            uint32_t m = i, l = 2 * i + 1, r = l + 1;
            if (l < q->num && earlier(&q->heap[l], &q->heap[m]))
                m = l;
            if (r < q->num && earlier(&q->heap[r], &q->heap[m]))
                m = r;
            if (m == i)
                break;
            const net_delayed_t t = q->heap[i];
            q->heap[i] = q->heap[m];
            q->heap[m] = t;
            i = m;
        }
        emit(user, &top.to, q->bytes + (size_t)top.slot * NET_MAX_DATAGRAM, top.len);
        q->free_slots[q->num_free++] = top.slot;
    }
}
