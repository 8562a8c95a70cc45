// What sg::any_store adds to the store it wraps: ownership, the wrapped store back, and
// file_version where the store has one. Every conformance case also runs through it
// (any_fixture in fixtures.hpp).
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>

using namespace store_test;

namespace {

// A memory store that says when it is destroyed.
struct watched_store : sg::memory_store {
  explicit watched_store(bool& gone) : gone(&gone) {}
  ~watched_store() { *gone = true; }
  bool* gone;
};

}  // namespace

TEST_CASE("any_store: made from a unique_ptr it owns the store, and the last copy destroys it") {
  bool gone = false;
  {
    sg::any_store first(std::make_unique<watched_store>(gone));
    put(first, "t", {{"a", 1, "1"}});
    {
      sg::any_store copy = first;
      first = sg::any_store(std::make_unique<sg::memory_store>());
      CHECK_FALSE(gone);
      // The copy still holds the watched store's thread; the reassigned one does not.
      CHECK(copy.list("t").size() == 1);
      CHECK(first.list("t").empty());
    }
    CHECK(gone);
  }
}

TEST_CASE("any_store: made from a reference it only refers, and writes land in the store") {
  sg::memory_store inner;
  {
    sg::any_store view(inner);
    const auto id = put(view, "t", {{"a", 1, "1"}});
    CHECK(id == 1);
    CHECK(view.target<sg::memory_store>() == &inner);
    CHECK(view.target<sg::sqlite_store>() == nullptr);
  }
  // The any_store is gone; the store and its checkpoint are not.
  REQUIRE(inner.get("t"));
  CHECK(joined(*inner.get("t"), "a") == "1");
}

TEST_CASE("any_store: an empty unique_ptr is refused at construction") {
  CHECK_THROWS_AS(sg::any_store(std::unique_ptr<sg::memory_store>{}), std::invalid_argument);
}

TEST_CASE("any_store: file_version is the SQLite store's, and 0 for a store without one") {
  temp_db file;
  sg::any_store mine(std::make_unique<sg::sqlite_store>(file.path()));
  sg::sqlite_store other(file.path());
  const auto before = mine.file_version();
  put(other, "t", {{"a", 1, "1"}});
  CHECK(mine.file_version() != before);
  CHECK(mine.file_version() == mine.target<sg::sqlite_store>()->file_version());

  sg::memory_store memory;
  sg::any_store in_memory(memory);
  put(in_memory, "t", {{"a", 1, "1"}});
  CHECK(in_memory.file_version() == 0);
}

TEST_CASE("any_store: a refusal of the wrapped store comes through as the same error") {
  sg::memory_store inner;
  sg::any_store view(inner);
  put(view, "t", {{"a", 1, "1"}});
  // A continuing put whose parent is not the head: the memory store's conflict_error.
  put(view, "t", {{"a", 2, "2"}}, {.parent = 1});
  CHECK_THROWS_AS(put(view, "t", {{"a", 3, "3"}}, {.parent = 1}), sg::conflict_error);
  CHECK(view.list("t").size() == 2);
}
