// EXPECT: second_argument_is_neither_a_named_context_nor_a_run_config<app_context>
// EXPECT-gcc: misuse_invoke_context_temporary\.cpp:[0-9]+:[0-9]+: +required from here
// A context passed as a temporary (nodes take it as Ctx&, so it must be a named object):
// one error naming the argument's type, in short lines, instead of "no matching function"
// printing the app's whole type and a second error about binding the reference.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string text;
  sg::append<std::string> log;
};

struct app_context {
  int budget = 3;
};

struct note {
  using reads = sg::reads<&State::text>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in, app_context& ctx) const {
    --ctx.budget;
    return sg::write<&State::log>(in.get<&State::text>());
  }
};

using G = sg::graph<State, sg::edge<sg::start, note>, sg::edge<note, sg::end>>;

int main() {
  auto app = sg::compile<G>();
#ifdef SG_VIOLATION
  State out = app.invoke(State{"hi", {}}, app_context{});
#else
  app_context ctx;
  State out = app.invoke(State{"hi", {}}, ctx);
#endif
  return out.log.size() == 1 ? 0 : 1;
}
