// A growable byte buffer: what waits to be written to a socket, or read bytes not yet used.
#ifndef PADDOCK_RELAY_BUFFER_H
#define PADDOCK_RELAY_BUFFER_H

#include <stddef.h>

struct buffer {
  char *data;
  size_t len;
  size_t cap;
};

void buffer_append(struct buffer *b, const void *bytes, size_t len);
void buffer_append_str(struct buffer *b, const char *text);
/** Drops the first `len` bytes. */
void buffer_consume(struct buffer *b, size_t len);
void buffer_free(struct buffer *b);

#endif
