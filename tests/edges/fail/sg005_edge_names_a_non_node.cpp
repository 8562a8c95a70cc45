// EXPECT: SG005
// EXPECT: SG005_edge_names_something_that_is_not_a_node<classify, answer_stage>
// SG005: the edge names a stage type (`answer_stage`) where a node (`answer`) was meant.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string intent;
  std::string reply;
};

struct answer_stage {};

struct classify {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::intent>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::intent>(std::string("greet")); }
};
struct answer {
  using stage = answer_stage;
  using reads = sg::reads<&State::intent>;
  using writes = sg::writes<&State::reply>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::reply>(in.get<&State::intent>()); }
};

#ifdef SG_VIOLATION
using next_after_classify = answer_stage;
#else
using next_after_classify = answer;
#endif

using G = sg::graph<State, sg::edge<sg::start, classify>, sg::edge<classify, next_after_classify>,
                    sg::edge<answer, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).reply == "greet" ? 0 : 1;
}
