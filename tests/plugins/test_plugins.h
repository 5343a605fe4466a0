/* The APIs the purpose-built test plugins provide, shared by the plugins and the tests. */
#ifndef CT_TEST_PLUGINS_H
#define CT_TEST_PLUGINS_H

#include "ct_types.h"

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

#endif
