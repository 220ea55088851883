/*
 * denylist: the seccomp filter every sandboxed process gets last,
 * through libseccomp.  Default allow; EPERM for what a tool call never
 * needs and a sandbox escape often does: ptrace and process_vm_*,
 * mounting and new namespaces (clone with a CLONE_NEW* flag, unshare,
 * setns; clone3 answers ENOSYS so libc falls back to clone, whose flags
 * a filter can see), keyrings, bpf, perf, userfaultfd, io_uring (it
 * opens files and sockets past every other filter), kernel modules,
 * kexec, reboot, TIOCSTI and TIOCLINUX (compared on the low 32 bits of
 * the request, CVE-2019-7303), and personality flags that undo ASLR or
 * NX.  No set-id file: EPERM for the chmod family asking for S_ISUID or
 * S_ISGID, for creat, open and openat creating a file with either bit,
 * and for mknod of either bit or of a device; ENOSYS for openat2, whose
 * mode lies behind a pointer.  setxattr stays: security.capability
 * needs CAP_SETFCAP, which a sandboxed process never holds, and user.*
 * attributes and ACLs are what cp -a and tar need.
 * With deny_network, socket(2) of every family, AF_UNIX included,
 * so services behind socket files stay out of reach; socketpair(2)
 * stays.  Only the native architecture is allowed; libseccomp kills
 * any other, x32 included.
 */
#ifndef PI_DENYLIST_H
#define PI_DENYLIST_H

struct pi_error;

int denylist_load(int deny_network, struct pi_error *e);

#endif
