/* Fuzz target: the reliable stream's receiving side. The input is a series of DATA packets
 * ([u16 length][packet]...) fed to one connection: ids out of order, fragments, duplicates,
 * breaches. Nothing may read out of bounds, leak, or deliver a message twice. Then a round trip:
 * messages sent through a connection come out of another one unchanged. */
#include "net_test_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t delivered_bytes;

static void on_message(void *user, uint32_t conn, const uint8_t *d, uint32_t len, bool reliable)
{
    (void)user, (void)conn, (void)reliable;
    if (!d || len == 0 || len > NET_MAX_MESSAGE)
        abort();
    delivered_bytes += len;
}

static uint8_t wire[64][NET_MTU];
static uint32_t wire_len[64], wire_n;

static void capture(void *user, const uint8_t *p, uint32_t n)
{
    (void)user;
    if (wire_n < 64) {
        memcpy(wire[wire_n], p, n);
        wire_len[wire_n++] = n;
    }
}

static void roundtrip(const uint8_t *data, uint32_t size, test_alloc_t *a)
{
    net_conn_t tx, rx;
    const net_conn_events_t ev = {NULL, on_message, NULL};
    net_conn_init(&tx, &a->base, NULL, &ev, 0, 0);
    net_conn_init(&rx, &a->base, NULL, &ev, 0, 0);
    if (size)
        net_conn_send(&tx, data, size, true, 0);
    wire_n = 0;
    net_conn_flush(&tx, 0, false, capture, NULL);
    delivered_bytes = 0;
    for (uint32_t i = 0; i < wire_n; i++) {
        net_reader_t r = net_reader(wire[i], wire_len[i]);
        net_header_t h;
        if (!net_header_read(&r, &h) || net_conn_receive(&rx, &h, &r, 0) != 0)
            abort();
    }
    if (delivered_bytes != size && wire_n < 64)
        abort();
    net_conn_free(&tx);
    net_conn_free(&rx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    test_alloc_t a;
    test_alloc_init(&a);
    net_conn_t c;
    const net_conn_events_t ev = {NULL, on_message, NULL};
    net_conn_init(&c, &a.base, NULL, &ev, 0, 0);
    net_reader_t in = net_reader(data, (uint32_t)size);
    for (uint32_t n = 0; n < 1024 && net_left(&in) >= 2; n++) {
        const uint16_t len = net_get_u16(&in);
        const uint32_t take = len < net_left(&in) ? len : net_left(&in);
        const uint8_t *p = net_get_bytes(&in, take);
        net_reader_t r = net_reader(p, take);
        net_header_t h;
        if (p && net_header_read(&r, &h) && h.kind == NET_PACKET_DATA &&
            net_conn_receive(&c, &h, &r, n) < 0)
            break;
    }
    net_conn_free(&c);
    roundtrip(data, size < 20000 ? (uint32_t)size : 20000, &a);
    if (a.live_blocks || a.live_bytes)
        abort();
    return 0;
}
