/*
 * bench_censor: cuttle-censor against git filter-repo (Debian's git-filter-repo) on real
 * histories, in the same run, applying the same content filter: every #ifdef NDA_SECRET block
 * blanked (ours: the built-in preprocessor filter; filter-repo: the same rule in its blob
 * callback, which sees every content once as ours does).
 *
 *   censor.initial_commits_per_s     a first copy of HEAD~1's history into a new DEST
 *   censor.incremental_1_commit_ms   the re-run after one more commit (HEAD)
 *   censor.filter_repo_commits_per_s filter-repo rewriting the same history (a fresh clone)
 *   censor.filter_repo_rerun_ms      filter-repo has no incremental mode: a studio re-runs it
 *                                    whole, so its "one more commit" figure is a full run
 * The history is this project's own (the source tree's git folder); `--repo PATH` adds the
 * figures of another repository under names prefixed by its folder name.
 */
#include "bench.h"

#include <sys/wait.h>
#include <unistd.h>

/* The filter-repo callback: the same rule as ours for one undefined symbol, in Python. */
static const char peer_callback[] =
    "import re\n"
    "if b'NDA_SECRET' in blob.data and b'\\0' not in blob.data:\n"
    "  out, stack = [], []\n"
    "  for line in blob.data.split(b'\\n'):\n"
    "    s = line.strip()\n"
    "    active = all(stack)\n"
    "    if re.match(rb'#\\s*if', s):\n"
    "      mine = re.match(rb'#\\s*ifdef\\s+NDA_SECRET\\b', s)\n"
    "      stack.append(False if mine else True); out.append(b'' if mine or not active else line)\n"
    "    elif re.match(rb'#\\s*else', s) and stack:\n"
    "      stack[-1] = not stack[-1]; out.append(b'' if not all(stack[:-1]) else line)\n"
    "    elif re.match(rb'#\\s*endif', s) and stack:\n"
    "      stack.pop(); out.append(line if all(stack) else b'')\n"
    "    else:\n"
    "      out.append(line if active else b'')\n"
    "  blob.data = b'\\n'.join(out)\n";

/* Runs a shell command; returns its wall time in ms, or -1 when it failed. */
static double timed(const char *command)
{
    double t0 = bench_now_ns();
    int status = system(command);
    double ms = (bench_now_ns() - t0) / 1e6;
    if (status != 0) {
        fprintf(stderr, "bench_censor: failed (%d): %s\n", status, command);
        return -1;
    }
    return ms;
}

static long count_commits(const char *repo, const char *rev)
{
    char command[4096];
    snprintf(command, sizeof command, "git -C '%s' rev-list --count %s", repo, rev);
    FILE *p = popen(command, "r");
    long n = -1;
    if (p && fscanf(p, "%ld", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

/* Keeps figure names alive for the table. */
static char names[16][128];
static int num_names;

static void report(const char *prefix, const char *name, double value, const char *unit,
                   const char *what)
{
    if (value < 0 || num_names == 16)
        return;
    snprintf(names[num_names], sizeof names[0], "censor.%s%s", prefix, name);
    bench_report(names[num_names++], value, unit, what);
}

static void measure(const char *repo, const char *prefix)
{
    long commits = count_commits(repo, "HEAD");
    if (commits < 2) {
        fprintf(stderr, "bench_censor: %s: not a git repository with history; skipped\n", repo);
        return;
    }
    char scratch[] = "/tmp/bench-censor-XXXXXX", command[8192];
    if (!mkdtemp(scratch))
        return;
    const char *filter = "--filter 'ifdef -UNDA_SECRET' --lenient --quiet --branch main";
    snprintf(command, sizeof command, "'%s' '%s' %s/dst --target HEAD~1 %s", CUTTLE_CENSOR, repo,
             scratch, filter);
    double initial = timed(command);
    snprintf(command, sizeof command, "'%s' '%s' %s/dst --target HEAD %s", CUTTLE_CENSOR, repo,
             scratch, filter);
    double incremental = timed(command);
    report(prefix, "initial_commits_per_s",
           initial > 0 ? (double)(commits - 1) / (initial / 1e3) : -1, "1/s",
           "first copy of HEAD~1's history");
    report(prefix, "incremental_1_commit_ms", incremental, "ms", "re-run after one commit");

    FILE *f;
    snprintf(command, sizeof command, "%s/callback.py", scratch);
    if ((f = fopen(command, "w")) != NULL) {
        fputs(peer_callback, f);
        fclose(f);
    }
    double runs[2] = {-1, -1};
    for (int i = 0; i < 2; i++) {
        snprintf(command, sizeof command,
                 "rm -rf %s/peer && git clone -q --bare --single-branch --no-local '%s' %s/peer",
                 scratch, repo, scratch);
        if (system(command) != 0)
            break;
        snprintf(command, sizeof command,
                 "cd %s/peer && git filter-repo --force --quiet --blob-callback \"$(cat "
                 "../callback.py)\" >/dev/null",
                 scratch);
        runs[i] = timed(command);
    }
    report(prefix, "filter_repo_commits_per_s",
           runs[0] > 0 ? (double)commits / (runs[0] / 1e3) : -1, "1/s",
           "git filter-repo, same history and filter");
    report(prefix, "filter_repo_rerun_ms", runs[1], "ms", "git filter-repo has no incremental run");
    snprintf(command, sizeof command, "rm -rf %s", scratch);
    if (system(command) != 0)
        fprintf(stderr, "bench_censor: could not remove %s\n", scratch);
}

int main(int argc, char **argv)
{
    if (system("git filter-repo --version >/dev/null 2>&1") != 0)
        fprintf(stderr,
                "bench_censor: git filter-repo is not installed; its figures are left out\n");
    measure(SOURCE_ROOT, "");
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--repo") != 0)
            continue;
        char prefix[64];
        const char *base = strrchr(argv[i + 1], '/');
        snprintf(prefix, sizeof prefix, "%s.", base && base[1] ? base + 1 : argv[i + 1]);
        measure(argv[i + 1], prefix);
    }
    bench_print_table();
    return 0;
}
