// EXPECT: SG001
// EXPECT: SG001_node_reads_undeclared_channel<answer, &State::attempts, stategraph::reads<&State::question> ?>
// EXPECT-gcc: sg001_view_for_node_reads_undeclared\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: sg001_view_for_node_reads_undeclared\.cpp:[0-9]+:[0-9]+: note: in instantiation of .*view<.*answer>::get<&State::attempts>' requested here
// SG001 naming the node in a non-generic call operator: `answer` takes
// sg::view_for<State, answer>, the view that names it, and reads `attempts`, which its
// `reads` does not list.
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
  auto operator()(sg::view_for<State, answer> in) const {
    int tries = in.get<&State::attempts>();
    return sg::write<&State::answer>(in.get<&State::question>() + " #" + std::to_string(tries));
  }
};

using G = sg::graph<State, sg::edge<sg::start, answer>, sg::edge<answer, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{.question = "why"}).answer == "why #0" ? 0 : 1;
}
