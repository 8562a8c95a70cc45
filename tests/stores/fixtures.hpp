// One fixture per store: how the conformance suite makes a fresh, empty store. A new store
// adds a fixture here and to STORE_FIXTURES; every case then runs on it. The PostgreSQL
// fixture needs a server, so its cases build into a binary of their own (SG_TEST_POSTGRES).
#pragma once

#include <stategraph/store/any.hpp>
#include <stategraph/store/memory.hpp>
#include <stategraph/store/sqlite.hpp>
#include <stategraph/store/store.hpp>

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../common/temp_db.hpp"

namespace sg = stategraph;

namespace store_test {

struct memory_fixture {
  using store_type = sg::memory_store;
  // Whether a second handle (another connection, another process) sees the same data.
  static constexpr bool shared_backing = false;
  std::unique_ptr<sg::memory_store> store = std::make_unique<sg::memory_store>();
};

// A path no other test (or concurrent run of the suite) uses; removed with its WAL files.
struct temp_db : sg_test::temp_db {
  temp_db() : sg_test::temp_db("store-test") {}
};

struct sqlite_fixture {
  using store_type = sg::sqlite_store;
  static constexpr bool shared_backing = true;
  temp_db file;
  std::unique_ptr<sg::sqlite_store> store = open();

  std::unique_ptr<sg::sqlite_store> open() const { return std::make_unique<sg::sqlite_store>(file.path()); }
};

// The SQLite store behind sg::any_store: every case also checks that any_store forwards
// each call, result and error unchanged.
struct any_fixture {
  using store_type = sg::any_store;
  static constexpr bool shared_backing = true;
  temp_db file;
  std::unique_ptr<sg::any_store> store = open();
  std::unique_ptr<sg::any_store> open() const {
    return std::make_unique<sg::any_store>(std::make_unique<sg::sqlite_store>(file.path()));
  }
};

// A channel of a put, owning its strings so a case reads as a table.
struct ch {
  std::string name;
  std::int64_t version = 1;
  std::optional<std::string> value{};
  bool append = false;
};

struct put_args {
  std::int64_t parent = sg::no_checkpoint;
  std::int64_t step = 0;
  sg::checkpoint_source source = sg::checkpoint_source::loop;
  std::string metadata = "{}";
  std::string schema_hash = "h1";
  int format_version = 1;
  sg::put_mode mode = sg::put_mode::continue_head;
};

template <class Store>
std::int64_t put(Store& s, std::string_view thread, std::vector<ch> channels, put_args a = {}) {
  std::vector<sg::channel_put> views;
  for (const auto& c : channels)
    views.push_back({c.name, c.version, c.value ? std::optional<std::string_view>(*c.value) : std::nullopt, c.append});
  return s.put(
      sg::checkpoint_put{thread, a.parent, a.step, a.source, a.format_version, a.schema_hash, a.metadata, views, a.mode});
}

// The whole value of a channel of a stored checkpoint, pieces joined with '|'.
inline std::string joined(const sg::stored_checkpoint& cp, std::string_view channel) {
  for (const auto& c : cp.channels)
    if (c.channel == channel) {
      std::string out = c.value;
      for (const auto& piece : c.appends) out += "|" + piece;
      return out;
    }
  return "<missing>";
}

template <class Store>
std::vector<std::int64_t> ids(const Store& s, std::string_view thread, sg::list_options o = {}) {
  std::vector<std::int64_t> out;
  for (const auto& info : s.list(thread, o)) out.push_back(info.id);
  return out;
}

}  // namespace store_test

#ifdef SG_TEST_POSTGRES
#include "postgres_fixture.hpp"
#define STORE_FIXTURES store_test::postgres_fixture
#else
#define STORE_FIXTURES store_test::memory_fixture, store_test::sqlite_fixture, store_test::any_fixture
#endif
