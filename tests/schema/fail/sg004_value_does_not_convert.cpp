// EXPECT: SG004
// EXPECT: SG004_written_value_does_not_convert<count, &State::steps, std::(__cxx11::)?basic_string<char
// SG004: the node writes a string into `steps`, a counter of int.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::counter<int> steps;
};

struct count {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::steps>;
  auto operator()(sg::view<State, reads>) const {
#ifdef SG_VIOLATION
    return sg::write<&State::steps>(std::string("1"));
#else
    return sg::write<&State::steps>(1);
#endif
  }
};

using G = sg::graph<State, sg::edge<sg::start, count>, sg::edge<count, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).steps == 1 ? 0 : 1;
}
