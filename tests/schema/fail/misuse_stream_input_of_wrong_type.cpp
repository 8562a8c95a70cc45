// EXPECT: run_input_is_neither_the_state_nor_a_patch<const char ?\*, State>
// EXPECT-gcc: misuse_stream_input_of_wrong_type\.cpp:[0-9]+:[0-9]+: +required from here
// A stream with an input of the wrong type (a string where the state goes): one error, in
// short lines, as for invoke.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string question;
  sg::append<std::string> log;
};

struct plan {
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::log>(in.get<&State::question>()); }
};

using G = sg::graph<State, sg::edge<sg::start, plan>, sg::edge<plan, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  int events = 0;
#ifdef SG_VIOLATION
  app.stream("why?", sg::stream_mode::updates, [&](const sg::event<State>&) { ++events; });
#else
  app.stream(State{"why?", {}}, sg::stream_mode::updates, [&](const sg::event<State>&) { ++events; });
#endif
  return events == 1 ? 0 : 1;
}
