// What app.stream() reports: the state after each step (values), what each node wrote
// (updates), when each node started and ended (debug), each checkpoint a checkpointed run
// commits (checkpoints), and what nodes emit through their context (custom).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stategraph {

enum class stream_mode : unsigned { values = 1, updates = 2, debug = 4, checkpoints = 8, custom = 16 };

constexpr stream_mode operator|(stream_mode a, stream_mode b) {
  return static_cast<stream_mode>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has_mode(stream_mode set, stream_mode m) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(m)) != 0;
}

enum class debug_phase { start, end, error };

// A checkpoint as a checkpointed run committed it (stream_mode::checkpoints).
struct checkpoint_event {
  std::int64_t id = 0;
  std::int64_t parent_id = 0;
  std::int64_t step = 0;                  // the thread's step counter, as in its snapshot
  std::string_view source{};              // "input", "loop", "update" or "fork"
  std::vector<std::string_view> next{};   // the nodes that run next, in node order
};

template <class State, class Custom = void>
struct event;

template <class State>
struct event<State, void> {
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
  checkpoint_event checkpoint{};            // checkpoints: the checkpoint just committed
};

// The event of a run whose context emits events of type Custom (sg::emitter<Custom>): in
// custom mode, `node` is the node that emitted and `custom` what it emitted.
template <class State, class Custom>
struct event : event<State, void> {
  std::optional<Custom> custom{};
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

// Where sg::emitter<T>::emit puts a value: the buffer of the task that runs, set by a run
// streamed in custom mode around each task (on the thread that runs it); null otherwise.
template <class T>
struct custom_buffer {
  std::vector<T> values;
  std::mutex guard;  // the tasks of one node's sends may run at once
};
template <class T>
inline thread_local custom_buffer<T>* current_custom = nullptr;

template <class Ctx>
struct custom_of {
  using type = void;
};
template <class Ctx>
  requires requires { typename Ctx::custom_event_type; }
struct custom_of<Ctx> {
  using type = typename Ctx::custom_event_type;
};

}  // namespace detail

// A context that derives from sg::emitter<T> lets its nodes call ctx.emit(value): a run
// streamed with stream_mode::custom reports each value as an event<State, T>; any other
// run drops it. A context without it pays nothing.
template <class T>
struct emitter {
  using custom_event_type = T;
  void emit(T value) const {
    if (auto* b = detail::current_custom<T>) {
      std::lock_guard lock(b->guard);
      b->values.push_back(std::move(value));
    }
  }
};

// The event type a stream with context Ctx reports.
template <class State, class Ctx>
using event_for = event<State, typename detail::custom_of<Ctx>::type>;

}  // namespace stategraph
