// EXPECT: SG009
// EXPECT: SG009_node_cannot_reach_end<archive>
// SG009 in a graph declared as a struct deriving from sg::graph<...> (docs/guide.md, "Large
// graphs"): the rules see the same graph, and the message names the node as with `using`.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> log;
};

struct answer {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("answer")); }
};
struct archive {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("archive")); }
};

struct G : sg::graph<State, sg::edge<sg::start, answer>, sg::edge<answer, archive>
#ifndef SG_VIOLATION
                     ,
                     sg::edge<archive, sg::end>
#endif
                     > {
};

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).log.size() == 2 ? 0 : 1;
}
