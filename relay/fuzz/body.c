// libFuzzer target: measuring a request body (relay/framing.c body_take), Content-Length or chunked,
// fed in pieces. The first byte picks the framing and the piece size; the rest is the stream.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

#include "../framing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int chunked = data[0] & 1;
  size_t piece = (size_t)(data[0] >> 1) + 1;
  const char *stream = (const char *)data + 1;
  size_t len = size - 1;
  struct body body;
  body_start(&body, chunked, chunked ? 0 : len / 2);
  size_t at = 0;
  while (at < len && !body_done(&body)) {
    size_t n = len - at < piece ? len - at : piece;
    long taken = body_take(&body, stream + at, n);
    if (taken < 0) return 0;
    if ((size_t)taken > n) abort();
    // A piece is used up unless the body ended inside it.
    if ((size_t)taken < n && !body_done(&body)) abort();
    at += (size_t)taken;
  }
  return 0;
}
