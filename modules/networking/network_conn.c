/*
 * network_conn.c: one connection's packets and messages.
 *
 * Acks are per packet (the seed post's design): a packet is acknowledged whole, so a receiver
 * acknowledges a packet only after it has taken every message in it. A packet it cannot take
 * (a receive cap is reached) is dropped unacknowledged and the sender sends its reliable
 * messages again. A packet is lost when it stays unacknowledged past the retransmission timeout
 * or falls 40 packets behind the newest acknowledged one; its reliable messages then go again,
 * its unreliable ones are reported lost to the layer above (which decides whether to resend:
 * replication sends the newest state, not the lost one).
 *
 * The fate of a reliable message is reported when it and all before it are acknowledged, which
 * is when the receiver has handed it up; replication waits for that before sending updates.
 *
 * The reliable stream: ids are 16-bit and wrap; at most NET_REL_WINDOW messages from the oldest
 * unacknowledged one are in flight, and the receiver buffers at most that many out of order, so
 * an id past the window is a protocol breach. Fragments are consecutive reliable ids, so the
 * ordered stream hands them over in order and reassembly is an append into one buffer.
 */
#include "network_conn.h"

#include "ct_array.h"

const net_caps_t net_default_caps = {
    .max_send_bytes = 8u << 20,
    .max_send_messages = 65536,
    .max_recv_bytes = 1u << 20,
    .max_message = NET_MAX_MESSAGE,
    .bytes_per_second = 0,
};

#define LOSS_REORDER 40u /* packets behind the newest acknowledged one: lost */

void net_conn_init(net_conn_t *c, ct_allocator_t *a, const net_caps_t *caps,
                   const net_conn_events_t *ev, uint32_t index, uint64_t now)
{
    memset(c, 0, sizeof *c);
    c->a = a;
    c->caps = caps ? *caps : net_default_caps;
    if (c->caps.max_message > NET_MAX_MESSAGE)
        c->caps.max_message = NET_MAX_MESSAGE;
    c->ev = *ev;
    c->index = index;
    c->last_received_at = c->last_sent_at = c->budget_at = now;
}

void net_conn_free(net_conn_t *c)
{
    if (!c->a)
        return;
    ct_free(c->a, c->rel, (size_t)c->rel_cap * sizeof *c->rel);
    ct_free(c->a, c->resend, (size_t)c->rel_cap * sizeof *c->resend);
    ct_free(c->a, c->sbytes, c->sbytes_cap);
    ct_free(c->a, c->unrel, (size_t)c->unrel_cap * sizeof *c->unrel);
    ct_free(c->a, c->ubytes, c->ubytes_cap);
    ct_free(c->a, c->assembly, c->assembly_cap);
    for (uint32_t i = 0; i < NET_REL_WINDOW; i++)
        ct_free(c->a, c->slots[i].data, c->slots[i].cap);
    c->a = NULL;
}

static void protocol_error(net_conn_t *c, const char *fmt, uint32_t a, uint32_t b)
{
    if (!c->error[0])
        snprintf(c->error, sizeof c->error, fmt, a, b);
}

/* ---- Sending ------------------------------------------------------------------------------ */

static net_rel_t *rel_at(net_conn_t *c, uint32_t abs) { return &c->rel[abs & (c->rel_cap - 1)]; }

/* The rings of reliable messages and of resends grow together (a message is queued for resend
 * at most once, so the resend ring never holds more than the message ring). */
static bool rel_reserve(net_conn_t *c, uint32_t more)
{
    const uint32_t need = c->rel_tail - c->rel_head + more;
    if (need <= c->rel_cap)
        return true;
    /* Both rings stay a power of two (their indices are masked): doubling from 64 keeps it. */
    const uint32_t cap = ct_array_capacity(c->rel_cap, need, 64);
    if (cap & (cap - 1))
        return false;
    net_rel_t *rel = ct_alloc(c->a, (size_t)cap * sizeof *rel);
    uint32_t *resend = ct_alloc(c->a, (size_t)cap * sizeof *resend);
    if (!rel || !resend) {
        ct_free(c->a, rel, (size_t)cap * sizeof *rel);
        ct_free(c->a, resend, (size_t)cap * sizeof *resend);
        return false;
    }
    for (uint32_t i = c->rel_head; i != c->rel_tail; i++)
        rel[i & (cap - 1)] = *rel_at(c, i);
    for (uint32_t i = c->resend_head; i != c->resend_tail; i++)
        resend[i & (cap - 1)] = c->resend[i & (c->rel_cap - 1)];
    ct_free(c->a, c->rel, (size_t)c->rel_cap * sizeof *c->rel);
    ct_free(c->a, c->resend, (size_t)c->rel_cap * sizeof *c->resend);
    c->rel = rel;
    c->resend = resend;
    c->rel_cap = cap;
    return true;
}

/* Room for n more payload bytes: first slide out the bytes of acknowledged messages. */
static bool sbytes_reserve(net_conn_t *c, uint32_t n)
{
    if (c->sbytes_cap - c->sbytes_len >= n)
        return true;
    const uint32_t start = c->rel_head != c->rel_tail ? rel_at(c, c->rel_head)->off : c->sbytes_len;
    if (start > 0) {
        memmove(c->sbytes, c->sbytes + start, c->sbytes_len - start);
        c->sbytes_len -= start;
        for (uint32_t i = c->rel_head; i != c->rel_tail; i++)
            rel_at(c, i)->off -= start;
    }
    return net_grow(c->a, (void **)&c->sbytes, &c->sbytes_cap, c->sbytes_len + n, 1,
                    UINT32_MAX / 2);
}

int net_conn_send(net_conn_t *c, const void *data, uint32_t len, bool reliable, uint32_t token)
{
    if (len == 0 || !data)
        return CT_ERR_INVALID;
    if (!reliable) {
        /* The largest header (8) and message header (3) must fit beside it. */
        if (len > NET_MTU - 11)
            return CT_ERR_INVALID;
        if (c->ubytes_len + len > c->caps.max_send_bytes ||
            !net_grow(c->a, (void **)&c->unrel, &c->unrel_cap, c->unrel_n + 1, sizeof *c->unrel,
                      c->caps.max_send_messages) ||
            !net_grow(c->a, (void **)&c->ubytes, &c->ubytes_cap, c->ubytes_len + len, 1,
                      c->caps.max_send_bytes))
            return CT_ERR_FULL;
        memcpy(c->ubytes + c->ubytes_len, data, len);
        c->unrel[c->unrel_n++] = (net_unrel_t){c->ubytes_len, len, token};
        c->ubytes_len += len;
        return 0;
    }
    if (len > c->caps.max_message)
        return CT_ERR_INVALID;
    const uint32_t parts = len <= NET_FRAGMENT ? 1 : (len + NET_FRAGMENT - 1) / NET_FRAGMENT;
    if (net_conn_unacked(c) + parts > c->caps.max_send_messages ||
        c->sbytes_live + len > c->caps.max_send_bytes)
        return CT_ERR_FULL;
    if (!rel_reserve(c, parts) || !sbytes_reserve(c, len))
        return CT_ERR_NOMEM;
    memcpy(c->sbytes + c->sbytes_len, data, len);
    for (uint32_t i = 0; i < parts; i++) {
        const uint32_t at = i * NET_FRAGMENT;
        const uint32_t n = len - at < NET_FRAGMENT ? len - at : NET_FRAGMENT;
        *rel_at(c, c->rel_tail++) = (net_rel_t){
            .off = c->sbytes_len + at,
            .len = n,
            .token = i + 1 == parts ? token : 0,
            .id = c->next_rel_id++,
            .frag_index = (uint8_t)i,
            .frag_count = parts > 1 ? (uint16_t)parts : 0,
        };
    }
    c->sbytes_len += len;
    c->sbytes_live += len;
    return 0;
}

/* How a queued reliable message (or fragment) goes on the wire. */
static net_msg_t rel_msg(const net_conn_t *c, const net_rel_t *m)
{
    return (net_msg_t){.tag = m->frag_count ? NET_MSG_FRAGMENT : NET_MSG_RELIABLE,
                       .id = m->id,
                       .frag_index = m->frag_index,
                       .frag_count = m->frag_count,
                       .len = m->len,
                       .data = c->sbytes + m->off};
}

static void report(net_conn_t *c, uint32_t token, bool delivered)
{
    if (token && c->ev.fate)
        c->ev.fate(c->ev.user, c->index, token, delivered);
}

/* The fate of every message of a packet that was acknowledged or lost. */
static void settle_packet(net_conn_t *c, net_sent_t *s, bool delivered)
{
    s->live = delivered ? 0 : 2; /* 2: lost, but a late ack still measures the round trip */
    c->in_flight_packets--;
    for (uint32_t k = 0; k < s->num_refs; k++) {
        const uint32_t ref = s->refs[k];
        if (s->unreliable_mask >> k & 1) {
            report(c, ref, delivered);
            continue;
        }
        if (ref - c->rel_head >= c->rel_tail - c->rel_head)
            continue; /* acknowledged and retired already */
        net_rel_t *m = rel_at(c, ref);
        if (m->acked)
            continue;
        m->in_flight = 0;
        if (delivered) {
            m->acked = 1;
            c->sbytes_live -= m->len;
        } else if (!m->queued_resend) {
            m->queued_resend = 1;
            c->resend[c->resend_tail++ & (c->rel_cap - 1)] = ref;
        }
    }
    /* A reliable message counts as delivered once it and every one before it are acknowledged:
     * only then has the receiver handed it up (acks are per packet; the receiver may hold an
     * acknowledged message until the gap before it fills). */
    while (c->rel_head != c->rel_tail && rel_at(c, c->rel_head)->acked)
        report(c, rel_at(c, c->rel_head++)->token, true);
    if (c->rel_head == c->rel_tail)
        c->sbytes_len = 0;
}

uint64_t net_conn_rto(const net_conn_t *c)
{
    double rto = c->rtt_sampled ? c->srtt + (4 * c->rttvar > 2000 ? 4 * c->rttvar : 2000) : 300000;
    rto *= (double)(1u << c->rto_backoff);
    return rto > 5e6 ? 5000000 : (uint64_t)rto;
}

void net_conn_detect_losses(net_conn_t *c, uint64_t now)
{
    if (!c->in_flight_packets)
        return;
    const uint64_t rto = net_conn_rto(c);
    bool lost = false;
    for (uint32_t i = 0; i < NET_PACKET_RING; i++) {
        net_sent_t *s = &c->sent[i];
        if (s->live == 1 && now - s->sent_at > rto) {
            c->stats.packets_lost++;
            settle_packet(c, s, false);
            lost = true;
        }
    }
    /* Timeouts back off until an ack measures the path again (a path slower than we think
     * would otherwise have every packet declared lost before its ack can come back). */
    if (lost && c->rto_backoff < 4)
        c->rto_backoff++;
}

static void acked(net_conn_t *c, uint16_t seq, uint64_t now)
{
    net_sent_t *s = &c->sent[seq % NET_PACKET_RING];
    if (!s->live || s->seq != seq)
        return;
    const double sample = (double)(now - s->sent_at);
    c->rto_backoff = 0;
    if (!c->rtt_sampled) {
        c->srtt = sample;
        c->rttvar = sample / 2;
        c->rtt_sampled = true;
    } else {
        const double d = sample > c->srtt ? sample - c->srtt : c->srtt - sample;
        c->rttvar += 0.25 * (d - c->rttvar);
        c->srtt += 0.125 * (sample - c->srtt);
    }
    if (s->live == 1)
        settle_packet(c, s, true);
    else
        s->live = 0;
}

static void take_acks(net_conn_t *c, const net_header_t *h, uint64_t now)
{
    acked(c, h->ack, now);
    for (uint32_t i = 0; i < 8u * h->ack_bytes; i++)
        if (h->ack_bits >> i & 1)
            acked(c, (uint16_t)(h->ack - 1 - i), now);
    /* Packets far behind the newest acknowledged one will not be acknowledged any more. */
    for (uint32_t i = 0; c->in_flight_packets && i < NET_PACKET_RING; i++) {
        net_sent_t *s = &c->sent[i];
        if (s->live == 1 && net_seq_newer(h->ack, s->seq) &&
            (uint16_t)(h->ack - s->seq) > LOSS_REORDER) {
            c->stats.packets_lost++;
            settle_packet(c, s, false);
        }
    }
}

/* What the header says about acks, and which bytes of the bitfield carry news. */
static void ack_header(const net_conn_t *c, net_header_t *h)
{
    if (!c->received_any)
        return;
    const uint32_t unreported = c->recv_bits & ~c->reported_twice;
    if (!c->ack_sends_left && !unreported)
        return;
    h->has_ack = true;
    h->ack = c->recv_latest;
    h->ack_bits = c->recv_bits;
    h->ack_bytes = 1;
    while (h->ack_bytes < 4 && (unreported >> (8 * h->ack_bytes)))
        h->ack_bytes++;
}

static void ack_sent(net_conn_t *c, const net_header_t *h)
{
    if (!h->has_ack)
        return;
    const uint32_t mask = h->ack_bytes == 4 ? UINT32_MAX : (1u << (8 * h->ack_bytes)) - 1;
    c->reported_twice |= c->reported_once & c->recv_bits & mask;
    c->reported_once |= c->recv_bits & mask;
    if (c->ack_sends_left)
        c->ack_sends_left--;
    c->ack_only_due = false;
    c->unacked_received = 0;
}

static bool fits(const net_writer_t *w, uint32_t n) { return w->cap - w->n >= n; }

/* Builds one packet; 0 when nothing is due. */
static uint32_t build(net_conn_t *c, uint8_t *out, uint64_t now, bool keepalive)
{
    if (c->caps.bytes_per_second) {
        const double rate = c->caps.bytes_per_second,
                     burst = rate / 10 > NET_MTU ? rate / 10 : NET_MTU;
        c->budget_bytes += (double)(now - c->budget_at) * rate * 1e-6;
        c->budget_at = now;
        if (c->budget_bytes > burst)
            c->budget_bytes = burst;
        if (c->budget_bytes <= 0)
            return 0;
    }
    net_sent_t *s = &c->sent[c->next_seq % NET_PACKET_RING];
    const bool room = s->live != 1;
    net_header_t h = {.kind = NET_PACKET_DATA, .seq = c->next_seq};
    ack_header(c, &h);
    net_writer_t w = net_writer(out, NET_MTU);
    net_header_write(&w, &h);
    const uint32_t header_bytes = w.n;
    uint32_t refs[NET_MAX_REFS];
    uint64_t unreliable_mask = 0;
    uint32_t n = 0;

    /* Reliable messages: the lost ones first, then new ones inside the window. */
    while (room && n < NET_MAX_REFS && c->resend_head != c->resend_tail) {
        const uint32_t abs = c->resend[c->resend_head & (c->rel_cap - 1)];
        net_rel_t *m = abs - c->rel_head < c->rel_tail - c->rel_head ? rel_at(c, abs) : NULL;
        if (m && !m->acked && !m->in_flight) {
            const net_msg_t msg = rel_msg(c, m);
            if (!fits(&w, net_msg_size(&msg)))
                break;
            net_msg_write(&w, &msg);
            m->in_flight = 1;
            refs[n++] = abs;
            c->stats.reliable_resent++;
        }
        if (m)
            m->queued_resend = 0;
        c->resend_head++;
    }
    while (room && n < NET_MAX_REFS && c->rel_next_new != c->rel_tail) {
        net_rel_t *m = rel_at(c, c->rel_next_new);
        if ((uint16_t)(m->id - rel_at(c, c->rel_head)->id) >= NET_REL_WINDOW)
            break;
        const net_msg_t msg = rel_msg(c, m);
        if (!fits(&w, net_msg_size(&msg)))
            break;
        net_msg_write(&w, &msg);
        m->in_flight = 1;
        refs[n++] = c->rel_next_new++;
    }
    while (room && n < NET_MAX_REFS && c->unrel_at < c->unrel_n) {
        const net_unrel_t *u = &c->unrel[c->unrel_at];
        net_msg_t msg = {.tag = NET_MSG_UNRELIABLE, .len = u->len, .data = c->ubytes + u->off};
        if (!fits(&w, net_msg_size(&msg)))
            break;
        net_msg_write(&w, &msg);
        unreliable_mask |= 1ull << n;
        refs[n++] = u->token;
        c->unrel_at++;
    }
    if (!n && !h.has_ack && !keepalive)
        return 0;
    if (!n && !keepalive && !c->ack_only_due)
        return 0;

    if (n) {
        *s = (net_sent_t){.sent_at = now,
                          .seq = c->next_seq,
                          .live = 1,
                          .eliciting = 1,
                          .num_refs = (uint16_t)n,
                          .bytes = (uint16_t)w.n,
                          .unreliable_mask = unreliable_mask};
        memcpy(s->refs, refs, n * sizeof *refs);
        c->in_flight_packets++;
    }
    c->next_seq++;
    ack_sent(c, &h);
    c->last_sent_at = now;
    c->budget_bytes -= w.n;
    c->stats.packets_sent++;
    c->stats.bytes_sent += w.n;
    c->stats.header_bytes_sent += header_bytes;
    return w.n;
}

uint32_t net_conn_flush(net_conn_t *c, uint64_t now, bool keepalive, net_emit_f emit, void *user)
{
    net_conn_detect_losses(c, now);
    uint8_t packet[NET_MTU];
    uint32_t sent = 0, len;
    /* Bounded: at most every ring slot once, plus the ack-only or keep-alive packet. */
    while (sent <= NET_PACKET_RING && (len = build(c, packet, now, keepalive && !sent))) {
        emit(user, packet, len);
        sent++;
    }
    for (; c->unrel_at < c->unrel_n; c->unrel_at++)
        report(c, c->unrel[c->unrel_at].token, false);
    c->unrel_n = c->unrel_at = c->ubytes_len = 0;
    return sent;
}

/* ---- Receiving ---------------------------------------------------------------------------- */

/* Hands one in-order reliable message (or fragment) up. False on a breach. */
static bool deliver_reliable(net_conn_t *c, uint8_t tag, uint8_t index, uint16_t count,
                             const uint8_t *data, uint32_t len)
{
    if (tag == NET_MSG_RELIABLE) {
        if (c->assembly_next) {
            protocol_error(c, "a whole message arrived inside a fragmented one (fragment %u of %u)",
                           c->assembly_next, c->assembly_count);
            return false;
        }
        c->ev.message(c->ev.user, c->index, data, len, true);
        return true;
    }
    if (index != c->assembly_next || (index && count != c->assembly_count)) {
        protocol_error(c, "fragment %u arrived where fragment %u was due", index, c->assembly_next);
        return false;
    }
    if (index == 0) {
        c->assembly_count = count;
        c->assembly_len = 0;
    }
    if (c->assembly_len + len > c->caps.max_message ||
        !net_grow(c->a, (void **)&c->assembly, &c->assembly_cap, c->assembly_len + len, 1,
                  c->caps.max_message)) {
        protocol_error(c, "a fragmented message grew past %u bytes (cap %u)", c->assembly_len + len,
                       c->caps.max_message);
        return false;
    }
    memcpy(c->assembly + c->assembly_len, data, len);
    c->assembly_len += len;
    c->assembly_next = (uint16_t)(index + 1);
    if (c->assembly_next == count) {
        c->assembly_next = 0;
        c->ev.message(c->ev.user, c->index, c->assembly, c->assembly_len, true);
    }
    return true;
}

/* Marks seq received. False when it is a duplicate or too old to acknowledge. Packets without
 * messages (acks only, keep-alives) are never waited for, so they bring no ack news. */
static bool note_received(net_conn_t *c, uint16_t seq, bool eliciting)
{
    if (!c->received_any) {
        c->received_any = true;
        c->recv_latest = seq;
        c->recv_bits = c->reported_once = c->reported_twice = 0;
        c->ack_sends_left = eliciting ? 2 : 0;
        return true;
    }
    if (net_seq_newer(seq, c->recv_latest)) {
        const uint32_t d = (uint16_t)(seq - c->recv_latest);
        /* The old latest becomes a bit; it counts as reported if the ack field already was. */
        const uint32_t told = c->ack_sends_left ? 0 : 1;
        if (d >= 32) {
            c->recv_bits = c->reported_once = c->reported_twice = 0;
            if (d == 32)
                c->recv_bits = 1u << 31;
        } else {
            c->recv_bits = c->recv_bits << d | 1u << (d - 1);
            c->reported_once = c->reported_once << d | told << (d - 1);
            c->reported_twice = c->reported_twice << d | told << (d - 1);
        }
        c->recv_latest = seq;
        if (eliciting)
            c->ack_sends_left = 2;
        return true;
    }
    const uint32_t d = (uint16_t)(c->recv_latest - seq);
    if (d == 0 || d > NET_ACK_BITS) {
        if (d)
            c->stats.packets_too_old++;
        else
            c->stats.packets_duplicate++;
        return false;
    }
    if (c->recv_bits >> (d - 1) & 1) {
        c->stats.packets_duplicate++;
        return false;
    }
    c->recv_bits |= 1u << (d - 1);
    if (!eliciting) {
        c->reported_once |= 1u << (d - 1);
        c->reported_twice |= 1u << (d - 1);
    }
    return true;
}

int net_conn_receive(net_conn_t *c, const net_header_t *h, net_reader_t *r, uint64_t now)
{
    /* Pass 1: read every message and check it against the window; change nothing. */
    const net_reader_t start = *r;
    uint32_t buffered = 0, count = 0;
    net_msg_t m;
    const char *why = NULL;
    while (net_left(r)) {
        if (!net_msg_read(r, &m, &why)) {
            protocol_error(c, "malformed message %u at byte %u", count, r->at);
            snprintf(c->error + strlen(c->error), sizeof c->error - strlen(c->error), " (%s)", why);
            return -1;
        }
        count++;
        if (m.tag == NET_MSG_UNRELIABLE)
            continue;
        const uint16_t d = (uint16_t)(m.id - c->recv_next_id);
        if (d >= 0x8000)
            continue; /* delivered already */
        if (d >= NET_REL_WINDOW) {
            protocol_error(c, "reliable message %u is past the window (next expected %u)", m.id,
                           c->recv_next_id);
            return -1;
        }
        if (d)
            buffered += m.len;
    }
    if (h->has_ack)
        take_acks(c, h, now);
    c->last_received_at = now;
    if (c->recv_buffered + buffered > c->caps.max_recv_bytes) {
        c->stats.packets_dropped_full++;
        return 0;
    }
    if (!note_received(c, h->seq, count > 0)) {
        c->ack_only_due = count > 0; /* tell the peer again: our acks may have been lost */
        c->ack_sends_left = count ? 2 : c->ack_sends_left;
        return 0;
    }
    c->stats.packets_received++;
    if (count) {
        c->ack_only_due = true;
        c->unacked_received++;
    }

    /* Pass 2: deliver. */
    *r = start;
    while (net_left(r)) {
        net_msg_read(r, &m, &why);
        if (m.tag == NET_MSG_UNRELIABLE) {
            c->ev.message(c->ev.user, c->index, m.data, m.len, false);
            continue;
        }
        const uint16_t d = (uint16_t)(m.id - c->recv_next_id);
        if (d >= 0x8000)
            continue;
        if (d) {
            net_slot_t *s = &c->slots[m.id % NET_REL_WINDOW];
            if (s->used)
                continue;
            if (!net_grow(c->a, (void **)&s->data, &s->cap, m.len, 1, NET_MTU)) {
                protocol_error(c, "out of memory buffering message %u (%u bytes)", m.id, m.len);
                return -1;
            }
            memcpy(s->data, m.data, m.len);
            *s = (net_slot_t){.data = s->data,
                              .len = m.len,
                              .cap = s->cap,
                              .id = m.id,
                              .used = 1,
                              .frag_index = m.frag_index,
                              .tag = m.tag,
                              .frag_count = m.frag_count};
            c->recv_buffered += m.len;
            continue;
        }
        if (!deliver_reliable(c, m.tag, m.frag_index, m.frag_count, m.data, m.len))
            return -1;
        c->recv_next_id++;
        for (net_slot_t *s;
             (s = &c->slots[c->recv_next_id % NET_REL_WINDOW])->used && s->id == c->recv_next_id;) {
            s->used = 0;
            c->recv_buffered -= s->len;
            if (!deliver_reliable(c, s->tag, s->frag_index, s->frag_count, s->data, s->len))
                return -1;
            c->recv_next_id++;
        }
    }
    return 0;
}
