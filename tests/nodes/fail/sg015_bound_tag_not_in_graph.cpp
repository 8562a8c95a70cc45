// EXPECT: SG015
// EXPECT: SG015_bound_tag_is_not_a_node_of_the_graph<review_tag>
// SG015: a lambda node is bound to review_tag, which no edge of the graph names.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string question;
  std::string answer;
};

struct answer_tag {};
struct review_tag {};

using G = sg::graph<State, sg::edge<sg::start, answer_tag>, sg::edge<answer_tag, sg::end>>;

int main() {
  auto answer = sg::node<answer_tag, sg::any_stage, sg::reads<&State::question>, sg::writes<&State::answer>>(
      [](auto in) { return sg::write<&State::answer>(in.template get<&State::question>()); });
  auto review = sg::node<review_tag, sg::any_stage, sg::reads<>, sg::writes<&State::answer>>(
      [](auto) { return sg::write<&State::answer>(std::string("reviewed")); });
#ifdef SG_VIOLATION
  auto app = sg::compile<G>(answer, review);
#else
  auto app = sg::compile<G>(answer);
  (void)review;
#endif
  return app.invoke(State{.question = "hi"}).answer == "hi" ? 0 : 1;
}
