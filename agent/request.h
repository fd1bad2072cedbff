// The request frame's payload ('R'): NUL-terminated strings cwd, argc, argv…, envc, env…
#ifndef PADDOCK_AGENT_REQUEST_H
#define PADDOCK_AGENT_REQUEST_H

#include <stdint.h>

enum { MAX_ARGS = 65536 };

/** Splits `data[0, length)` into cwd, argv and extra env (NULL-terminated arrays, malloc'd, pointing into
 * `data`); -1 when it is not exactly such a request. The caller frees *argv and *env either way. */
int parse_request(char *data, uint32_t length, char **cwd, char ***argv, char ***env);

#endif
