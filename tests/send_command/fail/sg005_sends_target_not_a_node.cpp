// EXPECT: SG005
// EXPECT: SG005_target_is_not_a_node_of_the_graph<plan, worker>
// SG005: `plan` declares it sends to `worker`, but no edge, branch or join names `worker`.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> results;
};

struct worker {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::results>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::results>(std::string("done")); }
};

struct plan {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::results>;
  using sends = sg::sends<worker>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::results>(std::string("planned")); }
};

using G = sg::graph<State, sg::edge<sg::start, plan>, sg::edge<plan, sg::end>
#ifndef SG_VIOLATION
                    ,
                    sg::edge<worker, sg::end>
#endif
                    >;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).results.empty() ? 1 : 0;
}
