#include "tools/picture.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>

extern char** environ;

namespace smelt::tools {
namespace {

constexpr const char* kMissing =
    "graphviz's `dot` is not installed (Debian: apt-get install graphviz); write --dot instead";

// The `dot` that execvp would run: the first executable regular file named dot
// on PATH (unset: /usr/bin:/bin; an empty entry: the current folder).
std::string find_dot() {
  const char* path = std::getenv("PATH");
  const std::string_view entries = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= entries.size();) {
    size_t end = entries.find(':', start);
    if (end == std::string_view::npos) end = entries.size();
    const std::string_view folder = entries.substr(start, end - start);
    const std::string candidate = (folder.empty() ? std::string(".") : std::string(folder)) + "/dot";
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return "";
}

[[noreturn]] void fail(const char* what, int error) {
  throw std::runtime_error(std::string("cannot run graphviz's dot: ") + what + ": " + std::strerror(error));
}

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { close(); }
  int get() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  void reset(int fd) {
    close();
    fd_ = fd;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// A close-on-exec pipe whose ends lie above the standard streams: no other
// child started meanwhile inherits it, and the child's dup2 onto 0, 1, 2 never
// maps an end onto itself (which would keep it close-on-exec).
void make_pipe(Fd& read_end, Fd& write_end) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) fail("pipe", errno);
  for (int& end : ends) {
    if (end > STDERR_FILENO) continue;
    const int moved = ::fcntl(end, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    ::close(end);
    end = moved;
  }
  read_end.reset(ends[0]);
  write_end.reset(ends[1]);
  if (!read_end.is_open() || !write_end.is_open()) fail("pipe", errno);
}

// Blocks SIGPIPE in this thread while writing to a child that may exit early
// (the write then fails with EPIPE instead of killing the process); a SIGPIPE
// raised meanwhile is consumed before the old mask returns.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;
  ~SigpipeBlocked() {
    if (!was_pending_) {
      const timespec now{};
      while (sigtimedwait(&pipe_, nullptr, &now) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_{}, old_{};
  bool was_pending_ = false;
};

// The child, killed and reaped when it is left before wait() (an error).
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    wait();
  }
  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_;
};

// dot's complaint on one line.
std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      if (!out.empty() && out.back() != ' ') out += "; ";
    } else if (c != '\r') {
      out += c;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
  return out.size() > 500 ? out.substr(0, 497) + "..." : out;
}

}  // namespace

bool graphviz_available() { return !find_dot().empty(); }

std::string render_svg(const std::string& dot) {
  const std::string program = find_dot();
  if (program.empty()) throw std::runtime_error(kMissing);

  Fd in_read, in_write, out_read, out_write, err_read, err_write;
  make_pipe(in_read, in_write);
  make_pipe(out_read, out_write);
  make_pipe(err_read, err_write);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), STDERR_FILENO);
  char arg0[] = "dot", arg1[] = "-Tsvg";
  char* argv[] = {arg0, arg1, nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) fail(program.c_str(), spawned);
  Child child(pid);
  in_read.close();
  out_write.close();
  err_write.close();

  // Feed stdin while draining stdout and stderr: dot may write (or complain)
  // before it has read everything, and a full pipe on either side would stall both.
  SigpipeBlocked no_sigpipe;
  if (::fcntl(in_write.get(), F_SETFL, O_NONBLOCK) != 0) fail("fcntl", errno);
  std::string svg, errors;
  size_t written = 0;
  if (dot.empty()) in_write.close();
  while (out_read.is_open() || err_read.is_open()) {
    pollfd fds[3] = {{in_write.get(), POLLOUT, 0}, {out_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      fail("poll", errno);
    }
    if (fds[0].revents != 0) {
      const ssize_t n = ::write(in_write.get(), dot.data() + written, dot.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      // Done, or dot stopped reading (EPIPE: it exits and says why on stderr).
      if (written == dot.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) in_write.close();
    }
    for (auto [fd, text] : {std::pair{1, &svg}, std::pair{2, &errors}}) {
      if (fds[fd].revents == 0) continue;
      Fd& source = fd == 1 ? out_read : err_read;
      char buffer[65536];
      const ssize_t n = ::read(source.get(), buffer, sizeof buffer);
      if (n > 0) text->append(buffer, static_cast<size_t>(n));
      else if (n == 0 || (errno != EINTR && errno != EAGAIN)) source.close();
    }
  }
  in_write.close();
  const int status = child.wait();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return svg;
  const std::string why = one_line(errors);
  if (WIFSIGNALED(status))
    throw std::runtime_error("graphviz's dot was killed by signal " + std::to_string(WTERMSIG(status)) +
                             (why.empty() ? "" : ": " + why));
  throw std::runtime_error("graphviz's dot failed (exit " + std::to_string(WEXITSTATUS(status)) +
                           ")" + (why.empty() ? "" : ": " + why));
}

}  // namespace smelt::tools
