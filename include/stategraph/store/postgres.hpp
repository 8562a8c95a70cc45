// sg::postgres_store: checkpoints in a PostgreSQL database, for many processes on many
// machines sharing threads. Safe for many threads of a process: a call takes a connection
// from the store's small pool (postgres_options::pool_size) and gives it back, so up to that
// many calls run at once and the rest wait. Every query sends its values as bound
// parameters. Needs libpq (Debian: libpq-dev): link PostgreSQL::PostgreSQL (CMake's
// find_package(PostgreSQL)). The tables live in one schema, made and versioned on first use.
#pragma once

#include <stategraph/store/detail/postgres_connection.hpp>
#include <stategraph/store/detail/postgres_schema.hpp>
#include <stategraph/store/store.hpp>

#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

struct postgres_options {
  // The schema the store's tables live in (made if missing): one database can hold several
  // stores side by side.
  std::string schema = "public";
  std::size_t pool_size = 4;  // connections at most; more concurrent calls wait for one
  // A call that meets a serialization failure, a deadlock or a lost connection is tried again
  // this many times, pausing retry_pause, then twice that, ..., before postgres_transient_error.
  int max_retries = 5;
  std::chrono::milliseconds retry_pause{5};
  // Set on each connection: false lets a commit return before its WAL reaches the disk (a
  // server crash may lose the last commits, never a half of one). Unset: the server's setting.
  std::optional<bool> synchronous_commit{};
};

class postgres_store {
 public:
  static constexpr std::int64_t schema_version = detail::postgres_schema_version;

  // Connects once (a connection string that does not connect throws postgres_connect_error)
  // and makes or checks the schema (one of another version throws store_format_error).
  explicit postgres_store(std::string conninfo, postgres_options options = {})
      : options_(std::move(options)),
        target_(detail::pg_target(conninfo)),
        pool_(std::move(conninfo), options_.pool_size, connection_setup(options_)),
        prefix_(quoted_schema() + "."),
        nonces_(std::random_device{}()) {
    sql_ = statements(prefix_);
    open_schema();
  }
  postgres_store(const postgres_store&) = delete;
  postgres_store& operator=(const postgres_store&) = delete;

  const std::string& schema() const noexcept { return options_.schema; }
  // The server and database, without a password: what error messages name.
  const std::string& target() const noexcept { return target_; }

  std::int64_t put(const checkpoint_put& cp) {
    if (cp.thread.empty()) throw detail::bad_name(cp);
    for (std::size_t i = 0; i < cp.channels.size(); ++i) {
      const auto name = cp.channels[i].channel;
      if (name.empty()) throw detail::bad_name(cp);
      for (std::size_t j = 0; j < i; ++j)
        if (cp.channels[j].channel == name) throw detail::listed_twice(cp, name);
    }
    const std::int64_t nonce = next_nonce();
    // A stale cached parent (the thread was deleted and written again by another writer)
    // is read again; twice stale means something else is wrong.
    for (int stale = 0;; ++stale) {
      try {
        return call("writing a checkpoint", [&](detail::pg_connection& c, int attempt) {
          return put_once(c, cp, nonce, attempt > 0 || stale > 0, stale > 0);
        });
      } catch (const signal& s) {
        if (s.code == "SGSTL" && stale < 2) {
          forget(cp.thread);
          continue;
        }
        if (s.code == "SGCNF") throw conflict_error(cp.thread, cp.parent, head_of(s));
        if (s.code == "SGPAR") throw detail::missing_parent(cp);
        throw unexpected(s, "writing a checkpoint");
      }
    }
  }

  void put_writes(std::string_view thread, std::int64_t checkpoint, std::span<const pending_write_put> writes) {
    detail::pg_params p;
    p.bytes(thread).int8(checkpoint);
    p.array(detail::pg_type::bytea_array, detail::pg_type::bytea, writes.size(),
            [&](std::string& out, std::size_t i) { out += writes[i].task; });
    p.array(detail::pg_type::int4_array, detail::pg_type::int4, writes.size(),
            [&](std::string& out, std::size_t i) { detail::pg_put_be(out, static_cast<std::uint32_t>(writes[i].index), 4); });
    p.array(detail::pg_type::bytea_array, detail::pg_type::bytea, writes.size(),
            [&](std::string& out, std::size_t i) { out += writes[i].channel; });
    p.array(detail::pg_type::bytea_array, detail::pg_type::bytea, writes.size(),
            [&](std::string& out, std::size_t i) { out += writes[i].value; });
    try {
      call("writing pending writes", [&](detail::pg_connection& c, int) {
        exec(c, sql_.put_writes, p, "writing pending writes");
        return 0;
      });
    } catch (const signal& s) {
      if (s.code == "SGCKP") throw detail::missing_checkpoint(thread, checkpoint);
      if (s.code == "SGCNF") throw conflict_error(thread, checkpoint, head_of(s));
      throw unexpected(s, "writing pending writes");
    }
  }

  std::optional<stored_checkpoint> get(std::string_view thread) const {
    detail::pg_params p;
    p.bytes(thread);
    return read(thread, sql_.latest, p);
  }

  std::optional<stored_checkpoint> get(std::string_view thread, std::int64_t id) const {
    detail::pg_params p;
    p.bytes(thread).int8(id);
    return read(thread, sql_.by_id, p);
  }

  std::vector<checkpoint_info> list(std::string_view thread, list_options options = {}) const {
    constexpr auto max = std::numeric_limits<std::int64_t>::max();
    detail::pg_params p;
    p.bytes(thread)
        .int8(options.before.value_or(max))
        .int8(static_cast<std::int64_t>(std::min<std::uint64_t>(options.limit, static_cast<std::uint64_t>(max))));
    return call("listing checkpoints", [&](detail::pg_connection& c, int) {
      auto r = exec(c, sql_.list, p, "listing checkpoints");
      std::vector<checkpoint_info> out;
      out.reserve(static_cast<std::size_t>(r.rows()));
      for (int i = 0; i < r.rows(); ++i) out.push_back(info(thread, r, i));
      return out;
    });
  }

  std::vector<pending_write> pending_writes(std::string_view thread, std::int64_t checkpoint) const {
    detail::pg_params p;
    p.bytes(thread).int8(checkpoint);
    return call("reading pending writes", [&](detail::pg_connection& c, int) {
      auto r = exec(c, sql_.pending, p, "reading pending writes");
      std::vector<pending_write> out;
      for (int i = 0; i < r.rows(); ++i)
        out.push_back({std::string(r.bytes(i, 0)), static_cast<std::int32_t>(r.integer(i, 1)),
                       std::string(r.bytes(i, 2)), std::string(r.bytes(i, 3))});
      return out;
    });
  }

  bool delete_thread(std::string_view thread) {
    forget(thread);
    detail::pg_params p;
    p.bytes(thread);
    return call("deleting a thread", [&](detail::pg_connection& c, int) {
      return in_transaction(c, "deleting a thread", [&]() -> bool {
        exec(c, sql_.forget_graph, p, "deleting a thread");
        const bool existed = exec(c, sql_.delete_thread, p, "deleting a thread").boolean(0, 0);
        drop_unused_graphs(c);
        return existed;
      });
    });
  }

  // What checkpoint `id` wrote (written_values_store in store.hpp): its rows of sg_values.
  std::vector<written_value> written(std::string_view thread, std::int64_t id) const {
    detail::pg_params p;
    p.bytes(thread).int8(id);
    return call("reading a checkpoint's values", [&](detail::pg_connection& c, int) {
      auto r = exec(c, sql_.written, p, "reading a checkpoint's values");
      std::vector<written_value> out;
      for (int i = 0; i < r.rows(); ++i)
        out.push_back({std::string(r.bytes(i, 0)), std::string(r.bytes(i, 2)), r.integer(i, 1) != no_checkpoint});
      return out;
    });
  }

  // Graph descriptions (graph_recording_store in store.hpp): one statement, the description
  // kept once per key.
  void put_graph(std::string_view thread, std::string_view key, std::string_view description) {
    if (thread.empty()) throw store_refused_error(detail::store_refusal(thread, "the thread id is empty"));
    detail::pg_params p;
    p.bytes(thread).bytes(key).bytes(description);
    call("recording a graph", [&](detail::pg_connection& c, int) {
      exec(c, sql_.put_graph, p, "recording a graph");
      return 0;
    });
  }
  std::optional<std::string> graph(std::string_view thread) const {
    detail::pg_params p;
    p.bytes(thread);
    return call("reading a thread's graph", [&](detail::pg_connection& c, int) -> std::optional<std::string> {
      auto r = exec(c, sql_.graph, p, "reading a thread's graph");
      if (r.rows() == 0) return std::nullopt;
      return std::string(r.bytes(0, 0));
    });
  }

  // Retention (store.hpp): removes the thread's checkpoints older than the rule keeps, their
  // pending writes, and the values no kept checkpoint reaches.
  std::size_t prune(std::string_view thread, keep_latest rule) {
    detail::pg_params p;
    p.bytes(thread)
        .int8(static_cast<std::int64_t>(
            std::min<std::uint64_t>(rule.count, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))))
        .null(detail::pg_type::int8);
    return prune_with(thread, p);
  }
  std::size_t prune(std::string_view thread, keep_since rule) {
    detail::pg_params p;
    p.bytes(thread).null(detail::pg_type::int8).int8(micros(rule.time));
    return prune_with(thread, p);
  }
  std::size_t prune_threads(older_than rule) {
    forget_all();
    detail::pg_params p;
    p.int8(micros(rule.time));
    return call("pruning threads", [&](detail::pg_connection& c, int) {
      return in_transaction(c, "pruning threads", [&]() -> std::size_t {
        exec(c, sql_.forget_idle_graphs, p, "pruning threads");  // locks the idle threads' rows first
        const auto removed = static_cast<std::size_t>(exec(c, sql_.prune_threads, p, "pruning threads").integer(0, 0));
        drop_unused_graphs(c);
        return removed;
      });
    });
  }
  // Gives the space that pruning and deleting freed back to the server's free space map
  // (PostgreSQL's VACUUM of the store's tables; it runs outside a transaction).
  void vacuum() {
    call("vacuuming", [&](detail::pg_connection& c, int) {
      const std::string sql = "VACUUM " + prefix_ + "sg_values, " + prefix_ + "sg_checkpoints, " + prefix_ +
                              "sg_pending_writes, " + prefix_ + "sg_threads";
      detail::pg_result r(PQexec(c.handle, sql.c_str()));
      check(c, r, "vacuuming");
      return 0;
    });
  }

  std::vector<std::string> threads() const {
    detail::pg_params p;
    return call("listing threads", [&](detail::pg_connection& c, int) {
      auto r = exec(c, sql_.threads, p, "listing threads");
      std::vector<std::string> out;
      out.reserve(static_cast<std::size_t>(r.rows()));
      for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.bytes(i, 0));
      return out;
    });
  }

  store_stats stats() const {
    detail::pg_params p;
    return call("counting rows", [&](detail::pg_connection& c, int) {
      auto r = exec(c, sql_.stats, p, "counting rows");
      auto at = [&](int col) { return static_cast<std::size_t>(r.integer(0, col)); };
      return store_stats{at(0), at(1), at(2), at(3), at(4)};
    });
  }

 private:
  // A refusal the store's SQL functions raised (their own SQLSTATEs, `SG...`).
  struct signal {
    std::string code, message;
  };
  // A failure worth trying again.
  struct transient {
    std::string sqlstate, message;
  };

  struct statement {
    int index = -1;
    std::string sql;
  };
  struct statements {
    statements() = default;
    explicit statements(const std::string& prefix) {
      int next = 0;
      auto make = [&](std::string sql) {
        for (std::size_t at = sql.find('@'); at != std::string::npos; at = sql.find('@', at + prefix.size()))
          sql.replace(at, 1, prefix);
        return statement{next++, std::move(sql)};
      };
      auto read_sql = [&](std::string_view id) {
        std::string sql = detail::postgres_read_sql;
        sql.replace(sql.find('%'), 1, id);
        return sql;
      };
      put = make("SELECT @sg_put($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)");
      parent = make(
          "SELECT c.nonce, u.name, u.version, u.origin FROM @sg_checkpoints c LEFT JOIN LATERAL"
          " unnest(c.ch_names, c.ch_versions, c.ch_origins) WITH ORDINALITY AS u(name, version, origin, n) ON true"
          " WHERE c.thread = $1 AND c.id = $2 ORDER BY u.n");
      put_writes = make("SELECT @sg_put_writes($1, $2, $3, $4, $5, $6)");
      latest = make(read_sql("(SELECT head FROM @sg_threads WHERE name = $1)"));
      by_id = make(read_sql("$2"));
      list = make(
          "SELECT id, parent, step, source, format_version, schema_hash, metadata FROM @sg_checkpoints"
          " WHERE thread = $1 AND id < $2 ORDER BY id DESC LIMIT $3");
      pending = make(
          "SELECT task, idx, channel, value FROM @sg_pending_writes WHERE thread = $1 AND checkpoint = $2"
          " ORDER BY task, idx");
      delete_thread = make("SELECT @sg_delete_thread($1)");
      prune = make("SELECT @sg_prune($1, $2, $3)");
      prune_threads = make("SELECT @sg_prune_threads($1)");
      threads = make("SELECT name FROM @sg_threads ORDER BY name");
      stats = make(
          "SELECT (SELECT count(*) FROM @sg_threads), (SELECT count(*) FROM @sg_checkpoints),"
          " (SELECT count(*) FROM @sg_values), (SELECT coalesce(sum(length(value)), 0)::bigint FROM @sg_values),"
          " (SELECT count(*) FROM @sg_pending_writes)");
      // The description's row is locked, not changed, when it exists (DO UPDATE ... WHERE
      // false): a removal of unused descriptions waits for this put or is waited for.
      put_graph = make(
          "WITH g AS (INSERT INTO @sg_graphs AS d (key, description) VALUES ($2, $3)"
          " ON CONFLICT (key) DO UPDATE SET key = excluded.key WHERE false)"
          " INSERT INTO @sg_thread_graphs (thread, graph) VALUES ($1, $2)"
          " ON CONFLICT (thread) DO UPDATE SET graph = excluded.graph");
      graph = make(
          "SELECT g.description FROM @sg_thread_graphs t JOIN @sg_graphs g ON g.key = t.graph WHERE t.thread = $1");
      forget_graph = make("DELETE FROM @sg_thread_graphs WHERE thread = $1");
      forget_idle_graphs = make(
          "WITH idle AS (SELECT t.name FROM @sg_threads t JOIN @sg_checkpoints c ON c.thread = t.name AND c.id = t.head"
          " WHERE c.created < $1 FOR UPDATE OF t)"
          " DELETE FROM @sg_thread_graphs g USING idle WHERE g.thread = idle.name");
      lock_unused_graphs = make(
          "SELECT 1 FROM @sg_graphs d WHERE NOT EXISTS (SELECT 1 FROM @sg_thread_graphs t WHERE t.graph = d.key)"
          " FOR UPDATE");
      drop_unused_graphs = make(
          "DELETE FROM @sg_graphs d WHERE NOT EXISTS (SELECT 1 FROM @sg_thread_graphs t WHERE t.graph = d.key)");
      written = make(
          "SELECT v.channel, v.previous, v.value FROM @sg_values v JOIN @sg_checkpoints c"
          " ON c.thread = v.thread AND c.id = v.origin WHERE v.thread = $1 AND v.origin = $2 ORDER BY v.channel");
    }
    statement put, parent, put_writes, latest, by_id, list, pending, delete_thread, prune, prune_threads, threads,
        stats;
    statement put_graph, graph, forget_graph, written, forget_idle_graphs, lock_unused_graphs, drop_unused_graphs;
  };
  static_assert(sizeof(std::uint64_t) * 8 >= 12, "one bit per statement in pg_connection::prepared");

  struct channel_entry {
    std::string channel;
    std::int64_t version, origin;
  };
  // The checkpoint this store object last put: the next put of the thread, continuing it,
  // need not read its channels back. Its nonce is checked by the put, in its transaction.
  struct put_cache {
    bool valid = false;
    std::string thread;
    std::int64_t id = no_checkpoint, nonce = 0;
    std::vector<channel_entry> channels;
  };

  static std::string connection_setup(const postgres_options& o) {
    if (!o.synchronous_commit) return {};
    return *o.synchronous_commit ? "SET synchronous_commit = on" : "SET synchronous_commit = off";
  }
  std::string quoted_schema() const {
    std::string out = "\"";
    for (char c : options_.schema) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  }
  static std::int64_t micros(store_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  }
  std::int64_t next_nonce() {
    std::lock_guard lock(cache_mutex_);
    return static_cast<std::int64_t>(nonces_());
  }
  void forget(std::string_view thread) {
    std::lock_guard lock(cache_mutex_);
    if (cache_.thread == thread) cache_.valid = false;
  }
  void forget_all() {
    std::lock_guard lock(cache_mutex_);
    cache_.valid = false;
  }

  // Makes the tables on first use, or checks their version; under an advisory lock, so
  // processes opening one schema at once make it once.
  void open_schema() {
    auto c = pool_.take();
    auto run = [&](const std::string& sql, const char* doing) {
      detail::pg_result r(PQexec(c->handle, sql.c_str()));
      check(*c, r, doing);
    };
    // One text parameter, one text answer (or none).
    auto scalar = [&](const std::string& sql, std::string_view arg, const char* doing) -> std::optional<std::string> {
      const Oid type = static_cast<Oid>(detail::pg_type::text);
      const char* value = arg.data();
      const int length = static_cast<int>(arg.size()), format = 1;
      detail::pg_result r(PQexecParams(c->handle, sql.c_str(), 1, &type, &value, &length, &format, 0));
      check(*c, r, doing);
      if (r.rows() == 0 || r.is_null(0, 0)) return std::nullopt;
      return std::string(r.bytes(0, 0));
    };
    const auto where = "stategraph: PostgreSQL store at " + target_ + ": schema '" + options_.schema + "' ";
    try {
      run("BEGIN", "starting to make the tables");
      scalar("SELECT pg_advisory_xact_lock(1397191540, hashtext($1))::text", options_.schema, "locking the schema");
      // An identifier cannot be a parameter: the schema's name is quoted instead.
      run("CREATE SCHEMA IF NOT EXISTS " + quoted_schema(), "making the schema");
      const auto has = [&](const char* table) {
        return scalar("SELECT to_regclass($1)::text", prefix_ + table, "looking for the store's tables").has_value();
      };
      if (has("sg_store")) {
        const auto version =
            scalar("SELECT value::text FROM " + prefix_ + "sg_store WHERE key = $1", "schema_version",
                   "reading the schema version");
        if (!version) throw store_format_error(where + "has a sg_store table without a schema version; nothing was changed");
        if (*version != std::to_string(schema_version))
          throw store_format_error(where + "holds a stategraph store of schema version " + *version +
                                   "; this build reads version " + std::to_string(schema_version) +
                                   "; nothing was changed");
      } else if (has("sg_threads") || has("sg_checkpoints") || has("sg_values") || has("sg_pending_writes")) {
        throw store_format_error(where + "has some of a stategraph store's tables but no sg_store table: it is "
                                         "damaged or not ours; nothing was changed");
      } else {
        std::string ddl = detail::postgres_tables_sql;
        for (std::size_t at = ddl.find('@'); at != std::string::npos; at = ddl.find('@', at + prefix_.size()))
          ddl.replace(at, 1, prefix_);
        run(ddl, "making the tables");
      }
      std::string graph_ddl = detail::postgres_graph_tables_sql;
      for (std::size_t at = graph_ddl.find('@'); at != std::string::npos; at = graph_ddl.find('@', at + prefix_.size()))
        graph_ddl.replace(at, 1, prefix_);
      run(graph_ddl, "making the graph tables");
      run("COMMIT", "committing the tables");
    } catch (const transient& t) {  // opening is not retried: the caller sees the failure at once
      PQclear(PQexec(c->handle, "ROLLBACK"));
      pool_.give_back(std::move(c), false);
      throw postgres_transient_error(where + "could not be opened: " + t.message +
                                         (t.sqlstate.empty() ? "" : " (SQLSTATE " + t.sqlstate + ")"),
                                     t.sqlstate, 1);
    } catch (const signal& s) {
      PQclear(PQexec(c->handle, "ROLLBACK"));
      pool_.give_back(std::move(c), false);
      throw unexpected(s, "opening the store");
    } catch (...) {
      PQclear(PQexec(c->handle, "ROLLBACK"));
      pool_.give_back(std::move(c), false);
      throw;
    }
    pool_.give_back(std::move(c), true);
  }

  // body() between BEGIN and COMMIT on `c`; rolled back if it throws.
  template <class Body>
  std::invoke_result_t<Body&> in_transaction(detail::pg_connection& c, const char* doing, Body body) const {
    const auto plain = [&](const char* sql) {
      detail::pg_result r(PQexec(c.handle, sql));
      check(c, r, doing);
    };
    plain("BEGIN");
    try {
      auto result = body();
      plain("COMMIT");
      return result;
    } catch (...) {
      PQclear(PQexec(c.handle, "ROLLBACK"));
      throw;
    }
  }
  // Removes the descriptions no thread refers to, in the caller's transaction. Their rows are
  // locked first and the condition read again after, so a put_graph that committed in
  // between (its thread now refers to one) keeps it, and one that comes after waits and then
  // writes the description anew.
  void drop_unused_graphs(detail::pg_connection& c) const {
    const detail::pg_params none;
    exec(c, sql_.lock_unused_graphs, none, "removing graph descriptions no thread uses");
    exec(c, sql_.drop_unused_graphs, none, "removing graph descriptions no thread uses");
  }

  // Runs `body(connection, attempt)`; a transient failure is tried again on a healthy
  // connection, up to max_retries times.
  template <class Body>
  std::invoke_result_t<Body&, detail::pg_connection&, int> call(const char* doing, Body body) const {
    int attempt = 0;
    auto pause = options_.retry_pause;
    std::string last_state, last_message;
    for (;;) {
      std::unique_ptr<detail::pg_connection> c;
      try {
        c = pool_.take();
      } catch (const postgres_connect_error& e) {
        if (attempt == 0) throw;  // never reached the server: the connection string is wrong, or it is down
        last_state.clear();
        last_message = e.what();
      }
      if (c) {
        try {
          auto result = body(*c, attempt);
          pool_.give_back(std::move(c), true);
          return result;
        } catch (const transient& t) {
          last_state = t.sqlstate;
          last_message = t.message;
          pool_.give_back(std::move(c), false);
        } catch (...) {
          pool_.give_back(std::move(c), true);
          throw;
        }
      }
      if (attempt++ >= options_.max_retries)
        throw postgres_transient_error("stategraph: PostgreSQL store at " + target_ + ": " + doing + " failed " +
                                           std::to_string(attempt) + " times; last: " + last_message +
                                           (last_state.empty() ? "" : " (SQLSTATE " + last_state + ")"),
                                       last_state, attempt);
      std::this_thread::sleep_for(pause);
      pause *= 2;
    }
  }

  detail::pg_result exec(detail::pg_connection& c, const statement& s, const detail::pg_params& p,
                         const char* doing) const {
    const std::string name = "sg" + std::to_string(s.index);
    const std::uint64_t bit = std::uint64_t{1} << s.index;
    if ((c.prepared & bit) == 0) {
      detail::pg_result r(PQprepare(c.handle, name.c_str(), s.sql.c_str(), p.size(), p.types()));
      check(c, r, doing);
      c.prepared |= bit;
    }
    detail::pg_result r(PQexecPrepared(c.handle, name.c_str(), p.size(), p.values(), p.lengths(), p.formats(), 1));
    check(c, r, doing);
    return r;
  }

  // Throws what a failed result means: transient (tried again), a refusal of the store's
  // functions (signal), or store_error.
  void check(detail::pg_connection& c, const detail::pg_result& r, const char* doing) const {
    const auto status = r.get() != nullptr ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
    const char* state = r.get() != nullptr ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
    const std::string sqlstate = state != nullptr ? state : "";
    const char* primary = r.get() != nullptr ? PQresultErrorField(r.get(), PG_DIAG_MESSAGE_PRIMARY) : nullptr;
    const std::string message = primary != nullptr ? primary : detail::pg_trimmed(PQerrorMessage(c.handle));
    const bool lost = PQstatus(c.handle) != CONNECTION_OK;
    if (lost || sqlstate.starts_with("08") || sqlstate == "40001" || sqlstate == "40P01" || sqlstate == "57P01" ||
        sqlstate == "57P02" || sqlstate == "57P03" || sqlstate == "23505")
      throw transient{sqlstate, message};
    if (sqlstate.starts_with("SG")) throw signal{sqlstate, message};
    throw store_error("stategraph: PostgreSQL store at " + target_ + " (schema " + options_.schema + "): " + doing +
                      ": " + message + (sqlstate.empty() ? "" : " (SQLSTATE " + sqlstate + ")"));
  }

  store_error unexpected(const signal& s, const char* doing) const {
    return store_error("stategraph: PostgreSQL store at " + target_ + " (schema " + options_.schema + "): " + doing +
                       ": unexpected refusal " + s.code + ": " + s.message);
  }
  static std::int64_t head_of(const signal& s) {
    try {
      return std::stoll(s.message);
    } catch (...) {
      return no_checkpoint;
    }
  }

  std::int64_t put_once(detail::pg_connection& c, const checkpoint_put& cp, std::int64_t nonce, bool retry,
                        bool uncached) {
    // The parent's channels: from the cache if it holds the parent, else read.
    std::vector<channel_entry> parent;
    std::int64_t parent_nonce = 0;
    if (cp.parent != no_checkpoint) {
      bool cached = false;
      if (!uncached) {
        std::lock_guard lock(cache_mutex_);
        if (cache_.valid && cache_.thread == cp.thread && cache_.id == cp.parent) {
          parent = cache_.channels;
          parent_nonce = cache_.nonce;
          cached = true;
        }
      }
      if (!cached) {
        detail::pg_params p;
        p.bytes(cp.thread).int8(cp.parent);
        auto r = exec(c, sql_.parent, p, "reading the parent's channels");
        if (r.rows() == 0) throw detail::missing_parent(cp);
        parent_nonce = r.integer(0, 0);
        for (int i = 0; i < r.rows(); ++i)
          if (!r.is_null(i, 1)) parent.push_back({std::string(r.bytes(i, 1)), r.integer(i, 2), r.integer(i, 3)});
      }
    }
    auto find = [&](std::string_view name) -> const channel_entry* {
      for (const auto& e : parent)
        if (e.channel == name) return &e;
      return nullptr;
    };
    std::vector<std::int64_t> origins(cp.channels.size()), previous;
    std::vector<std::size_t> written;  // positions of the channels with a new value
    for (std::size_t i = 0; i < cp.channels.size(); ++i) {
      const channel_put& ch = cp.channels[i];
      const channel_entry* old = find(ch.channel);
      if (old != nullptr && old->version == ch.version) {
        origins[i] = old->origin;  // unchanged since the parent: refer to its value, write nothing
      } else if (!ch.value) {
        throw detail::unresolved_channel(cp, ch, old ? std::optional(old->version) : std::nullopt);
      } else {
        origins[i] = no_checkpoint;  // this checkpoint: the function puts its id in
        written.push_back(i);
        previous.push_back(ch.append && old != nullptr ? old->origin : no_checkpoint);
      }
    }
    using detail::pg_type;
    const auto n = cp.channels.size();
    detail::pg_params p;
    p.bytes(cp.thread)
        .int8(cp.parent)
        .boolean(cp.mode == put_mode::fork)
        .int8(parent_nonce)
        .int8(cp.step)
        .text(to_string(cp.source))
        .int4(cp.format_version)
        .bytes(cp.schema_hash)
        .bytes(cp.metadata);
    p.array(pg_type::bytea_array, pg_type::bytea, n, [&](std::string& out, std::size_t i) { out += cp.channels[i].channel; });
    p.array(pg_type::int8_array, pg_type::int8, n, [&](std::string& out, std::size_t i) {
      detail::pg_put_be(out, static_cast<std::uint64_t>(cp.channels[i].version), 8);
    });
    p.array(pg_type::int8_array, pg_type::int8, n, [&](std::string& out, std::size_t i) {
      detail::pg_put_be(out, static_cast<std::uint64_t>(origins[i]), 8);
    });
    p.int8(micros(store_clock::now())).int8(nonce).boolean(retry);
    p.array(pg_type::bytea_array, pg_type::bytea, written.size(),
            [&](std::string& out, std::size_t k) { out += cp.channels[written[k]].channel; });
    p.array(pg_type::int8_array, pg_type::int8, written.size(), [&](std::string& out, std::size_t k) {
      detail::pg_put_be(out, static_cast<std::uint64_t>(previous[k]), 8);
    });
    p.array(pg_type::bytea_array, pg_type::bytea, written.size(),
            [&](std::string& out, std::size_t k) { out += *cp.channels[written[k]].value; });
    const std::int64_t id = exec(c, sql_.put, p, "writing a checkpoint").integer(0, 0);

    std::vector<channel_entry> now(n);
    for (std::size_t i = 0; i < n; ++i)
      now[i] = {std::string(cp.channels[i].channel), cp.channels[i].version, origins[i] == no_checkpoint ? id : origins[i]};
    std::lock_guard lock(cache_mutex_);
    cache_.valid = true;
    cache_.thread.assign(cp.thread);
    cache_.id = id;
    cache_.nonce = nonce;
    cache_.channels = std::move(now);
    return id;
  }

  std::size_t prune_with(std::string_view thread, const detail::pg_params& p) {
    forget(thread);
    return call("pruning a thread", [&](detail::pg_connection& c, int) {
      return static_cast<std::size_t>(exec(c, sql_.prune, p, "pruning a thread").integer(0, 0));
    });
  }

  store_format_error corrupted(std::string_view thread, std::int64_t id, std::string_view what) const {
    return store_format_error("stategraph: PostgreSQL store at " + target_ + " (schema " + options_.schema +
                              "): checkpoint " + std::to_string(id) + " of thread '" + std::string(thread) +
                              "' has a corrupted " + std::string(what));
  }

  // Columns: id, parent, step, source, format_version, schema_hash, metadata.
  checkpoint_info info(std::string_view thread, const detail::pg_result& r, int row) const {
    const auto source = parse_checkpoint_source(r.bytes(row, 3));
    if (!source) throw corrupted(thread, r.integer(row, 0), "source '" + std::string(r.bytes(row, 3)) + "'");
    return {std::string(thread),
            r.integer(row, 0),
            r.integer(row, 1),
            r.integer(row, 2),
            *source,
            static_cast<int>(r.integer(row, 4)),
            std::string(r.bytes(row, 5)),
            std::string(r.bytes(row, 6))};
  }

  // Rows of postgres_read_sql: the header, then per channel its pieces, whole value first.
  std::optional<stored_checkpoint> read(std::string_view thread, const statement& s, const detail::pg_params& p) const {
    return call("reading a checkpoint", [&](detail::pg_connection& c, int) -> std::optional<stored_checkpoint> {
      auto r = exec(c, s, p, "reading a checkpoint");
      if (r.rows() == 0) return std::nullopt;
      stored_checkpoint out{info(thread, r, 0), {}};
      std::int64_t pos = -1;
      for (int i = 0; i < r.rows(); ++i) {
        if (r.is_null(i, 7)) continue;  // a checkpoint without channels
        if (r.integer(i, 7) != pos) {
          pos = r.integer(i, 7);
          if (r.integer(i, 11) != no_checkpoint)  // the oldest piece found is not a whole value
            throw corrupted(thread, out.id, "append chain for channel '" + std::string(r.bytes(i, 8)) + "'");
          out.channels.push_back({std::string(r.bytes(i, 8)), r.integer(i, 9), std::string(r.bytes(i, 12)), {}});
        } else {
          out.channels.back().appends.emplace_back(r.bytes(i, 12));
        }
      }
      return out;
    });
  }

  postgres_options options_;
  std::string target_;
  mutable detail::pg_pool pool_;
  std::string prefix_;
  statements sql_;
  mutable std::mutex cache_mutex_;  // guards cache_ and nonces_
  put_cache cache_;
  std::mt19937_64 nonces_;
};

static_assert(checkpoint_store<postgres_store>);

}  // namespace stategraph
