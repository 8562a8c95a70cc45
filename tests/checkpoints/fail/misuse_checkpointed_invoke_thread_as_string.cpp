// EXPECT: checkpointed_invoke_arguments_fit_no_overload<State, char ?\[2\]>
// EXPECT-gcc: misuse_checkpointed_invoke_thread_as_string\.cpp:[0-9]+:[0-9]+: +required from here
// A thread named by a string where sg::thread_id goes: one error naming the arguments'
// types and what a checkpointed invoke takes, where "no matching function" printed the
// checkpointed app's whole type (the plain app's, the store's) in each candidate's note.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

namespace sg = stategraph;

struct State {
  sg::counter<int> n;
};

struct bump {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::n>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::n>(1); }
};

using G = sg::graph<State, sg::edge<sg::start, bump>, sg::edge<bump, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
#ifdef SG_VIOLATION
  State out = app.invoke(State{}, "t");
#else
  State out = app.invoke(State{}, sg::thread_id{"t"});
#endif
  return out.n == 1 ? 0 : 1;
}
