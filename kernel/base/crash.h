/*
 * Crash attribution. A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) prints, before the
 * process ends with that signal, one line saying whose code faulted and what the engine was
 * running, then a backtrace:
 *
 *   cuttle: fatal signal 11 (SIGSEGV at (nil)) in plugin 'acme.crash' (plugins/acme_crash.so+0x1100:
 *           crash_init+0x12), while running init of plugin 'acme.crash'
 *   cuttle: `addr2line -f -e plugins/acme_crash.so 0x1100` names the line
 *
 * "Whose code" is the plugin whose library holds the faulting instruction (the loader names it),
 * or, for a call through a NULL function pointer, the code that made the call. "What was
 * running" is the innermost call the kernel made into a plugin or a script (lua_env__protect
 * records it with crash__enter/crash__leave: two stores a call). A handler installed before ours
 * (AddressSanitizer's) still runs after the line, so sanitizer reports are kept.
 */
#ifndef CUTTLE_CRASH_H
#define CUTTLE_CRASH_H

/* Names the plugin whose code holds `address` and sets *file to its library (the path it was
 * loaded from, not the private copy), or returns NULL. Called from the signal handler: it must
 * only read memory. */
typedef const char *(*crash_namer_f)(const void *address, const char **file);

/* Installs the handlers (once; later calls only change the namer). */
void crash__install(crash_namer_f namer);

typedef struct crash_call_t {
    const char *what;   /* "init", "update", "frame_begin", ... */
    const char *plugin; /* the plugin it belongs to; NULL: the scripts (Lua) */
} crash_call_t;

/* Records the call about to run; returns the one it interrupts, for crash__leave. */
crash_call_t crash__enter(const char *what, const char *plugin);
void crash__leave(crash_call_t previous);

#endif
