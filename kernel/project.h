/* A project folder's project.sjson: which modules to load, their pinned versions, the chosen
 * providers, the boot script and the default frame count. */
#ifndef CT_KERNEL_PROJECT_H
#define CT_KERNEL_PROJECT_H

#include "plugins/loader.h"

#define PROJECT_MAX_ENTRIES 64
#define PROJECT_MAX_SCRIPT_TIMEOUT 3600

typedef struct project_t {
    char boot_script[512]; /* DIR/name, inside the project; "" if none */
    uint32_t frames;       /* 0: not said */
    bool sandbox;          /* scripts run without ffi, io, os, ... */
    bool has_script_timeout;
    double script_timeout;                    /* seconds per call into Lua, 0: off */
    const char *modules[PROJECT_MAX_ENTRIES]; /* plugin names to load */
    uint32_t num_modules;
    loader_pin_t pins[PROJECT_MAX_ENTRIES];
    uint32_t num_pins;
    loader_provider_t providers[PROJECT_MAX_ENTRIES];
    uint32_t num_providers;
    char *plugin_dirs[PROJECT_MAX_ENTRIES]; /* "<project>/<folder>", searched for plugins */
    uint32_t num_plugin_dirs;
    void *tree; /* owns the strings above */
} project_t;

/*
 * Reads DIR/project.sjson:
 *     boot_script = "boot.lua"                      // relative to the project folder
 *     frames = 120                                  // what `cuttle --project DIR` runs by default
 *     modules = ["ct.entities" "ct.transforms"]     // plugin names to load from --modules folders
 *     versions = { "ct.physics" = 2 }               // pinned major versions (optional)
 *     providers = { "ct.transform" = "ct.transforms" } // who provides an API offered twice (optional)
 *     plugin_folders = ["plugins"]                  // folders inside the project searched for
 *                                                   // plugins, after --modules (optional)
 *     sandbox = true                                // scripts lose ffi, debug, io, os, bytecode
 *     script_timeout = 10                           // CPU seconds one call into Lua may take
 *                                                   // (the watchdog); 0: off (optional)
 * Paths are canonical project-relative names (the resource rules) and must stay inside DIR.
 * Unknown keys (named with the nearest known one), a module listed twice, and a pin or provider
 * for a plugin that `modules` does not list are warnings, errors when `strict`. Returns 0 or a
 * negative ct_error with a message naming the file and field.
 */
int project__load(const char *dir, bool strict, project_t *out);
/* The same from text already read: `path` names it in messages, `dir` is the project folder. */
int project__parse(const char *dir, const char *path, const char *text, size_t len, bool strict,
                   project_t *out);
void project__free(project_t *p);

#endif
