// EXPECT: SG001
// EXPECT: SG001_node_reads_undeclared_channel<answer, &State::attempts, stategraph::reads<&State::question> ?>
// EXPECT-gcc: sg001_generic_node_reads_undeclared\.cpp:[0-9]+:[0-9]+: +required from .*answer::operator\(\)
// SG001 naming the node: `answer` has a generic call operator (`auto in`), which the library
// instantiates with a view that knows its node. (A call operator taking
// sg::view<State, reads> is checked where it is parsed, before any graph names the node: its
// message names the channel and the reads, and its location is the line of the read.)
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
  auto operator()(auto in) const {
    int tries = in.template get<&State::attempts>();
    return sg::write<&State::answer>(in.template get<&State::question>() + " #" + std::to_string(tries));
  }
};

using G = sg::graph<State, sg::edge<sg::start, answer>, sg::edge<answer, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{.question = "why"}).answer == "why #0" ? 0 : 1;
}
