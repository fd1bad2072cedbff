// The output ring of a background process: one file, a header then RING_BYTES of records in a circle.
// One writer (the process's supervisor) appends; any number of readers (process-tail) read concurrently.
#ifndef PADDOCK_AGENT_RING_H
#define PADDOCK_AGENT_RING_H

#include <stdint.h>

enum { RING_BYTES = 1 << 20, RING_DATA_AT = 64, RECORD_HEADER = 16, RECORD_MAX_DATA = 65536, RECORD_MAGIC = 0xa5 };

/** Positions (ring_*) count bytes of records ever written; offsets (output_*) count bytes of output.
 * [ring_start, ring_end) holds whole records whose output is [output_start, output_end).
 * `seq` and `seq_end` are equal in a consistent copy (a reader racing a header write sees them differ). */
struct ring_header {
  uint64_t magic, seq, ring_start, ring_end, output_start, output_end, seq_end;
};

/** Each record: this header (stream 1 stdout, 2 stderr) then `length` bytes of output. */
struct ring_record {
  uint64_t offset;
  uint32_t length;
  uint8_t stream, magic, pad[2];
};

/** Creates the ring file; its fd, -1 on failure. */
int ring_create(const char *path);
/** Appends one record (length <= RECORD_MAX_DATA), dropping the oldest records to make room. */
int ring_append(int fd, struct ring_header *header, int stream, const char *data, uint32_t length);
/** A consistent, plausible copy of the header (retries briefly while the writer changes it); -1 otherwise. */
int ring_read_header(int fd, struct ring_header *header);
/** Copies the records at positions [from, to) (to - from <= RING_BYTES) into `into`. */
int ring_read(int fd, uint64_t from, uint64_t to, char *into);

#endif
