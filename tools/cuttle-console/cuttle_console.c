/*
 * cuttle-console: talks to a running engine's console.
 *
 *   cuttle-console [HOST:]PORT                 a prompt: each line is Lua run in the engine
 *                                              (an expression's value is printed), log lines
 *                                              appear as they come; ":help" lists commands
 *   cuttle-console [HOST:]PORT -e 'return World.count()'   one-shot: prints the results
 *
 * Exit status: 0, 1 when a script failed or the engine went away, 2 for usage.
 */

#include <cJSON.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console/console_client.h"

static const char usage[] =
    "usage: cuttle-console [HOST:]PORT [options]\n"
    "  -e CODE        run CODE (Lua) in the engine, print its results, exit; repeatable\n"
    "  --token T      authenticate with T (or CUTTLE_CONSOLE_TOKEN)\n"
    "  --timeout S    seconds to wait for each reply (default 30)\n"
    "  --quiet-logs   do not stream the engine's log lines (prompt mode)\n"
    "At the prompt, a line is Lua; these are commands:\n"
    "  :pause  :resume  :step [N]  :status  :quit (stops the engine)\n"
    "  :reload TYPE NAME   reload a compiled resource    :exit   leave (the engine runs on)\n";

static int timeout_ms = 30000;
static double next_id = 1;

/* Prints one reply value: strings as they are, everything else as JSON. */
static void print_value(const cJSON *v)
{
    if (cJSON_IsString(v)) {
        printf("%s\n", v->valuestring);
        return;
    }
    char *text = cJSON_PrintUnformatted(v);
    printf("%s\n", text ? text : "?");
    cJSON_free(text);
}

static void print_log(const cJSON *o)
{
    const cJSON *level = cJSON_GetObjectItem(o, "level"),
                *source = cJSON_GetObjectItem(o, "source"), *line = cJSON_GetObjectItem(o, "line");
    fprintf(stdout, "[%s] %s: %s\n", cJSON_IsString(level) ? level->valuestring : "?",
            cJSON_IsString(source) ? source->valuestring : "?",
            cJSON_IsString(line) ? line->valuestring : "?");
}

/* Prints what is not the awaited reply (logs, errors not tied to a message). Returns true when
 * it was the reply to `id`. */
static bool show(cJSON *o, double id, int *status)
{
    const cJSON *type = cJSON_GetObjectItem(o, "type"), *rid = cJSON_GetObjectItem(o, "id");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    bool mine = cJSON_IsNumber(rid) && rid->valuedouble == id;
    if (!strcmp(t, "log") && cJSON_GetObjectItem(o, "line")) {
        print_log(o);
        return false;
    }
    if (!strcmp(t, "error")) {
        const cJSON *e = cJSON_GetObjectItem(o, "error");
        fprintf(stderr, "error: %s\n", cJSON_IsString(e) ? e->valuestring : "?");
        *status = 1;
        return mine || !cJSON_IsNumber(rid);
    }
    if (!mine)
        return false;
    const cJSON *ok = cJSON_GetObjectItem(o, "ok");
    if (!strcmp(t, "log") || !strcmp(t, "auth"))
        return true; /* the prompt's own subscription, the token accepted: nothing to show */
    if (!strcmp(t, "script")) {
        if (cJSON_IsTrue(ok)) {
            const cJSON *v;
            cJSON_ArrayForEach(v, cJSON_GetObjectItem(o, "results")) print_value(v);
        } else {
            const cJSON *e = cJSON_GetObjectItem(o, "error");
            fprintf(stderr, "%s\n", cJSON_IsString(e) ? e->valuestring : "script failed");
            *status = 1;
        }
    } else {
        cJSON *copy = cJSON_Duplicate(o, true);
        cJSON_DeleteItemFromObject(copy, "id");
        cJSON_DeleteItemFromObject(copy, "type");
        char *text = cJSON_PrintUnformatted(copy);
        printf("%s\n", text ? text : "");
        cJSON_free(text);
        cJSON_Delete(copy);
    }
    return true;
}

/* Sends `json` (with its id) and prints frames until its reply. Returns 0, 1 (it failed) or -1
 * (the connection is gone). */
static int round_trip(console_conn_t *c, cJSON *msg, bool *compile_error)
{
    double id = next_id++;
    cJSON_AddNumberToObject(msg, "id", id);
    char *json = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    int rc = console_conn__send(c, json);
    cJSON_free(json);
    if (rc) {
        fprintf(stderr, "cuttle-console: %s\n", c->error);
        return -1;
    }
    for (;;) {
        uint32_t type, len;
        char *payload;
        int r = console_conn__recv(c, timeout_ms, &type, &payload, &len);
        if (r <= 0) {
            fprintf(stderr, "cuttle-console: %s\n", r == 0 ? "no reply in time" : c->error);
            return -1;
        }
        cJSON *o = cJSON_Parse(payload);
        free(payload);
        if (!o)
            continue;
        const cJSON *phase = cJSON_GetObjectItem(o, "phase");
        if (compile_error && cJSON_IsString(phase) && !strcmp(phase->valuestring, "compile")) {
            *compile_error = true; /* the caller tries the line again as a statement */
            cJSON_Delete(o);
            return 1;
        }
        int status = 0;
        bool done = show(o, id, &status);
        cJSON_Delete(o);
        if (done)
            return status;
    }
}

static cJSON *script_message(const char *code)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "type", "script");
    cJSON_AddStringToObject(m, "script", code);
    return m;
}

static cJSON *command_message(const char *line)
{
    char name[32] = "", a[256] = "", b[256] = "";
    int n = sscanf(line, ":%31s %255s %255s", name, a, b);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "type", "command");
    cJSON_AddStringToObject(m, "command", name);
    if (!strcmp(name, "step") && n >= 2)
        cJSON_AddNumberToObject(m, "frames", atof(a));
    if (!strcmp(name, "reload")) {
        cJSON_AddStringToObject(m, "resource", a);
        cJSON_AddStringToObject(m, "name", b);
    }
    return m;
}

/* A line at the prompt: tried first as an expression (so `World.count()` prints), then as a
 * statement if that does not compile. */
static int run_line(console_conn_t *c, const char *line)
{
    if (line[0] == ':')
        return round_trip(c, command_message(line), NULL);
    size_t n = strlen(line) + 8;
    char *expr = malloc(n);
    snprintf(expr, n, "return %s", line);
    bool compile_error = false;
    int rc = round_trip(c, script_message(expr), &compile_error);
    free(expr);
    if (compile_error)
        rc = round_trip(c, script_message(line), NULL);
    return rc;
}

static int prompt(console_conn_t *c, bool logs)
{
    if (logs) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "type", "log");
        cJSON_AddBoolToObject(m, "subscribe", true);
        if (round_trip(c, m, NULL) < 0)
            return 1;
    }
    bool tty = isatty(0);
    char line[8192];
    size_t have = 0;
    for (;;) {
        if (tty && have == 0) {
            printf("cuttle> ");
            fflush(stdout);
        }
        struct pollfd p[2] = {{0, POLLIN, 0}, {c->fd, POLLIN, 0}};
        if (poll(p, 2, -1) < 0)
            continue;
        if (p[1].revents) {
            /* Log lines between prompts. */
            if (console_conn__pump(c) < 0 && !c->first) {
                fprintf(stderr, "\ncuttle-console: %s\n", c->error);
                return 1;
            }
            uint32_t type, len;
            char *payload;
            int status = 0;
            while (console_conn__recv(c, 0, &type, &payload, &len) == 1) {
                cJSON *o = cJSON_Parse(payload);
                free(payload);
                if (o)
                    show(o, -1, &status);
                cJSON_Delete(o);
            }
        }
        if (p[0].revents) {
            ssize_t n = read(0, line + have, sizeof line - 1 - have);
            if (n <= 0)
                return 0;
            have += (size_t)n;
            line[have] = '\0';
            char *nl;
            while ((nl = strchr(line, '\n'))) {
                *nl = '\0';
                if (!strcmp(line, ":exit"))
                    return 0;
                if (!strcmp(line, ":help"))
                    fputs(usage, stdout);
                else if (line[0] && run_line(c, line) < 0)
                    return 1;
                if (!strcmp(line, ":quit"))
                    return 0;
                size_t rest = have - (size_t)(nl + 1 - line);
                memmove(line, nl + 1, rest + 1);
                have = rest;
            }
            if (have == sizeof line - 1) {
                fprintf(stderr, "cuttle-console: a line of more than %zu bytes\n", sizeof line - 1);
                have = 0;
            }
        }
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *address = NULL, *token = getenv("CUTTLE_CONSOLE_TOKEN");
    const char *codes[64];
    int num_codes = 0;
    bool logs = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--quiet-logs")) {
            logs = false;
        } else if (i + 1 < argc && !strcmp(a, "-e") && num_codes < 64) {
            codes[num_codes++] = argv[++i];
        } else if (i + 1 < argc && !strcmp(a, "--token")) {
            token = argv[++i];
        } else if (i + 1 < argc && !strcmp(a, "--timeout")) {
            double s = atof(argv[++i]);
            if (!(s > 0 && s <= 86400)) {
                fprintf(stderr, "cuttle-console: --timeout wants seconds in (0, 86400]\n");
                return 2;
            }
            timeout_ms = (int)(s * 1000);
        } else if (a[0] != '-' && !address) {
            address = a;
        } else {
            fprintf(stderr, "cuttle-console: unknown or incomplete option %s\n%s", a, usage);
            return 2;
        }
    }
    char host[64];
    int port;
    if (!address || console_conn__parse_address(address, host, sizeof host, &port)) {
        fprintf(stderr, "cuttle-console: give the engine's console as PORT or HOST:PORT\n%s",
                usage);
        return 2;
    }
    console_conn_t c;
    if (console_conn__open(&c, host, port, CONSOLE_MAX_PAYLOAD, 5000)) {
        fprintf(stderr, "cuttle-console: %s\n", c.error);
        return 1;
    }
    uint32_t type, len;
    char *hello;
    if (console_conn__recv(&c, timeout_ms, &type, &hello, &len) != 1) {
        fprintf(stderr, "cuttle-console: no hello from %s\n", c.peer);
        console_conn__close(&c);
        return 1;
    }
    bool wants_token = strstr(hello, "\"auth\":true") != NULL;
    free(hello);
    int status = 0;
    if (wants_token) {
        if (!token) {
            fprintf(stderr, "cuttle-console: %s wants a token (--token)\n", c.peer);
            status = 1;
        } else {
            cJSON *m = cJSON_CreateObject();
            cJSON_AddStringToObject(m, "type", "auth");
            cJSON_AddStringToObject(m, "token", token);
            status = round_trip(&c, m, NULL) ? 1 : 0;
        }
    }
    for (int i = 0; !status && i < num_codes; i++)
        status = round_trip(&c, script_message(codes[i]), NULL) ? 1 : 0;
    if (!status && !num_codes)
        status = prompt(&c, logs);
    console_conn__close(&c);
    return status;
}
