// Stopping a synchronous run (sg::sequential, sg::thread_pool) from outside: a stop token and
// a deadline, checked before every step; nodes that run long poll them through their
// context. A stopped step is atomic like a failed one: nothing of it is merged. A
// checkpointed run on a thread stops the same way; what it committed stays, and resume
// continues from there.
#pragma once

#include <stategraph/errors.hpp>
#include <stategraph/run.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <stop_token>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

struct run_limits {
  std::stop_token stop{};
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// A context base that nodes poll: invoke_stoppable hands it the run's limits.
struct stoppable {
  run_limits limits{};
  bool stop_requested() const noexcept {
    return limits.stop.stop_requested() || std::chrono::steady_clock::now() >= limits.deadline;
  }
  // Fails the calling node's step with sg::stop_signal when the run should stop.
  void throw_if_stop_requested() const {
    if (limits.stop.stop_requested()) throw stop_signal{false};
    if (std::chrono::steady_clock::now() >= limits.deadline) throw stop_signal{true};
  }
};

namespace detail {
template <class App>
std::vector<std::string> running_nodes(const typename App::position_type& at) {
  std::vector<std::string> names;
  std::size_t i = 0;
  std::apply(
      [&](const auto&... queue) {
        ((at.active.test(i) || !queue.empty() ? (void)names.emplace_back(App::node_names[i]) : void(), ++i), ...);
      },
      at.sends);
  for (; i < App::node_count; ++i)
    if (at.active.test(i)) names.emplace_back(App::node_names[i]);
  return names;
}
// Before a step at `at`: throws if the run is to stop.
template <class App>
void check_limits(const run_limits& limits, const typename App::position_type& at) {
  if (limits.stop.stop_requested()) throw cancelled_error(at.step + 1, running_nodes<App>(at));
  if (std::chrono::steady_clock::now() >= limits.deadline) throw deadline_error(at.step + 1, running_nodes<App>(at));
}
struct no_check {
  template <class Position>
  void operator()(const Position&) const noexcept {}
};
// Runs `run()`; a node's failure that was its sg::stop_signal is reported as the stop it was.
template <class F>
decltype(auto) reporting_stops(F&& run) {
  try {
    return run();
  } catch (const node_error& e) {
    try {
      e.rethrow_cause();
    } catch (const stop_signal& s) {
      if (s.deadline) throw deadline_error(e.step(), {std::string(e.node())});
      throw cancelled_error(e.step(), {std::string(e.node())});
    } catch (...) {
    }
    throw;
  }
}
// A checkpointed app (<stategraph/checkpoint.hpp>): one with a store.
template <class App>
concept checkpointed_app = requires { typename App::store_type; };
}  // namespace detail

// invoke, stopped before any step once `limits.stop` is requested or `limits.deadline` has
// passed (sg::cancelled_error, sg::deadline_error: the step and the nodes it would run), or
// when a node throws sg::stop_signal (a context derived from sg::stoppable gets the limits).
template <class App, class Ctx>
typename App::state_type invoke_stoppable(const App& app, typename App::state_type input, const run_limits& limits,
                                          Ctx& context, const run_config& config = {}) {
  using S = typename App::state_type;
  if constexpr (!rules::check_all<typename App::graph_type, typename App::analysis_type, Ctx>()) {
    return S{};
  } else {
    if constexpr (std::derived_from<Ctx, stoppable>) static_cast<stoppable&>(context).limits = limits;
    S state{};
    auto at = app.begin_run(state, std::move(input));
    detail::quiet quiet;
    while (at.any()) {
      detail::check_limits<App>(limits, at);
      detail::reporting_stops([&] { app.step(state, at, context, config, quiet); });
    }
    return state;
  }
}
template <class App>
typename App::state_type invoke_stoppable(const App& app, typename App::state_type input, const run_limits& limits,
                                          const run_config& config = {}) {
  detail::no_context none;
  return invoke_stoppable(app, std::move(input), limits, none, config);
}

// A checkpointed app's invoke(input, thread[, ctx]) and resume(thread[, ctx]), stopped the
// same way. The steps before the stop are committed; the stopped step is not (a node that
// threw sg::stop_signal fails it as any failure does: the nodes of it that finished keep
// their writes); resume(thread) continues from the last checkpoint.
template <detail::checkpointed_app App, class Ctx>
  requires(!std::is_same_v<std::remove_const_t<Ctx>, run_config>)
typename App::state_type invoke_stoppable(const App& app, typename App::state_type input, const thread_id& thread,
                                          const run_limits& limits, Ctx& context, const run_config& config = {}) {
  if constexpr (std::derived_from<Ctx, stoppable>) static_cast<stoppable&>(context).limits = limits;
  return detail::reporting_stops([&] { return app.run_stoppable(&input, thread, limits, context, config); });
}
template <detail::checkpointed_app App>
typename App::state_type invoke_stoppable(const App& app, typename App::state_type input, const thread_id& thread,
                                          const run_limits& limits, const run_config& config = {}) {
  typename App::run_context_type context;
  return invoke_stoppable(app, std::move(input), thread, limits, context, config);
}
template <detail::checkpointed_app App, class Ctx>
  requires(!std::is_same_v<std::remove_const_t<Ctx>, run_config>)
typename App::state_type resume_stoppable(const App& app, const thread_id& thread, const run_limits& limits,
                                          Ctx& context, const run_config& config = {}) {
  if constexpr (std::derived_from<Ctx, stoppable>) static_cast<stoppable&>(context).limits = limits;
  return detail::reporting_stops(
      [&] { return app.run_stoppable(static_cast<typename App::state_type*>(nullptr), thread, limits, context, config); });
}
template <detail::checkpointed_app App>
typename App::state_type resume_stoppable(const App& app, const thread_id& thread, const run_limits& limits,
                                          const run_config& config = {}) {
  typename App::run_context_type context;
  return resume_stoppable(app, thread, limits, context, config);
}

}  // namespace stategraph
