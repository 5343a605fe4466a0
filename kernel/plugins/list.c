/* `cuttle --list`: every plugin the kernel tried, what it declares, the order, and what went wrong. */
#include "plugins/plugins_internal.h"

static const char *state_name(ct_plugin_state s)
{
    switch (s) {
    case CT_PLUGIN_DISCOVERED: return "discovered";
    case CT_PLUGIN_LOADED: return "loaded";
    case CT_PLUGIN_FAILED: return "FAILED";
    case CT_PLUGIN_SKIPPED: return "SKIPPED";
    case CT_PLUGIN_SHUT_DOWN: return "shut down";
    }
    return "?";
}

/* Each ref as "name v1", a requirement's range as "name v1-v3 (v3 chosen)". */
static void print_refs(FILE *out, const char *label, const ct_plugin_o *p, bool requires)
{
    const ct_api_ref_t *refs = requires ? p->requires : p->provides;
    uint32_t n = requires ? p->num_requires : p->num_provides;
    if (n == 0)
        return;
    fprintf(out, "      %s:", label);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(out, "%s %s v%u", i ? "," : "", registry__api_label(refs[i].id, &refs[i]),
                refs[i].version);
        const uint32_t max = requires && p->max_version ? p->max_version[i] : refs[i].version;
        if (max > refs[i].version) {
            fprintf(out, "-v%u", max);
            if (p->chosen && p->chosen[i])
                fprintf(out, " (v%u chosen)", p->chosen[i]);
        }
        if (refs[i].flags & CT_API_OPTIONAL)
            fprintf(out, " (optional)");
    }
    fputc('\n', out);
}

/* Whether `p` declares `api` at `version`: provided, or inside a requirement's range. */
static bool declared(const ct_plugin_o *p, uint32_t api, uint32_t version)
{
    for (uint32_t i = 0; i < p->num_requires; i++) {
        const uint32_t max = p->max_version ? p->max_version[i] : p->requires[i].version;
        if (p->requires[i].id == api && version >= p->requires[i].version && version <= max)
            return true;
    }
    for (uint32_t i = 0; i < p->num_provides; i++)
        if (p->provides[i].id == api && p->provides[i].version == version)
            return true;
    return false;
}

/* APIs plugins asked for without declaring them: dependencies the load order cannot see. */
static void print_discovered_uses(FILE *out)
{
    const ct_registry_api_v1 *r = registry__api_v1();
    bool any = false;
    for (uint32_t i = 0; i < r->api_use_count(); i++) {
        ct_api_use_t u;
        r->api_use(i, &u);
        const ct_plugin_o *p = registry__find(u.who);
        /* An API the kernel serves is there before any plugin loads, so an undeclared use of
         * it hides no load-order dependency (ct_module.h itself asks for ct.log and ct.memory
         * v1 on every plugin's behalf). */
        if (!p || declared(p, u.api, u.version) || registry__kernel_has(u.api, u.version))
            continue;
        if (!any)
            fprintf(out, "Used but not declared:\n");
        any = true;
        fprintf(out, "  %s asked for %s v%u (%s)\n", p->name, registry__api_label(u.api, NULL),
                u.version, u.answered ? "answered" : "not available");
    }
}

void loader__print_list(FILE *out)
{
    uint32_t n = registry__num_plugins();
    fprintf(out, "Plugins (%u):\n", n);
    for (uint32_t i = 0; i < n; i++) {
        const ct_plugin_o *p = registry__plugin(i);
        fprintf(out, "  %-24s %u.%u.%u  %-10s plugin API v%u  %s\n", p->name, p->version.major,
                p->version.minor, p->version.patch, state_name(p->state), p->plugin_api, p->path);
        print_refs(out, "provides", p, false);
        print_refs(out, "requires", p, true);
        if (p->reload_count)
            fprintf(out, "      reloaded %u times\n", p->reload_count);
        if (p->error[0])
            fprintf(out, "      why: %s\n", p->error);
    }
    print_discovered_uses(out);
    ct_plugin_o **order;
    uint32_t count = loader__load_order(&order);
    fprintf(out, "Load order:");
    for (uint32_t i = 0; i < count; i++)
        fprintf(out, "%s %s", i ? " ->" : "", order[i]->name);
    fprintf(out, "%s\n", count ? "" : " (nothing loaded)");
}

void loader__print_load_order(FILE *out)
{
    ct_plugin_o **order;
    uint32_t count = loader__load_order(&order);
    fprintf(out, "%u plugin%s loaded, in load order:\n", count, count == 1 ? "" : "s");
    for (uint32_t i = 0; i < count; i++)
        fprintf(out, "  %u. %-20s %u.%u.%u  %s\n", i + 1, order[i]->name, order[i]->version.major,
                order[i]->version.minor, order[i]->version.patch, order[i]->path);
}
