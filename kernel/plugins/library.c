/* Opening a plugin's shared library and reading what it says about itself.
 *
 * Nothing a plugin hands over is trusted before it is checked: the plugin table, its strings and
 * arrays, and the tables it provides must lie inside the plugin's own mapped file (readable
 * segments), and its callbacks inside the file's code, so a garbage pointer from get_plugin_api
 * is refused with a message instead of crashing the loader. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/leftovers.h"
#include "base/log.h"
#include "ct_hash.h"
#include "plugins/api_tables.h"
#include "plugins/plugins_internal.h"

/* More declared APIs than this is garbage metadata, not a real plugin. */
#define MAX_REFS 1024u
/* Longer names than this are garbage too (and would not fit in messages). */
#define MAX_NAME 256u
/* A requirement accepting more major versions than this is garbage. */
#define MAX_RANGE 64u
/* A shared library has a handful of loadable segments. */
#define MAX_SEGMENTS 16u

bool loader__file_name(const char *name, char *out, size_t size)
{
    size_t len = strlen(name);
    if (len + 4 > size)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_';
        out[i] = plain ? c : '_';
    }
    memcpy(out + len, ".so", 4);
    return true;
}

/* ---- where the plugin's file is mapped ---- */

typedef struct segments_t {
    uintptr_t start[MAX_SEGMENTS], end[MAX_SEGMENTS];
    bool exec[MAX_SEGMENTS];
    uint32_t count;
    const struct link_map *map; /* the object to find */
} segments_t;

static int collect_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    segments_t *s = data;
    if (info->dlpi_addr != s->map->l_addr || strcmp(info->dlpi_name, s->map->l_name) != 0)
        return 0;
    for (unsigned i = 0; i < info->dlpi_phnum && s->count < MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
            continue;
        s->start[s->count] = info->dlpi_addr + ph->p_vaddr;
        s->end[s->count] = s->start[s->count] + ph->p_memsz;
        s->exec[s->count++] = (ph->p_flags & PF_X) != 0;
    }
    return 1;
}

static bool find_segments(void *lib, segments_t *s)
{
    memset(s, 0, sizeof *s);
    struct link_map *map = NULL;
    if (dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0 || !map)
        return false;
    s->map = map;
    dl_iterate_phdr(collect_segments, s);
    return s->count > 0;
}

/* Whether [ptr, ptr + size) lies in one of the file's readable (or, with `code`, executable)
 * segments. Returns the bytes left in that segment from ptr, 0 when outside. */
static uintptr_t room_at(const segments_t *s, const void *ptr, size_t size, bool code)
{
    uintptr_t a = (uintptr_t)ptr;
    for (uint32_t i = 0; i < s->count; i++)
        if (a >= s->start[i] && a < s->end[i] && s->end[i] - a >= size && (!code || s->exec[i]))
            return s->end[i] - a;
    return 0;
}

static bool inside(const segments_t *s, const void *ptr, size_t size)
{
    return ptr && room_at(s, ptr, size, false) > 0;
}

/* A callback: NULL, or code of the plugin's own file. */
static bool code_or_null(const segments_t *s, const void *fn)
{
    return !fn || room_at(s, fn, 1, true) > 0;
}

/* A NUL-terminated string inside the file, of at most MAX_NAME bytes. */
static bool string_inside(const segments_t *s, const char *str)
{
    uintptr_t room = str ? room_at(s, str, 1, false) : 0;
    return room > 0 && memchr(str, '\0', room < MAX_NAME ? room : MAX_NAME) != NULL;
}

/* Function pointers travel in data pointers here; POSIX guarantees the conversion. */
static const void *fn_address(const void *field)
{
    const void *p;
    memcpy(&p, field, sizeof p);
    return p;
}

/* ---- declared APIs ---- */

/* Checks one declared list lies in the file, with names that are strings in the file. */
static bool refs_inside(const segments_t *s, const void *refs, size_t ref_size, uint32_t n,
                        size_t name_offset, const char *what, char *err, size_t err_size)
{
    if (n > MAX_REFS || (n > 0 && !inside(s, refs, n * ref_size))) {
        snprintf(err, err_size, "declares %u %s APIs but no valid array", n, what);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *name;
        memcpy(&name, (const char *)refs + i * ref_size + name_offset, sizeof name);
        if (name && !string_inside(s, name)) {
            snprintf(err, err_size,
                     "declares %s API #%u with a name that is not a string in its file", what, i);
            return false;
        }
    }
    return true;
}

/* A kernel-owned copy of `n` refs with their names in one block; a v2 plugin's needs become refs
 * whose version is the lowest accepted, with the highest in max_version. Id 0 takes the hash of
 * the name. */
static ct_api_ref_t *copy_refs(const ct_api_ref_t *refs, const ct_api_need_t *needs, uint32_t n,
                               uint32_t **max_version)
{
    if (n == 0)
        return NULL;
    size_t bytes = n * (sizeof(ct_api_ref_t) + 2 * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++) {
        const char *name = refs ? refs[i].name : needs[i].name;
        bytes += name ? strlen(name) + 1 : 0;
    }
    ct_api_ref_t *copy = malloc(bytes);
    if (!copy)
        return NULL;
    uint32_t *max = (uint32_t *)(copy + n);
    char *names = (char *)(max + 2 * n);
    memset(max, 0, 2 * n * sizeof *max);
    for (uint32_t i = 0; i < n; i++) {
        if (refs) {
            copy[i] = refs[i];
            max[i] = refs[i].version;
        } else {
            const ct_api_need_t *need = &needs[i];
            copy[i] = (ct_api_ref_t){need->id, need->min_version, 0, need->flags, need->name};
            max[i] = need->max_version > need->min_version ? need->max_version : need->min_version;
        }
        if (copy[i].name) {
            size_t len = strlen(copy[i].name) + 1;
            memcpy(names, copy[i].name, len);
            copy[i].name = names;
            names += len;
        }
        if (copy[i].id == 0 && copy[i].name)
            copy[i].id = ct_hash32(copy[i].name);
    }
    if (max_version)
        *max_version = max;
    return copy;
}

/* Checks the copied refs; a wrong name hash would make messages lie about which API is meant. */
static bool check_refs(const ct_api_ref_t *refs, uint32_t n, bool provides, const char *what,
                       char *err, size_t err_size)
{
    for (uint32_t i = 0; i < n; i++) {
        const ct_api_ref_t *r = &refs[i];
        if (r->id == 0) {
            snprintf(err, err_size, "declares %s API #%u with neither an id nor a name", what, i);
            return false;
        }
        if (r->name && ct_hash32(r->name) != r->id) {
            snprintf(err, err_size,
                     "declares %s API '%s' with id 0x%08x, but that name hashes to 0x%08x", what,
                     r->name, r->id, ct_hash32(r->name));
            return false;
        }
        if (provides && r->size == 0) {
            snprintf(err, err_size,
                     "provides API '%s' v%u with size 0 (set it to sizeof the table)",
                     r->name ? r->name : "?", r->version);
            return false;
        }
    }
    return true;
}

/* A provided ct.* table must be the struct this kernel's headers define for that version and fill
 * every function slot the header does not mark optional: a table built against another header,
 * or with a slot left NULL, would crash whoever calls it later, far from the plugin at fault. */
static int check_ct_table(const ct_api_ref_t *ref, const void *table, const char *api, char *err,
                          size_t err_size)
{
    const api_table_t *known = NULL;
    for (unsigned i = 0; i < api_tables_count && !known; i++)
        if (api_tables[i].id == ref->id && api_tables[i].version == ref->version)
            known = &api_tables[i];
    if (!known)
        return 0;
    if (ref->size != known->size) {
        snprintf(err, err_size,
                 "provides %s v%u with a table of %u bytes, but %s is %zu bytes "
                 "(build it against this SDK's headers, or provide the version it was written for)",
                 api, ref->version, ref->size, known->struct_name, known->size);
        return CT_ERR_BAD_DATA;
    }
    for (unsigned i = 0; i < known->num_slots; i++) {
        void *fn;
        memcpy(&fn, (const char *)table + known->slots[i].offset, sizeof fn);
        if (!fn) {
            snprintf(err, err_size,
                     "provides %s v%u with slot '%s' NULL (%s.%s is not optional: "
                     "fill it, or provide an older version)",
                     api, ref->version, known->slots[i].name, known->struct_name,
                     known->slots[i].name);
            return CT_ERR_BAD_DATA;
        }
    }
    return 0;
}

/* Asks for every provided table once, now, and checks each lies in the file: a plugin that
 * declares an API and answers NULL (or garbage) for it is refused at load, naming the API. */
static int read_own_tables(ct_plugin_o *p, const segments_t *s, char *err, size_t err_size)
{
    if (p->num_provides == 0)
        return 0;
    p->own_tables = calloc(p->num_provides, sizeof *p->own_tables);
    if (!p->own_tables) {
        snprintf(err, err_size, "out of memory reading its metadata");
        return CT_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < p->num_provides; i++) {
        const ct_api_ref_t *ref = &p->provides[i];
        const void *table = p->get_plugin_api(ref->id, ref->version);
        const char *api = ref->name ? ref->name : registry__api_label(ref->id, ref);
        if (!table) {
            snprintf(err, err_size,
                     "declares that it provides %s v%u, but its get_plugin_api answers NULL for it",
                     api, ref->version);
            return CT_ERR_MISSING_API;
        }
        if (!inside(s, table, ref->size)) {
            snprintf(err, err_size,
                     "answers for %s v%u with a table of %u bytes that is not inside its file", api,
                     ref->version, ref->size);
            return CT_ERR_BAD_DATA;
        }
        int code = check_ct_table(ref, table, api, err, err_size);
        if (code < 0)
            return code;
        p->own_tables[i] = table;
    }
    return 0;
}

static int keep_metadata(ct_plugin_o *p, const char *name, ct_semver_t version,
                         const ct_api_ref_t *provides, uint32_t num_provides,
                         const ct_api_ref_t *requires, const ct_api_need_t *needs,
                         uint32_t num_requires, char *err, size_t err_size)
{
    char *own_name = malloc(strlen(name) + 1);
    ct_api_ref_t *prov = copy_refs(provides, NULL, num_provides, NULL);
    uint32_t *max = NULL;
    ct_api_ref_t *req = copy_refs(requires, needs, num_requires, &max);
    if (!own_name || (num_provides && !prov) || (num_requires && !req)) {
        free(own_name);
        free(prov);
        free(req);
        snprintf(err, err_size, "out of memory reading its metadata");
        return CT_ERR_NOMEM;
    }
    strcpy(own_name, name);
    free(p->name);
    p->name = own_name;
    p->version = version;
    p->provides = prov;
    p->num_provides = num_provides;
    p->requires = req;
    p->num_requires = num_requires;
    p->max_version = max;
    p->chosen = max ? max + num_requires : NULL;
    if (!check_refs(prov, num_provides, true, "provided", err, err_size) ||
        !check_refs(req, num_requires, false, "required", err, err_size))
        return CT_ERR_BAD_DATA;
    for (uint32_t i = 0; i < num_requires; i++) {
        max[num_requires + i] = CT_API_ABSENT; /* chosen: none yet */
        if (max[i] - req[i].version > MAX_RANGE) {
            snprintf(err, err_size, "accepts %s v%u to v%u: more than %u versions is not a range",
                     req[i].name ? req[i].name : "an API", req[i].version, max[i], MAX_RANGE);
            return CT_ERR_BAD_DATA;
        }
    }
    return 0;
}

static bool v1_code_inside(const segments_t *s, const ct_plugin_api_v1 *v1)
{
    const void *fns[] = {fn_address(&v1->init),        fn_address(&v1->shutdown),
                         fn_address(&v1->frame_begin), fn_address(&v1->frame_end),
                         fn_address(&v1->reload_save), fn_address(&v1->reload_load)};
    for (uint32_t i = 0; i < CT_ARRAY_COUNT(fns); i++)
        if (!code_or_null(s, fns[i]))
            return false;
    return true;
}

static int read_v1(ct_plugin_o *p, const segments_t *s, const ct_plugin_api_v1 *v1, char *err,
                   size_t err_size)
{
    if (!inside(s, v1, sizeof *v1)) {
        snprintf(err, err_size, "answers plugin API v1 with a pointer that is not inside its file");
        return CT_ERR_BAD_DATA;
    }
    if (!v1->name || !string_inside(s, v1->name) || !v1->name[0]) {
        snprintf(err, err_size, "has no name (a string inside its file) in its plugin API v1");
        return CT_ERR_BAD_DATA;
    }
    if (!refs_inside(s, v1->provides, sizeof(ct_api_ref_t), v1->num_provides,
                     offsetof(ct_api_ref_t, name), "provided", err, err_size) ||
        !refs_inside(s, v1->required, sizeof(ct_api_ref_t), v1->num_requires,
                     offsetof(ct_api_ref_t, name), "required", err, err_size))
        return CT_ERR_BAD_DATA;
    if (!v1_code_inside(s, v1)) {
        snprintf(err, err_size, "has a plugin API v1 callback that is not code of its file");
        return CT_ERR_BAD_DATA;
    }
    p->plugin_api = 1;
    p->v1 = v1;
    return keep_metadata(p, v1->name, v1->version, v1->provides, v1->num_provides, v1->required,
                         NULL, v1->num_requires, err, err_size);
}

static bool v2_code_inside(const segments_t *s, const ct_plugin_api_v2 *v2)
{
    const void *fns[] = {fn_address(&v2->init),        fn_address(&v2->shutdown),
                         fn_address(&v2->frame_begin), fn_address(&v2->frame_end),
                         fn_address(&v2->reload_save), fn_address(&v2->reload_load),
                         fn_address(&v2->reload_abort)};
    for (uint32_t i = 0; i < CT_ARRAY_COUNT(fns); i++)
        if (!code_or_null(s, fns[i]))
            return false;
    return true;
}

static int read_v2(ct_plugin_o *p, const segments_t *s, const ct_plugin_api_v2 *v2, char *err,
                   size_t err_size)
{
    if (!inside(s, v2, 2 * sizeof(uint32_t))) {
        snprintf(err, err_size, "answers plugin API v2 with a pointer that is not inside its file");
        return CT_ERR_BAD_DATA;
    }
    if (v2->magic != CT_PLUGIN_MAGIC || v2->struct_size != sizeof *v2 ||
        !inside(s, v2, sizeof *v2)) {
        snprintf(err, err_size,
                 "answers plugin API v2 with a table that has magic 0x%08x and size %u "
                 "(expected 0x%08x and %u)",
                 v2->magic, v2->struct_size, CT_PLUGIN_MAGIC, (unsigned)sizeof *v2);
        return CT_ERR_BAD_DATA;
    }
    if (!v2->name || !string_inside(s, v2->name) || !v2->name[0]) {
        snprintf(err, err_size, "has no name (a string inside its file) in its plugin API v2");
        return CT_ERR_BAD_DATA;
    }
    if (!refs_inside(s, v2->provides, sizeof(ct_api_ref_t), v2->num_provides,
                     offsetof(ct_api_ref_t, name), "provided", err, err_size) ||
        !refs_inside(s, v2->required, sizeof(ct_api_need_t), v2->num_required,
                     offsetof(ct_api_need_t, name), "required", err, err_size))
        return CT_ERR_BAD_DATA;
    if (!v2_code_inside(s, v2) || !v2->init) {
        snprintf(err, err_size,
                 "has a plugin API v2 callback that is not code of its file (or no init)");
        return CT_ERR_BAD_DATA;
    }
    p->plugin_api = 2;
    p->v2 = v2;
    return keep_metadata(p, v2->name, v2->version, v2->provides, v2->num_provides, NULL,
                         v2->required, v2->num_required, err, err_size);
}

/* Whether `v2` starts like a v2 table. A v1 plugin that answers its v1 table whatever version is
 * asked (sloppy, but it loaded before v2 existed) must keep loading as v1. */
static bool looks_like_v2(const segments_t *s, const ct_plugin_api_v2 *v2)
{
    return inside(s, v2, 2 * sizeof(uint32_t)) && v2->magic == CT_PLUGIN_MAGIC;
}

static int read_v0(ct_plugin_o *p, const segments_t *s, const ct_plugin_api_v0 *v0, char *err,
                   size_t err_size)
{
    if (!inside(s, v0, sizeof *v0) || !code_or_null(s, fn_address(&v0->init))) {
        snprintf(err, err_size, "answers plugin API v0 with a table that is not inside its file");
        return CT_ERR_BAD_DATA;
    }
    if (!v0->init) {
        snprintf(err, err_size, "answers plugin API v0 without an init function");
        return CT_ERR_VERSION;
    }
    p->plugin_api = 0;
    p->v0 = v0;
    return 0;
}

static int read_metadata(ct_plugin_o *p, const segments_t *s, char *err, size_t err_size)
{
    /* Newest plugin API first: a plugin may answer several and we want the richest. */
    const ct_plugin_api_v2 *v2 = p->get_plugin_api(CT_PLUGIN_API, 2);
    if (looks_like_v2(s, v2)) {
        int code = read_v2(p, s, v2, err, err_size);
        return code < 0 ? code : read_own_tables(p, s, err, err_size);
    }
    const ct_plugin_api_v1 *v1 = p->get_plugin_api(CT_PLUGIN_API, 1);
    if (v1) {
        int code = read_v1(p, s, v1, err, err_size);
        return code < 0 ? code : read_own_tables(p, s, err, err_size);
    }
    const ct_plugin_api_v0 *v0 = p->get_plugin_api(CT_PLUGIN_API, 0);
    if (v0)
        return read_v0(p, s, v0, err, err_size);
    if (v2) /* says why its v2 answer is not one */
        return read_v2(p, s, v2, err, err_size);
    snprintf(err, err_size,
             "answers no plugin API version the kernel knows from get_plugin_api "
             "(asked v2, v1, v0)");
    return CT_ERR_VERSION;
}

/* ---- the file ---- */

/* The characters of a plugin's file name a debug copy's name keeps. */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_."

/* "<n>.so", or "<n>-<file name>.so" for a debug copy: what follows "<pid>-<start>-" in the name
 * of a private copy. */
static bool numbered_library(const char *suffix)
{
    size_t digits = strspn(suffix, "0123456789");
    if (digits == 0 || digits > 10)
        return false;
    if (suffix[digits] == '-') {
        size_t named = strspn(suffix + digits + 1, NAME_CHARS);
        return named > 3 && suffix[digits + 1 + named] == '\0' &&
               strcmp(suffix + digits + 1 + named - 3, ".so") == 0;
    }
    return strcmp(suffix + digits, ".so") == 0;
}

/* --debug sets CUTTLE_DEBUG=1: private copies are named after their plugin's file and stay
 * linked while loaded, so gdb's `info sharedlibrary` tells them apart and can read their symbols
 * (an unlinked copy has no file for the debugger to open). */
static bool debug_copies(void)
{
    const char *v = getenv("CUTTLE_DEBUG");
    return v && v[0] && strcmp(v, "0") != 0;
}

/* "-<file name>" for a debug copy of `path`: its last component, kept to NAME_CHARS. */
static void debug_suffix(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = 0;
    out[n++] = '-';
    for (const char *c = base; *c && n + 1 < size; c++)
        out[n++] = strchr(NAME_CHARS, *c) ? *c : '_';
    out[n] = '\0';
    /* Keep ".so" last, so the name reads as a library and the sweep recognises it. */
    if (n < 4 || strcmp(out + n - 3, ".so") != 0)
        snprintf(out + (n + 4 < size ? n : size - 4), 4, ".so");
}

/* Private copies are named after their process (base/leftovers.h): a process killed between the
 * copy and its unlinking leaves one behind, and the next process's first load removes it. */
static const leftovers_kind_t private_copies = {
    .prefix = "cuttle-plugin-",
    .suffix_ok = numbered_library,
    .folder = false,
    .what = "the private copy of a plugin",
};

/* Whether the ELF file at `path` holds every byte its program headers map: dlopen maps a
 * segment past the end of a truncated file as pages that raise SIGBUS when touched (at load,
 * or at the --watch reload of a file cut short), so such a file is refused before dlopen. Only
 * what the dynamic loader reads is checked: the header, the program headers, each loaded or
 * dynamic segment's file range. */
bool loader__elf_whole(const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    ElfW(Ehdr) eh;
    bool ok = f && fstat(fileno(f), &st) == 0 && fread(&eh, sizeof eh, 1, f) == 1 &&
              !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_phentsize == sizeof(ElfW(Phdr)) &&
              eh.e_phoff <= (uint64_t)st.st_size &&
              (uint64_t)eh.e_phnum * sizeof(ElfW(Phdr)) <= (uint64_t)st.st_size - eh.e_phoff;
    const char *why = ok ? NULL : "its ELF header or program headers are missing or cut short";
    for (uint32_t i = 0; ok && i < eh.e_phnum; i++) {
        ElfW(Phdr) ph;
        ok = fseek(f, (long)(eh.e_phoff + i * sizeof ph), SEEK_SET) == 0 &&
             fread(&ph, sizeof ph, 1, f) == 1;
        if (ok && (ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC) &&
            (ph.p_offset > (uint64_t)st.st_size ||
             ph.p_filesz > (uint64_t)st.st_size - ph.p_offset)) {
            ok = false;
            why = "a segment reaches past the end of the file (the file was cut short)";
        }
    }
    if (f)
        fclose(f);
    if (!ok)
        snprintf(err, err_size, "is not a whole shared library: %s", why ? why : "unreadable");
    return ok;
}

/* Copies `path` to a fresh temporary file and opens that: the mapping then never changes when
 * someone copies over or truncates the plugin's file (which would kill the process with SIGBUS),
 * and dlopen sees a new name each time (it would hand back the loaded library for a known one).
 * The copy is unlinked once mapped. Every symbol is bound now (RTLD_NOW), so an undefined one
 * refuses the plugin here instead of killing the engine on its first call. */
static int open_private_copy(ct_plugin_o *p, const char *path, char *err, size_t err_size)
{
    static uint32_t counter;
    char dir[512], tmp[768];
    leftovers__tmp_dir(dir, sizeof dir);
    if (!counter)
        leftovers__sweep(&private_copies, dir);
    const bool keep = debug_copies();
    char suffix[80] = ".so";
    if (keep)
        debug_suffix(path, suffix, sizeof suffix);
    size_t named = leftovers__name(&private_copies, dir, tmp, sizeof tmp) ? strlen(tmp) : 0;
    if (!named || snprintf(tmp + named, sizeof tmp - named, "%u%s", ++counter, suffix) >=
                      (int)(sizeof tmp - named)) {
        snprintf(err, err_size,
                 "cannot be copied to a private file: the temporary folder's path "
                 "(%s) is too long",
                 dir);
        return CT_ERR_IO;
    }
    uv_fs_t req;
    int rc = uv_fs_copyfile(NULL, &req, path, tmp, UV_FS_COPYFILE_EXCL, NULL);
    uv_fs_req_cleanup(&req);
    if (rc < 0) {
        snprintf(err, err_size, "cannot be copied to a private file (%s): %s", tmp,
                 uv_strerror(rc));
        return CT_ERR_IO;
    }
    if (!loader__elf_whole(tmp, err, err_size)) {
        remove(tmp);
        return CT_ERR_BAD_DATA;
    }
    dlerror();
    p->lib = dlopen(tmp, RTLD_NOW | RTLD_LOCAL);
    const char *why = p->lib ? NULL : dlerror();
    /* A temporary folder mounted noexec refuses every private copy: say where to look. */
    bool noexec = why && strstr(why, "failed to map segment");
    snprintf(err, err_size, "is not a loadable shared library: %s%s", why ? why : "unknown error",
             noexec ? " (if the temporary folder does not allow programs, set TMPDIR to one that "
                      "does)"
                    : "");
    if (p->lib && keep && (p->copy_path = strdup(tmp)) != NULL) {
        log__write(NULL, CT_LOG_INFO, "--debug: %s runs from %s (kept until it is unloaded)", path,
                   tmp);
        return 0;
    }
    remove(tmp);
    return p->lib ? 0 : CT_ERR_IO;
}

int loader__open(ct_plugin_o *p, const char *path, char *err, size_t err_size)
{
    struct stat st;
    /* A plugin is named by its path, never searched for: a bare name gets the hint to write ./ */
    const char *hint = strchr(path, '/') ? "" : " (a plugin is named by its path: write ./";
    if (!path[0]) {
        snprintf(err, err_size, "is an empty path: a plugin is named by its path (./name.so)");
        return CT_ERR_NOT_FOUND;
    }
    if (stat(path, &st) != 0) {
        snprintf(err, err_size, "%s%s%s%s", errno == ENOENT ? "no such file" : strerror(errno),
                 hint, hint[0] ? path : "", hint[0] ? " for a file in the current folder)" : "");
        return CT_ERR_NOT_FOUND;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "is %s, not a plugin file",
                 S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
        return CT_ERR_NOT_FOUND;
    }
    int code = open_private_copy(p, path, err, err_size);
    if (code < 0)
        return code;
    segments_t s;
    if (!find_segments(p->lib, &s)) {
        snprintf(err, err_size, "cannot be located in memory after loading");
        return CT_ERR_IO;
    }
    dlerror();
    void *sym = dlsym(p->lib, CT_PLUGIN_ENTRY_SYMBOL);
    if (!sym) {
        snprintf(err, err_size, "does not export %s (mark it CT_EXPORT)", CT_PLUGIN_ENTRY_SYMBOL);
        return CT_ERR_NOT_FOUND;
    }
    if (!code_or_null(&s, sym)) {
        snprintf(err, err_size, "has a %s that is not code of its own file",
                 CT_PLUGIN_ENTRY_SYMBOL);
        return CT_ERR_BAD_DATA;
    }
    /* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
    ct_get_api_f entry;
    memcpy(&entry, &sym, sizeof entry);
    p->get_plugin_api = entry;
    return read_metadata(p, &s, err, err_size);
}

void loader__close(ct_plugin_o *p)
{
    if (p->lib)
        dlclose(p->lib);
    p->lib = NULL;
    loader__drop_copy(p);
}

void loader__drop_copy(ct_plugin_o *p)
{
    if (p->copy_path)
        remove(p->copy_path);
    free(p->copy_path);
    p->copy_path = NULL;
}

const char *loader__name_address(const void *address, const char **file)
{
    Dl_info info;
    if (!address || !dladdr(address, &info))
        return NULL;
    for (uint32_t i = 0; i < registry__num_plugins(); i++) {
        const ct_plugin_o *p = registry__plugin(i);
        struct link_map *map = NULL;
        if (p->lib && dlinfo(p->lib, RTLD_DI_LINKMAP, &map) == 0 && map &&
            (void *)map->l_addr == info.dli_fbase) {
            *file = p->path;
            return p->name;
        }
    }
    return NULL;
}
