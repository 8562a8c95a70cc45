// The app: what sg::compile returns. Runs supersteps (BSP): every active node reads the
// snapshot of the step start, and their patches merge at the barrier in node order.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/errors.hpp>
#include <stategraph/events.hpp>
#include <stategraph/executor.hpp>
#include <stategraph/retry.hpp>
#include <stategraph/node.hpp>
#include <stategraph/rules.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/schema.hpp>
#include <stategraph/send.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/pfr/core.hpp>
#include <range/v3/view/facade.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

// LangGraph Python's default since 2026 (LangGraph.js keeps 25). A run that needs exactly
// `recursion_limit` supersteps passes; one more throws recursion_limit_error.
inline constexpr std::size_t default_recursion_limit = 10'000;

struct run_config {
  std::size_t recursion_limit = default_recursion_limit;
  // How a retry waits (tests inject a recorder; empty = std::this_thread::sleep_for).
  std::function<void(std::chrono::nanoseconds)> sleep{};
};

// Checkpointed runs (opt-in: #include <stategraph/checkpoint.hpp>).
struct thread_id {
  std::string value;
  friend bool operator==(const thread_id&, const thread_id&) = default;
};
template <class Store>
struct store_option {
  Store* store;
};
template <class Store>
constexpr store_option<Store> with_store(Store& store) {
  return {&store};
}
// Static interrupts: pause a checkpointed run before these nodes run, or after they ran.
template <class... Nodes>
struct interrupt_before {
  using list = detail::mp_list<Nodes...>;
};
template <class... Nodes>
struct interrupt_after {
  using list = detail::mp_list<Nodes...>;
};
template <class App, class Store, class Before, class After>
class durable_app;  // defined in <stategraph/checkpoint/durable.hpp>

template <class Executor>
struct executor_option {
  Executor executor;
};
template <class Executor>
constexpr executor_option<Executor> with_executor(Executor e) {
  return {std::move(e)};
}

namespace detail {

template <class T>
struct is_executor_option : std::false_type {};
template <class E>
struct is_executor_option<executor_option<E>> : std::true_type {};

template <class T>
using list_of = typename T::list;
template <class T>
concept is_complete = requires { sizeof(T); };

template <class T>
struct is_store_option : std::false_type {};
template <class S>
struct is_store_option<store_option<S>> : std::true_type {};
template <class T>
struct is_before : std::false_type {};
template <class... N>
struct is_before<interrupt_before<N...>> : std::true_type {};
template <class T>
struct is_after : std::false_type {};
template <class... N>
struct is_after<interrupt_after<N...>> : std::true_type {};

template <class... Args>
struct executor_among {
  using type = sequential;
};
template <class First, class... Rest>
struct executor_among<First, Rest...> {
  using type = typename executor_among<Rest...>::type;
};
template <class E, class... Rest>
struct executor_among<executor_option<E>, Rest...> {
  using type = E;
};

// Folds a patch into the state, entry by entry, through each channel's reducer; marks the
// channels written in `changed` when the caller tracks them. Plain folds rather than
// std::apply and lambdas: every level of call is one more inlining decision the compiler
// may refuse on the hot path.
template <class S, class Entry, class Changed>
constexpr void apply_entry(S& state, Entry& e, Changed changed) {
  if (e.present()) {
    reduce_into(state.*(Entry::channel), e.take());
    if constexpr (!std::is_same_v<Changed, std::nullptr_t>) changed->set(channel_index<S, Entry::channel>());
  }
}
template <class S, class Changed, class... E, std::size_t... K>
constexpr void apply_entries([[maybe_unused]] S& state, [[maybe_unused]] std::tuple<E...>& entries,
                             [[maybe_unused]] Changed changed, std::index_sequence<K...>) {
  (apply_entry(state, std::get<K>(entries), changed), ...);
}
template <class S, class Changed, class... E>
constexpr void apply_patch(S& state, patch<E...>&& p, Changed changed) {  // Changed: set* or nullptr_t
  apply_entries(state, p.entries, changed, std::index_sequence_for<E...>{});
}

template <class S, class... E>
std::vector<std::string_view> written_channels(const patch<E...>& p) {
  std::vector<std::string_view> out;
  std::apply([&](const auto&... e) { ((e.present() ? out.push_back(channel_name<std::remove_cvref_t<decltype(e)>::channel>()) : void()), ...); },
             p.entries);
  return out;
}

// The input of a run is applied like an update onto a default-constructed state.
template <class S>
constexpr void apply_input(S& state, S&& input) {
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    auto& to = boost::pfr::get<I>(state);
    auto& from = boost::pfr::get<I>(input);
    using F = std::remove_reference_t<decltype(to)>;
    using V = typename channel_traits<F>::value_type;
    if constexpr (accepts_write<F, V&&>) {
      // Appending a whole list onto an empty one is the list itself: take its buffer rather
      // than move its elements one by one (or call insert for an empty input).
      if constexpr (std::is_same_v<typename channel_traits<F>::reducer, concat> && std::is_move_assignable_v<V> &&
                    requires(const V& v) { v.empty(); }) {
        if (V& into = channel_traits<F>::value(to); into.empty()) {
          into = std::move(channel_traits<F>::value(from));
          return;
        }
      }
      reduce_into(to, std::move(channel_traits<F>::value(from)));
    } else {
      to = std::move(from);
    }
  });
}

// The channels an input sets: a non-empty container, a value other than its default.
template <class S>
node_set<channel_count<S>> input_touches(const S& input) {
  node_set<channel_count<S>> touched{};
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    using F = field_type_t<S, I>;
    using V = typename channel_traits<F>::value_type;
    const V& v = channel_traits<F>::value(boost::pfr::get<I>(input));
    if constexpr (requires { v.empty(); }) {
      if (!v.empty()) touched.set(I);
    } else if constexpr (std::equality_comparable<V>) {
      if (!(v == V{})) touched.set(I);
    } else {
      touched.set(I);
    }
  });
  return touched;
}

template <class S>
constexpr void clear_ephemeral(S& state) {
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    using F = field_type_t<S, I>;
    if constexpr (channel_traits<F>::kind == channel_kind::ephemeral)
      channel_traits<F>::value(boost::pfr::get<I>(state)) = typename channel_traits<F>::value_type{};
  });
}

template <class S>
constexpr void mark_ephemeral(node_set<channel_count<S>>& changed) {
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    if constexpr (channel_traits<field_type_t<S, I>>::kind == channel_kind::ephemeral) changed.set(I);
  });
}

template <class S>
inline constexpr bool has_ephemeral = [] {
  bool any = false;
  for_each_index<channel_count<S>>(
      [&]<std::size_t I>() { any = any || channel_traits<field_type_t<S, I>>::kind == channel_kind::ephemeral; });
  return any;
}();

// A node's result as the runtime keeps it: its update and, for a command, where it goes.
template <class R>
struct step_result {
  using patch_type = typename result_kind<R>::patch_type;
  using go_type = typename result_kind<R>::go_type;
  static constexpr bool sends_work = send_traits<R>::is_send;
  patch_type update;
  std::conditional_t<std::is_void_v<go_type>, std::nullptr_t, std::optional<go_type>> next{};
  std::conditional_t<sends_work, typename sends_holder<R>::type, std::nullptr_t> sends{};
};


// Converts to what its function returns: emplacing one of these into an optional builds
// the value in place from the function's result, with no move.
template <class F>
struct deferred {
  F make;
  operator std::invoke_result_t<F&>() { return make(); }
};
template <class F>
deferred(F) -> deferred<F>;

// The index of a set's only member, or none when it has no member or several.
template <std::size_t N>
constexpr std::size_t only_member(const node_set<N>& s) {
  std::size_t found = none;
  for (std::size_t w = 0; w < s.bits.size(); ++w) {
    const std::uint64_t bits = s.bits[w];
    if (!bits) continue;
    if (found != none || (bits & (bits - 1))) return none;
    found = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
  }
  return found;
}

// The results of a step's nodes, each built in place from a `deferred` call, first to
// last: the members of an aggregate are initialised in declaration order (a std::tuple's
// elements are not — libstdc++ builds them last to first — and moving results into one
// costs a move of every written value). Built with brace elision, `{d0, d1, d2}`, which
// measured fewer instructions with GCC than nested braces or constructors.
template <class... R>
struct in_order;
template <class R>
struct in_order<R> {
  R first;
  template <std::size_t K>
  R& get() {
    static_assert(K == 0);
    return first;
  }
};
template <class R, class... Rest>
struct in_order<R, Rest...> {
  R first;
  in_order<Rest...> rest;
  template <std::size_t K>
  auto& get() {
    if constexpr (K == 0) return first;
    else return rest.template get<K - 1>();
  }
};

// Indexed storage: element I is a base slot<I, T>, so reaching it is one derived-to-base
// conversion (no std::tuple_element/_Nth_type walk, no recursive _Tuple_impl).
template <std::size_t I, class T>
struct slot {
  T value;
};
template <class Seq, class... T>
struct slots_base;
template <std::size_t... I, class... T>
struct slots_base<std::index_sequence<I...>, T...> : slot<I, T>... {
  slots_base() = default;
  template <class... U>
  explicit slots_base(std::in_place_t, U&&... u) : slot<I, T>{std::forward<U>(u)}... {}
};
template <class... T>
struct slots : slots_base<std::index_sequence_for<T...>, T...> {
  using slots_base<std::index_sequence_for<T...>, T...>::slots_base;
};
template <std::size_t I, class T>
constexpr T& slot_at(slot<I, T>& s) noexcept {
  return s.value;
}
template <std::size_t I, class T>
constexpr const T& slot_at(const slot<I, T>& s) noexcept {
  return s.value;
}

// Observers see each step. `quiet` is the one invoke uses: it compiles to nothing.
struct quiet {
  static constexpr bool streams = false;
  static constexpr bool durable = false;
};

// The durable runner (checkpoint/json.hpp) pauses a run by throwing this out of a step.
struct run_paused {};

// Where sg::interrupt finds the node it runs in and the values a resume gave it.
struct task_scope {
  std::size_t node = 0;
  const std::vector<std::string>* resume = nullptr;  // JSON texts, one per interrupt call
  std::size_t next_interrupt = 0;
};
inline thread_local task_scope* current_task = nullptr;

struct task_scope_guard {
  task_scope* previous;
  explicit task_scope_guard(task_scope* s) noexcept : previous(current_task) { current_task = s; }
  ~task_scope_guard() { current_task = previous; }
  task_scope_guard(const task_scope_guard&) = delete;
  task_scope_guard& operator=(const task_scope_guard&) = delete;
};

inline bool is_interrupt(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const interrupt_signal&) {
    return true;
  } catch (...) {
    return false;
  }
}

inline std::minstd_rand& jitter_source() {
  thread_local std::minstd_rand source{std::random_device{}()};
  return source;
}

}  // namespace detail

// Where a run stands between two supersteps: besides the state, all that decides what
// runs next.
template <class A, class Queues = std::tuple<>>
struct run_position {
  typename A::set active{};
  std::array<typename A::set, A::join_count> arrived{};
  std::size_t step = 0;  // supersteps completed
  Queues sends{};        // per node: the payloads sent to it, to run in the next step

  bool any() const {
    return active.any() || std::apply([](const auto&... q) { return (!q.empty() || ...); }, sends);
  }
};

// A graph that broke a rule: the compiler has already said which. Calls compile quietly so
// the diagnostic stays the only message.
template <class G>
struct invalid_app {
  template <class... Args>
  typename G::state_type invoke(Args&&...) const {
    return {};
  }
  template <class... Args>
  std::vector<event<typename G::state_type>> stream(Args&&...) const {
    return {};
  }
};

template <class G, class A, class Executor = sequential>
class app {
 public:
  using graph_type = G;
  using state_type = typename G::state_type;
  using analysis_type = A;
  using executor_type = Executor;
  using position_type = run_position<A, typename detail::send_plan<A>::queues>;
  static constexpr std::size_t node_count = A::size;

  template <class... Args>
  explicit app(Args&&... args) : app(std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...), 0) {}

  // Runs the graph from a new state: `input` is applied through the reducers onto a
  // default-constructed state, then supersteps run until nothing is active.
  state_type invoke(state_type input, const run_config& config = {}) const {
    // A rule that fails here has printed its diagnostic; nothing more is compiled.
    if constexpr (!rules::check_all<G, A, detail::no_context>()) {
      return {};
    } else {
      detail::no_context none;
      return run(std::move(input), none, config);
    }
  }
  template <class Ctx>
    requires(!std::is_same_v<std::remove_const_t<Ctx>, run_config>)
  state_type invoke(state_type input, Ctx& context, const run_config& config = {}) const {
    if constexpr (!rules::check_all<G, A, Ctx>()) return {};
    else return run(std::move(input), context, config);
  }

  // Where a run stands after `node` wrote into `state` outside a step (a checkpointed
  // run's update_state as that node): its static edges and joins, and its branches
  // evaluated on `state`, decide the next nodes and sends.
  void route_after(const state_type& state, std::size_t node, position_type& at) const {
    typename A::set ran{};
    ran.set(node);
    typename A::set next = A::static_next(ran, at.arrived);
    typename sends_plan::queues next_sends{};
    run_routers(state, ran, next, next_sends);
    at.active = next;
    at.sends = std::move(next_sends);
  }

  // Runs the graph and reports each step to `callback(const sg::event<State>&)`.
  template <class Callback>
    requires std::is_invocable_v<Callback&, const event<state_type>&>
  state_type stream(state_type input, stream_mode mode, Callback&& callback, const run_config& config = {}) const {
    if constexpr (!rules::check_all<G, A, detail::no_context>()) {
      return {};
    } else {
      detail::no_context none;
      return stream_with(std::move(input), mode, none, callback, config);
    }
  }
  template <class Ctx, class Callback>
    requires std::is_invocable_v<Callback&, const event<state_type>&>
  state_type stream(state_type input, stream_mode mode, Ctx& context, Callback&& callback,
                    const run_config& config = {}) const {
    if constexpr (!rules::check_all<G, A, Ctx>()) return {};
    else return stream_with(std::move(input), mode, context, callback, config);
  }
  // The same as a range-v3 input range of events: each step runs when the range reaches
  // it. The range refers to this app, which must outlive it.
  auto stream(state_type input, stream_mode mode, const run_config& config = {}) const;

  // The first step, and one step at a time: the building blocks of stream and of
  // checkpointed runs.
  position_type begin_run(state_type& state, state_type input) const {
    state = state_type{};
    return position_type{first_frontier(state, std::move(input)), {}, 0, {}};
  }
  // Applies the input onto `state` and returns what runs first: start's successors and, in
  // a reactive graph, the subscribers of the channels the input set.
  typename A::set first_frontier(state_type& state, state_type input) const {
    typename A::set first = A::table.from_start;
    if constexpr (A::reactive) first |= A::woken_by(detail::input_touches(input));
    detail::apply_input(state, std::move(input));
    return first;
  }
  template <class Ctx, class Observer = detail::quiet>
  bool step(state_type& state, position_type& at, Ctx& context, const run_config& config,
            Observer& observer) const {
    return run_step(state, at, context, config, observer);
  }

  const Executor& executor() const noexcept { return executor_; }

  // The payload queue a node keeps for the sends it receives (no_queue when none).
  template <std::size_t I>
  using queue_for_node = boost::mp11::mp_at_c<typename detail::send_plan<A>::queues, I>;

  static constexpr std::array<std::string_view, A::size> node_names = [] {
    std::array<std::string_view, A::size> out{};
    detail::for_each_index<A::size>([&]<std::size_t I>() { out[I] = node_traits<typename A::template node<I>>::name; });
    return out;
  }();

 private:
  template <std::size_t I>
  using node_t = typename A::template node<I>;
  template <std::size_t B>
  using router_t = typename A::template branch_parts<typename A::template branch_at<B>>::router;
  using nodes_tuple = boost::mp11::mp_rename<typename A::nodes, detail::slots>;
  template <class Seq>
  struct routers_of;
  template <std::size_t... B>
  struct routers_of<std::index_sequence<B...>> {
    using type = detail::slots<router_t<B>...>;
  };
  using routers_tuple = typename routers_of<std::make_index_sequence<A::branch_count>>::type;

  template <class Bound>
  app(Bound&& bound, int)
      : nodes_(make_nodes(bound)), routers_(make_routers(bound)), executor_(take_executor(bound)) {}

  template <class Bound>
  static nodes_tuple make_nodes(Bound& bound) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return nodes_tuple(std::in_place, take<node_t<I>>(bound)...);
    }(std::make_index_sequence<A::size>{});
  }
  template <class Bound>
  static routers_tuple make_routers(Bound& bound) {
    return [&]<std::size_t... B>(std::index_sequence<B...>) {
      return routers_tuple(std::in_place, take<router_t<B>>(bound)...);
    }(std::make_index_sequence<A::branch_count>{});
  }
  template <class T, class Bound>
  static T take(Bound& bound) {
    if constexpr (boost::mp11::mp_contains<boost::mp11::mp_rename<std::remove_cvref_t<Bound>, detail::mp_list>, T>::value) {
      return std::get<T>(bound);
    } else {
      static_assert(std::is_default_constructible_v<T>,
                    "stategraph: this node or router has no default constructor; pass an instance to sg::compile");
      return T{};
    }
  }
  template <class Bound>
  static Executor take_executor(Bound& bound) {
    using option = executor_option<Executor>;
    if constexpr (boost::mp11::mp_contains<boost::mp11::mp_rename<std::remove_cvref_t<Bound>, detail::mp_list>, option>::value)
      return std::get<option>(bound).executor;
    else
      return Executor{};
  }

  // ---- calling one node ------------------------------------------------------------------

  template <std::size_t I, class Ctx>
  auto call_once(const state_type& state, Ctx& context) const {
    using N = node_t<I>;
    using view_t = detail::node_view_t<N, state_type>;
    const N& n = detail::slot_at<I>(nodes_);
    if constexpr (!std::is_same_v<Ctx, detail::no_context> && std::is_invocable_v<const N&, view_t, Ctx&>) {
      return normalise([&] { return n(view_t(state), context); });
    } else {
      return normalise([&] { return n(view_t(state)); });
    }
  }
  template <std::size_t I, class Ctx>
  auto call(const state_type& state, Ctx& context, const run_config& config) const {
    using N = node_t<I>;
    if constexpr (detail::has_retry<N>) {
      auto sleep = [&](std::chrono::nanoseconds d) {
        if (config.sleep) config.sleep(d);
        else std::this_thread::sleep_for(d);
      };
      return detail::with_retries(N::retry, sleep, detail::jitter_source(),
                                  [&] { return call_once<I>(state, context); });
    } else {
      return call_once<I>(state, context);
    }
  }
  template <class F>
  static auto normalise(F&& f) {
    using R = std::invoke_result_t<F&>;
    using out = detail::step_result<R>;
    if constexpr (std::is_void_v<R>) {
      f();
      return out{};
    } else if constexpr (out::sends_work && !detail::is_command<R>) {
      return out{{}, {}, f()};
    } else if constexpr (out::sends_work) {  // a command whose goto is sends
      auto c = f();
      return out{std::move(c.update), {}, detail::sends_holder<R>::take(std::move(c))};
    } else if constexpr (std::is_void_v<typename out::go_type>) {
      return out{f()};
    } else {
      auto c = f();
      return out{std::move(c.update), std::move(c.next)};
    }
  }

  // A node that only runs as a send target (it takes a payload) has no plain call.
  template <std::size_t I, class Ctx>
  static constexpr bool plain = detail::callable_with<node_t<I>, state_type, Ctx>();
  struct no_result {};
  template <std::size_t I, class Ctx>
  struct result_slot {
    using type = no_result;
  };
  template <std::size_t I, class Ctx>
    requires(plain<I, Ctx>)
  struct result_slot<I, Ctx> {
    using type = std::optional<decltype(std::declval<const app&>().template call<I>(
        std::declval<const state_type&>(), std::declval<Ctx&>(), std::declval<const run_config&>()))>;
  };
  template <class Ctx, class Seq>
  struct results_of;
  template <class Ctx, std::size_t... I>
  struct results_of<Ctx, std::index_sequence<I...>> {
    using type = detail::slots<typename result_slot<I, Ctx>::type...>;
  };
  template <class Ctx>
  using results_tuple = typename results_of<Ctx, std::make_index_sequence<A::size>>::type;

  // Adds the targets of a go<...> (a branch's or a command's) to the next frontier.
  template <class Go>
  static void add_targets(typename A::set& next, const Go& g) {
    static constexpr auto targets = detail::indices_of<typename A::names>(static_cast<typename Go::targets*>(nullptr));
    if constexpr (requires { g.index(); }) {  // a go<...>: exactly one target
      const std::size_t t = targets[g.index()];
      if (t != detail::none) next.set(t);
      return;
    }
    std::uint64_t mask = g.mask();
    while (mask) {
      auto t = targets[static_cast<std::size_t>(__builtin_ctzll(mask))];
      if (t != detail::none) next.set(t);
      mask &= mask - 1;
    }
  }

  // A node's failure as the caller sees it. A subgraph's failure already names the child
  // node as "parent/child": keep that name, with this run's step.
  [[noreturn]] static void fail(std::string_view node, std::size_t step, const std::exception_ptr& cause) {
    try {
      std::rethrow_exception(cause);
    } catch (const node_error& inner) {
      if (inner.node().size() > node.size() && inner.node().substr(0, node.size()) == node &&
          inner.node()[node.size()] == '/')
        throw node_error(std::string(inner.node()), step, inner.cause());
    } catch (...) {
    }
    throw node_error(node, step, cause);
  }

  [[noreturn]] static void over_limit(const run_config& config, std::size_t step, const typename A::set& active) {
    std::vector<std::string_view> names;
    for (std::size_t i = 0; i < A::size; ++i)
      if (active.test(i)) names.push_back(node_names[i]);
    throw recursion_limit_error(config.recursion_limit, step + 1, std::move(names));
  }

  // ---- whole runs ------------------------------------------------------------------------

  static constexpr bool fixed_fast_path = A::plan.fixed && std::is_same_v<Executor, sequential>;

  template <class Ctx>
  state_type run(state_type input, Ctx& context, const run_config& config) const {
    state_type state{};
    if constexpr (fixed_fast_path) {
      detail::apply_input(state, std::move(input));
      run_fixed(state, context, config);
    } else {
      position_type at{first_frontier(state, std::move(input)), {}, 0, {}};
      run_frontier(state, at, context, config);
    }
    return state;
  }

  // An invoke on the frontier. A step whose only task is one node (no other active node,
  // no sends queued) needs no barrier: its node's patch is the step's whole merge. Such a
  // step runs without result slots or failure capture — the node's exception propagates
  // before anything was applied, which leaves the state as at the step start. Only for the
  // executors that run a lone task inline anyway; another executor sees every task.
  using arrivals = std::array<typename A::set, A::join_count>;
  static constexpr bool alone_path = std::is_same_v<Executor, sequential> || std::is_same_v<Executor, thread_pool>;

  // At most one node per step, whatever the routers choose: start leads to at most one
  // node, and each node can activate at most one (its static successors, the widest choice
  // of each of its branches, its command targets and the joins it feeds, together). No
  // sends, no subscriptions. A bound read off the tables, cheap to compile, unlike the
  // exploration behind may_run_together.
  static constexpr bool one_at_a_time = [] {
    if constexpr (detail::send_plan<A>::any || A::reactive) {
      return false;
    } else {
      std::array<std::size_t, A::size> fan{};
      for (std::size_t i = 0; i < A::size; ++i) {
        fan[i] = A::table.successors[i].count() + A::table.goes[i].count();
        for (const auto& row : A::table.join_rows)
          if (row.sources.test(i)) ++fan[i];
      }
      detail::for_each_index<A::branch_count>([&]<std::size_t B>() {
        constexpr std::size_t source = A::template branch_source<B>;
        std::size_t widest = 0;
        for (std::size_t t : A::template branch_targets<B>)
          if (t != detail::none) widest = A::template branch_is_all<B> ? widest + 1 : 1;
        if (source < A::size) fan[source] += widest;
      });
      if (A::table.from_start.count() > 1) return false;
      for (std::size_t f : fan)
        if (f > 1) return false;
      return true;
    }
  }();

  template <class Ctx>
  void run_frontier(state_type& state, position_type& at, Ctx& context, const run_config& config) const {
    if constexpr (alone_path && one_at_a_time) {
      // Only steps of one node: the frontier is one index, and the general step is not even
      // compiled for this run.
      std::size_t current = detail::only_member(at.active);
      if (current == detail::none && at.active.any())
        throw error("stategraph: internal error: several nodes start a graph that runs one at a time");
      std::size_t step = at.step;
      const std::size_t limit = config.recursion_limit;
      while (current != detail::none) {
        if (step >= limit) over_limit(config, step, just(current));
        ++step;
        current = run_chain_link(current, state, at.arrived, context, config, step);
      }
      at.active = typename A::set{};
      at.step = step;
    } else {
      detail::quiet q;
      for (;;) {
        if constexpr (alone_path) {
          const std::size_t only = detail::only_member(at.active);
          if (only != detail::none && !pending_sends(at) && run_alone(only, state, at, context, config)) continue;
        }
        if (!run_step(state, at, context, config, q)) return;
      }
    }
  }

  static bool pending_sends(const position_type& at) {
    if constexpr (has_sends) return std::apply([](const auto&... q) { return (!q.empty() || ...); }, at.sends);
    else return false;
  }

  // Dispatches on the node's index; false for a node that has no plain call (run_step skips it).
  template <class Ctx>
  bool run_alone(std::size_t i, state_type& state, position_type& at, Ctx& context, const run_config& config) const {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      bool ran = false;
      (void)((i == I && (ran = run_alone_at<I>(state, at, context, config), true)) || ...);
      return ran;
    }(std::make_index_sequence<A::size>{});
  }

  template <std::size_t I, class Ctx>
  bool run_alone_at(state_type& state, position_type& at, Ctx& context, const run_config& config) const {
    if constexpr (!plain<I, Ctx>) {
      return false;
    } else {
      if (at.step >= config.recursion_limit) over_limit(config, at.step, at.active);
      const std::size_t step_no = at.step + 1;
      auto r = attempt<I>(state, context, config, step_no);
      // The barrier, for a step of one node: merge, then what runs next.
      [[maybe_unused]] detail::node_set<channel_count<state_type>> changed{};
      if constexpr (detail::has_ephemeral<state_type>) detail::clear_ephemeral(state);
      if constexpr (A::reactive) detail::apply_patch(state, std::move(r.update), &changed);
      else detail::apply_patch(state, std::move(r.update), nullptr);
      typename A::set next = next_after<I>(at.arrived);
      if constexpr (A::reactive) next |= A::woken_by(changed);
      if constexpr (!std::is_same_v<decltype(r.next), std::nullptr_t>)
        if (r.next) add_targets(next, *r.next);
      // No sends were queued (the caller checked), so this step's sends are the next queues.
      if constexpr (has_sends) collect_sends(at.sends, r);
      route_alone<I>(state, next, at.sends);
      at.active = next;
      at.step = step_no;
      return true;
    }
  }

  // A node's call in a step of its own: a failure is thrown at once, as run_step would
  // report it (an interrupt without a store is the caller's mistake, not the node's).
  template <std::size_t I, class Ctx>
  auto attempt(const state_type& state, Ctx& context, const run_config& config, std::size_t step) const {
    try {
      return call<I>(state, context, config);
    } catch (const interrupt_signal&) {
      throw error(no_store_for_interrupt);
    } catch (...) {
      fail(node_names[I], step, std::current_exception());
    }
  }
  static constexpr const char* no_store_for_interrupt =
      "stategraph: a node called sg::interrupt, which needs a checkpoint store: compile the graph "
      "with sg::with_store(...) and run it on a thread";

  // A::static_next for ran = {I}, with what does not depend on I decided at compile time.
  template <std::size_t I>
  static typename A::set next_after(arrivals& arrived) {
    typename A::set next = A::table.successors[I];
    detail::for_each_index<A::join_count>([&]<std::size_t J>() {
      constexpr auto& row = A::table.join_rows[J];
      if constexpr (row.into == I) arrived[J] = typename A::set{};
      if constexpr (row.sources.test(I)) arrived[J].set(I);
      if (row.into < A::size && arrived[J].contains_all(row.sources)) {
        next.set(row.into);
        arrived[J] = typename A::set{};
      }
    });
    return next;
  }

  static typename A::set just(std::size_t i) {
    typename A::set s{};
    s.set(i);
    return s;
  }

  // One step of a graph that runs one node at a time: node `i`'s call, its merge, and the
  // one node (or none) that runs next. Everything run_step does, with sets of one.
  // Forced inline: Clang otherwise keeps a step's call out of line, and the call costs
  // more than the rest of the library's work in a step.
  template <class Ctx>
  [[gnu::always_inline]] std::size_t run_chain_link(std::size_t i, state_type& state, arrivals& arrived, Ctx& context,
                                                    const run_config& config, std::size_t step_no) const {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::size_t next = detail::none;
      (void)((i == I && (next = chain_link_at<I>(state, arrived, context, config, step_no), true)) || ...);
      return next;
    }(std::make_index_sequence<A::size>{});
  }
  template <std::size_t I, class Ctx>
  [[gnu::always_inline]] std::size_t chain_link_at(state_type& state, arrivals& arrived, Ctx& context,
                                                   const run_config& config, std::size_t step_no) const {
    // At most one of what follows names a node (one_at_a_time): keep the one that does.
    std::size_t next = detail::none;
    auto take = [&](std::size_t t) {
      if (t != detail::none) next = t;
    };
    if constexpr (plain<I, Ctx>) {  // a node without a plain call is skipped, as run_step does
      auto r = attempt<I>(state, context, config, step_no);
      if constexpr (detail::has_ephemeral<state_type>) detail::clear_ephemeral(state);
      detail::apply_patch(state, std::move(r.update), nullptr);
      if constexpr (!std::is_same_v<decltype(r.next), std::nullptr_t>)
        if (r.next) take(first_target(*r.next));
    } else if constexpr (detail::has_ephemeral<state_type>) {
      detail::clear_ephemeral(state);
    }
    if constexpr (A::table.successors[I].any()) take(detail::only_member(A::table.successors[I]));
    if constexpr (A::join_count > 0) take(detail::only_member(next_after<I>(arrived)));
    detail::for_each_index<A::branch_count>([&]<std::size_t B>() {
      if constexpr (A::template branch_source<B> == I) {
        using R = router_t<B>;
        take(first_target(detail::slot_at<B>(routers_)(view<state_type, typename node_traits<R>::reads_type>(state))));
      }
    });
    return next;
  }
  // The node a go<...> or go_all<...> picks, or none for end (one_at_a_time: at most one).
  template <class Go>
  static std::size_t first_target(const Go& g) {
    static constexpr auto targets = detail::indices_of<typename A::names>(static_cast<typename Go::targets*>(nullptr));
    if constexpr (requires { g.index(); }) {
      // A comparison per target rather than a load from the table: the compiler can then
      // follow a router's choice straight to the next node's code.
      return [&]<std::size_t... K>(std::index_sequence<K...>) {
        std::size_t t = detail::none;
        (void)((g.index() == K && (t = targets[K], true)) || ...);
        return t;
      }(std::make_index_sequence<targets.size()>{});
    } else {
      for (std::uint64_t mask = g.mask(); mask; mask &= mask - 1)
        if (auto t = targets[static_cast<std::size_t>(__builtin_ctzll(mask))]; t != detail::none) return t;
      return detail::none;
    }
  }

  // The routers of the branches leaving node I, on the merged state.
  template <std::size_t I>
  void route_alone(const state_type& state, typename A::set& next,
                   typename detail::send_plan<A>::queues& sends) const {
    detail::for_each_index<A::branch_count>([&]<std::size_t B>() {
      if constexpr (A::template branch_source<B> == I) {
        using R = router_t<B>;
        auto chosen = detail::slot_at<B>(routers_)(view<state_type, typename node_traits<R>::reads_type>(state));
        if constexpr (is_go<decltype(chosen)>::value) add_targets(next, chosen);
        else detail::enqueue<typename A::names>(sends, std::move(chosen));
      }
    });
  }

  template <class Ctx, class Callback>
  state_type stream_with(state_type input, stream_mode mode, Ctx& context, Callback& callback,
                         const run_config& config) const;

  // A static acyclic graph on the sequential executor: the supersteps are fixed at compile
  // time — no frontier, no dispatch.
  // A short plan is compiled as one function, its steps inlined (Clang otherwise calls each
  // step out of line, which cost W1 about 10 instructions per step); a long one keeps a
  // function per step, so that a 200-node chain does not become one huge function to
  // optimise.
  static constexpr std::size_t inlined_plan_steps = 32;
  template <class Ctx>
  void run_fixed(state_type& state, Ctx& context, const run_config& config) const {
    [&]<std::size_t... St>(std::index_sequence<St...>) {
      if constexpr (A::plan.steps <= inlined_plan_steps) (run_fixed_step<St>(state, context, config), ...);
      else (run_fixed_step_call<St>(state, context, config), ...);
    }(std::make_index_sequence<A::plan.steps>{});
  }
  template <std::size_t St, class Ctx>
  void run_fixed_step_call(state_type& state, Ctx& context, const run_config& config) const {
    run_fixed_step<St>(state, context, config);
  }
  template <std::size_t St, class Ctx>
  [[gnu::always_inline]] void run_fixed_step(state_type& state, Ctx& context, const run_config& config) const {
    if (St >= config.recursion_limit) over_limit(config, St, A::plan_steps[St]);
    static constexpr auto members = [] {
      std::array<std::size_t, A::plan_steps[St].count()> out{};
      std::size_t k = 0;
      for (std::size_t i = 0; i < A::size; ++i)
        if (A::plan_steps[St].test(i)) out[k++] = i;
      return out;
    }();
    if constexpr (members.size() == 1) {
      auto r = guarded<members[0]>(state, context, config, St + 1);
      if constexpr (detail::has_ephemeral<state_type>) detail::clear_ephemeral(state);
      detail::apply_patch(state, std::move(r.update), nullptr);
    } else {
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        // Each result is built in its place, in node order (see in_order).
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wmissing-braces"  // the brace elision is the point
#endif
        detail::in_order<decltype(guarded<members[K]>(state, context, config, St + 1))...> results{
            detail::deferred{[&] { return guarded<members[K]>(state, context, config, St + 1); }}...};
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
        if constexpr (detail::has_ephemeral<state_type>) detail::clear_ephemeral(state);
        (detail::apply_patch(state, std::move(results.template get<K>().update), nullptr), ...);
      }(std::make_index_sequence<members.size()>{});
    }
  }
  template <std::size_t I, class Ctx>
  auto guarded(const state_type& state, Ctx& context, const run_config& config, std::size_t step) const {
    try {
      return call<I>(state, context, config);
    } catch (...) {
      fail(node_names[I], step, std::current_exception());
    }
  }

  // ---- one superstep on the frontier -----------------------------------------------------

  // ---- sends --------------------------------------------------------------------------

  using sends_plan = detail::send_plan<A>;
  static constexpr bool has_sends = sends_plan::any;
  template <std::size_t I>
  using queue_t = boost::mp11::mp_at_c<typename sends_plan::queues, I>;

  template <std::size_t I, class Ctx, class Payload>
  auto call_send_once(const state_type& state, const Payload& payload, Ctx& context) const {
    using N = node_t<I>;
    using view_t = detail::node_view_t<N, state_type>;
    const N& n = detail::slot_at<I>(nodes_);
    if constexpr (!std::is_same_v<Ctx, detail::no_context> && std::is_invocable_v<const N&, view_t, const Payload&, Ctx&>)
      return normalise([&] { return n(view_t(state), payload, context); });
    else
      return normalise([&] { return n(view_t(state), payload); });
  }
  template <std::size_t I, class Ctx, class Payload>
  auto call_send(const state_type& state, const Payload& payload, Ctx& context, const run_config& config) const {
    using N = node_t<I>;
    if constexpr (detail::has_retry<N>) {
      auto sleep = [&](std::chrono::nanoseconds d) {
        if (config.sleep) config.sleep(d);
        else std::this_thread::sleep_for(d);
      };
      return detail::with_retries(N::retry, sleep, detail::jitter_source(),
                                  [&] { return call_send_once<I>(state, payload, context); });
    } else {
      return call_send_once<I>(state, payload, context);
    }
  }
  template <class R>
  struct send_slot {
    std::optional<R> result;
    std::exception_ptr failure;
  };
  template <std::size_t I, class Ctx>
  struct send_slots_for {
    using type = detail::no_queue;
  };
  template <std::size_t I, class Ctx>
    requires(!std::is_same_v<queue_t<I>, detail::no_queue>)
  struct send_slots_for<I, Ctx> {
    using type = std::vector<send_slot<decltype(std::declval<const app&>().template call_send<I>(
        std::declval<const state_type&>(), std::declval<const typename queue_t<I>::value_type&>(),
        std::declval<Ctx&>(), std::declval<const run_config&>()))>>;
  };
  template <class Ctx, class Seq>
  struct send_slots_of;
  template <class Ctx, std::size_t... I>
  struct send_slots_of<Ctx, std::index_sequence<I...>> {
    using type = detail::slots<typename send_slots_for<I, Ctx>::type...>;
  };

  // Moves the sends a result carries into the next step's queues.
  template <class Result>
  static void collect_sends(typename sends_plan::queues& queues, Result& r) {
    if constexpr (Result::sends_work) detail::enqueue<typename A::names>(queues, std::move(r.sends));
  }

  // ---- one superstep on the frontier -----------------------------------------------------

  struct untimed {};
  struct no_slots {};
  template <class Ctx, class Observer>
  struct frame {
    static constexpr bool timed = Observer::streams;
    const app& self;
    const state_type& state;
    Ctx& context;
    const run_config& config;
    const typename sends_plan::queues& queues;
    Observer& observer;
    results_tuple<Ctx> results{};
    std::array<std::exception_ptr, A::size> failures{};
    [[no_unique_address]] std::conditional_t<timed, std::array<std::chrono::nanoseconds, A::size>, untimed> took{};
    // What the subgraphs each task ran reported, forwarded into this run's stream.
    [[no_unique_address]] std::conditional_t<timed, std::array<detail::child_events, A::size>, untimed> children{};
    [[no_unique_address]] std::conditional_t<has_sends, typename send_slots_of<Ctx, std::make_index_sequence<A::size>>::type,
                                             no_slots> sent{};
  };
  template <std::size_t I, class Ctx, class Observer>
  static void run_task(frame<Ctx, Observer>& f) {
    if constexpr (plain<I, Ctx>) {
      [[maybe_unused]] std::chrono::steady_clock::time_point started;
      if constexpr (frame<Ctx, Observer>::timed) started = std::chrono::steady_clock::now();
      // A streamed run collects what the subgraphs of this task report (sg::subgraph reads it).
      [[maybe_unused]] auto forwarding = [&] {
        if constexpr (frame<Ctx, Observer>::timed) {
          f.children[I].mode = f.observer.mode;
          return detail::child_events_scope{&f.children[I]};
        } else {
          return untimed{};
        }
      }();
      if constexpr (Observer::durable) {
        // A node whose writes survived a failed or paused step is not run again: run_step
        // has put them back into its slot before dispatching.
        if (detail::slot_at<I>(f.results)) return;
        detail::task_scope scope{I, f.observer.resume_values(I)};
        detail::task_scope_guard guard(&scope);
        try {
          detail::slot_at<I>(f.results).emplace(detail::deferred{[&] { return f.self.template call<I>(f.state, f.context, f.config); }});
        } catch (...) {
          f.failures[I] = std::current_exception();
        }
      } else {
        try {
          detail::slot_at<I>(f.results).emplace(detail::deferred{[&] { return f.self.template call<I>(f.state, f.context, f.config); }});
        } catch (...) {
          f.failures[I] = std::current_exception();
        }
      }
      if constexpr (frame<Ctx, Observer>::timed) f.took[I] = std::chrono::steady_clock::now() - started;
    }
  }
  template <std::size_t I, class Ctx, class Observer>
  static void run_send_task(frame<Ctx, Observer>& f, std::size_t k) {
    if constexpr (!std::is_same_v<queue_t<I>, detail::no_queue>) {
      auto& slot = detail::slot_at<I>(f.sent)[k];
      try {
        slot.result.emplace(detail::deferred{
            [&] { return f.self.template call_send<I>(f.state, std::get<I>(f.queues)[k], f.context, f.config); }});
      } catch (...) {
        slot.failure = std::current_exception();
      }
    }
  }

  template <class Ctx, class Observer, class Frame>
  void run_tasks(const typename A::set& active, Frame& f) const {
    if constexpr (has_sends) {
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (!std::is_same_v<queue_t<I>, detail::no_queue>) detail::slot_at<I>(f.sent).resize(std::get<I>(f.queues).size());
      });
    }
    if constexpr (std::is_same_v<Executor, sequential>) {
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if (active.test(I)) run_task<I, Ctx, Observer>(f);
        if constexpr (has_sends)
          for (std::size_t k = 0; k < std::get<I>(f.queues).size(); ++k) run_send_task<I, Ctx, Observer>(f, k);
      });
    } else {
      static constexpr auto table = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<void (*)(Frame&), A::size>{&run_task<I, Ctx, Observer>...};
      }(std::make_index_sequence<A::size>{});
      if constexpr (has_sends) {
        static constexpr auto send_table = []<std::size_t... I>(std::index_sequence<I...>) {
          return std::array<void (*)(Frame&, std::size_t), A::size>{&run_send_task<I, Ctx, Observer>...};
        }(std::make_index_sequence<A::size>{});
        std::vector<std::pair<std::size_t, std::size_t>> tasks;  // (node, send index or none)
        detail::for_each_index<A::size>([&]<std::size_t I>() {
          if (active.test(I)) tasks.emplace_back(I, detail::none);
          for (std::size_t k = 0; k < std::get<I>(f.queues).size(); ++k) tasks.emplace_back(I, k);
        });
        auto task = [&](std::size_t t) {
          auto [node, k] = tasks[t];
          if (k == detail::none) table[node](f);
          else send_table[node](f, k);
        };
        executor_.for_each_task(tasks.size(), task);
      } else {
        std::array<std::size_t, A::size> tasks{};
        std::size_t count = 0;
        for (std::size_t i = 0; i < A::size; ++i)
          if (active.test(i)) tasks[count++] = i;
        auto task = [&](std::size_t k) { table[tasks[k]](f); };
        executor_.for_each_task(count, task);
      }
    }
  }

  template <class Ctx, class Observer>
  bool run_step(state_type& state, position_type& at, Ctx& context, const run_config& config,
                Observer& observer) const {
    if (!at.any()) return false;
    if (at.step >= config.recursion_limit) over_limit(config, at.step, at.active);
    const std::size_t step_no = at.step + 1;
    auto ran = at.active;  // the nodes that run in this step, as a node or as a send target
    if constexpr (has_sends)
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if (!std::get<I>(at.sends).empty()) ran.set(I);
      });

    using frame_t = frame<Ctx, Observer>;
    frame_t f{*this, state, context, config, at.sends, observer};
    if constexpr (Observer::durable) {
      // Kept writes are decoded here, on the calling thread, before any task runs: one that
      // does not decode refuses the whole step with nothing run (and nothing stored).
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (plain<I, Ctx>)
          if (at.active.test(I)) observer.template replay<I>(detail::slot_at<I>(f.results));
      });
    }
    run_tasks<Ctx, Observer>(at.active, f);
    if constexpr (Observer::streams) observer.tasks(step_no, at.active, f.failures, f.took, f.children);
    // A failed step leaves the state as it was; a durable run keeps the writes of the nodes
    // that succeeded, and pauses (rather than fails) when the only trouble was interrupts.
    std::size_t failed = A::size;
    bool paused = false;
    for (std::size_t i = 0; i < A::size && failed == A::size; ++i)
      if (f.failures[i]) {
        if (detail::is_interrupt(f.failures[i])) paused = true;
        else failed = i;
      }
    if (failed < A::size) {
      if constexpr (Observer::durable) observer.step_failed(step_no, at, f.results, f.failures);
      fail(node_names[failed], step_no, f.failures[failed]);
    }
    if (paused) {
      if constexpr (Observer::durable) {
        observer.step_paused(step_no, at, f.results, f.failures);
        throw detail::run_paused{};
      } else {
        throw error(no_store_for_interrupt);
      }
    }
    if constexpr (has_sends)
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (!std::is_same_v<queue_t<I>, detail::no_queue>)
          for (auto& slot : detail::slot_at<I>(f.sent))
            if (slot.failure) fail(node_names[I], step_no, slot.failure);
      });

    // The barrier: merge in node order (a node's own run, then its sends in send order),
    // then decide what runs next.
    constexpr bool track = Observer::durable || A::reactive;
    [[maybe_unused]] detail::node_set<channel_count<state_type>> changed{};
    if constexpr (Observer::durable) observer.before_merge(state);
    if constexpr (detail::has_ephemeral<state_type>) {
      detail::clear_ephemeral(state);
      if constexpr (Observer::durable) detail::mark_ephemeral<state_type>(changed);
    }
    auto merge = [&](std::string_view name, auto& result) {
      if constexpr (Observer::streams) observer.update(step_no, name, detail::written_channels<state_type>(result.update));
      if constexpr (track) detail::apply_patch(state, std::move(result.update), &changed);
      else detail::apply_patch(state, std::move(result.update), nullptr);
    };
    detail::for_each_index<A::size>([&]<std::size_t I>() {
      if constexpr (plain<I, Ctx>)
        if (at.active.test(I)) merge(node_names[I], *detail::slot_at<I>(f.results));
      if constexpr (has_sends && !std::is_same_v<queue_t<I>, detail::no_queue>)
        for (auto& slot : detail::slot_at<I>(f.sent)) merge(node_names[I], *slot.result);
    });
    typename A::set next = A::static_next(ran, at.arrived);
    if constexpr (A::reactive) next |= A::woken_by(changed);
    typename sends_plan::queues next_sends{};
    detail::for_each_index<A::size>([&]<std::size_t I>() {
      if constexpr (plain<I, Ctx>) if (at.active.test(I)) {
        auto& r = *detail::slot_at<I>(f.results);
        if constexpr (!std::is_same_v<decltype(r.next), std::nullptr_t>)
          if (r.next) add_targets(next, *r.next);
        if constexpr (has_sends) collect_sends(next_sends, r);
      }
      if constexpr (has_sends && !std::is_same_v<queue_t<I>, detail::no_queue>)
        for (auto& slot : detail::slot_at<I>(f.sent)) {
          if constexpr (!std::is_same_v<decltype(slot.result->next), std::nullptr_t>)
            if (slot.result->next) add_targets(next, *slot.result->next);
          collect_sends(next_sends, *slot.result);
        }
    });
    run_routers(state, ran, next, next_sends);
    at.active = next;
    at.sends = std::move(next_sends);
    at.step = step_no;
    if constexpr (Observer::durable) observer.step_done(state, at, changed);
    if constexpr (Observer::streams) observer.values(step_no, state);
    return at.any();
  }

  // The branches whose source ran, evaluated on the merged state.
  void run_routers(const state_type& state, const typename A::set& ran, typename A::set& next,
                   typename sends_plan::queues& next_sends) const {
    detail::for_each_index<A::branch_count>([&]<std::size_t B>() {
      constexpr std::size_t source = A::template branch_source<B>;
      if (ran.test(source)) {
        using R = router_t<B>;
        auto chosen = detail::slot_at<B>(routers_)(view<state_type, typename node_traits<R>::reads_type>(state));
        if constexpr (is_go<decltype(chosen)>::value) add_targets(next, chosen);
        else detail::enqueue<typename A::names>(next_sends, std::move(chosen));
      }
    });
  }

  nodes_tuple nodes_;
  routers_tuple routers_;
  Executor executor_;
};

namespace detail {

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

}  // namespace detail

template <class G, class A, class Executor>
template <class Ctx, class Callback>
auto app<G, A, Executor>::stream_with(state_type input, stream_mode mode, Ctx& context, Callback& callback,
                                      const run_config& config) const -> state_type {
  state_type state{};
  position_type at = begin_run(state, std::move(input));
  auto sink = [&](event<state_type>&& e) { callback(static_cast<const event<state_type>&>(e)); };
  detail::streamer<state_type, A::size, decltype(sink)> s{mode, node_names, sink};
  s.values(0, state);
  while (run_step(state, at, context, config, s)) {
  }
  return state;
}

template <class G, class A, class Executor>
auto app<G, A, Executor>::stream(state_type input, stream_mode mode, const run_config& config) const {
  using session = detail::stream_session<app, detail::no_context>;
  auto s = std::make_shared<session>(session{*this, {}, config, mode});
  s->at = begin_run(s->state, std::move(input));
  if (has_mode(mode, stream_mode::values)) {
    event<state_type> e{.mode = stream_mode::values, .step = 0};
    e.values = s->state;
    s->pending.push_back(std::move(e));
  }
  return detail::stream_range<session>(std::move(s));
}

// Validates the graph type (every rule of contract §5), builds its static schedule and
// returns the app. Arguments: node or router instances (the rest are default-constructed),
// lambda nodes made with sg::node<Tag, ...>(f), and options such as sg::with_executor.
template <class G, class... Args>
auto compile(Args&&... args) {
  using bound = detail::mp_list<std::decay_t<Args>...>;
  using A = analysis<G, bound>;
  using stores = boost::mp11::mp_copy_if<bound, detail::is_store_option>;
  if constexpr (!rules::check_all<G, A, detail::any_context>()) {
    return invalid_app<G>{};
  } else if constexpr (boost::mp11::mp_empty<stores>::value) {
    return app<G, A, typename detail::executor_among<std::decay_t<Args>...>::type>(std::forward<Args>(args)...);
  } else {
    using plain_app = app<G, A, typename detail::executor_among<std::decay_t<Args>...>::type>;
    using store_t = std::remove_pointer_t<decltype(boost::mp11::mp_front<stores>::store)>;
    using before = boost::mp11::mp_flatten<boost::mp11::mp_transform<detail::list_of, boost::mp11::mp_copy_if<bound, detail::is_before>>>;
    using after = boost::mp11::mp_flatten<boost::mp11::mp_transform<detail::list_of, boost::mp11::mp_copy_if<bound, detail::is_after>>>;
    using durable = durable_app<plain_app, store_t, before, after>;
    static_assert(detail::is_complete<durable>, "stategraph: a graph with a store needs #include <stategraph/checkpoint.hpp>");
    if constexpr (!durable::codecs_ok) {  // SG013 has printed its diagnostic
      return invalid_app<G>{};
    } else {
    auto all = std::forward_as_tuple(std::forward<Args>(args)...);
    store_t* store = std::get<boost::mp11::mp_find_if<bound, detail::is_store_option>::value>(all).store;
    return durable(std::apply([](auto&&... a) { return plain_app(std::forward<decltype(a)>(a)...); }, std::move(all)), *store);
    }
  }
}

}  // namespace stategraph
