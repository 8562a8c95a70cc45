// EXPECT: SG005
// EXPECT: SG005_edge_declared_twice<fetch, rank>
// SG005: the edge fetch -> rank is declared twice.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> docs;
};

struct fetch {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::docs>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::docs>(std::string("doc")); }
};
struct rank {
  using reads = sg::reads<&State::docs>;
  using writes = sg::writes<&State::docs>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::docs>(std::string("ranked")); }
};

using G = sg::graph<State, sg::edge<sg::start, fetch>, sg::edge<fetch, rank>,
#ifdef SG_VIOLATION
                    sg::edge<fetch, rank>,
#endif
                    sg::edge<rank, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).docs.size() == 2 ? 0 : 1;
}
