/*
 * network_log.c: the traffic log (see network_internal.h for the layout) and a one-line decoder
 * of datagrams for tools/cuttle-netlog. Reading checks every length against the record limits,
 * so a truncated or corrupt log ends the read with a reason instead of a wild read.
 */
#include "network_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[8] = "CTNLOG1\n";

FILE *net_log_create(const char *path)
{
    /* Never through a link, and never into a FIFO or device (opened without blocking, then
     * checked): the path was checked by the host's output rules, this closes the gap after. */
    const int fd =
        open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        return NULL;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f && fd >= 0)
        close(fd);
    if (f && fwrite(magic, 1, sizeof magic, f) != sizeof magic) {
        fclose(f);
        return NULL;
    }
    return f;
}

void net_log_write(FILE *f, uint8_t what, const net_addr_t *addr, const uint8_t *p, uint32_t n,
                   uint64_t now)
{
    uint8_t head[32];
    const net_addr_t none = net_addr_loopback4(0);
    if (!addr)
        addr = &none;
    net_writer_t w = net_writer(head, sizeof head);
    net_put_u64(&w, now);
    net_put_u8(&w, what);
    net_put_u8(&w, addr->family);
    net_put_u16(&w, addr->port);
    net_put_bytes(&w, addr->ip, 16);
    net_put_u32(&w, n);
    fwrite(head, 1, w.n, f);
    if (n > 0) /* an empty datagram has no payload pointer */
        fwrite(p, 1, n, f);
}

bool net_log_begin(FILE *f)
{
    char m[sizeof magic];
    return fread(m, 1, sizeof m, f) == sizeof m && !memcmp(m, magic, sizeof m);
}

bool net_log_read(FILE *f, net_log_record_t *rec, const char **why)
{
    uint8_t head[32];
    const size_t got = fread(head, 1, sizeof head, f);
    *why = NULL;
    if (got == 0)
        return false;
    if (got != sizeof head) {
        *why = "a truncated record header";
        return false;
    }
    net_reader_t r = net_reader(head, sizeof head);
    rec->time = net_get_u64(&r);
    rec->what = net_get_u8(&r);
    rec->addr = (net_addr_t){.family = net_get_u8(&r), .port = net_get_u16(&r)};
    memcpy(rec->addr.ip, net_get_bytes(&r, 16), 16);
    rec->len = net_get_u32(&r);
    if (rec->what > NET_LOG_SERVICE || (rec->addr.family != 4 && rec->addr.family != 6) ||
        rec->len > NET_MAX_DATAGRAM) {
        *why = "a record with a bad direction, address family or length";
        return false;
    }
    if (fread(rec->data, 1, rec->len, f) != rec->len) {
        *why = "a truncated datagram";
        return false;
    }
    return true;
}

static const char *session_type(uint8_t t)
{
    switch (t) {
    case NET_S_HELLO: return "HELLO";
    case NET_S_WELCOME: return "WELCOME";
    case NET_S_PEER_HELLO: return "PEER_HELLO";
    case NET_S_PEER_JOINED: return "PEER_JOINED";
    case NET_S_PEER_ACCEPT: return "PEER_ACCEPT";
    case NET_R_CREATE: return "CREATE";
    case NET_R_UPDATE: return "UPDATE";
    case NET_R_DESTROY: return "DESTROY";
    case NET_R_MIGRATE: return "MIGRATE";
    case NET_R_MIGRATE_ORDER: return "MIGRATE_ORDER";
    case NET_R_MIGRATE_NOTICE: return "MIGRATE_NOTICE";
    case NET_R_ANNOUNCE_AGAIN: return "ANNOUNCE_AGAIN";
    case NET_RPC: return "RPC";
    case NET_USER: return "USER";
    default: return "?";
    }
}

#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (at < size)                                                                             \
            at += (size_t)snprintf(out + at, size - at, __VA_ARGS__);                              \
    } while (0)

void net_log_describe(const uint8_t *p, uint32_t n, char *out, size_t size)
{
    static const char *const kinds[] = {"DATA", "CONNECT", "CHALLENGE", "ACCEPT", "DISCONNECT"};
    size_t at = 0;
    out[0] = 0;
    net_reader_t r = net_reader(p, n);
    net_header_t h;
    if (!net_header_read(&r, &h)) {
        APPEND("malformed (%u bytes)", n);
        return;
    }
    APPEND("%s", kinds[h.kind]);
    if (h.kind != NET_PACKET_DATA) {
        APPEND(" (%u bytes)", n);
        return;
    }
    APPEND(" seq %u", h.seq);
    if (h.has_ack)
        APPEND(" ack %u bits %0*x", h.ack, 2 * h.ack_bytes, h.ack_bits);
    for (uint32_t k = 0; k < 64 && net_left(&r); k++) {
        net_msg_t m;
        const char *why;
        if (!net_msg_read(&r, &m, &why)) {
            APPEND(" | malformed: %s", why);
            return;
        }
        if (m.tag == NET_MSG_UNRELIABLE)
            APPEND(" | u");
        else if (m.tag == NET_MSG_RELIABLE)
            APPEND(" | r#%u", m.id);
        else
            APPEND(" | r#%u frag %u/%u", m.id, m.frag_index + 1, m.frag_count);
        APPEND(" %uB", m.len);
        if (m.tag == NET_MSG_FRAGMENT && m.frag_index)
            continue;
        APPEND(" %s", session_type(m.data[0]));
        net_reader_t mr = net_reader(m.data, m.len);
        net_obj_msg_t o;
        if (m.data[0] >= NET_R_CREATE && m.data[0] <= NET_R_ANNOUNCE_AGAIN &&
            net_obj_msg_read(&mr, &o, &why)) {
            APPEND(" obj %08x mig %u from %u", o.id, o.mig, o.origin);
            if (o.type != NET_R_DESTROY && o.type != NET_R_ANNOUNCE_AGAIN)
                APPEND(" v %u", o.version);
        }
    }
}

/* ---- Replay ----------------------------------------------------------------------------------- */

typedef struct replay_t {
    net_log_record_t *sent; /* what the node sent since the last comparison */
    uint32_t num_sent, cap;
} replay_t;

static void capture(void *user, uint8_t what, const net_addr_t *addr, const uint8_t *p, uint32_t n,
                    uint64_t now)
{
    replay_t *r = user;
    if (what != NET_LOG_OUT || r->num_sent == r->cap)
        return;
    net_log_record_t *rec = &r->sent[r->num_sent++];
    rec->what = what;
    rec->addr = *addr;
    rec->len = n;
    rec->time = now;
    memcpy(rec->data, p, n);
}

int net_log_replay(FILE *f, net_node_t *node, uint32_t *compared, const char **why)
{
    static net_log_record_t rec, sent[64];
    replay_t r = {sent, 0, 64};
    const net_node_events_t saved = node->d.ev;
    node->d.ev.traffic = capture;
    node->d.ev.traffic_user = &r;
    int differ = 0;
    uint32_t next = 0;
    *compared = 0;
    *why = NULL;
    if (!net_log_begin(f)) {
        *why = "not a traffic log";
        differ = -1;
    }
    while (differ >= 0 && net_log_read(f, &rec, why)) {
        if (rec.what == NET_LOG_OUT) {
            const net_log_record_t *s = next < r.num_sent ? &r.sent[next++] : NULL;
            differ += !s || s->len != rec.len || memcmp(s->data, rec.data, rec.len) ||
                      !net_addr_equal(&s->addr, &rec.addr);
            ++*compared;
            if (next == r.num_sent)
                next = r.num_sent = 0;
            continue;
        }
        /* Everything the node sent before this record was compared already. */
        differ += (int)(r.num_sent - next);
        next = r.num_sent = 0;
        if (rec.what == NET_LOG_IN)
            net_node_receive_plain(node, &rec.addr, rec.data, rec.len, rec.time);
        else
            net_node_service(node, rec.time);
    }
    if (*why)
        differ = -1;
    node->d.ev.traffic = saved.traffic;
    node->d.ev.traffic_user = saved.traffic_user;
    return differ;
}
