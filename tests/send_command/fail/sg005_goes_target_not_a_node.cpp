// EXPECT: SG005
// EXPECT: SG005_target_is_not_a_node_of_the_graph<agent, tools>
// SG005: `agent` declares it may go to `tools`, but no edge, branch or join names `tools`.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> messages;
};

struct tools {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::messages>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::messages>(std::string("42")); }
};

struct agent {
  using reads = sg::reads<&State::messages>;
  using writes = sg::writes<&State::messages>;
  using goes = sg::goes<tools, sg::end>;
  auto operator()(sg::view<State, reads> in) const {
    bool done = in.get<&State::messages>().size() > 2;
    return sg::command{sg::write<&State::messages>(std::string("ai")),
                       done ? sg::go<tools, sg::end>(sg::to<sg::end>) : sg::go<tools, sg::end>(sg::to<tools>)};
  }
};

using G = sg::graph<State, sg::edge<sg::start, agent>
#ifndef SG_VIOLATION
                    ,
                    sg::edge<tools, agent>
#endif
                    >;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).messages.size() >= 3 ? 0 : 1;
}
