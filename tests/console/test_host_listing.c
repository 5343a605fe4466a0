/* A --host node against a hostile file server: a fake server (a child process speaking the
 * file-server protocol on a socket of its own) lists names that lead out of the node's private
 * folder, too many names or too many bytes, announces a hello or a reply far over what the node
 * may take, or plants links in the folder while the node copies. The node must refuse, and no
 * file may appear outside its folder. A frame over the node's bound must be refused from its
 * header: the fake server then finds the connection closed while it is still sending the
 * frame's bytes (it exits SERVER_CUT_OFF); a node that buffered the frame lets it finish. A
 * compiled blob the node fetches is received into the resource allocator and never copied. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <cJSON.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "console/console_frame.h"
#include "console/console_internal.h"
#include "base/log.h"
#include "base/memory.h"
#include "ct_resource.h"
#include "resources/resources.h"
#include "resources/resources_internal.h"
#include "test_kernel.h"

/* What the fake server does besides answering with a small script. */
typedef enum {
    PLAIN,
    SIZED,         /* each reply holds g_reply_size bytes */
    HUGE_HELLO,    /* the hello is g_reply_size bytes long */
    LINK_FOLDER,   /* at the first request, plants <folder>/sub -> outside */
    LINK_FILE,     /* at the first request, plants <folder>/c.lua -> outside/c.lua */
    WRONG_IDS,     /* answers every request with frames of another id, one every 50 ms, forever */
    WANTS_AUTH,    /* its hello asks for a token; the node's auth message goes to <scratch>/auth */
    CLOSE_MID_BLOB /* the second reply (the blob) stops after 100 of its bytes: the server closes */
} server_mode_t;

/* The fake server's exit status when the node hung up while a frame was being sent. */
#define SERVER_CUT_OFF 7

static char scratch[64], tmp_dir[128], outside[128];
static size_t g_reply_size;
static int g_server_exit;
static const char *g_console_token, *g_host_token; /* what the node is started with */

static void send_frame(int fd, uint32_t type, const void *a, size_t na, const void *b, size_t nb)
{
    uint8_t header[CONSOLE_HEADER_SIZE];
    console_frame__header(header, type, (uint32_t)(na + nb));
    if (write(fd, header, sizeof header) != (ssize_t)sizeof header)
        _exit(SERVER_CUT_OFF);
    for (size_t done = 0; done < na + nb;) {
        const uint8_t *p = done < na ? (const uint8_t *)a + done : (const uint8_t *)b + done - na;
        ssize_t n = write(fd, p, (done < na ? na : na + nb) - done);
        if (n <= 0)
            _exit(SERVER_CUT_OFF);
        done += (size_t)n;
    }
}

static bool read_all(int fd, void *out, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t r = read(fd, (uint8_t *)out + done, n - done);
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

/* Plants a link in the node's private folder (the only cuttle-host-* folder in tmp_dir). */
static void plant_link(const char *name, const char *target)
{
    DIR *d = opendir(tmp_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "cuttle-host-", 12) != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s/%s", tmp_dir, e->d_name, name);
        if (symlink(target, path) != 0)
            _exit(3);
    }
    if (d)
        closedir(d);
}

/* The child: one connection, the hello listing `files`, then a script for every request. */
static void run_server(int listener, const char *files, server_mode_t mode)
{
    alarm(60);
    int fd = accept(listener, NULL, NULL);
    if (fd < 0)
        _exit(1);
    char *hello = malloc(strlen(files) + 128);
    int n = sprintf(hello,
                    "{\"type\":\"hello\",\"service\":\"file server\",\"auth\":%s,"
                    "\"project\":\"p\",\"files\":%s}",
                    mode == WANTS_AUTH ? "true" : "false", files);
    size_t body_size = mode == PLAIN || mode == LINK_FOLDER || mode == LINK_FILE ||
                               mode == WRONG_IDS || mode == WANTS_AUTH || mode == CLOSE_MID_BLOB
                           ? 16
                           : g_reply_size;
    char *body = malloc(body_size);
    memset(body, '-', body_size);
    /* A huge hello: the listing, then filler up to g_reply_size bytes. */
    send_frame(fd, CONSOLE_FRAME_JSON, hello, (size_t)n, body,
               mode == HUGE_HELLO ? g_reply_size - (size_t)n : 0);
    free(hello);
    for (int requests = 0;; requests++) {
        uint8_t header[CONSOLE_HEADER_SIZE];
        if (!read_all(fd, header, sizeof header))
            break;
        uint32_t len = (uint32_t)header[4] << 24 | (uint32_t)header[5] << 16 |
                       (uint32_t)header[6] << 8 | header[7];
        char *json = len < (1u << 20) ? calloc(1, len + 1) : NULL;
        if (!json || !read_all(fd, json, len))
            break;
        cJSON *m = cJSON_Parse(json);
        if (mode == WANTS_AUTH &&
            !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(m, "type")), "auth")) {
            char path[128];
            snprintf(path, sizeof path, "%s/auth", scratch);
            FILE *f = fopen(path, "w");
            fputs(json, f);
            fclose(f);
            free(json);
            cJSON_Delete(m);
            requests--;
            continue;
        }
        free(json);
        if (mode == WRONG_IDS)
            for (;;) { /* until the node hangs up (the write fails) */
                static const char other[] = "{\"type\":\"file\",\"id\":123456,\"ok\":false}";
                send_frame(fd, CONSOLE_FRAME_JSON, other, sizeof other - 1, NULL, 0);
                usleep(50000);
            }
        if (mode == CLOSE_MID_BLOB && requests == 1) {
            uint8_t header[CONSOLE_HEADER_SIZE];
            console_frame__header(header, CONSOLE_FRAME_BINARY, 1u << 20);
            char part[100] = {0};
            if (write(fd, header, sizeof header) != (ssize_t)sizeof header ||
                write(fd, part, sizeof part) != (ssize_t)sizeof part)
                _exit(SERVER_CUT_OFF);
            close(fd);
            _exit(0);
        }
        if (requests == 0 && mode == LINK_FOLDER)
            plant_link("sub", outside);
        if (requests == 0 && mode == LINK_FILE) {
            char target[256];
            snprintf(target, sizeof target, "%s/c.lua", outside);
            plant_link("c.lua", target);
        }
        char reply[128];
        int rn = snprintf(reply, sizeof reply, "{\"type\":\"file\",\"id\":%g,\"ok\":true}",
                          cJSON_GetNumberValue(cJSON_GetObjectItem(m, "id")));
        cJSON_Delete(m);
        uint8_t prefix[4] = {0, 0, 0, (uint8_t)rn};
        char *payload = malloc(4 + (size_t)rn);
        memcpy(payload, prefix, 4);
        memcpy(payload + 4, reply, (size_t)rn);
        send_frame(fd, CONSOLE_FRAME_BINARY, payload, 4 + (size_t)rn, body, body_size);
        free(payload);
    }
    free(body);
    close(fd);
    _exit(0);
}

/* Runs a node against a fake server listing `files`; returns what file_client__connect did. When
 * it accepted, `check` (if any) looks at the private folder before the node disconnects. */
static int run_node(const char *files, server_mode_t mode, void (*check)(const char *dir))
{
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t addr_len = sizeof addr;
    assert_int_equal(bind(listener, (struct sockaddr *)&addr, sizeof addr), 0);
    assert_int_equal(listen(listener, 1), 0);
    assert_int_equal(getsockname(listener, (struct sockaddr *)&addr, &addr_len), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        run_server(listener, files, mode);
    close(listener);
    char host[64];
    snprintf(host, sizeof host, "127.0.0.1:%d", ntohs(addr.sin_port));
    console_options_t o = {
        .host = host, .serve_port = -1, .token = g_console_token, .host_token = g_host_token};
    const char *dir = NULL;
    int rc = file_client__connect(&o, "p", &dir);
    if (rc == 0) {
        if (check)
            check(dir);
        file_client__disconnect();
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    g_server_exit = WEXITSTATUS(status);
    if (g_server_exit != 0 && g_server_exit != SERVER_CUT_OFF)
        fail_msg("the fake server failed (exit %d)", g_server_exit);
    return rc;
}

/* The number of entries in a folder (besides . and ..). */
static int entries(const char *path)
{
    DIR *d = opendir(path);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Empties tmp_dir and outside, so each case sees only what it wrote. */
static void clear(void)
{
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s' '%s' && mkdir '%s' '%s'", tmp_dir, outside,
             tmp_dir, outside);
    assert_int_equal(system(command), 0);
}

/* Refused, and nothing left anywhere: not outside, not beside the (removed) private folder. */
static void assert_refused(const char *files, server_mode_t mode)
{
    clear();
    int rc = run_node(files, mode, NULL);
    if (rc == 0)
        print_error("the node accepted the listing %.200s\n", files);
    int out = entries(outside), beside = entries(tmp_dir);
    if (out || beside)
        print_error("%d files written outside the private folder, %d beside it\n", out, beside);
    assert_int_equal(out + beside, 0);
    assert_int_not_equal(rc, 0);
}

static void check_good(const char *dir)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/scripts/main.lua", dir);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_size, 16);
    snprintf(path, sizeof path, "%s/project.sjson", dir);
    assert_int_equal(lstat(path, &st), 0);
}

/* Taken whole (check looks at the copy), the server served it to its end, and nothing was left
 * beside the private folder. */
static void assert_accepted(const char *files, server_mode_t mode, void (*check)(const char *dir))
{
    assert_int_equal(run_node(files, mode, check), 0);
    assert_int_equal(g_server_exit, 0);
    assert_int_equal(entries(tmp_dir), 0);
}

static void good_listing_is_copied(void **state)
{
    (void)state;
    assert_accepted("[\"project.sjson\",\"scripts/main.lua\"]", PLAIN, check_good);
}

static void dot_dot_is_refused(void **state)
{
    (void)state;
    assert_refused("[\"main.lua\",\"../x.lua\"]", PLAIN);
    assert_refused("[\"a/../../b.lua\"]", PLAIN);
    assert_refused("[\"./c.lua\"]", PLAIN);
}

static void absolute_is_refused(void **state)
{
    (void)state;
    char files[256];
    snprintf(files, sizeof files, "[\"%s/x.lua\"]", outside);
    assert_refused(files, PLAIN);
}

static void odd_names_are_refused(void **state)
{
    (void)state;
    assert_refused("[\"..\\\\x.lua\"]", PLAIN); /* a backslash */
    assert_refused("[\"\"]", PLAIN);            /* empty */
    assert_refused("[\"a//b.lua\"]", PLAIN);    /* an empty segment */
    assert_refused("[\"a/\"]", PLAIN);
    assert_refused("[\"x\\u0000/../../n.lua\"]", PLAIN); /* a NUL: the name ends at it */
    assert_refused("[\"notes.txt\"]", PLAIN);
    assert_refused("[7]", PLAIN);
}

static void over_long_name_is_refused(void **state)
{
    (void)state;
    char files[1200] = "[\"";
    for (int i = 0; i < 300; i++)
        strcat(files, "a/");
    strcat(files, "x.lua\"]");
    assert_refused(files, PLAIN);
}

static void too_many_names_are_refused(void **state)
{
    (void)state;
    char *files = malloc(20 * 300);
    strcpy(files, "[");
    for (int i = 0; i < FILE_SERVER_MAX_FILES + 1; i++)
        sprintf(files + strlen(files), "%s\"s%d.lua\"", i ? "," : "", i);
    strcat(files, "]");
    assert_refused(files, PLAIN);
    free(files);
}

/* 20 MiB each: the fourth reply would take the listing past its 64 MiB. It is refused from its
 * header (4 MiB are left), so the server is cut off while it sends it. */
static void too_many_bytes_are_refused(void **state)
{
    (void)state;
    g_reply_size = 20u << 20;
    assert_refused("[\"a.lua\",\"b.lua\",\"c.lua\",\"d.lua\"]", SIZED);
    assert_int_equal(g_server_exit, SERVER_CUT_OFF);
}

/* One reply of 100 MiB (under the 256 MiB a compiled blob may take, over the listing's 64 MiB):
 * refused as bad data at its header, never buffered. */
static void a_reply_over_the_budget_is_refused_unread(void **state)
{
    (void)state;
    g_reply_size = 100u << 20;
    assert_refused("[\"project.sjson\"]", SIZED);
    assert_int_equal(g_server_exit, SERVER_CUT_OFF);
    int rc = run_node("[\"project.sjson\"]", SIZED, NULL);
    assert_int_equal(rc, CT_ERR_BAD_DATA);
    assert_int_equal(g_server_exit, SERVER_CUT_OFF);
    assert_int_equal(entries(tmp_dir), 0);
}

/* A hello of 100 MiB (a listing is at most 1 MiB): refused at its header. */
static void a_huge_hello_is_refused_unread(void **state)
{
    (void)state;
    g_reply_size = 100u << 20;
    assert_refused("[\"project.sjson\"]", HUGE_HELLO);
    assert_int_equal(g_server_exit, SERVER_CUT_OFF);
}

static void check_two_halves(const char *dir)
{
    char path[512];
    struct stat st;
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, i ? "scripts/b.lua" : "project.sjson");
        assert_int_equal(lstat(path, &st), 0);
        assert_int_equal(st.st_size, 32 << 20);
    }
}

/* Two replies of 32 MiB: the listing's 64 MiB, to the byte, are taken. */
static void the_budget_can_be_used_to_its_end(void **state)
{
    (void)state;
    clear();
    g_reply_size = 32u << 20;
    assert_accepted("[\"project.sjson\",\"scripts/b.lua\"]", SIZED, check_two_halves);
}

static void links_in_the_folder_are_not_followed(void **state)
{
    (void)state;
    assert_refused("[\"a.lua\",\"sub/b.lua\"]", LINK_FOLDER);
    assert_refused("[\"a.lua\",\"c.lua\"]", LINK_FILE);
}

static void *refuse_load(void *user_data, const void *payload, uint64_t size, char *err,
                         size_t err_size)
{
    (void)user_data, (void)payload, (void)size, (void)err, (void)err_size;
    return NULL;
}

static int no_compile(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data, (void)source, (void)ctx;
    return CT_ERR_INVALID;
}

/* With the resource system up, a compiled blob the node fetches (the fake server's 4 MiB of
 * '-', refused as a blob by the resource system, which frees it) is the reply's own frame: the
 * resource allocator's peak holds the whole frame (the JSON before the blob included: it was
 * received there) and never a second copy of it; nothing is left. Before, the frame was read
 * into the C heap and copied into a block of blob size, so both were live at once. */
static void check_fetched_blob(const char *dir)
{
    (void)dir;
    assert_int_equal(memory__init(0), 0);
    assert_int_equal(resources__init(NULL, false), 0);
    const ct_resource_type_t type = {.type = "thing", .compile = no_compile, .load = refuse_load};
    assert_int_equal(resources__register_type(&type), 0);
    const ct_allocator_stats_t before = memory__stats(resources__allocator());
    assert_int_not_equal(resources__load("thing", "a"), 0);
    const ct_allocator_stats_t after = memory__stats(resources__allocator());
    assert_true(after.total_allocations > before.total_allocations); /* it came this way */
    assert_true(after.peak_bytes - before.live_bytes > g_reply_size + 4);
    assert_true(after.peak_bytes - before.live_bytes < 2 * g_reply_size);
    assert_int_equal(after.live_bytes, before.live_bytes);
    resources__unregister_type("thing");
    resources__shutdown();
    memory__shutdown();
}

static void a_fetched_blob_is_not_copied(void **state)
{
    (void)state;
    clear();
    g_reply_size = 4u << 20;
    assert_int_equal(run_node("[\"project.sjson\"]", SIZED, check_fetched_blob), 0);
}

/* Issue 28: a server that keeps sending frames of another id gives the node up within the one
 * deadline of the request (it held the node in start-up forever: the wait was per frame). */
static void a_server_sending_other_ids_is_given_up(void **state)
{
    (void)state;
    clear();
    file_client__timeout_ms = 1000;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_not_equal(run_node("[\"project.sjson\"]", WRONG_IDS, NULL), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    file_client__timeout_ms = 30000;
    assert_true(t1.tv_sec - t0.tv_sec < 20); /* a bound, not a timing: forever before */
}

/* Issue 28: the node's console token never goes to a file server that asks for auth; the
 * server's own token (--host-token) does. */
static void the_console_token_never_goes_to_a_file_server(void **state)
{
    (void)state;
    char path[128], got[512] = "";
    snprintf(path, sizeof path, "%s/auth", scratch);
    for (int k = 0; k < 2; k++) {
        clear();
        unlink(path);
        g_console_token = "console-secret";
        setenv("CUTTLE_CONSOLE_TOKEN", "console-secret", 1);
        g_host_token = k ? "server-secret" : NULL;
        const int rc = run_node("[\"project.sjson\"]", WANTS_AUTH, NULL);
        FILE *f = fopen(path, "r");
        got[0] = '\0';
        if (f) {
            size_t n = fread(got, 1, sizeof got - 1, f);
            got[n] = '\0';
            fclose(f);
        }
        assert_null(strstr(got, "console-secret"));
        if (k) {
            assert_int_equal(rc, 0);
            assert_non_null(strstr(got, "server-secret"));
        } else {
            assert_int_not_equal(rc, 0);
        }
    }
    g_console_token = g_host_token = NULL;
    unsetenv("CUTTLE_CONSOLE_TOKEN");
}

/* Issue 28: a server that closes in the middle of a blob's reply is said to have done so (it
 * was reported as "sent more than its reply"). The message is the defect, so the log is read. */
static char g_log[4096];
static void keep_log(void *ctx, ct_log_level level, const char *tag, const char *text)
{
    (void)ctx, (void)level, (void)tag;
    strncat(g_log, text, sizeof g_log - strlen(g_log) - 2);
    strcat(g_log, "\n");
}

static void check_closed_mid_blob(const char *dir)
{
    (void)dir;
    assert_int_equal(memory__init(0), 0);
    assert_int_equal(resources__init(NULL, false), 0);
    const ct_resource_type_t type = {.type = "thing", .compile = no_compile, .load = refuse_load};
    assert_int_equal(resources__register_type(&type), 0);
    g_log[0] = '\0';
    log__set_sink(keep_log, NULL);
    assert_int_not_equal(resources__load("thing", "a"), 0);
    log__set_sink(NULL, NULL);
    resources__unregister_type("thing");
    resources__shutdown();
    memory__shutdown();
}

static void a_server_closing_mid_reply_is_named(void **state)
{
    (void)state;
    clear();
    assert_int_equal(run_node("[\"project.sjson\"]", CLOSE_MID_BLOB, check_closed_mid_blob), 0);
    print_message("%s", g_log);
    assert_null(strstr(g_log, "more than its reply"));
    assert_non_null(strstr(g_log, "in the middle of its reply"));
}

static volatile sig_atomic_t g_stop;
static void on_term(int sig) { (void)sig, g_stop = 1; }
static int stop_requested(void) { return g_stop; }

/* The real file server with a project of many long-named scripts (a hello far over 512 bytes):
 * the node takes all of them. */
static void real_server_listing_is_copied(void **state)
{
    (void)state;
    clear();
    char project[256], path[512];
    snprintf(project, sizeof project, "%s/p", outside);
    snprintf(path, sizeof path, "%s/scripts", project);
    assert_int_equal(mkdir(project, 0700) | mkdir(path, 0700), 0);
    for (int i = 0; i <= 60; i++) {
        if (i == 60)
            snprintf(path, sizeof path, "%s/project.sjson", project);
        else
            snprintf(path, sizeof path, "%s/scripts/a_script_with_a_long_name_%02d.lua", project,
                     i);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("-- a script\n", f);
        fclose(f);
    }
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t addr_len = sizeof addr;
    assert_int_equal(bind(probe, (struct sockaddr *)&addr, sizeof addr), 0);
    assert_int_equal(getsockname(probe, (struct sockaddr *)&addr, &addr_len), 0);
    close(probe);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(60);
        signal(SIGTERM, on_term);
        console_options_t so = {.serve_dir = project, .serve_port = ntohs(addr.sin_port)};
        _exit(file_server__run(&so, stop_requested));
    }
    char host[64];
    snprintf(host, sizeof host, "127.0.0.1:%d", ntohs(addr.sin_port));
    console_options_t o = {.host = host, .serve_port = -1};
    const char *dir = NULL;
    int rc = -1;
    for (int tries = 0; rc != 0 && tries < 100; tries++) { /* until the server listens */
        usleep(50000);
        rc = file_client__connect(&o, "p", &dir);
    }
    assert_int_equal(rc, 0);
    snprintf(path, sizeof path, "%s/scripts", dir);
    assert_int_equal(entries(path), 60);
    snprintf(path, sizeof path, "%s/scripts/a_script_with_a_long_name_59.lua", dir);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(st.st_size, 12);
    file_client__disconnect();
    kill(pid, SIGTERM);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(entries(tmp_dir), 0);
}

static int setup(void **state)
{
    (void)state;
    test_project_make(scratch, sizeof scratch, "ct-host-listing");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/tmp", scratch);
    snprintf(outside, sizeof outside, "%s/outside", scratch);
    mkdir(tmp_dir, 0700);
    mkdir(outside, 0700);
    setenv("TMPDIR", tmp_dir, 1); /* where the node makes its private folder */
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return test_project_remove(scratch) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_listing_is_copied),
        cmocka_unit_test(dot_dot_is_refused),
        cmocka_unit_test(absolute_is_refused),
        cmocka_unit_test(odd_names_are_refused),
        cmocka_unit_test(over_long_name_is_refused),
        cmocka_unit_test(too_many_names_are_refused),
        cmocka_unit_test(too_many_bytes_are_refused),
        cmocka_unit_test(a_reply_over_the_budget_is_refused_unread),
        cmocka_unit_test(a_huge_hello_is_refused_unread),
        cmocka_unit_test(the_budget_can_be_used_to_its_end),
        cmocka_unit_test(links_in_the_folder_are_not_followed),
        cmocka_unit_test(real_server_listing_is_copied),
        cmocka_unit_test(a_fetched_blob_is_not_copied),
        cmocka_unit_test(a_server_sending_other_ids_is_given_up),
        cmocka_unit_test(the_console_token_never_goes_to_a_file_server),
        cmocka_unit_test(a_server_closing_mid_reply_is_named),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
