// EXPECT: invoke_arguments_fit_no_overload<>
// EXPECT-gcc: misuse_invoke_without_arguments\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: no_arguments<stategraph::rules::invoke_arguments_fit_no_overload<>>::no_arguments' requested here
// app.invoke with no argument: one error naming the entry point and what it takes, at the
// call's line. "No matching function" printed the app's whole type (graph, analysis, lambda
// nodes) in lines of hundreds to thousands of characters; the checker allows none over 400.
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
  State out = app.invoke();
#else
  State out = app.invoke(State{"why?", {}, {}});
#endif
  return out.answer.empty() ? 1 : 0;
}
