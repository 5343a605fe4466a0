/*
 * cuttle-deps: what references what in a project, and renames that fix every reference.
 *
 *   cuttle-deps --project DIR uses FILE|NAME      what it references (path:line:col: field -> ...)
 *   cuttle-deps --project DIR used-by FILE|NAME   what references it
 *   cuttle-deps --project DIR missing             references to nothing (with renames it knows)
 *   cuttle-deps --project DIR unused              resources nothing reaches from the roots
 *   cuttle-deps --project DIR collisions          names whose 64-bit hashes are equal
 *   cuttle-deps --project DIR check               missing + unused + collisions (for CI)
 *   cuttle-deps --project DIR graph [--json]      the graph, as Graphviz DOT or JSON
 *   cuttle-deps --project DIR mv TYPE OLD NEW [--with-files]   rename one resource
 *   cuttle-deps --project DIR mv OLD_FOLDER/ NEW_FOLDER/       move a folder and all in it
 *   cuttle-deps --project DIR fix                 rewrite references to names renames.log renamed
 *   cuttle-deps --project DIR resume | rollback   finish or undo an interrupted mv or fix
 *
 * A tool of its own rather than a verb of cuttle-compile: it never boots the kernel or loads a
 * module (the index and the files say everything it needs), so a question costs milliseconds
 * and a rename works on a project whose modules are not built. cuttle-compile writes the index;
 * run it first (a source edited since is reported as stale).
 *
 * Exit codes, for CI: 0 nothing found (or done); 1 something found (a missing or unused
 * resource, a collision, a name that is not in the project) or the change failed with nothing
 * changed; 2 bad usage; 3 the project or its index cannot be read; 4 an interrupted change waits
 * for `resume` or `rollback`.
 */
#include <stdlib.h>
#include <string.h>

#include "ct_hash.h"
#include "deps.h"

enum { EXIT_FOUND = 1, EXIT_USAGE = 2, EXIT_INDEX = 3, EXIT_PENDING = 4 };

static int usage(FILE *out)
{
    fprintf(out, "usage: cuttle-deps --project DIR VERB [ARGS]\n"
                 "  uses FILE|NAME, used-by FILE|NAME, missing, unused, collisions, check,\n"
                 "  graph [--json], mv TYPE OLD NEW [--with-files], mv OLD_FOLDER/ NEW_FOLDER/,\n"
                 "  fix, resume, rollback\n");
    return out == stdout ? 0 : EXIT_USAGE;
}

static uint64_t murmur(const char *s) { return ct_hash64(s); }

static int run(const char *project, const char *verb, int argc, char **argv)
{
    if (strcmp(verb, "resume") == 0)
        return deps_resume(project, stderr) ? EXIT_FOUND : 0;
    if (strcmp(verb, "rollback") == 0)
        return deps_rollback(project, stderr) ? EXIT_FOUND : 0;
    if (deps_pending(project)) {
        fprintf(stderr,
                "cuttle-deps: an interrupted change waits in %s/%s: run `cuttle-deps "
                "resume` to finish it or `cuttle-deps rollback` to undo it\n",
                project, DEPS_JOURNAL);
        return EXIT_PENDING;
    }
    deps_index_t ix;
    char err[512] = "";
    if (deps_index_load(&ix, project, 2, err, sizeof err)) {
        fprintf(stderr, "cuttle-deps: %s\n", err);
        deps_index_free(&ix);
        return EXIT_INDEX;
    }
    if (ix.stale)
        fprintf(stderr,
                "cuttle-deps: %u sources changed since cuttle-compile indexed them; run "
                "it for exact answers\n",
                ix.stale);
    int code = 0;
    const bool one = argc == 1, none = argc == 0;
    if ((strcmp(verb, "uses") == 0 || strcmp(verb, "used-by") == 0) && one) {
        uint32_t node = deps_index_lookup(&ix, argv[0], err, sizeof err);
        if (node == DEPS_NONE) {
            fprintf(stderr, "cuttle-deps: %s\n", err);
            code = EXIT_FOUND;
        } else if (verb[4] == '-') {
            deps_used_by(&ix, node, stdout);
        } else {
            deps_uses(&ix, node, stdout);
        }
    } else if (strcmp(verb, "missing") == 0 && none) {
        uint32_t n = deps_missing(&ix, stdout);
        fprintf(stderr, "cuttle-deps: %u missing\n", n);
        code = n ? EXIT_FOUND : 0;
    } else if (strcmp(verb, "unused") == 0 && none) {
        uint32_t n = deps_unused(&ix, stdout);
        fprintf(stderr, "cuttle-deps: %u unused\n", n);
        code = n ? EXIT_FOUND : 0;
    } else if (strcmp(verb, "collisions") == 0 && none) {
        uint32_t n = deps_collisions(&ix, murmur, stdout);
        fprintf(stderr, "cuttle-deps: %u hash collisions\n", n);
        code = n ? EXIT_FOUND : 0;
    } else if (strcmp(verb, "check") == 0 && none) {
        uint32_t m = deps_missing(&ix, stdout);
        uint32_t u = deps_unused(&ix, stdout);
        uint32_t c = deps_collisions(&ix, murmur, stdout);
        fprintf(stderr, "cuttle-deps: %u missing, %u unused, %u hash collisions\n", m, u, c);
        code = m || u || c ? EXIT_FOUND : 0;
    } else if (strcmp(verb, "graph") == 0 && (none || (one && !strcmp(argv[0], "--json")))) {
        if (one)
            deps_graph_json(&ix, stdout);
        else
            deps_graph_dot(&ix, stdout);
    } else if (strcmp(verb, "mv") == 0 && (argc == 3 || argc == 4)) {
        const bool with_files = argc == 4 && strcmp(argv[3], "--with-files") == 0;
        if (argc == 4 && !with_files)
            code = usage(stderr);
        else if (deps_mv_resource(&ix, argv[0], argv[1], argv[2], with_files, stderr))
            code = EXIT_FOUND;
    } else if (strcmp(verb, "mv") == 0 && argc == 2) {
        if (deps_mv_folder(&ix, argv[0], argv[1], stderr))
            code = EXIT_FOUND;
    } else if (strcmp(verb, "fix") == 0 && none) {
        int n = deps_fix(&ix, stdout, stderr);
        if (n >= 0)
            fprintf(stderr, "cuttle-deps: fixed %d references; run cuttle-compile\n", n);
        code = n < 0 ? EXIT_FOUND : 0;
    } else {
        code = usage(stderr);
    }
    deps_index_free(&ix);
    return code;
}

int main(int argc, char **argv)
{
    const char *project = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return usage(stdout);
        if (strcmp(argv[i], "--project") == 0 && i + 1 < argc) {
            project = argv[++i];
            continue;
        }
        fprintf(stderr, "cuttle-deps: unknown option %s\n", argv[i]);
        return usage(stderr);
    }
    if (!project || i >= argc) {
        fprintf(stderr, "cuttle-deps: --project DIR and a verb are required\n");
        return usage(stderr);
    }
    return run(project, argv[i], argc - i - 1, argv + i + 1);
}
