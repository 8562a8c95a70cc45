// EXPECT: SG011
// EXPECT: SG011_call_operator_does_not_accept_the_view<scale, stategraph::view<State, stategraph::reads<&State::x> ?> ?>
// SG011: the node takes a context, and the graph is invoked without one (sg::compile accepts
// the node: its context is known only at invoke).
#include <stategraph/stategraph.hpp>

namespace sg = stategraph;

struct State {
  int x = 0;
};
struct Settings {
  int factor = 3;
};

struct scale {
  using reads = sg::reads<&State::x>;
  using writes = sg::writes<&State::x>;
  auto operator()(sg::view<State, reads> in, Settings& s) const {
    return sg::write<&State::x>(in.get<&State::x>() * s.factor);
  }
};

using G = sg::graph<State, sg::edge<sg::start, scale>, sg::edge<scale, sg::end>>;

int main() {
  auto app = sg::compile<G>();
#ifdef SG_VIOLATION
  return app.invoke(State{.x = 2}).x == 6 ? 0 : 1;
#else
  Settings settings;
  return app.invoke(State{.x = 2}, settings).x == 6 ? 0 : 1;
#endif
}
