#define _GNU_SOURCE
#include "framing.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { SIZE, EXTENSION, SIZE_LF, DATA, DATA_CR, DATA_LF, TRAILER_START, TRAILER_LINE, TRAILER_LF, END_LF, DONE };
enum { MAX_SIZE_DIGITS = 12 };

static const char COOKIE_PREFIX[] = "paddock_preview=";

void body_start(struct body *b, int chunked, uint64_t length) {
  b->chunked = chunked;
  b->state = chunked ? SIZE : DATA;
  b->digits = 0;
  b->remaining = chunked ? 0 : length;
}

int body_done(const struct body *b) { return b->chunked ? b->state == DONE : b->remaining == 0; }

static int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/** One byte of chunk framing outside chunk data; 0 when it is malformed. */
static int chunk_step(struct body *b, unsigned char c) {
  switch (b->state) {
  case SIZE: {
    int digit = hex_value(c);
    if (digit >= 0 && b->digits < MAX_SIZE_DIGITS) {
      b->remaining = b->remaining * 16 + (uint64_t)digit;
      b->digits++;
    } else if (b->digits > 0 && (c == ';' || c == ' ' || c == '\t')) b->state = EXTENSION;
    else if (b->digits > 0 && c == '\r') b->state = SIZE_LF;
    else return 0;
    return 1;
  }
  case EXTENSION:
    if (c == '\r') b->state = SIZE_LF;
    else if (c == '\n') return 0;
    return 1;
  case SIZE_LF:
    if (c != '\n') return 0;
    b->digits = 0;
    b->state = b->remaining == 0 ? TRAILER_START : DATA;
    return 1;
  case DATA_CR:
    if (c != '\r') return 0;
    b->state = DATA_LF;
    return 1;
  case DATA_LF:
    if (c != '\n') return 0;
    b->state = SIZE;
    return 1;
  case TRAILER_START:
    if (c == '\r') b->state = END_LF;
    else if (c == '\n') return 0;
    else b->state = TRAILER_LINE;
    return 1;
  case TRAILER_LINE:
    if (c == '\r') b->state = TRAILER_LF;
    else if (c == '\n') return 0;
    return 1;
  case TRAILER_LF:
    if (c != '\n') return 0;
    b->state = TRAILER_START;
    return 1;
  case END_LF:
    if (c != '\n') return 0;
    b->state = DONE;
    return 1;
  }
  return 0;
}

long body_take(struct body *b, const char *data, size_t len) {
  if (!b->chunked) {
    size_t taken = b->remaining < len ? (size_t)b->remaining : len;
    b->remaining -= taken;
    return (long)taken;
  }
  size_t at = 0;
  while (at < len && b->state != DONE) {
    if (b->state == DATA) {
      size_t taken = b->remaining < len - at ? (size_t)b->remaining : len - at;
      b->remaining -= taken;
      at += taken;
      if (b->remaining == 0) b->state = DATA_CR;
      continue;
    }
    if (!chunk_step(b, (unsigned char)data[at])) return -1;
    at++;
  }
  return (long)at;
}

long head_end(const char *data, size_t len, size_t start) {
  const char *found = memmem(data + start, len - start, "\r\n\r\n", 4);
  return found ? (long)(found - data) + 4 : -1;
}

static int is_token_char(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int is_token(const char *s, size_t len) {
  if (len == 0) return 0;
  for (size_t i = 0; i < len; i++)
    if (!is_token_char((unsigned char)s[i])) return 0;
  return 1;
}

static int is_bad_value_char(unsigned char c) { return (c <= 0x08) || (c >= 0x0a && c <= 0x1f) || c == 0x7f; }

static int is_digits(const char *s, size_t len, size_t max) {
  if (len == 0 || len > max) return 0;
  for (size_t i = 0; i < len; i++)
    if (s[i] < '0' || s[i] > '9') return 0;
  return 1;
}

static int name_is(const char *name, size_t len, const char *expected) { return strlen(expected) == len && strncasecmp(name, expected, len) == 0; }

static void trim(const char **s, size_t *len) {
  while (*len && (**s == ' ' || **s == '\t')) (*s)++, (*len)--;
  while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t')) (*len)--;
}

/** The next line of `data[*at, end)` (lines end with CRLF; the last one at `end`). */
static int next_line(const char *data, size_t end, size_t *at, const char **line, size_t *len) {
  if (*at >= end) return 0;
  const char *found = memmem(data + *at, end - *at, "\r\n", 2);
  size_t stop = found ? (size_t)(found - data) : end;
  *line = data + *at;
  *len = stop - *at;
  *at = found ? stop + 2 : end;
  return 1;
}

static uint64_t parse_u64(const char *s, size_t len) {
  uint64_t value = 0;
  for (size_t i = 0; i < len; i++) value = value * 10 + (uint64_t)(s[i] - '0');
  return value;
}

int parse_request_head(const char *data, size_t len, struct request_head *head) {
  memset(head, 0, sizeof *head);
  size_t end = len - 4, at = 0;
  const char *line = NULL;
  size_t line_len = 0;
  if (!next_line(data, end, &at, &line, &line_len)) return 0;

  const char *first_space = memchr(line, ' ', line_len);
  if (!first_space) return 0;
  const char *target = first_space + 1;
  const char *second_space = memchr(target, ' ', line_len - (size_t)(target - line));
  if (!second_space) return 0;
  const char *version = second_space + 1;
  size_t method_len = (size_t)(first_space - line), target_len = (size_t)(second_space - target), version_len = line_len - (size_t)(version - line);
  if (!is_token(line, method_len) || target_len == 0 || memchr(version, ' ', version_len)) return 0;
  for (size_t i = 0; i < target_len; i++) {
    unsigned char c = (unsigned char)target[i];
    if (c < 0x21 || c == 0x7f) return 0;
  }
  int http11 = version_len == 8 && memcmp(version, "HTTP/1.1", 8) == 0;
  if (!http11 && !(version_len == 8 && memcmp(version, "HTTP/1.0", 8) == 0)) return 0;
  head->is_head_method = method_len == 4 && memcmp(line, "HEAD", 4) == 0;
  head->needs_node = method_len == 7 && memcmp(line, "CONNECT", 7) == 0;

  int has_host = 0, has_length = 0, has_encoding = 0, chunked = 0;
  while (next_line(data, end, &at, &line, &line_len)) {
    const char *colon = memchr(line, ':', line_len);
    if (!colon || colon == line) return 0;
    size_t name_len = (size_t)(colon - line);
    const char *value = colon + 1;
    size_t value_len = line_len - name_len - 1;
    trim(&value, &value_len);
    if (!is_token(line, name_len)) return 0;
    for (size_t i = 0; i < value_len; i++)
      if (is_bad_value_char((unsigned char)value[i])) return 0;
    if (name_is(line, name_len, "host")) {
      if (has_host) return 0;
      has_host = 1;
      head->host = value;
      head->host_len = value_len;
    } else if (name_is(line, name_len, "content-length")) {
      if (has_length || !is_digits(value, value_len, 15)) return 0;
      has_length = 1;
      head->length = parse_u64(value, value_len);
    } else if (name_is(line, name_len, "transfer-encoding")) {
      if (has_encoding) return 0;
      has_encoding = 1;
      chunked = value_len == 7 && strncasecmp(value, "chunked", 7) == 0;
      if (!chunked) return 0;
    } else if (name_is(line, name_len, "upgrade")) {
      head->needs_node = 1;
    } else if (name_is(line, name_len, "authorization")) {
      head->authorization = value;
      head->authorization_len = value_len;
    } else if (name_is(line, name_len, "cookie")) {
      if (memmem(value, value_len, "paddock_preview", 15)) head->must_rebuild = 1;
      if (!head->cookie) {
        head->cookie = value;
        head->cookie_len = value_len;
      }
    } else if (name_is(line, name_len, "x-forwarded-for") || name_is(line, name_len, "x-forwarded-proto") || name_is(line, name_len, "x-forwarded-host") ||
               name_is(line, name_len, "proxy-authorization") || name_is(line, name_len, "proxy-connection")) {
      head->must_rebuild = 1;
    }
  }
  if (!has_host && http11) return 0;
  if (has_encoding && has_length) return 0;
  head->chunked = chunked;
  if (!has_length) head->length = 0;
  return 1;
}

static int starts_with_nocase(const char *s, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && strncasecmp(s, prefix, n) == 0;
}

/** An API key or dashboard token (`Bearer svc_…`), or on a protected port the preview password (Basic). */
static int is_paddock_credential(const char *value, size_t len, int port_is_protected) {
  if (starts_with_nocase(value, len, "bearer")) {
    size_t at = 6, spaces = 0;
    while (at < len && (value[at] == ' ' || value[at] == '\t')) at++, spaces++;
    return spaces > 0 && starts_with_nocase(value + at, len - at, "svc_");
  }
  return port_is_protected && len > 5 && starts_with_nocase(value, len, "basic") && (value[5] == ' ' || value[5] == '\t');
}

/** The next `name=value` pair of a Cookie header value, trimmed (empty between two semicolons). */
static int next_cookie_pair(const char *value, size_t len, size_t *at, const char **pair, size_t *pair_len) {
  if (*at > len) return 0;
  const char *semicolon = memchr(value + *at, ';', len - *at);
  size_t stop = semicolon ? (size_t)(semicolon - value) : len;
  *pair = value + *at;
  *pair_len = stop - *at;
  trim(pair, pair_len);
  *at = stop + 1;
  return 1;
}

int cookie_has_pair(const char *value, size_t len, const char *pair, size_t pair_len) {
  const char *candidate;
  size_t candidate_len, at = 0;
  while (next_cookie_pair(value, len, &at, &candidate, &candidate_len))
    if (candidate_len == pair_len && memcmp(candidate, pair, pair_len) == 0) return 1;
  return 0;
}

/** Appends a Cookie line without the preview cookie, or nothing when no other cookie is left. */
static void append_cookie_without_preview(const char *value, size_t len, struct buffer *out) {
  const char *pair;
  size_t pair_len, kept = 0, at = 0;
  while (next_cookie_pair(value, len, &at, &pair, &pair_len)) {
    if (!pair_len || (pair_len >= sizeof COOKIE_PREFIX - 1 && memcmp(pair, COOKIE_PREFIX, sizeof COOKIE_PREFIX - 1) == 0)) continue;
    buffer_append_str(out, kept++ ? "; " : "Cookie: ");
    buffer_append(out, pair, pair_len);
  }
  if (kept) buffer_append(out, "\r\n", 2);
}

void forwarded_head(const char *data, size_t len, const struct request_head *head, const struct forward_options *options, struct buffer *out) {
  int strip_authorization = head->authorization && is_paddock_credential(head->authorization, head->authorization_len, options->port_is_protected);
  struct buffer forwarded_for = {0};
  if (!head->must_rebuild && !strip_authorization) {
    buffer_append(out, data, len - 2);
  } else {
    size_t end = len - 4, at = 0;
    const char *line = NULL;
    size_t line_len = 0;
    next_line(data, end, &at, &line, &line_len);
    buffer_append(out, line, line_len);
    buffer_append(out, "\r\n", 2);
    while (next_line(data, end, &at, &line, &line_len)) {
      const char *colon = memchr(line, ':', line_len);
      size_t name_len = (size_t)(colon - line);
      const char *value = colon + 1;
      size_t value_len = line_len - name_len - 1;
      trim(&value, &value_len);
      if (name_is(line, name_len, "x-forwarded-for")) {
        if (forwarded_for.len) buffer_append(&forwarded_for, ", ", 2);
        buffer_append(&forwarded_for, value, value_len);
        continue;
      }
      if (name_is(line, name_len, "x-forwarded-proto") || name_is(line, name_len, "x-forwarded-host") || name_is(line, name_len, "proxy-authorization") || name_is(line, name_len, "proxy-connection")) continue;
      if (strip_authorization && name_is(line, name_len, "authorization")) continue;
      if (name_is(line, name_len, "cookie")) {
        append_cookie_without_preview(value, value_len, out);
        continue;
      }
      buffer_append(out, line, line_len);
      buffer_append(out, "\r\n", 2);
    }
  }
  buffer_append_str(out, "X-Forwarded-For: ");
  if (forwarded_for.len) {
    buffer_append(out, forwarded_for.data, forwarded_for.len);
    buffer_append(out, ", ", 2);
  }
  buffer_append_str(out, options->client_address);
  buffer_append_str(out, "\r\nX-Forwarded-Proto: ");
  buffer_append_str(out, options->scheme);
  buffer_append_str(out, "\r\nX-Forwarded-Host: ");
  buffer_append(out, head->host, head->host_len);
  buffer_append(out, "\r\n\r\n", 4);
  buffer_free(&forwarded_for);
}

void answers_sent(struct answers *a, int is_head_method) {
  if (a->awaiting_len == a->awaiting_cap) {
    a->awaiting_cap = a->awaiting_cap ? a->awaiting_cap * 2 : 16;
    a->awaiting = realloc(a->awaiting, a->awaiting_cap);
    if (!a->awaiting) abort();
  }
  a->awaiting[a->awaiting_len++] = (unsigned char)is_head_method;
}

int answers_settled(const struct answers *a) { return a->awaiting_len == 0 && !a->in_body && a->partial_head.len == 0 && !a->until_close; }

int answers_waiting_on_last(const struct answers *a) { return a->awaiting_len == 1 && !a->in_body && a->partial_head.len == 0 && !a->until_close; }

static void answered(struct answers *a) {
  a->in_body = 0;
  if (a->awaiting_len) memmove(a->awaiting, a->awaiting + 1, --a->awaiting_len);
}

enum { FRAMING_INTERIM = -1, FRAMING_UNTIL_CLOSE = -2, FRAMING_CHUNKED = -3 };

/** How the answer with head `data[0, len)` (without its empty line) ends: a length, or one of FRAMING_*. */
static long long answer_framing(const char *data, size_t len, int head_method) {
  if (len < 12 || memcmp(data, "HTTP/1.", 7) != 0 || !is_digits(data + 9, 3, 3)) return FRAMING_UNTIL_CLOSE;
  int status = (int)parse_u64(data + 9, 3);
  if (status >= 100 && status < 200) return status == 101 ? FRAMING_UNTIL_CLOSE : FRAMING_INTERIM;
  if (head_method || status == 204 || status == 304) return 0;
  long long length = -1;
  size_t at = 0;
  const char *line = NULL;
  size_t line_len = 0;
  next_line(data, len, &at, &line, &line_len);
  while (next_line(data, len, &at, &line, &line_len)) {
    const char *colon = memchr(line, ':', line_len);
    if (!colon) continue;
    size_t name_len = (size_t)(colon - line);
    const char *value = colon + 1;
    size_t value_len = line_len - name_len - 1;
    trim(&value, &value_len);
    if (name_is(line, name_len, "transfer-encoding")) {
      // Chunked must be the last coding: `…, chunked`.
      if (value_len < 7 || strncasecmp(value + value_len - 7, "chunked", 7) != 0) return FRAMING_UNTIL_CLOSE;
      size_t before = value_len - 7;
      while (before && (value[before - 1] == ' ' || value[before - 1] == '\t')) before--;
      return before == 0 || value[before - 1] == ',' ? FRAMING_CHUNKED : FRAMING_UNTIL_CLOSE;
    }
    if (name_is(line, name_len, "content-length")) {
      if (!is_digits(value, value_len, 15)) return FRAMING_UNTIL_CLOSE;
      long long given = (long long)parse_u64(value, value_len);
      if (length >= 0 && length != given) return FRAMING_UNTIL_CLOSE;
      length = given;
    }
  }
  return length >= 0 ? length : FRAMING_UNTIL_CLOSE;
}

static void answers_process(struct answers *a, const char *data, size_t len, struct buffer *rest) {
  size_t offset = 0;
  while (offset < len) {
    if (a->in_body) {
      long taken = body_take(&a->body, data + offset, len - offset);
      if (taken < 0) {
        a->until_close = 1;
        return;
      }
      offset += (size_t)taken;
      if (body_done(&a->body)) answered(a);
      continue;
    }
    long end = head_end(data, len, offset);
    if (end < 0) {
      if (len - offset > MAX_HEAD_BYTES) a->until_close = 1;
      else buffer_append(rest, data + offset, len - offset);
      return;
    }
    long long framing = answer_framing(data + offset, (size_t)end - offset - 4, a->awaiting_len ? a->awaiting[0] : 0);
    offset = (size_t)end;
    if (framing == FRAMING_INTERIM) continue;
    if (framing == FRAMING_UNTIL_CLOSE) {
      a->until_close = 1;
      return;
    }
    body_start(&a->body, framing == FRAMING_CHUNKED, framing == FRAMING_CHUNKED ? 0 : (uint64_t)framing);
    a->in_body = 1;
    if (body_done(&a->body)) answered(a);
  }
}

void answers_received(struct answers *a, const char *data, size_t len) {
  if (a->until_close) return;
  if (a->partial_head.len == 0) {
    answers_process(a, data, len, &a->partial_head);
    return;
  }
  struct buffer joined = a->partial_head;
  a->partial_head = (struct buffer){0};
  buffer_append(&joined, data, len);
  answers_process(a, joined.data, joined.len, &a->partial_head);
  buffer_free(&joined);
}

void answers_free(struct answers *a) {
  free(a->awaiting);
  buffer_free(&a->partial_head);
  memset(a, 0, sizeof *a);
}
