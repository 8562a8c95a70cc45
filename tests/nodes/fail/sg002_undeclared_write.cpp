// EXPECT: SG002
// EXPECT: SG002_node_writes_undeclared_channel<classify, &State::tags>
// SG002: the node's patch writes `tags`, but its `writes` lists only `intent`.
#include <stategraph/stategraph.hpp>

#include <set>
#include <string>

namespace sg = stategraph;

struct State {
  std::string intent;
  sg::reduced<std::set<std::string>, sg::set_union> tags;
};

struct classify {
  using reads = sg::reads<>;
#ifdef SG_VIOLATION
  using writes = sg::writes<&State::intent>;
#else
  using writes = sg::writes<&State::intent, &State::tags>;
#endif
  auto operator()(sg::view<State, reads>) const {
    return sg::write<&State::intent>(std::string("question")) | sg::write<&State::tags>(std::string("faq"));
  }
};

using G = sg::graph<State, sg::edge<sg::start, classify>, sg::edge<classify, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).intent == "question" ? 0 : 1;
}
