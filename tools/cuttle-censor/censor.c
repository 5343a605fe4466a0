/*
 * cuttle-censor: gives licensees a git history without the code they may not see (the seed post
 * "Source Censoring part 2"). Every ancestor of the target revision is copied, parents first,
 * through the filters into DEST, keeping authors, committers, dates, messages and merge parents,
 * each message marked with the source commit it came from. Re-runs copy only what is new.
 *
 * The parts: censor_ifdef.c (the built-in preprocessor filter), censor_filter.c (the chain and
 * the leak check), censor_map.c (the maps kept in DEST), censor_copy.c (the walk).
 */
#include "censor_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
    "usage: cuttle-censor SOURCE DEST --filter FILTER [--filter FILTER...] [options]\n"
    "Copies the history of SOURCE up to the target revision into DEST (created bare if missing)\n"
    "through the filters, keeping authors, dates, messages and merges; each message gets\n"
    "[clonedfrom:<sha>]. A re-run copies only what is new. Nothing is published unless every\n"
    "filter and the leak check pass.\n"
    "  --filter 'ifdef -DSYM -DSYM=N -USYM...'  the built-in preprocessor filter on C-like files:\n"
    "                      code the symbols decide is removed, blank lines keep line numbers\n"
    "  --filter COMMAND    a program (sh -c) given each unique content on stdin once, writing the\n"
    "                      censored content to stdout and exiting 0 (anything else aborts)\n"
    "  --target REV        what to copy (default HEAD): REV and all its ancestors\n"
    "  --cutoff REV        history starts at REV: older commits are left out, their children\n"
    "                      re-parented onto REV\n"
    "  --branch NAME       DEST's branch (default: the target's branch, else main)\n"
    "  --forbid WORD       refuse to publish if any file, path, tag or message still holds WORD\n"
    "  --forbid-file FILE  the same, one word a line\n"
    "  --exclude GLOB      leave out files whose path matches (fnmatch)\n"
    "  --lenient           a file whose #if and #endif do not balance (a commit that never\n"
    "                      compiled) is filtered as far as it reads, with a warning, instead of\n"
    "                      aborting the run\n"
    "  --quiet             print nothing on success\n"
    "exit status: 0 copied, 1 refused or failed (DEST unchanged), 2 usage error\n";

/* Words read from --forbid-file stay allocated for the run. */
static char *word_storage[CENSOR_MAX_WORDS];

static bool add_filter(censor_options_t *o, char *text, char *err, size_t err_size)
{
    if (o->num_filters == CENSOR_MAX_FILTERS) {
        snprintf(err, err_size, "more than %d filters", CENSOR_MAX_FILTERS);
        return false;
    }
    censor_filter_t *f = &o->filters[o->num_filters++];
    if (strncmp(text, "ifdef", 5) != 0 || (text[5] != ' ' && text[5] != '\0')) {
        f->command = text;
        return true;
    }
    f->builtin = true;
    for (char *save = NULL, *word = strtok_r(text + 5, " \t", &save); word;
         word = strtok_r(NULL, " \t", &save)) {
        if (!censor_ifdef_add(&f->ifdef, word, err, err_size))
            return false;
    }
    return true;
}

static bool add_word_file(censor_options_t *o, const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "%s: cannot read", path);
        return false;
    }
    char line[1024];
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0])
            continue;
        ok = o->num_forbidden < CENSOR_MAX_WORDS;
        if (ok)
            ok = (word_storage[o->num_forbidden] = strdup(line)) != NULL;
        if (ok)
            o->forbidden[o->num_forbidden] = word_storage[o->num_forbidden], o->num_forbidden++;
        else
            snprintf(err, err_size, "%s: more than %d words", path, CENSOR_MAX_WORDS);
    }
    fclose(f);
    return ok;
}

/* The filter identity: a hash of everything that shapes DEST's contents. A re-run with other
 * filters must not extend a history censored differently. */
static void filter_identity(censor_options_t *o)
{
    char text[65536];
    size_t n = 0;
    for (int i = 0; i < o->num_filters; i++) {
        const censor_filter_t *f = &o->filters[i];
        n += (size_t)snprintf(text + n, sizeof text - n, "%s", f->builtin ? "ifdef" : "command ");
        for (int s = 0; f->builtin && s < f->ifdef.num_symbols && n < sizeof text; s++)
            n +=
                (size_t)snprintf(text + n, sizeof text - n, " %c%s",
                                 f->ifdef.symbols[s].defined ? 'D' : 'U', f->ifdef.symbols[s].name);
        if (!f->builtin && n < sizeof text)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", f->command);
        if (n < sizeof text)
            text[n++] = '\n';
    }
    if (o->lenient && n < sizeof text)
        n += (size_t)snprintf(text + n, sizeof text - n, "lenient\n");
    for (int i = 0; i < o->num_excludes && n < sizeof text; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "exclude %s\n", o->excludes[i]);
    git_oid id;
    git_odb_hash(&id, text, n < sizeof text ? n : sizeof text, GIT_OBJECT_BLOB);
    git_oid_tostr(o->filter_id, sizeof o->filter_id, &id);
}

/* Returns 0 when the options are usable, 2 after printing a usage error. */
static int parse(censor_options_t *o, int argc, char **argv)
{
    char err[512] = "";
    int positional = 0;
    for (int i = 1; i < argc && !err[0]; i++) {
        const char *a = argv[i];
        char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = !strcmp(a, "--filter") || !strcmp(a, "--target") || !strcmp(a, "--cutoff") ||
                     !strcmp(a, "--branch") || !strcmp(a, "--forbid") ||
                     !strcmp(a, "--forbid-file") || !strcmp(a, "--exclude");
        if (takes && !value) {
            snprintf(err, sizeof err, "%s needs a value", a);
            break;
        }
        i += takes;
        if (!strcmp(a, "--filter"))
            add_filter(o, value, err, sizeof err);
        else if (!strcmp(a, "--target"))
            o->target = value;
        else if (!strcmp(a, "--cutoff"))
            o->cutoff = value;
        else if (!strcmp(a, "--branch"))
            o->branch = value;
        else if (!strcmp(a, "--forbid") && o->num_forbidden < CENSOR_MAX_WORDS && value[0])
            o->forbidden[o->num_forbidden++] = value;
        else if (!strcmp(a, "--forbid"))
            snprintf(err, sizeof err, "--forbid: an empty word, or more than %d", CENSOR_MAX_WORDS);
        else if (!strcmp(a, "--forbid-file"))
            add_word_file(o, value, err, sizeof err);
        else if (!strcmp(a, "--exclude") && o->num_excludes < CENSOR_MAX_EXCLUDES)
            o->excludes[o->num_excludes++] = value;
        else if (!strcmp(a, "--exclude"))
            snprintf(err, sizeof err, "more than %d --exclude", CENSOR_MAX_EXCLUDES);
        else if (!strcmp(a, "--quiet"))
            o->quiet = true;
        else if (!strcmp(a, "--lenient"))
            o->lenient = true;
        else if (a[0] == '-')
            snprintf(err, sizeof err, "unknown option %s", a);
        else if (positional < 2)
            *(positional++ == 0 ? &o->source : &o->dest) = a;
        else
            snprintf(err, sizeof err, "unexpected argument %s", a);
    }
    if (!err[0] && (positional < 2 || o->num_filters == 0))
        snprintf(err, sizeof err,
                 positional < 2 ? "SOURCE and DEST are required"
                                : "at least one --filter is required");
    if (err[0]) {
        fprintf(stderr, "cuttle-censor: %s\n%s", err, usage);
        return 2;
    }
    for (int i = 0; i < o->num_filters; i++)
        o->filters[i].ifdef.lenient = o->lenient;
    filter_identity(o);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    static censor_options_t options;
    int status = parse(&options, argc, argv);
    if (status == 0) {
        git_libgit2_init();
        /* Every object a new tree or commit names is written by this run or already in DEST:
         * libgit2's existence checks would only read them back. */
        git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        censor_stats_t stats = {0};
        char err[8192];
        if (!censor_copy(&options, &stats, err, sizeof err)) {
            fprintf(stderr, "cuttle-censor: %s\n", err);
            status = 1;
        } else if (!options.quiet) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
            printf("cuttle-censor: copied %zu commits and %zu tags into %s in %.3f s (%zu contents "
                   "filtered, %zu reused, %zu trees)\n",
                   stats.commits, stats.tags, options.dest, s, stats.blobs_filtered,
                   stats.blobs_cached, stats.trees);
        }
        git_libgit2_shutdown();
    }
    for (int i = 0; i < CENSOR_MAX_WORDS; i++)
        free(word_storage[i]);
    return status;
}
