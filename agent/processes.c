// Background processes: modes of the agent binary that the host runs as ordinary exec requests
// (argv = [agent, mode, …]), so the host↔agent protocol stays as it is. A process lives in its own
// directory on the sandbox's disk (process-files.h) under a supervisor that is nobody's child but init's:
// it survives the exec that started it, the host's connection, and a restart of the server.
//   process-start ROOT ID CWD TAG COMMAND   prints the command's pid and started_at (ms) once it runs
//   process-tail DIR OFFSET follow|once     output records (process-tail.c)
//   process-stdin DIR more|eof              relays its own stdin to the process's stdin
//   process-signal DIR SIGNAL               signals the process's group
//   process-list ROOT [ID]                  each process's fields (key NUL value NUL …, NUL)
#define _GNU_SOURCE
#include "processes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process-files.h"
#include "ring.h"

enum { MAX_RUNNING = 64, MAX_KEPT = 256, MAX_LISTED = 512, META_MAX = 80 * 1024 };

static int valid_id(const char *id) {
  size_t length = strlen(id);
  if (length == 0 || length > 64 || id[0] == '.') return 0;
  for (size_t i = 0; i < length; i++) {
    char c = id[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return 0;
  }
  return 1;
}

static int running(const char *dir) {
  if (file_exists(dir, "status")) return 0;
  return !file_exists(dir, "pid") || supervisor_alive(dir);
}

static const char *const PROCESS_FILES[] = {"meta", "output", "stdin", "pid", "lock", "status", "stdin-closed", "status.tmp", "pid.tmp"};

static void remove_process(const char *dir) {
  char path[PATH_BYTES];
  for (size_t i = 0; i < sizeof PROCESS_FILES / sizeof *PROCESS_FILES; i++) {
    if (file_in(path, dir, PROCESS_FILES[i]) == 0) unlink(path);
  }
  rmdir(dir);
}

struct entry {
  char name[72];
  long long started;
};

static int oldest_first(const void *a, const void *b) {
  long long x = ((const struct entry *)a)->started, y = ((const struct entry *)b)->started;
  return x < y ? -1 : x > y;
}

/** Counts running processes and removes the oldest exited ones beyond MAX_KEPT - 1; -1 at the running limit. */
static int make_room(const char *root) {
  static struct entry exited[MAX_LISTED];
  int exited_count = 0, running_count = 0, total = 0;
  DIR *listing = opendir(root);
  if (!listing) return 0;
  struct dirent *item;
  char dir[PATH_BYTES];
  while ((item = readdir(listing))) {
    if (!valid_id(item->d_name) || file_in(dir, root, item->d_name) < 0) continue;
    struct stat info;
    if (lstat(dir, &info) < 0 || !S_ISDIR(info.st_mode)) continue;
    total++;
    if (running(dir)) running_count++;
    else if (exited_count < MAX_LISTED) {
      memcpy(exited[exited_count].name, item->d_name, strnlen(item->d_name, 64) + 1);  // valid_id: at most 64
      exited[exited_count++].started = (long long)info.st_mtim.tv_sec;
    }
  }
  closedir(listing);
  if (running_count >= MAX_RUNNING) return -1;
  qsort(exited, (size_t)exited_count, sizeof *exited, oldest_first);
  for (int i = 0; i < exited_count && total >= MAX_KEPT; i++, total--) {
    if (file_in(dir, root, exited[i].name) == 0) remove_process(dir);
  }
  return 0;
}

static int process_start(const char *root, const char *id, const char *cwd, const char *tag, const char *command) {
  char dir[PATH_BYTES], path[PATH_BYTES];
  if (!valid_id(id) || file_in(dir, root, id) < 0) return EXIT_USAGE;
  struct stat info;
  if (stat(cwd, &info) < 0 || !S_ISDIR(info.st_mode)) {
    fprintf(stderr, "cwd %s is not a directory in the sandbox\n", cwd);
    return EXIT_BAD_CWD;
  }
  mkdir("/var/lib/paddock", 0755);
  mkdir(root, 0755);
  int root_lock = file_in(path, root, ".lock") == 0 ? open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644) : -1;
  if (root_lock < 0 || flock(root_lock, LOCK_EX) < 0) return EXIT_FAILED;
  if (make_room(root) < 0) return EXIT_LIMIT;
  if (mkdir(dir, 0755) < 0) return errno == EEXIST ? EXIT_EXISTS : EXIT_FAILED;
  char started[32];
  snprintf(started, sizeof started, "%llu", (unsigned long long)now_ms());
  const char *fields[] = {"id", id, "command", command, "tag", tag, "cwd", cwd, "started_at", started};
  size_t length = 0;
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) length += strlen(fields[i]) + 1;
  char *meta = malloc(length);
  if (!meta) return EXIT_FAILED;
  char *at = meta;
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) at = stpcpy(at, fields[i]) + 1;
  int written = write_file_atomic(dir, "meta", meta, length);
  free(meta);
  if (written < 0) return EXIT_FAILED;

  int ready[2];
  if (pipe2(ready, O_CLOEXEC) < 0) return EXIT_FAILED;
  pid_t middle = fork();
  if (middle < 0) return EXIT_FAILED;
  if (middle == 0) {
    // The middle child leaves at once, so the supervisor is re-parented to init and leaves the exec's tree.
    close(ready[0]);
    close(root_lock);  // a lock shared with the supervisor would stay held as long as it lives
    setsid();
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3 && null >= 0; fd++) dup2(null, fd);
    // The supervisor keeps nothing of the exec's but the readiness pipe (as fd 3).
    if (dup2(ready[1], 3) < 0) _exit(EXIT_FAILED);
    if (syscall(SYS_close_range, 4U, ~0U, 0U) < 0) {
      for (int fd = 4; fd < 1024; fd++) close(fd);
    }
    if (fork() == 0) supervise(dir, cwd, command, 3);
    _exit(0);
  }
  close(ready[1]);
  close(root_lock);
  waitpid(middle, NULL, 0);
  char pid_text[32] = {0};
  ssize_t got = read(ready[0], pid_text, sizeof pid_text - 1);
  close(ready[0]);
  if (got <= 0 || atoi(pid_text) <= 0) return EXIT_FAILED;
  printf("%s %s\n", pid_text, started);
  return EXIT_OK;
}

static int process_stdin(const char *dir, int eof) {
  char path[PATH_BYTES];
  if (access(dir, F_OK) < 0) return EXIT_NOT_FOUND;
  if (file_exists(dir, "status")) return EXIT_NOT_RUNNING;
  if (file_exists(dir, "stdin-closed")) return EXIT_STDIN_CLOSED;
  int fifo = file_in(path, dir, "stdin") == 0 ? open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW) : -1;
  if (fifo < 0) return errno == ENXIO || errno == ENOENT ? EXIT_NOT_RUNNING : EXIT_FAILED;
  struct stat info;
  if (fstat(fifo, &info) < 0 || !S_ISFIFO(info.st_mode)) return EXIT_FAILED;
  fcntl(fifo, F_SETFL, 0);
  signal(SIGPIPE, SIG_IGN);
  // Records of at most PIPE_BUF bytes: each write is atomic, so concurrent senders never interleave inside one.
  static char record[STDIN_RECORD_MAX];
  const size_t room = STDIN_RECORD_MAX - STDIN_RECORD_HEADER;
  for (;;) {
    ssize_t got = read(0, record + STDIN_RECORD_HEADER, room);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    record[0] = 'D';
    for (int i = 0; i < 4; i++) record[1 + i] = (char)((uint32_t)got >> (24 - 8 * i));
    if (write_all_fd(fifo, record, STDIN_RECORD_HEADER + (size_t)got) < 0) return EXIT_NOT_RUNNING;
  }
  if (eof) {
    int marker = file_in(path, dir, "stdin-closed") == 0 ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : -1;
    if (marker < 0) return errno == EEXIST ? EXIT_STDIN_CLOSED : EXIT_FAILED;
    close(marker);
    char end[STDIN_RECORD_HEADER] = {'E', 0, 0, 0, 0};
    if (write_all_fd(fifo, end, sizeof end) < 0) return EXIT_NOT_RUNNING;
  }
  return EXIT_OK;
}

static int process_signal(const char *dir, const char *signal_text) {
  char pid_text[32];
  int signal_number = atoi(signal_text);
  if (access(dir, F_OK) < 0) return EXIT_NOT_FOUND;
  if (signal_number <= 0 || signal_number >= 32) return EXIT_USAGE;
  if (!running(dir) || read_small_file(dir, "pid", pid_text, sizeof pid_text) <= 0) return EXIT_NOT_RUNNING;
  pid_t pid = (pid_t)atoi(pid_text);
  if (pid <= 1) return EXIT_NOT_RUNNING;
  if (kill(-pid, signal_number) < 0 && kill(pid, signal_number) < 0) return EXIT_NOT_RUNNING;
  return EXIT_OK;
}

static void print_field(const char *key, const char *value) {
  fwrite(key, 1, strlen(key) + 1, stdout);
  fwrite(value, 1, strlen(value) + 1, stdout);
}

static void list_one(const char *dir) {
  static char meta[META_MAX];
  char text[128];
  long length = read_small_file(dir, "meta", meta, sizeof meta);
  if (length <= 0) return;
  fwrite(meta, 1, (size_t)length, stdout);
  if (read_small_file(dir, "pid", text, sizeof text) > 0) print_field("os_pid", text);
  if (read_small_file(dir, "status", text, sizeof text) > 0) {
    text[strcspn(text, "\n")] = 0;
    print_field("status", text);
  } else if (!running(dir)) {
    print_field("status", "-1 0 0");
  }
  char path[PATH_BYTES];
  struct ring_header header;
  int ring = file_in(path, dir, "output") == 0 ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
  if (ring >= 0 && ring_read_header(ring, &header) == 0) {
    snprintf(text, sizeof text, "%llu", (unsigned long long)header.output_end);
    print_field("output_bytes", text);
  }
  if (ring >= 0) close(ring);
  if (file_exists(dir, "stdin-closed")) print_field("stdin_closed", "1");
  fputc(0, stdout);
}

static int process_list(const char *root, const char *id) {
  char dir[PATH_BYTES];
  if (id) {
    if (!valid_id(id) || file_in(dir, root, id) < 0 || access(dir, F_OK) < 0) return EXIT_NOT_FOUND;
    list_one(dir);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
  }
  DIR *listing = opendir(root);
  if (!listing) return EXIT_OK;
  struct dirent *item;
  int listed = 0;
  while ((item = readdir(listing)) && listed < MAX_LISTED) {
    if (!valid_id(item->d_name) || file_in(dir, root, item->d_name) < 0) continue;
    list_one(dir);
    listed++;
  }
  closedir(listing);
  return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

int process_main(int argc, char **argv) {
  const char *mode = argv[1];
  if (strcmp(mode, "process-start") == 0 && argc == 7) return process_start(argv[2], argv[3], argv[4], argv[5], argv[6]);
  if (strcmp(mode, "process-tail") == 0 && argc == 5) return process_tail(argv[2], strtoull(argv[3], NULL, 10), strcmp(argv[4], "follow") == 0);
  if (strcmp(mode, "process-stdin") == 0 && argc == 4) return process_stdin(argv[2], strcmp(argv[3], "eof") == 0);
  if (strcmp(mode, "process-signal") == 0 && argc == 4) return process_signal(argv[2], argv[3]);
  if (strcmp(mode, "process-list") == 0 && (argc == 3 || argc == 4)) return process_list(argv[2], argc == 4 ? argv[3] : NULL);
  fprintf(stderr, "usage: paddock-agent process-start|process-tail|process-stdin|process-signal|process-list …\n");
  return EXIT_USAGE;
}
