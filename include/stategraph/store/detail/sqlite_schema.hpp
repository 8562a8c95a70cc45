// The file layout of sg::sqlite_store and how a file is opened: made on first use,
// recognised by its application id and schema version, refused otherwise before anything in
// it is changed.
#pragma once

#include <stategraph/store/detail/sqlite_handle.hpp>
#include <stategraph/store/store.hpp>

#include <sqlite3.h>

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace stategraph::detail {

// 2: a checkpoint's channel list is a column of its row (1 had a row per channel), and
// both tables are keyed without rowids, so a put writes one row plus one per new value.
// A file of version 1 is refused (nothing converts it).
inline constexpr std::int64_t sqlite_schema_version = 2;
inline constexpr std::int32_t sqlite_application_id = 0x53477374;  // "SGst"

// checkpoints     one row per checkpoint; (thread, id) is also the history index. `channels`
//                 lists every channel of the checkpoint in put order: its name, version and
//                 `origin`, the id of the checkpoint that wrote the value it has (itself or
//                 an ancestor); see sqlite_channel_list.
// channel_values  each value once, keyed by the checkpoint that wrote it, so two branches
//                 of a fork that reach the same version never collide, and a checkpoint's
//                 values sit side by side; `previous` links an appended piece to the value
//                 it extends (0: none).
// pending_writes  writes of nodes that succeeded in a step that failed.
inline constexpr const char* sqlite_schema_sql = R"sql(
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
)sql";
static_assert(sqlite_application_id == 1397191540);

// The columns sqlite_store reads back into a checkpoint_info, in that order.
inline constexpr const char* sqlite_info_sql =
    "SELECT id, parent, step, source, format_version, schema_hash, metadata FROM checkpoints";
// The same and the channel list (column 7), for reading whole checkpoints.
inline constexpr const char* sqlite_checkpoint_sql =
    "SELECT id, parent, step, source, format_version, schema_hash, metadata, channels FROM checkpoints";

// One channel's value: its value row, then the rows it appends to, walked back through
// `previous`; the whole value comes first (deepest), then the appended pieces, oldest first.
inline constexpr const char* sqlite_value_chain_sql = R"sql(
WITH RECURSIVE chain (previous, value, depth) AS (
  SELECT previous, value, 0 FROM channel_values WHERE thread = ?1 AND origin = ?2 AND channel = ?3
  UNION ALL
  SELECT v.previous, v.value, chain.depth + 1
    FROM chain JOIN channel_values AS v ON v.thread = ?1 AND v.origin = chain.previous AND v.channel = ?3
   WHERE chain.previous <> 0)
SELECT value FROM chain ORDER BY depth DESC
)sql";

// A checkpoint's channel list as one text: per channel `<bytes of name>:<name> <version>
// <origin>\n`. The length prefix lets a name hold any byte.
struct sqlite_channel_ref {
  std::string_view channel;
  std::int64_t version = 0;
  std::int64_t origin = 0;
};

inline void append_channel_ref(std::string& out, std::string_view channel, std::int64_t version, std::int64_t origin) {
  out += std::to_string(channel.size());
  out += ':';
  out += channel;
  out += ' ';
  out += std::to_string(version);
  out += ' ';
  out += std::to_string(origin);
  out += '\n';
}

// Parses a channel list into views of `text`; false if it is not one.
inline bool parse_channel_list(std::string_view text, std::vector<sqlite_channel_ref>& out) {
  out.clear();
  auto number = [&](std::string_view& s, char end, auto& v) {
    const auto stop = s.find(end);
    if (stop == std::string_view::npos || stop == 0) return false;
    auto r = std::from_chars(s.data(), s.data() + stop, v);
    if (r.ec != std::errc{} || r.ptr != s.data() + stop) return false;
    s.remove_prefix(stop + 1);
    return true;
  };
  while (!text.empty()) {
    std::size_t length = 0;
    sqlite_channel_ref ref;
    if (!number(text, ':', length) || length == 0 || length >= text.size()) return false;
    ref.channel = text.substr(0, length);
    text.remove_prefix(length);
    if (text.front() != ' ') return false;
    text.remove_prefix(1);
    if (!number(text, ' ', ref.version) || !number(text, '\n', ref.origin)) return false;
    out.push_back(ref);
  }
  return true;
}

// Reads one integer (or NULL as nullopt) from a one-row query.
inline std::optional<std::int64_t> sqlite_scalar(const sqlite_connection& db, const char* sql, std::string_view doing) {
  sqlite_statement s(db, sql, doing);
  sqlite_query q(s);
  if (!q.next() || q.is_null(0)) return std::nullopt;
  return q.int64(0);
}

// True for a store this build reads, false for an empty file; anything else is refused.
inline bool is_sqlite_store(const sqlite_connection& db) {
  if (sqlite_scalar(db, "SELECT count(*) FROM sqlite_master", "reading the file's tables").value_or(0) == 0)
    return false;
  if (sqlite_scalar(db, "PRAGMA application_id", "reading the application id") != sqlite_application_id)
    throw store_format_error("stategraph: '" + db.path() +
                             "' is a SQLite database but not a stategraph checkpoint store; nothing was changed");
  const auto version = sqlite_scalar(db, "SELECT value FROM stategraph_store WHERE key = 'schema_version'",
                                     "reading the schema version");
  if (version != sqlite_schema_version)
    throw store_format_error("stategraph: '" + db.path() + "' is a stategraph store of schema version " +
                             (version ? std::to_string(*version) : "(none)") + "; this build reads version " +
                             std::to_string(sqlite_schema_version) + " only; nothing was changed");
  return true;
}

// Opens the file as a store: refuses a foreign file before writing anything to it, then
// switches it to WAL and makes the tables if it is new. Safe when several processes open
// the same new file at once: creation re-checks under the write lock.
inline void open_sqlite_store(const sqlite_connection& db, int busy_timeout_ms, const char* synchronous) {
  sqlite3_busy_timeout(db.handle(), busy_timeout_ms);
  is_sqlite_store(db);  // before anything is written to a file that may not be ours
  if (db.path() != ":memory:" && !db.path().empty()) {
    sqlite_statement wal(db, "PRAGMA journal_mode = WAL", "switching to WAL");
    sqlite_query q(wal);
    if (!q.next() || q.text(0) != "wal")
      throw store_error("stategraph: SQLite store '" + db.path() + "' cannot use WAL (journal mode is '" +
                        std::string(q.text(0)) + "'); is the file on a network file system?");
  }
  db.exec((std::string("PRAGMA synchronous = ") + synchronous).c_str(), "setting synchronous");
  db.exec("BEGIN IMMEDIATE", "locking the file to make the tables");
  try {
    if (!is_sqlite_store(db)) db.exec(sqlite_schema_sql, "making the tables");
    db.exec("COMMIT", "committing the tables");
  } catch (...) {
    sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace stategraph::detail
