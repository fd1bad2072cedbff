// libFuzzer target: following a sandbox's answers (relay/framing.c answers_*), which decide when a
// connection can go back to the server. The first byte says how many requests were sent (its low bits
// which were HEAD) and the piece size the answers arrive in.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

#include "../framing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  struct answers answers = {0};
  int requests = data[0] & 7;
  for (int i = 0; i < requests; i++) answers_sent(&answers, (data[0] >> 3) & (1 << i) ? 1 : 0);
  size_t piece = (size_t)data[1] * 16 + 1;
  const char *stream = (const char *)data + 2;
  size_t len = size - 2;
  for (size_t at = 0; at < len; at += piece) {
    size_t n = len - at < piece ? len - at : piece;
    answers_received(&answers, stream + at, n);
    answers_settled(&answers);
    answers_waiting_on_last(&answers);
    if (answers.partial_head.len > MAX_HEAD_BYTES + piece) abort();
  }
  answers_free(&answers);
  return 0;
}
