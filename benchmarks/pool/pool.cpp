// sg::thread_pool against sg::sequential on two fan-outs of eight nodes (issue 17 item 4):
// W2 as benchmarks.md defines it (each node counts itself and logs its name), and the same
// shape whose eight nodes each compute for `work_us` microseconds. The four cases run
// interleaved, round after round, so a ratio compares runs made at the same moment.
//
//   pool [rounds] [raw.csv]
#include "../runtime/workloads.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace bench {
namespace worked {
inline constexpr int work_us = 20;

// Spins on the clock for work_us: work the optimizer cannot remove or shorten.
inline void compute() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds{work_us};
  while (std::chrono::steady_clock::now() < until) {
  }
}

template <const std::string_view& Name>
struct busy {
  static constexpr std::string_view name = Name;
  using reads = sg::reads<>;
  using writes = sg::writes<&State::counter, &State::log>;
  auto operator()(sg::view<State, reads>) const {
    compute();
    return sg::write<&State::counter>(1) | sg::write<&State::log>(std::string(Name));
  }
};
using split = mark<names::split>;
using joiner = mark<names::join>;
using graph = sg::graph<State, sg::edge<sg::start, split>, sg::edge<split, busy<names::w1>>,
                        sg::edge<split, busy<names::w2>>, sg::edge<split, busy<names::w3>>,
                        sg::edge<split, busy<names::w4>>, sg::edge<split, busy<names::w5>>,
                        sg::edge<split, busy<names::w6>>, sg::edge<split, busy<names::w7>>,
                        sg::edge<split, busy<names::w8>>,
                        sg::join<joiner, busy<names::w1>, busy<names::w2>, busy<names::w3>, busy<names::w4>,
                                 busy<names::w5>, busy<names::w6>, busy<names::w7>, busy<names::w8>>,
                        sg::edge<joiner, sg::end>>;
}  // namespace worked
}  // namespace bench

namespace {
namespace sg = stategraph;
using bench::State;

struct measured {
  std::string name;
  std::function<State()> run;
  int per_round;  // invocations timed together
  std::vector<double> ns;  // per invocation, one figure per round
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}
}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 31;
  const auto small_seq = sg::compile<bench::w2::graph>();
  const auto small_pool = sg::compile<bench::w2::graph>(sg::with_executor(sg::thread_pool{2}));
  const auto work_seq = sg::compile<bench::worked::graph>();
  const auto work_pool = sg::compile<bench::worked::graph>(sg::with_executor(sg::thread_pool{2}));
  std::vector<measured> cases = {
      {"W2 fanout8, sequential", [&] { return small_seq.invoke(State{}); }, 20000, {}},
      {"W2 fanout8, thread_pool{2}", [&] { return small_pool.invoke(State{}); }, 20000, {}},
      {"fanout8 of 20 us nodes, sequential", [&] { return work_seq.invoke(State{}); }, 200, {}},
      {"fanout8 of 20 us nodes, thread_pool{2}", [&] { return work_pool.invoke(State{}); }, 200, {}},
  };
  for (auto& c : cases)  // every side ends in the workload's state, or the times compare different work
    if (c.run().counter != 10) {
      std::fprintf(stderr, "%s: wrong state\n", c.name.c_str());
      return 1;
    }
  for (int r = 0; r < rounds; ++r)
    for (auto& c : cases) {
      const auto t0 = std::chrono::steady_clock::now();
      int counted = 0;
      for (int i = 0; i < c.per_round; ++i) counted += c.run().counter;
      const auto t1 = std::chrono::steady_clock::now();
      if (counted != 10 * c.per_round) return 1;
      c.ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / c.per_round);
    }
  if (argc > 2) {
    std::ofstream raw(argv[2]);
    raw << "case,round,ns_per_invocation\n";
    for (auto& c : cases)
      for (std::size_t r = 0; r < c.ns.size(); ++r) raw << '"' << c.name << "\"," << r << ',' << c.ns[r] << '\n';
  }
  std::printf("| case | median, ns per invocation | min–max | pool ÷ sequential |\n| --- | ---: | ---: | ---: |\n");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const double m = median(c.ns);
    const auto [lo, hi] = std::minmax_element(c.ns.begin(), c.ns.end());
    char ratio[32] = "";
    if (i % 2) std::snprintf(ratio, sizeof ratio, "%.2f×", m / median(cases[i - 1].ns));
    std::printf("| %s | %.1f | %.1f–%.1f | %s |\n", c.name.c_str(), m, *lo, *hi, ratio);
  }
}
