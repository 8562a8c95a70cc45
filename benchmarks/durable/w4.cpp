// W4 loop1000 with sg::memory_store (see workloads.hpp for why each workload has its own file).
#include "workloads.hpp"

namespace bench {

State w4_memory(sg::memory_store& store, const sg::thread_id& thread) {
  // Compiling binds the app to the store; it builds no tables at run time, so doing it per
  // invocation costs what a caller holding several stores would pay.
  const auto app = sg::compile<w3::graph>(sg::with_store(store));
  return app.invoke(State{}, thread);
}

// The same run streamed in updates mode: what streaming a thread adds to W4.
State w4_memory_streamed(sg::memory_store& store, const sg::thread_id& thread, std::size_t& channels) {
  const auto app = sg::compile<w3::graph>(sg::with_store(store));
  return app.stream(State{}, thread, sg::stream_mode::updates,
                    [&](const sg::event<State>& e) { channels += e.channels.size(); });
}

}  // namespace bench
