// EXPECT: SG013
// EXPECT: SG013_channel_value_has_no_json_codec<.*blob.*, Blob>
// SG013: a checkpointed graph has a channel (`blob`) whose value type has no JSON codec.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <string>

namespace sg = stategraph;

struct Blob {
  int size = 0;
};
#ifndef SG_VIOLATION
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Blob, size)
#endif

struct State {
  std::string name;
  Blob blob;
};

struct fill {
  using writes = sg::writes<&State::blob>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::blob>(Blob{42}); }
};

using G = sg::graph<State, sg::edge<sg::start, fill>, sg::edge<fill, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  return app.invoke(State{}, sg::thread_id{"t"}).blob.size == 42 ? 0 : 1;
}
