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
/// Same results and errno as the glibc calls.
ssize_t clinux_recv(int fd, void *buffer, size_t length);
ssize_t clinux_send(int fd, const void *buffer, size_t length, int flags);
ssize_t clinux_sendmsg(int fd, const struct msghdr *message, int flags);
int clinux_epoll_wait(int epfd, struct epoll_event *events, int maxEvents, int timeout);

/// Installs async-signal-safe handlers for SIGINT and SIGTERM that only record the
/// signal number and write 1 to `wakeFD` (an eventfd), and ignores SIGPIPE.
/// Returns 0, or -1 with errno set.
int clinux_install_shutdown_handlers(int wakeFD);

/// The last shutdown signal received (SIGINT or SIGTERM), or 0 if none yet.
int clinux_shutdown_signal(void);
#endif
