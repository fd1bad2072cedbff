// The supervisor of one background process: runs the command in its own session with pipes for stdin,
// stdout and stderr, appends its output to the ring, relays stdin records from the FIFO, and writes the
// status once the command exited. It is nobody's child but init's (process-start double-forks it), so it
// outlives the exec that started it and the host's connection.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process-files.h"
#include "ring.h"

// Stdin not yet taken by the command: the supervisor stops reading the FIFO beyond this, so writers wait.
enum { STDIN_PENDING_MAX = 1 << 20 };

static int child_signal[2] = {-1, -1};

static void on_child(int signal_number) {
  (void)signal_number;
  int saved = errno;
  if (write(child_signal[1], "c", 1) < 0) {}
  errno = saved;
}

static void write_status(const char *dir, int status, int lost) {
  char text[96];
  int code = lost ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  int signal_number = !lost && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  int length = snprintf(text, sizeof text, "%d %d %llu\n", code, signal_number, (unsigned long long)now_ms());
  write_file_atomic(dir, "status", text, (size_t)length);
}

static pid_t spawn_command(const char *command, int in, int out, int err) {
  extern char **environ;
  char *argv[] = {"sh", "-c", (char *)command, NULL};
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  sigset_t no_signals, default_signals;
  sigemptyset(&no_signals);
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  sigaddset(&default_signals, SIGCHLD);
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  pid_t child = -1;
  int failed = posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  return failed ? -1 : child;
}

/** Takes whole stdin records out of `buffer`, appending their data to `pending`; sets *ended on 'E'. */
static size_t take_stdin_records(char *buffer, size_t length, char **pending, size_t *pending_length, int *ended) {
  size_t used = 0;
  while (length - used >= STDIN_RECORD_HEADER) {
    unsigned char *record = (unsigned char *)buffer + used;
    uint32_t size = (uint32_t)record[1] << 24 | (uint32_t)record[2] << 16 | (uint32_t)record[3] << 8 | record[4];
    if (size > STDIN_RECORD_MAX) return length;  // not ours: drop what was read
    if (length - used < STDIN_RECORD_HEADER + size) break;
    if (record[0] == 'E') *ended = 1;
    if (record[0] == 'D' && size > 0 && !*ended) {
      char *grown = realloc(*pending, *pending_length + size);
      if (grown) {
        memcpy(grown + *pending_length, record + STDIN_RECORD_HEADER, size);
        *pending = grown;
        *pending_length += size;
      }
    }
    used += STDIN_RECORD_HEADER + size;
  }
  return used;
}

void supervise(const char *dir, const char *cwd, const char *command, int ready) {
  char path[PATH_BYTES];
  int lock = file_in(path, dir, "lock") == 0 ? open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644) : -1;
  if (lock < 0 || flock(lock, LOCK_EX) < 0) _exit(EXIT_FAILED);
  int ring = file_in(path, dir, "output") == 0 ? ring_create(path) : -1;
  int fifo = file_in(path, dir, "stdin") == 0 && mkfifo(path, 0600) == 0 ? open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) : -1;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (ring < 0 || fifo < 0 || pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 || pipe2(child_signal, O_CLOEXEC | O_NONBLOCK) < 0) {
    write_status(dir, 127 << 8, 0);
    if (write(ready, "0", 1) < 0) {}
    _exit(EXIT_FAILED);
  }
  struct sigaction action = {.sa_handler = on_child, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
  sigemptyset(&action.sa_mask);
  sigaction(SIGCHLD, &action, NULL);
  signal(SIGPIPE, SIG_IGN);
  pid_t child = chdir(cwd) == 0 ? spawn_command(command, in[0], out[1], err[1]) : -1;
  close(in[0]);
  close(out[1]);
  close(err[1]);
  char pid_text[32];
  int pid_length = snprintf(pid_text, sizeof pid_text, "%d", child > 0 ? child : 0);
  write_file_atomic(dir, "pid", pid_text, (size_t)pid_length);
  if (write(ready, pid_text, (size_t)pid_length) < 0) {}
  close(ready);
  if (child <= 0) {
    write_status(dir, 127 << 8, 0);
    _exit(EXIT_FAILED);
  }

  struct ring_header header;
  if (ring_read_header(ring, &header) < 0) _exit(EXIT_FAILED);
  int stdin_fd = in[1], streams[2] = {out[0], err[0]}, exited = 0, status = 0, stdin_ended = 0;
  fcntl(stdin_fd, F_SETFL, O_NONBLOCK);
  char *pending = NULL;
  size_t pending_length = 0, pending_offset = 0, fifo_length = 0;
  static char buffer[RECORD_MAX_DATA], fifo_buffer[2 * (STDIN_RECORD_MAX + STDIN_RECORD_HEADER)];

  while (!exited || streams[0] >= 0 || streams[1] >= 0) {
    struct pollfd fds[5];
    int n = 0, i_stream[2] = {-1, -1}, i_fifo = -1, i_in = -1;
    fds[n++] = (struct pollfd){child_signal[0], POLLIN, 0};
    for (int s = 0; s < 2; s++) {
      if (streams[s] >= 0) fds[i_stream[s] = n++] = (struct pollfd){streams[s], POLLIN, 0};
    }
    if (stdin_fd >= 0 && pending_length - pending_offset < STDIN_PENDING_MAX) fds[i_fifo = n++] = (struct pollfd){fifo, POLLIN, 0};
    if (stdin_fd >= 0 && pending_offset < pending_length) fds[i_in = n++] = (struct pollfd){stdin_fd, POLLOUT, 0};
    // Once the command exited, what its pipes still hold is read without waiting: a background child of
    // the command may keep them open forever.
    int ready_count = poll(fds, (nfds_t)n, exited ? 0 : -1);
    if (ready_count < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      char bytes[64];
      while (read(child_signal[0], bytes, sizeof bytes) > 0) {}
    }
    if (!exited && waitpid(child, &status, WNOHANG) == child) {
      exited = 1;
      for (int s = 0; s < 2; s++) {
        if (streams[s] >= 0) fcntl(streams[s], F_SETFL, O_NONBLOCK);
      }
    }
    if (ready_count == 0 && exited) break;
    for (int s = 0; s < 2; s++) {
      if (i_stream[s] < 0 || !(fds[i_stream[s]].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(streams[s], buffer, sizeof buffer);
      if (got > 0) {
        ring_append(ring, &header, s + 1, buffer, (uint32_t)got);
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(streams[s]);
        streams[s] = -1;
      }
    }
    if (i_fifo >= 0 && (fds[i_fifo].revents & POLLIN)) {
      ssize_t got = read(fifo, fifo_buffer + fifo_length, sizeof fifo_buffer - fifo_length);
      if (got > 0) {
        fifo_length += (size_t)got;
        if (pending_offset > 0) {
          memmove(pending, pending + pending_offset, pending_length - pending_offset);
          pending_length -= pending_offset;
          pending_offset = 0;
        }
        size_t used = take_stdin_records(fifo_buffer, fifo_length, &pending, &pending_length, &stdin_ended);
        memmove(fifo_buffer, fifo_buffer + used, fifo_length - used);
        fifo_length -= used;
      }
    }
    if (i_in >= 0 && (fds[i_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t wrote = write(stdin_fd, pending + pending_offset, pending_length - pending_offset);
      if (wrote > 0) pending_offset += (size_t)wrote;
      else if (errno != EAGAIN && errno != EINTR) pending_offset = pending_length;
    }
    if (stdin_fd >= 0 && stdin_ended && pending_offset >= pending_length) {
      close(stdin_fd);
      stdin_fd = -1;
    }
  }
  if (!exited) waitpid(child, &status, 0);
  write_status(dir, status, 0);
  _exit(EXIT_OK);
}
