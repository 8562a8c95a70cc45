// EXPECT: SG001
// EXPECT: SG001_reads_undeclared_channel<&State::tags, stategraph::reads<&State::intent> ?>
// SG001: the node reads `tags`, but its `reads` lists only `intent`.
#include <stategraph/stategraph.hpp>

#include <set>
#include <string>

namespace sg = stategraph;

struct State {
  std::string intent;
  sg::reduced<std::set<std::string>, sg::set_union> tags;
};

struct classify {
#ifdef SG_VIOLATION
  using reads = sg::reads<&State::intent>;
#else
  using reads = sg::reads<&State::intent, &State::tags>;
#endif
  using writes = sg::writes<&State::intent>;
  auto operator()(sg::view<State, reads> in) const {
    auto seen = in.get<&State::tags>();
    return sg::write<&State::intent>(in.get<&State::intent>() + std::to_string(seen.size()));
  }
};

using G = sg::graph<State, sg::edge<sg::start, classify>, sg::edge<classify, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).intent.empty() ? 1 : 0;
}
