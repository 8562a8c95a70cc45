// EXPECT: SG013
// EXPECT: SG013_node_write_has_no_json_codec<greet, &State::name, std::basic_string_view<char
// SG013: a node of a checkpointed graph writes a std::string_view into a std::string
// channel. The channel has a codec, but the write itself is stored when its step fails or
// pauses, and a view read back would point into freed text.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <string>
#include <string_view>

namespace sg = stategraph;

struct State {
  std::string name;
};

struct greet {
  using writes = sg::writes<&State::name>;
  auto operator()(sg::view<State, sg::reads<>>) const {
#ifdef SG_VIOLATION
    return sg::write<&State::name>(std::string_view("hello"));
#else
    return sg::write<&State::name>(std::string("hello"));
#endif
  }
};

using G = sg::graph<State, sg::edge<sg::start, greet>, sg::edge<greet, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  return app.invoke(State{}, sg::thread_id{"t"}).name == "hello" ? 0 : 1;
}
