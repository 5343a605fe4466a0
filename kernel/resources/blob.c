/* The compiled blob's header: written and checked field by field in little-endian byte order, so
 * the layout is the same whatever the host and no field is ever read through a cast. */
#include <stdio.h>
#include <string.h>

#include "ct_hash.h"
#include "resources_internal.h"

_Static_assert(sizeof(ct_blob_header_t) == RESOURCES_HEADER_SIZE, "the blob header is frozen");

/* Byte offsets of the fields, as in ct_blob_header_t. */
enum {
    OFS_MAGIC = 0,
    OFS_HEADER_VERSION = 4,
    OFS_TYPE = 8,
    OFS_FORMAT_VERSION = 16,
    OFS_RESERVED = 20,
    OFS_PAYLOAD_SIZE = 24,
    OFS_CHECKSUM = 32,
};

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

void resources__write_header(uint8_t *blob, const char *type_name, uint32_t format_version,
                             uint64_t payload_size)
{
    put32(blob + OFS_MAGIC, CT_BLOB_MAGIC);
    put32(blob + OFS_HEADER_VERSION, CT_BLOB_HEADER_VERSION);
    put64(blob + OFS_TYPE, ct_hash64(type_name));
    put32(blob + OFS_FORMAT_VERSION, format_version);
    put32(blob + OFS_RESERVED, 0);
    put64(blob + OFS_PAYLOAD_SIZE, payload_size);
    put64(blob + OFS_CHECKSUM, ct_murmur64a(blob + RESOURCES_HEADER_SIZE, (size_t)payload_size, 0));
}

int resources__validate_blob(const void *blob, uint64_t size, const char *type_name,
                             uint32_t format_version, const void **payload, uint64_t *payload_size,
                             char *err, size_t err_size)
{
    char scratch[1];
    if (!err) {
        err = scratch;
        err_size = sizeof scratch;
    }
    const uint8_t *b = blob;
    if (!b || size < RESOURCES_HEADER_SIZE) {
        snprintf(err, err_size, "truncated: %llu bytes, less than the %u-byte header",
                 (unsigned long long)size, RESOURCES_HEADER_SIZE);
        return CT_ERR_BAD_DATA;
    }
    uint32_t magic = get32(b + OFS_MAGIC);
    if (magic != CT_BLOB_MAGIC) {
        snprintf(err, err_size, "not a compiled resource (magic 0x%08x, expected 0x%08x)", magic,
                 CT_BLOB_MAGIC);
        return CT_ERR_BAD_DATA;
    }
    uint32_t header_version = get32(b + OFS_HEADER_VERSION);
    if (header_version != CT_BLOB_HEADER_VERSION) {
        snprintf(err, err_size, "blob header version %u, this build reads %u: recompile",
                 header_version, CT_BLOB_HEADER_VERSION);
        return CT_ERR_VERSION;
    }
    uint64_t type = get64(b + OFS_TYPE);
    uint64_t want_type = ct_hash64(type_name ? type_name : "");
    if (type != want_type) {
        snprintf(err, err_size, "compiled for type id 0x%016llx, not '%s' (0x%016llx)",
                 (unsigned long long)type, type_name ? type_name : "",
                 (unsigned long long)want_type);
        return CT_ERR_BAD_DATA;
    }
    uint32_t format = get32(b + OFS_FORMAT_VERSION);
    if (format != format_version) {
        snprintf(err, err_size, "compiled with format %u, this build reads %u: recompile", format,
                 format_version);
        return CT_ERR_VERSION;
    }
    if (get32(b + OFS_RESERVED) != 0) {
        snprintf(err, err_size, "reserved header field is not 0");
        return CT_ERR_BAD_DATA;
    }
    uint64_t declared = get64(b + OFS_PAYLOAD_SIZE);
    uint64_t actual = size - RESOURCES_HEADER_SIZE;
    if (declared != actual) {
        snprintf(err, err_size, "header says %llu payload bytes, the blob holds %llu%s",
                 (unsigned long long)declared, (unsigned long long)actual,
                 declared > actual ? " (truncated)" : "");
        return CT_ERR_BAD_DATA;
    }
    const uint8_t *p = b + RESOURCES_HEADER_SIZE;
    if (ct_murmur64a(p, (size_t)actual, 0) != get64(b + OFS_CHECKSUM)) {
        snprintf(err, err_size, "checksum mismatch: the payload is corrupt");
        return CT_ERR_BAD_DATA;
    }
    if (payload)
        *payload = p;
    if (payload_size)
        *payload_size = actual;
    return 0;
}
