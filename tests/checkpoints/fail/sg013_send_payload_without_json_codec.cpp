// EXPECT: SG013
// EXPECT: SG013_send_payload_has_no_json_codec<work, Job>
// SG013: a checkpointed graph sends `work` a payload (`Job`) with no JSON codec: queued
// sends are stored in the checkpoint.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <vector>

namespace sg = stategraph;

struct Job {
  int size = 0;
};
#ifndef SG_VIOLATION
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Job, size)
#endif

struct State {
  sg::counter<int> total;
};

struct work;
struct fan {
  using sends = sg::sends<work>;
  std::vector<sg::send_to<work, Job>> operator()(sg::view<State, sg::reads<>>) const {
    return {sg::send<work>(Job{1}), sg::send<work>(Job{2})};
  }
};
struct work {
  using writes = sg::writes<&State::total>;
  auto operator()(sg::view<State, sg::reads<>>, const Job& job) const { return sg::write<&State::total>(job.size); }
};

using G = sg::graph<State, sg::edge<sg::start, fan>, sg::edge<work, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  return app.invoke(State{}, sg::thread_id{"t"}).total == 3 ? 0 : 1;
}
