// EXPECT: stream_arguments_fit_no_overload<>
// EXPECT-gcc: misuse_stream_without_arguments\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: no_arguments<stategraph::rules::stream_arguments_fit_no_overload<>>::no_arguments' requested here
// app.stream with no argument: one error naming the entry point and what it takes, at the
// call's line, not the app's type.
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
  int steps = 0;
#ifdef SG_VIOLATION
  State out = app.stream();
#else
  State out = app.stream(State{"why?", {}, {}}, sg::stream_mode::updates, [&](const sg::event<State>&) { ++steps; });
#endif
  return out.answer.empty() || steps == 0 ? 1 : 0;
}
