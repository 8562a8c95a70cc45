// W8 and the async overhead (docs/performance.md, "Async runs"):
//   w8 RUNS MS      RUNS concurrent runs of a 3-node chain whose nodes each await an MS timer,
//                   on one thread: wall time against the ideal 3 × MS, and the resident memory
//                   per suspended run (RSS when the last run enters its first node, minus RSS
//                   before), and the process's CPU time while the runs ran.
//   w8asio RUNS MS  the same runs written directly on Asio (a coroutine per run awaiting three
//                   node coroutines, each with its timer): what Asio alone costs, the floor.
//   w1 SIDE N       W1 (ten plain nodes in a chain) run N times: SIDE = sync (invoke), async
//                   (co_await async_invoke, plain nodes) or coro (async_invoke, the same nodes
//                   as coroutines that never wait); callgrind counts the instructions.
#include <stategraph/asio.hpp>

#include "../runtime/workloads.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace w8 {
namespace sg = stategraph;
namespace asio = boost::asio;
using bench::State;
using log_patch = sg::patch<sg::entry<&State::counter, int>, sg::entry<&State::log, std::string>>;

inline std::chrono::milliseconds wait_for{10};
// The memory the runs hold while they wait: sampled when the last run enters its first node.
inline std::size_t runs_started = 0, runs_total = 0;
inline long rss_waiting_kb = 0;
long rss_kb();
inline void entered_first_node() {
  if (++runs_started == runs_total) rss_waiting_kb = rss_kb();
}

template <const std::string_view& Name>
struct waits {
  static constexpr std::string_view name = Name;
  using writes = sg::writes<&State::counter, &State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>) const {
    if constexpr (&Name == &bench::names::n1) entered_first_node();
    asio::steady_timer t(co_await asio::this_coro::executor, wait_for);
    co_await t.async_wait(asio::use_awaitable);
    co_return sg::write<&State::counter>(1) | sg::write<&State::log>(std::string(Name));
  }
};
// W1's nodes as coroutines that return at once.
template <const std::string_view& Name>
struct instant {
  static constexpr std::string_view name = Name;
  using writes = sg::writes<&State::counter, &State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>) const {
    co_return sg::write<&State::counter>(1) | sg::write<&State::log>(std::string(Name));
  }
};
namespace n = bench::names;
using chain3 = sg::graph<State, sg::edge<sg::start, waits<n::n1>>, sg::edge<waits<n::n1>, waits<n::n2>>,
                         sg::edge<waits<n::n2>, waits<n::n3>>, sg::edge<waits<n::n3>, sg::end>>;
using w1_coro = sg::graph<State, sg::edge<sg::start, instant<n::n1>>, sg::edge<instant<n::n1>, instant<n::n2>>,
                          sg::edge<instant<n::n2>, instant<n::n3>>, sg::edge<instant<n::n3>, instant<n::n4>>,
                          sg::edge<instant<n::n4>, instant<n::n5>>, sg::edge<instant<n::n5>, instant<n::n6>>,
                          sg::edge<instant<n::n6>, instant<n::n7>>, sg::edge<instant<n::n7>, instant<n::n8>>,
                          sg::edge<instant<n::n8>, instant<n::n9>>, sg::edge<instant<n::n9>, instant<n::n10>>,
                          sg::edge<instant<n::n10>, sg::end>>;

double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto ms = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3; };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

long rss_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

// Runs the io_context (the runs were spawned, none has started): wall time against the ideal,
// the CPU time the process spent meanwhile, and the memory per waiting run.
int report(const char* what, std::size_t runs, asio::io_context& io, const std::size_t& done, const std::size_t& right,
           long before) {
  runs_started = 0;
  runs_total = runs;
  const double cpu_before = cpu_ms();
  const auto started = std::chrono::steady_clock::now();
  io.run();
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  const double cpu = cpu_ms() - cpu_before;
  const double ideal_ms = 3.0 * static_cast<double>(wait_for.count());
  std::printf("%s runs=%zu node_wait_ms=%lld done=%zu right=%zu wall_ms=%.1f cpu_ms=%.1f ideal_ms=%.0f ratio=%.3f "
              "rss_before_kb=%ld rss_waiting_kb=%ld bytes_per_run=%.0f\n",
              what, runs, static_cast<long long>(wait_for.count()), done, right, wall_ms, cpu, ideal_ms,
              wall_ms / ideal_ms, before, rss_waiting_kb,
              static_cast<double>(rss_waiting_kb - before) * 1024.0 / static_cast<double>(runs));
  return right == runs ? 0 : 1;
}

int run_w8(std::size_t runs) {
  const auto app = sg::compile<chain3>();
  asio::io_context io;
  std::size_t done = 0, right = 0;
  const long before = rss_kb();
  for (std::size_t i = 0; i < runs; ++i)
    asio::co_spawn(io, app.async_invoke(State{}), [&](std::exception_ptr e, State s) {
      ++done;
      if (!e && s.counter.value() == 3 && s.log.size() == 3) ++right;
    });
  // While every run waits in its first node's timer: the memory they hold.
  return report("w8", runs, io, done, right, before);
}

// The floor: the same chain on Asio alone, its state a plain struct.
struct plain_state {
  int counter = 0;
  std::vector<std::string> log;
};
asio::awaitable<void> plain_node(plain_state& s, std::string_view name) {
  if (name == n::n1) entered_first_node();
  asio::steady_timer t(co_await asio::this_coro::executor, wait_for);
  co_await t.async_wait(asio::use_awaitable);
  s.counter += 1;
  s.log.emplace_back(name);
}
asio::awaitable<plain_state> plain_run() {
  plain_state s;
  co_await plain_node(s, n::n1);
  co_await plain_node(s, n::n2);
  co_await plain_node(s, n::n3);
  co_return s;
}
int run_w8_asio(std::size_t runs) {
  asio::io_context io;
  std::size_t done = 0, right = 0;
  const long before = rss_kb();
  for (std::size_t i = 0; i < runs; ++i)
    asio::co_spawn(io, plain_run(), [&](std::exception_ptr e, plain_state s) {
      ++done;
      if (!e && s.counter == 3 && s.log.size() == 3) ++right;
    });
  return report("w8asio", runs, io, done, right, before);
}

int run_w1(std::string_view side, std::size_t times) {
  std::size_t right = 0;
  if (side == "sync") {
    const auto app = sg::compile<bench::w1::graph>();
    for (std::size_t i = 0; i < times; ++i) right += app.invoke(State{}).counter.value() == 10;
  } else {
    asio::io_context io;
    auto loop = [&](const auto& app) -> asio::awaitable<void> {
      for (std::size_t i = 0; i < times; ++i) {
        const State s = co_await app.async_invoke(State{});
        right += s.counter.value() == 10;
      }
    };
    if (side == "async") {
      const auto app = sg::compile<bench::w1::graph>();
      asio::co_spawn(io, loop(app), asio::detached);
      io.run();
    } else {
      const auto app = sg::compile<w1_coro>();
      asio::co_spawn(io, loop(app), asio::detached);
      io.run();
    }
  }
  return right == times ? 0 : 1;
}
}  // namespace w8

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "w8" && argc == 4) {
    w8::wait_for = std::chrono::milliseconds(std::strtol(argv[3], nullptr, 10));
    return w8::run_w8(std::strtoull(argv[2], nullptr, 10));
  }
  if (mode == "w8asio" && argc == 4) {
    w8::wait_for = std::chrono::milliseconds(std::strtol(argv[3], nullptr, 10));
    return w8::run_w8_asio(std::strtoull(argv[2], nullptr, 10));
  }
  if (mode == "w1" && argc == 4) return w8::run_w1(argv[2], std::strtoull(argv[3], nullptr, 10));
  std::fputs("usage: stategraph_bench_async w8|w8asio RUNS MS | w1 sync|async|coro N\n", stderr);
  return 2;
}
