/* The HTTP request reader of editor_http.h. */
#include "editor/editor_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool editor_http_reader__partial(const editor_http_reader_t *r) { return r->have > 0; }

const char *editor_http__reason(int status)
{
    switch (status) {
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 426: return "Upgrade Required";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

static int refuse(char *err, size_t err_size, int status, const char *why)
{
    snprintf(err, err_size, "%s", why);
    return status;
}

static bool is_tchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Copies a header value into a field; false when it does not fit. */
static bool copy_value(char *dst, size_t size, const char *v, size_t n)
{
    if (n >= size)
        return false;
    memcpy(dst, v, n);
    dst[n] = 0;
    return true;
}

/* Whether a comma-separated header value lists `token` (case-insensitive). */
static bool lists_token(const char *v, size_t n, const char *token)
{
    size_t t = strlen(token), i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e - s == t && strncasecmp(v + s, token, t) == 0)
            return true;
    }
    return false;
}

static int parse_target(const char *t, size_t n, editor_http_request_t *req, char *err, size_t es)
{
    if (!n || t[0] != '/')
        return refuse(err, es, 400, "the request target is not a path starting with '/'");
    size_t path_len = n;
    const char *q = memchr(t, '?', n);
    if (q) {
        path_len = (size_t)(q - t);
        if (!copy_value(req->query, sizeof req->query, q + 1, n - path_len - 1))
            return refuse(err, es, 414, "the query is too long");
    }
    if (path_len >= sizeof req->path)
        return refuse(err, es, 414, "the path is too long");
    for (size_t i = 0; i < path_len; i++) {
        char c = t[i];
        if (c == '%' || c == '\\' || (unsigned char)c < 0x21 || (unsigned char)c > 0x7e || c == '#')
            return refuse(err, es, 400,
                          "the path holds a character the editor does not serve "
                          "('%', '\\', '#', control or non-ASCII)");
        if (c == '/' && i + 1 < path_len && t[i + 1] == '/')
            return refuse(err, es, 400, "the path holds an empty segment (\"//\")");
        if (c == '.' && (i == 0 || t[i - 1] == '/'))
            return refuse(err, es, 400, "the path holds a segment starting with '.'");
    }
    memcpy(req->path, t, path_len);
    req->path[path_len] = 0;
    return 0;
}

/* Parses the header block buf[0..len) (ending in CRLF CRLF). */
static int parse(const char *buf, size_t len, editor_http_request_t *req, char *err, size_t es)
{
    memset(req, 0, sizeof *req);
    const char *end = buf + len - 2; /* the final CRLF */
    const char *line = buf;
    const char *eol = strstr(line, "\r\n");
    /* Request line: METHOD SP target SP version. */
    const char *sp1 = memchr(line, ' ', (size_t)(eol - line));
    if (!sp1)
        return refuse(err, es, 400, "a malformed request line");
    const char *sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
    if (!sp2)
        return refuse(err, es, 400, "a malformed request line");
    size_t mlen = (size_t)(sp1 - line);
    if (mlen == 3 && !memcmp(line, "GET", 3)) {
        req->head = false;
    } else if (mlen == 4 && !memcmp(line, "HEAD", 4)) {
        req->head = true;
    } else {
        for (size_t i = 0; i < mlen; i++)
            if (!is_tchar(line[i]))
                return refuse(err, es, 400, "a malformed request line");
        return refuse(err, es, 405, "only GET and HEAD are served");
    }
    const char *ver = sp2 + 1;
    size_t vlen = (size_t)(eol - ver);
    if (vlen == 8 && !memcmp(ver, "HTTP/1.1", 8)) {
        req->keep_alive = true;
    } else if (vlen == 8 && !memcmp(ver, "HTTP/1.0", 8)) {
        req->http10 = true;
    } else {
        return refuse(err, es, memcmp(ver, "HTTP/", 5) == 0 ? 505 : 400,
                      "the version is not HTTP/1.1 or HTTP/1.0");
    }
    int r = parse_target(sp1 + 1, (size_t)(sp2 - sp1 - 1), req, err, es);
    if (r)
        return r;
    bool has_host = false, conn_upgrade = false;
    for (line = eol + 2; line < end; line = eol + 2) {
        eol = strstr(line, "\r\n");
        if (line[0] == ' ' || line[0] == '\t')
            return refuse(err, es, 400, "a folded header line");
        const char *colon = memchr(line, ':', (size_t)(eol - line));
        if (!colon || colon == line)
            return refuse(err, es, 400, "a header line without a name and ':'");
        for (const char *p = line; p < colon; p++)
            if (!is_tchar(*p))
                return refuse(err, es, 400, "a header name with a character that is not a token");
        const char *v = colon + 1, *ve = eol;
        for (const char *p = v; p < ve; p++)
            if ((unsigned char)*p < 0x20 && *p != '\t')
                return refuse(err, es, 400, "a header value with a control byte");
        while (v < ve && (*v == ' ' || *v == '\t'))
            v++;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        size_t nlen = (size_t)(colon - line), n = (size_t)(ve - v);
#define IS(name) (nlen == sizeof name - 1 && strncasecmp(line, name, nlen) == 0)
        if (IS("Host")) {
            if (has_host)
                return refuse(err, es, 400, "two Host headers");
            has_host = true;
            if (!copy_value(req->host, sizeof req->host, v, n))
                return refuse(err, es, 431, "the Host header is too long");
        } else if (IS("Origin")) {
            if (!copy_value(req->origin, sizeof req->origin, v, n))
                return refuse(err, es, 431, "the Origin header is too long");
        } else if (IS("Upgrade")) {
            req->upgrade_websocket = lists_token(v, n, "websocket");
        } else if (IS("Connection")) {
            conn_upgrade = lists_token(v, n, "upgrade");
            if (lists_token(v, n, "close"))
                req->keep_alive = false;
            if (req->http10 && !lists_token(v, n, "keep-alive"))
                req->keep_alive = false;
        } else if (IS("Sec-WebSocket-Key")) {
            if (!copy_value(req->ws_key, sizeof req->ws_key, v, n))
                return refuse(err, es, 400, "the Sec-WebSocket-Key is too long");
        } else if (IS("Sec-WebSocket-Version")) {
            if (!copy_value(req->ws_version, sizeof req->ws_version, v, n))
                return refuse(err, es, 400, "the Sec-WebSocket-Version is too long");
        } else if (IS("Transfer-Encoding")) {
            return refuse(err, es, 413, "requests with a body are not served");
        } else if (IS("Content-Length")) {
            if (n != 1 || v[0] != '0')
                return refuse(err, es, 413, "requests with a body are not served");
        }
#undef IS
    }
    if (!has_host)
        return refuse(err, es, 400, "no Host header");
    req->upgrade_websocket = req->upgrade_websocket && conn_upgrade;
    return 0;
}

int editor_http_reader__feed(editor_http_reader_t *r, const uint8_t *data, size_t n, size_t *used,
                             editor_http_request_t *req, char *err, size_t err_size)
{
    *used = 0;
    while (*used < n) {
        if (r->have == sizeof r->buf - 1)
            return refuse(err, err_size, 431, "the request's header is larger than 8 KiB");
        char c = (char)data[(*used)++];
        if (c == 0)
            return refuse(err, err_size, 400, "a NUL byte in the request");
        if (c == '\n' && (r->have == 0 || r->buf[r->have - 1] != '\r'))
            return refuse(err, err_size, 400, "a line ending in a bare LF (want CRLF)");
        r->buf[r->have++] = c;
        r->buf[r->have] = 0;
        if (r->have >= 4 && c == '\n' && !memcmp(r->buf + r->have - 4, "\r\n\r\n", 4)) {
            size_t len = r->have;
            r->have = 0;
            int status = parse(r->buf, len, req, err, err_size);
            return status ? status : 1;
        }
        if (r->have == 2 && !memcmp(r->buf, "\r\n", 2))
            r->have = 0; /* an empty line before a request is allowed (RFC 9112 2.2) */
    }
    return 0;
}

bool editor_http__query_value(const char *query, const char *name, char *out, size_t out_size)
{
    size_t nlen = strlen(name);
    const char *p = query;
    while (*p) {
        const char *amp = strchr(p, '&');
        size_t seg = amp ? (size_t)(amp - p) : strlen(p);
        if (seg > nlen && !strncmp(p, name, nlen) && p[nlen] == '=') {
            size_t vlen = seg - nlen - 1;
            if (vlen >= out_size)
                return false;
            memcpy(out, p + nlen + 1, vlen);
            out[vlen] = 0;
            return true;
        }
        p += seg + (amp ? 1 : 0);
    }
    return false;
}
