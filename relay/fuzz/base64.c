// libFuzzer target: base64 (relay/base64.c) as the relay decodes what Node sends and encodes what it
// hands back: whatever decodes re-encodes to the same length, and encoding then decoding is lossless.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base64.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  struct buffer decoded = {0}, encoded = {0}, round = {0};
  if (base64_decode(text, size, &decoded)) {
    base64_encode(decoded.data, decoded.len, &encoded);
    if (encoded.len != size) abort();
  }
  buffer_free(&encoded);
  base64_encode(text, size, &encoded);
  if (!base64_decode(encoded.data, encoded.len, &round) || round.len != size || (size && memcmp(round.data, data, size) != 0)) abort();
  buffer_free(&decoded);
  buffer_free(&encoded);
  buffer_free(&round);
  return 0;
}
