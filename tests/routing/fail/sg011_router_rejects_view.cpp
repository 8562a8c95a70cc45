// EXPECT: SG011
// EXPECT: SG011_call_operator_does_not_accept_the_view<route, stategraph::view<State, stategraph::reads<&State::messages> ?> ?>
// SG011: the router's call operator takes the whole state instead of its view.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> messages;
};

struct agent {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::messages>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::messages>(std::string("ai")); }
};

struct route {
  using reads = sg::reads<&State::messages>;
#ifdef SG_VIOLATION
  sg::go<agent, sg::end> operator()(const State& in) const {
    if (in.messages.size() < 3) return sg::to<agent>;
    return sg::to<sg::end>;
  }
#else
  sg::go<agent, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::messages>().size() < 3) return sg::to<agent>;
    return sg::to<sg::end>;
  }
#endif
};

using G = sg::graph<State, sg::edge<sg::start, agent>, sg::branch<agent, route>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).messages.size() == 3 ? 0 : 1;
}
