// EXPECT: SG006
// EXPECT: SG006_edge_crosses_the_lattice<answer, plan, synthesize, anchor_plan>
// SG006: the edge answer -> plan goes from stage synthesize back to anchor_plan, which the
// lattice does not allow.
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
struct answer {
  using stage = synthesize;
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("answer")); }
};

using turn = sg::lattice<sg::transition<anchor_plan, synthesize>>;

using G = sg::graph<State, turn, sg::edge<sg::start, plan>, sg::edge<plan, answer>,
#ifdef SG_VIOLATION
                    sg::edge<answer, plan>,
#endif
                    sg::edge<answer, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).log.size() == 2 ? 0 : 1;
}
