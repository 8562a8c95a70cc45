// EXPECT: SG001
// EXPECT: SG001_node_reads_undeclared_channel<route, &State::retries, stategraph::reads<&State::messages> ?>
// EXPECT-gcc: sg001_view_for_router_reads_undeclared\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: sg001_view_for_router_reads_undeclared\.cpp:[0-9]+:[0-9]+: note: in instantiation of .*view<.*route>::get<&State::retries>' requested here
// SG001 naming the router: `route` takes sg::view_for<State, route> and reads `retries`,
// but its `reads` lists only `messages`. Its call operator is defined outside the class.
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
  auto operator()(sg::view_for<State, agent>) const {
    return sg::write<&State::messages>(std::string("try")) | sg::write<&State::retries>(1);
  }
};

struct route {
#ifdef SG_VIOLATION
  using reads = sg::reads<&State::messages>;
#else
  using reads = sg::reads<&State::messages, &State::retries>;
#endif
  sg::go<agent, sg::end> operator()(sg::view_for<State, route> in) const;
};

sg::go<agent, sg::end> route::operator()(sg::view_for<State, route> in) const {
  if (in.get<&State::retries>() < 3) return sg::to<agent>;
  return sg::to<sg::end>;
}

using G = sg::graph<State, sg::edge<sg::start, agent>, sg::branch<agent, route>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).retries == 3 ? 0 : 1;
}
