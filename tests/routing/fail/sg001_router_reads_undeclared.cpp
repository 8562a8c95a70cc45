// EXPECT: SG001
// EXPECT: SG001_reads_undeclared_channel<&State::retries, stategraph::reads<&State::messages> ?>
// EXPECT-gcc: sg001_router_reads_undeclared\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: sg001_router_reads_undeclared\.cpp:[0-9]+:[0-9]+: note: in instantiation of .*view<.*>::get<&State::retries>' requested here
// SG001: the router reads `retries`, but its `reads` lists only `messages`.
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
  sg::go<agent, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::retries>() < 3) return sg::to<agent>;
    return sg::to<sg::end>;
  }
};

using G = sg::graph<State, sg::edge<sg::start, agent>, sg::branch<agent, route>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).retries == 3 ? 0 : 1;
}
