// Relayed connections, each with its two sockets, the request framing on the way to the sandbox, the
// answers followed on the way back, and the rate-limit tokens of its group (see paddock-relay.c).
#define _GNU_SOURCE
#include "connections.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base64.h"
#include "buffer.h"
#include "channel.h"
#include "framing.h"
#include "sandbox-sockets.h"

enum {
  READ_CHUNK = 65536,
  /** Bytes queued toward one side before reading from the other pauses. */
  HIGH_WATER = 1 << 20,
  /** Request bytes held behind a request waiting for a token, before reading pauses. */
  MAX_PENDING = 1 << 20,
  /** How long the sandbox gets to finish earlier answers after a refused request. */
  DRAIN_GRACE_MS = 30000,
  /** After a 400, how long the client's remaining bytes are read and dropped, so closing does not reset the connection before the client has read the answer. */
  LINGER_MS = 2000,
  /** A connection with no byte either way for this long is closed. */
  IDLE_TIMEOUT_MS = 10 * 60000,
  /** Activity is reported at most this often per group. */
  ACTIVITY_INTERVAL_MS = 1000,
};

struct group {
  long long id;
  long long tokens;
  long long expires_ms;
  int asked;
  int revoked;
  int references;
  uint64_t reported_activity_ms;
  struct group *next;
};

struct conn {
  long long id;
  struct group *group;
  int client, upstream;
  uint32_t client_events, upstream_events;
  int connected, awaiting_tokens, stopping, first_admitted, closed;
  /** A request's body framing was malformed: REJECTING until the answers before it are out, then ANSWERED_400. */
  enum { ACCEPTING, REJECTING, ANSWERED_400 } rejection;
  int client_eof, upstream_eof, end_upstream;
  struct buffer pending, to_upstream, to_client;
  struct body body;
  int in_body;
  struct answers answers;
  char host[256];
  size_t host_len;
  char scheme[8];
  char client_address[64];
  int port_is_protected;
  /** On a protected port, what admitted the first request: every later one must carry it too. */
  struct buffer proof;
  int proof_is_cookie;
  long long proof_until_ms;
  uint64_t last_activity_ms, grace_deadline_ms;
  struct conn *next;
};

static int epoll_fd = -1;
static struct conn *conns;
static struct group *groups;

static uint64_t monotonic_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

static long long epoch_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static struct group *find_group(long long id) {
  for (struct group *g = groups; g; g = g->next)
    if (g->id == id) return g;
  return NULL;
}

static void release_group(struct group *group) {
  if (--group->references > 0) return;
  for (struct group **at = &groups; *at; at = &(*at)->next) {
    if (*at == group) {
      *at = group->next;
      break;
    }
  }
  free(group);
}

static void send_event(const char *type, const char *field, long long value) {
  char json[128];
  snprintf(json, sizeof json, "{\"t\":\"%s\",\"%s\":%lld}", type, field, value);
  channel_send(json);
}

/** Epoll data: the connection, its low bit set for the sandbox side. */
static void watch(struct conn *c, int upstream, uint32_t events) {
  if (upstream && c->upstream < 0) return;
  uint32_t *current = upstream ? &c->upstream_events : &c->client_events;
  if (*current == events) return;
  struct epoll_event event = {.events = events, .data.u64 = (uint64_t)(uintptr_t)c | (uint64_t)upstream};
  epoll_ctl(epoll_fd, EPOLL_CTL_MOD, upstream ? c->upstream : c->client, &event);
  *current = events;
}

static void update_interest(struct conn *c) {
  if (c->closed) return;
  int read_client = c->rejection == ANSWERED_400 || (c->rejection == ACCEPTING && !c->stopping && !c->client_eof && !c->upstream_eof && c->to_upstream.len < HIGH_WATER && !(c->awaiting_tokens && c->pending.len > MAX_PENDING) &&
                    !(!c->connected && c->pending.len > MAX_PENDING));
  watch(c, 0, (read_client ? EPOLLIN : 0) | (c->to_client.len ? EPOLLOUT : 0));
  int read_upstream = c->connected && !c->upstream_eof && c->to_client.len < HIGH_WATER;
  watch(c, 1, (read_upstream ? EPOLLIN : 0) | (!c->connected || c->to_upstream.len ? EPOLLOUT : 0));
}

/** The group's last connection is leaving with tokens nobody will use: Node gives them back to the
 * port's window. Sent before the connection's own last message, while Node still knows the group. */
static void report_unused(struct conn *c) {
  struct group *g = c->group;
  if (g->references != 1 || g->tokens <= 0 || epoch_ms() >= g->expires_ms) return;
  char json[160];
  snprintf(json, sizeof json, "{\"t\":\"unused\",\"group\":%lld,\"tokens\":%lld,\"expires\":%lld}", g->id, g->tokens, g->expires_ms);
  channel_send(json);
  g->tokens = 0;
}

/** Lets go of both sockets: the client one is Node's too, so it stays open there. */
static void release(struct conn *c) {
  if (c->closed) return;
  c->closed = 1;
  epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->client, NULL);
  close(c->client);
  if (c->upstream >= 0) close(c->upstream);
  c->upstream = -1;
  release_group(c->group);
}

/** The connection is over: Node closes its copy of the client socket. */
static void finish(struct conn *c) {
  if (c->closed) return;
  report_unused(c);
  send_event("closed", "id", c->id);
  release(c);
}

static void hand_back(struct conn *c) {
  if (c->closed) return;
  struct buffer json = {0};
  char start[64];
  // first: the admitted request itself was not sent (the server's head parser and this one disagree).
  snprintf(start, sizeof start, "{\"t\":\"back\",\"id\":%lld,\"first\":%d,\"leftover\":\"", c->id, c->first_admitted);
  buffer_append_str(&json, start);
  base64_encode(c->pending.data, c->pending.len, &json);
  buffer_append(&json, "\"}", 3);
  report_unused(c);
  channel_send(json.data);
  buffer_free(&json);
  release(c);
}

/** Writes what `queue` holds to `fd`; 0 when the peer is gone. */
static int flush(int fd, struct buffer *queue) {
  while (queue->len) {
    ssize_t n = send(fd, queue->data, queue->len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 1;
    if (n < 0) return 0;
    buffer_consume(queue, (size_t)n);
  }
  return 1;
}

/** After a refused request: the sandbox finishes what it was sent, then Node answers the rest. */
static void maybe_hand_back(struct conn *c) {
  if (c->stopping && answers_settled(&c->answers) && c->to_client.len == 0) hand_back(c);
}

static void stop(struct conn *c) {
  c->stopping = 1;
  c->awaiting_tokens = 0;
  c->grace_deadline_ms = monotonic_ms() + DRAIN_GRACE_MS;
  maybe_hand_back(c);
  update_interest(c);
}

static void note_activity(struct conn *c) {
  c->last_activity_ms = monotonic_ms();
  if (c->last_activity_ms - c->group->reported_activity_ms < ACTIVITY_INTERVAL_MS) return;
  c->group->reported_activity_ms = c->last_activity_ms;
  send_event("active", "group", c->group->id);
}

/** Once the sandbox has answered the requests before the malformed one, the client gets a 400 for it
 * (what the server's own HTTP parser would answer) and the connection ends. */
static void answer_malformed(struct conn *c) {
  if (c->rejection != REJECTING || c->to_client.len) return;
  // The sandbox answered it itself (its server read enough to refuse it).
  if (answers_settled(&c->answers)) return finish(c);
  if (!answers_waiting_on_last(&c->answers)) return;
  static const char answer[] = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 41\r\nConnection: close\r\n\r\n"
                               "The request's chunked body is malformed.\n";
  send(c->client, answer, sizeof answer - 1, MSG_NOSIGNAL);
  shutdown(c->client, SHUT_WR);
  c->rejection = ANSWERED_400;
  c->grace_deadline_ms = monotonic_ms() + LINGER_MS;
  if (c->upstream >= 0) close(c->upstream);
  c->upstream = -1;
  update_interest(c);
}

/** A request whose body framing is malformed: nothing after it goes to the sandbox (there is no request boundary left). */
static void reject_malformed(struct conn *c) {
  c->rejection = REJECTING;
  c->awaiting_tokens = 0;
  buffer_consume(&c->pending, c->pending.len);
  c->grace_deadline_ms = monotonic_ms() + DRAIN_GRACE_MS;
  if (!flush(c->upstream, &c->to_upstream)) return finish(c);
  answer_malformed(c);
  update_interest(c);
}

enum gate { PASS, REFUSE, WAIT };

/** Whether a later request carries the credential the first one was admitted with, still valid. A
 * connection can carry requests of several users (a proxy in front of Paddock pools them), so a
 * request without it goes back to the server, which asks for the password. */
static int carries_proof(const struct conn *c, const struct request_head *head) {
  if (!c->proof.len) return 1;
  if (c->proof_until_ms && epoch_ms() >= c->proof_until_ms) return 0;
  if (c->proof_is_cookie) return head->cookie && cookie_has_pair(head->cookie, head->cookie_len, c->proof.data, c->proof.len);
  return head->authorization_len == c->proof.len && memcmp(head->authorization, c->proof.data, c->proof.len) == 0;
}

/** Whether a later request on the connection goes to the sandbox now, goes back to Node, or waits for tokens. */
static enum gate gate(struct conn *c, const struct request_head *head) {
  // An HTTP/1.0 request may have no Host (head->host NULL): memcmp is not given a null pointer.
  if (head->host_len != c->host_len || (c->host_len && memcmp(head->host, c->host, c->host_len) != 0)) return REFUSE;
  struct group *g = c->group;
  if (g->revoked || !carries_proof(c, head)) return REFUSE;
  if (g->tokens > 0 && epoch_ms() < g->expires_ms) {
    g->tokens--;
    return PASS;
  }
  g->tokens = 0;
  if (!g->asked) {
    g->asked = 1;
    send_event("need", "group", g->id);
  }
  return WAIT;
}

/** Sends what `pending` holds, request by request, up to a partial head or a request that cannot go yet. */
static void pump(struct conn *c) {
  if (c->stopping || c->rejection || c->closed || !c->connected || c->awaiting_tokens || c->upstream < 0) return;
  struct buffer *p = &c->pending;
  size_t offset = 0;
  struct forward_options options = {.client_address = c->client_address, .scheme = c->scheme, .port_is_protected = c->port_is_protected};
  while (offset < p->len) {
    if (c->in_body) {
      long taken = body_take(&c->body, p->data + offset, p->len - offset);
      if (taken < 0) return reject_malformed(c);
      buffer_append(&c->to_upstream, p->data + offset, (size_t)taken);
      offset += (size_t)taken;
      if (body_done(&c->body)) c->in_body = 0;
      continue;
    }
    long end = head_end(p->data, p->len, offset);
    if (end < 0) {
      if (p->len - offset > MAX_HEAD_BYTES) c->stopping = 1;
      break;
    }
    struct request_head head;
    if (!parse_request_head(p->data + offset, (size_t)end - offset, &head) || head.needs_node) {
      c->stopping = 1;
      break;
    }
    if (c->first_admitted) {
      c->first_admitted = 0;
    } else {
      enum gate decision = gate(c, &head);
      if (decision == REFUSE) c->stopping = 1;
      if (decision == WAIT) c->awaiting_tokens = 1;
      if (decision != PASS) break;
    }
    forwarded_head(p->data + offset, (size_t)end - offset, &head, &options, &c->to_upstream);
    answers_sent(&c->answers, head.is_head_method);
    if (head.chunked || head.length) {
      body_start(&c->body, head.chunked, head.length);
      c->in_body = 1;
    }
    offset = (size_t)end;
  }
  buffer_consume(p, offset);
  if (!flush(c->upstream, &c->to_upstream)) return finish(c);
  if (c->stopping) return stop(c);
  if (c->client_eof && !c->awaiting_tokens) c->end_upstream = 1;
  if (c->end_upstream && c->to_upstream.len == 0) shutdown(c->upstream, SHUT_WR);
  update_interest(c);
}

/** After the 400: the client's bytes are dropped until it closes or the linger time ends. */
static void drain_client(struct conn *c) {
  char data[READ_CHUNK];
  ssize_t n = recv(c->client, data, sizeof data, 0);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) finish(c);
}

static void on_client(struct conn *c, uint32_t events) {
  if (c->rejection == ANSWERED_400) return drain_client(c);
  if (events & EPOLLOUT) {
    if (!flush(c->client, &c->to_client)) return finish(c);
    answer_malformed(c);
    if (c->closed || c->rejection == ANSWERED_400) return;
    if (c->to_client.len == 0 && c->upstream_eof) return finish(c);
    maybe_hand_back(c);
  }
  if (c->closed) return;
  // Hang-up or error while not reading: the client is gone.
  if ((events & (EPOLLHUP | EPOLLERR)) && !(c->client_events & EPOLLIN)) return finish(c);
  if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)) || !(c->client_events & EPOLLIN)) return update_interest(c);
  char data[READ_CHUNK];
  ssize_t n = recv(c->client, data, sizeof data, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n < 0) return finish(c);
  if (n == 0) {
    c->client_eof = 1;
    if (c->connected && !c->awaiting_tokens && !c->stopping) c->end_upstream = 1;
    if (c->end_upstream && c->to_upstream.len == 0) shutdown(c->upstream, SHUT_WR);
    return update_interest(c);
  }
  note_activity(c);
  buffer_append(&c->pending, data, (size_t)n);
  pump(c);
  update_interest(c);
}

static void on_upstream(struct conn *c, uint32_t events) {
  // Closed earlier in this batch of events.
  if (c->upstream < 0) return;
  if (!c->connected) {
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(c->upstream, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error) {
      report_unused(c);
      send_event("unreachable", "id", c->id);
      return release(c);
    }
    c->connected = 1;
    pump(c);
    return update_interest(c);
  }
  if (events & EPOLLOUT) {
    if (!flush(c->upstream, &c->to_upstream)) return finish(c);
    if (c->to_upstream.len == 0) {
      if (c->end_upstream) shutdown(c->upstream, SHUT_WR);
      pump(c);
    }
  }
  if (c->closed) return;
  if ((events & (EPOLLHUP | EPOLLERR)) && !(c->upstream_events & EPOLLIN)) return finish(c);
  if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)) || !(c->upstream_events & EPOLLIN)) return update_interest(c);
  char data[READ_CHUNK];
  ssize_t n = recv(c->upstream, data, sizeof data, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    // The sandbox closed the connection: after its last answer, the client's connection ends too.
    c->upstream_eof = 1;
    answer_malformed(c);
    if (c->closed || c->rejection == ANSWERED_400) return;
    if (c->to_client.len == 0) return finish(c);
    close(c->upstream);
    c->upstream = -1;
    return update_interest(c);
  }
  note_activity(c);
  answers_received(&c->answers, data, (size_t)n);
  if (c->to_client.len == 0) {
    ssize_t sent = send(c->client, data, (size_t)n, MSG_NOSIGNAL);
    if (sent < 0 && errno != EAGAIN && errno != EINTR) return finish(c);
    if (sent < 0) sent = 0;
    buffer_append(&c->to_client, data + sent, (size_t)(n - sent));
  } else {
    buffer_append(&c->to_client, data, (size_t)n);
  }
  maybe_hand_back(c);
  answer_malformed(c);
  update_interest(c);
}

void connection_open(const char *json, size_t len, int client) {
  long long id = 0, group_id = 0, port = 0, is_protected = 0;
  char ip[64], netns[256], proof_kind[8] = "";
  struct conn *c = calloc(1, sizeof *c);
  const char *initial = NULL, *proof = "";
  long initial_len = json_raw_string(json, len, "initial", &initial);
  long proof_len = json_raw_string(json, len, "proof", &proof);
  if (!c || client < 0 || !json_int(json, len, "id", &id) || !json_int(json, len, "group", &group_id) || !json_int(json, len, "port", &port) ||
      json_string(json, len, "ip", ip, sizeof ip) < 0 || json_string(json, len, "netns", netns, sizeof netns) < 0 ||
      json_string(json, len, "scheme", c->scheme, sizeof c->scheme) < 0 || json_string(json, len, "client", c->client_address, sizeof c->client_address) < 0 ||
      json_string(json, len, "host", c->host, sizeof c->host) < 0 || initial_len < 0 || !base64_decode(initial, (size_t)initial_len, &c->pending) ||
      (proof_len > 0 && (json_string(json, len, "proof_kind", proof_kind, sizeof proof_kind) < 0 || !base64_decode(proof, (size_t)proof_len, &c->proof)))) {
    fprintf(stderr, "paddock-relay: malformed conn message\n");
    if (client >= 0) close(client);
    if (json_int(json, len, "id", &id)) send_event("closed", "id", id);
    if (c) {
      buffer_free(&c->pending);
      buffer_free(&c->proof);
    }
    free(c);
    return;
  }
  json_int(json, len, "protected", &is_protected);
  json_int(json, len, "until", &c->proof_until_ms);
  c->proof_is_cookie = strcmp(proof_kind, "cookie") == 0;
  c->id = id;
  c->client = client;
  c->host_len = strlen(c->host);
  c->port_is_protected = is_protected != 0;
  c->first_admitted = 1;
  c->last_activity_ms = monotonic_ms();
  struct group *g = find_group(group_id);
  if (!g) {
    g = calloc(1, sizeof *g);
    if (!g) abort();
    g->id = group_id;
    g->next = groups;
    groups = g;
  }
  g->references++;
  c->group = g;
  c->next = conns;
  conns = c;

  int one = 1;
  fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK);
  setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  c->upstream = sandbox_socket(netns);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (c->upstream < 0 || inet_pton(AF_INET, ip, &address.sin_addr) != 1 ||
      (connect(c->upstream, (struct sockaddr *)&address, sizeof address) < 0 && errno != EINPROGRESS)) {
    c->closed = 1;
    close(client);
    if (c->upstream >= 0) close(c->upstream);
    report_unused(c);
    release_group(g);
    send_event("unreachable", "id", c->id);
    return;
  }
  setsockopt(c->upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct epoll_event event = {.events = 0, .data.u64 = (uint64_t)(uintptr_t)c};
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, client, &event);
  event.data.u64 |= 1;
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->upstream, &event);
  update_interest(c);
}

void group_grant(long long group_id, long long tokens, long long expires) {
  struct group *g = find_group(group_id);
  if (!g) return;
  g->asked = 0;
  g->tokens = tokens;
  g->expires_ms = expires;
  for (struct conn *c = conns; c; c = c->next) {
    if (c->closed || c->group != g || !c->awaiting_tokens) continue;
    if (tokens <= 0) {
      // Refused (the limit, or the port changed): Node answers the request.
      stop(c);
      continue;
    }
    c->awaiting_tokens = 0;
    pump(c);
    update_interest(c);
  }
}

void group_revoke(long long group_id) {
  struct group *g = find_group(group_id);
  if (!g) return;
  g->revoked = 1;
  g->tokens = 0;
  for (struct conn *c = conns; c; c = c->next)
    if (!c->closed && c->group == g && c->awaiting_tokens) stop(c);
}

void connections_sweep(int released) {
  static uint64_t last_timers;
  uint64_t now = monotonic_ms();
  int check_timers = now - last_timers >= 1000;
  if (!released && !check_timers) return;
  if (check_timers) last_timers = now;
  for (struct conn **at = &conns; *at;) {
    struct conn *c = *at;
    if (check_timers && !c->closed && (now - c->last_activity_ms > IDLE_TIMEOUT_MS || ((c->stopping || c->rejection) && now > c->grace_deadline_ms))) finish(c);
    if (!c->closed) {
      at = &c->next;
      continue;
    }
    *at = c->next;
    buffer_free(&c->pending);
    buffer_free(&c->to_upstream);
    buffer_free(&c->to_client);
    buffer_free(&c->proof);
    answers_free(&c->answers);
    free(c);
  }
}


void connections_init(int epoll) { epoll_fd = epoll; }

int connection_event(uint64_t data, uint32_t events) {
  struct conn *c = (struct conn *)(uintptr_t)(data & ~(uint64_t)1);
  if (c->closed) return 0;
  if (data & 1) on_upstream(c, events);
  else on_client(c, events);
  return c->closed;
}
