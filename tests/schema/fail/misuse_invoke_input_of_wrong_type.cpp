// EXPECT: run_input_is_neither_the_state_nor_a_patch<int, State>
// EXPECT-gcc: misuse_invoke_input_of_wrong_type\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: misuse_invoke_input_of_wrong_type\.cpp:[0-9]+:[0-9]+: note: in instantiation of .*wrong_call_of<stategraph::rules::invoke_call<State>>
// A run input of the wrong type (an int where the state goes): one error naming the input
// type and the state, at the call's line. Without the library's catch-all, "no matching
// function" printed the app's whole type (graph, analysis, lambda nodes) in lines of about
// a thousand characters; the checker allows none over 400.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string question;
  sg::append<std::string> log;
  std::string answer;
};

struct plan {
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::log>(in.get<&State::question>()); }
};
struct review {
  using reads = sg::reads<&State::log>;
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::answer>(in.get<&State::log>().back()); }
};
struct draft_tag {};

using G = sg::graph<State, sg::edge<sg::start, plan>, sg::edge<plan, draft_tag>, sg::edge<draft_tag, review>,
                    sg::edge<review, sg::end>>;

int main() {
  auto app = sg::compile<G>(sg::node<draft_tag, sg::any_stage, sg::reads<&State::question>, sg::writes<&State::log>>(
      [](auto in) { return sg::write<&State::log>("draft: " + in.template get<&State::question>()); }));
#ifdef SG_VIOLATION
  State out = app.invoke(42);
#else
  State out = app.invoke(State{"why?", {}, {}});
#endif
  return out.answer.empty() ? 1 : 0;
}
