// The checkpointed workloads W4–W7 of shared/design/benchmarks.md:
//
//   W4  W3's loop1000 with sg::memory_store: a checkpoint after the input and every step
//   W5  the same loop for 200 steps with sg::sqlite_store (a file, WAL), against the raw
//       SQLite insert of the same bytes per step: the limit of any SQLite-backed store
//   W6  an agent loop, llm ⇄ tools for 20 rounds, the messages channel growing by one
//       Msg{role, content} per step; a fake model, so the figure is the framework's cost
//   W7  W6's loop for 500 turns on one SQLite thread (long_thread.cpp)
//
// W4 and W5 reuse W3's state and `step` node (runtime/workloads.hpp), so the only
// difference from W3 is the store. Each workload has its own translation unit, as in
// runtime/ (see benchmarks/README.md for why).
#pragma once

#include "../runtime/workloads.hpp"

#include <stategraph/checkpoint.hpp>
#include <stategraph/store/memory.hpp>
#include <stategraph/store/sqlite.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

// ---- W4, W5: W3's loop with a store ------------------------------------------------------

// W3's router with the number of rounds as a parameter (W5 runs 200).
template <int Rounds>
struct again_until {
  using reads = sg::reads<&State::counter>;
  sg::go<w3::step, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::counter>() < Rounds) return sg::to<w3::step>;
    return sg::to<sg::end>;
  }
};

namespace w5 {
inline constexpr int rounds = 200;
inline constexpr std::size_t supersteps = rounds;
using graph = sg::graph<State, sg::edge<sg::start, w3::step>, sg::branch<w3::step, again_until<rounds>>>;
}  // namespace w5

// One invocation on a fresh thread of `store` (the caller names the thread). The W4 store
// is in memory; W5's is a SQLite file the caller opened.
State w4_memory(sg::memory_store& store, const sg::thread_id& thread);
// W4 streamed in updates mode; adds the number of channels the events named to `channels`.
State w4_memory_streamed(sg::memory_store& store, const sg::thread_id& thread, std::size_t& channels);
State w5_sqlite(sg::sqlite_store& store, const sg::thread_id& thread);
// W5 with sg::durability::async: each checkpoint commits while the next step runs.
State w5_sqlite_async(sg::sqlite_store& store, const sg::thread_id& thread);

struct put_record;
// The puts of one W5 invocation as the store receives them (sizes; with keep_texts, the
// bytes): what the raw insert writes, and the bytes-per-step figures.
std::vector<put_record> w5_record(bool keep_texts);

// The limit for W5: the same bytes per step written by hand into SQLite, one transaction
// and one row per checkpoint, with the store's journal mode (WAL) and synchronous setting.
class raw_sqlite {
 public:
  explicit raw_sqlite(const std::string& path);
  ~raw_sqlite();
  raw_sqlite(const raw_sqlite&) = delete;
  raw_sqlite& operator=(const raw_sqlite&) = delete;
  // Inserts each of `rows` in its own transaction; returns the last row's id.
  std::int64_t insert_each(const std::vector<std::string>& rows);

 private:
  struct impl;
  impl* impl_;
};

// ---- W6, W7: the agent loop ---------------------------------------------------------------

struct Msg {
  std::string role, content;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Msg, role, content)

struct AgentState {
  sg::append<Msg> messages;
  sg::counter<int> calls;  // model calls
};

// The fake model: it asks for a tool until `rounds` tool results follow the last user
// message, then answers. It makes its text as a model's client would (a new string per
// reply), so each step appends one message of a few dozen bytes.
struct llm {
  int rounds = 20;
  using reads = sg::reads<&AgentState::messages>;
  using writes = sg::writes<&AgentState::messages, &AgentState::calls>;
  auto operator()(sg::view<AgentState, reads> in) const;
};
struct tools {
  using reads = sg::reads<&AgentState::messages>;
  using writes = sg::writes<&AgentState::messages>;
  auto operator()(sg::view<AgentState, reads> in) const;
};
struct route {
  using reads = sg::reads<&AgentState::messages>;
  sg::go<tools, sg::end> operator()(sg::view<AgentState, reads> in) const;
};

namespace agent {
inline constexpr int rounds = 20;  // W6
// A round is llm then tools; the last llm call answers: 2 * rounds + 1 supersteps.
constexpr std::size_t supersteps(int rounds) {
  return 2 * static_cast<std::size_t>(rounds) + 1;
}
using graph = sg::graph<AgentState, sg::edge<sg::start, llm>, sg::branch<llm, route>, sg::edge<tools, llm>>;

inline bool asks_for_tool(const Msg& m) {
  return m.role == "ai" && m.content.starts_with("call ");
}
// Tool results since the last user message: how far the current turn has gone.
inline int tool_results_this_turn(const std::vector<Msg>& messages) {
  int n = 0;
  for (auto it = messages.rbegin(); it != messages.rend() && it->role != "user"; ++it) n += it->role == "tool";
  return n;
}
inline Msg model_reply(int done, int rounds) {
  if (done < rounds) return {"ai", "call lookup(query=\"item " + std::to_string(done + 1) + "\", limit=5)"};
  return {"ai", "final answer after " + std::to_string(done) + " tool calls: 42"};
}
inline Msg tool_result(const Msg& call) {
  return {"tool", "result for " + call.content.substr(5) + ": 42 rows"};
}
inline AgentState question(std::string text) {
  return AgentState{.messages = {Msg{"user", std::move(text)}}, .calls = {}};
}
}  // namespace agent

inline auto llm::operator()(sg::view<AgentState, reads> in) const {
  return sg::write<&AgentState::messages>(
             agent::model_reply(agent::tool_results_this_turn(in.get<&AgentState::messages>()), rounds)) |
         sg::write<&AgentState::calls>(1);
}
inline auto tools::operator()(sg::view<AgentState, reads> in) const {
  return sg::write<&AgentState::messages>(agent::tool_result(in.get<&AgentState::messages>().back()));
}
inline sg::go<tools, sg::end> route::operator()(sg::view<AgentState, reads> in) const {
  if (agent::asks_for_tool(in.get<&AgentState::messages>().back())) return sg::to<tools>;
  return sg::to<sg::end>;
}

// The same loop by hand: each node returns its message, the merge is a push_back.
namespace hand {
struct agent_state {
  std::vector<Msg> messages;
  int calls = 0;
};
inline agent_state agent_loop(agent_state s, int rounds) {
  for (;;) {
    Msg reply = agent::model_reply(agent::tool_results_this_turn(s.messages), rounds);
    s.messages.push_back(std::move(reply));
    s.calls += 1;
    if (!agent::asks_for_tool(s.messages.back())) return s;
    Msg result = agent::tool_result(s.messages.back());
    s.messages.push_back(std::move(result));
  }
}
}  // namespace hand

// One W6 invocation (20 rounds) without a store, on a fresh thread of a store, by hand.
AgentState w6_plain();
AgentState w6_memory(sg::memory_store& store, const sg::thread_id& thread);
AgentState w6_sqlite(sg::sqlite_store& store, const sg::thread_id& thread);
hand::agent_state w6_hand();

}  // namespace bench
