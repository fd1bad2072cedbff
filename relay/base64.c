#include "base64.h"

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(const char *data, size_t len, struct buffer *out) {
  const unsigned char *bytes = (const unsigned char *)data;
  for (size_t i = 0; i < len; i += 3) {
    unsigned value = (unsigned)bytes[i] << 16 | (i + 1 < len ? (unsigned)bytes[i + 1] << 8 : 0) | (i + 2 < len ? bytes[i + 2] : 0);
    char quad[4] = {ALPHABET[value >> 18 & 63], ALPHABET[value >> 12 & 63], i + 1 < len ? ALPHABET[value >> 6 & 63] : '=', i + 2 < len ? ALPHABET[value & 63] : '='};
    buffer_append(out, quad, 4);
  }
}

static int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

int base64_decode(const char *text, size_t len, struct buffer *out) {
  if (len % 4) return 0;
  for (size_t i = 0; i < len; i += 4) {
    // Padding only ends the text: `xx==` or `xxx=` as its last quad (a lenient decoder would take `YQ==YWI=`).
    int last = i + 4 == len, pad_c = text[i + 2] == '=', pad_d = text[i + 3] == '=';
    if ((pad_c || pad_d) && (!last || (pad_c && !pad_d))) return 0;
    int a = sextet(text[i]), b = sextet(text[i + 1]);
    int c = pad_c ? 0 : sextet(text[i + 2]), d = pad_d ? 0 : sextet(text[i + 3]);
    if (a < 0 || b < 0 || c < 0 || d < 0) return 0;
    unsigned value = (unsigned)a << 18 | (unsigned)b << 12 | (unsigned)c << 6 | (unsigned)d;
    char bytes[3] = {(char)(value >> 16), (char)(value >> 8 & 255), (char)(value & 255)};
    size_t count = pad_c ? 1 : pad_d ? 2 : 3;
    buffer_append(out, bytes, count);
  }
  return 1;
}
