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

/// errno as a function, because Swift cannot always see glibc's errno macro.
static inline int clinux_errno(void) { return errno; }
#endif
