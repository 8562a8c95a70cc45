// EXPECT: SG003
// EXPECT: SG003_channel_is_not_in_the_graph_state<audit, &Draft::text, State>
// SG003: `subscribes` names a member of another struct (Draft) than the graph's state.
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
using Watched = Draft;
#else
using Watched = State;
#endif

struct audit {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::edits>;
  using subscribes = sg::subscribes<&Watched::text>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::edits>(1); }
};

using G = sg::graph<State, sg::edge<sg::start, audit>, sg::edge<audit, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).edits == 1 ? 0 : 1;
}
