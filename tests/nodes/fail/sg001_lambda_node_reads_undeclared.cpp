// EXPECT: SG001
// EXPECT: SG001_node_reads_undeclared_channel<answer_tag, &State::attempts, stategraph::reads<&State::question> ?>
// EXPECT-gcc: sg001_lambda_node_reads_undeclared\.cpp:[0-9]+:[0-9]+: +required from .*lambda
// SG001 for a generic lambda node: the read is found while sg::compile checks the node,
// which hands it a view that knows the node, so the message names its tag.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string question;
  sg::counter<int> attempts;
  std::string answer;
};

struct answer_tag {};

#ifdef SG_VIOLATION
using answer_reads = sg::reads<&State::question>;
#else
using answer_reads = sg::reads<&State::question, &State::attempts>;
#endif

using G = sg::graph<State, sg::edge<sg::start, answer_tag>, sg::edge<answer_tag, sg::end>>;

int main() {
  auto answer = sg::node<answer_tag, sg::any_stage, answer_reads, sg::writes<&State::answer>>([](auto in) {
    int tries = in.template get<&State::attempts>();
    return sg::write<&State::answer>(in.template get<&State::question>() + " #" + std::to_string(tries));
  });
  auto app = sg::compile<G>(answer);
  return app.invoke(State{.question = "why"}).answer == "why #0" ? 0 : 1;
}
