/* The frame reader: header bytes, then a payload buffer sized from the header. */
#include "console/console_frame.h"

#include <stdio.h>
#include <string.h>

#include "ct_memory.h"

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

void console_frame__header(uint8_t out[CONSOLE_HEADER_SIZE], uint32_t type, uint32_t length)
{
    const uint32_t v[2] = {type, length};
    for (int i = 0; i < 2; i++) {
        out[i * 4 + 0] = (uint8_t)(v[i] >> 24);
        out[i * 4 + 1] = (uint8_t)(v[i] >> 16);
        out[i * 4 + 2] = (uint8_t)(v[i] >> 8);
        out[i * 4 + 3] = (uint8_t)v[i];
    }
}

void console_reader__init(console_reader_t *r, ct_allocator_t *allocator, uint32_t max_payload)
{
    memset(r, 0, sizeof *r);
    r->allocator = allocator;
    r->max_payload = max_payload;
}

void console_reader__free(console_reader_t *r)
{
    if (r->payload)
        ct_free(r->allocator, r->payload, (size_t)r->length + 1);
    r->payload = NULL;
    r->header_have = 0;
    r->payload_have = 0;
}

uint8_t *console_reader__take(console_reader_t *r)
{
    uint8_t *payload = r->payload;
    r->payload = NULL;
    return payload;
}

bool console_reader__partial(const console_reader_t *r, uint64_t *have, uint64_t *length)
{
    *have = r->header_have < CONSOLE_HEADER_SIZE ? r->header_have
                                                 : CONSOLE_HEADER_SIZE + r->payload_have;
    *length = r->header_have < CONSOLE_HEADER_SIZE ? 0 : CONSOLE_HEADER_SIZE + (uint64_t)r->length;
    return r->header_have > 0;
}

/* The header is complete: checks it and makes room for the payload. */
static int begin_payload(console_reader_t *r, char *err, size_t err_size)
{
    r->type = read_u32(r->header);
    r->length = read_u32(r->header + 4);
    if (r->type != CONSOLE_FRAME_JSON && r->type != CONSOLE_FRAME_BINARY) {
        snprintf(err, err_size, "frame type %u is unknown (0: JSON, 1: JSON with binary)",
                 (unsigned)r->type);
        return CT_ERR_BAD_DATA;
    }
    if (r->length > r->max_payload) {
        r->refused = r->length;
        snprintf(err, err_size, "frame of %u bytes is over the %u-byte limit", (unsigned)r->length,
                 (unsigned)r->max_payload);
        return CT_ERR_BAD_DATA;
    }
    r->payload = ct_alloc(r->allocator, (size_t)r->length + 1);
    if (!r->payload) {
        snprintf(err, err_size, "out of memory for a frame of %u bytes", (unsigned)r->length);
        return CT_ERR_NOMEM;
    }
    r->payload_have = 0;
    return 0;
}

int console_reader__feed(console_reader_t *r, const uint8_t *data, size_t n,
                         console_frame_f on_frame, void *ctx, char *err, size_t err_size)
{
    while (n > 0) {
        if (r->header_have < CONSOLE_HEADER_SIZE) {
            size_t take = CONSOLE_HEADER_SIZE - r->header_have;
            take = take < n ? take : n;
            memcpy(r->header + r->header_have, data, take);
            r->header_have += (uint32_t)take;
            data += take;
            n -= take;
            if (r->header_have < CONSOLE_HEADER_SIZE)
                return 0;
            int rc = begin_payload(r, err, err_size);
            if (rc) {
                r->header_have = 0;
                return rc;
            }
        }
        size_t take = r->length - r->payload_have;
        take = take < n ? take : n;
        memcpy(r->payload + r->payload_have, data, take);
        r->payload_have += (uint32_t)take;
        data += take;
        n -= take;
        if (r->payload_have < r->length)
            return 0;
        r->payload[r->length] = '\0';
        r->frames++;
        bool go_on = on_frame(ctx, r->type, r->payload, r->length);
        console_reader__free(r);
        if (!go_on)
            return 0;
    }
    return 0;
}
