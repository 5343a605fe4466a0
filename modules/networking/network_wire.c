/*
 * network_wire.c: bytes in and out. Every read checks the length first; a short read marks the
 * reader bad and yields zeros, so decoders check `bad` once at the end instead of after every
 * field. Little-endian throughout.
 */
#include "network_wire.h"

#include "ct_array.h"

static uint8_t *reserve(net_writer_t *w, uint32_t n)
{
    if (w->overflow || w->cap - w->n < n) {
        w->overflow = true;
        return NULL;
    }
    uint8_t *p = w->p + w->n;
    w->n += n;
    return p;
}

void net_put_u8(net_writer_t *w, uint8_t v)
{
    uint8_t *p = reserve(w, 1);
    if (p)
        p[0] = v;
}

void net_put_u16(net_writer_t *w, uint16_t v)
{
    uint8_t *p = reserve(w, 2);
    if (p) {
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
    }
}

void net_put_u32(net_writer_t *w, uint32_t v)
{
    uint8_t *p = reserve(w, 4);
    for (int i = 0; p && i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void net_put_u64(net_writer_t *w, uint64_t v)
{
    net_put_u32(w, (uint32_t)v);
    net_put_u32(w, (uint32_t)(v >> 32));
}

void net_put_varint(net_writer_t *w, uint32_t v)
{
    while (v >= 0x80) {
        net_put_u8(w, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    net_put_u8(w, (uint8_t)v);
}

void net_put_f32(net_writer_t *w, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    net_put_u32(w, u);
}

void net_put_f64(net_writer_t *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    net_put_u64(w, u);
}

void net_put_bytes(net_writer_t *w, const void *src, uint32_t n)
{
    uint8_t *p = reserve(w, n);
    if (p && n)
        memcpy(p, src, n);
}

const uint8_t *net_get_bytes(net_reader_t *r, uint32_t n)
{
    if (r->bad || r->n - r->at < n) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p + r->at;
    r->at += n;
    return p;
}

uint8_t net_get_u8(net_reader_t *r)
{
    const uint8_t *p = net_get_bytes(r, 1);
    return p ? p[0] : 0;
}

uint16_t net_get_u16(net_reader_t *r)
{
    const uint8_t *p = net_get_bytes(r, 2);
    return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

uint32_t net_get_u32(net_reader_t *r)
{
    const uint8_t *p = net_get_bytes(r, 4);
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
             : 0;
}

uint64_t net_get_u64(net_reader_t *r)
{
    const uint64_t lo = net_get_u32(r);
    return lo | (uint64_t)net_get_u32(r) << 32;
}

uint32_t net_get_varint(net_reader_t *r)
{
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        const uint8_t b = net_get_u8(r);
        if (shift == 28 && b > 0x0f) /* more than 32 bits, or a continuation past 5 bytes */
            break;
        v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return r->bad ? 0 : v;
    }
    r->bad = true;
    return 0;
}

float net_get_f32(net_reader_t *r)
{
    const uint32_t u = net_get_u32(r);
    float v;
    memcpy(&v, &u, 4);
    return v;
}

double net_get_f64(net_reader_t *r)
{
    const uint64_t u = net_get_u64(r);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

/* ---- Packet header ------------------------------------------------------------------------ */

void net_header_write(net_writer_t *w, const net_header_t *h)
{
    const uint8_t bytes = h->has_ack ? h->ack_bytes : 1;
    net_put_u8(w, (uint8_t)(h->kind | (h->has_ack ? 8 : 0) | ((bytes - 1) & 3) << 4));
    if (h->kind != NET_PACKET_DATA)
        return;
    net_put_u16(w, h->seq);
    if (!h->has_ack)
        return;
    net_put_u16(w, h->ack);
    for (uint8_t i = 0; i < bytes; i++)
        net_put_u8(w, (uint8_t)(h->ack_bits >> (8 * i)));
}

bool net_header_read(net_reader_t *r, net_header_t *out)
{
    net_reader_t at = *r;
    const uint8_t b = net_get_u8(&at);
    net_header_t h = {
        .kind = b & 7, .has_ack = (b & 8) != 0, .ack_bytes = (uint8_t)(((b >> 4) & 3) + 1)};
    if (at.bad || (b & 0xc0) || h.kind >= NET_PACKET_KINDS)
        return false;
    if (h.kind == NET_PACKET_DATA) {
        h.seq = net_get_u16(&at);
        if (h.has_ack) {
            h.ack = net_get_u16(&at);
            for (uint8_t i = 0; i < h.ack_bytes; i++)
                h.ack_bits |= (uint32_t)net_get_u8(&at) << (8 * i);
        }
    } else if (b & 0x38) {
        return false; /* handshake kinds carry no acks */
    }
    if (!h.has_ack && (b & 0x30))
        return false; /* a bitfield size without acks: one spelling per header */
    if (at.bad)
        return false;
    if (!h.has_ack)
        h.ack_bytes = 0;
    *r = at;
    *out = h;
    return true;
}

/* ---- Messages ----------------------------------------------------------------------------- */

bool net_msg_read(net_reader_t *r, net_msg_t *m, const char **why)
{
    *m = (net_msg_t){.tag = net_get_u8(r)};
    if (m->tag > NET_MSG_FRAGMENT) {
        *why = "unknown message tag";
        return false;
    }
    if (m->tag != NET_MSG_UNRELIABLE)
        m->id = net_get_u16(r);
    if (m->tag == NET_MSG_FRAGMENT) {
        m->frag_index = net_get_u8(r);
        m->frag_count = (uint16_t)(net_get_u8(r) + 1);
        if (m->frag_count < 2 || m->frag_index >= m->frag_count) {
            *why = "fragment index or count out of range";
            return false;
        }
    }
    m->len = net_get_varint(r);
    if (r->bad) {
        *why = "truncated message header";
        return false;
    }
    if (m->len == 0 || m->len > NET_MTU || (m->tag == NET_MSG_FRAGMENT && m->len > NET_FRAGMENT)) {
        *why = "message length out of range";
        return false;
    }
    m->data = net_get_bytes(r, m->len);
    if (!m->data) {
        *why = "message longer than the packet";
        return false;
    }
    return true;
}

uint32_t net_msg_size(const net_msg_t *m)
{
    uint32_t n = 1 + (m->len >= 128 ? (m->len >= 16384 ? 3 : 2) : 1) + m->len;
    if (m->tag != NET_MSG_UNRELIABLE)
        n += 2;
    if (m->tag == NET_MSG_FRAGMENT)
        n += 2;
    return n;
}

void net_msg_write(net_writer_t *w, const net_msg_t *m)
{
    net_put_u8(w, m->tag);
    if (m->tag != NET_MSG_UNRELIABLE)
        net_put_u16(w, m->id);
    if (m->tag == NET_MSG_FRAGMENT) {
        net_put_u8(w, m->frag_index);
        net_put_u8(w, (uint8_t)(m->frag_count - 1));
    }
    net_put_varint(w, m->len);
    net_put_bytes(w, m->data, m->len);
}

bool net_grow(ct_allocator_t *a, void **p, uint32_t *cap, uint32_t need, uint32_t elem,
              uint32_t limit)
{
    if (need <= *cap)
        return true;
    if (need > limit)
        return false;
    uint32_t n = ct_array_capacity(*cap, need, 16);
    if (n > limit)
        n = limit;
    void *q = ct_realloc(a, *p, (size_t)*cap * elem, (size_t)n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}
