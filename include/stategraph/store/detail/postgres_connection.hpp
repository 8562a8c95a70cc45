// libpq underneath sg::postgres_store: parameters sent and results read in PostgreSQL's
// binary format (so every byte of a value goes through unescaped), a small pool of
// connections shared by the threads of a process, and the error kinds a store tells apart.
#pragma once

#include <stategraph/store/store.hpp>

#include <libpq-fe.h>
#include <unistd.h>

#include <bit>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stategraph {

// The server could not be reached or refused the connection: `target` names it (host or
// socket folder, port, database, user; never a password).
class postgres_connect_error : public store_error {
 public:
  postgres_connect_error(std::string target, std::string_view why)
      : store_error("stategraph: cannot connect to PostgreSQL at " + target + ": " + std::string(why)),
        target_(std::move(target)) {}
  const std::string& target() const noexcept { return target_; }

 private:
  std::string target_;
};

// A transient failure (serialization failure, deadlock, lost connection, server shutting
// down) that outlasted every retry. Nothing of the failed call was kept.
class postgres_transient_error : public store_error {
 public:
  postgres_transient_error(std::string_view message, std::string sqlstate, int attempts)
      : store_error(std::string(message)), sqlstate_(std::move(sqlstate)), attempts_(attempts) {}
  const std::string& sqlstate() const noexcept { return sqlstate_; }  // empty for a lost connection
  int attempts() const noexcept { return attempts_; }

 private:
  std::string sqlstate_;
  int attempts_;
};

namespace detail {

// PostgreSQL's type ids for the parameters the store sends (pg_type.h, stable since 8.x).
enum class pg_type : Oid {
  boolean = 16,
  bytea = 17,
  int8 = 20,
  int4 = 23,
  text = 25,
  bytea_array = 1001,
  int4_array = 1007,
  int8_array = 1016,
};

inline void pg_put_be(std::string& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// One call's parameters, binary. Byte strings are sent from the caller's memory; numbers
// and arrays are encoded into storage that does not move while the call runs.
class pg_params {
 public:
  pg_params& bytes(std::string_view v) { return add(pg_type::bytea, v); }
  pg_params& text(std::string_view v) { return add(pg_type::text, v); }
  pg_params& int8(std::int64_t v) {
    std::string& s = own_.emplace_back();
    pg_put_be(s, static_cast<std::uint64_t>(v), 8);
    return add(pg_type::int8, s);
  }
  pg_params& int4(std::int32_t v) {
    std::string& s = own_.emplace_back();
    pg_put_be(s, static_cast<std::uint32_t>(v), 4);
    return add(pg_type::int4, s);
  }
  pg_params& null(pg_type type) {
    types_.push_back(static_cast<Oid>(type));
    values_.push_back(nullptr);
    lengths_.push_back(0);
    formats_.push_back(1);
    return *this;
  }
  pg_params& boolean(bool v) {
    std::string& s = own_.emplace_back(1, v ? '\1' : '\0');
    return add(pg_type::boolean, s);
  }
  // A one-dimensional array without NULLs: `each(out, i)` appends element i's bytes.
  template <class Each>
  pg_params& array(pg_type type, pg_type element, std::size_t count, Each each) {
    std::string& s = own_.emplace_back();
    pg_put_be(s, count == 0 ? 0 : 1, 4);  // dimensions
    pg_put_be(s, 0, 4);                   // no NULLs
    pg_put_be(s, static_cast<Oid>(element), 4);
    if (count != 0) {
      pg_put_be(s, count, 4);
      pg_put_be(s, 1, 4);  // lower bound
    }
    std::string item;
    for (std::size_t i = 0; i < count; ++i) {
      item.clear();
      each(item, i);
      pg_put_be(s, item.size(), 4);
      s += item;
    }
    return add(type, s);
  }

  int size() const noexcept { return static_cast<int>(values_.size()); }
  const Oid* types() const noexcept { return types_.data(); }
  const char* const* values() const noexcept { return values_.data(); }
  const int* lengths() const noexcept { return lengths_.data(); }
  const int* formats() const noexcept { return formats_.data(); }

 private:
  pg_params& add(pg_type type, std::string_view v) {
    types_.push_back(static_cast<Oid>(type));
    values_.push_back(v.data() != nullptr ? v.data() : "");
    lengths_.push_back(static_cast<int>(v.size()));
    formats_.push_back(1);
    return *this;
  }
  std::deque<std::string> own_;  // a deque's elements stay where they are as it grows
  std::vector<Oid> types_;
  std::vector<const char*> values_;
  std::vector<int> lengths_, formats_;
};

// A result in binary format; columns read by position.
class pg_result {
 public:
  explicit pg_result(PGresult* r) : r_(r, PQclear) {}
  int rows() const noexcept { return PQntuples(r_.get()); }
  bool is_null(int row, int col) const noexcept { return PQgetisnull(r_.get(), row, col) != 0; }
  std::string_view bytes(int row, int col) const noexcept {
    return {PQgetvalue(r_.get(), row, col), static_cast<std::size_t>(PQgetlength(r_.get(), row, col))};
  }
  // An integer column of any width (int2, int4, int8), big-endian on the wire.
  std::int64_t integer(int row, int col) const {
    const auto b = bytes(row, col);
    if (b.size() != 2 && b.size() != 4 && b.size() != 8)
      throw store_format_error("stategraph: PostgreSQL store: an integer column has " + std::to_string(b.size()) +
                               " bytes");
    std::uint64_t v = 0;
    for (char c : b) v = (v << 8) | static_cast<unsigned char>(c);
    const int shift = 64 - 8 * static_cast<int>(b.size());  // sign-extends the narrower widths
    return static_cast<std::int64_t>(v << shift) >> shift;
  }
  bool boolean(int row, int col) const { return bytes(row, col) == std::string_view("\1", 1); }
  PGresult* get() const noexcept { return r_.get(); }

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> r_;
};

// The parts of a connection string that name the server, never its password.
inline std::string pg_target(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (options == nullptr) {
    std::string why = error != nullptr ? error : "cannot be parsed";
    if (error != nullptr) PQfreemem(error);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return "(a connection string that libpq cannot parse: " + why + ")";
  }
  std::string out;
  for (const char* key : {"host", "hostaddr", "port", "dbname", "user"})
    for (PQconninfoOption* o = options; o->keyword != nullptr; ++o)
      if (std::strcmp(o->keyword, key) == 0 && o->val != nullptr && *o->val != '\0')
        out += (out.empty() ? "" : " ") + std::string(key) + "=" + o->val;
  PQconninfoFree(options);
  return out.empty() ? "(libpq's defaults)" : out;
}

inline std::string pg_trimmed(const char* message) {
  std::string s = message != nullptr ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// One connection and the statements prepared on it so far (prepared statements belong to a
// server session, so a new connection prepares them again).
struct pg_connection {
  PGconn* handle = nullptr;
  std::uint64_t prepared = 0;  // bit i: statement i is prepared on this session
  ~pg_connection() {
    if (handle != nullptr) PQfinish(handle);
  }
};

// At most `size` connections, opened when first needed and kept; a caller beyond that waits
// for one to come back. A child process made by fork() must not talk on its parent's
// sockets, so a pool used from another process abandons the connections it inherited.
class pg_pool {
 public:
  pg_pool(std::string conninfo, std::size_t size, std::string setup)
      : conninfo_(std::move(conninfo)), setup_(std::move(setup)), size_(size == 0 ? 1 : size), pid_(::getpid()) {}
  pg_pool(const pg_pool&) = delete;
  pg_pool& operator=(const pg_pool&) = delete;
  ~pg_pool() {
    if (pid_ != ::getpid()) abandon();
  }

  const std::string& conninfo() const noexcept { return conninfo_; }

  std::unique_ptr<pg_connection> take() {
    std::unique_lock lock(mutex_);
    if (pid_ != ::getpid()) {
      abandon();
      pid_ = ::getpid();
    }
    cv_.wait(lock, [&] { return !idle_.empty() || open_ < size_; });
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
    ++open_;
    lock.unlock();
    try {
      return connect();
    } catch (...) {
      lock.lock();
      --open_;
      cv_.notify_one();
      throw;
    }
  }
  // A connection that failed (or may be in an unknown state) is closed, not kept.
  void give_back(std::unique_ptr<pg_connection> c, bool healthy) {
    std::lock_guard lock(mutex_);
    if (healthy && PQstatus(c->handle) == CONNECTION_OK && PQtransactionStatus(c->handle) == PQTRANS_IDLE)
      idle_.push_back(std::move(c));
    else
      --open_;
    cv_.notify_one();
  }

  std::unique_ptr<pg_connection> connect() const {
    auto c = std::make_unique<pg_connection>();
    c->handle = PQconnectdb(conninfo_.c_str());
    if (c->handle == nullptr) throw postgres_connect_error(pg_target(conninfo_), "libpq is out of memory");
    if (PQstatus(c->handle) != CONNECTION_OK)
      throw postgres_connect_error(pg_target(conninfo_), pg_trimmed(PQerrorMessage(c->handle)));
    PQsetNoticeProcessor(c->handle, [](void*, const char*) {}, nullptr);  // no NOTICEs on stderr
    if (!setup_.empty()) {
      pg_result r(PQexec(c->handle, setup_.c_str()));
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK)
        throw store_error("stategraph: PostgreSQL store at " + pg_target(conninfo_) +
                          ": setting up a connection: " + pg_trimmed(PQerrorMessage(c->handle)));
    }
    return c;
  }

 private:
  // Leaves the inherited connections' memory and sockets alone: closing them properly would
  // end the parent's sessions.
  void abandon() {
    for (auto& c : idle_) c->handle = nullptr;
    idle_.clear();
    open_ = 0;
  }

  std::string conninfo_, setup_;
  std::size_t size_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<pg_connection>> idle_;
  std::size_t open_ = 0;
  pid_t pid_;
};

}  // namespace detail
}  // namespace stategraph
