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
#include <map>
#include <mutex>
#include <set>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stategraph {

// How hard a commit waits for the disk. With WAL, `normal` survives a killed process
// whole; on power loss it keeps the file consistent but loses the commits since the WAL was
// last checkpointed (its only fsync). `full` survives power loss at the cost of an fsync per
// checkpoint. `off` never syncs: power loss may lose everything and damage the file.
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
        sql_(prepare(db_, options)),
        retention_sql_(db_),
        graph_sql_(db_) {}
  sqlite_store(const sqlite_store&) = delete;
  sqlite_store& operator=(const sqlite_store&) = delete;

  const std::string& path() const noexcept { return db_.path(); }

  // Changes whenever another connection (another store object or process) has committed to
  // the file: an app that keeps a thread's state compares it to notice writes it did not see.
  std::int64_t file_version() const {
    std::lock_guard lock(mutex_);
    detail::sqlite_query q(sql_.data_version);
    return q.next() ? q.int64(0) : 0;
  }

  std::int64_t put(const checkpoint_put& cp) {
    if (cp.thread.empty()) throw detail::bad_name(cp);
    std::lock_guard lock(mutex_);
    // IMMEDIATE takes the write lock before reading the last id, so writers in other
    // processes cannot be handed the same id.
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    // What this connection last wrote is still the file's truth while no other connection
    // has committed since (the data version unchanged since this connection's own commit):
    // then the id and the parent's channels need no reads.
    const std::int64_t version = data_version();
    const bool cached = cache_.valid && cache_.data_version == version && cache_.thread == cp.thread;
    const std::int64_t number = cached ? cache_.number : thread_number(cp.thread);
    const std::int64_t head = cached ? cache_.last_id : last_id(number);
    const std::int64_t id = head + 1;
    // One writer per thread: checked here, under the write lock, in the put's transaction.
    if (cp.mode == put_mode::continue_head && cp.parent != head) {
      if (cp.parent != no_checkpoint && !exists(cp.thread, cp.parent)) throw detail::missing_parent(cp);
      throw conflict_error(cp.thread, cp.parent, head);
    }
    if (id > detail::sqlite_max_id)
      throw store_error("stategraph: SQLite store '" + path() + "': thread '" + std::string(cp.thread) +
                        "' has used every checkpoint id (2^32 - 1)");
    const std::vector<channel_entry>* parent = nullptr;
    if (cp.parent != no_checkpoint) {
      if (cached && cache_.last_id == cp.parent) {
        parent = &cache_.channels;
      } else {
        if (!parent_channels(cp.thread, number, cp.parent, scratch_parent_)) throw detail::missing_parent(cp);
        parent = &scratch_parent_;
      }
    }
    // Entries are assigned over the ones the vector already holds, so their strings' memory
    // is reused from step to step.
    std::vector<channel_entry>& now = scratch_now_;
    now.resize(cp.channels.size());
    list_text_.clear();
    vals_text_.clear();
    for (std::size_t i = 0; i < cp.channels.size(); ++i) {
      const channel_put& c = cp.channels[i];
      check_name(cp, i);
      const channel_entry* old = parent ? find(*parent, c.channel) : nullptr;
      std::int64_t origin = id;
      if (old != nullptr && old->version == c.version) {
        origin = old->origin;  // unchanged since the parent: refer to its value, write nothing
      } else if (!c.value) {
        throw detail::unresolved_channel(cp, c, old ? std::optional(old->version) : std::nullopt);
      } else {
        detail::append_value(vals_text_, c.channel, c.append && old != nullptr ? old->origin : no_checkpoint,
                             *c.value);
      }
      now[i].channel.assign(c.channel);
      now[i].version = c.version;
      now[i].origin = origin;
      detail::append_channel_ref(list_text_, c.channel, c.version, origin);
    }
    detail::sqlite_query(sql_.insert_checkpoint)
        .bind(detail::sqlite_key(number, id))
        .bind(cp.parent)
        .bind(cp.step)
        .bind(to_string(cp.source))
        .bind(std::int64_t{cp.format_version})
        .bind(cp.schema_hash)
        .bind(cp.metadata)
        .bind(list_text_)
        .bind(vals_text_)
        .bind(detail::sqlite_time(store_clock::now()))
        .run();
    cache_.valid = false;  // until the commit has succeeded
    tx.commit();
    if (cache_.thread != cp.thread) cache_.thread.assign(cp.thread);
    cache_.number = number;
    cache_.last_id = id;
    cache_.data_version = data_version();  // read after the commit, which may have changed it
    std::swap(cache_.channels, now);
    cache_.valid = true;
    return id;
  }

  void put_writes(std::string_view thread, std::int64_t checkpoint, std::span<const pending_write_put> writes) {
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    if (!exists(thread, checkpoint)) throw detail::missing_checkpoint(thread, checkpoint);
    if (const std::int64_t head = head_id(thread); checkpoint != head) throw conflict_error(thread, checkpoint, head);
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
    while (q.next()) {
      const std::int64_t index = q.int64(1);  // put as an int32: anything else is corrupt
      if (index < std::numeric_limits<std::int32_t>::min() || index > std::numeric_limits<std::int32_t>::max())
        throw corrupted(thread, checkpoint, "pending write '" + std::string(q.text(0)) + "' (index " +
                                                std::to_string(index) + ")");
      out.push_back({std::string(q.text(0)), static_cast<std::int32_t>(index), std::string(q.text(2)),
                     std::string(q.text(3))});
    }
    return out;
  }

  bool delete_thread(std::string_view thread) {
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    const bool existed = exists_thread(thread);
    cache_.valid = false;
    for (auto* s : {&sql_.delete_writes, &sql_.delete_checkpoints, &sql_.delete_thread, &graph_sql_.forget})
      detail::sqlite_query(*s).bind(thread).run();
    detail::sqlite_query(graph_sql_.unused).run();
    tx.commit();
    return existed;
  }

  // What checkpoint `id` wrote (written_values_store in store.hpp): its row's `vals`.
  std::vector<written_value> written(std::string_view thread, std::int64_t id) const {
    std::lock_guard lock(mutex_);
    std::vector<written_value> out;
    detail::sqlite_query q(graph_sql_.written);
    q.bind(thread).bind(id);
    if (!q.next()) return out;
    const bool ok = detail::for_each_value(q.text(0), [&](const detail::sqlite_value_ref& v) {
      out.push_back({std::string(v.channel), std::string(v.value), v.previous != no_checkpoint});
      return true;
    });
    if (!ok) throw corrupted(thread, id, "value list");
    return out;
  }

  // Graph descriptions (graph_recording_store in store.hpp): one transaction, the
  // description kept once per key.
  void put_graph(std::string_view thread, std::string_view key, std::string_view description) {
    if (thread.empty()) throw store_refused_error(detail::store_refusal(thread, "the thread id is empty"));
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    detail::sqlite_query(graph_sql_.insert_graph).bind(key).bind(description).run();
    detail::sqlite_query(graph_sql_.insert_thread).bind(thread).bind(key).run();
    tx.commit();
  }
  std::optional<std::string> graph(std::string_view thread) const {
    std::lock_guard lock(mutex_);
    detail::sqlite_query q(graph_sql_.read);
    q.bind(thread);
    if (!q.next()) return std::nullopt;
    return std::string(q.text(0));
  }

  // Retention (store.hpp): removes the thread's checkpoints older than the rule keeps and
  // their pending writes. A removed checkpoint whose values a kept one still refers to keeps
  // its row with those values alone, hidden from every read by id (its id is negated).
  std::size_t prune(std::string_view thread, keep_latest rule) {
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    const auto range = visible_range(thread);
    if (!range) return 0;
    const auto keep = static_cast<std::int64_t>(std::min<std::uint64_t>(std::max<std::size_t>(rule.count, 1),
                                                                         static_cast<std::uint64_t>(detail::sqlite_max_id)));
    const std::size_t removed = prune_before(thread, range->number, std::max(range->first, range->head - keep + 1),
                                             range->first);
    tx.commit();
    return removed;
  }
  std::size_t prune(std::string_view thread, keep_since rule) {
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    const auto range = visible_range(thread);
    if (!range) return 0;
    // The newest checkpoint put before the time, and everything older, go (never the head).
    std::int64_t cut = range->first;
    {
      detail::sqlite_query q(retention_sql_.newest_before);
      q.bind(detail::sqlite_key(range->number, 1))
          .bind(detail::sqlite_key(range->number, detail::sqlite_max_id))
          .bind(detail::sqlite_time(rule.time));
      if (q.next() && !q.is_null(0)) cut = std::min(q.int64(0) + 1, range->head);
    }
    const std::size_t removed = prune_before(thread, range->number, cut, range->first);
    tx.commit();
    return removed;
  }
  std::size_t prune_threads(older_than rule) {
    std::lock_guard lock(mutex_);
    detail::sqlite_transaction tx(sql_.begin_write, sql_.commit, sql_.rollback);
    std::vector<std::string> names;
    {
      detail::sqlite_query q(retention_sql_.idle_threads);
      q.bind(detail::sqlite_time(rule.time));
      while (q.next()) names.emplace_back(q.text(0));
    }
    cache_.valid = false;
    for (const auto& name : names)
      for (auto* s : {&sql_.delete_writes, &sql_.delete_checkpoints, &sql_.delete_thread, &graph_sql_.forget})
        detail::sqlite_query(*s).bind(name).run();
    detail::sqlite_query(graph_sql_.unused).run();
    tx.commit();
    return names.size();
  }
  // Gives the pages that pruning and deleting freed back to the file system: rewrites the
  // file (SQLite's VACUUM) and empties the WAL. Needs no other connection in a transaction.
  void vacuum() {
    std::lock_guard lock(mutex_);
    cache_.valid = false;
    db_.exec("PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing the WAL before VACUUM");
    db_.exec("VACUUM", "vacuuming the file");
    db_.exec("PRAGMA wal_checkpoint(TRUNCATE)", "truncating the WAL after VACUUM");
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
    detail::sqlite_transaction tx(sql_.begin_read, sql_.commit, sql_.rollback);  // one snapshot for both reads
    store_stats out;
    {
      detail::sqlite_query q(sql_.stats);
      q.next();
      auto at = [&](int c) { return static_cast<std::size_t>(q.int64(c)); };
      out.threads = at(0);
      out.checkpoints = at(1);
      out.pending_writes = at(2);
    }
    // Values live inside their checkpoints' rows, so counting them reads those rows.
    detail::sqlite_query q(sql_.all_values);
    while (q.next()) {
      const bool ok = detail::for_each_value(q.text(2), [&](const detail::sqlite_value_ref& v) {
        ++out.values;
        out.value_bytes += v.value.size();
        return true;
      });
      if (!ok) {
        detail::sqlite_query name(sql_.thread_name);
        name.bind(q.int64(0));
        const std::string thread = name.next() ? std::string(name.text(0)) : "#" + std::to_string(q.int64(0));
        throw corrupted(thread, q.int64(1), "value list");
      }
    }
    return out;
  }

 private:
  struct channel_entry {
    std::string channel;
    std::int64_t version, origin;
  };
  // The thread this connection last put to: its last id and that checkpoint's channels.
  struct put_cache {
    bool valid = false;
    std::int64_t data_version = 0;
    std::string thread;
    std::int64_t number = 0;  // the thread's, in the threads table
    std::int64_t last_id = no_checkpoint;
    std::vector<channel_entry> channels;
  };

  // Every statement the store runs, prepared once when the store opens.
  struct statements {
    explicit statements(const detail::sqlite_connection& db)
        : begin_write(db, "BEGIN IMMEDIATE", "taking the write lock"),
          begin_read(db, "BEGIN", "starting a read"),
          commit(db, "COMMIT", "committing"),
          rollback(db, "ROLLBACK", "rolling back"),
          thread_number(db, "SELECT no FROM threads WHERE name = ?1", "reading a thread's number"),
          new_thread(db, "INSERT INTO threads (name) VALUES (?1)", "numbering a new thread"),
          last_id(db, "SELECT id FROM checkpoints WHERE key BETWEEN ?1 AND ?2 ORDER BY key DESC LIMIT 1",
                  "reading the last checkpoint id"),
          exists(db, "SELECT 1 FROM checkpoints WHERE" + std::string(detail::sqlite_checkpoint_row_sql),
                 "looking up a checkpoint"),
          exists_thread(db, "SELECT 1 FROM checkpoints WHERE" + std::string(detail::sqlite_thread_rows_sql) + " LIMIT 1",
                        "looking up a thread"),
          data_version(db, "PRAGMA data_version", "reading the data version"),
          parent_channels(db, "SELECT channels FROM checkpoints WHERE key = ?1 AND id > 0", "reading the parent's channels"),
          // The id is the key's low half (sqlite_key).
          insert_checkpoint(db,
                            "INSERT INTO checkpoints (key, id, parent, step, source, format_version, schema_hash,"
                            " metadata, channels, vals, created)"
                            " VALUES (?1, ?1 & 4294967295, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                            "writing a checkpoint"),
          insert_write(db,
                       "INSERT OR IGNORE INTO pending_writes (thread, checkpoint, task, idx, channel, value)"
                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                       "writing a pending write"),
          latest(db,
                 std::string(detail::sqlite_checkpoint_sql) + " WHERE" + detail::sqlite_thread_rows_sql +
                     " ORDER BY key DESC LIMIT 1",
                 "reading the latest checkpoint"),
          info(db, std::string(detail::sqlite_checkpoint_sql) + " WHERE" + detail::sqlite_checkpoint_row_sql,
               "reading a checkpoint"),
          // From checkpoint ?2 of thread ?1 back to the thread's first.
          value_rows(db,
                     "SELECT key & 4294967295, vals FROM checkpoints WHERE key BETWEEN (SELECT no << 32 FROM threads WHERE name = ?1)"
                     " AND (SELECT (no << 32) + ?2 FROM threads WHERE name = ?1) ORDER BY key DESC",
                     "reading a channel's value"),
          // Ids before ?2 (any value: past 2^32 is every id).
          list(db,
               std::string(detail::sqlite_info_sql) + " WHERE" + detail::sqlite_thread_rows_sql +
                   " AND id > 0 AND key < (SELECT (no << 32) + min(max(?2, 0), 4294967296) FROM threads WHERE name = ?1)"
                   " ORDER BY key DESC LIMIT ?3",
               "listing checkpoints"),
          read_writes(db,
                      "SELECT task, idx, channel, value FROM pending_writes"
                      " WHERE thread = ?1 AND checkpoint = ?2 ORDER BY task, idx",
                      "reading pending writes"),
          delete_writes(db, "DELETE FROM pending_writes WHERE thread = ?1", "deleting a thread"),
          delete_checkpoints(db, "DELETE FROM checkpoints WHERE" + std::string(detail::sqlite_thread_rows_sql),
                             "deleting a thread"),
          delete_thread(db, "DELETE FROM threads WHERE name = ?1", "deleting a thread"),
          threads(db,
                  "SELECT name FROM threads t WHERE EXISTS (SELECT 1 FROM checkpoints"
                  " WHERE key BETWEEN t.no << 32 AND (t.no << 32) + 4294967295) ORDER BY name",
                  "listing threads"),
          stats(db,
                "SELECT (SELECT count(DISTINCT key >> 32) FROM checkpoints), (SELECT count(*) FROM checkpoints WHERE id > 0),"
                " (SELECT count(*) FROM pending_writes)",
                "counting rows"),
          // The thread's number, not its name: a join would look every row's name up.
          all_values(db, "SELECT key >> 32, id, vals FROM checkpoints WHERE vals <> ''", "counting values"),
          thread_name(db, "SELECT name FROM threads WHERE no = ?1", "reading a thread's name") {}

    detail::sqlite_statement begin_write, begin_read, commit, rollback, thread_number, new_thread, last_id, exists,
        exists_thread, data_version, parent_channels, insert_checkpoint, insert_write, latest, info, value_rows, list,
        read_writes, delete_writes, delete_checkpoints, delete_thread, threads, stats, all_values, thread_name;
  };

  static statements prepare(const detail::sqlite_connection& db, const sqlite_options& options) {
    static constexpr const char* pragma[] = {"OFF", "NORMAL", "FULL"};
    detail::open_sqlite_store(db, static_cast<int>(options.busy_timeout.count()),
                              pragma[static_cast<int>(options.synchronous)]);
    return statements(db);
  }

  // The thread's number, given it here if it has none (inside the put's transaction, so it
  // goes again if the put fails).
  std::int64_t thread_number(std::string_view thread) {
    {
      detail::sqlite_query q(sql_.thread_number);
      q.bind(thread);
      if (q.next()) return q.int64(0);
    }
    detail::sqlite_query(sql_.new_thread).bind(thread).run();
    const std::int64_t number = sqlite3_last_insert_rowid(db_.handle());
    if (number < 1 || number > detail::sqlite_max_thread_number)
      throw store_error("stategraph: SQLite store '" + path() + "': no thread number is left below 2^31");
    return number;
  }
  std::int64_t last_id(std::int64_t number) const {
    detail::sqlite_query q(sql_.last_id);
    q.bind(detail::sqlite_key(number, 0)).bind(detail::sqlite_key(number, detail::sqlite_max_id));
    return q.next() ? q.int64(0) : no_checkpoint;
  }
  bool exists(std::string_view thread, std::int64_t id) const {
    detail::sqlite_query q(sql_.exists);
    q.bind(thread).bind(id);
    return q.next();
  }
  bool exists_thread(std::string_view thread) const {
    detail::sqlite_query q(sql_.exists_thread);
    q.bind(thread);
    return q.next();
  }
  // A number that changes whenever another connection has committed to the file (it may
  // also change on this connection's own commits, so it is read again after each). The
  // file control is a function call where the pragma is a statement; SQLite before 3.26
  // lacks it and answers SQLITE_NOTFOUND, and then the pragma is asked.
  std::int64_t data_version() const {
#ifdef SQLITE_FCNTL_DATA_VERSION
    unsigned int v = 0;
    if (sqlite3_file_control(db_.handle(), "main", SQLITE_FCNTL_DATA_VERSION, &v) == SQLITE_OK)
      return static_cast<std::int64_t>(v);
#endif
    detail::sqlite_query q(sql_.data_version);
    return q.next() ? q.int64(0) : 0;
  }
  // False if the checkpoint does not exist.
  bool parent_channels(std::string_view thread, std::int64_t number, std::int64_t id,
                       std::vector<channel_entry>& out) const {
    if (id < 1 || id > detail::sqlite_max_id) return false;
    detail::sqlite_query q(sql_.parent_channels);
    q.bind(detail::sqlite_key(number, id));
    if (!q.next()) return false;
    if (!detail::parse_channel_list(q.text(0), refs_)) throw corrupted(thread, id, "channel list");
    out.clear();
    for (const auto& r : refs_) out.push_back({std::string(r.channel), r.version, r.origin});
    return true;
  }
  // The thread's head: its newest checkpoint (none if the thread has none).
  std::int64_t head_id(std::string_view thread) const {
    detail::sqlite_query q(retention_sql_.head);
    q.bind(thread);
    return q.next() ? q.int64(0) : no_checkpoint;
  }
  struct visible_ids {
    std::int64_t number, first, head;
  };
  std::optional<visible_ids> visible_range(std::string_view thread) const {
    detail::sqlite_query q(retention_sql_.visible_range);
    q.bind(thread);
    if (!q.next() || q.is_null(0)) return std::nullopt;
    return visible_ids{q.int64(0), q.int64(1), q.int64(2)};
  }
  // Keeps checkpoints [cut, head]; of the rows below `cut`, keeps only the values the kept
  // checkpoints still reach (through a channel's origin or an append's previous piece).
  // Inside the caller's write transaction.
  std::size_t prune_before(std::string_view thread, std::int64_t number, std::int64_t cut, std::int64_t first) {
    if (cut <= first) return 0;
    cache_.valid = false;
    std::map<std::int64_t, std::set<std::string, std::less<>>> needed;  // by checkpoint: the channels
    {
      detail::sqlite_query q(retention_sql_.rows_in);
      q.bind(detail::sqlite_key(number, cut)).bind(detail::sqlite_key(number, detail::sqlite_max_id));
      while (q.next()) {
        if (!detail::parse_channel_list(q.text(1), refs_)) throw corrupted(thread, q.int64(0), "channel list");
        for (const auto& r : refs_)
          if (r.origin < cut) needed[r.origin].emplace(r.channel);
        const bool ok = detail::for_each_value(q.text(2), [&](const detail::sqlite_value_ref& v) {
          if (v.previous != no_checkpoint && v.previous < cut) needed[v.previous].emplace(v.channel);
          return true;
        });
        if (!ok) throw corrupted(thread, q.int64(0), "value list");
      }
    }
    // Newest first: a kept piece's previous piece is older, so it is decided later.
    std::vector<std::pair<std::int64_t, std::string>> holders;
    {
      detail::sqlite_query q(retention_sql_.rows_in);
      q.bind(detail::sqlite_key(number, 1)).bind(detail::sqlite_key(number, cut - 1));
      while (q.next()) {
        const std::int64_t id = q.int64(0);
        const auto it = needed.find(id);
        if (it == needed.end()) continue;
        std::string vals;
        const bool ok = detail::for_each_value(q.text(2), [&](const detail::sqlite_value_ref& v) {
          if (!it->second.contains(v.channel)) return true;
          detail::append_value(vals, v.channel, v.previous, v.value);
          if (v.previous != no_checkpoint) needed[v.previous].emplace(v.channel);
          return true;
        });
        if (!ok) throw corrupted(thread, id, "value list");
        holders.emplace_back(id, std::move(vals));
      }
    }
    std::size_t removed = 0;
    {
      detail::sqlite_query q(retention_sql_.count_visible);
      q.bind(detail::sqlite_key(number, 1)).bind(detail::sqlite_key(number, cut - 1));
      if (q.next()) removed = static_cast<std::size_t>(q.int64(0));
    }
    detail::sqlite_query(retention_sql_.delete_rows)
        .bind(detail::sqlite_key(number, 1))
        .bind(detail::sqlite_key(number, cut - 1))
        .run();
    for (const auto& [id, vals] : holders)
      detail::sqlite_query(retention_sql_.insert_holder).bind(detail::sqlite_key(number, id)).bind(vals).run();
    detail::sqlite_query(retention_sql_.delete_writes_before).bind(thread).bind(cut).run();
    return removed;
  }
  store_format_error corrupted(std::string_view thread, std::int64_t id, std::string_view what) const {
    return store_format_error("stategraph: SQLite store '" + path() + "': checkpoint " + std::to_string(id) +
                              " of thread '" + std::string(thread) + "' has a corrupted " + std::string(what));
  }
  static const channel_entry* find(const std::vector<channel_entry>& in, std::string_view name) {
    auto it = std::find_if(in.begin(), in.end(), [&](const channel_entry& p) { return p.channel == name; });
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
    const std::int64_t format = q.int64(4);
    if (format < std::numeric_limits<int>::min() || format > std::numeric_limits<int>::max())
      throw corrupted(thread, q.int64(0), "format version (" + std::to_string(format) + ")");
    return {std::string(thread),
            q.int64(0),
            q.int64(1),
            q.int64(2),
            *source,
            static_cast<int>(format),
            std::string(q.text(5)),
            std::string(q.text(6))};
  }
  // Columns of sqlite_checkpoint_sql. A channel whose value is missing from its origin's
  // row is left out (the runtime then names the channel its checkpoint lacks).
  stored_checkpoint read(std::string_view thread, const detail::sqlite_query& header) const {
    stored_checkpoint out{info(thread, header), {}};
    if (!detail::parse_channel_list(header.text(7), refs_)) throw corrupted(thread, out.id, "channel list");
    for (const auto& r : refs_) {
      if (!read_pieces(thread, r.channel, r.origin)) continue;
      channel_value& ch = out.channels.emplace_back(
          channel_value{std::string(r.channel), r.version, std::move(pieces_.back()), {}});
      ch.appends.reserve(pieces_.size() - 1);
      for (std::size_t k = pieces_.size() - 1; k-- > 0;) ch.appends.push_back(std::move(pieces_[k]));
    }
    return out;
  }

  // A channel's value into pieces_, newest first: the piece `origin` wrote, then the pieces
  // it extends through `previous`, back to a whole value. False if `origin` wrote none.
  // The pieces of a chain are usually in consecutive checkpoints, so the rows are read
  // walking back one index cursor; a gap of more than a few rows seeks instead.
  bool read_pieces(std::string_view thread, std::string_view channel, std::int64_t origin) const {
    constexpr int max_skipped = 16;
    pieces_.clear();
    std::int64_t want = origin;
    while (want != no_checkpoint) {
      if (want < 0 || want > detail::sqlite_max_id) throw corrupted(thread, origin, "channel origin or append link");
      detail::sqlite_query q(sql_.value_rows);
      q.bind(thread).bind(want);
      int skipped = 0;
      while (want != no_checkpoint && skipped <= max_skipped) {
        const bool has_row = q.next();
        const std::int64_t row = has_row ? q.int64(0) : no_checkpoint;
        if (has_row && row > want) {
          ++skipped;
          continue;
        }
        bool found = false;
        if (has_row && row == want) {
          const bool ok = detail::for_each_value(q.text(1), [&](const detail::sqlite_value_ref& v) {
            if (v.channel != channel) return true;
            pieces_.emplace_back(v.value);
            want = v.previous;
            found = true;
            return false;
          });
          if (!ok) throw corrupted(thread, row, "value list");
        }
        if (!found) {
          if (pieces_.empty()) return false;
          throw corrupted(thread, origin, "append chain for channel '" + std::string(channel) + "' (checkpoint " +
                                              std::to_string(want) + " lacks its piece)");
        }
        skipped = 0;
      }
    }
    return true;
  }

  // The statements of one writer per thread and of retention.
  struct retention_statements {
    explicit retention_statements(const detail::sqlite_connection& db)
        : head(db,
               "SELECT id FROM checkpoints WHERE" + std::string(detail::sqlite_thread_rows_sql) +
                   " ORDER BY key DESC LIMIT 1",
               "reading a thread's head"),
          // The thread's number, its oldest visible id and its head.
          visible_range(db,
                        "SELECT t.no, (SELECT min(id) FROM checkpoints WHERE key BETWEEN t.no << 32 AND"
                        " (t.no << 32) + 4294967295 AND id > 0), (SELECT id FROM checkpoints WHERE key BETWEEN"
                        " t.no << 32 AND (t.no << 32) + 4294967295 ORDER BY key DESC LIMIT 1) FROM threads t"
                        " WHERE t.name = ?1 AND EXISTS (SELECT 1 FROM checkpoints WHERE key BETWEEN t.no << 32"
                        " AND (t.no << 32) + 4294967295)",
                        "reading a thread's range"),
          newest_before(db,
                        "SELECT max(id) FROM checkpoints WHERE key BETWEEN ?1 AND ?2 AND id > 0 AND created < ?3",
                        "finding the checkpoints to prune"),
          rows_in(db,
                  "SELECT key & 4294967295, channels, vals FROM checkpoints WHERE key BETWEEN ?1 AND ?2"
                  " ORDER BY key DESC",
                  "reading the checkpoints to prune"),
          count_visible(db, "SELECT count(*) FROM checkpoints WHERE key BETWEEN ?1 AND ?2 AND id > 0",
                        "counting the checkpoints to prune"),
          delete_rows(db, "DELETE FROM checkpoints WHERE key BETWEEN ?1 AND ?2", "pruning checkpoints"),
          // A pruned checkpoint that still holds values: no channel list, metadata or hash.
          insert_holder(db,
                        "INSERT INTO checkpoints (key, id, parent, step, source, format_version, schema_hash,"
                        " metadata, channels, vals, created) VALUES (?1, -(?1 & 4294967295), 0, 0, 'loop', 0, '',"
                        " '', '', ?2, 0)",
                        "keeping the values of pruned checkpoints"),
          delete_writes_before(db, "DELETE FROM pending_writes WHERE thread = ?1 AND checkpoint < ?2",
                               "pruning pending writes"),
          idle_threads(db,
                       "SELECT t.name FROM threads t WHERE (SELECT created FROM checkpoints WHERE key BETWEEN"
                       " t.no << 32 AND (t.no << 32) + 4294967295 ORDER BY key DESC LIMIT 1) < ?1 ORDER BY t.name",
                       "finding idle threads") {}

    detail::sqlite_statement head, visible_range, newest_before, rows_in, count_visible, delete_rows, insert_holder,
        delete_writes_before, idle_threads;
  };

  struct graph_statements {
    explicit graph_statements(const detail::sqlite_connection& db)
        : insert_graph(db, "INSERT OR IGNORE INTO graphs (key, description) VALUES (?1, ?2)",
                       "recording a graph"),
          insert_thread(db, "INSERT OR REPLACE INTO thread_graphs (thread, graph) VALUES (?1, ?2)",
                        "recording a thread's graph"),
          read(db,
               "SELECT g.description FROM thread_graphs t JOIN graphs g ON g.key = t.graph WHERE t.thread = ?1",
               "reading a thread's graph"),
          forget(db, "DELETE FROM thread_graphs WHERE thread = ?1", "deleting a thread"),
          unused(db,
                 "DELETE FROM graphs WHERE NOT EXISTS (SELECT 1 FROM thread_graphs t WHERE t.graph = graphs.key)",
                 "removing graph descriptions no thread uses"),
          written(db, "SELECT vals FROM checkpoints WHERE" + std::string(detail::sqlite_checkpoint_row_sql),
                  "reading a checkpoint's values") {}

    detail::sqlite_statement insert_graph, insert_thread, read, forget, unused, written;
  };

  mutable std::mutex mutex_;
  detail::sqlite_connection db_;
  mutable statements sql_;
  mutable retention_statements retention_sql_;
  mutable graph_statements graph_sql_;
  // Buffers reused by every call, behind mutex_.
  put_cache cache_;
  std::vector<channel_entry> scratch_parent_, scratch_now_;
  std::string list_text_, vals_text_;
  mutable std::vector<detail::sqlite_channel_ref> refs_;  // views into the row being read
  mutable std::vector<std::string> pieces_;
};

static_assert(checkpoint_store<sqlite_store>);

}  // namespace stategraph
