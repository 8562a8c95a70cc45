#include <stategraph/stategraph.hpp>

#include <cstdio>

namespace sg = stategraph;

struct State {
  sg::counter<int> steps;
};

struct tick {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::steps>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::steps>(1); }
};
struct tock : tick {};
struct done : tick {};

using chain = sg::graph<State, sg::edge<sg::start, tick>, sg::edge<tick, tock>, sg::edge<tock, done>,
                        sg::edge<done, sg::end>>;

int main() {
  auto app = sg::compile<chain>();
  State out = app.invoke(State{});
  std::printf("consumer: %d steps\n", static_cast<int>(out.steps));
  return out.steps == 3 ? 0 : 1;
}
