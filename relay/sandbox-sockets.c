#define _GNU_SOURCE
#include "sandbox-sockets.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "privileges.h"

enum { HELPER_FD = 3, MAX_PATH = 256 };
static const char NETNS_DIR[] = "/run/netns/";

static int helper = -1;

/** Only a named namespace under /run/netns: a confused or compromised relay gets no socket anywhere else. */
static int is_netns_path(const char *path, size_t len) {
  size_t prefix = sizeof NETNS_DIR - 1;
  if (len <= prefix || len >= MAX_PATH || memcmp(path, NETNS_DIR, prefix) != 0) return 0;
  for (size_t i = prefix; i < len; i++)
    if (path[i] == '/' || path[i] == 0) return 0;
  return !(len == prefix + 1 && path[prefix] == '.') && !(len == prefix + 2 && path[prefix] == '.' && path[prefix + 1] == '.');
}

/** Answers `error` (0: the socket `fd` rides along). */
static void answer(int fd, int error) {
  char control[CMSG_SPACE(sizeof(int))];
  memset(control, 0, sizeof control);
  struct iovec iov = {.iov_base = &error, .iov_len = sizeof error};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
  if (fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  if (sendmsg(HELPER_FD, &msg, MSG_NOSIGNAL) < 0) _exit(0);
}

static void serve(void) {
  for (;;) {
    char path[MAX_PATH];
    ssize_t n = recv(HELPER_FD, path, sizeof path - 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(0);
    path[n] = 0;
    if (!is_netns_path(path, (size_t)n)) {
      answer(-1, EINVAL);
      continue;
    }
    int ns = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (ns < 0) {
      answer(-1, errno);
      continue;
    }
    int joined = setns(ns, CLONE_NEWNET);
    int error = joined < 0 ? errno : 0;
    close(ns);
    int fd = joined < 0 ? -1 : socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (joined == 0 && fd < 0) error = errno;
    answer(fd, error);
    if (fd >= 0) close(fd);
  }
}

int sandbox_sockets_start(void) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) return -1;
  pid_t relay = getpid();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    // Nothing of the relay's but stderr: not Node's channel, not the relay's end of the pair.
    if (dup2(pair[1], HELPER_FD) < 0 || close_range(HELPER_FD + 1, ~0U, 0) < 0) _exit(1);
    if (drop_helper_privileges(relay) < 0) {
      perror("paddock-relay: the namespace helper cannot drop its privileges");
      _exit(1);
    }
    serve();
  }
  close(pair[1]);
  helper = pair[0];
  return 0;
}

int sandbox_socket(const char *netns) {
  if (!*netns) return socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  size_t len = strlen(netns);
  // No perror past the privilege drop: translating errno may open locale files, which seccomp forbids.
  if (send(helper, netns, len, MSG_NOSIGNAL) < 0) {
    fprintf(stderr, "paddock-relay: the namespace helper is gone\n");
    exit(1);
  }
  int error = 0, fd = -1;
  char control[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &error, .iov_len = sizeof error};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  ssize_t n;
  while ((n = recvmsg(helper, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
  if (n != sizeof error) {
    fprintf(stderr, "paddock-relay: the namespace helper is gone\n");
    exit(1);
  }
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int))) memcpy(&fd, CMSG_DATA(c), sizeof(int));
  if (fd >= 0 && error) {
    close(fd);
    fd = -1;
  }
  return fd;
}
