// RAII over the SQLite C API for sg::sqlite_store: a connection, cached prepared
// statements, one use of a statement, a transaction. Every failure becomes a store_error
// that names the file, what was being done and SQLite's own message.
#pragma once

#include <stategraph/store/store.hpp>

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace stategraph::detail {

class sqlite_connection {
 public:
  sqlite_connection(std::string path, int flags) : path_(std::move(path)) {
    const int rc = sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
      // Even a failed open may allocate a handle; it carries the better message.
      std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      throw store_error("stategraph: cannot open SQLite store '" + path_ + "': " + why);
    }
  }
  ~sqlite_connection() { sqlite3_close_v2(db_); }
  sqlite_connection(const sqlite_connection&) = delete;
  sqlite_connection& operator=(const sqlite_connection&) = delete;

  sqlite3* handle() const noexcept { return db_; }
  const std::string& path() const noexcept { return path_; }

  [[noreturn]] void fail(std::string_view doing, int rc) const {
    if ((rc & 0xff) == SQLITE_NOTADB)
      throw store_format_error("stategraph: '" + path_ + "' is not a SQLite database, so not a checkpoint store (" +
                               sqlite3_errmsg(db_) + ")");
    // Damaged pages or a truncated file: not a usable store, whatever the header said.
    if ((rc & 0xff) == SQLITE_CORRUPT)
      throw store_format_error("stategraph: SQLite store '" + path_ + "' is damaged: " + std::string(doing) +
                               " failed: " + sqlite3_errmsg(db_) + " (SQLite code " + std::to_string(rc) + ")");
    throw store_error("stategraph: SQLite store '" + path_ + "': " + std::string(doing) +
                      " failed: " + sqlite3_errmsg(db_) + " (SQLite code " + std::to_string(rc) + ")");
  }

  void exec(const char* sql, std::string_view doing) const {
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(doing, rc);
  }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// A statement prepared once per connection and reused for every call.
class sqlite_statement {
 public:
  sqlite_statement(const sqlite_connection& db, std::string_view sql, std::string_view doing)
      : db_(&db), doing_(doing) {
    const int rc = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                      &stmt_, nullptr);
    if (rc != SQLITE_OK) db.fail("preparing " + std::string(doing), rc);
  }
  ~sqlite_statement() { sqlite3_finalize(stmt_); }
  sqlite_statement(const sqlite_statement&) = delete;
  sqlite_statement& operator=(const sqlite_statement&) = delete;

 private:
  friend class sqlite_query;
  const sqlite_connection* db_;
  std::string_view doing_;  // a literal: what the statement is for, in error messages
  sqlite3_stmt* stmt_ = nullptr;
};

// One execution of a cached statement: binds in order, steps, and resets on scope exit so
// a statement never keeps a read open nor holds views of freed parameters.
class sqlite_query {
 public:
  explicit sqlite_query(sqlite_statement& s) noexcept : s_(s) {}
  ~sqlite_query() {
    sqlite3_reset(s_.stmt_);
    sqlite3_clear_bindings(s_.stmt_);
  }
  sqlite_query(const sqlite_query&) = delete;
  sqlite_query& operator=(const sqlite_query&) = delete;

  sqlite_query& bind(std::int64_t v) {
    check(sqlite3_bind_int64(s_.stmt_, ++bound_, v));
    return *this;
  }
  // SQLITE_STATIC: the text outlives the step, and reset/clear happen before the caller's
  // views go away.
  sqlite_query& bind(std::string_view v) {
    check(sqlite3_bind_text64(s_.stmt_, ++bound_, v.data() != nullptr ? v.data() : "", v.size(), SQLITE_STATIC,
                              SQLITE_UTF8));
    return *this;
  }

  // Steps once: true with a row to read, false when done.
  bool next() {
    const int rc = sqlite3_step(s_.stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    s_.db_->fail(s_.doing_, rc);
  }
  void run() {
    while (next()) {
    }
  }

  std::int64_t int64(int column) const noexcept { return sqlite3_column_int64(s_.stmt_, column); }
  bool is_null(int column) const noexcept { return sqlite3_column_type(s_.stmt_, column) == SQLITE_NULL; }
  std::string_view text(int column) const noexcept {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_.stmt_, column));
    const auto n = static_cast<std::size_t>(sqlite3_column_bytes(s_.stmt_, column));  // after column_text
    return p != nullptr ? std::string_view(p, n) : std::string_view{};
  }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) s_.db_->fail(s_.doing_, rc);
  }
  sqlite_statement& s_;
  int bound_ = 0;
};

// BEGIN ... COMMIT, rolled back if the scope ends without commit() (a refusal, an error).
class sqlite_transaction {
 public:
  sqlite_transaction(sqlite_statement& begin, sqlite_statement& commit, sqlite_statement& rollback)
      : commit_(commit), rollback_(rollback) {
    sqlite_query(begin).run();
  }
  ~sqlite_transaction() {
    if (!done_) {
      // Nothing useful to do if the rollback itself fails: SQLite has already rolled
      // back on the errors that leave no transaction open.
      try {
        sqlite_query(rollback_).run();
      } catch (...) {
      }
    }
  }
  sqlite_transaction(const sqlite_transaction&) = delete;
  sqlite_transaction& operator=(const sqlite_transaction&) = delete;

  void commit() {
    sqlite_query(commit_).run();
    done_ = true;
  }

 private:
  sqlite_statement& commit_;
  sqlite_statement& rollback_;
  bool done_ = false;
};

}  // namespace stategraph::detail
