// EXPECT: SG011
// EXPECT: SG011_node_returns_unsupported_type<route, bool>
// SG011: the router returns bool instead of sg::go<...>.
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
  bool operator()(sg::view<State, reads> in) const { return in.get<&State::messages>().size() < 3; }
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
