// Tampering with a store's SQLite file as another program would, for the bad-input tests and
// the corruption matrix: SQL through a second connection, with two SQL functions over a
// checkpoint's value list (column `vals`) so a case can rewrite one stored value.
#pragma once

#include <stategraph/store/sqlite.hpp>

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <string>
#include <string_view>

namespace durable_sql {

// SQL functions over a checkpoint's value list (column `vals`, schema version 3), so a
// case can rewrite one stored value in SQL: sg_value(vals, channel) and
// sg_set_value(vals, channel, value).
inline void value_function(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto text = [&](int k) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(argv[k]));
    return std::string_view(p ? p : "", static_cast<std::size_t>(sqlite3_value_bytes(argv[k])));
  };
  std::string out;
  bool found = false;
  stategraph::detail::for_each_value(text(0), [&](const stategraph::detail::sqlite_value_ref& v) {
    if (v.channel == text(1)) {
      found = true;
      if (argc == 2) out.assign(v.value);
    }
    if (argc == 3) stategraph::detail::append_value(out, v.channel, v.previous, v.channel == text(1) ? text(2) : v.value);
    return true;
  });
  if (!found) return sqlite3_result_error(ctx, "sg_value: no such channel in the value list", -1);
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

// Runs SQL on a store's file through a second connection, as another program would.
inline void sql(const std::string& path, const std::string& statement) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  for (int args : {2, 3})
    REQUIRE(sqlite3_create_function(db, args == 2 ? "sg_value" : "sg_set_value", args, SQLITE_UTF8, nullptr,
                                    value_function, nullptr, nullptr) == SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &message);
  const std::string why = message ? message : "";
  sqlite3_free(message);
  sqlite3_close_v2(db);
  INFO(statement << ": " << why);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace durable_sql
