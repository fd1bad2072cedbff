// The default seccomp profile for runc sandboxes: allow by default, refuse the system calls that reach
// kernel attack surface or host-wide state (containerd/Docker deny these too), and refuse new user
// namespaces. gVisor does not use it: its Sentry implements system calls itself.

const refusedSyscalls = [
  'acct',
  'add_key',
  'bpf',
  'clock_adjtime',
  'clock_settime',
  'create_module',
  'delete_module',
  'finit_module',
  'fanotify_init',
  'fsconfig',
  'fsmount',
  'fsopen',
  'fspick',
  'get_kernel_syms',
  'get_mempolicy',
  'init_module',
  'io_uring_enter',
  'io_uring_register',
  'io_uring_setup',
  'ioperm',
  'iopl',
  'kcmp',
  'kexec_file_load',
  'kexec_load',
  'keyctl',
  'lookup_dcookie',
  'mbind',
  'mount',
  'mount_setattr',
  'move_mount',
  'move_pages',
  'name_to_handle_at',
  'nfsservctl',
  'open_by_handle_at',
  'open_tree',
  'perf_event_open',
  'personality',
  'pivot_root',
  'process_vm_readv',
  'process_vm_writev',
  'query_module',
  'quotactl',
  'quotactl_fd',
  'reboot',
  'request_key',
  'set_mempolicy',
  'setns',
  'settimeofday',
  'swapoff',
  'swapon',
  'sysfs',
  '_sysctl',
  'syslog',
  'umount',
  'umount2',
  'unshare',
  'uselib',
  'userfaultfd',
  'ustat',
  'vm86',
  'vm86old',
  'vhangup',
];

const cloneNewUser = 0x10000000;

export interface SeccompProfile {
  defaultAction: string;
  architectures: string[];
  syscalls: { names: string[]; action: string; errnoRet?: number; args?: { index: number; value: number; valueTwo: number; op: string }[] }[];
}

export function defaultSeccompProfile(): SeccompProfile {
  const eperm = 1;
  const enosys = 38;
  return {
    defaultAction: 'SCMP_ACT_ALLOW',
    architectures: ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'],
    syscalls: [
      { names: refusedSyscalls, action: 'SCMP_ACT_ERRNO', errnoRet: eperm },
      // clone3 passes its flags in memory seccomp cannot inspect; ENOSYS makes libc fall back to clone.
      { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: enosys },
      {
        names: ['clone'],
        action: 'SCMP_ACT_ERRNO',
        errnoRet: eperm,
        args: [{ index: 0, value: cloneNewUser, valueTwo: cloneNewUser, op: 'SCMP_CMP_MASKED_EQ' }],
      },
    ],
  };
}
