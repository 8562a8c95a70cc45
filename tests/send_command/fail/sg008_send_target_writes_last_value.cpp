// EXPECT: SG008
// EXPECT: SG008_nodes_that_run_together_write_one_last_value_channel<&State::latest, worker, worker>
// SG008: `worker` is a send target, so several copies of it run in one step; it must not
// write the last-value channel `latest`.
#include <stategraph/stategraph.hpp>

#include <string>
#include <vector>

namespace sg = stategraph;

struct State {
  std::vector<int> items;
  sg::counter<int> total;
#ifdef SG_VIOLATION
  std::string latest;
#else
  sg::append<std::string> latest;
#endif
};

struct worker;
struct fan {
  using reads = sg::reads<&State::items>;
  using sends = sg::sends<worker>;
  std::vector<sg::send_to<worker, int>> operator()(sg::view<State, reads> in) const {
    std::vector<sg::send_to<worker, int>> out;
    for (int x : in.get<&State::items>()) out.push_back(sg::send<worker>(x));
    return out;
  }
};
struct worker {
  using writes = sg::writes<&State::total, &State::latest>;
  auto operator()(sg::view<State, sg::reads<>>, const int& x) const {
    return sg::write<&State::total>(x) | sg::write<&State::latest>(std::to_string(x));
  }
};

using G = sg::graph<State, sg::edge<sg::start, fan>, sg::edge<worker, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{.items = {1, 2}}).total == 3 ? 0 : 1;
}
