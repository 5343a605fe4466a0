/*
 * The editor's WebSocket framing (RFC 6455), strict and bounded, with no I/O of its own so the
 * server, the tests and the fuzz target share it.
 *
 * What a client may send, and what is refused (each refusal is a close code and a reason):
 *   - every frame masked (1002 otherwise); RSV bits zero (no extension is negotiated: 1002);
 *   - opcodes 0 (continuation), 1 (text), 2 (binary), 8 (close), 9 (ping), 10 (pong) (1002);
 *   - lengths in their shortest encoding, the 64-bit form below 2^63 (1002);
 *   - control frames unfragmented with at most 125 bytes (1002); a close payload empty or a
 *     valid code (1000..1003, 1007..1011, 3000..4999) plus UTF-8 text (1002 / 1007);
 *   - a message (all its fragments) of at most `max_message` bytes, refused at the header that
 *     would pass it, before any of it is buffered (1009);
 *   - a continuation only inside a fragmented message, a new text/binary only outside (1002);
 *   - text messages valid UTF-8 (1007).
 * Unmasking happens as bytes arrive; a message is handed over whole (fragments joined), with a
 * NUL after it.
 */
#ifndef CT_KERNEL_EDITOR_WS_H
#define CT_KERNEL_EDITOR_WS_H

#include <stddef.h>

#include "ct_types.h"

#define EDITOR_WS_TEXT 1u
#define EDITOR_WS_BINARY 2u
#define EDITOR_WS_CLOSE 8u
#define EDITOR_WS_PING 9u
#define EDITOR_WS_PONG 10u

/* The length of the Sec-WebSocket-Accept value (base64 of a SHA-1), without its NUL. */
#define EDITOR_WS_ACCEPT_SIZE 28u

typedef struct editor_ws_reader_t {
    uint8_t header[14];
    uint32_t header_have, header_want;
    uint8_t opcode; /* of the frame being read */
    bool fin;
    uint8_t mask[4];
    uint64_t frame_length, frame_have;
    uint8_t message_opcode; /* text or binary of the message being assembled; 0: none */
    uint8_t *message;       /* from `allocator`: message capacity + 1 */
    uint32_t message_size, message_capacity;
    uint8_t control[126]; /* a control frame's payload (never fragmented) */
    uint32_t max_message;
    ct_allocator_t *allocator;
    uint64_t messages; /* complete messages so far (control frames included) */
} editor_ws_reader_t;

/* Called for each complete message: text, binary, close, ping or pong. `payload` has a NUL after
 * it and is valid only during the call. Return false to stop reading (the connection is going
 * away). */
typedef bool (*editor_ws_message_f)(void *ctx, uint32_t opcode, const uint8_t *payload,
                                    uint32_t length);

void editor_ws_reader__init(editor_ws_reader_t *r, ct_allocator_t *allocator, uint32_t max_message);
void editor_ws_reader__free(editor_ws_reader_t *r);
/* Consumes `n` bytes. Returns 0, or a close code (1002, 1007, 1009, or 1011 for out of memory)
 * with the reason in err: the stream cannot go on, send a close frame with the code and stop. */
int editor_ws_reader__feed(editor_ws_reader_t *r, const uint8_t *data, size_t n,
                           editor_ws_message_f on_message, void *ctx, char *err, size_t err_size);
/* Whether a frame or a fragmented message has begun and not ended. */
bool editor_ws_reader__partial(const editor_ws_reader_t *r);

/* Writes a server frame header (FIN set, unmasked) for `length` payload bytes; returns its size
 * (2, 4 or 10). */
size_t editor_ws__header(uint8_t out[10], uint32_t opcode, uint64_t length);
/* Sec-WebSocket-Accept for a client's Sec-WebSocket-Key (base64 SHA-1 of key + the RFC's GUID). */
void editor_ws__accept_key(const char *key, size_t key_len, char out[EDITOR_WS_ACCEPT_SIZE + 1]);
/* Whether the bytes are well-formed UTF-8 (no overlongs, surrogates or code points past 10FFFF). */
bool editor_ws__utf8_valid(const uint8_t *s, size_t n);
/* SHA-1 of `n` bytes (for the handshake only; not for secrets). */
void editor_ws__sha1(const void *data, size_t n, uint8_t digest[20]);

#endif
