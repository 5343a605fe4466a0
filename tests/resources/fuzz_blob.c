/* Fuzz target: arbitrary bytes as a compiled "numbers" blob. Validation must refuse or accept
 * without reading outside the input; what it accepts goes on to the type's load, which must do
 * the same. No service is started: validation needs none. */
#include <stddef.h>
#include <stdint.h>

#include "resources/resources.h"
#include "test_type.h"

/* The format the seed generator compiles with (make_blob_seeds.c). */
#define SEED_FORMAT 1

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const void *payload;
    uint64_t payload_size;
    char err[256];
    if (resources__validate_blob(data, size, TEST_TYPE, SEED_FORMAT, &payload, &payload_size, err,
                                 sizeof err) != 0)
        return 0;
    ct_resource_type_t t = test_type(SEED_FORMAT, NULL);
    void *runtime = t.load(t.user_data, payload, payload_size, err, sizeof err);
    if (runtime)
        t.unload(t.user_data, runtime);
    return 0;
}
