// Streamed runs: the observer that turns a run's steps into events, and the input range of
// app::stream that runs a step each time it reaches the end of what it has. The range is a
// range-v3 view (it derives from ranges::view_base, so it pipes into range-v3 adaptors) but
// is written by hand: range-v3's view_facade is costly to compile, and every unit that
// includes stategraph would pay for it, whether it streamed or not.
#pragma once

#include <stategraph/engine/apply.hpp>
#include <stategraph/errors.hpp>
#include <stategraph/events.hpp>
#include <stategraph/run_options.hpp>

#include <range/v3/range_fwd.hpp>

#include <array>
#include <cstddef>
#include <deque>
#include <iterator>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph::detail {

// Turns the steps of a run into events, in a deterministic order: per step, each node's
// debug start, the events its subgraphs and its own emit (custom) reported, its debug end
// (in node order), then the updates, then the checkpoint (a checkpointed run), then the state.
template <class State, std::size_t N, class Sink, class Custom = void>
struct streamer {
  static constexpr bool streams = true;
  static constexpr bool persists = false;
  using event_type = event<State, Custom>;
  stream_mode mode;
  const std::array<std::string_view, N>& names;
  Sink& sink;
  std::vector<std::string_view> spare{};
  // What each node emitted in the step (custom mode), kept per node so that the step
  // reports them in node order whatever the executor.
  struct no_custom {};
  [[no_unique_address]] std::conditional_t<std::is_void_v<Custom>, no_custom,
                                           std::array<custom_buffer<std::conditional_t<std::is_void_v<Custom>, int, Custom>>, N>>
      custom{};

  void emit(event<State>&& e) {
    if constexpr (std::is_void_v<Custom>)
      sink(std::move(e));
    else
      sink(event_type{std::move(e), {}});
  }

  // Set around each task of node i (app::run_tasks): where ctx.emit puts its values.
  auto custom_scope(std::size_t i) {
    if constexpr (std::is_void_v<Custom>) {
      return no_custom{};
    } else {
      struct scope {
        custom_buffer<Custom>* saved;
        explicit scope(custom_buffer<Custom>* b) : saved(std::exchange(current_custom<Custom>, b)) {}
        ~scope() { current_custom<Custom> = saved; }
        scope(const scope&) = delete;
        scope& operator=(const scope&) = delete;
      };
      return scope(has_mode(mode, stream_mode::custom) ? &custom[i] : nullptr);
    }
  }

  template <class Set, class Failures, class Took, class Children>
  void tasks(std::size_t step, const Set& active, const Failures& failures, const Took& took, Children& children) {
    const bool debug = has_mode(mode, stream_mode::debug);
    for (std::size_t i = 0; i < N; ++i) {
      if constexpr (!std::is_void_v<Custom>) {
        // A send target's emits are reported even when it ran only as a send.
        if (!active.test(i) && !custom[i].values.empty()) flush_custom(step, i);
      }
      if (!active.test(i)) continue;
      if (debug) {
        event<State> start{.mode = stream_mode::debug, .step = step, .node = names[i]};
        start.phase = debug_phase::start;
        emit(std::move(start));
      }
      // A subgraph's own events come between its start and its end.
      for (auto& c : children[i].events) {
        event<State> e{.mode = c.mode, .step = step, .node = c.node, .channels = std::move(c.channels)};
        e.phase = c.phase;
        e.duration = c.duration;
        e.error = std::move(c.error);
        e.substep = c.step;
        emit(std::move(e));
      }
      if constexpr (!std::is_void_v<Custom>) flush_custom(step, i);
      if (!debug) continue;
      event<State> end{.mode = stream_mode::debug, .step = step, .node = names[i]};
      end.phase = failures[i] ? debug_phase::error : debug_phase::end;
      end.duration = took[i];
      if (failures[i]) end.error = node_error(names[i], step, failures[i]).what();
      emit(std::move(end));
    }
  }
  void flush_custom(std::size_t step, std::size_t i) {
    if constexpr (!std::is_void_v<Custom>) {
      for (auto& v : custom[i].values) {
        event_type e{event<State>{.mode = stream_mode::custom, .step = step, .node = names[i]}, {}};
        e.custom.emplace(std::move(v));
        sink(std::move(e));
      }
      custom[i].values.clear();
    }
  }
  // A node's update: the names of the channels its patch writes, in a buffer that goes
  // back to the streamer once the callback has seen the event (no allocation per event).
  template <class Patch>
  void update(std::size_t step, std::string_view node, const Patch& patch) {
    if (!has_mode(mode, stream_mode::updates)) return;
    event_type e{};
    e.mode = stream_mode::updates;
    e.step = step;
    e.node = node;
    e.channels = std::move(spare);
    e.channels.clear();
    written_channels_into<State>(patch, e.channels);
    sink(std::move(e));
    spare = std::move(e.channels);  // empty if the sink kept the event
  }
  void values(std::size_t step, const State& state) {
    if (!has_mode(mode, stream_mode::values)) return;
    event<State> e{.mode = stream_mode::values, .step = step};
    e.values = state;
    emit(std::move(e));
  }
  void checkpoint(std::size_t step, checkpoint_event&& c) {
    if (!has_mode(mode, stream_mode::checkpoints)) return;
    event<State> e{.mode = stream_mode::checkpoints, .step = step};
    e.checkpoint = std::move(c);
    emit(std::move(e));
  }
};

// The shared state of a streamed run that a range walks through step by step.
template <class App, class Ctx>
struct stream_session {
  using state_type = typename App::state_type;
  const App& app;
  Ctx context{};
  run_config config;
  stream_mode mode;
  state_type state{};
  typename App::position_type at{};
  std::deque<event<state_type>> pending{};
  bool running = true;

  void fill() {  // runs steps until there is an event to show or the run is over
    auto sink = [&](event<state_type>&& e) { pending.push_back(std::move(e)); };
    streamer<state_type, App::node_count, decltype(sink)> s{mode, App::node_names, sink};
    while (pending.empty() && running) running = app.step(state, at, context, config, s);
  }
};

template <class Session>
class stream_range : public ranges::view_base {
  std::shared_ptr<Session> session_;

 public:
  using event_type = std::remove_cvref_t<decltype(std::declval<Session&>().pending.front())>;

  // An input iterator: every copy walks the one session, and reaching the end of what has
  // been streamed so far runs the next steps.
  class iterator {
    Session* session_ = nullptr;

   public:
    using iterator_concept = std::input_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    using value_type = event_type;
    using difference_type = std::ptrdiff_t;
    using reference = const event_type&;
    using pointer = const event_type*;

    iterator() = default;
    explicit iterator(Session* s) : session_(s) {}
    reference operator*() const { return session_->pending.front(); }
    pointer operator->() const { return &session_->pending.front(); }
    iterator& operator++() {
      session_->pending.pop_front();
      session_->fill();
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& it, std::default_sentinel_t) { return it.session_->pending.empty(); }
  };

  stream_range() = default;
  explicit stream_range(std::shared_ptr<Session> s) : session_(std::move(s)) {}
  iterator begin() const {
    session_->fill();
    return iterator(session_.get());
  }
  std::default_sentinel_t end() const { return {}; }
};

}  // namespace stategraph::detail
