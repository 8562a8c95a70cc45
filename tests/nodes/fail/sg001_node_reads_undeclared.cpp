// EXPECT: SG001
// EXPECT: SG001_reads_undeclared_channel<&State::attempts, stategraph::reads<&State::question> ?>
// EXPECT-gcc: sg001_node_reads_undeclared\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: sg001_node_reads_undeclared\.cpp:[0-9]+:[0-9]+: note: in instantiation of .*view<.*>::get<&State::attempts>' requested here
// SG001: the node reads `attempts`, but its `reads` lists only `question`. The message
// names the channel and the declared reads; the node is where the location points.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string question;
  sg::counter<int> attempts;
  std::string answer;
};

struct answer {
#ifdef SG_VIOLATION
  using reads = sg::reads<&State::question>;
#else
  using reads = sg::reads<&State::question, &State::attempts>;
#endif
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<State, reads> in) const {
    int tries = in.get<&State::attempts>();
    return sg::write<&State::answer>(in.get<&State::question>() + " #" + std::to_string(tries));
  }
};

using G = sg::graph<State, sg::edge<sg::start, answer>, sg::edge<answer, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{.question = "why"}).answer == "why #0" ? 0 : 1;
}
