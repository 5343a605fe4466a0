/*
 * The filter chain: the built-in preprocessor filter for C-like files, and external programs
 * for every file (`sh -c COMMAND`, the content on stdin, the result on stdout, exit 0). Each
 * unique content is filtered once per run and cached in DEST's map for later runs, so a program
 * sees contents, never paths or revisions: the same content always censors the same way.
 */
#include "censor_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* An external filter's output larger than this is refused rather than held. */
#define CENSOR_MAX_OUTPUT ((size_t)1 << 30)

bool censor_is_c_like(const char *name)
{
    static const char *endings[] = {".c",  ".h",   ".cc",   ".cpp",  ".cxx",
                                    ".hh", ".hpp", ".hxx",  ".inl",  ".ipp",
                                    ".m",  ".mm",  ".glsl", ".hlsl", ".metal"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof endings / sizeof *endings; i++) {
        size_t e = strlen(endings[i]);
        if (n > e && !strcmp(name + n - e, endings[i]))
            return true;
    }
    return false;
}

void censor_blob_key(git_oid *key, const git_oid *blob, bool c_like)
{
    *key = *blob;
    key->id[GIT_OID_RAWSZ - 1] ^= c_like ? 0x5a : 0; /* two results of one content, two keys */
}

/* Runs `sh -c command` with in on stdin (through a temporary file, so a program that writes
 * before it has read everything cannot deadlock against us) and collects its stdout. */
static bool run_command(const char *command, const char *in, size_t size, char **out,
                        size_t *out_size, char *err, size_t err_size)
{
    char tmp[] = "/tmp/cuttle-censor-XXXXXX";
    int input = mkstemp(tmp), pipe_fds[2] = {-1, -1};
    if (input < 0 || pipe(pipe_fds) != 0) {
        snprintf(err, err_size, "cannot run filter '%s': %s", command, strerror(errno));
        if (input >= 0)
            close(input), unlink(tmp);
        return false;
    }
    unlink(tmp);
    bool ok = true;
    for (size_t done = 0; ok && done < size;) {
        ssize_t n = write(input, in + done, size - done);
        ok = n > 0;
        done += ok ? (size_t)n : 0;
    }
    ok = ok && lseek(input, 0, SEEK_SET) == 0;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, input, 0);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    pid_t pid = -1;
    ok = ok && posix_spawn(&pid, "/bin/sh", &actions, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    close(input), close(pipe_fds[1]);
    char *buf = NULL;
    size_t used = 0, capacity = 0;
    bool too_large = false;
    while (ok) {
        if (used == capacity) {
            capacity = capacity ? capacity * 2 : 65536;
            char *grown = capacity <= CENSOR_MAX_OUTPUT ? realloc(buf, capacity) : NULL;
            if (!grown) {
                too_large = true;
                break;
            }
            buf = grown;
        }
        ssize_t n = read(pipe_fds[0], buf + used, capacity - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    close(pipe_fds[0]);
    int status = 0;
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    if (!ok || too_large || pid <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (too_large)
            snprintf(err, err_size, "filter '%s' wrote more than 1 GiB", command);
        else if (pid > 0 && WIFSIGNALED(status))
            snprintf(err, err_size, "filter '%s' died of signal %d", command, WTERMSIG(status));
        else
            snprintf(err, err_size, "filter '%s' failed (exit status %d)", command,
                     pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        free(buf);
        return false;
    }
    *out = buf ? buf : malloc(1);
    *out_size = used;
    return *out != NULL;
}

bool censor_filter_run(const censor_options_t *o, bool c_like, const char *in, size_t size,
                       char **out, size_t *out_size, char *err, size_t err_size)
{
    err[0] = '\0';
    char *current = malloc(size ? size : 1);
    if (!current) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    memcpy(current, in, size);
    size_t current_size = size;
    for (int i = 0; i < o->num_filters; i++) {
        const censor_filter_t *f = &o->filters[i];
        char *next = NULL, reason[512];
        size_t next_size = 0;
        bool ok;
        if (f->builtin && !c_like)
            continue;
        if (f->builtin) {
            ok = censor_ifdef_run(&f->ifdef, current, current_size, &next, &next_size, reason,
                                  sizeof reason);
            if (reason[0])
                snprintf(err, err_size, "the preprocessor filter: %s", reason);
        } else {
            ok = run_command(f->command, current, current_size, &next, &next_size, err, err_size);
        }
        free(current);
        if (!ok)
            return false;
        current = next, current_size = next_size;
    }
    *out = current, *out_size = current_size;
    return true;
}

const char *censor_leak(const censor_options_t *o, const void *data, size_t size)
{
    for (int i = 0; i < o->num_forbidden; i++) {
        if (memmem(data, size, o->forbidden[i], strlen(o->forbidden[i])))
            return o->forbidden[i];
    }
    return NULL;
}
