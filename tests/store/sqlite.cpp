// What only a file-backed store has: persistence, the file's format, locks held by others.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

using namespace store_test;

namespace {

// A plain SQLite connection, to look at or tamper with the file behind the store's back.
class raw_db {
 public:
  explicit raw_db(const std::string& path) { REQUIRE(sqlite3_open(path.c_str(), &db_) == SQLITE_OK); }
  ~raw_db() { sqlite3_close(db_); }
  raw_db(const raw_db&) = delete;
  raw_db& operator=(const raw_db&) = delete;
  void exec(const char* sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
    INFO(sql << ": " << (err ? err : ""));
    sqlite3_free(err);
    REQUIRE(rc == SQLITE_OK);
  }
  std::string text(const char* sql) {
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) == SQLITE_OK);
    std::string out;
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0) != nullptr)
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("sqlite: everything survives closing and reopening the file") {
  temp_db file;
  std::vector<sg::pending_write_put> writes{{"agent", 0, "messages", "w"}};
  sg::stored_checkpoint latest;
  std::vector<sg::checkpoint_info> history;
  sg::store_stats stats;
  {
    sg::sqlite_store s(file.path());
    put(s, "t", {{"messages", 1, "a", true}, {"calls", 1, "0"}}, {.source = sg::checkpoint_source::input});
    put(s, "t", {{"messages", 2, "b", true}, {"calls", 2, "1"}}, {.parent = 1, .step = 1});
    put(s, "u", {{"x", 1, "u1"}});
    s.put_writes("t", 2, writes);
    latest = *s.get("t");
    history = s.list("t");
    stats = s.stats();
  }
  sg::sqlite_store s(file.path());
  CHECK(s.get("t") == latest);
  CHECK(joined(latest, "messages") == "a|b");
  CHECK(s.list("t") == history);
  CHECK(s.stats() == stats);
  CHECK(s.threads() == std::vector<std::string>{"t", "u"});
  CHECK(s.pending_writes("t", 2) == std::vector<sg::pending_write>{{"agent", 0, "messages", "w"}});
  CHECK(put(s, "t", {{"messages", 2}, {"calls", 2}}, {.parent = 2}) == 3);  // ids continue
}

TEST_CASE("sqlite: the file is WAL, marked as a store, with a schema version") {
  temp_db file;
  { sg::sqlite_store s(file.path()); }
  raw_db raw(file.path());
  CHECK(raw.text("PRAGMA journal_mode") == "wal");
  CHECK(raw.text("PRAGMA application_id") == std::to_string(0x53477374));
  CHECK(raw.text("SELECT value FROM stategraph_store WHERE key = 'schema_version'") ==
        std::to_string(sg::sqlite_store::schema_version));
}

TEST_CASE("sqlite: a file that is not a store is refused and left unchanged") {
  temp_db file;
  SUBCASE("not a database") {
    const std::string text = "this is a text file, not a SQLite database, long enough to have a header..........";
    std::ofstream(file.path(), std::ios::binary) << text;
    CHECK_THROWS_WITH_AS(sg::sqlite_store{file.path()}, doctest::Contains("is not a SQLite database"),
                         sg::store_format_error);
    CHECK(file_bytes(file.path()) == text);
  }
  SUBCASE("another application's database") {
    {
      raw_db raw(file.path());
      raw.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');");
    }
    const auto before = file_bytes(file.path());
    CHECK_THROWS_WITH_AS(sg::sqlite_store{file.path()}, doctest::Contains("not a stategraph checkpoint store"),
                         sg::store_format_error);
    CHECK(file_bytes(file.path()) == before);
    raw_db raw(file.path());
    CHECK(raw.text("PRAGMA journal_mode") == "delete");  // not switched to WAL
    CHECK(raw.text("SELECT body FROM notes") == "keep me");
  }
  SUBCASE("a store of another schema version") {
    { sg::sqlite_store s(file.path()); }
    {
      raw_db raw(file.path());
      raw.exec("UPDATE stategraph_store SET value = 99 WHERE key = 'schema_version'");
    }
    CHECK_THROWS_WITH_AS(sg::sqlite_store{file.path()},
                         doctest::Contains("schema version 99; this build reads version 2"), sg::store_format_error);
  }
}

TEST_CASE("sqlite: a file of the old layout (schema version 1) is refused and left unchanged") {
  temp_db file;
  {
    raw_db raw(file.path());
    raw.exec(
        "PRAGMA application_id = 1397191540;"
        "CREATE TABLE stategraph_store (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;"
        "INSERT INTO stategraph_store VALUES ('schema_version', 1);"
        "CREATE TABLE checkpoint_channels (thread TEXT, checkpoint INTEGER, channel TEXT);");
  }
  const auto before = file_bytes(file.path());
  CHECK_THROWS_WITH_AS(sg::sqlite_store{file.path()},
                       doctest::Contains("schema version 1; this build reads version 2 only; nothing was changed"),
                       sg::store_format_error);
  CHECK(file_bytes(file.path()) == before);
}

TEST_CASE("sqlite: a corrupted channel list is refused with store_format_error") {
  temp_db file;
  sg::sqlite_store s(file.path());
  put(s, "t", {{"x", 1, "1"}, {"y", 1, "2"}});
  for (const char* bad : {"1:x 1", "9:x 1 1\n", "1:x one 1\n", "0: 1 1\n", "1:x 1 1\n1:y"}) {
    CAPTURE(bad);
    {
      raw_db raw(file.path());
      raw.exec(("UPDATE checkpoints SET channels = '" + std::string(bad) + "'").c_str());
    }
    CHECK_THROWS_WITH_AS(s.get("t"), doctest::Contains("corrupted channel list"), sg::store_format_error);
    CHECK_THROWS_AS(put(s, "t", {{"x", 1}, {"y", 2, "3"}}, {.parent = 1}), sg::store_format_error);
  }
}

TEST_CASE("sqlite: channel names of any bytes round-trip through the channel list") {
  temp_db file;
  sg::sqlite_store s(file.path());
  const std::vector<std::string> names{"a b", "1:x 2 3\n", "\n", ":", "12", "caf\xc3\xa9"};
  std::vector<ch> first, second;
  for (std::size_t k = 0; k < names.size(); ++k) {
    first.push_back({names[k], 1, "v" + std::to_string(k)});
    second.push_back({names[k], k % 2 == 0 ? 1 : 2, k % 2 == 0 ? std::nullopt : std::optional<std::string>("w")});
  }
  put(s, "t", first);
  put(s, "t", second, {.parent = 1});
  const auto cp = *s.get("t");
  REQUIRE(cp.channels.size() == names.size());
  for (std::size_t k = 0; k < names.size(); ++k) {
    CHECK(cp.channels[k].channel == names[k]);
    CHECK(cp.channels[k].version == (k % 2 == 0 ? 1 : 2));
    CHECK(cp.channels[k].value == (k % 2 == 0 ? "v" + std::to_string(k) : "w"));
  }
}

// A store keeps the last id and channels it wrote, trusted only while no other connection
// has committed (PRAGMA data_version): each case here makes another connection commit in
// between and checks the store saw it.
TEST_CASE("sqlite: puts see what other connections committed in between") {
  temp_db file;
  sg::sqlite_store a(file.path());
  sg::sqlite_store b(file.path());
  CHECK(put(a, "t", {{"x", 1, "1"}, {"y", 1, "y"}}) == 1);
  CHECK(put(b, "t", {{"x", 2, "2"}, {"y", 1}}, {.parent = 1}) == 2);
  // a's own last put was 1; the thread's last id is now 2, and checkpoint 2's channels
  // are b's: x at version 2, so a put without a value for x@2 resolves.
  CHECK(put(a, "t", {{"x", 2}, {"y", 2, "z"}}, {.parent = 2}) == 3);
  CHECK(joined(*a.get("t"), "x") == "2");
  CHECK(joined(*b.get("t"), "y") == "z");

  // A thread deleted by another connection: a's cached parent no longer exists.
  CHECK(b.delete_thread("t"));
  CHECK_THROWS_AS(put(a, "t", {{"x", 3, "3"}, {"y", 2}}, {.parent = 3}), sg::store_refused_error);
  CHECK(put(a, "t", {{"x", 1, "fresh"}}) == 1);  // ids start again

  // The same thread written in turn by both, appends included.
  std::int64_t last = 1;
  for (int i = 2; i <= 6; ++i) {
    auto& writer = i % 2 == 0 ? b : a;
    last = put(writer, "t", {{"x", i, "+" + std::to_string(i), true}}, {.parent = last});
    CHECK(last == i);
  }
  CHECK(joined(*a.get("t"), "x") == "fresh|+2|+3|+4|+5|+6");

  // A refused put leaves the store's own memory of the thread as it was.
  CHECK_THROWS_AS(put(a, "t", {{"x", 9}}, {.parent = last}), sg::store_refused_error);
  CHECK(put(a, "t", {{"x", 6}}, {.parent = last}) == 7);
  CHECK(joined(*b.get("t"), "x") == "fresh|+2|+3|+4|+5|+6");
}

TEST_CASE("sqlite: a file that cannot be opened says why") {
  CHECK_THROWS_WITH_AS(sg::sqlite_store{"/nonexistent-directory/sg/store.db"},
                       doctest::Contains("unable to open database file"), sg::store_error);
}

TEST_CASE("sqlite: a writer waits for another's lock, then fails cleanly") {
  temp_db file;
  sg::sqlite_store s(file.path(), {.busy_timeout = std::chrono::milliseconds(50)});
  put(s, "t", {{"x", 1, "1"}});
  const auto stats = s.stats();
  raw_db other(file.path());
  other.exec("BEGIN IMMEDIATE");
  CHECK_THROWS_WITH_AS(put(s, "t", {{"x", 2, "2"}}, {.parent = 1}), doctest::Contains("database is locked"),
                       sg::store_error);
  other.exec("COMMIT");
  CHECK(s.stats() == stats);
  CHECK(put(s, "t", {{"x", 2, "2"}}, {.parent = 1}) == 2);

  // A lock released within the timeout is waited for, not reported.
  sg::sqlite_store patient(file.path(), {.busy_timeout = std::chrono::milliseconds(5000)});
  other.exec("BEGIN IMMEDIATE");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    other.exec("COMMIT");
  });
  CHECK(put(patient, "t", {{"x", 3, "3"}}, {.parent = 2}) == 3);
  release.join();
}

TEST_CASE("sqlite: processes that open a new file at the same time all succeed") {
  temp_db file;
  std::vector<pid_t> children;
  for (int k = 0; k < 4; ++k) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int code = 0;
      try {
        sg::sqlite_store s(file.path());
        put(s, "p" + std::to_string(k), {{"x", 1, std::to_string(k)}});
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", k, e.what());
        code = 1;
      }
      ::_exit(code);
    }
    REQUIRE(pid > 0);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  sg::sqlite_store s(file.path());
  CHECK(s.threads() == std::vector<std::string>{"p0", "p1", "p2", "p3"});
}

TEST_CASE("sqlite: a growing history grows the file by what is new") {
  temp_db file;
  constexpr int steps = 300;
  const std::string message(100, 'm');
  {
    sg::sqlite_store s(file.path());
    std::int64_t last = put(s, "t", {{"messages", 1, message, true}, {"calls", 1, "1"}});
    std::size_t bytes = message.size() + 1;
    for (int i = 2; i <= steps; ++i) {
      last = put(s, "t", {{"messages", i, message, true}, {"calls", i, std::to_string(i)}}, {.parent = last});
      bytes += message.size() + std::to_string(i).size();
    }
    CHECK(s.stats().value_bytes == bytes);
    CHECK(joined(*s.get("t"), "messages").size() == steps * message.size() + (steps - 1));
  }
  {
    raw_db raw(file.path());
    raw.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  // Re-writing the whole history every step would put ~4.5 MB of messages in the file.
  const auto size = std::filesystem::file_size(file.path());
  MESSAGE("file after " << steps << " appended messages of 100 bytes: " << size << " bytes");
  CHECK(size < 256 * 1024);
}
