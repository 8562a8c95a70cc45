// W7 long thread: W6's agent loop for 500 turns on one thread of a SQLite store. Each turn
// is one invoke that appends a user message and runs the loop for a few rounds, so the
// thread's history grows by a few messages per turn.
//
//   long_thread [--turns 500] [--rounds 3] [--out FILE] [--check]
//
// It records what every checkpoint hands the store (recording_store.hpp), the store's own
// count of value bytes, the file size (database + WAL after PRAGMA wal_checkpoint(TRUNCATE))
// at turns 1, 100, 250 and the last, and the time of every turn. Next to what was written
// it computes, never measures, what a store that re-serialized the whole state at every
// checkpoint would write: the JSON size of the whole state at each checkpoint, summed.
// --check exits non-zero if that computation disagrees with a real serialization of the
// state at the sample turns, or the recorded bytes disagree with the store's stats().
#include "files.hpp"
#include "recording_store.hpp"
#include "workloads.hpp"

#include <sqlite3.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace sg = stategraph;
using bench::AgentState;
using bench::Msg;

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Moves the WAL's pages into the database file and empties the WAL, through a connection of
// its own (the store's connection holds no transaction between invokes).
void truncate_wal(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK ||
      sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "long_thread: wal_checkpoint failed: %s\n", db ? sqlite3_errmsg(db) : "cannot open");
    std::exit(1);
  }
  sqlite3_close(db);
}

// The JSON size of the whole state, kept up to date from the checkpoints' own texts: an
// append piece "[e1,e2]" adds its elements to the messages array, a whole value replaces
// it. nlohmann writes an array as "[" elements joined by "," "]", so the size of the whole
// array follows from its elements' sizes.
struct whole_state_size {
  std::size_t messages = 0, element_bytes = 0, calls_bytes = 0;
  std::size_t messages_bytes() const { return messages == 0 ? 2 : 2 + element_bytes + (messages - 1); }
  std::size_t bytes() const { return messages_bytes() + calls_bytes; }

  // Returns the bytes of the elements this put added to `messages` (the new messages).
  std::size_t apply(const bench::put_record& p) {
    std::size_t added = 0;
    for (std::size_t c = 0; c < p.channels.size(); ++c) {
      if (!p.texts[c]) continue;
      if (p.channels[c] == "calls") {
        calls_bytes = p.texts[c]->size();
      } else if (p.channels[c] == "messages") {
        if (!p.appends[c]) messages = element_bytes = 0;
        for (const auto& e : nlohmann::json::parse(*p.texts[c])) {
          const std::size_t n = e.dump().size();
          ++messages;
          element_bytes += n;
          added += n;
        }
      } else {
        std::fprintf(stderr, "long_thread: unexpected channel %s\n", p.channels[c].c_str());
        std::exit(1);
      }
    }
    return added;
  }
};

struct turn_record {
  int turn = 0;
  std::size_t checkpoints = 0, messages = 0;
  std::size_t value_bytes = 0, payload_bytes = 0, new_message_bytes = 0, whole_state_bytes = 0;
  std::size_t max_value_bytes = 0, max_payload_bytes = 0;
  double wall_us = 0, cpu_us = 0;
  long long file_bytes = -1;  // after wal_checkpoint(TRUNCATE), at sample turns only
};

}  // namespace

int main(int argc, char** argv) {
  int turns = 500, rounds = 3;
  bool check = false;
  std::string out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--turns" && i + 1 < argc)
      turns = std::atoi(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else if (a == "--out" && i + 1 < argc)
      out_path = argv[++i];
    else if (a == "--check")
      check = true;
    else {
      std::fputs("usage: long_thread [--turns 500] [--rounds 3] [--out FILE] [--check]\n", stderr);
      return 2;
    }
  }
  std::vector<int> samples;
  for (int t : {1, 100, 250, 500, turns})
    if (t >= 1 && t <= turns && std::find(samples.begin(), samples.end(), t) == samples.end()) samples.push_back(t);
  std::sort(samples.begin(), samples.end());

  bench::temp_db file("w7");
  sg::sqlite_store sqlite(file.path());
  bench::recording_store<sg::sqlite_store> store(sqlite, /*keep_texts=*/true);
  const auto app = sg::compile<bench::agent::graph>(bench::llm{rounds}, sg::with_store(store));
  const sg::thread_id thread{"long"};

  whole_state_size whole;
  std::vector<turn_record> records;
  int failures = 0;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "long_thread: WRONG: %s\n", what.c_str());
      ++failures;
    }
  };
  std::size_t seen = 0, stats_bytes = sqlite.stats().value_bytes;
  for (int turn = 1; turn <= turns; ++turn) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const AgentState out =
        app.invoke(bench::agent::question("question " + std::to_string(turn) + ": how many rows match?"), thread);
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu_seconds();

    turn_record r;
    r.turn = turn;
    r.wall_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    r.cpu_us = (c1 - c0) * 1e6;
    for (; seen < store.puts.size(); ++seen) {
      const auto& p = store.puts[seen];
      ++r.checkpoints;
      r.value_bytes += p.value_bytes;
      r.payload_bytes += p.payload_bytes();
      r.max_value_bytes = std::max(r.max_value_bytes, p.value_bytes);
      r.max_payload_bytes = std::max(r.max_payload_bytes, p.payload_bytes());
      r.new_message_bytes += whole.apply(p);
      r.whole_state_bytes += whole.bytes();
    }
    const std::vector<Msg>& messages = out.messages;
    r.messages = messages.size();
    const std::size_t per_turn = bench::agent::supersteps(rounds) + 1;
    expect(r.checkpoints == per_turn, "turn " + std::to_string(turn) + ": " + std::to_string(r.checkpoints) +
                                          " checkpoints, expected " + std::to_string(per_turn));
    expect(messages.size() == static_cast<std::size_t>(turn) * per_turn,
           "turn " + std::to_string(turn) + ": history length");

    const std::size_t now = sqlite.stats().value_bytes;
    expect(now - stats_bytes == r.value_bytes,
           "turn " + std::to_string(turn) + ": recorded value bytes = stats() delta");
    stats_bytes = now;

    if (std::find(samples.begin(), samples.end(), turn) != samples.end()) {
      // The computed whole-state size against a real serialization of the same state.
      const std::size_t real =
          nlohmann::json(messages).dump().size() + nlohmann::json(static_cast<int>(out.calls)).dump().size();
      expect(real == whole.bytes(), "turn " + std::to_string(turn) + ": computed whole state " +
                                        std::to_string(whole.bytes()) + " bytes, serialized " + std::to_string(real));
      truncate_wal(file.path());
      r.file_bytes = static_cast<long long>(file.bytes());
    }
    records.push_back(r);
  }

  // ---- output ----------------------------------------------------------------------------
  nlohmann::json j;
  j["turns"] = turns;
  j["rounds"] = rounds;
  j["checkpoints_per_turn"] = bench::agent::supersteps(rounds) + 1;
  j["supersteps_per_turn"] = bench::agent::supersteps(rounds);
  j["samples"] = samples;
  const auto stats = sqlite.stats();
  j["store_stats"] = {{"checkpoints", stats.checkpoints}, {"values", stats.values}, {"value_bytes", stats.value_bytes}};
  j["file_bytes_end"] = records.back().file_bytes;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : records)
    rows.push_back({{"turn", r.turn},
                    {"checkpoints", r.checkpoints},
                    {"messages", r.messages},
                    {"value_bytes", r.value_bytes},
                    {"payload_bytes", r.payload_bytes},
                    {"max_value_bytes", r.max_value_bytes},
                    {"max_payload_bytes", r.max_payload_bytes},
                    {"new_message_bytes", r.new_message_bytes},
                    {"whole_state_bytes_computed", r.whole_state_bytes},
                    {"wall_us", r.wall_us},
                    {"cpu_us", r.cpu_us},
                    {"file_bytes", r.file_bytes}});
  j["per_turn"] = std::move(rows);
  j["failures"] = failures;
  if (!out_path.empty()) {
    std::ofstream(out_path) << j.dump(1) << "\n";
  }
  for (int t : samples) {
    const auto& r = records[static_cast<std::size_t>(t - 1)];
    std::printf(
        "turn %3d: %zu messages, per checkpoint %.1f value bytes (%.1f with metadata), new messages %zu bytes, "
        "whole state (computed) %.0f bytes per checkpoint, file %lld bytes, turn %.0f us CPU\n",
        t, r.messages, static_cast<double>(r.value_bytes) / static_cast<double>(r.checkpoints),
        static_cast<double>(r.payload_bytes) / static_cast<double>(r.checkpoints), r.new_message_bytes,
        static_cast<double>(r.whole_state_bytes) / static_cast<double>(r.checkpoints), r.file_bytes, r.cpu_us);
  }
  if (failures) std::fprintf(stderr, "long_thread: %d checks failed\n", failures);
  return check && failures ? 1 : 0;
}
