// Streamed runs: the observer that turns a run's steps into events, and the range-v3 input
// range of app::stream that runs a step each time it reaches the end of what it has.
#pragma once

#include <stategraph/errors.hpp>
#include <stategraph/events.hpp>
#include <stategraph/run_options.hpp>

#include <range/v3/view/facade.hpp>

#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace stategraph::detail {

// Turns the steps of a run into events, in a deterministic order: per step, each node's
// debug start and end (in node order), then its update, then the state.
template <class State, std::size_t N, class Sink>
struct streamer {
  static constexpr bool streams = true;
  static constexpr bool durable = false;
  stream_mode mode;
  const std::array<std::string_view, N>& names;
  Sink& sink;

  template <class Set, class Failures, class Took, class Children>
  void tasks(std::size_t step, const Set& active, const Failures& failures, const Took& took, Children& children) {
    const bool debug = has_mode(mode, stream_mode::debug);
    for (std::size_t i = 0; i < N; ++i) {
      if (!active.test(i)) continue;
      if (debug) {
        event<State> start{.mode = stream_mode::debug, .step = step, .node = names[i]};
        start.phase = debug_phase::start;
        sink(std::move(start));
      }
      // A subgraph's own events come between its start and its end.
      for (auto& c : children[i].events) {
        event<State> e{.mode = c.mode, .step = step, .node = c.node, .channels = std::move(c.channels)};
        e.phase = c.phase;
        e.duration = c.duration;
        e.error = std::move(c.error);
        e.substep = c.step;
        sink(std::move(e));
      }
      if (!debug) continue;
      event<State> end{.mode = stream_mode::debug, .step = step, .node = names[i]};
      end.phase = failures[i] ? debug_phase::error : debug_phase::end;
      end.duration = took[i];
      if (failures[i]) end.error = node_error(names[i], step, failures[i]).what();
      sink(std::move(end));
    }
  }
  void update(std::size_t step, std::string_view node, std::vector<std::string_view> channels) {
    if (!has_mode(mode, stream_mode::updates)) return;
    event<State> e{.mode = stream_mode::updates, .step = step, .node = node, .channels = std::move(channels)};
    sink(std::move(e));
  }
  void values(std::size_t step, const State& state) {
    if (!has_mode(mode, stream_mode::values)) return;
    event<State> e{.mode = stream_mode::values, .step = step};
    e.values = state;
    sink(std::move(e));
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
class stream_range : public ranges::view_facade<stream_range<Session>, ranges::unknown> {
  friend ranges::range_access;
  std::shared_ptr<Session> session_;

  struct cursor {
    Session* session = nullptr;
    const auto& read() const { return session->pending.front(); }
    void next() {
      session->pending.pop_front();
      session->fill();
    }
    bool equal(ranges::default_sentinel_t) const { return session->pending.empty(); }
  };
  cursor begin_cursor() const {
    session_->fill();
    return {session_.get()};
  }

 public:
  stream_range() = default;
  explicit stream_range(std::shared_ptr<Session> s) : session_(std::move(s)) {}
};

}  // namespace stategraph::detail
