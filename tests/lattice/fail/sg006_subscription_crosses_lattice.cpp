// EXPECT: SG006
// EXPECT: SG006_subscription_crosses_the_lattice<cost_rollup, &State::tokens, intent_detector, anchor_plan, post_turn>
// SG006 for a reactive node: `cost_rollup` (stage post_turn) subscribes to `tokens`, written
// by `intent_detector` in stage anchor_plan, and the lattice lets anchor_plan hand over to
// tool_loop only. The subscription is checked as a hand-over from each writer of the channel;
// `sg::wakes<anchor_plan, post_turn>` declares it legal without allowing an edge.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> log;
  sg::counter<int> tokens;
  sg::counter<int> cost;
};

struct anchor_plan {};
struct tool_loop {};
struct post_turn {};

struct intent_detector {
  using stage = anchor_plan;
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log, &State::tokens>;
  auto operator()(sg::view<State, reads>) const {
    return sg::write<&State::log>(std::string("intent")) | sg::write<&State::tokens>(3);
  }
};
struct tool_call {
  using stage = tool_loop;
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("tool")); }
};
struct cost_rollup {
  using stage = post_turn;
  using subscribes = sg::subscribes<&State::tokens>;
  using reads = sg::reads<&State::tokens>;
  using writes = sg::writes<&State::cost>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::cost>(in.get<&State::tokens>() * 2); }
};

#ifdef SG_VIOLATION
using turn = sg::lattice<sg::transition<anchor_plan, tool_loop>>;
#else
using turn = sg::lattice<sg::transition<anchor_plan, tool_loop>, sg::wakes<anchor_plan, post_turn>>;
#endif
using G = sg::graph<State, turn, sg::edge<sg::start, intent_detector>, sg::edge<intent_detector, tool_call>,
                    sg::edge<tool_call, sg::end>, sg::edge<cost_rollup, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).cost == 6 ? 0 : 1;
}
