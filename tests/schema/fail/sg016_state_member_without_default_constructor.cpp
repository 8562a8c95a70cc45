// EXPECT: SG016
// EXPECT: SG016_state_member_has_no_default_constructor<State, .*value\.(State::)?db.*, connection>
// SG016: a run starts from `State{}`, and the member `db` has no default constructor.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct connection {
#ifdef SG_VIOLATION
  explicit connection(int p) : port(p) {}
#endif
  int port = 0;
};

struct State {
  std::string question;
  std::string answer;
  connection db;
};

struct respond {
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::answer>(in.get<&State::question>()); }
};

using G = sg::graph<State, sg::edge<sg::start, respond>, sg::edge<respond, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{"why", "", connection{5432}}).answer == "why" ? 0 : 1;
}
