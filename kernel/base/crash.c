/*
 * Crash attribution (see crash.h). The handler runs on its own stack, so a stack overflow is
 * reported too; it formats into a static buffer and writes with write(2), and it uses dladdr and
 * backtrace, which are not async-signal-safe on paper but are what every crash reporter uses
 * once the process is going down anyway (backtrace is warmed up at install, so it does not load
 * libgcc inside the handler).
 */
#include "crash.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NUM_FATAL (int)(sizeof fatal_signals / sizeof fatal_signals[0])

static struct sigaction previous_actions[NUM_FATAL];
static crash_namer_f namer;
static crash_call_t current;
#ifndef __SANITIZE_ADDRESS__
static char alternate_stack[64 * 1024];
#endif

crash_call_t crash__enter(const char *what, const char *plugin)
{
    crash_call_t before = current;
    current = (crash_call_t){what, plugin};
    return before;
}

void crash__leave(crash_call_t previous) { current = previous; }

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "SIGABRT";
    }
}

/* The instruction that faulted and the return address on top of the stack (for a call through
 * a NULL pointer, the instruction after the call). */
static void fault_addresses(const void *context, uintptr_t *pc, uintptr_t *caller)
{
    const ucontext_t *uc = context;
    *pc = *caller = 0;
#if defined(__x86_64__)
    *pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    const uintptr_t *sp = (const uintptr_t *)uc->uc_mcontext.gregs[REG_RSP];
    if (sp)
        *caller = *sp;
#elif defined(__aarch64__)
    *pc = (uintptr_t)uc->uc_mcontext.pc;
    *caller = (uintptr_t)uc->uc_mcontext.regs[30];
#else
    (void)uc;
#endif
}

/* "plugin 'x' (its/file.so+0x1100: function+0x12)", or "file.so+0x1100" for code that is no
 * plugin's. The offset is the file's own, so addr2line reads it from the plugin's library. */
static int describe_code(char *out, size_t size, uintptr_t address, const char **file,
                         uintptr_t *offset)
{
    Dl_info info;
    memset(&info, 0, sizeof info);
    *file = NULL;
    if (!address || !dladdr((const void *)address, &info) || !info.dli_fname)
        return snprintf(out, size, "unknown code at %#lx", (unsigned long)address);
    *file = info.dli_fname;
    *offset = address - (uintptr_t)info.dli_fbase;
    const char *plugin = namer ? namer((const void *)address, file) : NULL;
    char symbol[160] = "";
    if (info.dli_sname)
        snprintf(symbol, sizeof symbol, ": %s+%#lx", info.dli_sname,
                 (unsigned long)(address - (uintptr_t)info.dli_saddr));
    return plugin ? snprintf(out, size, "plugin '%s' (%s+%#lx%s)", plugin, *file,
                             (unsigned long)*offset, symbol)
                  : snprintf(out, size, "%s+%#lx%s", *file, (unsigned long)*offset, symbol);
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    static char line[1024];
    uintptr_t pc, caller, offset = 0;
    const char *file = NULL;
    fault_addresses(context, &pc, &caller);
    int n = snprintf(line, sizeof line, "cuttle: fatal signal %d (%s", sig, signal_name(sig));
    if (sig == SIGSEGV || sig == SIGBUS)
        n += snprintf(line + n, sizeof line - (size_t)n, " at %p", info->si_addr);
    n += snprintf(line + n, sizeof line - (size_t)n, ") ");
    if (pc < 4096 && caller) { /* a jump to (almost) NULL: a missing function in a table */
        n += snprintf(line + n, sizeof line - (size_t)n, "calling a NULL function pointer from ");
        n += describe_code(line + n, sizeof line - (size_t)n, caller, &file, &offset);
    } else {
        n += snprintf(line + n, sizeof line - (size_t)n, "in ");
        n += describe_code(line + n, sizeof line - (size_t)n, pc, &file, &offset);
    }
    if (current.what && current.plugin && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, ", while running %s of plugin '%s'",
                      current.what, current.plugin);
    else if (current.what && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, ", while running the script's %s",
                      current.what);
    if (file && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n,
                      "\ncuttle: `addr2line -f -e %s %#lx` names the function and line", file,
                      (unsigned long)offset);
    if ((size_t)n >= sizeof line - 1)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, (size_t)n);
    static const char header[] = "cuttle: backtrace:\n";
    ignored = write(STDERR_FILENO, header, sizeof header - 1);
    (void)ignored;
    void *frames[64];
    backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);

    /* Hand over to what was there before (a sanitizer's report), else end with the signal. */
    for (int i = 0; i < NUM_FATAL; i++) {
        if (fatal_signals[i] != sig)
            continue;
        sigaction(sig, &previous_actions[i], NULL);
        if ((previous_actions[i].sa_flags & SA_SIGINFO) && previous_actions[i].sa_sigaction) {
            previous_actions[i].sa_sigaction(sig, info, context);
            return;
        }
        if (previous_actions[i].sa_handler != SIG_DFL &&
            previous_actions[i].sa_handler != SIG_IGN) {
            previous_actions[i].sa_handler(sig);
            return;
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void crash__install(crash_namer_f name_plugin)
{
    static int installed;
    namer = name_plugin;
    if (installed++)
        return;
    void *warm[4];
    backtrace(warm, 4);
#ifndef __SANITIZE_ADDRESS__
    /* AddressSanitizer keeps its own alternate stacks and unmaps them when a thread ends, so a
     * stack of ours would be unmapped as if it were its own (and abort the process). */
    stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack};
    sigaltstack(&stack, NULL);
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND; /* a fault in here ends the process */
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NUM_FATAL; i++)
        sigaction(fatal_signals[i], &sa, &previous_actions[i]);
}
