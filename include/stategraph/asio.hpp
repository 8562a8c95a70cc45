// Async runs on Boost.Asio (opt-in; the core names no Asio type). A node, a router or a send
// target may be a coroutine returning boost::asio::awaitable<R>; `co_await
// app.async_invoke(input[, ctx][, run_config][, sg::async_options])` runs a graph on the
// executor of the awaiting coroutine; `app.async_stream(input, mode[, ctx], callback[, ...])`
// runs it reporting stream's events. The nodes of one step run concurrently; their results
// still merge at the barrier in node order, so an async run ends in the same state as a
// sequential one. On sg::sequential and sg::thread_pool a coroutine node is run to completion
// on an io_context of its own (it blocks the calling thread while it waits).
#pragma once

#include <stategraph/stategraph.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/query.hpp>
#include <boost/asio/require.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/container/small_vector.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

// What an async run is given besides its run_config.
struct async_options {
  std::size_t max_concurrency = 0;      // coroutine tasks of one step running at once; 0: no limit
  std::chrono::nanoseconds deadline{};  // for the whole run, from its start; zero: none
};

namespace detail {

// A coroutine's result stands for the value it produces; a synchronous executor waits for it
// on an io_context of its own.
template <class T, class Executor>
struct async_result<boost::asio::awaitable<T, Executor>> {
  static constexpr bool is_async = true;
  using type = T;
  using holder = std::conditional_t<std::is_void_v<T>, bool, std::optional<T>>;

  static boost::asio::awaitable<void, Executor> into(boost::asio::awaitable<T, Executor> a, holder& out) {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(a);
      out = true;
    } else {
      out.emplace(co_await std::move(a));
    }
  }
  static T wait(boost::asio::awaitable<T, Executor> a) {
    boost::asio::io_context io;
    holder out{};
    std::exception_ptr failure;
    boost::asio::co_spawn(io, into(std::move(a), out), [&](std::exception_ptr e) { failure = e; });
    io.run();
    if (failure) std::rethrow_exception(failure);
    if constexpr (!std::is_void_v<T>) return std::move(*out);
  }
};

template <class T>
using awaitable = boost::asio::awaitable<T, boost::asio::any_io_executor>;

// What node N's call returns (an awaitable for a coroutine node), with its payload if any.
template <class N, class S, class Ctx, class... Payload>
using raw_result_t = std::remove_cvref_t<decltype(raw_call(std::declval<const N&>(), std::declval<const S&>(),
                                                           std::declval<Ctx&>(), std::declval<const Payload&>()...))>;
template <class N, class S, class Ctx, class... Payload>
inline constexpr bool is_coroutine_call = [] {
  // A node whose optional seam the context's type lacks is never called: a plain task skips it.
  if constexpr (skipped_by_type<N, Ctx>)
    return false;
  else
    return async_result<raw_result_t<N, S, Ctx, Payload...>>::is_async;
}();
// A coroutine node whose optional seam the context may hold: true when it holds none now, and
// the node's task is then the plain one, which skips it.
template <class N, class Ctx>
bool seam_absent(Ctx& context) {
  if constexpr (skipped_at_run_time<N, Ctx>)
    return context.template find<optional_seam_t<N>>() == nullptr;
  else
    return false;
}

template <class T>
awaitable<step_result<T>> as_step_result(awaitable<T> a) {
  if constexpr (std::is_void_v<T>) {
    co_await std::move(a);
    co_return step_result<void>{};
  } else {
    co_return to_step_result(co_await std::move(a));
  }
}

// One attempt of a coroutine node: cancelled, and failed with sg::timed_out, when its
// timeout_policy's limit passes first.
template <class N, class S, class Ctx, class... Payload>
awaitable<step_result<awaited_t<raw_result_t<N, S, Ctx, Payload...>>>> async_attempt(const N& n, const S& state,
                                                                                     Ctx& context,
                                                                                     const Payload&... payload) {
  static_assert(std::is_same_v<raw_result_t<N, S, Ctx, Payload...>,
                               awaitable<awaited_t<raw_result_t<N, S, Ctx, Payload...>>>>,
                "stategraph: an async run awaits boost::asio::awaitable<T> on the default executor type "
                "(boost::asio::any_io_executor)");
  using T = awaited_t<raw_result_t<N, S, Ctx, Payload...>>;
  if constexpr (has_timeout<N>) {
    auto call = as_step_result(raw_call(n, state, context, payload...));
    if (N::timeout.limit.count() > 0) {
      using namespace boost::asio::experimental::awaitable_operators;
      boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, N::timeout.limit);
      auto r = co_await (std::move(call) || timer.async_wait(boost::asio::use_awaitable));
      if (r.index() == 1) throw timed_out(N::timeout.limit);
      co_return std::move(std::get<0>(r));
    }
    co_return co_await std::move(call);
  } else if constexpr (std::is_void_v<T>) {  // no frame of as_step_result in between
    co_await raw_call(n, state, context, payload...);
    co_return step_result<void>{};
  } else {
    co_return to_step_result(co_await raw_call(n, state, context, payload...));
  }
}

// A coroutine node's call with its retry policy. Its waits between attempts are timers (or
// run_config::sleep, when given); a cancelled attempt is not retried.
template <class N, class S, class Ctx, class... Payload>
awaitable<step_result<awaited_t<raw_result_t<N, S, Ctx, Payload...>>>> async_retries(const N& n, const S& state,
                                                                                     Ctx& context,
                                                                                     const run_config& config,
                                                                                     const Payload&... payload) {
  {
    for (std::size_t attempt = 1;; ++attempt) {
      std::exception_ptr failure;
      try {
        co_return co_await async_attempt(n, state, context, payload...);
      } catch (...) {
        failure = std::current_exception();
      }
      const boost::asio::cancellation_state state_now = co_await boost::asio::this_coro::cancellation_state;
      const bool cancelled = state_now.cancelled() != boost::asio::cancellation_type::none;
      if (cancelled || is_interrupt(failure) || attempt >= N::retry.max_attempts || !N::retry.retry_on(failure))
        std::rethrow_exception(failure);
      double seconds = N::retry.interval(attempt);
      if (N::retry.jitter) seconds += std::uniform_real_distribution<double>(0.0, 1.0)(jitter_source());
      const auto pause = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds));
      if (config.sleep) {
        config.sleep(pause);
      } else {
        boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, pause);
        co_await timer.async_wait(boost::asio::use_awaitable);
      }
    }
  }
}
// Not a coroutine itself: without a retry policy, the attempt is the call.
template <class N, class S, class Ctx, class... Payload>
awaitable<step_result<awaited_t<raw_result_t<N, S, Ctx, Payload...>>>> async_call(const N& n, const S& state,
                                                                                  Ctx& context,
                                                                                  const run_config& config,
                                                                                  const Payload&... payload) {
  if constexpr (has_retry<N>)
    return async_retries(n, state, context, config, payload...);
  else
    return async_attempt(n, state, context, payload...);
}

// The executor of a coroutine task whose node reads per-thread state: the run's, with that
// state set around everything the task runs (its start and each resumption), as a plain
// task has it around its call. `Install` returns a guard that sets the state and restores it.
template <class Install>
struct resuming_executor {
  boost::asio::any_io_executor inner;
  Install install;

  template <class F>
  void execute(F&& f) const {
    inner.execute([i = install, f = std::forward<F>(f)]() mutable {
      [[maybe_unused]] const auto guard = i();
      std::move(f)();
    });
  }
  template <class P>
  auto query(const P& p) const -> decltype(boost::asio::query(inner, p)) {
    return boost::asio::query(inner, p);
  }
  template <class P>
    requires requires(const boost::asio::any_io_executor& e, const P& p) { boost::asio::require(e, p); }
  resuming_executor require(const P& p) const {
    return {boost::asio::require(inner, p), install};
  }
  template <class P>
    requires requires(const boost::asio::any_io_executor& e, const P& p) { boost::asio::prefer(e, p); }
  resuming_executor prefer(const P& p) const {
    return {boost::asio::prefer(inner, p), install};
  }
  friend bool operator==(const resuming_executor&, const resuming_executor&) noexcept = default;
};

// A checkpointed step's task: its scope, where sg::interrupt finds the node's answers.
struct install_task_scope {
  task_scope* scope = nullptr;
  task_scope_guard operator()() const noexcept { return task_scope_guard(scope); }
  friend bool operator==(const install_task_scope&, const install_task_scope&) noexcept = default;
};
using scoped_executor = resuming_executor<install_task_scope>;

// A task of a step that streams custom events: its node's buffer, where ctx.emit puts them.
template <class T>
struct install_custom_buffer {
  struct restore {
    custom_buffer<T>* saved;
    ~restore() { current_custom<T> = saved; }
  };
  custom_buffer<T>* buffer = nullptr;
  restore operator()() const noexcept { return {std::exchange(current_custom<T>, buffer)}; }
  friend bool operator==(const install_custom_buffer&, const install_custom_buffer&) noexcept = default;
};
template <class T>
using emitting_executor = resuming_executor<install_custom_buffer<T>>;

// g++ 12 may inline a coroutine's frame allocation (Asio's operator new, aligned_alloc) and
// then, not seeing through Asio's matching operator delete, warn of a mismatch that is not one.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// The async runs of an app: the general step's frame, failures and barrier (app::finish_step),
// with the tasks run as coroutines.
template <class App>
struct async_runs {
  using S = typename App::state_type;
  using A = typename App::analysis_type;
  using position = typename App::position_type;
  // Observer: quiet, or a checkpointed run's (<stategraph/checkpoint/asio.hpp>).
  template <class Ctx, class Observer = quiet>
  using frame_t = typename App::template frame<Ctx, Observer>;
  template <class Ctx, class Observer = quiet>
  using entry = awaitable<void> (*)(frame_t<Ctx, Observer>&, std::size_t);  // a coroutine task (send index)

  // ---- entry points ----------------------------------------------------------------------

  static awaitable<S> invoke(const App& app, S input, const run_config& config = {}, async_options options = {}) {
    return run<no_context>(app, std::move(input), nullptr, config, options);
  }
  static awaitable<S> invoke(const App& app, S input, async_options options) {
    return run<no_context>(app, std::move(input), nullptr, run_config{}, options);
  }
  template <class Ctx>
  requires(!std::is_same_v<std::remove_cvref_t<Ctx>, run_config> &&
           !std::is_same_v<std::remove_cvref_t<Ctx>, async_options>) static awaitable<S>
      invoke(const App& app, S input, Ctx& context, const run_config& config = {}, async_options options = {}) {
    return run<Ctx>(app, std::move(input), &context, config, options);
  }
  template <class Ctx>
  requires(!std::is_same_v<std::remove_cvref_t<Ctx>, run_config> &&
           !std::is_same_v<std::remove_cvref_t<Ctx>, async_options>) static awaitable<S>
      invoke(const App& app, S input, Ctx& context, async_options options) {
    return run<Ctx>(app, std::move(input), &context, run_config{}, options);
  }

  // An async stream: stream's arguments, then the options; the callback is moved into the run.
  template <class Callback>
    requires std::is_invocable_v<Callback&, const event<S>&>
  static awaitable<S> stream(const App& app, S input, stream_mode mode, Callback callback,
                             const run_config& config = {}, async_options options = {}) {
    return run_stream<no_context>(app, std::move(input), nullptr, mode, std::move(callback), config, options);
  }
  template <class Callback>
    requires std::is_invocable_v<Callback&, const event<S>&>
  static awaitable<S> stream(const App& app, S input, stream_mode mode, Callback callback, async_options options) {
    return run_stream<no_context>(app, std::move(input), nullptr, mode, std::move(callback), run_config{}, options);
  }
  template <class Ctx, class Callback>
    requires(!std::is_same_v<std::remove_cvref_t<Ctx>, run_config> &&
             !std::is_same_v<std::remove_cvref_t<Ctx>, async_options> &&
             std::is_invocable_v<Callback&, const event_for<S, Ctx>&>)
  static awaitable<S> stream(const App& app, S input, stream_mode mode, Ctx& context, Callback callback,
                             const run_config& config = {}, async_options options = {}) {
    return run_stream<Ctx>(app, std::move(input), &context, mode, std::move(callback), config, options);
  }
  template <class Ctx, class Callback>
    requires(!std::is_same_v<std::remove_cvref_t<Ctx>, run_config> &&
             !std::is_same_v<std::remove_cvref_t<Ctx>, async_options> &&
             std::is_invocable_v<Callback&, const event_for<S, Ctx>&>)
  static awaitable<S> stream(const App& app, S input, stream_mode mode, Ctx& context, Callback callback,
                             async_options options) {
    return run_stream<Ctx>(app, std::move(input), &context, mode, std::move(callback), run_config{}, options);
  }

  // The run owns copies of its config and options; the app, the input's state and the
  // context must outlive the co_await.
  template <class Ctx>
  static awaitable<S> run(const App& app, S input, Ctx* given, run_config config, async_options options) {
    if constexpr (!rules::check_all<typename App::graph_type, A, Ctx>()) {
      co_return S{};
    } else {
      no_context no_ctx;
      Ctx& context = [&]() -> Ctx& {
        if constexpr (std::is_same_v<Ctx, no_context>)
          return no_ctx;
        else
          return *given;
      }();
      // A graph without coroutines never suspends, so nothing can cancel it: the plain
      // invoke (and its fast paths) is the whole run, unless a deadline is checked.
      if constexpr (!any_coroutine<Ctx>())
        if (options.deadline.count() == 0) {
          if constexpr (std::is_same_v<Ctx, no_context>)
            co_return app.invoke(std::move(input), config);
          else
            co_return app.invoke(std::move(input), context, config);
        }
      // On the heap: a run without a deadline (most) then keeps a pointer, not a timer, in its
      // frame while it waits.
      std::unique_ptr<boost::asio::steady_timer> deadline;
      if (options.deadline.count() > 0)
        deadline = std::make_unique<boost::asio::steady_timer>(co_await boost::asio::this_coro::executor,
                                                               options.deadline);
      S state{};
      position at{app.first_frontier(state, std::move(input)), {}, 0, {}};
      quiet q;
      // A lone coroutine node's result, built here in the run's frame (as run_alone does on
      // the stack) rather than in a step frame with a slot per node.
      alignas(App::template alone_result<Ctx>.align) std::byte result[App::template alone_result<Ctx>.size];
      for (;;) {
        std::size_t only = deadline ? none : lone_coroutine<Ctx>(at);
        if constexpr (any_runtime_seam<Ctx>)  // skipped now: the general step runs its plain task
          if (only != none && seam_checks<Ctx>[only] && seam_checks<Ctx>[only](context)) only = none;
        if (only != none) {
          // A step of one coroutine node and nothing else: its call is awaited here, with no
          // frame, task or channel of a general step; it shares the run's cancellation.
          if (at.step >= config.recursion_limit) App::over_limit(config, at.step, at.active);
          std::exception_ptr failure;
          try {
            // One co_await per kind of result, each in a statement of its own: g++ evaluates
            // a co_await inside a conditional or a fold before the condition.
            constexpr std::size_t kinds = boost::mp11::mp_size<direct_kinds<Ctx>>::value;
            const std::size_t kind = direct_kind<Ctx>[only];
            if (kind == none) {
              co_await lone_table<Ctx>[only](app, state, context, config, result);
            } else if (kind == 0) {
              if constexpr (kinds > 0) {
                using K = direct_kind_at<Ctx, 0>;
                typename K::awaited value = co_await direct_calls<Ctx, typename K::awaited>[only](app, state, context);
                place_direct<K>(result, std::move(value));
              }
            } else if (kind == 1) {
              if constexpr (kinds > 1) {
                using K = direct_kind_at<Ctx, 1>;
                typename K::awaited value = co_await direct_calls<Ctx, typename K::awaited>[only](app, state, context);
                place_direct<K>(result, std::move(value));
              }
            } else if (kind == 2) {
              if constexpr (kinds > 2) {
                using K = direct_kind_at<Ctx, 2>;
                typename K::awaited value = co_await direct_calls<Ctx, typename K::awaited>[only](app, state, context);
                place_direct<K>(result, std::move(value));
              }
            } else {
              if constexpr (kinds > 3) {
                using K = direct_kind_at<Ctx, 3>;
                typename K::awaited value = co_await direct_calls<Ctx, typename K::awaited>[only](app, state, context);
                place_direct<K>(result, std::move(value));
              }
            }
          } catch (...) {
            failure = std::current_exception();
          }
          const boost::asio::cancellation_state now = co_await boost::asio::this_coro::cancellation_state;
          if (now.cancelled() != boost::asio::cancellation_type::none) {
            if (!failure) destroy_table<Ctx>[only](result);
            throw cancelled_error(at.step + 1, {std::string(App::node_names[only])});
          }
          if (failure) {
            if (is_interrupt(failure)) throw error(no_store_for_interrupt);
            fail_node(App::node_names[only], at.step + 1, failure);
          }
          app.template finish_alone<Ctx>(only, result, state, at);  // destroys the result
        } else if (needs_coroutines<Ctx>(at)) {
          if (!co_await step(app, state, at, context, config, options, deadline.get())) break;
        } else {  // a step of plain nodes and routers: the general step, with no coroutine frame
          if (deadline && deadline->expiry() <= boost::asio::steady_timer::clock_type::now() && at.any())
            throw deadline_error(at.step + 1, active_names(at));
          if (!app.run_step(state, at, context, config, q)) break;
        }
      }
      co_return state;
    }
  }

  // A streamer whose step's values event waits for the step's routers (run after the barrier
  // in an async step), so that a callback sees it between steps, as in a synchronous stream.
  template <class Streamer>
  struct values_after_routers : Streamer {
    std::optional<std::size_t> values_of{};
    void values(std::size_t step, const S&) { values_of = step; }
  };
  // A streamed run: app::stream's events, in its order, from the general step with a
  // streamer as its observer (no lone-node path: it has no observer). A step that fails,
  // times out or is cancelled reports nothing past what the synchronous stream would; the
  // awaiting operation's cancellation is also looked at between steps, so that a callback
  // may stop the run before the next step starts.
  template <class Ctx, class Callback>
  static awaitable<S> run_stream(const App& app, S input, Ctx* given, stream_mode mode, Callback callback,
                                 run_config config, async_options options) {
    if constexpr (!rules::check_all<typename App::graph_type, A, Ctx>()) {
      co_return S{};
    } else {
      no_context no_ctx;
      Ctx& context = [&]() -> Ctx& {
        if constexpr (std::is_same_v<Ctx, no_context>)
          return no_ctx;
        else
          return *given;
      }();
      std::unique_ptr<boost::asio::steady_timer> deadline;
      if (options.deadline.count() > 0)
        deadline = std::make_unique<boost::asio::steady_timer>(co_await boost::asio::this_coro::executor,
                                                               options.deadline);
      using event_t = event_for<S, Ctx>;
      auto sink = [&](event_t&& e) { callback(static_cast<const event_t&>(e)); };
      using streamer_t = streamer<S, A::size, decltype(sink), typename custom_of<Ctx>::type>;
      values_after_routers<streamer_t> s{{mode, App::node_names, sink}};
      S state{};
      position at = app.begin_run(state, std::move(input));
      s.streamer_t::values(0, state);
      for (;;) {
        if (at.any()) {
          if (deadline && deadline->expiry() <= boost::asio::steady_timer::clock_type::now())
            throw deadline_error(at.step + 1, active_names(at));
          const boost::asio::cancellation_state now = co_await boost::asio::this_coro::cancellation_state;
          if (now.cancelled() != boost::asio::cancellation_type::none)
            throw cancelled_error(at.step + 1, active_names(at));
        }
        if (needs_coroutines<Ctx>(at)) {
          // A callback that cancels the run within the step stops a coroutine router after
          // the barrier: reported as the step's cancellation.
          const std::size_t step_no = at.step + 1;
          std::vector<std::string> names = active_names(at);
          std::exception_ptr failure;
          bool more = false;
          try {
            more = co_await step(app, state, at, context, config, options, deadline.get(), &s);
          } catch (const boost::system::system_error& e) {
            if (e.code() != boost::asio::error::operation_aborted) throw;
            failure = std::current_exception();
          }
          if (failure) {
            const boost::asio::cancellation_state now = co_await boost::asio::this_coro::cancellation_state;
            if (now.cancelled() == boost::asio::cancellation_type::none) std::rethrow_exception(failure);
            throw cancelled_error(step_no, std::move(names));
          }
          if (s.values_of) s.streamer_t::values(*std::exchange(s.values_of, std::nullopt), state);
          if (!more) break;
        } else if (!app.run_step(state, at, context, config, static_cast<streamer_t&>(s))) {
          break;
        }
      }
      co_return state;
    }
  }

  // ---- a step of one coroutine node -------------------------------------------------------

  // Node I's call, its result built at `out`. Besides the node's own coroutine this is the
  // only frame a step of one node allocates: a node without timeout or retry is awaited
  // directly, not through async_attempt.
  template <std::size_t I, class Ctx>
  static awaitable<void> lone_task(const App& app, const S& state, Ctx& context, const run_config& config, void* out) {
    using N = typename App::template node_t<I>;
    using R = typename App::template result_slot_t<I, Ctx>::value_type;
    using T = awaited_t<raw_result_t<N, S, Ctx>>;
    const N& n = detail::slot_at<I>(app.nodes_);
    // (The awaited value is a named local: g++ 12 fails internally on a co_await inside a
    // placement new's initialiser.)
    if constexpr (has_timeout<N> || has_retry<N>) {
      auto r = co_await async_call(n, state, context, config);
      ::new (out) R{std::move(r)};
    } else if constexpr (std::is_void_v<T>) {
      co_await raw_call(n, state, context);
      ::new (out) R{};
    } else {
      T r = co_await raw_call(n, state, context);
      ::new (out) R{to_step_result(std::move(r))};
    }
  }
  template <class Ctx>
  using lone_fn = awaitable<void> (*)(const App&, const S&, Ctx&, const run_config&, void*);
  template <std::size_t I, class Ctx>
  static constexpr lone_fn<Ctx> lone_entry() {
    if constexpr (node_is_coroutine<I, Ctx>())
      return &lone_task<I, Ctx>;
    else
      return nullptr;
  }
  template <class Ctx>
  static constexpr auto lone_table = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<lone_fn<Ctx>, A::size>{lone_entry<I, Ctx>()...};
  }
  (std::make_index_sequence<A::size>{});
  // A coroutine node without timeout or retry whose result is not void is awaited in the
  // run's own frame, with no frame of the library's between the run and the node: each
  // frame in between costs an allocation per step, and a wrapper frame smaller than the
  // node's makes Asio's frame cache drop a block and allocate one every step. The run's
  // frame holds one co_await, with its awaited value, per kind of result, so the kinds are
  // capped; nodes of further kinds go through lone_task.
  template <class T, class R>
  struct direct_kind_of {
    using awaited = T;
    using result = R;
  };
  static constexpr std::size_t direct_limit = 4;  // the co_await statements in run
  template <std::size_t I, class Ctx>
  static auto direct_key() {
    if constexpr (node_is_coroutine<I, Ctx>()) {
      using N = typename App::template node_t<I>;
      using T = awaited_t<raw_result_t<N, S, Ctx>>;
      if constexpr (!has_timeout<N> && !has_retry<N> && !std::is_void_v<T>)
        return direct_kind_of<T, typename App::template result_slot_t<I, Ctx>::value_type>{};
      else
        return;
    }
  }
  template <class Ctx, class Seq>
  struct direct_keys_of;
  template <class Ctx, std::size_t... I>
  struct direct_keys_of<Ctx, std::index_sequence<I...>> {
    using all = boost::mp11::mp_remove<unique_t<mp_list<decltype(direct_key<I, Ctx>())...>>, void>;
    using type = boost::mp11::mp_take_c<all, (boost::mp11::mp_size<all>::value < direct_limit
                                                  ? boost::mp11::mp_size<all>::value
                                                  : direct_limit)>;
  };
  template <class Ctx>
  using direct_kinds = typename direct_keys_of<Ctx, std::make_index_sequence<A::size>>::type;
  template <class Ctx, std::size_t J>
  using direct_kind_at = boost::mp11::mp_at_c<direct_kinds<Ctx>, J>;
  // Per node, its kind's position in direct_kinds, or none.
  template <class Ctx>
  static constexpr auto direct_kind = []<std::size_t... I>(std::index_sequence<I...>) {
    const name_table<direct_kinds<Ctx>> table{};
    std::array<std::size_t, A::size> out{position_in<decltype(direct_key<I, Ctx>())>(&table)...};
    for (auto& k : out)
      if (k >= boost::mp11::mp_size<direct_kinds<Ctx>>::value) k = none;
    return out;
  }
  (std::make_index_sequence<A::size>{});
  // Node I's call, not a coroutine: what it returns is the node's own (not yet started) coroutine.
  template <std::size_t I, class Ctx, class T>
  static awaitable<T> direct_call(const App& app, const S& state, Ctx& context) {
    return raw_call(detail::slot_at<I>(app.nodes_), state, context);
  }
  template <std::size_t I, class Ctx, class T>
  static constexpr auto direct_entry() {
    using fn = awaitable<T> (*)(const App&, const S&, Ctx&);
    if constexpr (std::is_same_v<decltype(direct_key<I, Ctx>()), void>) {
      return fn{nullptr};
    } else {
      if constexpr (std::is_same_v<typename decltype(direct_key<I, Ctx>())::awaited, T>)
        return fn{&direct_call<I, Ctx, T>};
      else
        return fn{nullptr};
    }
  }
  template <class Ctx, class T>
  static constexpr auto direct_calls = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<awaitable<T> (*)(const App&, const S&, Ctx&), A::size>{direct_entry<I, Ctx, T>()...};
  }
  (std::make_index_sequence<A::size>{});
  template <class K>
  static void place_direct(void* out, typename K::awaited&& value) {
    ::new (out) typename K::result{to_step_result(std::move(value))};
  }

  template <class R>
  static void destroy_result(void* p) {
    std::launder(static_cast<R*>(p))->~R();
  }
  template <std::size_t I, class Ctx>
  static constexpr auto destroy_entry() {
    if constexpr (node_is_coroutine<I, Ctx>())
      return &destroy_result<typename App::template result_slot_t<I, Ctx>::value_type>;
    else
      return static_cast<void (*)(void*)>(nullptr);
  }
  template <class Ctx>
  static constexpr auto destroy_table = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<void (*)(void*), A::size>{destroy_entry<I, Ctx>()...};
  }
  (std::make_index_sequence<A::size>{});
  // The node of a step that runs one coroutine node and nothing else (no sends, no coroutine
  // router after it), or none.
  template <class Ctx>
  static std::size_t lone_coroutine(const position& at) {
    const std::size_t only = only_member(at.active);
    if (only == none || !lone_table<Ctx>[only] || coroutine_router_from[only] || App::pending_sends(at)) return none;
    return only;
  }

  // Per node, seam_absent when its optional seam is looked up at run time, or null.
  template <std::size_t I, class Ctx>
  static constexpr auto seam_check() {
    using N = typename App::template node_t<I>;
    if constexpr (node_is_coroutine<I, Ctx>() && skipped_at_run_time<N, Ctx>)
      return &seam_absent<N, Ctx>;
    else
      return static_cast<bool (*)(Ctx&)>(nullptr);
  }
  template <class Ctx>
  static constexpr auto seam_checks = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool (*)(Ctx&), A::size>{seam_check<I, Ctx>()...};
  }
  (std::make_index_sequence<A::size>{});
  template <class Ctx>
  static constexpr bool any_runtime_seam = [] {
    for (auto f : seam_checks<Ctx>)
      if (f) return true;
    return false;
  }();

  // ---- one step --------------------------------------------------------------------------

  // A call's result as its slot holds it (a node with an optional seam: not skipped).
  template <class R, class T>
  static R slot_value(T&& value) {
    if constexpr (std::is_same_v<R, std::remove_cvref_t<T>>)
      return std::forward<T>(value);
    else
      return R{std::forward<T>(value)};
  }
  template <std::size_t I, class Ctx, class Observer = quiet>
  static awaitable<void> node_coroutine(frame_t<Ctx, Observer>& f, std::size_t) {
    using R = typename App::template result_slot_t<I, Ctx>::value_type;
    [[maybe_unused]] const auto started = task_clock<Observer>();
    try {
      detail::slot_at<I>(f.results).emplace(
          slot_value<R>(co_await async_call(detail::slot_at<I>(f.self.nodes_), f.state, f.context, f.config)));
    } catch (...) {
      f.failures[I] = std::current_exception();
    }
    if constexpr (Observer::streams) f.took[I] = std::chrono::steady_clock::now() - started;
  }
  template <std::size_t I, class Ctx, class Observer = quiet>
  static awaitable<void> send_coroutine(frame_t<Ctx, Observer>& f, std::size_t k) {
    auto& slot = detail::slot_at<I>(f.sent)[k];
    using R = typename std::remove_cvref_t<decltype(slot.result)>::value_type;
    try {
      slot.result.emplace(slot_value<R>(co_await async_call(detail::slot_at<I>(f.self.nodes_), f.state, f.context,
                                                            f.config, std::get<I>(f.queues)[k])));
    } catch (...) {
      slot.failure = std::current_exception();
    }
  }

  // A subgraph node whose child a checkpointed run awaits (the observer's run_child) rather
  // than runs in place.
  template <class Observer, std::size_t I, class Ctx>
  static constexpr bool awaits_child() {
    if constexpr (requires { Observer::template awaits_child<I, Ctx>(); })
      return Observer::template awaits_child<I, Ctx>();
    else
      return false;
  }
  template <std::size_t I, class Ctx, class Observer>
  static awaitable<void> child_coroutine(frame_t<Ctx, Observer>& f, std::size_t) {
    try {
      detail::slot_at<I>(f.results).emplace(
          to_step_result(co_await f.observer.template run_child<I>(f.state, f.context, f.config)));
    } catch (...) {
      f.failures[I] = std::current_exception();
    }
  }

  struct task {
    std::size_t node;
    std::size_t send;  // none for the node's own call
  };

  // A streamed step's plain task, as app::run_tasks runs it: in its node's custom scope, timed
  // for debug events, its subgraphs' events forwarded, and (persisting) in its interrupt scope.
  template <class Ctx, class Observer>
  static void streamed_plain(const App& app, frame_t<Ctx, Observer>& f, std::size_t i) {
    task_outputs out{f.failures.data()};
    out.took = has_mode(f.observer.mode, stream_mode::debug) ? f.took.data() : nullptr;
    out.children = f.children.data();
    out.mode = f.observer.mode;
    [[maybe_unused]] auto custom = detail::custom_scope(f.observer, i);
    auto call = [&](std::size_t n) {
      App::template task_table<Ctx>[n](app.node_at(n), f.state, f.context, f.config, f.results.place(n),
                                       f.results.engaged(n));
    };
    if constexpr (Observer::persists) {
      out.resume = f.observer.resume_values(i);
      out.child = f.observer.child_run(i);
      run_node_task<true, true>(call, i, out);
    } else {
      run_node_task<true, false>(call, i, out);
    }
  }
  // A coroutine task's start, for a streamed step's debug events (from its start to its end).
  template <class Observer>
  static auto task_clock() {
    if constexpr (Observer::streams)
      return std::chrono::steady_clock::now();
    else
      return 0;
  }
  // Whether the step streams custom events: its coroutine tasks then run on executors that
  // set their node's buffer (emitting_executor), none awaited in the run's own frame.
  template <class Observer>
  static bool emits_streamed(const Observer& observer) {
    if constexpr (requires { observer.mode; })
      return has_mode(observer.mode, stream_mode::custom);
    else
      return false;
  }
  // The executor a coroutine task of `node` is spawned on: the run's, or in a step that
  // streams custom events, the run's with the node's buffer set around all the task runs.
  template <class Ctx, class Observer>
  static boost::asio::any_io_executor task_executor(const boost::asio::any_io_executor& ex, Observer& observer,
                                                    std::size_t node) {
    using T = typename custom_of<Ctx>::type;
    if constexpr (Observer::streams && !std::is_void_v<T>) {
      custom_buffer<T>* buffer = nullptr;
      {
        [[maybe_unused]] auto scope = detail::custom_scope(observer, node);  // the buffer ctx.emit finds
        buffer = current_custom<T>;
      }
      if (buffer) return emitting_executor<T>{ex, {buffer}};
    }
    return ex;
  }

  // Runs one step: plain nodes inline, coroutine nodes concurrently (at most
  // max_concurrency at once), then the barrier. A cancelled or expired step cancels its
  // coroutines, waits for them, and throws with nothing merged. A persisting observer (a
  // checkpointed run) restores kept results first: those tasks do not run again.
  template <class Ctx, class Observer = quiet>
  static awaitable<bool> step(const App& app, S& state, position& at, Ctx& context, const run_config& config,
                              const async_options& options, boost::asio::steady_timer* deadline,
                              Observer* given = nullptr) {
    if (!at.any()) co_return false;
    if (at.step >= config.recursion_limit) App::over_limit(config, at.step, at.active);
    const std::size_t step_no = at.step + 1;
    quiet q;
    Observer& observer = [&]() -> Observer& {
      if constexpr (std::is_same_v<Observer, quiet>)
        return given ? *given : q;
      else
        return *given;
    }();
    frame_t<Ctx, Observer> f{app, state, context, config, at.sends, observer};
    if constexpr (Observer::persists) App::restore_kept(at, f);
    auto kept = [&](std::size_t i) {
      if constexpr (Observer::persists)
        return f.restored.test(i);
      else
        return false;
    };

    // The step's tasks in node order; the coroutine ones, with their entries.
    boost::container::small_vector<task, 8> plain;
    boost::container::small_vector<std::pair<task, entry<Ctx, Observer>>, 8> coroutines;
    for_each_index<A::size>([&]<std::size_t I>() {
      using N = typename App::template node_t<I>;
      if constexpr (App::template plain_t<I, Ctx>::value) {
        if (at.active.test(I) && !kept(I)) {
          if constexpr (awaits_child<Observer, I, Ctx>()) {
            coroutines.push_back({task{I, none}, &child_coroutine<I, Ctx, Observer>});
          } else if constexpr (is_coroutine_call<N, S, Ctx>) {
            if (seam_absent<N>(context))
              plain.push_back(task{I, none});
            else
              coroutines.push_back({task{I, none}, &node_coroutine<I, Ctx, Observer>});
          } else {
            plain.push_back(task{I, none});
          }
        }
      }
      if constexpr (App::has_sends) {
        using Q = typename App::template queue_t<I>;
        if constexpr (!std::is_same_v<Q, no_queue>) {
          const auto& queue = std::get<I>(at.sends);
          auto& slots = detail::slot_at<I>(f.sent);
          slots.resize(queue.size());
          for (std::size_t k = 0; k < queue.size(); ++k) {
            if (Observer::persists && (slots[k].result || slots[k].failure)) continue;  // restored, or paused
            if constexpr (is_coroutine_call<N, S, Ctx, typename Q::value_type>) {
              if (seam_absent<N>(context))
                plain.push_back(task{I, k});
              else
                coroutines.push_back({task{I, k}, &send_coroutine<I, Ctx, Observer>});
            } else {
              plain.push_back(task{I, k});
            }
          }
        }
      }
    });
    auto running = [&] {
      std::vector<std::string> names;
      auto add = [&](std::size_t i) {
        for (const auto& n : names)
          if (n == App::node_names[i]) return;
        names.emplace_back(App::node_names[i]);
      };
      for (const auto& [t, e] : coroutines) add(t.node);
      for (const auto& t : plain) add(t.node);
      return names;
    };
    if (deadline && deadline->expiry() <= boost::asio::steady_timer::clock_type::now())
      throw deadline_error(step_no, running());

    // A checkpointed step's coroutine tasks, each with the scope sg::interrupt reads.
    std::conditional_t<Observer::persists, std::vector<task_scope>, std::nullptr_t> scopes{};
    if constexpr (Observer::persists)
      for (const auto& [t, e] : coroutines)
        scopes.push_back(t.send == none
                             ? task_scope{t.node, observer.resume_values(t.node), 0, observer.child_run(t.node)}
                             : task_scope{t.node, observer.send_resume_values(t.node, t.send), 0, nullptr});
    auto spawn_on = [&](const boost::asio::any_io_executor& ex, [[maybe_unused]] std::size_t c) -> decltype(auto) {
      if constexpr (Observer::persists)
        return scoped_executor{ex, {&scopes[c]}};
      else
        return (ex);  // the executor itself, not a copy
    };

    if (coroutines.size() == 1 && plain.empty() && !deadline && !emits_streamed(observer)) {
      // One coroutine: awaited here, in this run's own frame, sharing its cancellation (a
      // checkpointed step spawns it, on its scope, and awaits that).
      if constexpr (Observer::persists) {
        const boost::asio::any_io_executor ex = co_await boost::asio::this_coro::executor;
        co_await boost::asio::co_spawn(spawn_on(ex, 0), coroutines[0].second(f, coroutines[0].first.send),
                                       boost::asio::use_awaitable);
      } else {
        co_await coroutines[0].second(f, coroutines[0].first.send);
      }
      const boost::asio::cancellation_state now = co_await boost::asio::this_coro::cancellation_state;
      if (now.cancelled() != boost::asio::cancellation_type::none) throw cancelled_error(step_no, running());
    } else {
      auto ex = co_await boost::asio::this_coro::executor;
      const std::size_t count = coroutines.size();
      const std::size_t limit = options.max_concurrency ? options.max_concurrency : count;
      boost::asio::experimental::concurrent_channel<void(boost::system::error_code)> wake(ex, count);
      std::vector<boost::asio::cancellation_signal> signals(count);
      enum : char { not_started, started, finished_task };
      std::vector<std::atomic<char>> phase(count);  // each task's
      std::atomic<std::size_t> finished{0};
      std::size_t launched = 0;
      // Per node, its tasks running (its call and its send copies), for the nodes' own limits.
      std::vector<std::atomic<std::size_t>> running_of(any_node_limit ? std::size_t{A::size} : 0);
      auto launch = [&](std::size_t c) {
        phase[c] = started;
        ++launched;
        const std::size_t node = coroutines[c].first.node;
        if constexpr (any_node_limit) running_of[node].fetch_add(1);
        boost::asio::co_spawn(spawn_on(task_executor<Ctx>(ex, observer, node), c),
                              coroutines[c].second(f, coroutines[c].first.send),
                              boost::asio::bind_cancellation_slot(
                                  signals[c].slot(), [&wake, &finished, &phase, &running_of, c, node](std::exception_ptr) {
                                    phase[c] = finished_task;
                                    if constexpr (any_node_limit) running_of[node].fetch_sub(1);
                                    (void)node, (void)running_of;  // used only with node limits
                                    finished.fetch_add(1);
                                    wake.try_send(boost::system::error_code{});
                                  }));
      };
      auto launch_more = [&] {
        if constexpr (any_node_limit) {  // in node order, skipping the nodes at their limits
          for (std::size_t c = 0; c < count && launched - finished.load() < limit; ++c) {
            const std::size_t node = coroutines[c].first.node;
            if (phase[c] == not_started && (node_limits[node] == 0 || running_of[node].load() < node_limits[node]))
              launch(c);
          }
        } else {
          while (launched < count && launched - finished.load() < limit) launch(launched);
        }
      };
      launch_more();
      // The plain tasks run here, while the coroutines wait for this one to suspend.
      auto run_plain = [&](std::size_t i) {
        try {
          App::template task_table<Ctx>[i](app.node_at(i), state, context, config, f.results.place(i),
                                           f.results.engaged(i));
        } catch (...) {
          f.failures[i] = std::current_exception();
        }
      };
      for (const task& t : plain) {
        if (t.send == none) {
          if constexpr (Observer::streams) {
            streamed_plain(app, f, t.node);
          } else if constexpr (Observer::persists) {  // where sg::interrupt finds the node's answers
            task_scope scope{t.node, observer.resume_values(t.node), 0, observer.child_run(t.node)};
            task_scope_guard guard(&scope);
            run_plain(t.node);
          } else {
            run_plain(t.node);
          }
        } else {
          send_table<Ctx, Observer>[t.node](f, t.send);
        }
      }

      enum class stop { no, cancelled, expired } stopped = stop::no;
      while (finished.load() < launched || (stopped == stop::no && launched < count)) {
        if (stopped == stop::no) launch_more();
        bool expired = false, cancelled = false;
        try {
          if (deadline && stopped == stop::no) {
            using namespace boost::asio::experimental::awaitable_operators;
            auto r = co_await (wake.async_receive(boost::asio::use_awaitable) ||
                               deadline->async_wait(boost::asio::use_awaitable));
            expired = r.index() == 1;
          } else {
            co_await wake.async_receive(boost::asio::use_awaitable);
          }
        } catch (const boost::system::system_error&) {
          cancelled = true;
        }
        if (cancelled) co_await boost::asio::this_coro::reset_cancellation_state();
        if ((expired || cancelled) && stopped == stop::no) {
          stopped = expired ? stop::expired : stop::cancelled;
          for (std::size_t c = 0; c < count; ++c)
            if (phase[c] == started) signals[c].emit(boost::asio::cancellation_type::terminal);
        }
      }
      if (stopped == stop::expired) throw deadline_error(step_no, running());
      if (stopped == stop::cancelled) throw cancelled_error(step_no, running());
    }

    // A task's completion may have resumed this step inline, inside the task's scope, which
    // ends with this step's frame: what runs from here on is no node's task.
    if constexpr (Observer::persists) current_task = nullptr;

    // The routers run after the barrier, on the merged state, in branch order (a coroutine
    // router is awaited), and add their choices to the next position as run_routers would.
    auto ran = at.active;
    if constexpr (App::has_sends)
      for_each_index<A::size>([&]<std::size_t I>() {
        if (!std::get<I>(at.sends).empty()) ran.set(I);
      });
    app.template finish_step<Ctx, Observer, false>(state, at, f, observer);
    for (std::size_t b = 0; b < A::branch_count; ++b) {
      if (!ran.test(App::branch_sources[b])) continue;
      if (route_coroutines[b])
        co_await route_coroutines[b](app, state, at.active, at.sends);
      else
        app.route_branch(b, state, at.active, at.sends);
    }
    co_return at.any();
  }

  // Branch B's router when it is a coroutine: its choice into the next frontier, or its
  // sends into the next step's queues.
  template <std::size_t B>
  static awaitable<void> route_coroutine(const App& app, const S& state, typename App::set& next,
                                         typename App::queues_type& sends) {
    using R = typename App::template router_t<B>;
    using go_type = typename A::template branch_parts<typename A::template branch_at<B>>::go_type;
    auto choice = co_await detail::slot_at<B>(app.routers_)(node_view_t<R, S>{declared_view_t<R, S>(state)});
    if constexpr (is_go<go_type>::value)
      add_chosen(next, choice, A::branch_table[B].target_list.data());
    else
      enqueue<typename A::names>(sends, std::move(choice));
  }
  using route_fn = awaitable<void> (*)(const App&, const S&, typename App::set&, typename App::queues_type&);
  template <std::size_t B>
  static constexpr route_fn route_entry() {
    using R = typename App::template router_t<B>;
    using result = std::remove_cvref_t<decltype(std::declval<const R&>()(
        std::declval<node_view_t<R, S>>()))>;
    if constexpr (async_result<result>::is_async)
      return &route_coroutine<B>;
    else
      return nullptr;
  }
  static constexpr auto route_coroutines = []<std::size_t... B>(std::index_sequence<B...>) {
    return std::array<route_fn, A::branch_count>{route_entry<B>()...};
  }
  (std::make_index_sequence<A::branch_count>{});

  // ---- limits ------------------------------------------------------------------------------

  // A node's own limit on its tasks of one step running at once (its call and its send
  // copies): `static constexpr std::size_t max_concurrency = n;` in the node; 0: none.
  template <class N>
  static constexpr std::size_t node_limit_of() {
    if constexpr (requires { N::max_concurrency; })
      return static_cast<std::size_t>(N::max_concurrency);
    else
      return 0;
  }
  static constexpr auto node_limits = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::size_t, A::size>{node_limit_of<typename App::template node_t<I>>()...};
  }
  (std::make_index_sequence<A::size>{});
  static constexpr bool any_node_limit = [] {
    for (std::size_t n : node_limits)
      if (n > 0) return true;
    return false;
  }();

  // ---- which steps need coroutines ---------------------------------------------------------

  template <std::size_t I, class Ctx>
  static constexpr bool node_is_coroutine() {
    if constexpr (App::template plain_t<I, Ctx>::value)
      return is_coroutine_call<typename App::template node_t<I>, S, Ctx>;
    else
      return false;
  }
  template <std::size_t I, class Ctx>
  static constexpr bool send_is_coroutine() {
    if constexpr (App::has_sends) {
      using Q = typename App::template queue_t<I>;
      if constexpr (!std::is_same_v<Q, no_queue>)
        return is_coroutine_call<typename App::template node_t<I>, S, Ctx, typename Q::value_type>;
    }
    return false;
  }
  // Per node: its call, its send copies, or a router leaving it is a coroutine.
  template <class Ctx>
  static constexpr auto coroutine_node = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, A::size>{node_is_coroutine<I, Ctx>()...};
  }
  (std::make_index_sequence<A::size>{});
  template <class Ctx>
  static constexpr auto coroutine_send = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, A::size>{send_is_coroutine<I, Ctx>()...};
  }
  (std::make_index_sequence<A::size>{});
  static constexpr auto coroutine_router_from = [] {
    std::array<bool, A::size> out{};
    for (std::size_t b = 0; b < A::branch_count; ++b)
      if (route_coroutines[b] && App::branch_sources[b] < A::size) out[App::branch_sources[b]] = true;
    return out;
  }();
  template <class Ctx>
  static constexpr bool any_coroutine() {
    for (std::size_t i = 0; i < A::size; ++i)
      if (coroutine_node<Ctx>[i] || coroutine_send<Ctx>[i] || coroutine_router_from[i]) return true;
    return false;
  }
  template <class Ctx>
  static bool needs_coroutines(const position& at) {
    bool any = false;
    at.active.for_each([&](std::size_t i) { any = any || coroutine_node<Ctx>[i] || coroutine_router_from[i]; });
    if constexpr (App::has_sends)
      for_each_index<A::size>([&]<std::size_t I>() {
        if (!std::get<I>(at.sends).empty() && (coroutine_send<Ctx>[I] || coroutine_router_from[I])) any = true;
      });
    return any;
  }
  static std::vector<std::string> active_names(const position& at) {
    std::vector<std::string> names;
    for_each_index<A::size>([&]<std::size_t I>() {
      bool sent = false;
      if constexpr (App::has_sends) sent = !std::get<I>(at.sends).empty();
      if (at.active.test(I) || sent) names.emplace_back(App::node_names[I]);
    });
    return names;
  }

  template <class Ctx, class Observer = quiet>
  static constexpr auto send_table = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<void (*)(frame_t<Ctx, Observer>&, std::size_t), A::size>{
        &App::template run_send_task<I, Ctx, Observer>...};
  }
  (std::make_index_sequence<A::size>{});
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace detail

// One step of an async run, on `state` and `at` (app.begin_run gives the first position):
// false when nothing is left to run. A step that fails, times out or is cancelled throws
// and leaves both as they were.
template <class App, class Ctx>
detail::awaitable<bool> async_step(const App& app, typename App::state_type& state, typename App::position_type& at,
                                   Ctx& context, run_config config = {}, async_options options = {}) {
  std::optional<boost::asio::steady_timer> deadline;
  if (options.deadline.count() > 0) deadline.emplace(co_await boost::asio::this_coro::executor, options.deadline);
  co_return co_await detail::async_runs<App>::step(app, state, at, context, config, options,
                                                   deadline ? &*deadline : nullptr);
}

}  // namespace stategraph
