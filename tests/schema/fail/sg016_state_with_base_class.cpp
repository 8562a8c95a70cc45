// EXPECT: SG016
// EXPECT: SG016_state_is_not_an_aggregate<State>
// SG016: the state derives from another struct, which Boost.PFR cannot reflect.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct Common {
  std::string trace;
};

#ifdef SG_VIOLATION
struct State : Common {
#else
struct State {
  std::string trace;
#endif
  std::string question;
  std::string answer;
};

struct respond {
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::answer>(in.get<&State::question>()); }
};

using G = sg::graph<State, sg::edge<sg::start, respond>, sg::edge<respond, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  State in;
  in.question = "why";
  return app.invoke(in).answer == "why" ? 0 : 1;
}
