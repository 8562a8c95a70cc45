// EXPECT: SG003
// EXPECT: SG003_channel_is_not_in_the_graph_state<route, &Draft::text, State>
// SG003: the router was written for another state struct (Draft) than the graph's (State).
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct Draft {
  std::string text;
};
struct State {
  std::string text;
  sg::counter<int> edits;
};

#ifdef SG_VIOLATION
using Doc = Draft;
#else
using Doc = State;
#endif

struct edit {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::edits>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::edits>(1); }
};

struct route {
  using reads = sg::reads<&Doc::text>;
  sg::go<edit, sg::end> operator()(sg::view<Doc, reads> in) const {
    if (in.get<&Doc::text>().empty()) return sg::to<sg::end>;
    return sg::to<edit>;
  }
};

using G = sg::graph<State, sg::edge<sg::start, edit>, sg::branch<edit, route>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).edits == 1 ? 0 : 1;
}
