/* What the files of kernel/console share; nothing here is API. */
#ifndef CT_KERNEL_CONSOLE_INTERNAL_H
#define CT_KERNEL_CONSOLE_INTERNAL_H

#include "console/console.h"
#include "console/console_server.h"

struct cJSON;

/* console_script.c: runs `code` for client c; returns the reply object (the caller frees it). */
struct cJSON *console__run_script(const console_client_t *c, const char *code, size_t len);
/* Drops a remote client's sandbox environment (its globals). */
void console__script_client_closed(const console_client_t *c);
/* A JSON string holding len bytes of text exactly, as valid UTF-8 (see console_script.c): for
 * whatever text a script or the log hands a client. */
struct cJSON *console__json_text(const char *text, size_t len);

/* console_service.c: the console's handler and its streams. */
void console__handle(console_server_t *s, console_client_t *c, const console_message_t *m);
void console__client_closed(console_server_t *s, console_client_t *c);
/* Sends pending log lines to subscribers (after each turn of the loop). */
void console__flush_logs(void);
int console__service_start(console_server_t *s);
void console__service_stop(void);

/* Frame control, shared by the handler and the frame loop. */
typedef struct console_frames_t {
    bool paused;
    bool quit;
    uint32_t step_left;
    uint64_t frame; /* frames run since start */
} console_frames_t;
extern console_frames_t console__frames;
/* Replies to the clients waiting on a step that has finished. */
void console__steps_done(void);

/* Sends a cJSON object (and frees it). */
void console__send_json(console_client_t *c, struct cJSON *o);

/* file_server.c: `cuttle --serve-project DIR --port P` runs this instead of an engine. */
int file_server__run(const console_options_t *o, int (*stop_requested)(void));
/* The plain-path rule for the names a file server lists and serves, which a --host node checks
 * again on every name it is sent: relative, at most FILE_SERVER_MAX_PATH - 1 bytes, segments of
 * [A-Za-z0-9._-] that are not empty and do not start with '.', ending in .lua or project.sjson.
 * Returns whether `rel` keeps it; if not, why says so. */
#define FILE_SERVER_MAX_PATH 512
#define FILE_SERVER_MAX_FILES 256
bool file_server__plain_path(const char *rel, char *why, size_t why_size);
/* file_client.c: `--host ADDR:P --project NAME`: fetches the project's files into a private
 * folder and makes the resource system read blobs from the server. Sets *project_dir. */
int file_client__connect(const console_options_t *o, const char *project_name,
                         const char **project_dir);
void file_client__disconnect(void);
/* How long one request to the file server may take in all (30 s; tests shorten it): a server
 * that keeps sending frames that are not the reply cannot hold a node beyond it. */
extern int file_client__timeout_ms;
/* host_folder.c: makes the node's private folder in the temporary folder ($TMPDIR, else /tmp),
 * named after this process, after removing those left there by nodes that were killed. Returns 0
 * or CT_ERR_IO (logged); `dir` holds the path ("" on failure). */
int host_folder__make(char *dir, size_t size);
/* Removes the folder and what is in it (never through links); does nothing for "". */
void host_folder__remove(const char *dir);
/* Removes from `tmp_dir` the folders host_folder__make made for processes that are gone (at most
 * 64 at a time); returns how many. */
uint32_t host_folder__sweep(const char *tmp_dir);

#endif
