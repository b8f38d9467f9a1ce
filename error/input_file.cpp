#include "error/input_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "error/memory_limit.h"

namespace smelt {
namespace {

// Closes the descriptor on every path out.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens `path` for reading after the checks every input file gets; sets `size`.
FileDescriptor open_checked(const std::string& path, uint64_t max_bytes, uint64_t& size) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused.
  FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) throw InputFileError(path, std::string("cannot read file: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) throw InputFileError(path, std::string("cannot read file: ") + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw InputFileError(path, "is a directory, not a file");
  if (!S_ISREG(info.st_mode)) throw InputFileError(path, "is not a regular file (a device, pipe or socket)");
  size = static_cast<uint64_t>(info.st_size);
  try {
    check_memory(size, "reading the file");
  } catch (const MemoryLimitError& e) {
    throw InputFileError(path, e.what());
  }
  if (size > max_bytes)
    throw InputFileError(path, "is " + format_bytes(size) + "; a file of this kind holds at most " +
                                   format_bytes(max_bytes));
  return file;
}

}  // namespace

std::string read_input_file(const std::string& path, uint64_t max_bytes) {
  uint64_t size = 0;
  const FileDescriptor file = open_checked(path, max_bytes, size);
  std::string bytes(static_cast<size_t>(size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(file.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputFileError(path, std::string("cannot read file: ") + std::strerror(errno));
    if (n == 0) break;  // the file shrank since fstat
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

MappedInputFile::MappedInputFile(const std::string& path, uint64_t max_bytes) {
  uint64_t size = 0;
  const FileDescriptor file = open_checked(path, max_bytes, size);
  if (size == 0) return;
  // MAP_POPULATE: the parser reads every byte; one call maps them all.
  void* mapping = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, file.fd, 0);
  if (mapping == MAP_FAILED) throw InputFileError(path, std::string("cannot read file: ") + std::strerror(errno));
  mapping_ = mapping;
  data_ = static_cast<const char*>(mapping);
  size_ = static_cast<size_t>(size);
}

MappedInputFile::~MappedInputFile() {
  if (mapping_) ::munmap(mapping_, size_);
}

}  // namespace smelt
