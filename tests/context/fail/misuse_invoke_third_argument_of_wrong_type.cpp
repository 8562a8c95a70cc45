// EXPECT: invoke_arguments_fit_no_overload<State, app_context, int>
// EXPECT-gcc: misuse_invoke_third_argument_of_wrong_type\.cpp:[0-9]+:[0-9]+: +required from here
// A third argument that is not a run_config: one error naming the arguments' types, where
// "no matching function" printed the app's whole type.
#include <stategraph/stategraph.hpp>

namespace sg = stategraph;

struct State {
  int n = 0;
};

struct app_context {
  int step = 2;
};

struct bump {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::n>;
  auto operator()(sg::view<State, reads> in, app_context& ctx) const {
    return sg::write<&State::n>(in.get<&State::n>() + ctx.step);
  }
};

using G = sg::graph<State, sg::edge<sg::start, bump>, sg::edge<bump, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  app_context ctx;
#ifdef SG_VIOLATION
  State out = app.invoke(State{}, ctx, 100);
#else
  State out = app.invoke(State{}, ctx, sg::run_config{.recursion_limit = 100});
#endif
  return out.n == 2 ? 0 : 1;
}
