// EXPECT: SG018
// EXPECT: SG018_node_without_a_stage_in_a_staged_graph<audit_tag>
// SG018 for a lambda node: `sg::node<audit_tag>(f)` names no stage, in a graph with a lattice.
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
struct audit_tag {};

using turn = sg::lattice<sg::transition<anchor_plan, synthesize>>;
using G = sg::graph<State, turn, sg::edge<sg::start, plan>, sg::edge<plan, audit_tag>, sg::edge<audit_tag, sg::end>>;

int main() {
  auto looks = [](sg::view<State, sg::reads<>>) {};  // writes nothing
#ifdef SG_VIOLATION
  auto audit = sg::node<audit_tag>(looks);
#else
  auto audit = sg::node<audit_tag, sg::any_stage>(looks);
#endif
  auto app = sg::compile<G>(audit);
  return app.invoke(State{}).log.size() == 1 ? 0 : 1;
}
