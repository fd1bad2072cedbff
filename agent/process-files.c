// Small file helpers shared by the process modes.
#define _GNU_SOURCE
#include "process-files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

uint64_t now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

int write_all_fd(int fd, const void *data, size_t length) {
  const char *p = data;
  while (length > 0) {
    ssize_t n = write(fd, p, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    length -= (size_t)n;
  }
  return 0;
}

int file_in(char *path, const char *dir, const char *name) {
  int n = snprintf(path, PATH_BYTES, "%s/%s", dir, name);
  return n > 0 && n < PATH_BYTES ? 0 : -1;
}

int write_file_atomic(const char *dir, const char *name, const char *data, size_t length) {
  char path[PATH_BYTES], temporary[PATH_BYTES];
  if (file_in(path, dir, name) < 0 || snprintf(temporary, sizeof temporary, "%s.tmp", path) >= (int)sizeof temporary) return -1;
  int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return -1;
  int failed = write_all_fd(fd, data, length);
  close(fd);
  if (failed || rename(temporary, path) < 0) {
    unlink(temporary);
    return -1;
  }
  return 0;
}

long read_small_file(const char *dir, const char *name, char *into, size_t capacity) {
  char path[PATH_BYTES];
  if (file_in(path, dir, name) < 0) return -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return -1;
  size_t total = 0;
  while (total + 1 < capacity) {
    ssize_t n = read(fd, into + total, capacity - 1 - total);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    total += (size_t)n;
  }
  close(fd);
  into[total] = 0;
  return (long)total;
}

int file_exists(const char *dir, const char *name) {
  char path[PATH_BYTES];
  return file_in(path, dir, name) == 0 && access(path, F_OK) == 0;
}

int supervisor_alive(const char *dir) {
  char path[PATH_BYTES];
  if (file_in(path, dir, "lock") < 0) return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return 0;
  int alive = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
  close(fd);
  return alive;
}
