// paddock-agent: runs commands inside a sandbox on behalf of the host, so an exec costs a process spawn inside the
// sandbox instead of a `runc exec` / `runsc exec` (a new runtime process, namespace joins, 20-35 ms).
//
// It starts under tini as the sandbox's main process and keeps a few idle connections open to the host's
// unix socket (a per-sandbox directory bind-mounted read-only at the path given as argv[1]). The host
// writes one request on an idle connection; the worker owning it runs the command and streams its output
// back, then connects again for the next one. Workers are reused: a fork inside gVisor costs milliseconds
// that an exec would otherwise pay (the parent forks a new worker only when none is idle).
// Everything on a connection is a frame: one type byte, a 4-byte big-endian length, the data.
//
//   host → agent  'R' request: NUL-terminated strings: cwd, argc, argv…, envc, env… (env is added to ours)
//                 'I' stdin bytes    'E' end of stdin    'K' kill the command and everything it started
//   agent → host  'S' started (pid as text)    'O' stdout bytes    'F' stderr bytes
//                 'X' exit status (text: exit code, or 128 + signal)    'N' could not start (message)
//
// The host is trusted to speak this protocol; anything inside the sandbox can also connect to the host
// socket or signal these processes, which only ever affects this sandbox.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "process-files.h"
#include "processes.h"
#include "request.h"

// STARTING_WORKERS idle at start; a new one only when no worker is idle; a worker finding MAX_IDLE others
// idle when its command ends exits instead of waiting. At most MAX_WORKERS run commands at once.
enum { STARTING_WORKERS = 2, MAX_IDLE = 4, MAX_WORKERS = 1024, MAX_REQUEST_BYTES = 4 << 20, CHUNK = 65536 };

// One slot per worker in memory shared across the fork: the parent owns `pid`, the worker its `idle` flag
// (the parent clears a slot when its worker dies, however it died). `idle_count` goes up before a flag is
// set and down after one is cleared, so it is never below the flags set: a worker done with its command
// claims a place among the idle ones with one compare-and-swap, and two finishing at once cannot both see
// MAX_IDLE - 1 idle and both stay. (Should a worker be killed between the two steps, the count stays one
// too high for good and fewer workers are kept idle; start_worker forks all the same when none is.)
struct worker_slot {
  pid_t pid;
  unsigned char idle;
};
struct worker_table {
  unsigned idle_count;
  struct worker_slot slots[MAX_WORKERS];
};
static struct worker_table *workers;

static int idle_workers(void) {
  int count = 0;
  for (int i = 0; i < MAX_WORKERS; i++) count += __atomic_load_n(&workers->slots[i].idle, __ATOMIC_ACQUIRE) != 0;
  return count;
}

/** Counts a slot idle only while fewer than `limit` are; false (and the slot not idle) when `limit` are already. */
static int mark_idle(int slot, unsigned limit) {
  unsigned count = __atomic_load_n(&workers->idle_count, __ATOMIC_ACQUIRE);
  do {
    if (count >= limit) return 0;
  } while (!__atomic_compare_exchange_n(&workers->idle_count, &count, count + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  __atomic_store_n(&workers->slots[slot].idle, 1, __ATOMIC_RELEASE);
  return 1;
}

/** Counts a slot no longer idle (busy, dead or never started); nothing when it was not idle. */
static void mark_not_idle(int slot) {
  if (__atomic_exchange_n(&workers->slots[slot].idle, 0, __ATOMIC_ACQ_REL)) __atomic_sub_fetch(&workers->idle_count, 1, __ATOMIC_ACQ_REL);
}

static const char *socket_path;
// SIGCHLD wakes poll() through this pipe (the self-pipe trick), so an exit is seen at once.
static int child_signal[2] = {-1, -1};

static void on_child(int signal_number) {
  (void)signal_number;
  int saved = errno;
  if (write(child_signal[1], "c", 1) < 0) {}
  errno = saved;
}

static void watch_children(void) {
  if (child_signal[0] >= 0) {
    close(child_signal[0]);
    close(child_signal[1]);
  }
  if (pipe2(child_signal, O_CLOEXEC | O_NONBLOCK) < 0) _exit(71);
  struct sigaction action = {.sa_handler = on_child, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
  sigemptyset(&action.sa_mask);
  sigaction(SIGCHLD, &action, NULL);
}

static void drain_child_signal(void) {
  char bytes[64];
  while (read(child_signal[0], bytes, sizeof bytes) > 0) {}
}

static int read_all(int fd, void *data, size_t length) {
  char *p = data;
  while (length > 0) {
    ssize_t n = read(fd, p, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    length -= (size_t)n;
  }
  return 0;
}

static int send_frame(int fd, char type, const void *data, uint32_t length) {
  char header[5];
  uint32_t big = htonl(length);
  header[0] = type;
  memcpy(header + 1, &big, 4);
  if (write_all_fd(fd, header, 5) < 0) return -1;
  return length ? write_all_fd(fd, data, length) : 0;
}

static int send_text(int fd, char type, const char *text) {
  return send_frame(fd, type, text, (uint32_t)strlen(text));
}

/** Reads one frame; *data is malloc'd (NUL-terminated for convenience). -1 on end of stream or a frame too large. */
static int read_frame(int fd, char *type, char **data, uint32_t *length) {
  unsigned char header[5];
  if (read_all(fd, header, 5) < 0) return -1;
  uint32_t big;
  memcpy(&big, header + 1, 4);
  *type = (char)header[0];
  *length = ntohl(big);
  if (*length > MAX_REQUEST_BYTES) return -1;
  *data = malloc(*length + 1);
  if (!*data) return -1;
  if (*length && read_all(fd, *data, *length) < 0) {
    free(*data);
    return -1;
  }
  (*data)[*length] = 0;
  return 0;
}

static void pause_ms(long ms) {
  struct timespec delay = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&delay, &delay) < 0 && errno == EINTR) {}
}

/** Connects to the host, retrying while it is not listening (starting, or restarting). */
static int connect_host(void) {
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  strncpy(address.sun_path, socket_path, sizeof(address.sun_path) - 1);
  long backoff = 5;
  for (;;) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) _exit(70);
    if (connect(fd, (struct sockaddr *)&address, sizeof(address)) == 0) return fd;
    close(fd);
    pause_ms(backoff);
    if (backoff < 1000) backoff *= 2;
  }
}

/** Kills `root` and every process descended from it (found through /proc), then its process group. */
static void kill_tree(pid_t root) {
  enum { MAX_PROCS = 32768 };
  static pid_t pids[MAX_PROCS], parents[MAX_PROCS];
  int count = 0;
  DIR *proc = opendir("/proc");
  if (proc) {
    struct dirent *entry;
    while ((entry = readdir(proc)) && count < MAX_PROCS) {
      pid_t pid = (pid_t)atoi(entry->d_name);
      if (pid <= 0) continue;
      char path[64], buffer[512];
      snprintf(path, sizeof path, "/proc/%d/stat", pid);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      ssize_t n = read(fd, buffer, sizeof buffer - 1);
      close(fd);
      if (n <= 0) continue;
      buffer[n] = 0;
      char *after_name = strrchr(buffer, ')');
      int parent = 0;
      if (!after_name || sscanf(after_name + 1, " %*c %d", &parent) != 1) continue;
      pids[count] = pid;
      parents[count] = (pid_t)parent;
      count++;
    }
    closedir(proc);
  }
  // Breadth-first over the parent links: doomed[] grows as children are found.
  static pid_t doomed[MAX_PROCS];
  int doomed_count = 0;
  doomed[doomed_count++] = root;
  for (int i = 0; i < doomed_count; i++) {
    for (int j = 0; j < count && doomed_count < MAX_PROCS; j++) {
      if (parents[j] == doomed[i]) doomed[doomed_count++] = pids[j];
    }
  }
  for (int i = 0; i < doomed_count; i++) kill(doomed[i], SIGKILL);
  kill(-root, SIGKILL);
}

/** Our environment with `extra` added; an `extra` entry replaces ours of the same name (like putenv). */
static char **merged_environment(char **extra) {
  extern char **environ;
  size_t ours = 0, added = 0;
  while (environ[ours]) ours++;
  while (extra[added]) added++;
  char **merged = calloc(ours + added + 1, sizeof *merged);
  if (!merged) _exit(71);
  size_t count = 0;
  for (size_t i = 0; i < ours; i++) {
    size_t name_length = strcspn(environ[i], "=");
    int replaced = 0;
    for (size_t j = 0; j < added && !replaced; j++) {
      replaced = strncmp(extra[j], environ[i], name_length) == 0 && extra[j][name_length] == '=';
    }
    if (!replaced) merged[count++] = environ[i];
  }
  for (size_t j = 0; j < added; j++) merged[count++] = extra[j];
  return merged;
}

/** The program to run for `name`: itself when it has a slash, else the first executable match on PATH. */
static const char *find_program(const char *name, char **env) {
  if (strchr(name, '/')) return name;
  const char *search = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  for (char **entry = env; *entry; entry++) {
    if (strncmp(*entry, "PATH=", 5) == 0) search = *entry + 5;
  }
  static char candidate[4096];
  for (const char *dir = search; *dir;) {
    size_t length = strcspn(dir, ":");
    if (length > 0 && snprintf(candidate, sizeof candidate, "%.*s/%s", (int)length, dir, name) < (int)sizeof candidate &&
        access(candidate, X_OK) == 0) {
      return candidate;
    }
    dir += length;
    if (*dir == ':') dir++;
  }
  return NULL;
}

// This worker's slot, and whether it stays once its command has ended (-1: not decided yet).
static int own_slot = -1, stays_idle = -1;

/**
 * Sends a command's last frame, having first decided whether this worker stays idle: the host sends the
 * next request only after this frame, so by then every worker done with a command is counted, and the
 * parent does not fork one more for a request that an idle worker is about to take.
 */
static int send_last(int sock, char type, const char *text) {
  if (stays_idle < 0) stays_idle = mark_idle(own_slot, MAX_IDLE);
  return send_text(sock, type, text);
}

/** Runs the command `request` asks for and streams it back on `sock`; returns once the exit is reported. */
static void serve(int sock, char *request, uint32_t length) {
  char *cwd, **argv = NULL, **extra_env = NULL;
  if (parse_request(request, length, &cwd, &argv, &extra_env) < 0) {
    send_last(sock, 'N', "malformed request");
    free(argv);
    free(extra_env);
    return;
  }
  if (chdir(cwd) < 0) {
    char message[512];
    snprintf(message, sizeof message, "cannot enter %s: %s", cwd, strerror(errno));
    send_last(sock, 'N', message);
    goto done;
  }
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
    int *made[] = {in, out, err};
    for (int i = 0; i < 3; i++) {
      if (made[i][0] >= 0) close(made[i][0]);
      if (made[i][1] >= 0) close(made[i][1]);
    }
    send_last(sock, 'N', "no pipes left in the sandbox");
    goto done;
  }
  // posix_spawn (a vfork underneath) instead of fork: under gVisor a fork copies the address space in
  // the user-space kernel, which costs several milliseconds per exec; vfork does not.
  char **env = merged_environment(extra_env);
  const char *program = find_program(argv[0], env);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  sigset_t no_signals, default_signals;
  sigemptyset(&no_signals);
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  sigaddset(&default_signals, SIGCHLD);
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  pid_t child = -1;
  int spawn_error = program ? posix_spawn(&child, program, &actions, &attributes, argv, env) : ENOENT;
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  free(env);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (spawn_error != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
  }
  if (spawn_error == EAGAIN || spawn_error == ENOMEM) {
    send_last(sock, 'N', "cannot start a process in the sandbox (process limit reached?)");
    goto done;
  }
  if (spawn_error != 0) {
    // What a shell would print and answer: 127 when there is no such program, 126 when it cannot run.
    char message[512];
    int length = snprintf(message, sizeof message, "%s: %s\n", argv[0], strerror(spawn_error));
    send_text(sock, 'S', "0");
    send_frame(sock, 'F', message, (uint32_t)length);
    send_last(sock, 'X', spawn_error == ENOENT ? "127" : "126");
    goto done;
  }
  char pid_text[32];
  snprintf(pid_text, sizeof pid_text, "%d", child);
  send_text(sock, 'S', pid_text);

  int stdin_fd = in[1], stdout_fd = out[0], stderr_fd = err[0];
  fcntl(stdin_fd, F_SETFL, O_NONBLOCK);
  // Pending stdin the command has not read yet: the host may send more than a pipe holds.
  char *pending = NULL;
  size_t pending_length = 0, pending_offset = 0;
  int stdin_ended = 0, host_open = 1, exited = 0, status = 0;
  static char buffer[CHUNK];

  while (stdout_fd >= 0 || stderr_fd >= 0 || !exited) {
    struct pollfd fds[5];
    int n = 0, i_out = -1, i_err = -1, i_sock = -1, i_in = -1;
    fds[n++] = (struct pollfd){child_signal[0], POLLIN, 0};
    if (stdout_fd >= 0) fds[i_out = n++] = (struct pollfd){stdout_fd, POLLIN, 0};
    if (stderr_fd >= 0) fds[i_err = n++] = (struct pollfd){stderr_fd, POLLIN, 0};
    if (host_open) fds[i_sock = n++] = (struct pollfd){sock, POLLIN, 0};
    if (stdin_fd >= 0 && pending_offset < pending_length) fds[i_in = n++] = (struct pollfd){stdin_fd, POLLOUT, 0};
    int ready_count = poll(fds, (nfds_t)n, -1);
    if (ready_count < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) drain_child_signal();
    if (!exited && waitpid(child, &status, WNOHANG) == child) exited = 1;
    if (ready_count <= 0) continue;

    int streams[2] = {i_out, i_err};
    for (int s = 0; s < 2; s++) {
      int index = streams[s];
      if (index < 0 || !(fds[index].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      int *fd = s == 0 ? &stdout_fd : &stderr_fd;
      ssize_t got = read(*fd, buffer, sizeof buffer);
      if (got > 0) {
        if (send_frame(sock, s == 0 ? 'O' : 'F', buffer, (uint32_t)got) < 0) host_open = 0;
      } else if (got == 0 || errno != EINTR) {
        close(*fd);
        *fd = -1;
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
    if (i_sock >= 0 && (fds[i_sock].revents & (POLLIN | POLLHUP | POLLERR))) {
      char frame_type, *data;
      uint32_t frame_length;
      if (read_frame(sock, &frame_type, &data, &frame_length) < 0) {
        // The host went away mid-command: nobody will read the result, so do not leave the command running.
        host_open = 0;
        if (!exited) kill_tree(child);
        continue;
      }
      if (frame_type == 'K') {
        kill_tree(child);
      } else if (frame_type == 'E') {
        stdin_ended = 1;
        if (stdin_fd >= 0 && pending_offset >= pending_length) {
          close(stdin_fd);
          stdin_fd = -1;
        }
      } else if (frame_type == 'I' && stdin_fd >= 0) {
        size_t unwritten = pending_length - pending_offset;
        if (pending) memmove(pending, pending + pending_offset, unwritten);
        char *grown = realloc(pending, unwritten + frame_length);
        if (grown) {
          memcpy(grown + unwritten, data, frame_length);
          pending = grown;
          pending_length = unwritten + frame_length;
        } else {
          pending_length = unwritten;
        }
        pending_offset = 0;
      }
      free(data);
    }
  }
  if (!exited) waitpid(child, &status, 0);
  if (stdin_fd >= 0) close(stdin_fd);
  free(pending);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  char code_text[16];
  snprintf(code_text, sizeof code_text, "%d", code);
  if (host_open) send_last(sock, 'X', code_text);
done:
  free(argv);
  free(extra_env);
}

/** Waits on a connection for a request, serves it, and again; tells the parent (through `busy_fd`) when busy. */
static void worker(int slot, int busy_fd) {
  own_slot = slot;
  watch_children();
  for (;;) {
    char type, *request;
    uint32_t length;
    int sock;
    // An idle connection the host closes (it does before a checkpoint, or when it restarts) is simply
    // made again: exiting instead would have the parent fork a replacement, and a fork inside gVisor is
    // the costliest thing this agent does, right when the sandbox is being checkpointed.
    for (;;) {
      sock = connect_host();
      if (read_frame(sock, &type, &request, &length) == 0) break;
      close(sock);
    }
    if (type != 'R') _exit(0);
    mark_not_idle(slot);
    if (write(busy_fd, "b", 1) < 0) {}
    drain_child_signal();
    stays_idle = -1;
    serve(sock, request, length);
    free(request);
    close(sock);
    if (stays_idle < 0) stays_idle = mark_idle(slot, MAX_IDLE);
    if (!stays_idle) _exit(0);
  }
}


/**
 * Forks a worker into a free slot, counted idle from the start; -1 when no slot is free or the fork failed.
 * Counted within MAX_IDLE like any other, so a worker that ends its command as this one starts does not
 * stay as one too many. When MAX_IDLE are counted but none is flagged idle, workers are between the two
 * steps of claiming (a moment), or a count was left too high by a killed worker (for good): so it looks
 * again a millisecond later, and forks all the same if none is idle then.
 */
static int start_worker(int busy[2]) {
  int slot = 0;
  while (slot < MAX_WORKERS && workers->slots[slot].pid != 0) slot++;
  if (slot == MAX_WORKERS) return -1;
  if (!mark_idle(slot, MAX_IDLE)) {
    pause_ms(1);
    if (idle_workers() > 0) return 0;
    mark_idle(slot, MAX_WORKERS);
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(busy[0]);
    worker(slot, busy[1]);
    _exit(0);
  }
  if (pid < 0) {
    mark_not_idle(slot);
    return -1;
  }
  workers->slots[slot].pid = pid;
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strncmp(argv[1], "process-", 8) == 0) return process_main(argc, argv);
  if (argc != 2) {
    fprintf(stderr, "usage: paddock-agent SOCKET\n");
    return 64;
  }
  socket_path = argv[1];
  signal(SIGPIPE, SIG_IGN);
  workers = mmap(NULL, sizeof *workers, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (workers == MAP_FAILED) return 71;
  watch_children();
  // Workers report "busy" on this pipe, so the parent can start a new one when none is left idle.
  int busy[2];
  if (pipe2(busy, O_CLOEXEC | O_NONBLOCK) < 0) return 71;
  for (int i = 0; i < STARTING_WORKERS; i++) {
    if (start_worker(busy) < 0) pause_ms(100);
  }
  for (;;) {
    struct pollfd fds[2] = {{busy[0], POLLIN, 0}, {child_signal[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) pause_ms(100);
    char bytes[64];
    while (read(busy[0], bytes, sizeof bytes) > 0) {}
    drain_child_signal();
    pid_t pid;
    int status;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (int i = 0; i < MAX_WORKERS; i++) {
        if (workers->slots[i].pid != pid) continue;
        workers->slots[i].pid = 0;
        mark_not_idle(i);
        break;
      }
    }
    // Not a loop: one worker is enough to take the next request, and the fork must not delay this one.
    if (idle_workers() == 0 && start_worker(busy) < 0) pause_ms(100);
  }
}
