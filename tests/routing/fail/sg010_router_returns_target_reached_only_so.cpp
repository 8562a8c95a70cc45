// EXPECT: SG010
// EXPECT: SG010_returns_undeclared_target<review, tools ?>
// EXPECT-gcc: sg010_router_returns_target_reached_only_so\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: note: in instantiation of default argument for 'go<review>' required here
// SG010 alone: the router returns sg::to<review>, but its sg::go<...> declares only tools,
// and review is reached only through that return. Without SG010 the graph would also fail
// SG009 (review unreachable, agent and tools never reaching end); that follows from the
// same mistake, so only SG010 is reported.
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
    if (in.get<&State::messages>().size() < 4) return sg::to<tools>;
    return sg::to<review>;
  }
};

using G = sg::graph<State, sg::edge<sg::start, agent>, sg::branch<agent, route>, sg::edge<tools, agent>,
                    sg::edge<review, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).messages.size() == 5 ? 0 : 1;
}
