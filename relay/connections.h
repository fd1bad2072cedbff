// Relayed connections and their groups, driven by the relay's event loop and Node's messages.
#ifndef PADDOCK_RELAY_CONNECTIONS_H
#define PADDOCK_RELAY_CONNECTIONS_H

#include <stddef.h>
#include <stdint.h>

/** The epoll set sockets are watched in (data 0 is not a connection). */
void connections_init(int epoll_fd);
/** A `conn` message and the client socket passed with it (-1 when none came). */
void connection_open(const char *json, size_t len, int client);
/** Requests the group may send until `expires` (epoch ms); 0 tokens sends its waiting requests back. */
void group_grant(long long group, long long tokens, long long expires);
/** The group's port changed: no further request of its connections goes to the sandbox. */
void group_revoke(long long group);
/** One epoll event of a connection's socket; 1 when the connection was released by it. */
int connection_event(uint64_t data, uint32_t events);
/** After each batch of events: frees connections released in it and, once a second, ends idle ones and
 * those whose drain grace ran out. */
void connections_sweep(int released);

#endif
