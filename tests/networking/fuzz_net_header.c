/* Fuzz target: the packet header and the message framing inside a DATA packet. Whatever parses
 * must write back to the same bytes (write-then-read round trip). */
#include "network_wire.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > NET_MAX_DATAGRAM)
        return 0;
    net_reader_t r = net_reader(data, (uint32_t)size);
    net_header_t h;
    if (!net_header_read(&r, &h))
        return 0;
    uint8_t out[NET_MAX_DATAGRAM];
    net_writer_t w = net_writer(out, sizeof out);
    net_header_write(&w, &h);
    /* Handshake kinds keep their payload; DATA headers round-trip exactly. */
    if (h.kind == NET_PACKET_DATA && (w.n != r.at || memcmp(out, data, w.n)))
        abort();
    for (uint32_t n = 0; n < 4096 && net_left(&r); n++) {
        net_msg_t m;
        const char *why;
        const uint32_t at = r.at;
        if (!net_msg_read(&r, &m, &why))
            break;
        net_writer_t mw = net_writer(out, sizeof out);
        net_msg_write(&mw, &m);
        if (mw.n != net_msg_size(&m) || mw.n > r.at - at ||
            memcmp(out + mw.n - m.len, m.data, m.len))
            abort();
    }
    return 0;
}
