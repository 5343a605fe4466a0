/* Dependency resolution: duplicate providers, missing or mismatched APIs, cycles, and a stable
 * topological load order (dependencies first, otherwise discovery order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "ct_hash.h"
#include "plugins/plugins_internal.h"

/* The loader_desc_t of the resolve in progress, for the message about unlisted plugin files. */
static const loader_desc_t *resolving;

static bool is_candidate(const ct_plugin_o *p) { return p->state == CT_PLUGIN_DISCOVERED; }
static bool is_available(const ct_plugin_o *p)
{
    return p->state == CT_PLUGIN_DISCOVERED || p->state == CT_PLUGIN_LOADED;
}
static bool did_not_load(const ct_plugin_o *p)
{
    return p->state == CT_PLUGIN_FAILED || p->state == CT_PLUGIN_SKIPPED;
}

static bool provides(const ct_plugin_o *p, uint32_t id, uint32_t version)
{
    for (uint32_t i = 0; i < p->num_provides; i++)
        if (p->provides[i].id == id && p->provides[i].version == version)
            return true;
    return false;
}

/* The plugin the project chose for API `id`, or NULL when it did not choose. */
static const char *chosen_provider(const loader_desc_t *desc, uint32_t id)
{
    for (uint32_t i = 0; i < desc->num_providers; i++)
        if (desc->providers[i].api_name && ct_hash32(desc->providers[i].api_name) == id)
            return desc->providers[i].plugin;
    return NULL;
}

/* Two plugins answering one (id, version) would make get_engine_api's answer depend on discovery
 * order, so both are refused unless the project names one. Decided for all plugins before any
 * state changes, so every member of a conflict sees the others. */
static void reject_duplicate_providers(const loader_desc_t *desc)
{
    uint32_t n = registry__num_plugins();
    char(*why)[PLUGIN_ERROR_SIZE] = calloc(n ? n : 1, sizeof *why);
    bool *set_aside = calloc(n ? n : 1, sizeof *set_aside);
    if (!why || !set_aside) {
        free(why), free(set_aside);
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        ct_plugin_o *p = registry__plugin(k);
        for (uint32_t i = 0; is_candidate(p) && i < p->num_provides && !why[k][0]; i++) {
            const ct_api_ref_t *ref = &p->provides[i];
            const char *api = registry__api_label(ref->id, ref);
            if (registry__kernel_has(ref->id, ref->version)) {
                snprintf(why[k], sizeof why[k], "provides %s v%u, which the kernel itself provides",
                         api, ref->version);
                continue;
            }
            const ct_plugin_o *other = NULL;
            for (uint32_t j = 0; j < n && !other; j++) {
                const ct_plugin_o *q = registry__plugin(j);
                if (q != p && is_available(q) && provides(q, ref->id, ref->version))
                    other = q;
            }
            if (!other)
                continue;
            const char *chosen = chosen_provider(desc, ref->id);
            if (!chosen)
                snprintf(why[k], sizeof why[k],
                         "provides %s v%u, which '%s' provides too; name the one to use in the "
                         "project's providers",
                         api, ref->version, other->name);
            else if (strcmp(chosen, p->name) != 0) {
                snprintf(why[k], sizeof why[k], "the project chose '%s' to provide %s v%u", chosen,
                         api, ref->version);
                set_aside[k] = true;
            }
        }
    }
    for (uint32_t k = 0; k < n; k++) {
        ct_plugin_o *p = registry__plugin(k);
        if (!why[k][0])
            continue;
        if (!set_aside[k]) {
            loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_CONFLICT, "%s", why[k]);
            continue;
        }
        /* The project's own choice is no error: the other provider is simply not loaded. */
        snprintf(p->error, sizeof p->error, "not loaded: %s", why[k]);
        p->state = CT_PLUGIN_SKIPPED;
        log__info("plugin '%s' (%s) %s", p->name, p->path, p->error);
    }
    free(why);
    free(set_aside);
}

/* Lists who offers `id` at any version, for the message about a missing version. */
static bool describe_offers(uint32_t id, char *buf, size_t size)
{
    buf[0] = '\0';
    bool any = registry__kernel_versions(id, buf, size);
    for (uint32_t k = 0; k < registry__num_plugins(); k++) {
        const ct_plugin_o *q = registry__plugin(k);
        for (uint32_t i = 0; i < q->num_provides; i++) {
            if (q->provides[i].id != id || did_not_load(q))
                continue;
            size_t used = strlen(buf);
            snprintf(buf + used, size - used, " v%u (by %s)", q->provides[i].version, q->name);
            any = true;
        }
    }
    return any;
}

/* Finds who offers requirement i of `p` at `version`: sets deps[i] (NULL: the kernel or `p`
 * itself) and returns true, or returns false, noting in `*failed` a provider that did not load. */
static bool find_provider(ct_plugin_o *p, uint32_t i, uint32_t version, ct_plugin_o **failed)
{
    const uint32_t id = p->requires[i].id;
    p->deps[i] = NULL;
    if (registry__kernel_has(id, version) || provides(p, id, version))
        return true;
    for (uint32_t k = 0; k < registry__num_plugins(); k++) {
        ct_plugin_o *q = registry__plugin(k);
        if (!provides(q, id, version))
            continue;
        if (is_available(q)) {
            p->deps[i] = q;
            return true;
        }
        if (did_not_load(q))
            *failed = q;
    }
    return false;
}

/* Links each requirement of `p` to its provider, the highest version of its range that is
 * offered. Returns false when `p` cannot load. */
static bool link_requirements(ct_plugin_o *p)
{
    for (uint32_t i = 0; i < p->num_requires; i++) {
        const ct_api_ref_t *ref = &p->requires[i];
        ct_plugin_o *failed = NULL;
        p->chosen[i] = CT_API_ABSENT;
        for (uint32_t v = p->max_version[i] + 1; v-- > ref->version;) {
            if (find_provider(p, i, v, &failed)) {
                p->chosen[i] = v;
                break;
            }
        }
        const char *api = registry__api_label(ref->id, ref);
        char range[32], offers[256];
        if (p->max_version[i] > ref->version)
            snprintf(range, sizeof range, "v%u-v%u", ref->version, p->max_version[i]);
        else
            snprintf(range, sizeof range, "v%u", ref->version);
        /* An optional API nobody offers is simply not there; one offered at other versions only
         * is worth a line, or the plugin quietly runs without what it asked for. */
        if (p->chosen[i] == CT_API_ABSENT && (ref->flags & CT_API_OPTIONAL) && !failed &&
            describe_offers(ref->id, offers, sizeof offers))
            log__warning("plugin '%s': optional %s %s is not used: only%s is offered", p->name, api,
                         range, offers);
        if (p->chosen[i] != CT_API_ABSENT || (ref->flags & CT_API_OPTIONAL))
            continue;
        if (failed) {
            loader__skip(p, ref, failed);
            return false;
        }
        char unlisted[PLUGIN_ERROR_SIZE / 2];
        /* What the listed plugins offer says most; the unlisted files only when nobody does. */
        if (describe_offers(ref->id, offers, sizeof offers))
            loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_VERSION,
                         "requires %s %s, but only%s is offered", api, range, offers);
        else if (loader__unlisted_files(resolving, unlisted, sizeof unlisted))
            loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_MISSING_API,
                         "requires %s %s, which no plugin the project lists offers; its module "
                         "folders also hold %s, which the project's module list leaves out: if "
                         "one provides it, add that plugin's name to `modules` in project.sjson",
                         api, range, unlisted);
        else
            loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_MISSING_API,
                         "requires %s %s, which neither the kernel nor any plugin offers", api,
                         range);
        return false;
    }
    return true;
}

/* Skips every candidate that needs a plugin which did not load, until nothing changes. */
static void skip_dependents_of_failures(void)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < registry__num_plugins(); k++) {
            ct_plugin_o *p = registry__plugin(k);
            for (uint32_t i = 0; is_candidate(p) && i < p->num_requires; i++) {
                const ct_plugin_o *q = p->deps[i];
                if (!q || !did_not_load(q))
                    continue;
                if (p->requires[i].flags & CT_API_OPTIONAL) {
                    p->deps[i] = NULL;
                    p->chosen[i] = CT_API_ABSENT;
                    continue;
                }
                loader__skip(p, &p->requires[i], q);
                changed = true;
            }
        }
    }
}

/* Depth-first search for a path of unplaced plugins from `from` back to `target`. */
static bool find_path(ct_plugin_o *from, const ct_plugin_o *target, const bool *placed, bool *seen,
                      ct_plugin_o **path, uint32_t *len)
{
    path[(*len)++] = from;
    for (uint32_t i = 0; i < from->num_requires; i++) {
        ct_plugin_o *q = from->deps[i];
        if (!q || !is_candidate(q) || placed[q->discovery_index])
            continue;
        if (q == target)
            return true;
        if (seen[q->discovery_index])
            continue;
        seen[q->discovery_index] = true;
        if (find_path(q, target, placed, seen, path, len))
            return true;
    }
    (*len)--;
    return false;
}

/* Fails every unplaced plugin that lies on a cycle, naming the cycle. The others left unplaced
 * only depend on a cycle and are skipped afterwards. */
static void fail_cycles(const bool *placed, uint32_t n)
{
    bool *seen = calloc(n, sizeof *seen);
    bool *on_cycle = calloc(n, sizeof *on_cycle);
    ct_plugin_o **path = calloc(n, sizeof *path);
    char(*why)[PLUGIN_ERROR_SIZE] = calloc(n, sizeof *why);
    if (seen && on_cycle && path && why) {
        for (uint32_t k = 0; k < n; k++) {
            ct_plugin_o *p = registry__plugin(k);
            uint32_t len = 0;
            memset(seen, 0, n * sizeof *seen);
            if (!is_candidate(p) || placed[k] || !find_path(p, p, placed, seen, path, &len))
                continue;
            on_cycle[k] = true;
            int used = snprintf(why[k], sizeof why[k], "is in a dependency cycle:");
            for (uint32_t i = 0; i <= len && used < PLUGIN_ERROR_SIZE; i++)
                used += snprintf(why[k] + used, sizeof why[k] - (size_t)used, "%s %s",
                                 i ? " ->" : "", path[i % len]->name);
        }
        for (uint32_t k = 0; k < n; k++)
            if (on_cycle[k])
                loader__fail(registry__plugin(k), CT_PLUGIN_FAILED, CT_ERR_CYCLE, "%s", why[k]);
    }
    free(seen);
    free(on_cycle);
    free(path);
    free(why);
}

static bool ready(const ct_plugin_o *p, const bool *placed)
{
    for (uint32_t i = 0; i < p->num_requires; i++) {
        const ct_plugin_o *q = p->deps[i];
        if (q && q->state != CT_PLUGIN_LOADED && !placed[q->discovery_index])
            return false;
    }
    return true;
}

uint32_t loader__resolve(const loader_desc_t *desc, ct_plugin_o **order)
{
    uint32_t n = registry__num_plugins();
    resolving = desc;
    reject_duplicate_providers(desc);
    for (uint32_t k = 0; k < n; k++) {
        ct_plugin_o *p = registry__plugin(k);
        if (!is_candidate(p) || p->num_requires == 0)
            continue;
        free(p->deps);
        p->deps = calloc(p->num_requires, sizeof *p->deps);
        if (!p->deps)
            loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_NOMEM, "out of memory resolving it");
        else
            link_requirements(p);
    }
    skip_dependents_of_failures();

    bool *placed = calloc(n ? n : 1, sizeof *placed);
    if (!placed)
        return 0;
    /* Kahn's algorithm, always taking the earliest-discovered ready plugin, so independent
     * plugins keep their discovery order. Quadratic, which is fine for dozens of plugins. */
    uint32_t count = 0;
    for (bool progress = true; progress;) {
        progress = false;
        for (uint32_t k = 0; k < n && !progress; k++) {
            ct_plugin_o *p = registry__plugin(k);
            if (is_candidate(p) && !placed[k] && ready(p, placed)) {
                placed[k] = true;
                order[count++] = p;
                progress = true;
            }
        }
    }
    fail_cycles(placed, n);
    skip_dependents_of_failures();
    free(placed);
    return count;
}
