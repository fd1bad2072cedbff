// paddock-relay: carries admitted preview connections between clients and sandboxes, so the bytes of
// every request after the first cross one small process instead of the Node server's event loop.
//
// The Node server admits a connection's first request (host, password, rate limit), then passes the
// client socket here (keeping its own copy) with the bytes it has read. The relay connects to the
// sandbox from inside the sandbox's network namespace (a socket its unprivileged self gets from a
// helper, sandbox-sockets.c) and from then on reads each request head: a
// request for the same preview host, with a rate-limit token (and on a protected port the credential
// that admitted the first), goes to the sandbox with X-Forwarded-* and without Paddock credentials;
// answers are copied back byte for byte and followed (framing.c), so anything else (another host, an
// upgrade, a refused or odd request, a revoked port) waits until the sandbox has answered everything
// before it and the connection goes back to Node, which answers it. A body whose chunk framing breaks
// leaves no request boundary to hand back at: that request gets a 400 here and the connection ends.
//
// Messages (channel.c), Node → relay:
//   conn    {id, group, host, ip, port, netns, scheme, protected, client, initial, [proof, proof_kind, until]}
//           with the client socket; proof (base64): the preview cookie pair or Authorization value that
//           admitted the first request, which every later one must carry (until epoch ms, 0: no end)
//   grant   {group, tokens, expires}   requests the group may send until `expires` (epoch ms); 0: refused
//   revoke  {group}                    the port changed (password, stopped): send no further request
// relay → Node:
//   need {group}   back {id, first, leftover}   closed {id}   unreachable {id}   active {group}
//   unused {group, tokens, expires}   (the group's last connection is going: tokens to give back)
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "channel.h"
#include "connections.h"
#include "privileges.h"
#include "sandbox-sockets.h"

static void on_message(const char *json, size_t len, int fd) {
  char type[16];
  long long group_id = 0, tokens = 0, expires = 0;
  if (json_string(json, len, "t", type, sizeof type) < 0) {
    if (fd >= 0) close(fd);
    return;
  }
  if (strcmp(type, "conn") == 0) return connection_open(json, len, fd);
  if (fd >= 0) close(fd);
  json_int(json, len, "group", &group_id);
  if (strcmp(type, "grant") == 0 && json_int(json, len, "tokens", &tokens) && json_int(json, len, "expires", &expires)) group_grant(group_id, tokens, expires);
  else if (strcmp(type, "revoke") == 0) group_revoke(group_id);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  int channel = channel_open();
  if (channel < 0) {
    fprintf(stderr, "paddock-relay: start it from the Paddock server (no NODE_CHANNEL_FD)\n");
    return 2;
  }
  // A batch task keeps its fair share but does not preempt the task that woke it: the client or the
  // sandbox's server that just wrote goes on writing, and the relay wakes to more events at once
  // (measured: 0.72-0.75x direct throughput against 0.685x as a normal task, docs/decisions.md).
  struct sched_param no_priority = {0};
  sched_setscheduler(0, SCHED_BATCH, &no_priority);
  int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  // Everything that needs privileges is set up: from here on the relay is nobody, with no capability
  // and a seccomp filter; only the helper forked here keeps CAP_SYS_ADMIN (privileges.h).
  if (epoll_fd < 0 || sandbox_sockets_start() < 0 || drop_relay_privileges() < 0) {
    perror("paddock-relay: cannot start confined");
    return 1;
  }
  connections_init(epoll_fd);
  struct epoll_event event = {.events = EPOLLIN, .data.u64 = 0};
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, channel, &event);
  struct epoll_event events[64];
  for (;;) {
    int n = epoll_wait(epoll_fd, events, 64, 1000);
    if (n < 0 && errno != EINTR) return 1;
    int released = 0;
    for (int i = 0; i < n; i++) {
      uint64_t data = events[i].data.u64;
      if (data == 0) {
        if (!channel_read(on_message)) return 0;
        continue;
      }
      released |= connection_event(data, events[i].events);
    }
    connections_sweep(released);
  }
}
