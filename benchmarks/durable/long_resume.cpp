// W7h / W7c: continuing a long thread (shared/design/benchmarks.md; docs/checkpoints.md,
// "Long threads"). A turn is W7's shape cut to one model call: an invoke that appends the
// user's message, then the model's answer.
//
//   long_resume [--hot-turns 5000] [--cold 10,1000,10000] [--out FILE]
//
// hot   one app continues the thread it just ran, on sg::memory_store and sg::sqlite_store:
//       the process CPU time of each turn and of one copy of a state laid out as the one it
//       returns (measured right after; see hot() for why not the returned state itself), as
//       medians over a window of turns around turn 10 and the last turn; under callgrind,
//       the instructions of the same.
// cold  a thread of N turns, continued by a new app object: the CPU time of loading its
//       head state (a new app's get_state, which hands over the state it loaded) against
//       parsing that same state from one JSON document with nlohmann (parse and get<>),
//       medians of repetitions run alternately, on both stores.
// Also written: the value bytes each store holds per turn at the end of each window.
#include "files.hpp"
#include "workloads.hpp"

#include <time.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace sg = stategraph;
using bench::AgentState;
using bench::Msg;

double cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

AgentState turn_input(int turn) { return bench::agent::question("question " + std::to_string(turn) + ": how many rows match?"); }

struct window {
  int last_turn = 0;
  double turn_us = 0, copy_us = 0, library_us = 0, value_bytes_per_turn = 0;
};

// What a turn costs besides the copy of the state it returns. That copy is made from the
// app's own state, whose messages were allocated one turn at a time among the library's
// other allocations; a copy of the returned state (allocated in one go, just written) is
// faster, and on a long thread that difference alone outweighed the library's own time. So
// the copy subtracted is of a mirror built as the app builds its state (the turn's two
// messages appended after each turn), made right after each turn of the window: the same
// source layout, at the same point of the turn cycle.
//
// Under callgrind (run with --collect-atstart=no) each turn of a window and each of its
// copies is collected alone and dumped as a part of its own, "turns <store>-<last turn>" or
// "copies ..." (callgrind_annotate reads their instruction totals): the figure load cannot
// move. Outside valgrind the macros do nothing.
template <class Store>
std::vector<window> hot(Store& store, const char* name, int turns, int width) {
  const auto app = sg::compile<bench::agent::graph>(bench::llm{0}, sg::with_store(store));
  const sg::thread_id thread{"hot"};
  std::vector<window> out;
  std::vector<double> times, copies;
  AgentState mirror;
  std::size_t bytes_before = 0;
  auto wanted = [&](int turn) { return (turn >= 10 - width / 2 && turn <= 10 + width / 2) || turn > turns - width; };
  auto last_of_window = [&](int turn) { return turn == 10 + width / 2 || turn == turns; };
  // Named strings: the macro stores the pointer in one statement and uses it in another, so
  // a temporary's text would be gone by then.
  std::string turns_label, copies_label;
  for (int turn = 1; turn <= turns; ++turn) {
    if (wanted(turn) && times.empty()) {
      bytes_before = store.stats().value_bytes;
      const int last = turn <= 10 + width / 2 ? 10 + width / 2 : turns;
      const std::string label = std::string(name) + "-" + std::to_string(last);
      turns_label = "turns " + label;
      copies_label = "copies " + label;
    }
    AgentState input = turn_input(turn);
    CALLGRIND_TOGGLE_COLLECT;
    const double c0 = cpu_us();
    const AgentState state = app.invoke(std::move(input), thread);
    const double c1 = cpu_us();
    CALLGRIND_TOGGLE_COLLECT;
    if (state.messages.size() != 2 * static_cast<std::size_t>(turn)) std::abort();
    const auto& now = state.messages.value();
    auto& kept = mirror.messages.value();
    kept.insert(kept.end(), now.end() - 2, now.end());
    mirror.calls = state.calls;
    if (!wanted(turn)) {
      CALLGRIND_ZERO_STATS;
      continue;
    }
    CALLGRIND_DUMP_STATS_AT(turns_label.c_str());
    times.push_back(c1 - c0);
    {
      CALLGRIND_TOGGLE_COLLECT;
      const double k0 = cpu_us();
      const AgentState copy = mirror;
      const double k1 = cpu_us();
      CALLGRIND_TOGGLE_COLLECT;
      if (copy.messages.size() != state.messages.size()) std::abort();
      copies.push_back(k1 - k0);
    }
    CALLGRIND_DUMP_STATS_AT(copies_label.c_str());
    if (last_of_window(turn)) {
      window w;
      w.last_turn = turn;
      w.turn_us = median(times);
      w.copy_us = median(copies);
      std::vector<double> rest;  // each turn less the copy made right after it
      for (std::size_t k = 0; k < times.size(); ++k) rest.push_back(times[k] - copies[k]);
      w.library_us = median(rest);
      w.value_bytes_per_turn =
          static_cast<double>(store.stats().value_bytes - bytes_before) / static_cast<double>(times.size());
      out.push_back(w);
      times.clear();
      copies.clear();
    }
  }
  return out;
}

struct cold_figure {
  int turns = 0;
  std::size_t state_bytes = 0;
  double load_us = 0, parse_us = 0;
};

template <class Store>
cold_figure cold(Store& store, int turns, int repetitions) {
  const sg::thread_id thread{"cold" + std::to_string(turns)};
  {
    const auto app = sg::compile<bench::agent::graph>(bench::llm{0}, sg::with_store(store));
    for (int turn = 1; turn <= turns; ++turn) app.invoke(turn_input(turn), thread);
  }
  AgentState head;
  {
    const auto app = sg::compile<bench::agent::graph>(bench::llm{0}, sg::with_store(store));
    head = app.get_state(thread)->values;
  }
  const std::string document =
      nlohmann::json{{"messages", head.messages.value()}, {"calls", head.calls.value()}}.dump();
  std::vector<double> loads, parses;
  for (int k = 0; k < repetitions; ++k) {
    {
      const double c0 = cpu_us();
      const auto app = sg::compile<bench::agent::graph>(bench::llm{0}, sg::with_store(store));
      const auto s = app.get_state(thread);
      const double c1 = cpu_us();
      if (s->values.messages.size() != head.messages.size()) std::abort();
      loads.push_back(c1 - c0);
    }
    {
      const double c0 = cpu_us();
      const auto j = nlohmann::json::parse(document);
      AgentState s;
      s.messages.value() = j.at("messages").get<std::vector<Msg>>();
      s.calls.value() = j.at("calls").get<int>();
      const double c1 = cpu_us();
      if (s.messages.size() != head.messages.size()) std::abort();
      parses.push_back(c1 - c0);
    }
  }
  cold_figure f;
  f.turns = turns;
  f.state_bytes = document.size();
  f.load_us = median(loads);
  f.parse_us = median(parses);
  return f;
}

std::string json_of(const char* store, const std::vector<window>& ws) {
  std::ostringstream o;
  for (const auto& w : ws)
    o << "{\"kind\": \"hot\", \"store\": \"" << store << "\", \"turn\": " << w.last_turn
      << ", \"turn_us\": " << w.turn_us << ", \"copy_us\": " << w.copy_us << ", \"library_us\": " << w.library_us
      << ", \"value_bytes_per_turn\": " << w.value_bytes_per_turn << "}\n";
  return o.str();
}
std::string json_of(const char* store, const cold_figure& f) {
  std::ostringstream o;
  o << "{\"kind\": \"cold\", \"store\": \"" << store << "\", \"turns\": " << f.turns
    << ", \"state_bytes\": " << f.state_bytes << ", \"load_us\": " << f.load_us
    << ", \"parse_us\": " << f.parse_us << ", \"ratio\": " << f.load_us / f.parse_us << "}\n";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  int hot_turns = 5000;
  std::vector<int> cold_turns{10, 1000, 10000};
  std::string out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--hot-turns" && i + 1 < argc) {
      hot_turns = std::atoi(argv[++i]);
    } else if (a == "--cold" && i + 1 < argc) {
      cold_turns.clear();
      std::stringstream list(argv[++i]);
      for (std::string n; std::getline(list, n, ',');) cold_turns.push_back(std::atoi(n.c_str()));
    } else if (a == "--out" && i + 1 < argc) {
      out_path = argv[++i];
    } else {
      std::fputs("usage: long_resume [--hot-turns 5000] [--cold 10,1000,10000] [--out FILE]\n", stderr);
      return 2;
    }
  }
  std::string results;
  auto emit = [&](const std::string& lines) {
    std::fputs(lines.c_str(), stdout);
    std::fflush(stdout);
    results += lines;
  };
  constexpr int width = 11;
  {
    sg::memory_store memory;
    emit(json_of("memory", hot(memory, "memory", hot_turns, width)));
  }
  {
    bench::temp_db file("w7h");
    sg::sqlite_store sqlite(file.path());
    emit(json_of("sqlite", hot(sqlite, "sqlite", hot_turns, width)));
  }
  for (int turns : cold_turns) {
    const int repetitions = turns >= 10000 ? 5 : turns >= 1000 ? 11 : 51;
    {
      sg::memory_store memory;
      emit(json_of("memory", cold(memory, turns, repetitions)));
    }
    {
      bench::temp_db file("w7c");
      sg::sqlite_store sqlite(file.path());
      emit(json_of("sqlite", cold(sqlite, turns, repetitions)));
    }
  }
  if (!out_path.empty()) std::ofstream(out_path) << results;
  return 0;
}
