// W6 agent loop, 20 rounds: without a store, with each store, and by hand.
#include "workloads.hpp"

namespace bench {
namespace {
const auto plain_app = sg::compile<agent::graph>(llm{agent::rounds});
}  // namespace

AgentState w6_plain() {
  return plain_app.invoke(agent::question("how many rows match?"));
}

AgentState w6_memory(sg::memory_store& store, const sg::thread_id& thread) {
  const auto app = sg::compile<agent::graph>(llm{agent::rounds}, sg::with_store(store));
  return app.invoke(agent::question("how many rows match?"), thread);
}

AgentState w6_sqlite(sg::sqlite_store& store, const sg::thread_id& thread) {
  const auto app = sg::compile<agent::graph>(llm{agent::rounds}, sg::with_store(store));
  return app.invoke(agent::question("how many rows match?"), thread);
}

hand::agent_state w6_hand() {
  hand::agent_state s;
  s.messages.push_back(Msg{"user", "how many rows match?"});
  return hand::agent_loop(std::move(s), agent::rounds);
}

}  // namespace bench
