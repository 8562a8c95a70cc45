// EXPECT: SG010
// EXPECT: SG010_command_goes_to_undeclared_target<agent, review>
// SG010: the node's command goes to `review`, but its `goes` lists only tools.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> messages;
};

struct tools {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::messages>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::messages>(std::string("tool")); }
};
struct review {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::messages>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::messages>(std::string("ok")); }
};

#ifdef SG_VIOLATION
using next_step = review;
#else
using next_step = tools;
#endif

struct agent {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::messages>;
  using goes = sg::goes<tools>;
  auto operator()(sg::view<State, reads>) const {
    return sg::command{sg::write<&State::messages>(std::string("ai")), sg::to<next_step>};
  }
};

using G = sg::graph<State, sg::edge<sg::start, agent>, sg::edge<tools, sg::end>, sg::edge<agent, review>,
                    sg::edge<review, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).messages.size() == 3 ? 0 : 1;
}
