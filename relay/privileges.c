#define _GNU_SOURCE
#include "privileges.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp.h"

#define ALLOW(name) __NR_##name

/** What the relay's event loop calls, glibc's malloc and stdio beneath it, and abort(). */
static const int relay_syscalls[] = {
    ALLOW(read), ALLOW(write), ALLOW(writev), ALLOW(close), ALLOW(recvfrom), ALLOW(sendto), ALLOW(recvmsg), ALLOW(sendmsg),
#ifdef __NR_epoll_wait
    ALLOW(epoll_wait),
#endif
    ALLOW(epoll_pwait), ALLOW(epoll_ctl), ALLOW(connect), ALLOW(setsockopt), ALLOW(getsockopt), ALLOW(shutdown), ALLOW(fcntl),
    ALLOW(clock_gettime), ALLOW(clock_nanosleep), ALLOW(nanosleep), ALLOW(brk), ALLOW(mmap), ALLOW(munmap), ALLOW(mremap), ALLOW(madvise),
    ALLOW(mprotect), ALLOW(futex), ALLOW(getrandom), ALLOW(fstat), ALLOW(newfstatat), ALLOW(rt_sigreturn), ALLOW(rt_sigprocmask),
    ALLOW(rt_sigaction), ALLOW(getpid), ALLOW(gettid), ALLOW(tgkill), ALLOW(restart_syscall), ALLOW(exit), ALLOW(exit_group),
};

/** What the helper's loop calls: a request in, a netns opened and joined, a socket made and sent back. */
static const int helper_syscalls[] = {
    ALLOW(recvfrom), ALLOW(sendmsg), ALLOW(openat), ALLOW(setns), ALLOW(close), ALLOW(write), ALLOW(writev), ALLOW(brk), ALLOW(mmap),
    ALLOW(munmap), ALLOW(fstat), ALLOW(newfstatat), ALLOW(rt_sigreturn), ALLOW(rt_sigprocmask), ALLOW(rt_sigaction), ALLOW(getpid),
    ALLOW(gettid), ALLOW(tgkill), ALLOW(restart_syscall), ALLOW(exit), ALLOW(exit_group),
};

static int last_capability(void) {
  FILE *file = fopen("/proc/sys/kernel/cap_last_cap", "r");
  int last = CAP_LAST_CAP;
  if (file) {
    if (fscanf(file, "%d", &last) != 1) last = CAP_LAST_CAP;
    fclose(file);
  }
  return last;
}

/** Sets the effective and permitted capabilities to `mask` (capabilities below 32), none inheritable. */
static int set_capabilities(uint32_t mask) {
  struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2] = {{.effective = mask, .permitted = mask, .inheritable = 0}, {0, 0, 0}};
  return (int)syscall(SYS_capset, &header, data);
}

/** As root: the bounding set keeps only `keep` (-1: nothing), then uid and gid become nobody's. */
static int become_nobody(int keep) {
  if (geteuid() != 0) return 0;
  struct passwd *nobody = getpwnam("nobody");
  uid_t uid = nobody ? nobody->pw_uid : 65534;
  gid_t gid = nobody ? nobody->pw_gid : 65534;
  for (int cap = 0, last = last_capability(); cap <= last; cap++)
    if (cap != keep && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) return -1;
  if (keep >= 0 && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0) return -1;
  if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) return -1;
  if (set_capabilities(keep >= 0 ? 1u << keep : 0) < 0) return -1;
  if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0) return -1;
  // Other processes running as nobody must not read or trace this one.
  return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static int confine(const int *syscalls, size_t count) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return -1;
  return seccomp_allow_only(syscalls, count);
}

int drop_relay_privileges(void) {
  if (become_nobody(-1) < 0) return -1;
  return confine(relay_syscalls, sizeof relay_syscalls / sizeof *relay_syscalls);
}

int drop_helper_privileges(pid_t relay) {
  if (become_nobody(CAP_SYS_ADMIN) < 0) return -1;
  // Set after the credentials changed (a change clears it): the helper ends with the relay.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != relay) return -1;
  return confine(helper_syscalls, sizeof helper_syscalls / sizeof *helper_syscalls);
}
