// What app.stream() reports: the state after each step (values), what each node wrote
// (updates), and when each node started and ended (debug).
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stategraph {

enum class stream_mode : unsigned { values = 1, updates = 2, debug = 4 };

constexpr stream_mode operator|(stream_mode a, stream_mode b) {
  return static_cast<stream_mode>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has_mode(stream_mode set, stream_mode m) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(m)) != 0;
}

enum class debug_phase { start, end, error };

template <class State>
struct event {
  stream_mode mode{};
  std::size_t step = 0;                     // 1-based superstep
  std::string_view node{};                  // updates, debug: the node's name
  std::vector<std::string_view> channels{}; // updates: the channels the node wrote, in order
  std::optional<State> values{};            // values: the state after the step
  debug_phase phase = debug_phase::start;   // debug
  std::chrono::nanoseconds duration{};      // debug, at end/error
  std::string error{};                      // debug, at error: what the exception said
  // A subgraph's event, forwarded into its parent's stream: `node` is "parent/child" and
  // `substep` the child run's own step (`step` stays the parent's). 0 for the parent's own.
  std::size_t substep = 0;
};

namespace detail {

// What a subgraph's run reports to the stream of the run it is a node of. No values: the
// child's state may be another type than the parent's.
struct child_event {
  stream_mode mode{};
  std::size_t step = 0;
  std::string_view node;
  std::vector<std::string_view> channels;
  debug_phase phase = debug_phase::start;
  std::chrono::nanoseconds duration{};
  std::string error;
};
// The events of the subgraphs that one node's task ran, in the order they happened.
struct child_events {
  stream_mode mode{};
  std::vector<child_event> events;
};
// Set by a streamed run around each of its tasks (on the thread that runs the task), read
// by sg::subgraph; null when no stream is listening.
inline thread_local child_events* current_child_events = nullptr;
class child_events_scope {
 public:
  explicit child_events_scope(child_events* e) noexcept : saved_(std::exchange(current_child_events, e)) {}
  ~child_events_scope() { current_child_events = saved_; }
  child_events_scope(const child_events_scope&) = delete;
  child_events_scope& operator=(const child_events_scope&) = delete;

 private:
  child_events* saved_;
};

// A stable string_view for a name made at run time ("parent/child", nested any depth):
// events hold names as views, and the set of node paths of a program is finite.
inline std::string_view intern(std::string name) {
  static std::mutex guard;
  static std::set<std::string, std::less<>> names;
  std::lock_guard lock(guard);
  return *names.insert(std::move(name)).first;
}

}  // namespace detail

}  // namespace stategraph
