// EXPECT: SG017
// EXPECT: SG017_reducer_does_not_fit_its_channel<.*value\.(State::)?best.*, keep_max, int>
// SG017: the reducer of `best`, a channel of int, takes a string as the current value. The
// rule names the reducer; the node's write is not blamed (SG004).
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct keep_max {
#ifdef SG_VIOLATION
  int operator()(const std::string& current, int written) const {
    return written > static_cast<int>(current.size()) ? written : 0;
  }
#else
  int operator()(int current, int written) const { return written > current ? written : current; }
#endif
};

struct State {
  std::string question;
  sg::reduced<int, keep_max> best;
};

struct score {
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::best>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::best>(static_cast<int>(in.get<&State::question>().size()));
  }
};

using G = sg::graph<State, sg::edge<sg::start, score>, sg::edge<score, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{.question = "why"}).best == 3 ? 0 : 1;
}
