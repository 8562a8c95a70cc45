// EXPECT: SG002
// EXPECT: SG002_node_writes_undeclared_channel<classify_tag, &State::tags>
// SG002 for a lambda node: the graph names the tag, and so does the message.
#include <stategraph/stategraph.hpp>

#include <set>
#include <string>

namespace sg = stategraph;

struct State {
  std::string intent;
  sg::reduced<std::set<std::string>, sg::set_union> tags;
};

struct classify_tag {};

#ifdef SG_VIOLATION
using classify_writes = sg::writes<&State::intent>;
#else
using classify_writes = sg::writes<&State::intent, &State::tags>;
#endif

using G = sg::graph<State, sg::edge<sg::start, classify_tag>, sg::edge<classify_tag, sg::end>>;

int main() {
  auto classify = sg::node<classify_tag, sg::any_stage, sg::reads<>, classify_writes>([](auto) {
    return sg::write<&State::intent>(std::string("question")) | sg::write<&State::tags>(std::string("faq"));
  });
  auto app = sg::compile<G>(classify);
  return app.invoke(State{}).intent == "question" ? 0 : 1;
}
