// What the relay keeps once its sockets are set up (docs/c-programs.md): the relay runs
// as nobody with no capability, and a helper it forks first keeps only CAP_SYS_ADMIN to make sockets
// inside sandboxes' network namespaces (sandbox-sockets.c). Both set no_new_privs and a seccomp filter
// of the system calls they make.
#ifndef PADDOCK_RELAY_PRIVILEGES_H
#define PADDOCK_RELAY_PRIVILEGES_H

#include <sys/types.h>

/** Becomes nobody (when root) keeping no capability, sets no_new_privs and the relay's seccomp filter; 0 on success. */
int drop_relay_privileges(void);
/** Becomes nobody (when root) keeping only CAP_SYS_ADMIN (for setns), ends with the process `relay`, and
 * takes the helper's seccomp filter; 0 on success. */
int drop_helper_privileges(pid_t relay);

#endif
