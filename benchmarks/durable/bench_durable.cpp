// Google Benchmark binary for W4–W6, with W3 (the same loop without a store) and the
// hand-written and raw-SQLite limits in the same run, so that all see the same machine
// load. run_durable.sh runs it with repetitions and random interleaving.
#include "files.hpp"
#include "recording_store.hpp"
#include "workloads.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace {

namespace sg = stategraph;

// Seconds per unit (superstep or invocation) of CPU time; see runtime/bench_runtime.cpp.
benchmark::Counter seconds_per(double per) {
  return benchmark::Counter(per, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

constexpr const char* per_step = "sec_per_superstep";
constexpr const char* per_call = "sec_per_invocation";

// A fresh thread per invocation, as LangGraph.js's W4 run does: a run that starts a thread
// is what is measured, not one that continues a long history (that is W7).
sg::thread_id next_thread(std::size_t& n) {
  return sg::thread_id{"t" + std::to_string(n++)};
}

// Every iteration's result is checked, so a run that stopped doing its work (or did more)
// cannot produce a flattering figure.
template <class Run, class Ok>
void measure(benchmark::State& st, Run run, Ok ok_of, const char* unit, double per, double supersteps) {
  bool ok = true;
  for (auto _ : st) {
    auto out = run();
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
    ok = ok && ok_of(out);
  }
  if (!ok) st.SkipWithError("the workload did not produce its expected state");
  st.counters[unit] = seconds_per(per);
  st.counters["supersteps"] = supersteps;
}

template <int Rounds>
bool loop_done(const bench::State& out) {
  return static_cast<int>(out.counter) == Rounds && out.log.size() == static_cast<std::size_t>(Rounds);
}
template <class Out>
bool agent_done(const Out& out) {
  const auto& m = static_cast<const std::vector<bench::Msg>&>(out.messages);
  return m.size() == bench::agent::supersteps(bench::agent::rounds) + 1 &&
         static_cast<int>(out.calls) == bench::agent::rounds + 1 && m.back().content.starts_with("final answer");
}

constexpr auto w3_steps = static_cast<double>(bench::w3::supersteps);
constexpr auto w5_steps = static_cast<double>(bench::w5::supersteps);
constexpr auto w6_steps = static_cast<double>(bench::agent::supersteps(bench::agent::rounds));

void w3_library(benchmark::State& st) {
  measure(st, bench::w3_library, loop_done<bench::w3::rounds>, per_step, w3_steps, w3_steps);
}

void w4_memory(benchmark::State& st) {
  sg::memory_store store;  // one per repetition; each invocation starts its own thread
  std::size_t n = 0;
  measure(
      st, [&] { return bench::w4_memory(store, next_thread(n)); }, loop_done<bench::w3::rounds>, per_step, w3_steps,
      w3_steps);
}

void w5_sqlite(benchmark::State& st) {
  bench::temp_db file("w5");  // a fresh file per repetition, opened before the clock starts
  sg::sqlite_store store(file.path());
  std::size_t n = 0;
  measure(
      st, [&] { return bench::w5_sqlite(store, next_thread(n)); }, loop_done<bench::w5::rounds>, per_step, w5_steps,
      w5_steps);
}

void w5_sqlite_async(benchmark::State& st) {
  bench::temp_db file("w5async");
  sg::sqlite_store store(file.path());
  std::size_t n = 0;
  measure(
      st, [&] { return bench::w5_sqlite_async(store, next_thread(n)); }, loop_done<bench::w5::rounds>, per_step,
      w5_steps, w5_steps);
}

// The bytes the library hands its store in one W5 invocation, one row per checkpoint.
const std::vector<std::string>& w5_rows() {
  static const std::vector<std::string> rows = [] {
    std::vector<std::string> out;
    for (auto& r : bench::w5_record(true)) out.push_back(std::move(r.payload));
    return out;
  }();
  return rows;
}

void w5_raw(benchmark::State& st) {
  const auto& rows = w5_rows();
  bench::temp_db file("w5raw");
  bench::raw_sqlite raw(file.path());
  std::int64_t expected = 0;
  measure(
      st,
      [&] {
        expected += static_cast<std::int64_t>(rows.size());
        return raw.insert_each(rows);
      },
      [&](std::int64_t last) { return last == expected; }, per_step, w5_steps, w5_steps);
}

void w6_plain(benchmark::State& st) {
  measure(st, bench::w6_plain, agent_done<bench::AgentState>, per_call, 1.0, w6_steps);
}
void w6_hand(benchmark::State& st) {
  measure(st, bench::w6_hand, agent_done<bench::hand::agent_state>, per_call, 1.0, w6_steps);
}
void w6_memory(benchmark::State& st) {
  sg::memory_store store;
  std::size_t n = 0;
  measure(
      st, [&] { return bench::w6_memory(store, next_thread(n)); }, agent_done<bench::AgentState>, per_call, 1.0,
      w6_steps);
}
void w6_sqlite(benchmark::State& st) {
  bench::temp_db file("w6");
  sg::sqlite_store store(file.path());
  std::size_t n = 0;
  measure(
      st, [&] { return bench::w6_sqlite(store, next_thread(n)); }, agent_done<bench::AgentState>, per_call, 1.0,
      w6_steps);
}

double min_of(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}
double max_of(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}
void with_range(benchmark::internal::Benchmark* b) {
  b->ComputeStatistics("min", min_of)->ComputeStatistics("max", max_of);
}

}  // namespace

// Names are "<workload>/<side>" so that report.py can pair them.
BENCHMARK(w3_library)->Name("W3_loop1000/no_store")->Apply(with_range);
BENCHMARK(w4_memory)->Name("W4_loop1000/memory_store")->Apply(with_range);
BENCHMARK(w5_sqlite)->Name("W5_loop200/sqlite_store")->Apply(with_range);
BENCHMARK(w5_raw)->Name("W5_loop200/raw_sqlite")->Apply(with_range);
BENCHMARK(w5_sqlite_async)->Name("W5_loop200/sqlite_store_async")->Apply(with_range);
BENCHMARK(w6_plain)->Name("W6_agent20/no_store")->Apply(with_range);
BENCHMARK(w6_memory)->Name("W6_agent20/memory_store")->Apply(with_range);
BENCHMARK(w6_sqlite)->Name("W6_agent20/sqlite_store")->Apply(with_range);
BENCHMARK(w6_hand)->Name("W6_agent20/hand")->Apply(with_range);

BENCHMARK_MAIN();
