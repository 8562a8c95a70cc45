// EXPECT: SG011
// EXPECT: SG011_node_returns_unsupported_type<classify, std::(__cxx11::)?basic_string<char
// SG011: the node returns the new value itself instead of a patch (sg::write<&State::intent>(...)).
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string question;
  std::string intent;
};

struct classify {
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::intent>;
  auto operator()(sg::view<State, reads> in) const {
#ifdef SG_VIOLATION
    return in.get<&State::question>().substr(0, 3);
#else
    return sg::write<&State::intent>(in.get<&State::question>().substr(0, 3));
#endif
  }
};

using G = sg::graph<State, sg::edge<sg::start, classify>, sg::edge<classify, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{.question = "why?"}).intent == "why" ? 0 : 1;
}
