// EXPECT: SG018
// EXPECT: SG018_node_without_a_stage_in_a_staged_graph<audit>
// SG018: the graph has a lattice, and `audit` declares no stage. Without the rule it would
// silently sit outside the lattice (as sg::any_stage does); saying so must be explicit.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> log;
};

struct anchor_plan {};
struct synthesize {};

struct plan {
  using stage = anchor_plan;
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("plan")); }
};
struct audit {
#ifndef SG_VIOLATION
  using stage = sg::any_stage;  // explicitly outside the lattice
#endif
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("audit")); }
};

using turn = sg::lattice<sg::transition<anchor_plan, synthesize>>;
using G = sg::graph<State, turn, sg::edge<sg::start, plan>, sg::edge<plan, audit>, sg::edge<audit, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).log.size() == 2 ? 0 : 1;
}
