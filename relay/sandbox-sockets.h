// Sockets made inside a sandbox's network namespace, to connect to its ports the way its own processes
// do. Joining a namespace (setns) needs CAP_SYS_ADMIN, which the relay gives up: a helper process forked
// before that keeps it, alone, and answers each request with a socket (SCM_RIGHTS) and nothing else.
#ifndef PADDOCK_RELAY_SANDBOX_SOCKETS_H
#define PADDOCK_RELAY_SANDBOX_SOCKETS_H

/** Forks the helper (it keeps no other file descriptor); 0 on success. */
int sandbox_sockets_start(void);
/** A new non-blocking TCP socket inside the namespace at `netns` (/run/netns/NAME; the relay's own when
 * empty), or -1. Exits the relay when the helper is gone: Node starts a new relay for the next connection. */
int sandbox_socket(const char *netns);

#endif
