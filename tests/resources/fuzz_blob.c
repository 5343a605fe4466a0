/* Fuzz target: arbitrary bytes as a compiled "numbers" blob. Validation must refuse or accept
 * without reading outside the input; what it accepts goes on to the type's load, which must do
 * the same. Mutations almost never keep the checksum right, so the bytes after the header are
 * also given to load directly: that is the parser a real type must harden. No service is
 * started: neither needs one. */
#include <stddef.h>
#include <stdint.h>

#include "resources/resources.h"
#include "test_type.h"

/* The format the seed generator compiles with (make_blob_seeds.c). */
#define SEED_FORMAT 1

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const void *payload = NULL;
    uint64_t payload_size = 0;
    char err[256];
    int rc = resources__validate_blob(data, size, TEST_TYPE, SEED_FORMAT, &payload, &payload_size,
                                      err, sizeof err);
    if (rc != 0 && size >= sizeof(ct_blob_header_t)) {
        payload = data + sizeof(ct_blob_header_t);
        payload_size = size - sizeof(ct_blob_header_t);
    }
    if (!payload)
        return 0;
    ct_resource_type_t t = test_type(SEED_FORMAT, NULL);
    void *runtime = t.load(t.user_data, payload, payload_size, err, sizeof err);
    if (runtime)
        t.unload(t.user_data, runtime);
    return 0;
}
