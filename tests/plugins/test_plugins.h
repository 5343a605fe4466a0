/* The APIs the purpose-built test plugins provide, shared by the plugins and the tests. */
#ifndef CT_TEST_PLUGINS_H
#define CT_TEST_PLUGINS_H

#include "ct_resource.h"

/* Provided by every graph plugin that provides something: tells which plugin answered. */
typedef struct test_graph_api_v1 {
    const char *(*who)(void);
} test_graph_api_v1;

#define TEST_COUNTER_API 0x52f2981du /* "test.counter" */

/* Provided by the reload counter; its functions change with the code behind them. */
typedef struct test_counter_api_v1 {
    int (*code_version)(void);
    double (*value)(void);
} test_counter_api_v1;

/* A resource type's callbacks for plugins and tests that only need the type to exist. */
static inline int test_compile_nothing(void *user_data, const struct ct_data_o *source,
                                       ct_compile_ctx_o *ctx)
{
    (void)user_data;
    (void)source;
    (void)ctx;
    return 0;
}

static inline void *test_load_nothing(void *user_data, const void *payload, uint64_t size,
                                      char *err, size_t err_size)
{
    (void)payload;
    (void)size;
    (void)err;
    (void)err_size;
    return user_data;
}

#define TEST_V2_API 0x4a20e58eu /* "test.v2" */

/* Provided by the plugin-API-v2 test plugin: what the kernel told it and did with its context. */
typedef struct test_v2_api_v1 {
    int (*code_version)(void);
    /* The versions the kernel chose for its requirements (ct.lua 0..1, test.x 1..3 optional). */
    uint32_t (*chosen_lua)(void);
    uint32_t (*chosen_x)(void);
    /* Frames whose hooks got the context init set (and none got another pointer). */
    uint32_t (*frames)(void);
    bool (*context_always_right)(void);
    /* How often reload_abort handed the old code its state back. */
    uint32_t (*aborts)(void);
    /* What the host said: kernel major.minor and the plugin API range. */
    uint32_t (*kernel_minor)(void);
    uint32_t (*plugin_api_max)(void);
} test_v2_api_v1;

#define TEST_WORLDS_API 0xe2013aabu /* "test.worlds" */

/* Provided by the world watcher: what its ct.world v2 listener saw. */
typedef struct test_worlds_api_v1 {
    uint32_t (*created)(void);
    uint32_t (*destroyed)(void);
    /* Events at which world_at listed the world concerned. */
    uint32_t (*listed_right)(void);
} test_worlds_api_v1;

#endif
