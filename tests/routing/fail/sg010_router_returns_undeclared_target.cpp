// EXPECT: SG010
// EXPECT: SG010_returns_undeclared_target<review, tools ?>
// EXPECT-gcc: sg010_router_returns_undeclared_target\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: note: in instantiation of default argument for 'go<review>' required here
// SG010: the router returns sg::to<review>, but its sg::go<...> declares only tools. The
// message names the target and the declared ones; the router is where the location points.
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
using route_targets = sg::go<tools>;
#else
using route_targets = sg::go<tools, review>;
#endif

struct route {
  using reads = sg::reads<&State::messages>;
  route_targets operator()(sg::view<State, reads> in) const {
    if (in.get<&State::messages>().size() < 2) return sg::to<tools>;
    return sg::to<review>;
  }
};

using G = sg::graph<State, sg::edge<sg::start, agent>, sg::branch<agent, route>, sg::edge<tools, review>,
                    sg::edge<review, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).messages.size() == 3 ? 0 : 1;
}
