// EXPECT: SG010
// EXPECT: SG010_sends_to_undeclared_target<fan, worker>
// SG010: `fan` returns sends to `worker`, which its `sends` does not list.
#include <stategraph/stategraph.hpp>

#include <vector>

namespace sg = stategraph;

struct State {
  std::vector<int> items;
  sg::counter<int> total;
};

struct worker;
struct other {
  using writes = sg::writes<&State::total>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::total>(0); }
};
struct fan {
  using reads = sg::reads<&State::items>;
#ifdef SG_VIOLATION
  using sends = sg::sends<other>;
#else
  using sends = sg::sends<worker, other>;
#endif
  std::vector<sg::send_to<worker, int>> operator()(sg::view<State, reads> in) const {
    std::vector<sg::send_to<worker, int>> out;
    for (int x : in.get<&State::items>()) out.push_back(sg::send<worker>(x));
    return out;
  }
};
struct worker {
  using writes = sg::writes<&State::total>;
  auto operator()(sg::view<State, sg::reads<>>, const int& x) const { return sg::write<&State::total>(x); }
};

using G = sg::graph<State, sg::edge<sg::start, fan>, sg::edge<worker, sg::end>, sg::edge<other, sg::end>,
                    sg::edge<fan, other>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{.items = {1, 2}}).total == 3 ? 0 : 1;
}
