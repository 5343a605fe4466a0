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

static void print_refs(FILE *out, const char *label, const ct_api_ref_t *refs, uint32_t n)
{
    if (n == 0)
        return;
    fprintf(out, "      %s:", label);
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "%s %s v%u%s", i ? "," : "", registry__api_label(refs[i].id, &refs[i]),
                refs[i].version, (refs[i].flags & CT_API_OPTIONAL) ? " (optional)" : "");
    fputc('\n', out);
}

static bool declared(const ct_plugin_o *p, uint32_t api, uint32_t version)
{
    for (uint32_t i = 0; i < p->num_requires; i++)
        if (p->requires[i].id == api && p->requires[i].version == version)
            return true;
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
        if (!p || declared(p, u.api, u.version))
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
        print_refs(out, "provides", p->provides, p->num_provides);
        print_refs(out, "requires", p->requires, p->num_requires);
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
