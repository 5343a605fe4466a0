/* A shared library that exports something, but not get_plugin_api. */
#include "ct_plugin.h"

CT_EXPORT int plugin_entry(void);
CT_EXPORT int plugin_entry(void) { return 1; }
