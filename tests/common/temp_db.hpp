// A SQLite file path in the temp directory, unique per process and object, removed (with its
// WAL and journal files) before use and on destruction. Shared by the store and durable tests.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace sg_test {

class temp_db {
 public:
  explicit temp_db(std::string_view tag = "test") {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("sg-" + std::string(tag) + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".db"))
                .string();
    remove();
  }
  ~temp_db() { remove(); }
  temp_db(const temp_db&) = delete;
  temp_db& operator=(const temp_db&) = delete;
  const std::string& path() const { return path_; }

 private:
  void remove() const {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path_ + suffix, ec);
  }
  std::string path_;
};

}  // namespace sg_test
