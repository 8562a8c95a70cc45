// EXPECT: SG009
// EXPECT: SG009_node_cannot_reach_end<archive>
// SG009: `archive` has no way out: no path leads from it to end.
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

using G = sg::graph<State, sg::edge<sg::start, answer>, sg::edge<answer, archive>
#ifndef SG_VIOLATION
                    ,
                    sg::edge<archive, sg::end>
#endif
                    >;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).log.size() == 2 ? 0 : 1;
}
