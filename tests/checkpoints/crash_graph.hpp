// The looping graph of the crash test, shared by the child that runs it (and gets killed)
// and the test that compares the child's file with a run never killed. Each round is three
// supersteps: fan, then left and right in parallel, then mix (a join of the two), whose
// router loops back to fan. Every write depends on the state it read, so a step run twice,
// lost, or run on a stale state changes the end result.
#pragma once

#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>

#include <cstdint>
#include <string>

namespace crash_graph {

namespace sg = stategraph;

struct Tick {
  sg::append<std::int64_t> values;
  sg::counter<std::int64_t> sum;
  sg::counter<int> rounds;
  std::string last;
  friend bool operator==(const Tick& a, const Tick& b) {
    return a.values == b.values && a.sum == b.sum && a.rounds == b.rounds && a.last == b.last;
  }
};

struct left;
struct right;
struct fan {
  using reads = sg::reads<&Tick::rounds>;
  using writes = sg::writes<&Tick::last>;
  auto operator()(sg::view<Tick, reads> in) const {
    return sg::write<&Tick::last>("round " + std::to_string(in.get<&Tick::rounds>()));
  }
};
struct left {
  using reads = sg::reads<&Tick::sum, &Tick::rounds>;
  using writes = sg::writes<&Tick::values>;
  auto operator()(sg::view<Tick, reads> in) const {
    std::int64_t v = (in.get<&Tick::sum>() * 31 + in.get<&Tick::rounds>()) % 1000003;
    return sg::write<&Tick::values>(v);
  }
};
struct right {
  using reads = sg::reads<&Tick::rounds, &Tick::last>;
  using writes = sg::writes<&Tick::sum>;
  auto operator()(sg::view<Tick, reads> in) const {
    return sg::write<&Tick::sum>(std::int64_t{in.get<&Tick::rounds>()} * 7 + 1 +
                                 static_cast<std::int64_t>(in.get<&Tick::last>().size()));
  }
};
struct mix {
  using reads = sg::reads<&Tick::sum, &Tick::rounds, &Tick::values>;
  using writes = sg::writes<&Tick::last, &Tick::rounds>;
  auto operator()(sg::view<Tick, reads> in) const {
    const auto& v = in.get<&Tick::values>();
    std::int64_t h = in.get<&Tick::sum>() ^ (v.empty() ? 0 : v.back());
    return sg::write<&Tick::last>("mixed " + std::to_string(h)) | sg::write<&Tick::rounds>(1);
  }
};

inline constexpr int rounds = 67;  // 3 supersteps a round: 201 steps
inline constexpr int steps = 3 * rounds;

struct again {
  using reads = sg::reads<&Tick::rounds>;
  sg::go<fan, sg::end> operator()(sg::view<Tick, reads> in) const {
    if (in.get<&Tick::rounds>() < rounds) return sg::to<fan>;
    return sg::to<sg::end>;
  }
};

using graph = sg::graph<Tick, sg::edge<sg::start, fan>, sg::edge<fan, left>, sg::edge<fan, right>,
                        sg::join<mix, left, right>, sg::branch<mix, again>>;

inline const char* const thread = "crash";

}  // namespace crash_graph
