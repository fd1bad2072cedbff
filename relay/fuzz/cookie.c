// libFuzzer target: finding the preview cookie pair in a Cookie header value (relay/framing.c
// cookie_has_pair). The first byte says how much of the rest is the pair looked for.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../framing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t pair_len = data[0] < size - 1 ? data[0] : size - 1;
  const char *pair = (const char *)data + 1;
  const char *value = pair + pair_len;
  size_t value_len = size - 1 - pair_len;
  // Copies of exactly their length, so ASan sees any read past either.
  char *pair_copy = malloc(pair_len ? pair_len : 1), *value_copy = malloc(value_len ? value_len : 1);
  memcpy(pair_copy, pair, pair_len);
  memcpy(value_copy, value, value_len);
  int found = cookie_has_pair(value_copy, value_len, pair_copy, pair_len);
  // A value that is exactly the pair always holds it (when the pair has no separator or edge blanks).
  if (pair_len && !memchr(pair_copy, ';', pair_len) && pair_copy[0] != ' ' && pair_copy[0] != '\t' && pair_copy[pair_len - 1] != ' ' && pair_copy[pair_len - 1] != '\t' &&
      !cookie_has_pair(pair_copy, pair_len, pair_copy, pair_len))
    abort();
  (void)found;
  free(pair_copy);
  free(value_copy);
  return 0;
}
