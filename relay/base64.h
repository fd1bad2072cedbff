// Base64 (RFC 4648, padded) for bytes carried inside JSON messages on the Node channel.
#ifndef PADDOCK_RELAY_BASE64_H
#define PADDOCK_RELAY_BASE64_H

#include "buffer.h"

void base64_encode(const char *data, size_t len, struct buffer *out);
/** Appends the decoded bytes to `out`; 0 when `text` is not base64. */
int base64_decode(const char *text, size_t len, struct buffer *out);

#endif
