// Google Benchmark binary for W1–W3 and W3f: the library and the hand-written baseline side by side
// in one run, so that both see the same machine load. run_runtime.sh runs it with
// repetitions and random interleaving and reads the JSON it writes.
#include "workloads.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace {

// `per` is how many units (supersteps, invocations) one iteration performs. The counter is
// an inverted rate: seconds per unit of the benchmark's own time, which Google Benchmark
// prints with its SI prefix ("23.7n") and writes to JSON in seconds. The time is CPU time,
// which ignores the time the process spends descheduled while other work shares the cores.
benchmark::Counter seconds_per(double per) {
  return benchmark::Counter(per, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The output of the last iteration is checked, so a graph that stopped doing its work (or
// did more) cannot produce a flattering figure.
template <class Out>
bool finished_right(const Out& out, int counter, std::size_t log_size) {
  if constexpr (requires { out.log; }) {
    return static_cast<int>(out.counter) == counter && out.log.size() == log_size;
  } else {
    return static_cast<int>(out.counter) == counter && log_size == 0;
  }
}

// `unit` names the counter; `per` is how many of its units one invocation is.
template <class Run>
void measure(benchmark::State& st, Run run, const char* unit, double per, std::size_t supersteps, int counter,
             std::size_t log_size) {
  bool ok = true;
  for (auto _ : st) {
    auto out = run();
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
    ok = ok && finished_right(out, counter, log_size);
  }
  if (!ok) st.SkipWithError("the workload did not produce its expected state");
  st.counters[unit] = seconds_per(per);
  st.counters["supersteps"] = static_cast<double>(supersteps);
}

// Per superstep for W1, W3 and W3f (the framework's cost per step), per invocation for W2.
constexpr const char* per_step = "sec_per_superstep";
constexpr const char* per_call = "sec_per_invocation";
constexpr auto w1_steps = static_cast<double>(bench::w1::supersteps);
constexpr auto w3_steps = static_cast<double>(bench::w3::supersteps);
constexpr auto w3f_steps = static_cast<double>(bench::w3f::supersteps);

void w1_library(benchmark::State& st) {
  measure(st, bench::w1_library, per_step, w1_steps, bench::w1::supersteps, 10, 10);
}
void w1_hand(benchmark::State& st) { measure(st, bench::w1_hand, per_step, w1_steps, bench::w1::supersteps, 10, 10); }
void w2_library(benchmark::State& st) { measure(st, bench::w2_library, per_call, 1.0, bench::w2::supersteps, 10, 10); }
void w2_hand(benchmark::State& st) { measure(st, bench::w2_hand, per_call, 1.0, bench::w2::supersteps, 10, 10); }
void w2_pool(benchmark::State& st) { measure(st, bench::w2_pool, per_call, 1.0, bench::w2::supersteps, 10, 10); }
void w3_library(benchmark::State& st) {
  measure(st, bench::w3_library, per_step, w3_steps, bench::w3::supersteps, bench::w3::rounds, bench::w3::supersteps);
}
void w3_hand(benchmark::State& st) {
  measure(st, bench::w3_hand, per_step, w3_steps, bench::w3::supersteps, bench::w3::rounds, bench::w3::supersteps);
}

void w3f_library(benchmark::State& st) {
  measure(st, bench::w3f_library, per_step, w3f_steps, bench::w3f::supersteps, bench::w3f::rounds, 0);
}
void w3f_hand(benchmark::State& st) {
  measure(st, bench::w3f_hand, per_step, w3f_steps, bench::w3f::supersteps, bench::w3f::rounds, 0);
}

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double max_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

void with_range(benchmark::internal::Benchmark* b) {
  b->ComputeStatistics("min", min_of)->ComputeStatistics("max", max_of);
}

}  // namespace

// Names are "<workload>/<side>" so the report script can pair them.
BENCHMARK(w1_library)->Name("W1_pipeline10/library")->Apply(with_range);
BENCHMARK(w1_hand)->Name("W1_pipeline10/hand")->Apply(with_range);
BENCHMARK(w2_library)->Name("W2_fanout8_sequential/library")->Apply(with_range);
BENCHMARK(w2_hand)->Name("W2_fanout8_sequential/hand")->Apply(with_range);
// The pool's figure is compared with the same hand-written (sequential) code: a hand-written
// thread pool would measure that pool, not the framework.
BENCHMARK(w2_pool)->Name("W2_fanout8_pool/library")->Apply(with_range);
BENCHMARK(w3_library)->Name("W3_loop1000/library")->Apply(with_range);
BENCHMARK(w3_hand)->Name("W3_loop1000/hand")->Apply(with_range);
BENCHMARK(w3f_library)->Name("W3f_loop_bound/library")->Apply(with_range);
BENCHMARK(w3f_hand)->Name("W3f_loop_bound/hand")->Apply(with_range);

BENCHMARK_MAIN();
