// Retention: bytes on disk of one long SQLite thread before and after pruning it. Each turn
// is one invoke that appends a user message (--message bytes) to `messages` and rewrites a
// `draft` (--draft bytes, a last-value channel, as an agent's scratchpad or running summary).
//
//   retention [--turns 2000] [--keep 100] [--message 200] [--draft 2000] [--check]
//
// Prints one JSON object: checkpoints, stored value bytes and the file's bytes (database +
// WAL, after PRAGMA wal_checkpoint(TRUNCATE)) after the turns, after prune(keep_latest), and
// after vacuum(). --check exits non-zero unless the head state reads back whole after each.
#include "files.hpp"

#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/sqlite.hpp>

#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace bench_retention {

namespace sg = stategraph;

struct Chat {
  sg::append<std::string> messages;
  std::string draft;
  sg::counter<int> turns;
};
struct reply {
  using reads = sg::reads<&Chat::messages>;
  using writes = sg::writes<&Chat::turns>;
  auto operator()(sg::view<Chat, reads>) const { return sg::write<&Chat::turns>(1); }
};
using graph = sg::graph<Chat, sg::edge<sg::start, reply>, sg::edge<reply, sg::end>>;

struct sample {
  std::size_t checkpoints, value_bytes;
  std::uintmax_t file_bytes;
};

sample measure(sg::sqlite_store& store, const bench::temp_db& file) {
  sqlite3* raw = nullptr;  // a second connection empties the WAL into the file, as a reader would see it
  sqlite3_open(file.path().c_str(), &raw);
  sqlite3_exec(raw, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  const auto stats = store.stats();
  return {stats.checkpoints, stats.value_bytes, file.bytes()};
}

std::string json(const char* name, const sample& s) {
  return std::string("\"") + name + "\": {\"checkpoints\": " + std::to_string(s.checkpoints) +
         ", \"value_bytes\": " + std::to_string(s.value_bytes) + ", \"file_bytes\": " + std::to_string(s.file_bytes) +
         "}";
}

}  // namespace bench_retention

int main(int argc, char** argv) {
  using namespace bench_retention;
  int turns = 2000, keep = 100, message = 200, draft = 2000;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::atoi(argv[++i]) : 0; };
    if (a == "--turns") turns = next();
    else if (a == "--keep") keep = next();
    else if (a == "--message") message = next();
    else if (a == "--draft") draft = next();
    else if (a == "--check") check = true;
    else {
      std::fprintf(stderr, "retention: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  bench::temp_db file("retention");
  sg::sqlite_store store(file.path());
  auto app = sg::compile<graph>(sg::with_store(store));
  const sg::thread_id t{"long"};
  for (int k = 0; k < turns; ++k) {
    Chat input;
    input.messages.value().push_back(std::string(static_cast<std::size_t>(message), static_cast<char>('a' + k % 26)));
    input.draft = std::string(static_cast<std::size_t>(draft), static_cast<char>('A' + k % 26));
    app.invoke(std::move(input), t);
  }
  bool ok = true;
  auto head_ok = [&] {
    const auto s = app.get_state(t);
    return s && s->values.turns == turns && s->values.messages.value().size() == static_cast<std::size_t>(turns) &&
           s->values.draft.size() == static_cast<std::size_t>(draft);
  };
  const sample before = measure(store, file);
  ok = ok && head_ok();
  const std::size_t removed = store.prune(t.value, sg::keep_latest{static_cast<std::size_t>(keep)});
  const sample pruned = measure(store, file);
  ok = ok && head_ok() && removed + static_cast<std::size_t>(keep) == before.checkpoints;
  store.vacuum();
  const sample vacuumed = measure(store, file);
  ok = ok && head_ok() && app.history(t).size() == static_cast<std::size_t>(keep);
  std::printf("{\"turns\": %d, \"keep\": %d, \"message_bytes\": %d, \"draft_bytes\": %d, %s, %s, %s}\n", turns, keep,
              message, draft, json("before", before).c_str(), json("pruned", pruned).c_str(),
              json("vacuumed", vacuumed).c_str());
  if (check && !ok) {
    std::fprintf(stderr, "retention: the head state did not read back whole\n");
    return 1;
  }
  return 0;
}
