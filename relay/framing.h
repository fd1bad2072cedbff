// HTTP/1.1 framing for relayed preview connections: where a request head ends and what it says, the
// head the sandbox receives instead (X-Forwarded-*, no Paddock credentials), where a body ends (RFC 9112
// §6.3, §7.1), and whether the sandbox has answered every request sent to it. Bytes of bodies are only
// measured, never copied or decoded. Anything unusual is refused, and the Node server answers it.
#ifndef PADDOCK_RELAY_FRAMING_H
#define PADDOCK_RELAY_FRAMING_H

#include <stddef.h>
#include <stdint.h>

#include "buffer.h"

/** Node's default limit on the size of a request head. */
#define MAX_HEAD_BYTES (16 * 1024)

struct body {
  int chunked;
  int state;
  int digits;
  uint64_t remaining;
};

void body_start(struct body *b, int chunked, uint64_t length);
int body_done(const struct body *b);
/** How many bytes of `data` belong to the body (all when it goes on); -1 when the chunk framing is malformed. */
long body_take(struct body *b, const char *data, size_t len);

struct request_head {
  int is_head_method;
  int chunked;
  uint64_t length;
  /** Upgrade, CONNECT, or anything the relay does not carry: handed back. */
  int needs_node;
  /** X-Forwarded-*, Proxy-* or the preview cookie present: the head is rebuilt rather than copied. */
  int must_rebuild;
  const char *host;
  size_t host_len;
  const char *authorization;
  size_t authorization_len;
  /** The first Cookie header's value. */
  const char *cookie;
  size_t cookie_len;
};

/** Offset just past the empty line ending the head that starts at `start`, or -1. */
long head_end(const char *data, size_t len, size_t start);
/** Parses `data[0, len)` (a whole head, with its empty line); 0 when it is not a plain, unambiguous request. */
int parse_request_head(const char *data, size_t len, struct request_head *head);

/** Whether the Cookie header value `value[0, len)` holds the pair `pair` (`name=value`) exactly. */
int cookie_has_pair(const char *value, size_t len, const char *pair, size_t pair_len);

struct forward_options {
  const char *client_address;
  const char *scheme;
  int port_is_protected;
};

/** Appends to `out` what the sandbox receives for the head `data[0, len)`. */
void forwarded_head(const char *data, size_t len, const struct request_head *head, const struct forward_options *options, struct buffer *out);

struct answers {
  /** Requests sent and not yet fully answered, oldest first: 1 for HEAD, else 0. */
  unsigned char *awaiting;
  size_t awaiting_len, awaiting_cap;
  struct buffer partial_head;
  struct body body;
  int in_body;
  /** An answer whose end is the connection's close: nothing after it can be answered. */
  int until_close;
};

void answers_sent(struct answers *a, int is_head_method);
void answers_received(struct answers *a, const char *data, size_t len);
int answers_settled(const struct answers *a);
/** Every request but the last one sent is fully answered, and nothing of the last one's answer has come. */
int answers_waiting_on_last(const struct answers *a);
void answers_free(struct answers *a);

#endif
