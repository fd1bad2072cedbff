// The output ring (see ring.h). The writer publishes a header that moves ring_start past the records it is
// about to overwrite before overwriting them, so a reader that copied records from position P and then finds
// ring_start <= P in a fresh header knows its copy was not overwritten meanwhile.
#define _GNU_SOURCE
#include "ring.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RING_MAGIC 0x31474e49524b4450ULL

static int ring_io(int fd, int writing, uint64_t position, char *data, uint64_t length) {
  while (length > 0) {
    uint64_t at = position % RING_BYTES;
    uint64_t piece = RING_BYTES - at < length ? RING_BYTES - at : length;
    ssize_t n = writing ? pwrite(fd, data, piece, (off_t)(RING_DATA_AT + at)) : pread(fd, data, piece, (off_t)(RING_DATA_AT + at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    data += n;
    position += (uint64_t)n;
    length -= (uint64_t)n;
  }
  return 0;
}

static int publish(int fd, struct ring_header *header) {
  header->seq++;
  header->seq_end = header->seq;
  return pwrite(fd, header, sizeof *header, 0) == (ssize_t)sizeof *header ? 0 : -1;
}

int ring_create(const char *path) {
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  struct ring_header header = {.magic = RING_MAGIC};
  if (publish(fd, &header) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int ring_append(int fd, struct ring_header *header, int stream, const char *data, uint32_t length) {
  uint64_t size = RECORD_HEADER + (uint64_t)length;
  if (length > RECORD_MAX_DATA) return -1;
  int moved = 0;
  while (header->ring_end + size - header->ring_start > RING_BYTES) {
    struct ring_record oldest;
    // The writer trusts only itself: a record someone else scribbled over empties the ring instead.
    if (ring_io(fd, 0, header->ring_start, (char *)&oldest, sizeof oldest) < 0 || oldest.magic != RECORD_MAGIC ||
        oldest.length > RECORD_MAX_DATA || header->ring_start + RECORD_HEADER + oldest.length > header->ring_end) {
      header->ring_start = header->ring_end;
      header->output_start = header->output_end;
    } else {
      header->ring_start += RECORD_HEADER + oldest.length;
      header->output_start = oldest.offset + oldest.length;
    }
    if (header->ring_start == header->ring_end) header->output_start = header->output_end;
    moved = 1;
  }
  if (moved && publish(fd, header) < 0) return -1;
  // One write for the record: a follower woken by it (inotify) should find it whole once the header says so.
  static char whole[RECORD_HEADER + RECORD_MAX_DATA];
  struct ring_record record = {.offset = header->output_end, .length = length, .stream = (uint8_t)stream, .magic = RECORD_MAGIC};
  memcpy(whole, &record, sizeof record);
  memcpy(whole + RECORD_HEADER, data, length);
  if (ring_io(fd, 1, header->ring_end, whole, size) < 0) return -1;
  header->ring_end += size;
  header->output_end += length;
  return publish(fd, header);
}

static int plausible(const struct ring_header *h) {
  return h->magic == RING_MAGIC && h->seq == h->seq_end && h->ring_start <= h->ring_end && h->ring_end - h->ring_start <= RING_BYTES &&
         h->output_start <= h->output_end && h->output_end - h->output_start <= h->ring_end - h->ring_start;
}

int ring_read_header(int fd, struct ring_header *header) {
  for (int attempt = 0; attempt < 200; attempt++) {
    struct ring_header again;
    if (pread(fd, header, sizeof *header, 0) != (ssize_t)sizeof *header) return -1;
    if (pread(fd, &again, sizeof again, 0) != (ssize_t)sizeof again) return -1;
    if (plausible(header) && memcmp(header, &again, sizeof again) == 0) return 0;
    struct timespec delay = {0, 200000};
    nanosleep(&delay, NULL);
  }
  return -1;
}

int ring_read(int fd, uint64_t from, uint64_t to, char *into) {
  if (to < from || to - from > RING_BYTES) return -1;
  return ring_io(fd, 0, from, into, to - from);
}
