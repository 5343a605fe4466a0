/* Fuzz target: replication messages at a peer of a session (ids, counters, masks, floats).
 * Each input is a series of [u8 connection][u8 length][message]; every message that reads must
 * write back to the same bytes, and nothing may leak or crash. */
#include "net_test_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void no_send(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n)
{
    (void)user, (void)to, (void)p, (void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    test_alloc_t a;
    test_alloc_init(&a);
    net_session_t s;
    const net_session_desc_t d = {
        .node = {.a = &a.base, .max_peers = 4, .seed = 1, .send = no_send}, .max_objects = 64};
    if (net_session_init(&s, &d))
        abort();
    s.my_id = 4;
    s.joined = true;
    for (uint8_t c = 0; c < 3; c++) {
        s.id_of_conn[c] = (uint8_t)(c + 1);
        s.conn_of_id[c + 1] = (int16_t)c;
    }
    net_reader_t in = net_reader(data, (uint32_t)size);
    for (uint32_t n = 0; n < 4096 && net_left(&in) >= 2; n++) {
        const uint8_t conn = net_get_u8(&in) % 3;
        const uint8_t len = net_get_u8(&in);
        const uint8_t *p = net_get_bytes(&in, len);
        if (!p)
            break;
        net_reader_t r = net_reader(p, len);
        net_obj_msg_t m;
        const char *why;
        if (net_obj_msg_read(&r, &m, &why)) {
            uint8_t out[256];
            net_writer_t w = net_writer(out, sizeof out);
            net_obj_msg_write(&w, &m);
            /* Varints may be written shorter than an over-long input spelled them. */
            if (w.overflow || w.n > len)
                abort();
        }
        net__replication_receive(&s, conn, (uint8_t)(conn + 1), p, len, &why);
        net__replication_send(&s);
    }
    net_session_free(&s);
    if (a.live_blocks || a.live_bytes)
        abort();
    return 0;
}
