// Linux-only syscalls that Swift's Glibc module does not import (epoll, eventfd,
// timerfd, signalfd, rlimit). HeraldNet is the only importer.
#ifndef HERALD_CLINUX_H
#define HERALD_CLINUX_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <pthread.h>

/// errno as a function, because Swift cannot always see glibc's errno macro.
static inline int clinux_errno(void) { return errno; }

// epoll's flags are enum members whose imported type differs between glibc versions;
// plain uint32_t constants keep the Swift side free of casts.
static const uint32_t CLINUX_EPOLLIN = EPOLLIN;
static const uint32_t CLINUX_EPOLLOUT = EPOLLOUT;
static const uint32_t CLINUX_EPOLLERR = EPOLLERR;
static const uint32_t CLINUX_EPOLLHUP = EPOLLHUP;
static const uint32_t CLINUX_EPOLLRDHUP = EPOLLRDHUP;
static const uint32_t CLINUX_EPOLLET = EPOLLET;

// Socket type flags are an enum in glibc's headers; as ints they combine without ceremony.
static const int CLINUX_SOCK_STREAM = SOCK_STREAM;
static const int CLINUX_SOCK_NONBLOCK = SOCK_NONBLOCK;
static const int CLINUX_SOCK_CLOEXEC = SOCK_CLOEXEC;

/// The calling thread's pool of drained output blocks (HeraldNet's OwnedBlockPool, one reference held for the
/// thread), read in one instruction: a request/response connection asks for it twice per message, and
/// pthread_getspecific is a library call. NULL until the thread first writes.
extern __thread void *clinux_thread_block_pool;
static inline void *clinux_get_thread_block_pool(void) { return clinux_thread_block_pool; }
static inline void clinux_set_thread_block_pool(void *pool) { clinux_thread_block_pool = pool; }

// GNU extensions: the header is imported into Swift without _GNU_SOURCE, so these are real
// functions in shims.c (which is compiled with it) rather than static inline wrappers.

/// accept4(2).
int clinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// pthread_setname_np(3): names a thread (15 characters max) for `top -H` and debuggers.
int clinux_set_thread_name(pthread_t thread, const char *name);

/// getrlimit/setrlimit for RLIMIT_NOFILE (glibc types the resource as an enum under _GNU_SOURCE only).
int clinux_get_nofile_limit(struct rlimit *limit);
int clinux_set_nofile_limit(const struct rlimit *limit);

/// recv(2), send(2), sendmsg(2) and epoll_wait(2) as direct system calls. glibc's wrappers are thread-cancellation
/// points: in a process with more than one thread each call first enables and then disables asynchronous
/// cancellation (two extra calls per read and per write on the hot path). HeraldNet never cancels threads, so the
/// bookkeeping buys nothing. `recv` rather than `read`: the socket call skips the VFS read path (file position lock).
/// On x86-64 and arm64 the `syscall`/`svc` instruction is issued inline, so Swift calls straight into the kernel: a
/// request/response connection makes one read and one send per message, and the two library calls in between (this
/// wrapper, then glibc's variadic `syscall`) cost the echo benchmark's server 0.7% of its time more than uWebSockets'
/// calls to glibc's `send`/`recv` (perf). Elsewhere glibc's `syscall`. Same results and errno as the glibc calls.
#if defined(__x86_64__)
static inline long clinux_raw_syscall6(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
    long result;
    register long r10 __asm__("r10") = a4;
    register long r8 __asm__("r8") = a5;
    register long r9 __asm__("r9") = a6;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(number), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return result;
}
#elif defined(__aarch64__)
static inline long clinux_raw_syscall6(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
    register long x8 __asm__("x8") = number;
    register long x0 __asm__("x0") = a1;
    register long x1 __asm__("x1") = a2;
    register long x2 __asm__("x2") = a3;
    register long x3 __asm__("x3") = a4;
    register long x4 __asm__("x4") = a5;
    register long x5 __asm__("x5") = a6;
    __asm__ volatile("svc 0"
                     : "+r"(x0)
                     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                     : "memory", "cc");
    return x0;
}
#endif

#if defined(__x86_64__) || defined(__aarch64__)
#include <asm/unistd.h>
/// The kernel returns -errno in [-4095, -1]; glibc's convention is -1 with errno set.
static inline long clinux_syscall_result(long raw) {
    if ((unsigned long)raw > (unsigned long)-4096L) {
        errno = (int)-raw;
        return -1;
    }
    return raw;
}
static inline ssize_t clinux_recv(int fd, void *buffer, size_t length) {
    return clinux_syscall_result(clinux_raw_syscall6(__NR_recvfrom, fd, (long)buffer, (long)length, 0, 0, 0));
}
static inline ssize_t clinux_send(int fd, const void *buffer, size_t length, int flags) {
    return clinux_syscall_result(clinux_raw_syscall6(__NR_sendto, fd, (long)buffer, (long)length, flags, 0, 0));
}
static inline ssize_t clinux_sendmsg(int fd, const struct msghdr *message, int flags) {
    return clinux_syscall_result(clinux_raw_syscall6(__NR_sendmsg, fd, (long)message, flags, 0, 0, 0));
}
/// epoll_pwait with no signal mask is epoll_wait; unlike epoll_wait it exists on every architecture (arm64 has no
/// epoll_wait system call).
static inline int clinux_epoll_wait(int epfd, struct epoll_event *events, int maxEvents, int timeout) {
    return (int)clinux_syscall_result(clinux_raw_syscall6(__NR_epoll_pwait, epfd, (long)events, maxEvents, timeout, 0, 8));
}
#else
ssize_t clinux_recv(int fd, void *buffer, size_t length);
ssize_t clinux_send(int fd, const void *buffer, size_t length, int flags);
ssize_t clinux_sendmsg(int fd, const struct msghdr *message, int flags);
int clinux_epoll_wait(int epfd, struct epoll_event *events, int maxEvents, int timeout);
#endif

/// Installs async-signal-safe handlers for SIGINT and SIGTERM that only record the
/// signal number and write 1 to `wakeFD` (an eventfd), and ignores SIGPIPE.
/// Returns 0, or -1 with errno set.
int clinux_install_shutdown_handlers(int wakeFD);

/// The last shutdown signal received (SIGINT or SIGTERM), or 0 if none yet.
int clinux_shutdown_signal(void);
#endif
