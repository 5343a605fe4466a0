/*
 * cuttle-deps: the project's references as a graph, and renames that rewrite every reference.
 *
 * The index is what cuttle-compile leaves under compiled/references/<source>.refs (one line per
 * reference a compiler reported through ct_resource_api_v6.reference or noted as a file through
 * source_file/depends_on: "type\tname\tfield\tline\tcolumn\tlength"), joined with three things
 * read here on every load because they are cheap and no compiler sees them:
 *   - the files of the project (a file whose extension is a compiled type is a resource source),
 *   - project.sjson's boot_script and `roots` (the roots of `unused`),
 *   - the string literals of Lua scripts that name an existing resource (soft references: Lua
 *     names resources at run time, so a literal that names nothing is not an error).
 * The compiled types are the folders under compiled/ (cuttle-compile makes one per type), so
 * this tool never boots the kernel or loads a module: it answers in milliseconds.
 *
 * Internal to the tool, its tests and its bench; nothing here is API.
 */
#ifndef CT_TOOLS_DEPS_H
#define CT_TOOLS_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DEPS_NONE UINT32_MAX
/* The type of a node that is a plain file (a script, an OBJ, project.sjson): its name is its
 * path. Not a canonical type name, so no module can register it. */
#define DEPS_FILE "@file"
#define DEPS_JOURNAL ".cuttle-deps-journal" /* an mv under way (deps_rename.c) */
#define DEPS_RENAME_LOG "renames.log"       /* "DATE TYPE OLD NEW" per line, oldest first */

/* A file of the project. */
typedef struct deps_node_t {
    const char *path;             /* project-relative: "units/crate.unit" */
    const char *type;             /* "unit", or DEPS_FILE */
    const char *name;             /* "units/crate"; for a file its path */
    uint32_t first_ref, num_refs; /* the references it makes: refs[first_ref ...] */
    uint32_t first_user;          /* the first reference to it; refs[i].next_user goes on */
    bool resource;                /* a source of a compiled type */
    bool stale;                   /* changed since its references were indexed */
} deps_node_t;

typedef struct deps_ref_t {
    uint32_t from;      /* the node that makes it */
    uint32_t to;        /* the node it names, DEPS_NONE when there is none (missing) */
    uint32_t next_user; /* the next reference to the same node, DEPS_NONE at the end */
    const char *type, *name, *field;
    uint32_t line, column, length; /* 1-based, bytes; 0 0 0: not found in the text */
    bool soft;                     /* from a Lua literal */
} deps_ref_t;

typedef struct deps_arena_block_t deps_arena_block_t;

typedef struct deps_index_t {
    char project[4096];
    deps_node_t *nodes;
    uint32_t num_nodes, nodes_capacity;
    deps_ref_t *refs;
    uint32_t num_refs, refs_capacity;
    uint32_t *slots; /* open addressing over (type, name) -> node */
    uint32_t num_slots;
    char **types; /* the compiled types, sorted */
    uint32_t num_types;
    uint32_t project_node; /* project.sjson (the root of `unused`), or DEPS_NONE */
    uint32_t stale;        /* sources changed since their references were indexed */
    deps_arena_block_t *arena;
    char **texts; /* the reference files' texts, which references point into */
    uint32_t num_texts, texts_capacity;
} deps_index_t;

/* deps_index.c. Loads the index of `project`. Returns 0, or -1 having written why into err (no
 * such folder, no compiled/ folder: run cuttle-compile first, out of memory). `threads` (1 or
 * 2) read the reference files in parallel. Free with deps_index_free even on failure. */
int deps_index_load(deps_index_t *ix, const char *project, int threads, char *err, size_t err_size);
void deps_index_free(deps_index_t *ix);
/* The node of (type, name), or DEPS_NONE. */
uint32_t deps_index_find(const deps_index_t *ix, const char *type, const char *name);
/* The node a user means by `what`: a project-relative file path ("units/crate.unit",
 * "mocap/walk.bvh") or a resource name that only one type has ("units/crate"). DEPS_NONE, with
 * the reason in err, for none or several. */
uint32_t deps_index_lookup(const deps_index_t *ix, const char *what, char *err, size_t err_size);
/* Copies s into the index's arena (NULL when out of memory). */
const char *deps_index_intern(deps_index_t *ix, const char *s, size_t len);

/* deps_lua.c: calls found(user, text, len, line, column) for each string literal of a Lua chunk
 * (short strings with their escapes left as written, long strings [[...]] / [==[...]==]),
 * skipping comments. `column` is that of the first byte inside the quotes. */
void deps_lua_literals(const char *text, size_t len,
                       void (*found)(void *user, const char *s, size_t n, uint32_t line,
                                     uint32_t column),
                       void *user);

/* deps_query.c: each prints to out and returns how many it found. */
uint32_t deps_uses(const deps_index_t *ix, uint32_t node, FILE *out);
uint32_t deps_used_by(const deps_index_t *ix, uint32_t node, FILE *out);
/* Missing references, each with the rename the log knows for it ("was renamed to ... on ...;
 * run cuttle-deps fix"). */
uint32_t deps_missing(const deps_index_t *ix, FILE *out);
/* Resource sources that no chain of references from project.sjson (its boot script and roots)
 * reaches. */
uint32_t deps_unused(const deps_index_t *ix, FILE *out);
/* Different names (of resources, types, and files a compile named: the @file references) with
 * the same 64-bit hash: each pair names both paths. `hash` is MurmurHash64A in the tool; the tests pass a weaker one to make a collision. */
uint32_t deps_collisions(const deps_index_t *ix, uint64_t (*hash)(const char *s), FILE *out);
/* The graph of resources and files with their references, as Graphviz DOT or JSON. */
void deps_graph_dot(const deps_index_t *ix, FILE *out);
void deps_graph_json(const deps_index_t *ix, FILE *out);

/* deps_rename.c. Every call that changes files goes through one journal: the new contents are
 * written beside their files first, then the journal is committed, then files are replaced and
 * moved. Killed anywhere, the project is either as it was (before the commit) or the journal
 * says what to finish or undo: deps_resume finishes it, deps_rollback restores every file. */
typedef struct deps_move_t {
    const char *from, *to; /* project-relative file paths */
} deps_move_t;
/* Moves the files (resource sources and any others) and rewrites every reference to them in
 * every source; appends each rename to renames.log. 0, or -1 having printed why to err (nothing
 * is changed then). */
int deps_apply_moves(deps_index_t *ix, const deps_move_t *moves, uint32_t num_moves, FILE *err);
/* The moves of `mv`: one resource (type, old, new names; with_files also moves the files beside
 * it that it names), or a folder and everything under it. */
int deps_mv_resource(deps_index_t *ix, const char *type, const char *old_name, const char *new_name,
                     bool with_files, FILE *err);
int deps_mv_folder(deps_index_t *ix, const char *old_folder, const char *new_folder, FILE *err);
/* Rewrites references to names renames.log says were renamed (a merged branch still naming the
 * old one) to their newest names. Prints each fix; returns how many, or -1 on failure. */
int deps_fix(deps_index_t *ix, FILE *out, FILE *err);
/* The name renames.log says (type, name) has now, following later renames of the new name
 * (at most 64), with the date of the first; false when the log has no rename of it. The log
 * never reserves a name: callers ask only about names that name nothing. */
bool deps_renamed_to(const char *project, const char *type, const char *name, char *to,
                     size_t to_size, char *date, size_t date_size);
/* Whether an interrupted change waits in the project (its journal exists). */
bool deps_pending(const char *project);
int deps_resume(const char *project, FILE *err);
int deps_rollback(const char *project, FILE *err);

#endif
