/* Ctrl-C and SIGTERM for the `cuttle` program: the first asks for an orderly stop, the second
 * exits at once. */
#ifndef CT_KERNEL_SIGNALS_H
#define CT_KERNEL_SIGNALS_H

/* Installs the handlers for SIGINT and SIGTERM, and ignores SIGPIPE (a write to a closed socket
 * or pipe is an error value). */
void signals__install(void);
/* The signal that asked to stop, or 0. */
int signals__stop_requested(void);

#endif
