// EXPECT: SG014
// EXPECT-gcc: SG014_partial_input_names_channel_twice<&State::turn>
// EXPECT-clang: SG014_partial_input_names_channel_twice<&State::turn>
// SG014: the partial input names `turn` twice.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string mode;
  sg::counter<int> turn;
};

struct echo {
  using reads = sg::reads<&State::turn>;
  using writes = sg::writes<&State::mode>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::mode>(std::to_string(in.get<&State::turn>())); }
};

using G = sg::graph<State, sg::edge<sg::start, echo>, sg::edge<echo, sg::end>>;

int main() {
  auto app = sg::compile<G>();
#ifdef SG_VIOLATION
  State out = app.invoke(sg::write<&State::turn>(1) | sg::write<&State::mode>("x") | sg::write<&State::turn>(2));
#else
  State out = app.invoke(sg::write<&State::turn>(1) | sg::write<&State::mode>("x"));
#endif
  return out.mode == "1" ? 0 : 1;
}
