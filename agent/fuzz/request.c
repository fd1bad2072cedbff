// libFuzzer target: the request frame the agent splits into cwd, argv and env (agent/request.c).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../request.h"

static size_t count_strings(char **list) {
  size_t count = 0;
  while (list[count]) count++;
  return count;
}

/** The length of the frame encoding cwd, argc, argv, envc, env as NUL-terminated strings. */
static size_t reencoded_length(const char *cwd, char **argv, char **env) {
  char digits[32];
  size_t argc = count_strings(argv), envc = count_strings(env);
  size_t length = strlen(cwd) + 1 + (size_t)snprintf(digits, sizeof digits, "%zu", argc) + 1 + (size_t)snprintf(digits, sizeof digits, "%zu", envc) + 1;
  for (size_t i = 0; i < argc; i++) length += strlen(argv[i]) + 1;
  for (size_t i = 0; i < envc; i++) length += strlen(env[i]) + 1;
  return length;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A copy of exactly its length, as read_frame hands it over (without the NUL read_frame appends, so
  // ASan sees any read past the frame).
  char *frame = malloc(size ? size : 1);
  memcpy(frame, data, size);
  char *cwd = NULL, **argv = NULL, **env = NULL;
  if (parse_request(frame, (uint32_t)size, &cwd, &argv, &env) == 0) {
    if (!argv || !argv[0] || !env) abort();
    char **lists[] = {argv, env};
    for (int list = 0; list < 2; list++)
      for (char **entry = lists[list]; *entry; entry++)
        if (*entry < frame || *entry >= frame + size || !memchr(*entry, 0, (size_t)(frame + size - *entry))) abort();
    // What was accepted is exactly what the host encodes for it (src/runtime/agent/protocol.ts): no
    // other spelling of a count, nothing after the last string.
    if (reencoded_length(cwd, argv, env) != size) abort();
  }
  free(argv);
  free(env);
  free(frame);
  return 0;
}
