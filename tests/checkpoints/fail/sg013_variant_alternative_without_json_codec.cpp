// EXPECT: SG013
// EXPECT: SG013_channel_value_has_no_json_codec<.*shape.*, std::variant<int, Circle>
// SG013: a channel is a std::variant one of whose alternatives (`Circle`) has no JSON codec;
// a variant is codable exactly when all its alternatives are.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <variant>

namespace sg = stategraph;

struct Circle {
  double radius = 0;
  friend bool operator==(const Circle&, const Circle&) = default;
};
#ifndef SG_VIOLATION
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Circle, radius)
#endif

struct State {
  std::variant<int, Circle> shape;
};

struct draw {
  using writes = sg::writes<&State::shape>;
  auto operator()(sg::view<State, sg::reads<>>) const {
    return sg::write<&State::shape>(std::variant<int, Circle>(Circle{2.0}));
  }
};

using G = sg::graph<State, sg::edge<sg::start, draw>, sg::edge<draw, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  return app.invoke(State{}, sg::thread_id{"t"}).shape.index() == 1 ? 0 : 1;
}
