// W5 loop200 with sg::sqlite_store, and its limit: the raw SQLite insert of the same bytes.
#include "recording_store.hpp"
#include "workloads.hpp"

#include <sqlite3.h>

#include <stdexcept>

namespace bench {

State w5_sqlite(sg::sqlite_store& store, const sg::thread_id& thread) {
  const auto app = sg::compile<w5::graph>(sg::with_store(store));
  return app.invoke(State{}, thread);
}

State w5_sqlite_async(sg::sqlite_store& store, const sg::thread_id& thread) {
  const auto app = sg::compile<w5::graph>(sg::with_store(store));
  return app.invoke(State{}, thread, sg::run_config{.durability = sg::durability::async});
}

std::vector<put_record> w5_record(bool keep_texts) {
  // What the runtime hands a store does not depend on the store, so a memory store is
  // enough to learn it.
  sg::memory_store memory;
  recording_store<sg::memory_store> store(memory, keep_texts);
  const auto app = sg::compile<w5::graph>(sg::with_store(store));
  const State out = app.invoke(State{}, sg::thread_id{"w5"});
  if (out.counter != w5::rounds) throw std::runtime_error("w5_record: the loop did not run 200 steps");
  return std::move(store.puts);
}

// The least a SQLite-backed store can do per checkpoint: one prepared INSERT of the
// checkpoint's bytes as one row, in a transaction of its own, on a connection set up as
// sg::sqlite_store sets up its own (WAL, synchronous=NORMAL, the same busy timeout, a write
// transaction taken with BEGIN IMMEDIATE).
struct raw_sqlite::impl {
  sqlite3* db = nullptr;
  sqlite3_stmt* begin = nullptr;
  sqlite3_stmt* insert = nullptr;
  sqlite3_stmt* commit = nullptr;

  void check(int rc, const char* doing) const {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
      throw std::runtime_error(std::string("raw_sqlite: ") + doing + ": " + sqlite3_errmsg(db));
  }
  void exec(const char* sql) { check(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), sql); }
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    check(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), sql);
    return s;
  }
  void step(sqlite3_stmt* s, const char* doing) {
    const int rc = sqlite3_step(s);
    sqlite3_reset(s);
    check(rc, doing);
  }
};

raw_sqlite::raw_sqlite(const std::string& path) : impl_(new impl) {
  if (sqlite3_open_v2(path.c_str(), &impl_->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string why = impl_->db ? sqlite3_errmsg(impl_->db) : "out of memory";
    sqlite3_close(impl_->db);
    delete impl_;
    throw std::runtime_error("raw_sqlite: cannot open " + path + ": " + why);
  }
  sqlite3_busy_timeout(impl_->db, static_cast<int>(sg::sqlite_options{}.busy_timeout.count()));
  impl_->exec("PRAGMA journal_mode = WAL");
  impl_->exec("PRAGMA synchronous = NORMAL");  // sg::sqlite_options{}.synchronous
  impl_->exec("CREATE TABLE IF NOT EXISTS raw (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
  impl_->begin = impl_->prepare("BEGIN IMMEDIATE");
  impl_->insert = impl_->prepare("INSERT INTO raw (value) VALUES (?1)");
  impl_->commit = impl_->prepare("COMMIT");
}

raw_sqlite::~raw_sqlite() {
  for (auto* s : {impl_->begin, impl_->insert, impl_->commit}) sqlite3_finalize(s);
  sqlite3_close(impl_->db);
  delete impl_;
}

std::int64_t raw_sqlite::insert_each(const std::vector<std::string>& rows) {
  for (const auto& row : rows) {
    impl_->step(impl_->begin, "BEGIN IMMEDIATE");
    sqlite3_bind_text(impl_->insert, 1, row.data(), static_cast<int>(row.size()), SQLITE_STATIC);
    impl_->step(impl_->insert, "INSERT");
    impl_->step(impl_->commit, "COMMIT");
  }
  return sqlite3_last_insert_rowid(impl_->db);
}

}  // namespace bench
