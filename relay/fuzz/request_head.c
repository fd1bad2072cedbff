// libFuzzer target: a client's request head, as pump() sees it (relay/framing.c): where it ends, whether
// it is accepted, the head the sandbox would receive, and the proof check against its Cookie header.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../framing.h"

/** Whether any Cookie line of the head `data[0, len)` has a pair named paddock_preview. */
static int carries_preview_cookie(const char *data, size_t len) {
  for (const char *line = data; line < data + len;) {
    const char *next = memmem(line, (size_t)(data + len - line), "\r\n", 2);
    size_t line_len = next ? (size_t)(next - line) : (size_t)(data + len - line);
    if (line_len > 7 && strncasecmp(line, "cookie:", 7) == 0) {
      for (size_t at = 7; at < line_len;) {
        while (at < line_len && (line[at] == ' ' || line[at] == '\t' || line[at] == ';')) at++;
        if (line_len - at >= 16 && memcmp(line + at, "paddock_preview=", 16) == 0) return 1;
        while (at < line_len && line[at] != ';') at++;
      }
    }
    line += line_len + 2;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  long end = head_end(text, size, 0);
  if (end < 0) return 0;
  struct request_head head;
  if (!parse_request_head(text, (size_t)end, &head)) return 0;
  if (head.host_len && (head.host < text || head.host + head.host_len > text + end)) abort();
  if (head.cookie_len && (head.cookie < text || head.cookie + head.cookie_len > text + end)) abort();
  struct buffer out = {0};
  for (int protected_port = 0; protected_port < 2; protected_port++) {
    struct forward_options options = {.client_address = "192.0.2.1", .scheme = "http", .port_is_protected = protected_port};
    forwarded_head(text, (size_t)end, &head, &options, &out);
    // What goes to the sandbox is itself one whole head that this parser accepts, and never carries the preview cookie.
    if (head_end(out.data, out.len, 0) != (long)out.len) abort();
    struct request_head again;
    if (!parse_request_head(out.data, out.len, &again)) abort();
    if (carries_preview_cookie(out.data, out.len)) abort();
    out.len = 0;
  }
  buffer_free(&out);
  if (head.cookie) cookie_has_pair(head.cookie, head.cookie_len, "paddock_preview=abc", 19);
  return 0;
}
