// EXPECT: SG011
// EXPECT: SG011_call_operator_does_not_accept_the_view<classify, stategraph::view<State, stategraph::reads<&State::question> ?> ?>
// SG011: the node's call operator takes the whole state instead of its view.
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
#ifdef SG_VIOLATION
  auto operator()(const State& in) const { return sg::write<&State::intent>(in.question.substr(0, 3)); }
#else
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::intent>(in.get<&State::question>().substr(0, 3));
  }
#endif
};

using G = sg::graph<State, sg::edge<sg::start, classify>, sg::edge<classify, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{.question = "why?"}).intent == "why" ? 0 : 1;
}
