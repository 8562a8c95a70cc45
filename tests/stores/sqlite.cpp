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
#include <limits>
#include <optional>
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

TEST_CASE("sqlite: a file written before graph descriptions opens as it was and gains their tables") {
  temp_db file;
  {
    sg::sqlite_store s(file.path());
    put(s, "t", {{"x", 1, "a"}});
  }
  {
    raw_db raw(file.path());
    raw.exec("DROP TABLE graphs; DROP TABLE thread_graphs;");  // what a file of an older build holds
  }
  sg::sqlite_store s(file.path());
  CHECK(joined(*s.get("t"), "x") == "a");
  CHECK_FALSE(s.graph("t"));
  s.put_graph("t", "k", "{\"format\":1}");
  CHECK(s.graph("t") == "{\"format\":1}");
  CHECK(s.file_version() >= 0);
  raw_db raw(file.path());
  CHECK(raw.text("SELECT value FROM stategraph_store WHERE key = 'schema_version'") == "3");
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
                         doctest::Contains("schema version 99; this build reads version 3 and converts version 2; "
                                           "nothing was changed"),
                         sg::store_format_error);
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
                       doctest::Contains("schema version 1; this build reads version 3 and converts version 2; nothing "
                                         "converts version 1"),
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

TEST_CASE("sqlite: a corrupted value list or append chain is refused with store_format_error") {
  temp_db file;
  sg::sqlite_store s(file.path());
  put(s, "t", {{"x", 1, "1"}, {"m", 1, "a", true}});
  put(s, "t", {{"x", 1}, {"m", 2, "b", true}}, {.parent = 1});
  REQUIRE(joined(*s.get("t"), "m") == "a|b");
  SUBCASE("a value list that is not one") {
    for (const char* bad : {"1:m 1 1", "1:m 1 9:b", "1:m one 1:b", "0: 1 1:b", "2:m 1 1:b"}) {
      CAPTURE(bad);
      {
        raw_db raw(file.path());
        raw.exec(("UPDATE checkpoints SET vals = '" + std::string(bad) + "' WHERE id = 2").c_str());
      }
      CHECK_THROWS_WITH_AS(s.get("t"), doctest::Contains("checkpoint 2 of thread 't' has a corrupted value list"),
                           sg::store_format_error);
      CHECK_THROWS_WITH_AS(s.stats(), doctest::Contains("checkpoint 2 of thread 't' has a corrupted value list"),
                           sg::store_format_error);
    }
  }
  SUBCASE("an appended piece whose previous piece is gone") {
    {
      raw_db raw(file.path());
      raw.exec("UPDATE checkpoints SET vals = '1:x 0 1:1' WHERE id = 1");  // m's first piece removed
    }
    CHECK_THROWS_WITH_AS(s.get("t"), doctest::Contains("corrupted append chain for channel 'm'"),
                         sg::store_format_error);
    CHECK(joined(*s.get("t", 1), "m") == "<missing>");  // a value never written is left out
  }
}

TEST_CASE("sqlite: a put is one row: its new values are in the checkpoint's own row") {
  temp_db file;
  sg::sqlite_store s(file.path());
  put(s, "t", {{"x", 1, "one"}, {"m", 1, "a", true}});
  put(s, "t", {{"x", 1}, {"m", 2, "b", true}}, {.parent = 1});
  raw_db raw(file.path());
  CHECK(raw.text("SELECT count(*) FROM sqlite_master WHERE name = 'channel_values'") == "0");
  CHECK(raw.text("SELECT vals FROM checkpoints WHERE id = 1") == "1:x 0 3:one1:m 0 1:a");
  CHECK(raw.text("SELECT vals FROM checkpoints WHERE id = 2") == "1:m 1 1:b");  // x unchanged: not written
  CHECK(raw.text("SELECT channels FROM checkpoints WHERE id = 2") == "1:x 1 1\n1:m 2 2\n");
}

// A checkpoint's key is its thread's number * 2^32 + its id (detail::sqlite_key): each case
// here would read another thread's rows if a range or a key were off by one.
TEST_CASE("sqlite: rows are keyed by thread number and id, and never read across threads") {
  temp_db file;
  sg::sqlite_store s(file.path());
  for (const auto* t : {"b", "a", "c"}) put(s, t, {{"x", 1, std::string(t) + "1"}});
  put(s, "a", {{"x", 2, "a2"}}, {.parent = 1});
  {
    raw_db raw(file.path());
    CHECK(raw.text("SELECT group_concat(no || '=' || name, ',') FROM threads") == "1=b,2=a,3=c");
    CHECK(raw.text("SELECT group_concat(key, ',') FROM checkpoints") == "4294967297,8589934593,8589934594,12884901889");
    CHECK(raw.text("SELECT group_concat(id, ',') FROM checkpoints") == "1,1,2,1");
  }
  CHECK(joined(*s.get("a"), "x") == "a2");
  CHECK(joined(*s.get("b"), "x") == "b1");
  // Ids that would land in a neighbour's range if only added to the key.
  CHECK_FALSE(s.get("a", (std::int64_t{1} << 32) + 1));
  CHECK_FALSE(s.get("b", (std::int64_t{1} << 32) + 1));
  CHECK_FALSE(s.get("c", -((std::int64_t{1} << 32) - 1)));
  CHECK_FALSE(s.get("a", std::numeric_limits<std::int64_t>::max()));
  CHECK(s.list("a", {.before = std::numeric_limits<std::int64_t>::max()}).size() == 2);
  CHECK(s.list("a", {.before = (std::int64_t{1} << 32) + 1}).size() == 2);
  CHECK(s.list("c", {.before = -5}).empty());
  CHECK(s.list("a", {.before = 2}).size() == 1);
  const std::vector<sg::pending_write_put> w{{"n", 0, "x", "v"}};
  CHECK_THROWS_AS(s.put_writes("b", (std::int64_t{1} << 32) + 2, w), sg::store_refused_error);
  CHECK_THROWS_AS(put(s, "b", {{"x", 2, "b2"}}, {.parent = (std::int64_t{1} << 32) + 1}), sg::store_refused_error);

  // A deleted thread's number goes with it; the name returns with a new one, and another
  // connection that cached the old number sees the change.
  sg::sqlite_store other(file.path());
  CHECK(put(other, "c", {{"x", 2, "c2"}}, {.parent = 1}) == 2);
  CHECK(s.delete_thread("c"));
  CHECK(put(s, "d", {{"x", 1, "d1"}}) == 1);  // takes number 3 again
  CHECK(put(other, "c", {{"x", 1, "c-again"}}) == 1);
  CHECK(joined(*s.get("d"), "x") == "d1");
  CHECK(s.list("d").size() == 1);
  CHECK(joined(*s.get("c"), "x") == "c-again");
  CHECK(s.threads() == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(s.stats() == sg::store_stats{4, 5, 5, 15, 0});
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

// Two connections that open a new file together both read it in rollback mode, then both
// ask for the lock the switch to WAL needs; SQLite refuses one of them at once rather than
// let it wait while it holds its read lock. The store retries within its busy timeout.
TEST_CASE("sqlite: opening a new file waits for another connection's lock on it") {
  temp_db file;
  raw_db other(file.path());
  other.exec("BEGIN IMMEDIATE");  // the write lock a second opener would hold while switching
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    other.exec("COMMIT");
  });
  std::optional<sg::sqlite_store> s;
  CHECK_NOTHROW(s.emplace(file.path(), sg::sqlite_options{.busy_timeout = std::chrono::milliseconds(5000)}));
  release.join();
  REQUIRE(s);
  CHECK(put(*s, "t", {{"x", 1, "1"}}) == 1);
  CHECK(raw_db(file.path()).text("PRAGMA journal_mode") == "wal");

  // Held past the timeout, the lock is reported, and the file is left as it was.
  temp_db held;
  raw_db holder(held.path());
  holder.exec("BEGIN IMMEDIATE");
  CHECK_THROWS_WITH_AS(sg::sqlite_store(held.path(), {.busy_timeout = std::chrono::milliseconds(50)}),
                       doctest::Contains("database is locked"), sg::store_error);
  holder.exec("COMMIT");
  CHECK(raw_db(held.path()).text("PRAGMA journal_mode") == "delete");
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

// ---- converting a file of schema version 2 -------------------------------------------------

namespace {

// A file as the version-2 store wrote it (its schema, verbatim), holding what
// put_version_2_history puts: two threads, an append chain, a channel referring to an
// ancestor's value, a fork, a pending write.
void write_version_2(const std::string& path, bool orphan_value = false) {
  raw_db raw(path);
  raw.exec("PRAGMA journal_mode = WAL");
  raw.exec(R"sql(
CREATE TABLE stategraph_store (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE checkpoints (
  thread TEXT NOT NULL, id INTEGER NOT NULL, parent INTEGER NOT NULL, step INTEGER NOT NULL,
  source TEXT NOT NULL, format_version INTEGER NOT NULL, schema_hash TEXT NOT NULL, metadata TEXT NOT NULL,
  channels TEXT NOT NULL,
  PRIMARY KEY (thread, id)) WITHOUT ROWID;
CREATE TABLE channel_values (
  thread TEXT NOT NULL, origin INTEGER NOT NULL, channel TEXT NOT NULL, previous INTEGER NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (thread, origin, channel)) WITHOUT ROWID;
CREATE TABLE pending_writes (
  thread TEXT NOT NULL, checkpoint INTEGER NOT NULL, task TEXT NOT NULL, idx INTEGER NOT NULL,
  channel TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (thread, checkpoint, task, idx));
INSERT INTO stategraph_store VALUES ('schema_version', 2);
PRAGMA application_id = 1397191540;
INSERT INTO checkpoints VALUES
  ('t', 1, 0, 0, 'input', 1, 'h1', '{}', '1:x 1 1' || char(10) || '1:m 1 1' || char(10)),
  ('t', 2, 1, 1, 'loop', 1, 'h1', '{"a":1}', '1:x 1 1' || char(10) || '1:m 2 2' || char(10)),
  ('t', 3, 2, 2, 'loop', 1, 'h1', '{}', '1:x 2 3' || char(10) || '1:m 3 3' || char(10)),
  ('t', 4, 2, 2, 'fork', 1, 'h1', '{}', '1:x 1 1' || char(10) || '1:m 3 4' || char(10)),
  ('u', 1, 0, 0, 'loop', 1, 'h1', '{}', '1:y 1 1' || char(10));
INSERT INTO channel_values VALUES
  ('t', 1, 'x', 0, 'one'), ('t', 1, 'm', 0, 'a'), ('t', 2, 'm', 1, 'b'), ('t', 3, 'x', 0, 'two'),
  ('t', 3, 'm', 2, 'c'), ('t', 4, 'm', 2, 'z'), ('u', 1, 'y', 0, 'u1');
INSERT INTO pending_writes VALUES ('t', 2, 'agent', 0, 'm', 'w');
)sql");
  if (orphan_value) raw.exec("INSERT INTO channel_values VALUES ('t', 9, 'x', 0, 'lost')");
}

// The same history through the store's own puts.
void put_version_2_history(sg::sqlite_store& s) {
  put(s, "t", {{"x", 1, "one"}, {"m", 1, "a", true}}, {.source = sg::checkpoint_source::input});
  put(s, "t", {{"x", 1}, {"m", 2, "b", true}}, {.parent = 1, .step = 1, .metadata = R"({"a":1})"});
  std::vector<sg::pending_write_put> writes{{"agent", 0, "m", "w"}};
  s.put_writes("t", 2, writes);  // while 2 is the head
  put(s, "t", {{"x", 2, "two"}, {"m", 3, "c", true}}, {.parent = 2, .step = 2});
  put(s, "t", {{"x", 1}, {"m", 3, "z", true}},
      {.parent = 2, .step = 2, .source = sg::checkpoint_source::fork, .mode = sg::put_mode::fork});
  put(s, "u", {{"y", 1, "u1"}});
}

}  // namespace

TEST_CASE("sqlite: a file of schema version 2 is converted to version 3 when opened, keeping everything") {
  temp_db old_file, new_file;
  write_version_2(old_file.path());
  sg::sqlite_store fresh(new_file.path());
  put_version_2_history(fresh);

  sg::sqlite_store s(old_file.path());
  {
    raw_db raw(old_file.path());
    CHECK(raw.text("SELECT value FROM stategraph_store WHERE key = 'schema_version'") == "3");
    CHECK(raw.text("SELECT count(*) FROM sqlite_master WHERE name = 'channel_values'") == "0");
  }
  for (const auto* thread : {"t", "u"}) {
    CAPTURE(thread);
    CHECK(s.list(thread) == fresh.list(thread));
    for (const auto& info : fresh.list(thread)) CHECK(s.get(thread, info.id) == fresh.get(thread, info.id));
  }
  CHECK(joined(*s.get("t", 3), "m") == "a|b|c");
  CHECK(joined(*s.get("t", 4), "m") == "a|b|z");
  CHECK(joined(*s.get("t", 4), "x") == "one");
  CHECK(s.stats() == fresh.stats());
  CHECK(s.stats() == sg::store_stats{2, 5, 7, 12, 1});
  CHECK(s.threads() == std::vector<std::string>{"t", "u"});
  CHECK(s.pending_writes("t", 2) == std::vector<sg::pending_write>{{"agent", 0, "m", "w"}});
  // The converted thread continues: ids, the channel list and the append chain carry on.
  CHECK(put(s, "t", {{"x", 1}, {"m", 4, "d", true}}, {.parent = 4}) == 5);
  CHECK(joined(*s.get("t"), "m") == "a|b|z|d");
  // Opening it again finds version 3 and changes nothing.
  sg::sqlite_store again(old_file.path());
  CHECK(again.get("t") == s.get("t"));
}

TEST_CASE("sqlite: a conversion that fails changes nothing") {
  temp_db file;
  SUBCASE("a value of a checkpoint that does not exist") {
    write_version_2(file.path(), true);
    CHECK_THROWS_WITH_AS(sg::sqlite_store{file.path()},
                         doctest::Contains("thread 't' has values of checkpoint 9, which does not exist"),
                         sg::store_format_error);
  }
  SUBCASE("a checkpoint id that does not fit a key") {
    write_version_2(file.path());
    raw_db(file.path()).exec("UPDATE checkpoints SET id = 4294967296 WHERE thread = 'u'");
    CHECK_THROWS_WITH_AS(sg::sqlite_store{file.path()}, doctest::Contains("a checkpoint id is outside 1 .. 2^32 - 1"),
                         sg::store_format_error);
  }
  SUBCASE("another connection holds the write lock") {
    write_version_2(file.path());
    raw_db other(file.path());
    other.exec("BEGIN IMMEDIATE");
    CHECK_THROWS_WITH_AS((sg::sqlite_store{file.path(), {.busy_timeout = std::chrono::milliseconds(50)}}),
                         doctest::Contains("database is locked"), sg::store_error);
    other.exec("COMMIT");
  }
  raw_db raw(file.path());
  CHECK(raw.text("SELECT value FROM stategraph_store WHERE key = 'schema_version'") == "2");
  CHECK(raw.text("SELECT count(*) FROM channel_values") != "0");
  CHECK(raw.text("SELECT count(*) FROM pragma_table_info('checkpoints') WHERE name = 'vals'") == "0");
}

TEST_CASE("sqlite: processes that open a version-2 file at the same time convert it once") {
  temp_db file;
  write_version_2(file.path());
  std::vector<pid_t> children;
  for (int k = 0; k < 4; ++k) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int code = 0;
      try {
        sg::sqlite_store s(file.path());
        if (joined(*s.get("t", 3), "m") != "a|b|c") code = 2;
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
  CHECK(s.stats() == sg::store_stats{2, 5, 7, 12, 1});
}

namespace {

// Every read a store offers, on a file opened afresh: what "this file is usable" means.
void open_and_read_everything(const std::string& path) {
  sg::sqlite_store s(path);
  for (const auto& thread : s.threads()) {
    for (const auto& info : s.list(thread)) {
      (void)s.get(thread, info.id);
      (void)s.pending_writes(thread, info.id);
    }
    (void)s.get(thread);
  }
  (void)s.stats();
}

// A closed store of many pages (values past a page each, so overflow pages too).
void write_big_store(const std::string& path) {
  sg::sqlite_store s(path);
  for (int k = 1; k <= 60; ++k)
    put(s, "t", {{"x", k, std::string(2000, static_cast<char>('a' + k % 26))}, {"m", k, "p", true}},
        {.parent = k - 1});
}

}  // namespace

TEST_CASE("sqlite: a damaged file is refused with store_format_error, whatever part is damaged") {
  temp_db file;
  write_big_store(file.path());
  REQUIRE_NOTHROW(open_and_read_everything(file.path()));
  const std::string whole = file_bytes(file.path());
  REQUIRE(whole.size() > 100'000);

  SUBCASE("truncated to half (a store_error before; other not-a-store cases are store_format_error)") {
    std::filesystem::resize_file(file.path(), whole.size() / 2);
  }
  SUBCASE("truncated in the middle of a page") {
    std::filesystem::resize_file(file.path(), whole.size() / 2 + 1000);
  }
  SUBCASE("every page after the header scrambled (was: 'a stategraph store of schema version (none)')") {
    std::string scrambled = whole;
    std::uint32_t x = 2463534242u;
    for (std::size_t k = 4096; k < scrambled.size(); ++k) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      scrambled[k] = static_cast<char>(x);
    }
    std::ofstream(file.path(), std::ios::binary | std::ios::trunc) << scrambled;
  }
  const std::string damaged = file_bytes(file.path());
  std::string message;
  try {
    open_and_read_everything(file.path());
  } catch (const sg::store_format_error& e) {
    message = e.what();
  } catch (const std::exception& e) {
    FAIL("not a store_format_error: " << e.what());
  }
  INFO(message);
  CHECK(message.find("damaged") != std::string::npos);
  CHECK(message.find("(none)") == std::string::npos);
  CHECK(file_bytes(file.path()) == damaged);
}
