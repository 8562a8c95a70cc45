// The file layout of sg::sqlite_store and how a file is opened: made on first use,
// recognised by its application id and schema version, refused otherwise before anything in
// it is changed.
#pragma once

#include <stategraph/store/detail/sqlite_handle.hpp>
#include <stategraph/store/store.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace stategraph::detail {

// 3: a checkpoint's row is keyed by one integer (its thread's number and its id), and its
// new values are a column of that row (`vals`), so a put appends one row to one b-tree, as
// an insert by rowid does; 2 kept rows keyed by (thread text, id) and the values in a table
// of their own (channel_values), and is migrated to 3 when opened. 1 had a row per channel
// of every checkpoint; it is refused.
inline constexpr std::int64_t sqlite_schema_version = 3;
inline constexpr std::int32_t sqlite_application_id = 0x53477374;  // "SGst"

// A checkpoint's key is its thread's number times 2^32 plus its id, so a thread's rows are
// one range of the rowid b-tree in id order, and the newest thread's puts append at its end.
// Ids are dense from 1, so 2^32 - 1 of them per thread is no practical limit; numbers are
// taken below 2^31 so the key stays a positive 64-bit integer.
inline constexpr int sqlite_id_bits = 32;
inline constexpr std::int64_t sqlite_max_id = (std::int64_t{1} << sqlite_id_bits) - 1;
inline constexpr std::int64_t sqlite_max_thread_number = (std::int64_t{1} << 31) - 1;
inline constexpr std::int64_t sqlite_key(std::int64_t thread_number, std::int64_t id) {
  return (thread_number << sqlite_id_bits) + id;
}

// threads         a number per thread name: what checkpoint keys are made of. A thread's
//                 row goes when its checkpoints do, and a number may then be given again.
// checkpoints     one row per checkpoint, keyed as sqlite_key says; `id` repeats the key's
//                 low half for readers of the file. `channels` lists every channel of the
//                 checkpoint in put order: its name, version and `origin`, the id of the
//                 checkpoint that wrote the value it has (itself or an ancestor); see
//                 sqlite_channel_list. `vals` holds the values this checkpoint wrote, each
//                 with `previous`, the checkpoint whose value an appended piece extends (0:
//                 none); see sqlite_value_list. Values are keyed by the checkpoint that wrote
//                 them, so two branches of a fork that reach the same version never collide.
//                 `created` is when the put committed (microseconds since the epoch; files
//                 of version 3 made before retention get the column, set to the time they
//                 are first opened). A pruned checkpoint whose values a kept one still
//                 refers to keeps its row with those values alone and `id` = -id, so no
//                 read by id or listing finds it.
// pending_writes  writes of nodes that succeeded in a step that failed.
inline constexpr const char* sqlite_keyed_tables_sql = R"sql(
CREATE TABLE threads (no INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE checkpoints (
  key INTEGER PRIMARY KEY, id INTEGER NOT NULL, parent INTEGER NOT NULL, step INTEGER NOT NULL,
  source TEXT NOT NULL, format_version INTEGER NOT NULL, schema_hash TEXT NOT NULL, metadata TEXT NOT NULL,
  channels TEXT NOT NULL, vals TEXT NOT NULL DEFAULT '', created INTEGER NOT NULL DEFAULT 0);
)sql";
inline constexpr const char* sqlite_other_tables_sql = R"sql(
CREATE TABLE stategraph_store (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE pending_writes (
  thread TEXT NOT NULL, checkpoint INTEGER NOT NULL, task TEXT NOT NULL, idx INTEGER NOT NULL,
  channel TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (thread, checkpoint, task, idx));
INSERT INTO stategraph_store VALUES ('schema_version', 3);
PRAGMA application_id = 1397191540;
)sql";
static_assert(sqlite_application_id == 1397191540);

// graphs          a graph's description (JSON the runtime wrote), once per key; kept while a
//                 thread refers to it (deleting and pruning threads remove the others).
// thread_graphs   which graph each thread runs; indexed by graph, so that removal finds
//                 whether a description is still used without reading every thread. All are
//                 made when missing, so files written before them open as they were and gain
//                 them; builds that predate them ignore them.
inline constexpr const char* sqlite_graph_tables_sql = R"sql(
CREATE TABLE IF NOT EXISTS graphs (key TEXT PRIMARY KEY, description TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS thread_graphs (thread TEXT PRIMARY KEY, graph TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS thread_graphs_by_graph ON thread_graphs (graph);
)sql";

// Conditions on checkpoints: the rows of thread ?1 (none if the name has no number), and
// its checkpoint ?2 (`id` is compared too, so an id past 2^32 finds nothing).
inline constexpr const char* sqlite_thread_rows_sql =
    " key BETWEEN (SELECT no << 32 FROM threads WHERE name = ?1)"
    " AND (SELECT (no << 32) + 4294967295 FROM threads WHERE name = ?1)";
inline constexpr const char* sqlite_checkpoint_row_sql =
    " key = (SELECT (no << 32) + ?2 FROM threads WHERE name = ?1) AND id = ?2";
static_assert(sqlite_id_bits == 32 && sqlite_max_id == 4294967295);

// The columns sqlite_store reads back into a checkpoint_info, in that order.
inline constexpr const char* sqlite_info_sql =
    "SELECT id, parent, step, source, format_version, schema_hash, metadata FROM checkpoints";
// The same and the channel list (column 7), for reading whole checkpoints.
inline constexpr const char* sqlite_checkpoint_sql =
    "SELECT id, parent, step, source, format_version, schema_hash, metadata, channels FROM checkpoints";

// A checkpoint's channel list as one text: per channel `<bytes of name>:<name> <version>
// <origin>\n`. The length prefix lets a name hold any byte.
struct sqlite_channel_ref {
  std::string_view channel;
  std::int64_t version = 0;
  std::int64_t origin = 0;
};

// Appends `v` in decimal, without the temporary string std::to_string would make.
template <class Int>
void append_number(std::string& out, Int v) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
  out.append(digits, static_cast<std::size_t>(end - digits));
}

inline void append_channel_ref(std::string& out, std::string_view channel, std::int64_t version, std::int64_t origin) {
  append_number(out, channel.size());
  out += ':';
  out += channel;
  out += ' ';
  append_number(out, version);
  out += ' ';
  append_number(out, origin);
  out += '\n';
}

// Reads a decimal number ending at `end` off the front of `s`; false if there is none.
template <class Int>
bool take_number(std::string_view& s, char end, Int& v) {
  const auto stop = s.find(end);
  if (stop == std::string_view::npos || stop == 0) return false;
  auto r = std::from_chars(s.data(), s.data() + stop, v);
  if (r.ec != std::errc{} || r.ptr != s.data() + stop) return false;
  s.remove_prefix(stop + 1);
  return true;
}

// Reads `<bytes>:<bytes of text>` off the front of `s`.
inline bool take_counted(std::string_view& s, std::string_view& out) {
  std::size_t length = 0;
  if (!take_number(s, ':', length) || length > s.size()) return false;
  out = s.substr(0, length);
  s.remove_prefix(length);
  return true;
}

// Parses a channel list into views of `text`; false if it is not one.
inline bool parse_channel_list(std::string_view text, std::vector<sqlite_channel_ref>& out) {
  out.clear();
  while (!text.empty()) {
    sqlite_channel_ref ref;
    if (!take_counted(text, ref.channel) || ref.channel.empty() || text.empty() || text.front() != ' ') return false;
    text.remove_prefix(1);
    if (!take_number(text, ' ', ref.version) || !take_number(text, '\n', ref.origin)) return false;
    out.push_back(ref);
  }
  return true;
}

// The values a checkpoint wrote, as one text (column `vals`): per value `<bytes of
// name>:<name> <previous> <bytes of value>:<value>`, with no separator, since every part
// that may hold any byte is counted.
struct sqlite_value_ref {
  std::string_view channel;
  std::int64_t previous = 0;
  std::string_view value;
};

inline void append_value(std::string& out, std::string_view channel, std::int64_t previous, std::string_view value) {
  append_number(out, channel.size());
  out += ':';
  out += channel;
  out += ' ';
  append_number(out, previous);
  out += ' ';
  append_number(out, value.size());
  out += ':';
  out += value;
}

// Calls `each(sqlite_value_ref)` for every value of `text` until it returns false; false
// if `text` is not a value list.
template <class Each>
bool for_each_value(std::string_view text, Each each) {
  while (!text.empty()) {
    sqlite_value_ref v;
    if (!take_counted(text, v.channel) || v.channel.empty() || text.empty() || text.front() != ' ') return false;
    text.remove_prefix(1);
    if (!take_number(text, ' ', v.previous) || !take_counted(text, v.value)) return false;
    if (!each(v)) return true;
  }
  return true;
}

// A time as the `created` column holds it.
inline std::int64_t sqlite_time(store_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

// Reads one integer (or NULL as nullopt) from a one-row query.
inline std::optional<std::int64_t> sqlite_scalar(const sqlite_connection& db, const char* sql, std::string_view doing) {
  sqlite_statement s(db, sql, doing);
  sqlite_query q(s);
  if (!q.next() || q.is_null(0)) return std::nullopt;
  return q.int64(0);
}

// What opening found in the file.
enum class sqlite_file_kind { empty, current, version_2 };

// Reads the file's marks; refuses anything that is not a store this build reads or converts.
inline sqlite_file_kind sqlite_file_of(const sqlite_connection& db) {
  if (sqlite_scalar(db, "SELECT count(*) FROM sqlite_master", "reading the file's tables").value_or(0) == 0)
    return sqlite_file_kind::empty;
  if (sqlite_scalar(db, "PRAGMA application_id", "reading the application id") != sqlite_application_id)
    throw store_format_error("stategraph: '" + db.path() +
                             "' is a SQLite database but not a stategraph checkpoint store; nothing was changed");
  // Our application id without our tables (or with pages lost or scrambled after the
  // header): refused as damaged here, before a statement would fail on a missing table.
  auto damaged = [&](const char* why) {
    return store_format_error("stategraph: '" + db.path() + "' carries a stategraph store's mark but " + why +
                              ": the file is damaged; nothing was changed");
  };
  if (sqlite_scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'stategraph_store'",
                    "reading the file's tables")
          .value_or(0) != 1)
    throw damaged("no stategraph_store table");
  const auto version = sqlite_scalar(db, "SELECT value FROM stategraph_store WHERE key = 'schema_version'",
                                     "reading the schema version");
  if (version == sqlite_schema_version) {
    if (sqlite_scalar(db,
                      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
                      " ('threads', 'checkpoints', 'pending_writes')",
                      "reading the file's tables")
            .value_or(0) != 3)
      throw damaged("lacks some of its tables");
    return sqlite_file_kind::current;
  }
  if (version == 2) return sqlite_file_kind::version_2;
  if (!version) throw damaged("no schema version");
  std::string how = version == 1 ? "; nothing converts version 1: finish or drop its threads with the build that"
                                   " wrote it"
                                 : "";
  throw store_format_error("stategraph: '" + db.path() + "' is a stategraph store of schema version " +
                           (version ? std::to_string(*version) : "(none)") + "; this build reads version " +
                           std::to_string(sqlite_schema_version) + " and converts version 2" + how +
                           "; nothing was changed");
}

// Converts a version-2 file to version 3 inside the caller's write transaction (all or
// nothing): each thread gets a number, each checkpoint row moves to its key, each row of
// channel_values moves into the `vals` of the checkpoint that wrote it, then the old tables
// go. Ids, values and their links are kept as they are.
inline void migrate_sqlite_store_from_2(const sqlite_connection& db) {
  if (sqlite_scalar(db, "SELECT count(*) FROM checkpoints WHERE id < 1 OR id > 4294967295",
                    "converting version 2: checking the ids")
          .value_or(0) != 0)
    throw store_format_error("stategraph: '" + db.path() +
                             "': converting version 2: a checkpoint id is outside 1 .. 2^32 - 1; nothing was changed");
  db.exec("ALTER TABLE checkpoints RENAME TO checkpoints_2", "converting version 2: setting the old rows aside");
  db.exec(sqlite_keyed_tables_sql, "converting version 2: making the keyed tables");
  db.exec("INSERT INTO threads (name) SELECT DISTINCT thread FROM checkpoints_2 ORDER BY thread",
          "converting version 2: numbering the threads");
  db.exec("INSERT INTO checkpoints (key, id, parent, step, source, format_version, schema_hash, metadata, channels)"
          " SELECT (t.no << 32) + c.id, c.id, c.parent, c.step, c.source, c.format_version, c.schema_hash,"
          " c.metadata, c.channels FROM checkpoints_2 c JOIN threads t ON t.name = c.thread ORDER BY 1",
          "converting version 2: moving the checkpoints");
  db.exec("DROP TABLE checkpoints_2", "converting version 2: dropping the old checkpoints");
  {
    sqlite_statement rows(db, "SELECT thread, origin, channel, previous, value FROM channel_values",
                          "converting version 2: reading the values");
    // Appends, so values of one checkpoint are kept whatever order the rows come in.
    sqlite_statement update(db,
                            std::string("UPDATE checkpoints SET vals = vals || ?3 WHERE") + sqlite_checkpoint_row_sql,
                            "converting version 2: writing the values");
    std::string thread, vals;
    std::int64_t origin = no_checkpoint;
    auto flush = [&] {
      if (vals.empty()) return;
      sqlite_query(update).bind(thread).bind(origin).bind(vals).run();
      if (sqlite3_changes(db.handle()) != 1)
        throw store_format_error("stategraph: '" + db.path() + "': converting version 2: thread '" + thread +
                                 "' has values of checkpoint " + std::to_string(origin) +
                                 ", which does not exist; nothing was changed");
      vals.clear();
    };
    sqlite_query q(rows);
    while (q.next()) {
      if (q.text(0) != thread || q.int64(1) != origin) {
        flush();
        thread.assign(q.text(0));
        origin = q.int64(1);
      }
      append_value(vals, q.text(2), q.int64(3), q.text(4));
    }
    flush();
  }  // the statements end before their table is dropped
  db.exec("DROP TABLE channel_values", "converting version 2: dropping channel_values");
  db.exec("UPDATE stategraph_store SET value = 3 WHERE key = 'schema_version'",
          "converting version 2: marking version 3");
}

// Gives every checkpoint row without a time the time of now: after the `created` column was
// added to a version-3 file, or a version-2 file was converted.
inline void sqlite_date_old_rows(const sqlite_connection& db) {
  const std::string sql = "UPDATE checkpoints SET created = " + std::to_string(sqlite_time(store_clock::now())) +
                          " WHERE created = 0";
  db.exec(sql.c_str(), "dating the checkpoints written before retention");
}
inline void sqlite_add_created_column(const sqlite_connection& db) {
  if (sqlite_scalar(db, "SELECT count(*) FROM pragma_table_info('checkpoints') WHERE name = 'created'",
                    "looking for the created column")
          .value_or(0) != 0)
    return;
  db.exec("ALTER TABLE checkpoints ADD COLUMN created INTEGER NOT NULL DEFAULT 0", "adding the created column");
  sqlite_date_old_rows(db);
}

// Asks for WAL and returns the journal mode the file ends up in. Connections that open a
// new file together all read it in rollback mode, then all ask for the write lock the
// switch takes; SQLite refuses all but one at once (SQLITE_BUSY, without calling the busy
// handler, since waiting while holding a read lock could deadlock), so the switch is
// retried here until the busy timeout has passed.
inline std::string sqlite_switch_to_wal(const sqlite_connection& db, int busy_timeout_ms) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db.handle(), "PRAGMA journal_mode = WAL", -1, &raw, nullptr);
    const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
    if (rc == SQLITE_OK) rc = sqlite3_step(raw);
    if (rc == SQLITE_ROW) {
      const auto* mode = reinterpret_cast<const char*>(sqlite3_column_text(raw, 0));
      return mode != nullptr ? mode : "";
    }
    if ((rc & 0xff) != SQLITE_BUSY || clock::now() >= deadline) db.fail("switching to WAL", rc);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(32));
  }
}

// Opens the file as a store: refuses a foreign file before writing anything to it, then
// switches it to WAL and makes the tables if it is new, or converts a version-2 file. Safe
// when several processes open the same file at once: both re-check under the write lock.
inline void open_sqlite_store(const sqlite_connection& db, int busy_timeout_ms, const char* synchronous) {
  sqlite3_busy_timeout(db.handle(), busy_timeout_ms);
  sqlite_file_of(db);  // before anything is written to a file that may not be ours
  if (db.path() != ":memory:" && !db.path().empty()) {
    const std::string mode = sqlite_switch_to_wal(db, busy_timeout_ms);
    if (mode != "wal")
      throw store_error("stategraph: SQLite store '" + db.path() + "' cannot use WAL (journal mode is '" + mode +
                        "'); is the file on a network file system?");
  }
  db.exec((std::string("PRAGMA synchronous = ") + synchronous).c_str(), "setting synchronous");
  db.exec("BEGIN IMMEDIATE", "locking the file to make the tables");
  try {
    switch (sqlite_file_of(db)) {
      case sqlite_file_kind::empty:
        db.exec(sqlite_keyed_tables_sql, "making the tables");
        db.exec(sqlite_other_tables_sql, "making the tables");
        break;
      case sqlite_file_kind::version_2:
        migrate_sqlite_store_from_2(db);
        sqlite_date_old_rows(db);
        break;
      case sqlite_file_kind::current:
        sqlite_add_created_column(db);
        break;
    }
    db.exec(sqlite_graph_tables_sql, "making the graph tables");
    db.exec("COMMIT", "committing the tables");
  } catch (...) {
    sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace stategraph::detail
