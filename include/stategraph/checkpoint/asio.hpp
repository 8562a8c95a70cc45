// Checkpointed async runs (opt-in): a durable app's steps awaited on an Asio executor,
// `co_await app.async_invoke(input, thread[, checkpoint_id][, ctx][, run_config][,
// sg::async_options])` and `co_await app.async_resume(thread[, checkpoint_id, value or
// sg::answers][, ctx][, ...])`, and `co_await app.async_stream(input, thread, mode[, ctx],
// callback[, ...])` as stream. They put the same checkpoints as invoke and resume: each step
// is the async step of <stategraph/asio.hpp>, with the durable runner as its observer. The
// store is called inline, on the run's thread, between steps (a commit blocks that thread for
// the store's put; durability::async moves the put to the app's commit thread). A step that
// is cancelled or passes the deadline writes nothing, so the thread resumes from the last
// checkpoint; one that fails is recorded as invoke records it. A coroutine node may call
// sg::interrupt: each coroutine task resumes with its own per-thread scope installed. A
// subgraph node whose child has coroutines awaits the child's checkpointed run.
#pragma once

#include <stategraph/asio.hpp>
#include <stategraph/checkpoint/durable.hpp>

#include <boost/asio/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph::detail {

// What may follow an async run's leading arguments: [ctx&][, run_config][, async_options].
template <class T>
concept async_tail_head =
    std::is_same_v<std::remove_cvref_t<T>, run_config> || std::is_same_v<std::remove_cvref_t<T>, async_options> ||
    (std::is_lvalue_reference_v<T> && user_context<std::remove_reference_t<T>>);
// The whole tail [ctx&][, run_config][, async_options], so that other arguments fit no
// overload and reach the app's catch-all (rules/misuse.hpp).
template <class T>
inline constexpr bool async_tail_config = std::is_same_v<std::remove_cvref_t<T>, run_config>;
template <class T>
inline constexpr bool async_tail_options = std::is_same_v<std::remove_cvref_t<T>, async_options>;
template <class T>
inline constexpr bool async_tail_context = std::is_lvalue_reference_v<T> &&
                                           user_context<std::remove_reference_t<T>> && !async_tail_options<T>;
template <class... T>
inline constexpr bool async_tail_fits = false;
template <>
inline constexpr bool async_tail_fits<> = true;
template <class T>
inline constexpr bool async_tail_fits<T> = async_tail_config<T> || async_tail_options<T> || async_tail_context<T>;
template <class T, class U>
inline constexpr bool async_tail_fits<T, U> =
    (async_tail_context<T> && (async_tail_config<U> || async_tail_options<U>)) ||
    (async_tail_config<T> && async_tail_options<U>);
template <class T, class U, class V>
inline constexpr bool async_tail_fits<T, U, V> = async_tail_context<T> && async_tail_config<U> && async_tail_options<V>;

template <class Durable>
struct async_durable_runs {
  using S = typename Durable::state_type;
  using App = typename Durable::app_type;
  using A = typename Durable::analysis_type;
  using runner = typename Durable::runner;
  using changed_set = node_set<channel_count<S>>;

  // ---- entry points ----------------------------------------------------------------------

  // As invoke: a whole or a partial input onto the thread's latest state, or (given a
  // checkpoint id) onto that checkpoint's, as a fork.
  template <class... Tail>
    requires async_tail_fits<Tail...>
  static awaitable<S> invoke(const Durable& app, S input, const thread_id& thread, Tail&&... tail) {
    return with_tail(
        [&]<class Ctx>(Ctx* context, const run_config& config, async_options options) {
          return run_input<Ctx>(app, std::move(input), thread, std::nullopt, context, config, options);
        },
        std::forward<Tail>(tail)...);
  }
  template <class... Tail>
    requires async_tail_fits<Tail...>
  static awaitable<S> invoke(const Durable& app, S input, const thread_id& thread, checkpoint_id from,
                             Tail&&... tail) {
    return with_tail(
        [&]<class Ctx>(Ctx* context, const run_config& config, async_options options) {
          return run_input<Ctx>(app, std::move(input), thread, from, context, config, options);
        },
        std::forward<Tail>(tail)...);
  }
  template <class... E, class... Tail>
    requires async_tail_fits<Tail...>
  static awaitable<S> invoke(const Durable& app, patch<E...> input, const thread_id& thread, Tail&&... tail) {
    return with_tail(
        [&]<class Ctx>(Ctx* context, const run_config& config, async_options options) {
          return run_input<Ctx>(app, std::move(input), thread, std::nullopt, context, config, options);
        },
        std::forward<Tail>(tail)...);
  }
  template <class... E, class... Tail>
    requires async_tail_fits<Tail...>
  static awaitable<S> invoke(const Durable& app, patch<E...> input, const thread_id& thread, checkpoint_id from,
                             Tail&&... tail) {
    return with_tail(
        [&]<class Ctx>(Ctx* context, const run_config& config, async_options options) {
          return run_input<Ctx>(app, std::move(input), thread, from, context, config, options);
        },
        std::forward<Tail>(tail)...);
  }
  // The thread's latest checkpoint continued.
  static awaitable<S> resume(const Durable& app, const thread_id& thread) {
    return run_resume<run_context>(app, thread, reply{}, nullptr, run_config{}, async_options{});
  }
  template <async_tail_head First, class... Tail>
    requires async_tail_fits<First, Tail...>
  static awaitable<S> resume(const Durable& app, const thread_id& thread, First&& first, Tail&&... tail) {
    return with_tail(
        [&]<class Ctx>(Ctx* context, const run_config& config, async_options options) {
          return run_resume<Ctx>(app, thread, reply{}, context, config, options);
        },
        std::forward<First>(first), std::forward<Tail>(tail)...);
  }
  // An older checkpoint's next nodes run again, as a new branch of history.
  template <class... Tail>
    requires async_tail_fits<Tail...>
  static awaitable<S> resume(const Durable& app, const thread_id& thread, checkpoint_id from, Tail&&... tail) {
    return with_tail(
        [&]<class Ctx>(Ctx* context, const run_config& config, async_options options) {
          return run_resume<Ctx>(app, thread, reply{.from = from}, context, config, options);
        },
        std::forward<Tail>(tail)...);
  }
  // The pending interrupts answered: one by value, or each by id (sg::answers).
  template <class V, class... Tail>
    requires(std::is_same_v<std::remove_cvref_t<V>, answers> ||
             (resume_answer<V> && !async_tail_head<V>)) && async_tail_fits<Tail...>
  static awaitable<S> resume(const Durable& app, const thread_id& thread, const V& value, Tail&&... tail) {
    reply given;
    if constexpr (std::is_same_v<std::remove_cvref_t<V>, answers>)
      given.by_id = value;
    else
      given.one = json_text(value);
    return with_tail(
        [&]<class Ctx>(Ctx* context, const run_config& config, async_options options) {
          return run_resume<Ctx>(app, thread, std::move(given), context, config, options);
        },
        std::forward<Tail>(tail)...);
  }

  // As stream(input, thread, mode[, ctx], callback[, run_config]), then the options; the
  // callback is moved into the run.
  template <class Callback, class... Tail>
    requires std::is_invocable_v<Callback&, const event<S>&> &&
             (async_tail_fits<Tail...> && !(async_tail_context<Tail> || ...))
  static awaitable<S> stream(const Durable& app, S input, const thread_id& thread, stream_mode mode,
                             Callback callback, Tail&&... tail) {
    return with_tail(
        [&]<class Ctx>(Ctx* context, const run_config& config, async_options options) {
          return run_stream<Ctx>(app, std::move(input), thread, mode, context, std::move(callback), config, options);
        },
        std::forward<Tail>(tail)...);
  }
  template <class Ctx, class Callback, class... Tail>
    requires user_context<Ctx> && (!async_tail_options<Ctx>) &&
             std::is_invocable_v<Callback&, const event_for<S, Ctx>&> &&
             (async_tail_fits<Tail...> && !(async_tail_context<Tail> || ...))
  static awaitable<S> stream(const Durable& app, S input, const thread_id& thread, stream_mode mode, Ctx& context,
                             Callback callback, Tail&&... tail) {
    return with_tail(
        [&]<class C>(C*, const run_config& config, async_options options) {
          return run_stream<Ctx>(app, std::move(input), thread, mode, &context, std::move(callback), config, options);
        },
        std::forward<Tail>(tail)...);
  }

  // ---- the runs --------------------------------------------------------------------------

  // Each takes its arguments by value: the coroutine outlives the call that made it. The
  // app, the context and the store must outlive the co_await.
  template <class Ctx, class In>
  static awaitable<S> run_input(const Durable& app, In input, thread_id thread, std::optional<checkpoint_id> from,
                                Ctx* given, run_config config, async_options options) {
    constexpr bool whole = std::is_same_v<In, S>;
    if constexpr (!input_fits<In>()) {
      co_return S{};  // SG014 has printed its diagnostic
    } else {
      run_context own;
      Ctx& context = pick(given, own);
      const auto running = app.claim(thread.value);
      runner r(app, thread.value, config.durability);
      const auto apply = [&](checkpoint_source source, std::int64_t parent) {
        if constexpr (whole)
          r.apply_input(std::move(input), source, parent);
        else
          r.apply_partial(std::move(input), source, parent);
      };
      if (from) {
        r.load(app.fetch(thread, *from));
        apply(checkpoint_source::fork, from->value);
      } else {
        if (!whole || !r.resume_cached()) {
          auto latest = app.store_->get(thread.value);
          if (latest) r.load(*latest);
        }
        apply(checkpoint_source::input, r.loaded_id());
      }
      S out = co_await drive(app, r, context, config, options, false);
      if (whole && !from) r.keep_head();
      co_return out;
    }
  }
  // What a resume answers: nothing, the one pending interrupt (JSON text), or several by id;
  // or the older checkpoint it forks from.
  struct reply {
    std::optional<std::string> one{};
    std::optional<answers> by_id{};
    std::optional<checkpoint_id> from{};
  };
  template <class Ctx>
  static awaitable<S> run_resume(const Durable& app, thread_id thread, reply answered, Ctx* given, run_config config,
                                 async_options options) {
    run_context own;
    Ctx& context = pick(given, own);
    const auto running = app.claim(thread.value);
    runner r(app, thread.value, config.durability);
    if (answered.from) {
      r.load(app.fetch(thread, *answered.from));
      if constexpr (Durable::has_subgraphs)
        r.fork_with_pending(answered.from->value, true);  // as resume(thread, from)
      else
        r.fork_here(answered.from->value);
      co_return co_await drive(app, r, context, config, options, true);
    }
    r.load(app.fetch_latest(thread));
    r.load_pending();
    if (answered.one) {
      r.answer_interrupts(*answered.one);
    } else if (answered.by_id) {
      r.answer(*answered.by_id);
    } else if (!r.has_work()) {
      throw checkpoint_error("stategraph: thread '" + thread.value +
                             "' has nothing to resume (its run is over); nothing was changed");
    }
    co_return co_await drive(app, r, context, config, options, true);
  }

  // As stream(input, thread, mode, ...): the input onto the thread's latest state, each step
  // reported through a streamed runner and committed as it commits.
  template <class Ctx, class Callback>
  static awaitable<S> run_stream(const Durable& app, S input, thread_id thread, stream_mode mode, Ctx* given,
                                 Callback callback, run_config config, async_options options) {
    run_context own;
    Ctx& context = pick(given, own);
    using event_t = event_for<S, Ctx>;
    auto sink = [&](event_t&& e) { callback(static_cast<const event_t&>(e)); };
    const auto running = app.claim(thread.value);
    streamer<S, A::size, decltype(sink), typename custom_of<Ctx>::type> s{mode, App::node_names, sink};
    typename Durable::template runner_of<decltype(s)> r(app, thread.value, config.durability, &s);
    app.start_stream(r, std::move(input), thread);
    s.values(0, r.state);
    co_return co_await drive(app, r, context, config, options, false);
  }

  // The runner's hooks for an async step, except that the step's checkpoint waits until the
  // routers (run after the barrier in an async step) have chosen the next nodes.
  template <class Runner = runner>
  struct deferred_commit_of {
    static constexpr bool streams = false;
    static constexpr bool persists = true;
    Runner& r;
    std::optional<changed_set> done{};

    template <std::size_t I, class Slot>
    bool restore(Slot slot) {
      return r.template restore<I>(slot);
    }
    const std::vector<std::string>* resume_values(std::size_t node) const { return r.resume_values(node); }
    bool waits(std::size_t node) const { return r.waits(node); }
    template <std::size_t I, class R>
    bool restore_send(std::size_t k, std::optional<R>& slot) {
      return r.template restore_send<I>(k, slot);
    }
    const std::vector<std::string>* send_resume_values(std::size_t node, std::size_t k) const {
      return r.send_resume_values(node, k);
    }
    bool send_waits(std::size_t node, std::size_t k) const { return r.send_waits(node, k); }
    const void* child_run(std::size_t node) const { return r.child_run(node); }
    template <class... T>
    void step_failed(T&... args) {
      r.step_failed(args...);
    }
    template <class... T>
    void step_paused(T&... args) {
      r.step_paused(args...);
    }
    void before_merge(const S& s) { r.before_merge(s); }
    template <class Position>
    void step_done(const S&, const Position&, const changed_set& changed) {
      done = changed;
    }

    // A subgraph node whose child has coroutines: its checkpointed run is awaited, its steps
    // async steps as this run's are, not run in place.
    template <std::size_t I, class Ctx>
    static constexpr bool awaits_child() {
      using N = typename A::template node<I>;
      if constexpr (subgraph_node<N>) {
        using child_runs = async_durable_runs<typename runner::template child_session<I>::child_durable>;
        return async_runs<typename N::child_app>::template any_coroutine<Ctx>() ||
               child_runs::template any_awaited_child<Ctx>();
      } else {
        return false;
      }
    }
    template <std::size_t I, class Ctx>
    awaitable<typename A::template node<I>::result_type> run_child(const S& state, Ctx& context,
                                                                   const run_config& config) {
      using N = typename A::template node<I>;
      using child_runs = async_durable_runs<typename runner::template child_session<I>::child_durable>;
      auto session = r.template open_child_on<I>(state);
      std::optional<typename N::child_state> out;
      try {
        out.emplace(
            co_await child_runs::drive(session->d, session->r, context, config, async_options{}, session->resuming));
      } catch (const node_error& e) {  // the child's node named as parent/child, as in place
        throw node_error(std::string(N::name) + "/" + std::string(e.node()), e.step(), e.cause());
      }
      co_return r.template child_result<I>(state, *session, std::move(*out));
    }
  };
  using deferred_commit = deferred_commit_of<>;
  // A streamed runner's hooks: its stream hooks, except that the step's values event waits
  // for the step's checkpoint, as it follows it in a synchronous stream.
  template <class Runner>
  struct streamed_commit : deferred_commit_of<Runner> {
    static constexpr bool streams = true;
    stream_mode mode;
    std::optional<std::size_t> values_of{};

    template <class Set, class Failures, class Took, class Children>
    void tasks(std::size_t step, const Set& active, const Failures& failures, const Took& took, Children& children) {
      this->r.tasks(step, active, failures, took, children);
    }
    template <class Patch>
    void update(std::size_t step, std::string_view node, const Patch& patch) {
      this->r.update(step, node, patch);
    }
    void values(std::size_t step, const S&) { values_of = step; }
    auto custom_scope(std::size_t node) { return this->r.custom_scope(node); }
    void after_commit() {
      if (values_of) this->r.values(*values_of, this->r.state);
    }
  };

  // Whether any subgraph node of this graph has its child's run awaited.
  template <class Ctx>
  static constexpr bool any_awaited_child() {
    bool any = false;
    for_each_index<A::size>([&]<std::size_t I>() { any = any || deferred_commit::template awaits_child<I, Ctx>(); });
    return any;
  }
  template <class Ctx>
  static constexpr auto awaited_children = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, A::size>{deferred_commit::template awaits_child<I, Ctx>()...};
  }
  (std::make_index_sequence<A::size>{});
  template <class Ctx>
  static bool awaits_a_child(const typename A::set& active) {
    if constexpr (!any_awaited_child<Ctx>()) {
      return false;
    } else {
      bool any = false;
      active.for_each([&](std::size_t i) { any = any || awaited_children<Ctx>[i]; });
      return any;
    }
  }

  // The run's steps, as runner::run takes them: a step without coroutines is the runner's
  // own; one with coroutines is awaited. Whatever stops the run, what it finished is committed.
  template <class Ctx, class Runner>
  static awaitable<S> drive(const Durable& app, Runner& r, Ctx& context, const run_config& config,
                            const async_options& options, bool resuming) {
    if constexpr (!rules::check_all<typename App::graph_type, A, Ctx>()) {
      co_return r.state;  // the rule has printed its diagnostic
    } else {
      using steps = async_runs<App>;
      std::optional<boost::asio::steady_timer> deadline;
      if (options.deadline.count() > 0) deadline.emplace(co_await boost::asio::this_coro::executor, options.deadline);
      bool skip_before = resuming;
      try {
        for (;;) {
          if (deadline && r.at.any() && deadline->expiry() <= boost::asio::steady_timer::clock_type::now())
            throw deadline_error(r.at.step + 1, steps::active_names(r.at));
          if constexpr (Runner::streams) {  // as an async stream: a callback may stop the run
            const boost::asio::cancellation_state now = co_await boost::asio::this_coro::cancellation_state;
            if (r.at.any() && now.cancelled() != boost::asio::cancellation_type::none)
              throw cancelled_error(r.at.step + 1, steps::active_names(r.at));
          }
          if (!steps::template needs_coroutines<Ctx>(r.at) && !awaits_a_child<Ctx>(r.at.active)) {
            if (!r.step_once(context, config, skip_before)) break;
            continue;
          }
          typename A::set ran{};
          if (!r.begin_step(context, config, skip_before, ran)) break;
          std::conditional_t<Runner::streams, streamed_commit<Runner>, deferred_commit> hooks{{r}};
          if constexpr (Runner::streams) hooks.mode = r.mode;
          // A stream's callback that cancels the run within a step cuts a coroutine router of
          // it short: reported as that step's cancellation, the step not committed.
          const std::size_t step_no = r.at.step + 1;
          std::vector<std::string> names;
          if constexpr (Runner::streams) names = steps::active_names(r.at);
          std::exception_ptr aborted;
          try {
            co_await steps::step(app.plain(), r.state, r.at, context, config, options,
                                 deadline ? &*deadline : nullptr, &hooks);
          } catch (const paused_step&) {
            break;
          } catch (const boost::system::system_error& e) {
            if (!Runner::streams || e.code() != boost::asio::error::operation_aborted) throw;
            aborted = std::current_exception();
          }
          if (aborted) {
            const boost::asio::cancellation_state now = co_await boost::asio::this_coro::cancellation_state;
            if (now.cancelled() == boost::asio::cancellation_type::none) std::rethrow_exception(aborted);
            throw cancelled_error(step_no, std::move(names));
          }
          if (hooks.done) r.step_done(r.state, r.at, *hooks.done);
          if constexpr (Runner::streams) hooks.after_commit();
          if (!r.end_step(ran)) break;
        }
      } catch (...) {
        try {  // as runner::run: the steps before the failure stay committed
          r.settle();
        } catch (...) {
        }
        throw;
      }
      r.settle();
      co_return r.state;
    }
  }

 private:
  template <class In>
  static constexpr bool input_fits() {
    if constexpr (std::is_same_v<In, S>)
      return true;
    else
      return rules::check_partial_input<S, In>();
  }
  template <class Ctx>
  static Ctx& pick(Ctx* given, run_context& own) {
    if constexpr (std::is_same_v<Ctx, run_context>)
      return given ? *given : own;
    else
      return *given;
  }
  // f(context pointer, run_config, async_options) from [ctx&][, run_config][, async_options].
  template <class F>
  static auto with_tail(F&& f) {
    return f(static_cast<run_context*>(nullptr), run_config{}, async_options{});
  }
  template <class F>
  static auto with_tail(F&& f, const run_config& config, async_options options = {}) {
    return f(static_cast<run_context*>(nullptr), config, options);
  }
  template <class F>
  static auto with_tail(F&& f, async_options options) {
    return f(static_cast<run_context*>(nullptr), run_config{}, options);
  }
  template <class F, class Ctx>
    requires user_context<Ctx> && (!std::is_same_v<std::remove_const_t<Ctx>, async_options>)
  static auto with_tail(F&& f, Ctx& context, const run_config& config = {}, async_options options = {}) {
    return f(&context, config, options);
  }
  template <class F, class Ctx>
    requires user_context<Ctx> && (!std::is_same_v<std::remove_const_t<Ctx>, async_options>)
  static auto with_tail(F&& f, Ctx& context, async_options options) {
    return f(&context, run_config{}, options);
  }
};

}  // namespace stategraph::detail
