// A seccomp filter built by hand (linux/seccomp.h, linux/filter.h): the listed system calls are allowed,
// socket() only for AF_INET, anything else kills the process.
#ifndef PADDOCK_RELAY_SECCOMP_H
#define PADDOCK_RELAY_SECCOMP_H

#include <stddef.h>

/** Installs the filter for this process (no_new_privs must be set); 0 on success. */
int seccomp_allow_only(const int *syscalls, size_t count);

#endif
