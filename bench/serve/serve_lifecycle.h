// What tz_http_serve and tz_tcp_throttle share: how they end. The harness
// holds the write end of their stdin and may send SIGTERM; either ends them.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace turbozarr::serve {

// Blocks SIGTERM and SIGINT and returns a descriptor that reads them, or -1
// (after printing why, prefixed by `tool`). Call it before any thread
// starts, so that every thread inherits the mask and none is picked to take
// a signal.
inline int TerminationSignals(const char* tool) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  const int fd = ::signalfd(-1, &signals, SFD_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "%s: signalfd: %s\n", tool, std::strerror(errno));
  }
  return fd;
}

// Returns when a signal in `signal_fd` arrives or stdin reaches its end.
// A stdin that is a device other than a terminal (/dev/zero, which never
// ends and is always readable) is not watched: reading it would spin a core
// for the tool's whole life; only a signal ends the tool then.
inline void WaitForEnd(int signal_fd) {
  pollfd fds[2] = {{signal_fd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
  struct stat in;
  if (::fstat(STDIN_FILENO, &in) == 0 && S_ISCHR(in.st_mode) && !::isatty(STDIN_FILENO)) {
    fds[1].fd = -1;
  }
  char discard[4096];
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents != 0) return;
    if (fds[1].revents & POLLNVAL) {
      fds[1].fd = -1;  // no stdin at all: only a signal ends it
    } else if (fds[1].revents != 0) {
      const ssize_t n = ::read(STDIN_FILENO, discard, sizeof(discard));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return;
    }
  }
}

}  // namespace turbozarr::serve
