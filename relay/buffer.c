#include "buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buffer_append(struct buffer *b, const void *bytes, size_t len) {
  if (len == 0) return;
  if (b->len + len > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + len) cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) {
      fprintf(stderr, "paddock-relay: out of memory\n");
      abort();
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, bytes, len);
  b->len += len;
}

void buffer_append_str(struct buffer *b, const char *text) { buffer_append(b, text, strlen(text)); }

void buffer_consume(struct buffer *b, size_t len) {
  if (len >= b->len) {
    b->len = 0;
    return;
  }
  memmove(b->data, b->data + len, b->len - len);
  b->len -= len;
}

void buffer_free(struct buffer *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}
