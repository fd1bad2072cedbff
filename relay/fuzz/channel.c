// libFuzzer target: reading fields of Node's JSON messages (relay/channel.c). Arbitrary bytes are read
// as a message, and are put, escaped as JSON.stringify does, into the Host field of a `conn` message:
// whatever a string holds, the other fields read the same (a Host holding `"port":22` is not the port).
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../buffer.h"
#include "../channel.h"

static void append_escaped(struct buffer *out, const uint8_t *data, size_t size) {
  for (size_t i = 0; i < size; i++) {
    char escaped[8];
    if (data[i] == '"' || data[i] == '\\') {
      escaped[0] = '\\';
      escaped[1] = (char)data[i];
      buffer_append(out, escaped, 2);
    } else if (data[i] < 0x20) {
      snprintf(escaped, sizeof escaped, "\\u%04x", data[i]);
      buffer_append(out, escaped, 6);
    } else {
      buffer_append(out, data + i, 1);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char text[256];
  long long number;
  const char *raw;
  // Arbitrary bytes as a message: only memory safety is asked.
  json_string((const char *)data, size, "host", text, sizeof text);
  json_int((const char *)data, size, "port", &number);
  json_raw_string((const char *)data, size, "initial", &raw);

  struct buffer message = {0};
  buffer_append_str(&message, "{\"t\":\"conn\",\"id\":7,\"group\":3,\"host\":\"");
  append_escaped(&message, data, size);
  buffer_append_str(&message, "\",\"ip\":\"10.0.0.2\",\"port\":8000,\"netns\":\"/run/netns/x\",\"initial\":\"R0VU\"}");
  const char *json = message.data;
  size_t len = message.len;
  if (!json_int(json, len, "port", &number) || number != 8000) abort();
  if (!json_int(json, len, "id", &number) || number != 7) abort();
  if (json_string(json, len, "ip", text, sizeof text) != 8 || strcmp(text, "10.0.0.2") != 0) abort();
  if (json_string(json, len, "netns", text, sizeof text) != 12 || strcmp(text, "/run/netns/x") != 0) abort();
  if (json_raw_string(json, len, "initial", &raw) != 4 || memcmp(raw, "R0VU", 4) != 0) abort();
  long host_len = json_string(json, len, "host", text, sizeof text);
  if (host_len >= 0 && ((size_t)host_len != size || memcmp(text, data, size) != 0)) abort();
  buffer_free(&message);
  return 0;
}
