// The run-time workloads W1–W3 and W3f of shared/design/benchmarks.md, each twice: as a
// stategraph graph and as the hand-written C++ a careful engineer would write instead (plain
// functions on a plain struct, each node returning its update, the merge written by hand).
// Both sides do the same work — in W1–W3 a node adds 1 to `counter` and appends its own
// name to `log`; in W3f it only adds 1 — so the difference between them is the framework's
// own cost.
#pragma once

#include <stategraph/stategraph.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bench {

namespace sg = stategraph;

// ---- the library side -------------------------------------------------------------------

struct State {
  sg::counter<int> counter;
  sg::append<std::string> log;
};

// A node that does the workload's only work: count itself and log its own name. The name
// is a template argument so that each node is its own type (the graph needs that).
template <const std::string_view& Name>
struct mark {
  static constexpr std::string_view name = Name;
  using reads = sg::reads<>;
  using writes = sg::writes<&State::counter, &State::log>;
  auto operator()(sg::view<State, reads>) const {
    return sg::write<&State::counter>(1) | sg::write<&State::log>(std::string(Name));
  }
};

namespace names {
inline constexpr std::string_view n1 = "n1", n2 = "n2", n3 = "n3", n4 = "n4", n5 = "n5", n6 = "n6", n7 = "n7",
                                  n8 = "n8", n9 = "n9", n10 = "n10";
inline constexpr std::string_view split = "split", w1 = "w1", w2 = "w2", w3 = "w3", w4 = "w4", w5 = "w5", w6 = "w6",
                                  w7 = "w7", w8 = "w8", join = "join";
inline constexpr std::string_view step = "step";
}  // namespace names

// W1 pipeline10: start → n1 → … → n10 → end, ten supersteps.
namespace w1 {
inline constexpr std::size_t supersteps = 10;
using n1 = mark<names::n1>;
using n2 = mark<names::n2>;
using n3 = mark<names::n3>;
using n4 = mark<names::n4>;
using n5 = mark<names::n5>;
using n6 = mark<names::n6>;
using n7 = mark<names::n7>;
using n8 = mark<names::n8>;
using n9 = mark<names::n9>;
using n10 = mark<names::n10>;
using graph = sg::graph<State, sg::edge<sg::start, n1>, sg::edge<n1, n2>, sg::edge<n2, n3>, sg::edge<n3, n4>,
                        sg::edge<n4, n5>, sg::edge<n5, n6>, sg::edge<n6, n7>, sg::edge<n7, n8>, sg::edge<n8, n9>,
                        sg::edge<n9, n10>, sg::edge<n10, sg::end>>;
}  // namespace w1

// W2 fanout8: start → split → w1…w8 in one superstep → join (waits for all 8) → end.
namespace w2 {
inline constexpr std::size_t supersteps = 3;
using split = mark<names::split>;
using w1 = mark<names::w1>;
using w2 = mark<names::w2>;
using w3 = mark<names::w3>;
using w4 = mark<names::w4>;
using w5 = mark<names::w5>;
using w6 = mark<names::w6>;
using w7 = mark<names::w7>;
using w8 = mark<names::w8>;
using joiner = mark<names::join>;
using graph =
    sg::graph<State, sg::edge<sg::start, split>, sg::edge<split, w1>, sg::edge<split, w2>, sg::edge<split, w3>,
              sg::edge<split, w4>, sg::edge<split, w5>, sg::edge<split, w6>, sg::edge<split, w7>, sg::edge<split, w8>,
              sg::join<joiner, w1, w2, w3, w4, w5, w6, w7, w8>, sg::edge<joiner, sg::end>>;
}  // namespace w2

// W3 loop1000: `step` adds 1 to counter; a branch loops back while counter < 1000.
namespace w3 {
inline constexpr int rounds = 1000;
inline constexpr std::size_t supersteps = rounds;
using step = mark<names::step>;
struct again {
  using reads = sg::reads<&State::counter>;
  sg::go<step, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::counter>() < rounds) return sg::to<step>;
    return sg::to<sg::end>;
  }
};
using graph = sg::graph<State, sg::edge<sg::start, step>, sg::branch<step, again>>;
}  // namespace w3

// W3f, the framework alone: W3's loop whose node only adds 1 to a counter. The bound is a
// volatile read every step, so neither side's loop can be folded or unrolled into a constant.
namespace w3f {
inline volatile int bound = 1000;
inline constexpr int rounds = 1000;  // what `bound` holds; the checks compare with it
inline constexpr std::size_t supersteps = rounds;
struct CounterState {
  sg::counter<int> counter;
};
struct step {
  static constexpr std::string_view name = names::step;
  using reads = sg::reads<>;
  using writes = sg::writes<&CounterState::counter>;
  auto operator()(sg::view<CounterState, reads>) const { return sg::write<&CounterState::counter>(1); }
};
struct again {
  using reads = sg::reads<&CounterState::counter>;
  sg::go<step, sg::end> operator()(sg::view<CounterState, reads> in) const {
    if (in.get<&CounterState::counter>() < bound) return sg::to<step>;
    return sg::to<sg::end>;
  }
};
using graph = sg::graph<CounterState, sg::edge<sg::start, step>, sg::branch<step, again>>;
}  // namespace w3f

// ---- the hand-written side ----------------------------------------------------------------
//
// The same BSP discipline without a framework: a node reads the state and returns its
// update; the caller merges updates in node order after every node of the step has run.

namespace hand {

struct state {
  int counter = 0;
  std::vector<std::string> log;
};

struct update {
  int counter;
  std::string log;
};

inline update mark(const state&, std::string_view name) { return {1, std::string(name)}; }

inline void merge(state& s, update&& u) {
  s.counter += u.counter;
  s.log.push_back(std::move(u.log));
}

inline state pipeline10(state s) {
  merge(s, mark(s, names::n1));
  merge(s, mark(s, names::n2));
  merge(s, mark(s, names::n3));
  merge(s, mark(s, names::n4));
  merge(s, mark(s, names::n5));
  merge(s, mark(s, names::n6));
  merge(s, mark(s, names::n7));
  merge(s, mark(s, names::n8));
  merge(s, mark(s, names::n9));
  merge(s, mark(s, names::n10));
  return s;
}

inline state fanout8(state s) {
  merge(s, mark(s, names::split));
  // All eight read the same snapshot, so every update exists before the first merge.
  update workers[] = {mark(s, names::w1), mark(s, names::w2), mark(s, names::w3), mark(s, names::w4),
                      mark(s, names::w5), mark(s, names::w6), mark(s, names::w7), mark(s, names::w8)};
  for (auto& u : workers) merge(s, std::move(u));
  merge(s, mark(s, names::join));
  return s;
}

inline state loop1000(state s) {
  do {
    merge(s, mark(s, names::step));
  } while (s.counter < w3::rounds);
  return s;
}

// W3f: the same node, merge and condition as plain inlinable functions.
struct counter_state {
  int counter = 0;
};
inline int add_one(const counter_state&) { return 1; }
inline void merge(counter_state& s, int u) { s.counter += u; }
inline bool again(const counter_state& s) { return s.counter < w3f::bound; }
inline counter_state loop_bound(counter_state s) {
  do {
    merge(s, add_one(s));
  } while (again(s));
  return s;
}

}  // namespace hand

// ---- entry points: one invocation each ------------------------------------------------------
//
// Each workload and each side is compiled in its own translation unit (w1.cpp, w1_hand.cpp,
// ...), and both measuring binaries link the same objects. The compiler's inlining
// decisions depend on everything a translation unit contains (both sides share, e.g.,
// vector<string>::emplace_back), so separate files keep the baseline from moving with the
// library and one workload's figures from moving when another is added, and make the timed
// code and the instruction-counted code the same machine code.

State w1_library();
hand::state w1_hand();
State w2_library();
State w2_pool();  // the library on sg::thread_pool{2}: two threads, the machine's cores
hand::state w2_hand();
State w3_library();
hand::state w3_hand();
w3f::CounterState w3f_library();
hand::counter_state w3f_hand();

}  // namespace bench
