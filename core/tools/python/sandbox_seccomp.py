# The seccomp filter a sandbox loads before its program runs (libseccomp's own Python bindings,
# Debian's python3-seccomp). Deny by default: a system call not named here fails with EPERM, so a
# program learns it is not allowed rather than being killed mid-write. What is allowed is what
# CPython and its standard library need to compute, read and write files, and run threads:
# no new processes, no sockets (only the descriptors the sandbox was started with, and socket
# pairs, which asyncio uses to wake its own loop), no namespaces, mounts, tracing, BPF, keyrings,
# io_uring, perf events or another process's memory. The bindings reject a foreign architecture's
# calls (x32 included) outright.
import errno

import seccomp

ALLOWED = """
read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 lseek close close_range
open openat openat2 creat stat fstat lstat newfstatat statx access faccessat faccessat2
readlink readlinkat getdents64 getcwd chdir fchdir umask
mkdir mkdirat rmdir unlink unlinkat rename renameat renameat2 link linkat symlink symlinkat
chmod fchmod fchmodat truncate ftruncate fallocate fsync fdatasync sync_file_range flock fadvise64
utime utimes utimensat futimesat statfs fstatfs copy_file_range sendfile
dup dup2 dup3 pipe pipe2 fcntl
poll ppoll select pselect6 epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2
eventfd eventfd2
shutdown getsockopt setsockopt getsockname getpeername
mmap munmap mremap mprotect madvise brk
rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigtimedwait rt_sigsuspend sigaltstack
alarm setitimer getitimer pause
getpid gettid getppid getuid geteuid getgid getegid getresuid getresgid getgroups getpgrp getpgid getsid
getrlimit getrusage times getpriority sched_getaffinity sched_yield sched_getparam
sched_getscheduler sched_get_priority_max sched_get_priority_min
clock_gettime clock_getres clock_nanosleep nanosleep gettimeofday time uname sysinfo getrandom
futex set_robust_list get_robust_list set_tid_address rseq arch_prctl membarrier
wait4 waitid kill tgkill tkill exit exit_group
"""

# Threads only: a clone must share the process (CLONE_THREAD) and create no namespace.
CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00020000 | 0x00000080
# isatty(), the buffered readers' size question, non-blocking and close-on-exec switches;
# nothing that configures a device.
TCGETS = 0x5401
FIONREAD = 0x541B
FIONBIO = 0x5421
FIONCLEX = 0x5450
FIOCLEX = 0x5451
AF_UNIX = 1
# Out-of-band data on Unix sockets is a kernel path nothing in Python needs, and one that sandbox escapes have used.
MSG_OOB = 0x1


def load():
    rules = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.EPERM))
    for name in ALLOWED.split():
        rules.add_rule(seccomp.ALLOW, name)
    rules.add_rule(seccomp.ALLOW, 'clone', seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD | CLONE_NAMESPACES, CLONE_THREAD))
    # clone3 passes its flags in memory a filter cannot read: ENOSYS makes glibc fall back to clone.
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), 'clone3')
    for request in (TCGETS, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX):
        rules.add_rule(seccomp.ALLOW, 'ioctl', seccomp.Arg(1, seccomp.EQ, request))
    # Limits of its own process only (setrlimit); hard limits are only ever lowered.
    rules.add_rule(seccomp.ALLOW, 'prlimit64', seccomp.Arg(0, seccomp.EQ, 0))
    rules.add_rule(seccomp.ALLOW, 'socketpair', seccomp.Arg(0, seccomp.EQ, AF_UNIX))
    for name in ('sendto', 'recvfrom'):
        rules.add_rule(seccomp.ALLOW, name, seccomp.Arg(3, seccomp.MASKED_EQ, MSG_OOB, 0))
    rules.load()
