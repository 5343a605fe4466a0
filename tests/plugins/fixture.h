/* A kernel cut down to what the plugin system needs (memory, log, jobs, Lua, registry, resources;
 * every API the kernel serves, registered from the kernel's own list), booted in-process so tests
 * can hand the loader any loader_desc_t (providers, pins, watch...). */
#ifndef CT_TEST_PLUGINS_FIXTURE_H
#define CT_TEST_PLUGINS_FIXTURE_H

#include "plugins/loader.h"
#include "plugins/registry.h"

/* Where meson put the test plugins and where their sources are. */
#define TEST_PLUGIN(name) TEST_PLUGIN_DIR "/" name ".so"
#define SAMPLE_PLUGIN(name) CT_TEST_BUILD_ROOT "/sample_plugins/" name ".so"

/* Starts the services and runs loader__load(desc); returns its result. */
int fixture_boot(const loader_desc_t *desc);
/* Boots with just these plugin paths, not strict. */
int fixture_boot_paths(const char *const *paths, uint32_t n);
/* Shuts everything down; returns the leaked blocks (tests assert 0). */
uint64_t fixture_shutdown(void);
/* The introspection record of plugin `name` (fails the test if there is none). */
ct_plugin_info_t fixture_info(const char *name);
ct_plugin_state fixture_state(const char *name);

#endif
