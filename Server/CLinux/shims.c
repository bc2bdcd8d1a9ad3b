#include "CLinux.h"
#include <sys/syscall.h>

__thread void *clinux_thread_block_pool = NULL;

#if !defined(__x86_64__) && !defined(__aarch64__)
ssize_t clinux_recv(int fd, void *buffer, size_t length) {
    return syscall(SYS_recvfrom, fd, buffer, length, 0, NULL, NULL);
}

ssize_t clinux_send(int fd, const void *buffer, size_t length, int flags) {
    return syscall(SYS_sendto, fd, buffer, length, flags, NULL, 0);
}

ssize_t clinux_sendmsg(int fd, const struct msghdr *message, int flags) {
    return syscall(SYS_sendmsg, fd, message, flags);
}

int clinux_epoll_wait(int epfd, struct epoll_event *events, int maxEvents, int timeout) {
    return (int)syscall(SYS_epoll_pwait, epfd, events, maxEvents, timeout, NULL, (size_t)8);
}
#endif

// Written only by the signal handler, read by Swift after the eventfd wakes it.
static volatile sig_atomic_t clinux_last_signal = 0;
static volatile int clinux_wake_fd = -1;

// Runs in signal context: only async-signal-safe calls (write) and errno preserved.
static void clinux_shutdown_handler(int signo) {
    int saved = errno;
    clinux_last_signal = signo;
    int fd = clinux_wake_fd;
    if (fd >= 0) {
        uint64_t one = 1;
        ssize_t ignored = write(fd, &one, sizeof one);
        (void)ignored;
    }
    errno = saved;
}

int clinux_install_shutdown_handlers(int wakeFD) {
    clinux_wake_fd = wakeFD;
    struct sigaction action = {0};
    action.sa_handler = clinux_shutdown_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGINT, &action, NULL) != 0) return -1;
    if (sigaction(SIGTERM, &action, NULL) != 0) return -1;
    struct sigaction ignore = {0};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    if (sigaction(SIGPIPE, &ignore, NULL) != 0) return -1;
    return 0;
}

int clinux_shutdown_signal(void) { return clinux_last_signal; }

int clinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}

int clinux_set_thread_name(pthread_t thread, const char *name) { return pthread_setname_np(thread, name); }

int clinux_get_nofile_limit(struct rlimit *limit) { return getrlimit(RLIMIT_NOFILE, limit); }

int clinux_set_nofile_limit(const struct rlimit *limit) { return setrlimit(RLIMIT_NOFILE, limit); }
