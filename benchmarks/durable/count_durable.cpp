// Figures of W3–W6 that machine noise cannot move, and the checks that make the timings
// mean something:
//
//   count_durable check            every side ends in the state its workload defines, the
//                                  store holds one checkpoint per step plus the input, and
//                                  reading the thread back gives the state the run returned
//   count_durable allocs           heap allocations per invocation and per superstep
//   count_durable bytes            what each checkpoint hands the store, in bytes (W4–W6)
//   count_durable run W SIDE N     N invocations and nothing else, for callgrind (the
//                                  difference between N and 2N is the cost of N)
//
// Allocations are counted by a replaced global operator new in this binary only. SQLite
// allocates with malloc, which it does not see, so W5 is not counted.
#include "files.hpp"
#include "recording_store.hpp"
#include "workloads.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace {
std::atomic<std::size_t> allocations{0};
void* counted(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc{};
}
void* counted_aligned(std::size_t size, std::align_val_t align) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc{};
}
}  // namespace

void* operator new(std::size_t size) {
  return counted(size);
}
void* operator new[](std::size_t size) {
  return counted(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return counted(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void* operator new(std::size_t size, std::align_val_t align) {
  return counted_aligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return counted_aligned(size, align);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace {

namespace sg = stategraph;
using bench::AgentState;
using bench::Msg;
using bench::State;

template <class T>
void escape(T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

int failures = 0;
void expect(bool ok, const std::string& what) {
  std::printf("%-72s %s\n", what.c_str(), ok ? "ok" : "WRONG");
  failures += ok ? 0 : 1;
}

bool same(const std::vector<Msg>& a, const std::vector<Msg>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Msg& x, const Msg& y) { return x.role == y.role && x.content == y.content; });
}

// ---- the workloads as (workload, side) -------------------------------------------------------

// Everything a side needs between invocations: the stores and a thread counter.
struct fixture {
  sg::memory_store memory;
  bench::temp_db file{"count"};
  sg::sqlite_store sqlite{file.path()};
  bench::temp_db raw_file{"count-raw"};
  bench::raw_sqlite raw{raw_file.path()};
  std::vector<std::string> raw_rows;
  std::size_t n = 0;
  sg::thread_id next() { return sg::thread_id{"t" + std::to_string(n++)}; }
};

struct side {
  std::string_view workload, name;
  std::size_t supersteps;
  std::function<void(fixture&)> invoke;  // one invocation, its result escaped
};

template <class F>
std::function<void(fixture&)> escaping(F f) {
  return [f](fixture& fx) {
    auto out = f(fx);
    escape(out);
  };
}

std::vector<side> sides() {
  const std::size_t w6 = bench::agent::supersteps(bench::agent::rounds);
  return {
      {"W3", "no_store", bench::w3::supersteps, escaping([](fixture&) { return bench::w3_library(); })},
      {"W4", "memory_store", bench::w3::supersteps,
       escaping([](fixture& fx) { return bench::w4_memory(fx.memory, fx.next()); })},
      {"W4", "memory_store_streamed", bench::w3::supersteps, escaping([](fixture& fx) {
         std::size_t channels = 0;
         auto out = bench::w4_memory_streamed(fx.memory, fx.next(), channels);
         escape(channels);
         return out;
       })},
      {"W5", "sqlite_store", bench::w5::supersteps,
       escaping([](fixture& fx) { return bench::w5_sqlite(fx.sqlite, fx.next()); })},
      {"W5", "raw_sqlite", bench::w5::supersteps,
       escaping([](fixture& fx) { return fx.raw.insert_each(fx.raw_rows); })},
      {"W6", "no_store", w6, escaping([](fixture&) { return bench::w6_plain(); })},
      {"W6", "memory_store", w6, escaping([](fixture& fx) { return bench::w6_memory(fx.memory, fx.next()); })},
      {"W6", "sqlite_store", w6, escaping([](fixture& fx) { return bench::w6_sqlite(fx.sqlite, fx.next()); })},
      {"W6", "hand", w6, escaping([](fixture&) { return bench::w6_hand(); })},
  };
}

const side* find_side(std::string_view workload, std::string_view name) {
  static const std::vector<side> all = sides();
  for (const auto& s : all)
    if (s.workload == workload && s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> raw_rows() {
  std::vector<std::string> rows;
  for (auto& r : bench::w5_record(true)) rows.push_back(std::move(r.payload));
  return rows;
}

// ---- check ---------------------------------------------------------------------------------

template <class Graph, class Store, class Out>
void check_thread(Store& store, const sg::thread_id& t, const Out& out, std::size_t checkpoints,
                  const std::string& what, const bench::llm* model = nullptr) {
  const auto stats = store.stats();
  expect(stats.checkpoints == checkpoints,
         what + ": " + std::to_string(stats.checkpoints) + " checkpoints, expected " + std::to_string(checkpoints));
  auto read = [&] {
    if constexpr (std::is_same_v<Out, AgentState>)
      return sg::compile<Graph>(*model, sg::with_store(store)).get_state(t);
    else
      return sg::compile<Graph>(sg::with_store(store)).get_state(t);
  }();
  bool ok = read && read->next.empty();
  if constexpr (std::is_same_v<Out, AgentState>)
    ok = ok && same(read->values.messages, out.messages) && read->values.calls == out.calls;
  else
    ok = ok && read->values.counter == out.counter &&
         std::equal(read->values.log.begin(), read->values.log.end(), out.log.begin(), out.log.end());
  expect(ok, what + ": the thread read back equals the state the run returned");
}

int check() {
  {
    const State out = bench::w3_library();
    expect(out.counter == 1000 && out.log.size() == 1000, "W3 no_store: counter 1000, 1000 log entries");
  }
  {
    sg::memory_store store;
    const sg::thread_id t{"w4"};
    const State out = bench::w4_memory(store, t);
    expect(out.counter == 1000 && out.log.size() == 1000, "W4 memory_store: counter 1000, 1000 log entries");
    check_thread<bench::w3::graph>(store, t, out, 1001, "W4 memory_store");
  }
  {
    bench::temp_db file("check-w5");
    sg::sqlite_store store(file.path());
    const sg::thread_id t{"w5"};
    const State out = bench::w5_sqlite(store, t);
    expect(out.counter == 200 && out.log.size() == 200, "W5 sqlite_store: counter 200, 200 log entries");
    check_thread<bench::w5::graph>(store, t, out, 201, "W5 sqlite_store");

    // The recorded bytes are the bytes the store keeps: its own count of value bytes.
    bench::temp_db file2("check-w5-rec");
    sg::sqlite_store inner(file2.path());
    bench::recording_store<sg::sqlite_store> rec(inner);
    const auto app = sg::compile<bench::w5::graph>(sg::with_store(rec));
    app.invoke(State{}, sg::thread_id{"w5"});
    std::size_t logged = 0;
    for (const auto& p : rec.puts) logged += p.value_bytes;
    expect(logged == inner.stats().value_bytes && rec.puts.size() == 201,
           "W5: recorded value bytes (" + std::to_string(logged) + ") = sqlite_store stats().value_bytes (" +
               std::to_string(inner.stats().value_bytes) + ")");
  }
  {
    const auto rows = raw_rows();
    std::size_t bytes = 0;
    for (const auto& r : rows) bytes += r.size();
    bench::temp_db file("check-raw");
    bench::raw_sqlite raw(file.path());
    expect(rows.size() == 201 && raw.insert_each(rows) == 201 && raw.insert_each(rows) == 402,
           "W5 raw_sqlite: 201 rows per invocation, " + std::to_string(bytes) + " bytes");
  }
  {
    const auto hand = bench::w6_hand();
    const AgentState plain = bench::w6_plain();
    const std::size_t n = bench::agent::supersteps(bench::agent::rounds) + 1;
    expect(hand.messages.size() == n && hand.calls == 21 && hand.messages.back().content.starts_with("final answer"),
           "W6 hand: 42 messages, 21 model calls, a final answer");
    expect(same(plain.messages, hand.messages) && plain.calls == hand.calls, "W6 no_store: the same messages as hand");
    sg::memory_store store;
    const bench::llm model{bench::agent::rounds};
    const AgentState mem = bench::w6_memory(store, sg::thread_id{"w6"});
    expect(same(mem.messages, hand.messages) && mem.calls == hand.calls, "W6 memory_store: the same messages as hand");
    check_thread<bench::agent::graph>(store, sg::thread_id{"w6"}, mem, n, "W6 memory_store", &model);
    bench::temp_db file("check-w6");
    sg::sqlite_store sqlite(file.path());
    const AgentState sql = bench::w6_sqlite(sqlite, sg::thread_id{"w6"});
    expect(same(sql.messages, hand.messages) && sql.calls == hand.calls, "W6 sqlite_store: the same messages as hand");
    check_thread<bench::agent::graph>(sqlite, sg::thread_id{"w6"}, sql, n, "W6 sqlite_store", &model);
  }
  return failures == 0 ? 0 : 1;
}

// ---- allocs, bytes, run ----------------------------------------------------------------------

int allocs() {
  fixture fx;
  const std::pair<std::string_view, std::string_view> counted_sides[] = {
      {"W3", "no_store"}, {"W4", "memory_store"}, {"W6", "no_store"}, {"W6", "memory_store"}, {"W6", "hand"}};
  for (auto [w, name] : counted_sides) {
    const side* s = find_side(w, name);
    const std::size_t warm = 5, measured = s->supersteps >= 1000 ? 20 : 200;
    for (std::size_t i = 0; i < warm; ++i) s->invoke(fx);
    const std::size_t a0 = allocations;
    for (std::size_t i = 0; i < measured; ++i) s->invoke(fx);
    const double per_call = static_cast<double>(allocations - a0) / static_cast<double>(measured);
    std::printf(
        "{\"workload\": \"%s\", \"side\": \"%s\", \"allocs_per_invocation\": %.2f, \"allocs_per_superstep\": %.3f}\n",
        w.data(), name.data(), per_call, per_call / static_cast<double>(s->supersteps));
  }
  return 0;
}

template <class Graph, class... Nodes>
std::vector<bench::put_record> record(auto input, Nodes... nodes) {
  sg::memory_store memory;
  bench::recording_store<sg::memory_store> store(memory);
  sg::compile<Graph>(nodes..., sg::with_store(store)).invoke(std::move(input), sg::thread_id{"r"});
  return std::move(store.puts);
}

void print_bytes(const char* workload, std::size_t supersteps, const std::vector<bench::put_record>& puts) {
  auto stat = [&](auto field) {
    std::vector<double> v;
    for (const auto& p : puts) v.push_back(static_cast<double>(field(p)));
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    char buf[160];
    std::snprintf(buf, sizeof buf, "{\"median\": %.1f, \"min\": %.0f, \"max\": %.0f, \"total\": %.0f}", v[v.size() / 2],
                  v.front(), v.back(), sum);
    return std::string(buf);
  };
  std::printf(
      "{\"workload\": \"%s\", \"checkpoints\": %zu, \"supersteps\": %zu, \"value_bytes\": %s, \"metadata_bytes\": %s, "
      "\"hash_bytes\": %s, \"payload_bytes\": %s}\n",
      workload, puts.size(), supersteps, stat([](const auto& p) { return p.value_bytes; }).c_str(),
      stat([](const auto& p) { return p.metadata_bytes; }).c_str(),
      stat([](const auto& p) { return p.hash_bytes; }).c_str(),
      stat([](const auto& p) { return p.payload_bytes(); }).c_str());
}

int bytes() {
  print_bytes("W4", bench::w3::supersteps, record<bench::w3::graph>(State{}));
  print_bytes("W5", bench::w5::supersteps, bench::w5_record(false));
  print_bytes(
      "W6", bench::agent::supersteps(bench::agent::rounds),
      record<bench::agent::graph>(bench::agent::question("how many rows match?"), bench::llm{bench::agent::rounds}));
  return 0;
}

int run(std::string_view workload, std::string_view name, std::size_t times) {
  const side* s = find_side(workload, name);
  if (s == nullptr) return 2;
  fixture fx;
  if (name == "raw_sqlite") fx.raw_rows = raw_rows();
  for (std::size_t i = 0; i < times; ++i) s->invoke(fx);
  return 0;
}

int usage() {
  std::fputs("usage: count_durable check | allocs | bytes | run W3|W4|W5|W6 SIDE N\n", stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string_view mode = argv[1];
  try {
    if (mode == "check") return check();
    if (mode == "allocs") return allocs();
    if (mode == "bytes") return bytes();
    if (mode == "run" && argc == 5) {
      const int rc = run(argv[2], argv[3], static_cast<std::size_t>(std::strtoull(argv[4], nullptr, 10)));
      return rc == 2 ? usage() : rc;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "count_durable: %s\n", e.what());
    return 1;
  }
  return usage();
}
