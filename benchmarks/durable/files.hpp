// Scratch files of the durable benchmarks: in the system's temp directory (a local disk
// here; a network file system would measure the network), removed with their WAL files.
// The file itself is the tests' temp_db; the benchmarks also read its size.
#pragma once

#include "../../tests/common/temp_db.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace bench {

class temp_db : public sg_test::temp_db {
 public:
  explicit temp_db(std::string_view tag) : sg_test::temp_db("bench-" + std::string(tag)) {}

  // The database file and its write-ahead log, in bytes.
  std::uintmax_t bytes() const { return size_of(path()) + size_of(path() + "-wal"); }

 private:
  static std::uintmax_t size_of(const std::string& p) {
    std::error_code ec;
    auto n = std::filesystem::file_size(p, ec);
    return ec ? 0 : n;
  }
};

}  // namespace bench
