/*
 * The console's wire format, after the seed post "Scripted Network Debugging": every message is
 *     [type: u32 big-endian][length: u32 big-endian][length bytes of payload]
 * Type 0 (CONSOLE_FRAME_JSON): the payload is one JSON object whose "type" field says what it is.
 * Type 1 (CONSOLE_FRAME_BINARY): [json length: u32 big-endian][JSON object][raw bytes] (the file
 * server's blobs). Other types are refused.
 *
 * The reader below turns a byte stream into frames with no I/O of its own, so the server, the
 * clients, the tests and the fuzz target share it.
 */
#ifndef CT_KERNEL_CONSOLE_FRAME_H
#define CT_KERNEL_CONSOLE_FRAME_H

#include <stddef.h>

#include "ct_types.h"

#define CONSOLE_HEADER_SIZE 8u
#define CONSOLE_FRAME_JSON 0u
#define CONSOLE_FRAME_BINARY 1u
/* The largest payload a console accepts from a client (1 MiB); bigger frames close the
 * connection. File-server replies may carry up to CONSOLE_MAX_BLOB, of which the JSON part (and
 * its length) takes at most CONSOLE_BLOB_JSON_ROOM. */
#define CONSOLE_MAX_PAYLOAD (1u << 20)
#define CONSOLE_MAX_BLOB (256u << 20)
#define CONSOLE_BLOB_JSON_ROOM 4096u

typedef struct console_reader_t {
    uint8_t header[CONSOLE_HEADER_SIZE];
    uint32_t header_have;
    uint32_t type;
    uint32_t length;
    uint32_t max_payload; /* frames over it are refused at their header, before any is buffered */
    uint32_t refused;     /* the length of the frame last refused for its size (0: none) */
    uint8_t *payload;     /* from `allocator`, length + 1 bytes (a NUL after the payload) */
    uint32_t payload_have;
    ct_allocator_t *allocator;
    uint64_t frames; /* complete frames so far */
} console_reader_t;

/* Called for each complete frame; `payload` is NUL-terminated and valid only during the call
 * (unless taken with console_reader__take). Return false to stop reading (the connection is
 * going away). */
typedef bool (*console_frame_f)(void *ctx, uint32_t type, const uint8_t *payload, uint32_t length);

void console_reader__init(console_reader_t *r, ct_allocator_t *allocator, uint32_t max_payload);
/* Frees a partly read frame. */
void console_reader__free(console_reader_t *r);
/* From inside the frame callback: takes the frame's payload (length + 1 bytes from the reader's
 * allocator; free it there), so a frame is kept without a copy. */
uint8_t *console_reader__take(console_reader_t *r);
/* Consumes `n` bytes. Returns 0, or a negative ct_error with the reason in err (the stream cannot
 * go on: an oversized or unknown frame type, out of memory). */
int console_reader__feed(console_reader_t *r, const uint8_t *data, size_t n,
                         console_frame_f on_frame, void *ctx, char *err, size_t err_size);
/* Whether a frame has begun and not ended (for "closed mid-frame" reports). Writes how much of
 * it arrived and how long it is (0 when the header itself is incomplete). */
bool console_reader__partial(const console_reader_t *r, uint64_t *have, uint64_t *length);

/* Writes the 8-byte header. */
void console_frame__header(uint8_t out[CONSOLE_HEADER_SIZE], uint32_t type, uint32_t length);

#endif
