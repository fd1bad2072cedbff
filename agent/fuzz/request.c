// libFuzzer target: the request frame the agent splits into cwd, argv and env (agent/request.c).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../request.h"

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
  }
  free(argv);
  free(env);
  free(frame);
  return 0;
}
