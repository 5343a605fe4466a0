/* fuzz_stream.h: a fuzz target's input read as a stream of bytes. Past the input's end the stream
 * goes on from an xorshift generator seeded by the whole input, so even the driver's short inputs
 * make whole shapes, meshes or call sequences (bytes of zeros would make every later choice the
 * first one), and the same input always gives the same stream. */
#ifndef CUTTLE_TESTS_FUZZ_STREAM_H
#define CUTTLE_TESTS_FUZZ_STREAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct fuzz_stream {
    const uint8_t *p;
    size_t n, at;
    uint64_t state;
} fuzz_stream;

static inline fuzz_stream fuzz_stream_of(const uint8_t *data, size_t size)
{
    fuzz_stream r = {data, size, 0, 0x9e3779b97f4a7c15ull};
    for (size_t k = 0; k < size; k++)
        r.state = (r.state ^ data[k]) * 0x100000001b3ull;
    r.state |= 1u; /* xorshift never leaves zero */
    return r;
}

static inline uint8_t fuzz_stream_next(fuzz_stream *r)
{
    if (r->at < r->n)
        return r->p[r->at++];
    r->state ^= r->state << 13;
    r->state ^= r->state >> 7;
    r->state ^= r->state << 17;
    return (uint8_t)(r->state >> 32);
}

/* Four bytes, first one lowest. Each byte is widened before it is shifted: a uint8_t promotes to
 * int, and a byte of 128 or more shifted by 24 does not fit one. */
static inline uint32_t fuzz_stream_u32(fuzz_stream *r)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++)
        v |= (uint32_t)fuzz_stream_next(r) << (8 * k);
    return v;
}

#endif
