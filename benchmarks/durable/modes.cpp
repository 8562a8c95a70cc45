// W4/W5 instruction counts against another build of the library, and W5's durability modes
// against the raw insert, in one small program (benchmarks/run_long_threads.sh).
//
//   durable_modes count W4|W5 N        N invocations (callgrind runs N and 2N; the
//                                      difference over N is one invocation's instructions)
//   durable_modes time [REPETITIONS [WORK_US]]
//                                      W5 in sync and async mode and the raw SQLite insert
//                                      of the same bytes, interleaved; per-step wall and
//                                      process CPU medians (async's worker thread included).
//                                      WORK_US > 0: W5's node also computes that long.
//
// `count` compiles against any build of include/ (the baseline has no durability modes);
// `time` needs this one (SG_DURABILITY_MODES).
#include "files.hpp"
#include "workloads.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#ifdef SG_DURABILITY_MODES
#include "recording_store.hpp"
#endif

namespace {

namespace sg = stategraph;
using bench::State;

State w4_once(sg::memory_store& store, const sg::thread_id& thread) {
  const auto app = sg::compile<bench::w3::graph>(sg::with_store(store));
  return app.invoke(State{}, thread);
}
State w5_once(sg::sqlite_store& store, const sg::thread_id& thread) {
  const auto app = sg::compile<bench::w5::graph>(sg::with_store(store));
  return app.invoke(State{}, thread);
}

#ifdef SG_DURABILITY_MODES
State w5_async(sg::sqlite_store& store, const sg::thread_id& thread) {
  const auto app = sg::compile<bench::w5::graph>(sg::with_store(store));
  return app.invoke(State{}, thread, sg::run_config{.durability = sg::durability::async});
}

// W5 whose node also computes for `work_us` microseconds (a busy loop on the clock): the
// shape where a step's own work can overlap the commit before it.
double work_us = 0;
struct worked_step {
  static constexpr std::string_view name = "step";
  using reads = sg::reads<>;
  using writes = sg::writes<&State::counter, &State::log>;
  auto operator()(sg::view<State, reads>) const {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(work_us);
    while (std::chrono::steady_clock::now() < until) {
    }
    return sg::write<&State::counter>(1) | sg::write<&State::log>(std::string("step"));
  }
};
struct worked_again {
  using reads = sg::reads<&State::counter>;
  sg::go<worked_step, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::counter>() < bench::w5::rounds) return sg::to<worked_step>;
    return sg::to<sg::end>;
  }
};
using worked_graph = sg::graph<State, sg::edge<sg::start, worked_step>, sg::branch<worked_step, worked_again>>;
State w5_worked(sg::sqlite_store& store, const sg::thread_id& thread, sg::durability mode) {
  const auto app = sg::compile<worked_graph>(sg::with_store(store));
  return app.invoke(State{}, thread, sg::run_config{.durability = mode});
}

double cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// W5's checkpoints as the store receives them, one row each: what the raw insert writes.
std::vector<std::string> w5_rows() {
  sg::memory_store memory;
  bench::recording_store<sg::memory_store> store(memory, true);
  const auto app = sg::compile<bench::w5::graph>(sg::with_store(store));
  app.invoke(State{}, sg::thread_id{"w5"});
  std::vector<std::string> rows;
  for (auto& r : store.puts) rows.push_back(std::move(r.payload));
  return rows;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "count" && argc == 4) {
    const std::string_view w = argv[2];
    const int n = std::atoi(argv[3]);
    int done = 0;
    if (w == "W4") {
      sg::memory_store store;
      for (int k = 0; k < n; ++k) done += w4_once(store, sg::thread_id{"t" + std::to_string(k)}).counter;
    } else if (w == "W5") {
      bench::temp_db file("modes-count");
      sg::sqlite_store store(file.path());
      for (int k = 0; k < n; ++k) done += w5_once(store, sg::thread_id{"t" + std::to_string(k)}).counter;
    }
    std::printf("%d\n", done);
    return done > 0 ? 0 : 1;
  }
#ifdef SG_DURABILITY_MODES
  if (mode == "time") {
    const int repetitions = argc > 2 ? std::atoi(argv[2]) : 15;
    work_us = argc > 3 ? std::atof(argv[3]) : 0;
    constexpr int invocations = 5;
    const auto rows = w5_rows();
    const double steps = static_cast<double>(bench::w5::supersteps) * invocations;
    std::vector<double> wall[3], cpu[3];
    const char* names[3] = {"sync", "async", "raw_insert"};
    int thread_no = 0;
    for (int r = 0; r < repetitions; ++r) {
      for (int side = 0; side < 3; ++side) {
        const int s = (side + r) % 3;  // rotated, so no side always runs first
        // Each side's file opened before the clock starts.
        bench::temp_db file(std::string("modes-") + names[s]);
        std::optional<sg::sqlite_store> store;
        std::optional<bench::raw_sqlite> raw;
        if (s == 2)
          raw.emplace(file.path());
        else
          store.emplace(file.path());
        std::int64_t check = 0;
        const double c0 = cpu_us();
        const auto t0 = std::chrono::steady_clock::now();
        if (s == 2) {
          for (int k = 0; k < invocations; ++k) check += raw->insert_each(rows) > 0;
        } else {
          for (int k = 0; k < invocations; ++k) {
            const sg::thread_id t{"t" + std::to_string(thread_no++)};
            const State out = work_us > 0 ? w5_worked(*store, t, s == 0 ? sg::durability::sync : sg::durability::async)
                              : s == 0    ? w5_once(*store, t)
                                          : w5_async(*store, t);
            check += out.counter == bench::w5::rounds;
          }
        }
        const auto t1 = std::chrono::steady_clock::now();
        const double c1 = cpu_us();
        if (check != invocations) {
          std::fprintf(stderr, "durable_modes: %s did not finish its runs\n", names[s]);
          return 1;
        }
        wall[s].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / steps);
        cpu[s].push_back((c1 - c0) / steps);
      }
    }
    for (int s = 0; s < 3; ++s)
      std::printf("{\"kind\": \"w5_modes\", \"side\": \"%s\", \"work_us\": %.1f, \"wall_us_per_step\": %.3f, "
                  "\"cpu_us_per_step\": %.3f, \"wall_vs_sync\": %.3f, \"repetitions\": %d}\n",
                  names[s], s == 2 ? 0.0 : work_us, median(wall[s]), median(cpu[s]), median(wall[s]) / median(wall[0]),
                  repetitions);
    return 0;
  }
#endif
  std::fputs("usage: durable_modes count W4|W5 N | time [REPETITIONS [WORK_US]]\n", stderr);
  return 2;
}
