// EXPECT: SG003
// EXPECT: SG003_channel_is_not_in_the_graph_state<summarize, &Draft::text, State>
// SG003: the node was written for another state struct (Draft) than the graph's (State).
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct Draft {
  std::string text;
  std::string summary;
};
struct State {
  std::string text;
  std::string summary;
};

#ifdef SG_VIOLATION
using Doc = Draft;
#else
using Doc = State;
#endif

struct summarize {
  using reads = sg::reads<&Doc::text>;
  using writes = sg::writes<&State::summary>;
  auto operator()(sg::view<Doc, reads> in) const {
    return sg::write<&State::summary>(in.get<&Doc::text>().substr(0, 10));
  }
};

using G = sg::graph<State, sg::edge<sg::start, summarize>, sg::edge<summarize, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{.text = "a long text to summarise"}).summary.size() == 10 ? 0 : 1;
}
