// process-tail: writes a process's output from an offset to stdout as records of one type byte, an 8-byte
// offset, a 4-byte length (both big-endian) and the data:
//   'O' stdout / 'E' stderr   offset of the data's first byte
//   'T' truncated             offset of the oldest byte kept (the requested one had left the ring)
//   'R' running (once only)   the next offset; the process is still running
//   'X' exit                  the next offset; data "exit_code signal ended_at_ms" (-1 when the supervisor vanished)
// Following, it waits on inotify for the supervisor's writes (with a short poll as a fallback) and ends with 'X'.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "process-files.h"
#include "ring.h"

enum { POLL_FALLBACK_MS = 25, OUT_BUFFER = 1 << 16 };

static char out_buffer[OUT_BUFFER];
static size_t out_length;

static int flush_out(void) {
  int failed = write_all_fd(1, out_buffer, out_length);
  out_length = 0;
  return failed;
}

static int emit(char type, uint64_t offset, const char *data, uint32_t length) {
  unsigned char header[13];
  header[0] = (unsigned char)type;
  for (int i = 0; i < 8; i++) header[1 + i] = (unsigned char)(offset >> (56 - 8 * i));
  for (int i = 0; i < 4; i++) header[9 + i] = (unsigned char)(length >> (24 - 8 * i));
  if (out_length + sizeof header + length > OUT_BUFFER && flush_out() < 0) return -1;
  if (sizeof header + length > OUT_BUFFER) return write_all_fd(1, header, sizeof header) < 0 || write_all_fd(1, data, length) < 0 ? -1 : 0;
  memcpy(out_buffer + out_length, header, sizeof header);
  memcpy(out_buffer + out_length + sizeof header, data, length);
  out_length += sizeof header + length;
  return 0;
}

static char copy[RING_BYTES];

/** Sends what the ring holds from *next on; *position caches where the next unread record starts. */
static int send_new_output(int ring, uint64_t *next, uint64_t *position, int *position_known) {
  for (int attempt = 0; attempt < 50; attempt++) {
    struct ring_header header, after;
    if (ring_read_header(ring, &header) < 0) return -1;
    if (!*position_known || *position < header.ring_start) {
      *position = header.ring_start;
      *position_known = 1;
      if (*next < header.output_start) {
        if (emit('T', header.output_start, NULL, 0) < 0) return -1;
        *next = header.output_start;
      }
    }
    if (*position > header.ring_end) return -1;
    uint64_t from = *position, to = header.ring_end;
    if (ring_read(ring, from, to, copy) < 0 || ring_read_header(ring, &after) < 0) return -1;
    if (after.ring_start > from) {
      *position_known = 0;  // overwritten while copied: read again from the new oldest record
      continue;
    }
    uint64_t at = 0, length = to - from;
    while (at + RECORD_HEADER <= length) {
      struct ring_record record;
      memcpy(&record, copy + at, sizeof record);
      if (record.magic != RECORD_MAGIC || record.length > RECORD_MAX_DATA || at + RECORD_HEADER + record.length > length) return -1;
      uint64_t end = record.offset + record.length;
      if (end > *next && record.offset <= *next) {
        uint64_t skip = *next - record.offset;
        if (emit(record.stream == 2 ? 'E' : 'O', *next, copy + at + RECORD_HEADER + skip, (uint32_t)(record.length - skip)) < 0) return -1;
        *next = end;
      } else if (record.offset > *next) {
        // A gap can only come from tampering; continue from this record.
        if (emit(record.stream == 2 ? 'E' : 'O', record.offset, copy + at + RECORD_HEADER, record.length) < 0) return -1;
        *next = end;
      }
      at += RECORD_HEADER + record.length;
    }
    *position = from + at;
    return 0;
  }
  return 0;
}

static int emit_end(const char *dir, uint64_t next) {
  char status[128];
  if (read_small_file(dir, "status", status, sizeof status) < 0) snprintf(status, sizeof status, "-1 0 0");
  status[strcspn(status, "\n")] = 0;
  return emit('X', next, status, (uint32_t)strlen(status));
}

int process_tail(const char *dir, uint64_t offset, int follow) {
  char path[PATH_BYTES];
  int ring = file_in(path, dir, "output") == 0 ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
  if (ring < 0) return access(dir, F_OK) == 0 ? EXIT_FAILED : EXIT_NOT_FOUND;
  int watch = follow ? inotify_init1(IN_CLOEXEC | IN_NONBLOCK) : -1;
  if (watch >= 0) inotify_add_watch(watch, dir, IN_MODIFY | IN_MOVED_TO | IN_CLOSE_WRITE);
  uint64_t next = offset, position = 0;
  int position_known = 0;
  for (;;) {
    // The status is looked at before the output: once it exists, all output is in the ring.
    int ended = file_exists(dir, "status") || (file_exists(dir, "pid") && !supervisor_alive(dir) && !file_exists(dir, "status"));
    if (send_new_output(ring, &next, &position, &position_known) < 0) return flush_out() < 0 ? EXIT_FAILED : EXIT_FAILED;
    if (ended) return emit_end(dir, next) < 0 || flush_out() < 0 ? EXIT_FAILED : EXIT_OK;
    if (!follow) return emit('R', next, NULL, 0) < 0 || flush_out() < 0 ? EXIT_FAILED : EXIT_OK;
    if (flush_out() < 0) return EXIT_FAILED;
    struct pollfd ready = {watch, POLLIN, 0};
    if (poll(&ready, watch >= 0 ? 1 : 0, POLL_FALLBACK_MS) > 0) {
      char events[4096];
      while (read(watch, events, sizeof events) > 0) {}
    }
  }
}
