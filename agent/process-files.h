// The files of one background process, in its directory DIR (ROOT/<id>):
//   meta     key NUL value NUL pairs: id, command, tag, cwd, started_at (ms)   written once by process-start
//   output   the output ring (ring.h)                                           appended by the supervisor
//   stdin    a FIFO the supervisor reads stdin records from (type 'D' data or 'E' end, 4-byte length, bytes)
//   pid      the command's pid (also its process group)                         written by the supervisor
//   lock     held (flock) by the supervisor while it lives
//   status   "exit_code signal ended_at_ms" once the command exited, renamed into place
//   stdin-closed  exists once stdin was ended
#ifndef PADDOCK_AGENT_PROCESS_FILES_H
#define PADDOCK_AGENT_PROCESS_FILES_H

#include <stddef.h>
#include <stdint.h>

enum { STDIN_RECORD_MAX = 4096, STDIN_RECORD_HEADER = 5 };

/** Exit codes of the modes, which the host turns into answers. */
enum { EXIT_OK = 0, EXIT_USAGE = 64, EXIT_NOT_FOUND = 2, EXIT_NOT_RUNNING = 3, EXIT_STDIN_CLOSED = 4, EXIT_LIMIT = 5, EXIT_BAD_CWD = 6, EXIT_EXISTS = 7, EXIT_FAILED = 70 };

uint64_t now_ms(void);
int write_all_fd(int fd, const void *data, size_t length);
/** DIR/name into `path` (size PATH_BYTES); -1 when it does not fit. */
enum { PATH_BYTES = 4096 };
int file_in(char *path, const char *dir, const char *name);
/** Writes DIR/name atomically (a temporary file renamed over it). */
int write_file_atomic(const char *dir, const char *name, const char *data, size_t length);
/** Reads at most `capacity - 1` bytes of DIR/name, NUL-terminated; the length, -1 when it cannot be read. */
long read_small_file(const char *dir, const char *name, char *into, size_t capacity);
int file_exists(const char *dir, const char *name);
/** Whether the process's supervisor still lives (holds DIR/lock). */
int supervisor_alive(const char *dir);
/** The supervisor: never returns (process-start forks it). `ready` gets the command's pid as text. */
void supervise(const char *dir, const char *cwd, const char *command, int ready);
int process_tail(const char *dir, uint64_t offset, int follow);

#endif
