// sg::sqlite_store: checkpoints in one SQLite file (WAL), the embedded default. Safe for
// many threads of a process (one connection per store object, behind a mutex) and for
// several processes on the same file (SQLite's locks, waited on up to busy_timeout).
// Needs SQLite 3.20 or later: link SQLite::SQLite3 (CMake's find_package(SQLite3)).
#pragma once

#include <stategraph/store/detail/sqlite_handle.hpp>
#include <stategraph/store/detail/sqlite_schema.hpp>
#include <stategraph/store/store.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stategraph {

// How hard a commit waits for the disk. With WAL, `normal` survives a killed process
// whole, and loses at most the last commits (never consistency) on power loss; `full`
// survives power loss at the cost of an fsync per checkpoint.
enum class sqlite_synchronous { off, normal, full };

struct sqlite_options {
  std::chrono::milliseconds busy_timeout{10'000};  // how long to wait for another writer
  sqlite_synchronous synchronous = sqlite_synchronous::normal;
};

class sqlite_store {
 public:
  static constexpr std::int64_t schema_version = detail::sqlite_schema_version;

  explicit sqlite_store(std::string path, sqlite_options options = {})
      : db_(std::move(path), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX),
        sql_(prepare(db_, options)) {}
  sqlite_store(const sqlite_store&) = delete;
  sqlite_store& operator=(const sqlite_store&) = delete;

  const std::string& path() const noexcept { return db_.path(); }

  std::int64_t put(const checkpoint_put& cp) {
    if (cp.thread.empty()) throw detail::bad_name(cp);
    std::lock_guard lock(mutex_);
    // IMMEDIATE takes the write lock before reading the last id, so writers in other
    // processes cannot be handed the same id.
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    const std::int64_t id = last_id(cp.thread) + 1;
    std::vector<parent_channel> parent;
    if (cp.parent != no_checkpoint) {
      if (!exists(cp.thread, cp.parent)) throw detail::missing_parent(cp);
      parent = parent_channels(cp.thread, cp.parent);
    }
    detail::sqlite_query(sql_.insert_checkpoint)
        .bind(cp.thread)
        .bind(id)
        .bind(cp.parent)
        .bind(cp.step)
        .bind(to_string(cp.source))
        .bind(std::int64_t{cp.format_version})
        .bind(cp.schema_hash)
        .bind(cp.metadata)
        .run();
    for (std::size_t i = 0; i < cp.channels.size(); ++i) {
      const channel_put& c = cp.channels[i];
      check_name(cp, i);
      const parent_channel* old = find(parent, c.channel);
      std::int64_t origin = id;
      if (old != nullptr && old->version == c.version) {
        origin = old->origin;  // unchanged since the parent: refer to its value, write nothing
      } else if (!c.value) {
        throw detail::unresolved_channel(cp, c, old ? std::optional(old->version) : std::nullopt);
      } else {
        detail::sqlite_query(sql_.insert_value)
            .bind(cp.thread)
            .bind(c.channel)
            .bind(id)
            .bind(c.append && old != nullptr ? old->origin : no_checkpoint)
            .bind(*c.value)
            .run();
      }
      detail::sqlite_query(sql_.insert_channel)
          .bind(cp.thread)
          .bind(id)
          .bind(static_cast<std::int64_t>(i))
          .bind(c.channel)
          .bind(c.version)
          .bind(origin)
          .run();
    }
    tx.commit();
    return id;
  }

  void put_writes(std::string_view thread, std::int64_t checkpoint, std::span<const pending_write_put> writes) {
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    if (!exists(thread, checkpoint)) throw detail::missing_checkpoint(thread, checkpoint);
    for (const auto& w : writes)  // INSERT OR IGNORE: the first write of a (task, index) wins
      detail::sqlite_query(sql_.insert_write)
          .bind(thread)
          .bind(checkpoint)
          .bind(w.task)
          .bind(std::int64_t{w.index})
          .bind(w.channel)
          .bind(w.value)
          .run();
    tx.commit();
  }

  std::optional<stored_checkpoint> get(std::string_view thread) const {
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_read, sql_.commit, sql_.rollback);  // one snapshot for both reads
    detail::sqlite_query q(sql_.latest);
    q.bind(thread);
    if (!q.next()) return std::nullopt;
    return read(thread, q);
  }

  std::optional<stored_checkpoint> get(std::string_view thread, std::int64_t id) const {
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_read, sql_.commit, sql_.rollback);
    detail::sqlite_query q(sql_.info);
    q.bind(thread).bind(id);
    if (!q.next()) return std::nullopt;
    return read(thread, q);
  }

  std::vector<checkpoint_info> list(std::string_view thread, list_options options = {}) const {
    std::lock_guard lock(mutex_);
    constexpr auto max = std::numeric_limits<std::int64_t>::max();
    detail::sqlite_query q(sql_.list);
    q.bind(thread)
        .bind(options.before.value_or(max))
        .bind(static_cast<std::int64_t>(std::min<std::uint64_t>(options.limit, static_cast<std::uint64_t>(max))));
    std::vector<checkpoint_info> out;
    while (q.next()) out.push_back(info(thread, q));
    return out;
  }

  std::vector<pending_write> pending_writes(std::string_view thread, std::int64_t checkpoint) const {
    std::lock_guard lock(mutex_);
    detail::sqlite_query q(sql_.read_writes);
    q.bind(thread).bind(checkpoint);
    std::vector<pending_write> out;
    while (q.next())
      out.push_back({std::string(q.text(0)), static_cast<std::int32_t>(q.int64(1)), std::string(q.text(2)),
                     std::string(q.text(3))});
    return out;
  }

  bool delete_thread(std::string_view thread) {
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    const bool existed = last_id(thread) != no_checkpoint;
    for (auto* s : {&sql_.delete_writes, &sql_.delete_channels, &sql_.delete_values, &sql_.delete_checkpoints})
      detail::sqlite_query(*s).bind(thread).run();
    tx.commit();
    return existed;
  }

  std::vector<std::string> threads() const {
    std::lock_guard lock(mutex_);
    detail::sqlite_query q(sql_.threads);
    std::vector<std::string> out;
    while (q.next()) out.emplace_back(q.text(0));
    return out;
  }

  store_stats stats() const {
    std::lock_guard lock(mutex_);
    detail::sqlite_query q(sql_.stats);
    q.next();
    auto at = [&](int c) { return static_cast<std::size_t>(q.int64(c)); };
    return {at(0), at(1), at(2), at(3), at(4)};
  }

 private:
  struct parent_channel {
    std::string channel;
    std::int64_t version, origin;
  };

  // Every statement the store runs, prepared once when the store opens.
  struct statements {
    explicit statements(const detail::sqlite_connection& db)
        : begin_write(db, "BEGIN IMMEDIATE", "taking the write lock"),
          begin_read(db, "BEGIN", "starting a read"),
          commit(db, "COMMIT", "committing"),
          rollback(db, "ROLLBACK", "rolling back"),
          last_id(db, "SELECT max(id) FROM checkpoints WHERE thread = ?1", "reading the last checkpoint id"),
          exists(db, "SELECT 1 FROM checkpoints WHERE thread = ?1 AND id = ?2", "looking up a checkpoint"),
          parent_channels(db,
                          "SELECT channel, version, origin FROM checkpoint_channels"
                          " WHERE thread = ?1 AND checkpoint = ?2",
                          "reading the parent's channels"),
          insert_checkpoint(db,
                            "INSERT INTO checkpoints (thread, id, parent, step, source, format_version, schema_hash,"
                            " metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                            "writing a checkpoint"),
          insert_channel(db,
                         "INSERT INTO checkpoint_channels (thread, checkpoint, pos, channel, version, origin)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                         "writing a checkpoint's channel"),
          insert_value(db,
                       "INSERT INTO channel_values (thread, channel, origin, previous, value)"
                       " VALUES (?1, ?2, ?3, ?4, ?5)",
                       "writing a channel value"),
          insert_write(db,
                       "INSERT OR IGNORE INTO pending_writes (thread, checkpoint, task, idx, channel, value)"
                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                       "writing a pending write"),
          latest(db, std::string(detail::sqlite_info_sql) + " WHERE thread = ?1 ORDER BY id DESC LIMIT 1",
                 "reading the latest checkpoint"),
          info(db, std::string(detail::sqlite_info_sql) + " WHERE thread = ?1 AND id = ?2", "reading a checkpoint"),
          channels(db, detail::sqlite_channels_sql, "reading a checkpoint's channels"),
          list(db, std::string(detail::sqlite_info_sql) + " WHERE thread = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3",
               "listing checkpoints"),
          read_writes(db,
                      "SELECT task, idx, channel, value FROM pending_writes"
                      " WHERE thread = ?1 AND checkpoint = ?2 ORDER BY task, idx",
                      "reading pending writes"),
          delete_writes(db, "DELETE FROM pending_writes WHERE thread = ?1", "deleting a thread"),
          delete_channels(db, "DELETE FROM checkpoint_channels WHERE thread = ?1", "deleting a thread"),
          delete_values(db, "DELETE FROM channel_values WHERE thread = ?1", "deleting a thread"),
          delete_checkpoints(db, "DELETE FROM checkpoints WHERE thread = ?1", "deleting a thread"),
          threads(db, "SELECT DISTINCT thread FROM checkpoints ORDER BY thread", "listing threads"),
          stats(db,
                "SELECT (SELECT count(DISTINCT thread) FROM checkpoints), (SELECT count(*) FROM checkpoints),"
                " (SELECT count(*) FROM channel_values),"
                " (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM channel_values),"
                " (SELECT count(*) FROM pending_writes)",
                "counting rows") {}

    detail::sqlite_statement begin_write, begin_read, commit, rollback, last_id, exists, parent_channels,
        insert_checkpoint, insert_channel, insert_value, insert_write, latest, info, channels, list, read_writes,
        delete_writes, delete_channels, delete_values, delete_checkpoints, threads, stats;
  };

  static statements prepare(const detail::sqlite_connection& db, const sqlite_options& options) {
    static constexpr const char* pragma[] = {"OFF", "NORMAL", "FULL"};
    detail::open_sqlite_store(db, static_cast<int>(options.busy_timeout.count()),
                              pragma[static_cast<int>(options.synchronous)]);
    return statements(db);
  }

  std::int64_t last_id(std::string_view thread) const {
    detail::sqlite_query q(sql_.last_id);
    q.bind(thread);
    return q.next() ? q.int64(0) : no_checkpoint;  // max() of no rows is NULL, read as 0
  }
  bool exists(std::string_view thread, std::int64_t id) const {
    detail::sqlite_query q(sql_.exists);
    q.bind(thread).bind(id);
    return q.next();
  }
  std::vector<parent_channel> parent_channels(std::string_view thread, std::int64_t id) const {
    detail::sqlite_query q(sql_.parent_channels);
    q.bind(thread).bind(id);
    std::vector<parent_channel> out;
    while (q.next()) out.push_back({std::string(q.text(0)), q.int64(1), q.int64(2)});
    return out;
  }
  static const parent_channel* find(const std::vector<parent_channel>& in, std::string_view name) {
    auto it = std::find_if(in.begin(), in.end(), [&](const parent_channel& p) { return p.channel == name; });
    return it == in.end() ? nullptr : &*it;
  }
  static void check_name(const checkpoint_put& cp, std::size_t i) {
    const auto name = cp.channels[i].channel;
    if (name.empty()) throw detail::bad_name(cp);
    for (std::size_t j = 0; j < i; ++j)
      if (cp.channels[j].channel == name) throw detail::listed_twice(cp, name);
  }
  // Columns: id, parent, step, source, format_version, schema_hash, metadata.
  checkpoint_info info(std::string_view thread, const detail::sqlite_query& q) const {
    auto source = parse_checkpoint_source(q.text(3));
    if (!source)
      throw store_format_error("stategraph: SQLite store '" + path() + "': checkpoint " + std::to_string(q.int64(0)) +
                               " of thread '" + std::string(thread) + "' has an unknown source '" +
                               std::string(q.text(3)) + "'");
    return {std::string(thread),
            q.int64(0),
            q.int64(1),
            q.int64(2),
            *source,
            static_cast<int>(q.int64(4)),
            std::string(q.text(5)),
            std::string(q.text(6))};
  }
  stored_checkpoint read(std::string_view thread, const detail::sqlite_query& header) const {
    stored_checkpoint out{info(thread, header), {}};
    detail::sqlite_query q(sql_.channels);
    q.bind(thread).bind(out.id);
    std::int64_t position = -1;
    while (q.next()) {
      // Rows come per channel, its whole value first and then its appended pieces.
      if (q.int64(0) != position) {
        position = q.int64(0);
        out.channels.push_back({std::string(q.text(1)), q.int64(2), std::string(q.text(3)), {}});
      } else {
        out.channels.back().appends.emplace_back(q.text(3));
      }
    }
    return out;
  }

  mutable std::mutex mutex_;
  detail::sqlite_connection db_;
  mutable statements sql_;
};

static_assert(checkpoint_store<sqlite_store>);

}  // namespace stategraph
