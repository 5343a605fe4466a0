/* A resource type for the resource tests: "numbers", compiled from
 *     values = [1 2 3]
 *     label = "three"          (optional)
 * into a payload of 16 bytes of header (magic, count, label offset, label length), the values as
 * little-endian int32 and the label bytes. Its load checks every field against the payload size,
 * as a real type must. */
#ifndef CT_TEST_RESOURCE_TYPE_H
#define CT_TEST_RESOURCE_TYPE_H

#include "ct_data.h"
#include "ct_resource.h"

#define TEST_TYPE "numbers"
#define TEST_MAX_VALUES 64

typedef struct test_numbers_t {
    uint32_t count;
    int32_t values[TEST_MAX_VALUES];
    char label[64];
} test_numbers_t;

/* What the callbacks saw, through user_data. */
typedef struct test_type_counters_t {
    uint32_t compiles;
    uint32_t loads;
    uint32_t unloads;
} test_type_counters_t;

/* The API tables the compile callback uses: the kernel's own in tests that link the kernel,
 * those from get_engine_api in the test plugin. Call before compiling. */
void test_type_use(const ct_data_api_v1 *data_api, const ct_resource_api_v1 *resource_api);
/* The type, with format_version and counters as given (counters may be NULL). */
ct_resource_type_t test_type(uint32_t format_version, test_type_counters_t *counters);

#endif
