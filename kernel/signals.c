/* The first SIGINT or SIGTERM only sets a flag: the frame loop sees it between frames and the
 * kernel shuts down in order (plugin hooks, the script's shutdown(), the leak report). A second
 * one means the shutdown itself is stuck, so it ends the process on the spot. */
#include "signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    if (stop_signal)
        _exit(128 + sig);
    stop_signal = sig;
    static const char note[] =
        "\ncuttle: stopping after this frame (a second signal exits at once)\n";
    ssize_t ignored = write(STDERR_FILENO, note, sizeof note - 1);
    (void)ignored;
}

void signals__install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A peer that resets a socket (the console, the file server, a --host connection) or a reader
     * that closes our stdout must give an error value, never end the engine: no process of ours
     * dies of SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
}

int signals__stop_requested(void) { return stop_signal; }
