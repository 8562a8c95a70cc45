// EXPECT: SG001
// EXPECT: SG001_node_reads_undeclared_channel<route, &State::retries, stategraph::reads<&State::messages> ?>
// SG001 naming the router: `route` has a generic call operator, instantiated by the library
// with a view that knows the router.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> messages;
  sg::counter<int> retries;
};

struct agent {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::messages, &State::retries>;
  auto operator()(sg::view<State, reads>) const {
    return sg::write<&State::messages>(std::string("try")) | sg::write<&State::retries>(1);
  }
};

struct route {
#ifdef SG_VIOLATION
  using reads = sg::reads<&State::messages>;
#else
  using reads = sg::reads<&State::messages, &State::retries>;
#endif
  sg::go<agent, sg::end> operator()(auto in) const {
    if (in.template get<&State::retries>() < 3) return sg::to<agent>;
    return sg::to<sg::end>;
  }
};

using G = sg::graph<State, sg::edge<sg::start, agent>, sg::branch<agent, route>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).retries == 3 ? 0 : 1;
}
