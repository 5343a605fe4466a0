/*
 * byte_reader.h: reading a bounded run of bytes front to back without reading past its end, for
 * the modules' binary readers (compiled resources, captures). A take that does not fit takes
 * nothing and says so; each reader words its own message from where it stopped.
 */
#ifndef CT_MODULES_BYTE_READER_H
#define CT_MODULES_BYTE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct byte_reader_t {
    const uint8_t *p; /* the bytes, not owned */
    size_t size;      /* how many */
    size_t at;        /* the next one to read; at <= size always */
} byte_reader_t;

/* The bytes left after `at`. */
static inline size_t byte_reader__left(const byte_reader_t *r) { return r->size - r->at; }

/* The next n bytes (n computed by the caller without overflow), or NULL and nothing taken when
 * fewer are left. */
static inline const uint8_t *byte_reader__take(byte_reader_t *r, size_t n)
{
    if (n > r->size - r->at)
        return NULL;
    const uint8_t *at = r->p + r->at;
    r->at += n;
    return at;
}

/* The next 4 bytes as a host-order uint32_t (the formats are little-endian, as the hosts). */
static inline bool byte_reader__u32(byte_reader_t *r, uint32_t *v)
{
    const uint8_t *at = byte_reader__take(r, 4);
    if (at)
        memcpy(v, at, 4);
    return at != NULL;
}

#endif
