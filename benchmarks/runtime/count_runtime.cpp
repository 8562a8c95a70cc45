// Figures that machine noise cannot move, for W1–W3 and W3f, library and hand-written side by side:
//
//   count_runtime check              both sides produce the state the workload defines
//   count_runtime allocs             heap allocations per invocation and per superstep
//   count_runtime run W SIDE N       N invocations and nothing else, for callgrind: the
//                                    difference between the instruction counts of N and 2N
//                                    invocations is the cost of N (start-up cancels out)
//
// The allocation count comes from a replaced global operator new in this binary only, so
// the timing binary runs with the ordinary allocator.
#include "workloads.hpp"

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace {

// Atomic because W2 on the thread pool runs nodes on worker threads.
std::atomic<std::size_t> allocations{0};
std::atomic<std::size_t> allocated_bytes{0};

void* counted(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  allocated_bytes.fetch_add(size, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc{};
}
void* counted_aligned(std::size_t size, std::align_val_t align) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  allocated_bytes.fetch_add(size, std::memory_order_relaxed);
  auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc{};
}

}  // namespace

void* operator new(std::size_t size) { return counted(size); }
void* operator new[](std::size_t size) { return counted(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return counted(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void* operator new(std::size_t size, std::align_val_t align) { return counted_aligned(size, align); }
void* operator new[](std::size_t size, std::align_val_t align) { return counted_aligned(size, align); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

// Keeps the compiler from deleting a result it could otherwise prove unused.
template <class T>
void escape(T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

// `units` is how many of the workload's units (supersteps for W1, W3 and W3f, invocations
// for W2) one invocation is. W3f's state has no log: its expected log is empty.
struct workload {
  std::string_view id;
  std::size_t units;
  std::vector<std::string_view> sides;
  std::vector<std::string> expected_log;
  int expected_counter;
};

std::vector<workload> workloads() {
  std::vector<workload> out;
  out.push_back({"W1",
                 bench::w1::supersteps,
                 {"library", "hand"},
                 {"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10"},
                 10});
  out.push_back(
      {"W2", 1, {"library", "hand", "pool"}, {"split", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "join"}, 10});
  out.push_back({"W3",
                 bench::w3::supersteps,
                 {"library", "hand"},
                 std::vector<std::string>(bench::w3::rounds, "step"),
                 bench::w3::rounds});
  out.push_back({"W3f", bench::w3f::supersteps, {"library", "hand"}, {}, bench::w3f::rounds});
  return out;
}

// The state one invocation of (workload, side) ends in, as plain values.
struct outcome {
  int counter;
  std::vector<std::string> log;
};

template <class Out>
outcome plain(const Out& out) {
  if constexpr (requires { out.log; }) {
    return {static_cast<int>(out.counter), std::vector<std::string>(out.log.begin(), out.log.end())};
  } else {
    return {static_cast<int>(out.counter), {}};
  }
}

// Runs `times` invocations of one (workload, side); returns the last outcome when asked.
// Sides: library (sequential executor), hand, pool (library on the thread pool, W2 only).
bool run(std::string_view id, std::string_view side, std::size_t times, outcome* last = nullptr) {
  auto loop = [&](auto invoke) {
    for (std::size_t i = 0; i < times; ++i) {
      auto out = invoke();
      escape(out);
      if (last && i + 1 == times) *last = plain(out);
    }
    return true;
  };
  if (id == "W1" && side == "library") return loop(bench::w1_library);
  if (id == "W1" && side == "hand") return loop(bench::w1_hand);
  if (id == "W2" && side == "library") return loop(bench::w2_library);
  if (id == "W2" && side == "pool") return loop(bench::w2_pool);
  if (id == "W2" && side == "hand") return loop(bench::w2_hand);
  if (id == "W3" && side == "library") return loop(bench::w3_library);
  if (id == "W3" && side == "hand") return loop(bench::w3_hand);
  if (id == "W3f" && side == "library") return loop(bench::w3f_library);
  if (id == "W3f" && side == "hand") return loop(bench::w3f_hand);
  return false;
}

int check() {
  int failures = 0;
  for (const auto& w : workloads()) {
    for (auto side : w.sides) {
      outcome got{};
      run(w.id, side, 2, &got);
      const bool ok = got.counter == w.expected_counter && got.log == w.expected_log;
      std::printf("%-3s %-8s counter=%d log=%zu entries: %s\n", w.id.data(), side.data(), got.counter, got.log.size(),
                  ok ? "ok" : "WRONG");
      failures += ok ? 0 : 1;
    }
  }
  return failures == 0 ? 0 : 1;
}

// Allocations after warm-up: the first invocations (static state, lazily built tables) are
// not counted; then `measured` invocations are, and the figure is their average.
int allocs() {
  for (const auto& w : workloads()) {
    const std::size_t warm = 50;
    const std::size_t measured = w.units >= 100 ? 100 : 2000;
    for (auto side : w.sides) {
      run(w.id, side, warm);
      const std::size_t a0 = allocations, b0 = allocated_bytes;
      run(w.id, side, measured);
      const double per_call = static_cast<double>(allocations - a0) / static_cast<double>(measured);
      const double bytes_per_call = static_cast<double>(allocated_bytes - b0) / static_cast<double>(measured);
      std::printf(
          "{\"workload\": \"%s\", \"side\": \"%s\", \"allocs_per_invocation\": %.4f, "
          "\"allocs_per_unit\": %.5f, \"bytes_per_invocation\": %.1f}\n",
          w.id.data(), side.data(), per_call, per_call / static_cast<double>(w.units), bytes_per_call);
    }
  }
  return 0;
}

int usage() {
  std::fputs("usage: count_runtime check | allocs | run W1|W2|W3|W3f library|hand|pool N\n", stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string_view mode = argv[1];
  if (mode == "check") return check();
  if (mode == "allocs") return allocs();
  if (mode == "run" && argc == 5) {
    const auto times = static_cast<std::size_t>(std::strtoull(argv[4], nullptr, 10));
    return run(argv[2], argv[3], times) ? 0 : usage();
  }
  return usage();
}
