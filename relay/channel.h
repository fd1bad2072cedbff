// The IPC channel Node opens to a child spawned with an 'ipc' stdio entry (NODE_CHANNEL_FD): JSON
// messages, one per line, a passed socket riding on its message as SCM_RIGHTS. Node's own handshake
// for passed sockets is answered here: each NODE_HANDLE is acknowledged, and a server closing asks
// whether the sockets it passed are closed (the server keeps its own copies, so they count there).
#ifndef PADDOCK_RELAY_CHANNEL_H
#define PADDOCK_RELAY_CHANNEL_H

#include <stddef.h>

/** A message from Node: the JSON of what it sent, and the socket passed with it or -1. */
typedef void (*message_handler)(const char *json, size_t len, int fd);

/** The channel's fd, from NODE_CHANNEL_FD; -1 when there is none. */
int channel_open(void);
/** Reads what has arrived and hands each whole message to `handler`; 0 once Node has gone. */
int channel_read(message_handler handler);
/** Sends one message (a JSON object, without the newline). */
void channel_send(const char *json);

/** The string field `key` of a flat JSON object, copied into `out`; -1 when missing, escaped or too long. */
long json_string(const char *json, size_t len, const char *key, char *out, size_t out_size);
/** The string field `key` in place (no escapes allowed): its length and *value, or -1. */
long json_raw_string(const char *json, size_t len, const char *key, const char **value);
/** The integer field `key`; 0 when missing. */
int json_int(const char *json, size_t len, const char *key, long long *value);

#endif
