// EXPECT: SG008
// EXPECT: SG008_nodes_that_run_together_write_one_last_value_channel<&State::answer, search_web, search_docs>
// SG008: search_web and search_docs both follow start, so they run in the same superstep, and
// both write `answer`, a last-value channel.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string answer;
};

struct search_web {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::answer>(std::string("web")); }
};
struct search_docs {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::answer>(std::string("docs")); }
};

#ifdef SG_VIOLATION
using G = sg::graph<State, sg::edge<sg::start, search_web>, sg::edge<sg::start, search_docs>,
                    sg::edge<search_web, sg::end>, sg::edge<search_docs, sg::end>>;
#else
using G = sg::graph<State, sg::edge<sg::start, search_web>, sg::edge<search_web, search_docs>,
                    sg::edge<search_docs, sg::end>>;
#endif

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).answer == "docs" ? 0 : 1;
}
