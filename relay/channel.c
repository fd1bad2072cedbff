#define _GNU_SOURCE
#include "channel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buffer.h"

enum { MAX_QUEUED_FDS = 256, MAX_FDS_PER_READ = 16 };

static int channel_fd = -1;
static struct buffer incoming;
/** Sockets received and not yet claimed by their NODE_HANDLE message, oldest first. */
static int queued_fds[MAX_QUEUED_FDS];
static int queued = 0;

int channel_open(void) {
  const char *fd = getenv("NODE_CHANNEL_FD");
  channel_fd = fd ? atoi(fd) : -1;
  return channel_fd;
}

void channel_send(const char *json) {
  size_t len = strlen(json);
  char *line = malloc(len + 1);
  if (!line) abort();
  memcpy(line, json, len);
  line[len] = '\n';
  size_t sent = 0;
  while (sent < len + 1) {
    ssize_t n = send(channel_fd, line + sent, len + 1 - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      // The channel is non-blocking (Node made it so); Node reads it on its next turn.
      usleep(100);
      continue;
    }
    if (n < 0) break;
    sent += (size_t)n;
  }
  free(line);
}

/** Just past `"key":` where it names a field of the outermost object of `json`, never inside a string
 * value or a nested object (a string holding `\"port\":22` must not be read as the port). */
static const char *find_key(const char *json, size_t len, const char *key) {
  size_t key_len = strlen(key);
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    char c = json[i];
    if (c == '{' || c == '[') depth++;
    else if (c == '}' || c == ']') depth--;
    if (c != '"') continue;
    if (depth == 1 && len - i >= key_len + 3 && memcmp(json + i + 1, key, key_len) == 0 && json[i + 1 + key_len] == '"' && json[i + 2 + key_len] == ':')
      return json + i + key_len + 3;
    // Past the string, escapes included.
    for (i++; i < len && json[i] != '"'; i++)
      if (json[i] == '\\') i++;
  }
  return NULL;
}

long json_string(const char *json, size_t len, const char *key, char *out, size_t out_size) {
  const char *value = find_key(json, len, key);
  if (!value || value >= json + len || *value != '"') return -1;
  value++;
  const char *end = memchr(value, '"', len - (size_t)(value - json));
  if (!end || memchr(value, '\\', (size_t)(end - value)) || (size_t)(end - value) >= out_size) return -1;
  memcpy(out, value, (size_t)(end - value));
  out[end - value] = 0;
  return end - value;
}

long json_raw_string(const char *json, size_t len, const char *key, const char **value) {
  const char *at = find_key(json, len, key);
  if (!at || at >= json + len || *at != '"') return -1;
  at++;
  const char *end = memchr(at, '"', len - (size_t)(at - json));
  if (!end || memchr(at, '\\', (size_t)(end - at))) return -1;
  *value = at;
  return end - at;
}

int json_int(const char *json, size_t len, const char *key, long long *value) {
  const char *at = find_key(json, len, key), *end = json + len;
  if (!at) return 0;
  // Within the message (strtoll would read on past it), at most 18 digits (no overflow).
  int negative = at < end && *at == '-';
  if (negative) at++;
  long long parsed = 0;
  int digits = 0;
  for (; at < end && *at >= '0' && *at <= '9'; at++) {
    if (++digits > 18) return 0;
    parsed = parsed * 10 + (*at - '0');
  }
  if (!digits) return 0;
  *value = negative ? -parsed : parsed;
  return 1;
}

/** Node's own messages: the acknowledgement a passed socket needs, and a closing server's questions. */
static int answer_internal(const char *json, size_t len) {
  if (!memmem(json, len, "\"cmd\":\"NODE_", 12)) return 0;
  char key[256], reply[400];
  long key_len = json_string(json, len, "key", key, sizeof key);
  if (memmem(json, len, "\"NODE_SOCKET_NOTIFY_CLOSE\"", 26) && key_len >= 0) {
    snprintf(reply, sizeof reply, "{\"cmd\":\"NODE_SOCKET_ALL_CLOSED\",\"key\":\"%s\"}", key);
    channel_send(reply);
  } else if (memmem(json, len, "\"NODE_SOCKET_GET_COUNT\"", 23) && key_len >= 0) {
    snprintf(reply, sizeof reply, "{\"cmd\":\"NODE_SOCKET_COUNT\",\"key\":\"%s\",\"count\":0}", key);
    channel_send(reply);
  }
  return 1;
}

static void dispatch(const char *json, size_t len, message_handler handler) {
  if (memmem(json, len, "\"cmd\":\"NODE_HANDLE\"", 19)) {
    int fd = -1;
    if (queued) {
      fd = queued_fds[0];
      memmove(queued_fds, queued_fds + 1, (size_t)--queued * sizeof(int));
    }
    channel_send("{\"cmd\":\"NODE_HANDLE_ACK\"}");
    const char *msg = find_key(json, len, "msg");
    handler(msg ? msg : json, msg ? len - (size_t)(msg - json) : len, fd);
    return;
  }
  if (answer_internal(json, len)) return;
  handler(json, len, -1);
}

int channel_read(message_handler handler) {
  for (;;) {
    char data[65536];
    char control[CMSG_SPACE(sizeof(int) * MAX_FDS_PER_READ)];
    struct iovec iov = {.iov_base = data, .iov_len = sizeof data};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t n = recvmsg(channel_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 1;
    if (n <= 0) return 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      int fds[MAX_FDS_PER_READ];
      memcpy(fds, CMSG_DATA(c), count * sizeof(int));
      for (size_t i = 0; i < count; i++) {
        if (queued < MAX_QUEUED_FDS) queued_fds[queued++] = fds[i];
        else close(fds[i]);
      }
    }
    buffer_append(&incoming, data, (size_t)n);
    size_t start = 0;
    for (;;) {
      char *newline = memchr(incoming.data + start, '\n', incoming.len - start);
      if (!newline) break;
      dispatch(incoming.data + start, (size_t)(newline - incoming.data) - start, handler);
      start = (size_t)(newline - incoming.data) + 1;
    }
    buffer_consume(&incoming, start);
  }
}
