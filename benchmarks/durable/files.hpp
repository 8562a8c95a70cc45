// Scratch files of the durable benchmarks: in the system's temp directory (a local disk
// here; a network file system would measure the network), removed with their WAL files.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace bench {

class temp_db {
 public:
  explicit temp_db(std::string_view tag) {
    static std::atomic<int> counter{0};
    path_ =
        (std::filesystem::temp_directory_path() /
         ("sg-bench-" + std::string(tag) + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".db"))
            .string();
    remove();
  }
  ~temp_db() { remove(); }
  temp_db(const temp_db&) = delete;
  temp_db& operator=(const temp_db&) = delete;
  const std::string& path() const { return path_; }

  // The database file and its write-ahead log, in bytes.
  std::uintmax_t bytes() const { return size_of(path_) + size_of(path_ + "-wal"); }

 private:
  static std::uintmax_t size_of(const std::string& p) {
    std::error_code ec;
    auto n = std::filesystem::file_size(p, ec);
    return ec ? 0 : n;
  }
  void remove() const {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path_ + suffix, ec);
  }
  std::string path_;
};

}  // namespace bench
