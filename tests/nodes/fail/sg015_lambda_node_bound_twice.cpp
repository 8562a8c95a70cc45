// EXPECT: SG015
// EXPECT: SG015_node_bound_twice<answer_tag>
// SG015: two lambda nodes are bound to the tag answer_tag; one of them would be dropped.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string question;
  std::string answer;
};

struct answer_tag {};

using G = sg::graph<State, sg::edge<sg::start, answer_tag>, sg::edge<answer_tag, sg::end>>;

int main() {
  using answer_writes = sg::writes<&State::answer>;
  auto echo = sg::node<answer_tag, sg::any_stage, sg::reads<&State::question>, answer_writes>(
      [](auto in) { return sg::write<&State::answer>(in.template get<&State::question>()); });
  auto shout = sg::node<answer_tag, sg::any_stage, sg::reads<&State::question>, answer_writes>(
      [](auto in) { return sg::write<&State::answer>(in.template get<&State::question>() + "!"); });
#ifdef SG_VIOLATION
  auto app = sg::compile<G>(echo, shout);
#else
  auto app = sg::compile<G>(shout);
  (void)echo;
#endif
  return app.invoke(State{.question = "hi"}).answer == "hi!" ? 0 : 1;
}
