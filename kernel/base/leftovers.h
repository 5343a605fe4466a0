/* Temporary files and folders that say which process made them, and the sweep that removes the
 * ones a killed process left behind.
 *
 * A process removes what it puts in the temporary folder when it exits, but not when it is
 * killed (SIGKILL, a crash). So each such name says whose it is:
 *     <tmp>/<prefix><pid>-<start>-<suffix>
 * where <start> is the maker's start time (field 22 of /proc/<pid>/stat; 0 when it could not be
 * told), which tells a dead maker from a new process that got its pid. A sweep removes the
 * entries of one kind that are its user's real folders or files (never links) and whose maker is
 * gone; anything else (another user's, another name, a maker still running or one it cannot
 * tell) is left alone. Used by the --host node's private folder (console/host_folder.c) and the
 * plugins' private copies (plugins/library.c). */
#ifndef CT_KERNEL_LEFTOVERS_H
#define CT_KERNEL_LEFTOVERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct leftovers_kind_t {
    const char *prefix;                    /* "cuttle-host-" */
    bool (*suffix_ok)(const char *suffix); /* whether the part after "<start>-" is of this kind */
    bool folder;                           /* folders (removed with what they hold) or files */
    const char *what;                      /* named in the log: "a --host node's folder" */
} leftovers_kind_t;

/* The temporary folder: $TMPDIR (libuv's rule), else /tmp. */
void leftovers__tmp_dir(char *out, size_t size);
/* Writes "<tmp_dir>/<prefix><pid>-<start>-" for this process; the caller appends its suffix.
 * False when it does not fit. */
bool leftovers__name(const leftovers_kind_t *k, const char *tmp_dir, char *out, size_t size);
/* Removes the folder `path` and what it holds, depth first, never through a link or onto another
 * file system. False when something could not be removed. */
bool leftovers__remove_folder(const char *path);
/* Removes from `tmp_dir` the entries of kind `k` whose maker is gone (looking at 100000 entries
 * and removing 64 at most), each logged; returns how many. */
uint32_t leftovers__sweep(const leftovers_kind_t *k, const char *tmp_dir);

#endif
