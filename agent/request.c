#include "request.h"

#include <stdlib.h>
#include <string.h>

/** The next NUL-terminated string of `[*at, end)`, or NULL when none is left. */
static char *next_string(char **at, char *end) {
  if (*at >= end) return NULL;
  char *nul = memchr(*at, 0, (size_t)(end - *at));
  if (!nul) return NULL;
  char *string = *at;
  *at = nul + 1;
  return string;
}

/** A count as the host writes it (decimal digits, no leading zero), at most MAX_ARGS; -1 otherwise. */
static long parse_count(const char *text) {
  if (!text || !*text || strlen(text) > 5 || (text[0] == '0' && text[1])) return -1;
  long value = 0;
  for (const char *c = text; *c; c++) {
    if (*c < '0' || *c > '9') return -1;
    value = value * 10 + (*c - '0');
  }
  return value <= MAX_ARGS ? value : -1;
}

/** `count` strings into a new NULL-terminated array; -1 when the data runs out. */
static int take_strings(char **at, char *end, long count, char ***out) {
  *out = calloc((size_t)count + 1, sizeof(char *));
  if (!*out) return -1;
  for (long i = 0; i < count; i++)
    if (!((*out)[i] = next_string(at, end))) return -1;
  return 0;
}

int parse_request(char *data, uint32_t length, char **cwd, char ***argv, char ***env) {
  char *end = data + length, *at = data;
  *argv = NULL;
  *env = NULL;
  if (!(*cwd = next_string(&at, end))) return -1;
  long argc = parse_count(next_string(&at, end));
  if (argc < 1 || take_strings(&at, end, argc, argv) < 0) return -1;
  long envc = parse_count(next_string(&at, end));
  if (envc < 0 || take_strings(&at, end, envc, env) < 0) return -1;
  // Nothing may follow: a request the host did not mean is refused, never half-read.
  return at == end ? 0 : -1;
}
