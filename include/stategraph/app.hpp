// The app: what sg::compile returns. Runs supersteps (BSP): every active node reads the
// snapshot of the step start, and their patches merge at the barrier in node order. Every
// path that runs a step — the fixed plan, a chain link, a step of one node, the general
// step — goes through engine/step.hpp's barrier and next_frontier; this class holds the
// nodes and routers and picks the path the graph's types allow.
// Include <stategraph/run.hpp> (or the umbrella) rather than this header.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/engine/apply.hpp>
#include <stategraph/engine/observer.hpp>
#include <stategraph/engine/plan.hpp>
#include <stategraph/engine/step.hpp>
#include <stategraph/engine/task.hpp>
#include <stategraph/errors.hpp>
#include <stategraph/events.hpp>
#include <stategraph/executor.hpp>
#include <stategraph/node.hpp>
#include <stategraph/rules.hpp>
#include <stategraph/run_options.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/schema.hpp>
#include <stategraph/send.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

template <class G, class A, class Executor = sequential>
class app {
  using names = typename A::names;
  using set = typename A::set;

 public:
  using graph_type = G;
  using state_type = typename G::state_type;
  using analysis_type = A;
  using executor_type = Executor;
  // Graphs without sends keep no queues (rather than one empty queue type per node).
  using queues_type = typename std::conditional_t<detail::send_plan<A>::any, detail::send_queues<A>,
                                                  std::type_identity<std::tuple<>>>::type;
  using position_type = run_position<A, queues_type>;
  using channel_set = detail::node_set<channel_count<state_type>>;
  enum : std::size_t { node_count = A::size };  // (enumerators: see analysis::size)

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
  requires(!std::is_same_v<std::remove_const_t<Ctx>, run_config>) state_type
      invoke(state_type input, Ctx& context, const run_config& config = {})
  const {
    if constexpr (!rules::check_all<G, A, Ctx>())
      return {};
    else
      return run(std::move(input), context, config);
  }

  // Arguments no overload takes (an input of neither type, a temporary where the context
  // goes): one error at the caller's line, not the app's type (rules/misuse.hpp).
  template <class... Rest>
  state_type invoke(std::type_identity_t<rules::wrong_call<rules::invoke_call<state_type>, Rest...>>,
                    const Rest&...) const {
    return {};
  }
  // No argument at all: one error at the caller's line too (rules::no_arguments).
  template <class Diagnostic = rules::invoke_arguments_fit_no_overload<>>
  state_type invoke(rules::no_arguments<Diagnostic> = {}) const {
    return {};
  }

  // Runs the graph from a partial input: only the channels it names are written, each
  // through its reducer, onto a default-constructed state (invoke(State) writes every
  // channel). `sg::write<&S::a>(x) | sg::write<&S::b>(y)`; a channel named twice is SG014.
  template <class... E>
  state_type invoke(patch<E...> input, const run_config& config = {}) const {
    if constexpr (!rules::check_partial_input<state_type, patch<E...>>()) {
      return {};
    } else if constexpr (!rules::check_all<G, A, detail::no_context>()) {
      return {};
    } else {
      detail::no_context none;
      return run_partial(std::move(input), none, config);
    }
  }
  template <class Ctx, class... E>
  requires(!std::is_same_v<std::remove_const_t<Ctx>, run_config>) state_type
      invoke(patch<E...> input, Ctx& context, const run_config& config = {})
  const {
    if constexpr (!rules::check_partial_input<state_type, patch<E...>>())
      return {};
    else if constexpr (!rules::check_all<G, A, Ctx>())
      return {};
    else
      return run_partial(std::move(input), context, config);
  }
  // Applies a partial input onto `state`, marking the channels it wrote in `touched`, and
  // returns what runs first (start's successors; in a reactive graph, their subscribers).
  template <class... E>
  set first_frontier(state_type& state, patch<E...>&& input, channel_set& touched) const {
    set first = A::table.from_start;
    detail::apply_patch(state, std::move(input), &touched);
    if constexpr (A::reactive) first |= A::woken_by(touched);
    return first;
  }

  // A write into `state` as `node`, outside a step (a checkpointed run's update_state):
  // merged as that node's result would be, then what runs next as if it had just run — its
  // static edges and joins, the subscribers of what it changed, its branches on `state`.
  template <class... E>
  void update_as(state_type& state, patch<E...>&& p, std::size_t node, channel_set& changed, position_type& at) const {
    detail::step_result<patch<E...>> r{std::move(p)};
    detail::next_set<set> next{};
    queues_type next_sends{};
    detail::merge_result<names>(state, r, next, &changed, next_sends);
    detail::next_frontier<A>(node, at.arrived, &changed, next,
                             [&](auto& n) { route_alone(node, state, n.nodes, next_sends); });
    at.active = next.nodes;
    at.sends = std::move(next_sends);
  }

  // Runs the graph and reports each step to `callback(const sg::event<State>&)`.
  template <class Callback>
  requires std::is_invocable_v < Callback&, const event<state_type>
  & > state_type stream(state_type input, stream_mode mode, Callback&& callback, const run_config& config = {}) const {
    if constexpr (!rules::check_all<G, A, detail::no_context>()) {
      return {};
    } else {
      detail::no_context none;
      return stream_with(std::move(input), mode, none, callback, config);
    }
  }
  // A context that derives from sg::emitter<T> makes the events sg::event<State, T>
  // (stream_mode::custom); an sg::event<State> callback takes them too.
  template <class Ctx, class Callback>
  requires std::is_invocable_v < Callback&, const event_for<state_type, Ctx>
  & > state_type stream(state_type input, stream_mode mode, Ctx& context, Callback&& callback,
                        const run_config& config = {}) const {
    if constexpr (!rules::check_all<G, A, Ctx>())
      return {};
    else
      return stream_with(std::move(input), mode, context, callback, config);
  }
  template <class... Rest>
  state_type stream(std::type_identity_t<rules::wrong_call<rules::stream_call<state_type>, Rest...>>,
                    const Rest&...) const {
    return {};
  }
  template <class Diagnostic = rules::stream_arguments_fit_no_overload<>>
  state_type stream(rules::no_arguments<Diagnostic> = {}) const {
    return {};
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
  set first_frontier(state_type& state, state_type input) const {
    set first = A::table.from_start;
    if constexpr (A::reactive) first |= A::woken_by(detail::input_touches(input));
    detail::apply_input(state, std::move(input));
    return first;
  }
  template <class Ctx, class Observer = detail::quiet>
  bool step(state_type& state, position_type& at, Ctx& context, const run_config& config, Observer& observer) const {
    return run_step(state, at, context, config, observer);
  }

  // An async run (opt-in: #include <stategraph/asio.hpp>):
  // `co_await app.async_invoke(input[, ctx][, run_config][, sg::async_options])`.
  template <class... Args>
    requires detail::async_invoke_fits<app, void, Args...>::value
  auto async_invoke(Args&&... args) const {
    return detail::async_runs<app>::invoke(*this, std::forward<Args>(args)...);
  }
  // Arguments no overload takes, or no <stategraph/asio.hpp>: one error at the caller's line.
  template <class... Rest>
  auto async_invoke(std::type_identity_t<rules::wrong_call<rules::async_invoke_call<state_type>, Rest...>>,
                    const Rest&...) const {
    return typename detail::async_result_of<app>::type{};
  }
  template <class Diagnostic = rules::async_invoke_arguments_fit_no_overload<>>
  auto async_invoke(rules::no_arguments<Diagnostic> = {}) const {
    return typename detail::async_result_of<app>::type{};
  }
  // An async stream (opt-in: #include <stategraph/asio.hpp>): `co_await app.async_stream(input,
  // mode[, ctx], callback[, run_config][, sg::async_options])`, stream's events awaited.
  template <class... Args>
    requires detail::async_stream_fits<app, void, Args...>::value
  auto async_stream(Args&&... args) const {
    return detail::async_runs<app>::stream(*this, std::forward<Args>(args)...);
  }
  template <class... Rest>
  auto async_stream(std::type_identity_t<rules::wrong_call<rules::async_stream_call<state_type>, Rest...>>,
                    const Rest&...) const {
    return typename detail::async_result_of<app>::type{};
  }

  // The payload queue a node keeps for the sends it receives (no_queue when none).
  template <std::size_t I>
  struct queue_at {
    using type = boost::mp11::mp_at_c<queues_type, I>;
  };
  template <std::size_t I>
  using queue_for_node =
      typename std::conditional_t<detail::send_plan<A>::any, queue_at<I>, std::type_identity<detail::no_queue>>::type;

  static constexpr std::array<std::string_view, A::size> node_names =
      []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::string_view, A::size>{node_traits<typename A::template node<I>>::name...};
  }
  (std::make_index_sequence<A::size>{});

  const Executor& executor() const noexcept { return executor_; }
  // Node I's instance (a checkpointed run reads a subgraph node's child app through it).
  template <std::size_t I>
  const auto& node_instance() const noexcept {
    return detail::slot_at<I>(nodes_);
  }

 private:
  template <class>
  friend struct detail::async_runs;  // <stategraph/asio.hpp> runs the general step's tasks as coroutines

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

  // ---- construction ----------------------------------------------------------------------

  template <class Bound>
  app(Bound&& bound, int) : nodes_(make_nodes(bound)), routers_(make_routers(bound)), executor_(take_executor(bound)) {}

  // With nothing bound (the common case) every node and router is default-constructed, with
  // no function per node to build it.
  template <class Bound>
  static nodes_tuple make_nodes(Bound& bound) {
    if constexpr (std::tuple_size_v<std::remove_cvref_t<Bound>> == 0) {
      static_assert(!detail::any_of<typename A::nodes, detail::not_default_constructible>::value,
                    "stategraph: this node or router has no default constructor; pass an instance to sg::compile");
      return nodes_tuple{};
    } else {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return nodes_tuple(std::in_place, take<node_t<I>>(bound)...);
      }
      (std::make_index_sequence<A::size>{});
    }
  }
  template <class Bound>
  static routers_tuple make_routers(Bound& bound) {
    if constexpr (std::tuple_size_v<std::remove_cvref_t<Bound>> == 0) {
      return routers_tuple{};
    } else {
      return [&]<std::size_t... B>(std::index_sequence<B...>) {
        return routers_tuple(std::in_place, take<router_t<B>>(bound)...);
      }
      (std::make_index_sequence<A::branch_count>{});
    }
  }
  template <class T, class Bound>
  static T take(Bound& bound) {
    if constexpr (boost::mp11::mp_contains<boost::mp11::mp_rename<std::remove_cvref_t<Bound>, detail::mp_list>,
                                           T>::value) {
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
    if constexpr (boost::mp11::mp_contains<boost::mp11::mp_rename<std::remove_cvref_t<Bound>, detail::mp_list>,
                                           option>::value)
      return std::get<option>(bound).executor;
    else
      return Executor{};
  }

  // ---- result slots ----------------------------------------------------------------------

  // A node that only runs as a send target (it takes a payload) has no plain call.
  // A type, not a variable template: every variable and function instantiated in the app
  // gets a mangled name that spells the whole graph, and g++ mangles each in time quadratic
  // in its length (see task_table). One per node made compile time cubic in the node count.
  template <std::size_t I, class Ctx>
  using plain_t = std::bool_constant<detail::callable_with<node_t<I>, state_type, Ctx>()>;
  using no_result = detail::no_result;
  template <std::size_t I, class Ctx>
  struct result_slot {
    using type = no_result;
  };
  template <std::size_t I, class Ctx>
  requires(plain_t<I, Ctx>::value) struct result_slot<I, Ctx> {
    using type = detail::result_tag<detail::node_result_t<node_t<I>, state_type, Ctx>>;
  };
  template <std::size_t I, class Ctx>
  using result_slot_t = typename result_slot<I, Ctx>::type;
  template <class Ctx, class Seq>
  struct results_of;
  template <class Ctx, std::size_t... I>
  struct results_of<Ctx, std::index_sequence<I...>> {
    using type = detail::result_store<typename result_slot<I, Ctx>::type...>;
  };
  template <class Ctx>
  using results_tuple = typename results_of<Ctx, std::make_index_sequence<A::size>>::type;

  [[noreturn]] static void over_limit(const run_config& config, std::size_t step, const set& active) {
    std::vector<std::string_view> names;
    for (std::size_t i = 0; i < A::size; ++i)
      if (active.test(i)) names.push_back(node_names[i]);
    throw recursion_limit_error(config.recursion_limit, step + 1, std::move(names));
  }
  // The same for a step of one node, named by its index: a long plan's steps then pass a
  // number, not a set of their own built in place or read from a table.
  [[noreturn]] static void over_limit_at(const run_config& config, std::size_t step, std::size_t node) {
    over_limit(config, step, just(node));
  }
  static set just(std::size_t i) {
    set s{};
    s.set(i);
    return s;
  }

  // ---- the branches ----------------------------------------------------------------------

  // Per node, the branches that leave it, in branch order: node i's are
  // branches_from.members[branches_from.offsets[i]] ..
  static constexpr std::array<std::size_t, A::branch_count> branch_sources = detail::branch_sources_of(A::branch_table);
  static constexpr auto branches_from = detail::branches_leaving<A::size>(branch_sources);

  // Branch B's router on the merged state: its targets into `next`, or its sends into the
  // next step's queues. Called through a table. A router that chooses nodes runs in
  // detail::go_route, keyed by its own type and reading its targets from A::branch_table
  // (not a member of the app: its name would be as long as the graph, see task_table); one
  // that sends needs the graph's names to queue them. Picked by type (route_of), not by a
  // function per branch: that would be one more name as long as the graph per branch.
  template <std::size_t B>
  struct send_route {
    static void call(const void* router, const state_type& state, set&, queues_type& sends,
                     const std::size_t*) {
      detail::enqueue<typename A::names>(sends, detail::call_router(*static_cast<const router_t<B>*>(router), state));
    }
  };
  template <std::size_t B>
  using route_of =
      std::conditional_t<is_go<typename A::template branch_parts<typename A::template branch_at<B>>::go_type>::value,
                         detail::go_route<router_t<B>, state_type, set, queues_type>, send_route<B>>;
  using route_fn = void (*)(const void*, const state_type&, set&, queues_type&, const std::size_t*);
  static constexpr std::array<route_fn, A::branch_count> route_table = []<std::size_t... B>(std::index_sequence<B...>) {
    return std::array<route_fn, A::branch_count>{&route_of<B>::call...};
  }
  (std::make_index_sequence<A::branch_count>{});
  void route_branch(std::size_t b, const state_type& state, set& next, queues_type& sends) const {
    route_table[b](detail::slot_address(routers_, b), state, next, sends,
                   A::branch_table[b].target_list.data());
  }

  // The branches whose source ran, evaluated on the merged state, in branch order.
  void run_routers(const state_type& state, const set& ran, set& next,
                   queues_type& next_sends) const {
    for (std::size_t b = 0; b < A::branch_count; ++b)
      if (ran.test(branch_sources[b])) route_branch(b, state, next, next_sends);
  }
  // The routers of the branches leaving node i.
  void route_alone(std::size_t i, const state_type& state, set& next, queues_type& sends) const {
    for (std::size_t k = branches_from.offsets[i]; k < branches_from.offsets[i + 1]; ++k)
      route_branch(branches_from.members[k], state, next, sends);
  }

  // ---- sends --------------------------------------------------------------------------

  using sends_plan = detail::send_plan<A>;
  enum : bool { has_sends = sends_plan::any };
  template <std::size_t I>
  using queue_t = queue_for_node<I>;

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
  requires(!std::is_same_v<queue_t<I>, detail::no_queue>) struct send_slots_for<I, Ctx> {
    using type = std::vector<
        send_slot<decltype(detail::call_send(std::declval<const node_t<I>&>(), std::declval<const state_type&>(),
                                             std::declval<const typename queue_t<I>::value_type&>(),
                                             std::declval<Ctx&>(), std::declval<const run_config&>()))>>;
  };
  template <class Ctx, class Seq>
  struct send_slots_of;
  template <class Ctx, std::size_t... I>
  struct send_slots_of<Ctx, std::index_sequence<I...>> {
    using type = detail::slots<typename send_slots_for<I, Ctx>::type...>;
  };

  static bool pending_sends(const position_type& at) {
    if constexpr (has_sends)
      return std::apply([](const auto&... q) { return (!q.empty() || ...); }, at.sends);
    else
      return false;
  }

  template <class Ctx, class Callback>
  state_type stream_with(state_type input, stream_mode mode, Ctx& context, Callback& callback,
                         const run_config& config) const;  // run.hpp

  // ---- whole runs ------------------------------------------------------------------------

  // A fixed plan of up to this many steps is one function (run_fixed).
  enum : std::size_t { inlined_plan_steps = 32 };
  // A short plan runs fixed on the pool too: its steps of several nodes are pool tasks.
  enum : bool {
    fixed_fast_path = A::plan.fixed && (std::is_same_v<Executor, sequential> ||
                                        (std::is_same_v<Executor, thread_pool> && A::plan.steps <= inlined_plan_steps))
  };

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

  template <class Ctx, class... E>
  state_type run_partial(patch<E...>&& input, Ctx& context, const run_config& config) const {
    state_type state{};
    if constexpr (fixed_fast_path) {
      detail::apply_patch(state, std::move(input), nullptr);
      run_fixed(state, context, config);
    } else {
      channel_set touched{};
      position_type at{first_frontier(state, std::move(input), touched), {}, 0, {}};
      run_frontier(state, at, context, config);
    }
    return state;
  }

  // An invoke on the frontier. A step whose only task is one node (no other active node,
  // no sends queued) needs no result slots: its node's patch is the step's whole merge. Such
  // a step runs without failure capture — the node's exception propagates before anything
  // was applied, which leaves the state as at the step start. Only for the executors that
  // run a lone task inline anyway; another executor sees every task.
  using arrivals = std::array<set, A::join_count>;
  enum : bool { alone_path = std::is_same_v<Executor, sequential> || std::is_same_v<Executor, thread_pool> };

  // At most one node per step, whatever the routers choose (analysis::one_at_a_time), and
  // no sends queued.
  enum : bool { one_at_a_time = !detail::send_plan<A>::any && A::one_at_a_time };

  // Forced inline into run(): there the state is the run's own object, and the compiler can
  // keep a chain's channels in registers between steps (Clang keeps a state it reaches
  // through a reference in memory).
  template <class Ctx>
  [[gnu::always_inline]] void run_frontier(state_type& state, position_type& at, Ctx& context,
                                           const run_config& config) const {
    if constexpr (alone_path && one_at_a_time) {
      // Only steps of one node: the frontier is one index, and the general step is not even
      // compiled for this run.
      std::size_t current = detail::only_member(at.active);
      if (current == detail::none && at.active.any())
        throw error("stategraph: internal error: several nodes start a graph that runs one at a time");
      // The steps left under the recursion limit (plus detail::step_bias), counted down
      // (detail::take_step): the step's number is needed only where a node fails, so it is
      // derived there.
      const std::size_t limit = config.recursion_limit;
      std::size_t left = (at.step < limit ? limit - at.step : 0) + detail::step_bias;
      while (current != detail::none) {
        if (detail::take_step(left)) over_limit(config, limit, just(current));
        current = chain_link_at(current, state, at.arrived, context, config, left);
      }
      at.active = set{};
      at.step = limit + detail::step_bias - left;
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

  // ---- a step of one node ----------------------------------------------------------------

  // Node i's call through the task table (rather than every node's code unrolled into one
  // function); false for a node that has no plain call (run_step runs it as a send target).
  template <class Ctx>
  bool run_alone(std::size_t i, state_type& state, position_type& at, Ctx& context, const run_config& config) const {
    if (!has_plain_call<Ctx>[i]) return false;
    if (at.step >= config.recursion_limit) over_limit(config, at.step, at.active);
    // The result is built here, on the stack, rather than in a frame with a slot per node.
    alignas(alone_result<Ctx>.align) std::byte result[alone_result<Ctx>.size];
    // The node's failure is wrapped here, once, rather than in each node's function (a
    // handler per node is costly code generation). What fails after the call (the merge, a
    // router) propagates unwrapped.
    try {
      task_table<Ctx>[i](node_at(i), state, context, config, result, nullptr);
    } catch (...) {
      detail::fail_attempt(node_names[i], at.step + 1);
    }
    finish_alone<Ctx>(i, result, state, at);
    return true;
  }

  // The barrier and the next frontier of a step of one node; destroys the result. The
  // barrier is node i's entry of a table of detail::lone_merge, keyed by the result's type
  // and the step's types, not the graph (engine/step.hpp says why).
  using lone_changes = std::conditional_t<A::reactive, channel_set, detail::no_changes>;
  template <class Ctx>
  static constexpr auto lone_merge_table = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<detail::lone_merge_fn<state_type, set, lone_changes, queues_type>, A::size>{
        detail::lone_merge<result_slot_t<I, Ctx>, detail::merge_names<names, result_slot_t<I, Ctx>>, state_type, set,
                           lone_changes, queues_type>::value...};
  }
  (std::make_index_sequence<A::size>{});
  template <class Ctx>
  void finish_alone(std::size_t i, void* result, state_type& state, position_type& at) const {
    [[maybe_unused]] lone_changes changed{};
    detail::next_set<set> next{};
    // No sends were queued (the caller checked), so this step's sends are the next queues.
    lone_merge_table<Ctx>[i](result, state, next, &changed, at.sends);
    detail::next_frontier<A>(i, at.arrived, &changed, next, [&](auto& n) { route_alone(i, state, n.nodes, at.sends); });
    at.active = next.nodes;
    at.step += 1;
  }
  template <class Ctx>
  static constexpr auto has_plain_call = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, A::size>{plain_t<I, Ctx>::value...};
  }
  (std::make_index_sequence<A::size>{});
  struct storage_need {
    std::size_t size = 1;
    std::size_t align = 1;
  };
  template <class Ctx>
  static constexpr storage_need alone_result = []<std::size_t... I>(std::index_sequence<I...>) {
    storage_need out{};
    for (detail::value_need n : {detail::need_of<typename detail::box_value<result_slot_t<I, Ctx>>::type>()...}) {
      out.size = n.size > out.size ? n.size : out.size;
      out.align = n.align > out.align ? n.align : out.align;
    }
    return out;
  }
  (std::make_index_sequence<A::size>{});

  // ---- a chain link: a step of a graph that runs one node at a time ----------------------

  // Node `i`'s step; returns the one node that runs next, or none. `left` counts the steps
  // left under the recursion limit (plus detail::step_bias), this one already taken.
  // A graph of at most one chunk (detail::fold_chunk) dispatches to its links' code in one
  // fold, the links inline with their handlers: forced inline, since Clang otherwise keeps a
  // step's call out of line, and the call costs more than the rest of the library's work in
  // a step; nor does Clang inline the run into its caller with a handler around the links.
  // A larger graph calls node i's link (detail::chain_link_call, a function of its own)
  // through a table, and wraps the links' node failures once, each link marking its call
  // (detail::call_mark): a handler per node, or a comparison per node, is costly code.
  enum : bool { marked_links = A::size > detail::fold_chunk };
  template <class Ctx>
  [[gnu::always_inline]] std::size_t chain_link_at(std::size_t i, state_type& state, arrivals& arrived, Ctx& context,
                                                   const run_config& config, std::size_t& left) const {
    if constexpr (marked_links) {
      detail::call_failure failed;
      try {
        return link_calls<Ctx>[i](node_at(i), routers_, link_table, state, arrived, context, config, left, failed);
      } catch (...) {
        detail::fail_marked(failed, node_names.data());
      }
    } else {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        std::size_t next = detail::none;
        detail::unmarked failed;
        (void)((i == I && (next = detail::chain_link<I, link_successor[I], self_loops[I], command_targets<I, Ctx>,
                                                     link_routes<I>>(detail::slot_at<I>(nodes_), routers_, link_table,
                                                                     state, arrived, context, config, left, failed),
                           true)) ||
               ...);
        return next;
      }
      (std::make_index_sequence<A::size>{});
    }
  }
  // The graph's tables as the links read them: only for the joins (see detail::next_frontier).
  static constexpr const typename A::tables* link_table = A::join_count > 0 ? &A::table : nullptr;
  // The nodes that may run again right after themselves (a loop of one node): their steps
  // repeat inside their own link, without going back through the dispatch.
  static constexpr auto self_loops = detail::self_loops_of(A::table, A::branch_table);
  // What detail::chain_link is keyed by instead of the graph: each node's one static
  // successor, the target indices of its command, and its branches with their targets.
  static constexpr auto link_successor = detail::only_successors(A::table);
  template <class Slot>
  struct command_of {
    using type = detail::known_targets<std::array<std::size_t, 0>{}>;
  };
  template <class Slot>
    requires(!std::is_void_v<typename Slot::value_type::go_type>)
  struct command_of<Slot> {
    using type = detail::known_targets<detail::target_indices<names, typename Slot::value_type::go_type>::value>;
  };
  template <std::size_t I, class Ctx>
  using command_targets = typename command_of<result_slot_t<I, Ctx>>::type;
  template <std::size_t B>
  using route_targets_t = detail::known_targets<detail::target_indices<
      names, std::remove_cvref_t<decltype(detail::call_router(std::declval<const router_t<B>&>(),
                                                               std::declval<const state_type&>()))>>::value>;
  template <std::size_t B, class T>
  struct route_entry;
  template <std::size_t B, auto T>
  struct route_entry<B, detail::known_targets<T>> {
    using type = detail::link_route<B, T>;
  };
  template <std::size_t I, class K = std::make_index_sequence<branches_from.offsets[I + 1] - branches_from.offsets[I]>>
  struct link_routes_of;
  template <std::size_t I, std::size_t... K>
  struct link_routes_of<I, std::index_sequence<K...>> {
    using type = detail::mp_list<typename route_entry<branches_from.members[branches_from.offsets[I] + K],
                                                      route_targets_t<branches_from.members[branches_from.offsets[I] + K]>>::type...>;
  };
  template <std::size_t I>
  using link_routes = typename link_routes_of<I>::type;
  // Node i's link, for a graph past one chunk (marked_links).
  template <class Ctx>
  using link_fn = std::size_t (*)(const void*, const routers_tuple&, const typename A::tables*, state_type&, arrivals&,
                                  Ctx&, const run_config&, std::size_t&, detail::call_failure&);
  template <class Ctx>
  static constexpr auto link_calls = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<link_fn<Ctx>, A::size>{
        &detail::chain_link_call<I, link_successor[I], self_loops[I], command_targets<I, Ctx>, link_routes<I>, node_t<I>,
                                 routers_tuple, state_type, Ctx>...};
  }
  (std::make_index_sequence<A::size>{});

  // ---- a fixed plan ------------------------------------------------------------------------

  // A static acyclic graph on the sequential executor: its frontiers are static_next
  // evaluated at compile time (A::plan_steps), so a run is those steps with no frontier and
  // no dispatch (engine/plan.hpp). A short plan is one function with its steps inlined
  // (Clang otherwise calls each step out of line); a long one runs its steps from pack
  // expansions, each step a function named after its nodes rather than a member named after
  // the whole graph (g++ mangles such names in time quadratic in their length).
  static constexpr auto plan_members = detail::flatten_plan<detail::plan_runs(A::plan_steps)>(A::plan_steps);
  enum : bool { one_node_per_step = plan_members.offsets[A::plan.steps] == A::plan.steps };
  template <std::size_t St, class K = std::make_index_sequence<plan_members.offsets[St + 1] - plan_members.offsets[St]>>
  struct step_members;
  template <std::size_t St, std::size_t... K>
  struct step_members<St, std::index_sequence<K...>> {
    using type = std::index_sequence<plan_members.members[plan_members.offsets[St] + K]...>;
  };
  template <class Ctx>
  void run_fixed(state_type& state, Ctx& context, const run_config& config) const {
    if constexpr (A::plan.steps <= inlined_plan_steps) {
      [&]<std::size_t... St>(std::index_sequence<St...>) {
        (run_fixed_step<St>(state, context, config), ...);
      }
      (std::make_index_sequence<A::plan.steps>{});
    } else {
      run_plan_from<0>(state, context, config);
    }
  }
  // A long plan's steps from step From on, detail::fold_chunk to a pack expansion.
  template <std::size_t From, class Ctx>
  void run_plan_from(state_type& state, Ctx& context, const run_config& config) const {
    constexpr std::size_t count = A::plan.steps - From < detail::fold_chunk ? A::plan.steps - From : detail::fold_chunk;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      if constexpr (one_node_per_step) {
        // One handler for the chunk's nodes (see detail::lone_plan_step): what else fails
        // here (the recursion limit, a reducer) is not the node's failure.
        std::size_t running = detail::none;
        try {
          (((From + K >= config.recursion_limit ? over_limit_at(config, From + K, plan_members.members[From + K])
                                                : void()),
            detail::lone_plan_step<From + K + 1>(state, context, config,
                                                 detail::slot_at<plan_members.members[From + K]>(nodes_), running)),
           ...);
        } catch (...) {
          if (running == detail::none) throw;
          detail::fail_node(node_names[plan_members.members[running - 1]], running, std::current_exception());
        }
      } else
        (((From + K >= config.recursion_limit ? over_limit(config, From + K, A::plan_steps[From + K]) : void()),
          detail::plan_step<From + K + 1>(state, context, config, nodes_, typename step_members<From + K>::type{})),
         ...);
    }
    (std::make_index_sequence<count>{});
    if constexpr (From + count < A::plan.steps) run_plan_from<From + count>(state, context, config);
  }
  template <std::size_t St, class Ctx>
  [[gnu::always_inline]] void run_fixed_step(state_type& state, Ctx& context, const run_config& config) const {
    if (St >= config.recursion_limit) over_limit(config, St, A::plan_steps[St]);
    constexpr std::size_t first = plan_members.offsets[St];
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      if constexpr (std::is_same_v<Executor, sequential>)
        detail::fixed_step<St + 1>(state, context, config, detail::slot_at<plan_members.members[first + K]>(nodes_)...);
      else
        detail::fixed_step_on<St + 1>(executor_, state, context, config,
                                      detail::slot_at<plan_members.members[first + K]>(nodes_)...);
    }
    (std::make_index_sequence<plan_members.offsets[St + 1] - first>{});
  }


  // ---- the general step ------------------------------------------------------------------

  struct no_slots {};
  template <class Ctx, class Observer>
  struct frame {
    enum : bool { timed = Observer::streams };
    const app& self;
    const state_type& state;
    Ctx& context;
    const run_config& config;
    const queues_type& queues;
    Observer& observer;
    results_tuple<Ctx> results{};
    std::array<std::exception_ptr, A::size> failures{};
    [[no_unique_address]] std::conditional_t<timed, std::array<std::chrono::nanoseconds, A::size>, detail::untimed>
        took{};
    // What the subgraphs each task ran reported, forwarded into this run's stream.
    [[no_unique_address]] std::conditional_t<timed, std::array<detail::child_events, A::size>, detail::untimed>
        children{};
    [[no_unique_address]] std::conditional_t<
        has_sends, typename send_slots_of<Ctx, std::make_index_sequence<has_sends ? std::size_t{A::size} : 0>>::type,
        no_slots>
        sent{};
    // The nodes whose results the observer restored into their slots: not run again.
    [[no_unique_address]] std::conditional_t<Observer::persists, set, no_slots> restored{};
  };
  // Node i's call (detail::node_task, keyed by the node's type, not the graph's): into its
  // place in a general step's result_store, or into a lone step's storage. The addresses of
  // a node and of its result are read off offsets rather than computed by a function per
  // node: GCC builds the assembler name of each function it compiles, and a member of the
  // app has a name as long as the graph.
  template <class Ctx>
  using task_fn = void (*)(const void*, const state_type&, Ctx&, const run_config&, void*, bool*);
  template <class Ctx>
  static constexpr auto task_table = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<task_fn<Ctx>, A::size>{&detail::node_task<node_t<I>, result_slot_t<I, Ctx>, state_type, Ctx>...};
  }
  (std::make_index_sequence<A::size>{});
  const void* node_at(std::size_t i) const {
    return detail::slot_address(nodes_, i);
  }
  template <std::size_t I, class Ctx, class Observer>
  static void run_send_task(frame<Ctx, Observer>& f, std::size_t k) {
    if constexpr (!std::is_same_v<queue_t<I>, detail::no_queue>) {
      [[maybe_unused]] auto custom = detail::custom_scope(f.observer, I);
      auto& slot = detail::slot_at<I>(f.sent)[k];
      auto call = [&] {
        try {
          slot.result.emplace(detail::deferred{[&] {
            return detail::call_send(detail::slot_at<I>(f.self.nodes_), f.state, std::get<I>(f.queues)[k], f.context,
                                     f.config);
          }});
        } catch (...) {
          slot.failure = std::current_exception();
        }
      };
      if constexpr (Observer::persists) {
        // Restored, or still waiting on its interrupt (restore_sends): not run again. The
        // scope is where sg::interrupt finds this task's answers.
        if (slot.result || slot.failure) return;
        detail::task_scope scope{I, f.observer.send_resume_values(I, k), 0, nullptr};
        detail::task_scope_guard guard(&scope);
        call();
      } else {
        call();
      }
    }
  }
  // A persisting observer's kept results of send tasks, put back into their slots before any
  // task runs, and the send tasks whose interrupts are unanswered, marked paused.
  template <class Ctx, class Observer>
  static void restore_sends(frame<Ctx, Observer>& f) {
    detail::for_each_index<A::size>([&]<std::size_t I>() {
      if constexpr (!std::is_same_v<queue_t<I>, detail::no_queue>) {
        auto& slots = detail::slot_at<I>(f.sent);
        slots.resize(std::get<I>(f.queues).size());
        for (std::size_t k = 0; k < slots.size(); ++k)
          if (!f.observer.template restore_send<I>(k, slots[k].result) && f.observer.send_waits(I, k))
            slots[k].failure = detail::unanswered_interrupt();
      }
    });
  }

  // Runs the step's tasks: on the sequential executor in node order, each node through a
  // table of one function per node; on another, as the executor's tasks.
  template <class Ctx, class Observer, class Frame>
  void run_tasks(const set& active, Frame& f) const {
    detail::task_outputs out{f.failures.data()};
    if constexpr (Frame::timed) {
      // Durations only for debug events: the clock is a cost per task.
      out.took = has_mode(f.observer.mode, stream_mode::debug) ? f.took.data() : nullptr;
      out.children = f.children.data();
      out.mode = f.observer.mode;
    }
    // One node's task: its call, with the failure capture, timing and interrupt scope
    // around it. A node whose result the observer restored is not run again.
    auto call = [&](std::size_t i) {
      task_table<Ctx>[i](node_at(i), f.state, f.context, f.config, f.results.place(i), f.results.engaged(i));
    };
    auto node_task = [&](std::size_t i) {
      [[maybe_unused]] auto custom = detail::custom_scope(f.observer, i);
      if constexpr (Observer::persists) {
        if (f.restored.test(i)) return;
        detail::task_outputs mine = out;
        mine.resume = f.observer.resume_values(i);
        mine.child = f.observer.child_run(i);
        detail::run_node_task<Frame::timed, true>(call, i, mine);
      } else {
        detail::run_node_task<Frame::timed, false>(call, i, out);
      }
    };
    if constexpr (has_sends) {
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (!std::is_same_v<queue_t<I>, detail::no_queue>)
          detail::slot_at<I>(f.sent).resize(std::get<I>(f.queues).size());
      });
    }
    if constexpr (std::is_same_v<Executor, sequential>) {
      if constexpr (has_sends) {
        detail::for_each_index<A::size>([&]<std::size_t I>() {
          if constexpr (plain_t<I, Ctx>::value)
            if (active.test(I)) node_task(I);
          for (std::size_t k = 0; k < std::get<I>(f.queues).size(); ++k) run_send_task<I, Ctx, Observer>(f, k);
        });
      } else {
        active.for_each([&](std::size_t i) { node_task(i); });
      }
    } else {
      if constexpr (has_sends) {
        static constexpr auto send_table = []<std::size_t... I>(std::index_sequence<I...>) {
          return std::array<void (*)(Frame&, std::size_t), A::size>{&run_send_task<I, Ctx, Observer>...};
        }
        (std::make_index_sequence<A::size>{});
        std::vector<std::pair<std::size_t, std::size_t>> tasks;  // (node, send index or none)
        detail::for_each_index<A::size>([&]<std::size_t I>() {
          if constexpr (plain_t<I, Ctx>::value)
            if (active.test(I)) tasks.emplace_back(I, detail::none);
          for (std::size_t k = 0; k < std::get<I>(f.queues).size(); ++k) tasks.emplace_back(I, k);
        });
        auto task = [&](std::size_t t) {
          auto [node, k] = tasks[t];
          if (k == detail::none)
            node_task(node);
          else
            send_table[node](f, k);
        };
        executor_.for_each_task(tasks.size(), task);
      } else {
        std::array<std::size_t, A::size> tasks{};
        std::size_t count = 0;
        for (std::size_t i = 0; i < A::size; ++i)
          if (active.test(i)) tasks[count++] = i;
        auto task = [&](std::size_t k) { node_task(tasks[k]); };
        executor_.for_each_task(count, task);
      }
    }
  }

  // What the general step's barrier gathers: the channels it changed (for a reactive graph
  // or a persisting observer), the next frontier, the next step's sends.
  template <class Observer>
  struct gathered {
    enum : bool { tracks = Observer::persists || A::reactive };
    state_type& state;
    Observer& observer;
    const set& active;
    std::size_t step;
    [[no_unique_address]] std::conditional_t<tracks, channel_set, detail::no_changes> changed{};
    detail::next_set<set> next{};
    queues_type next_sends{};
  };
  // The barrier's work for node I in a graph with sends: its result merged, then its sends'
  // results in send order. Called in node order through a table. (A graph without sends
  // merges through step_merge_table.)
  template <std::size_t I, class Ctx, class Observer>
  static void merge_task(frame<Ctx, Observer>& f, gathered<Observer>& g, std::size_t) {
    if constexpr (plain_t<I, Ctx>::value)
      if (g.active.test(I)) merge_one(g, node_names[I], *detail::slot_at<I>(f.results));
    if constexpr (has_sends && !std::is_same_v<queue_t<I>, detail::no_queue>)
      for (auto& slot : detail::slot_at<I>(f.sent)) merge_one(g, node_names[I], *slot.result);
  }
  template <class Ctx, class Observer>
  static constexpr auto merge_table = []<std::size_t... I>(std::index_sequence<I...>) {
    using fn = void (*)(frame<Ctx, Observer>&, gathered<Observer>&, std::size_t);
    return std::array<fn, A::size>{&merge_task<I, Ctx, Observer>...};
  }
  (std::make_index_sequence<A::size>{});
  // In a graph without sends, node i's result is merged by entry i of a table of
  // detail::step_merge, keyed by the result's type and the step's types, not the graph
  // (null for a node with no plain call).
  template <class Observer>
  using step_changes = std::conditional_t<gathered<Observer>::tracks, channel_set, detail::no_changes>;
  template <class Ctx, class Observer>
  static constexpr auto step_merge_table = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<detail::step_merge_fn<state_type, Observer, set, step_changes<Observer>, queues_type>, A::size>{
        detail::step_merge<result_slot_t<I, Ctx>, detail::merge_names<names, result_slot_t<I, Ctx>>, state_type, Observer,
                           set, step_changes<Observer>, queues_type>::value...};
  }
  (std::make_index_sequence<A::size>{});
  // A result of a graph with sends (its own or one of its sends'), merged as step_merge does.
  template <class Observer, class Result>
  static void merge_one(gathered<Observer>& g, std::string_view name, Result& r) {
    using slot = detail::result_tag<Result>;
    detail::step_merge<slot, detail::merge_names<names, slot>, state_type, Observer, set, step_changes<Observer>,
                       queues_type>::call(&r, name, g.observer, g.step, g.state, g.next, &g.changed, g.next_sends);
  }

  template <class Ctx, class Observer>
  bool run_step(state_type& state, position_type& at, Ctx& context, const run_config& config, Observer& observer) const {
    if (!at.any()) return false;
    if (at.step >= config.recursion_limit) over_limit(config, at.step, at.active);
    using frame_t = frame<Ctx, Observer>;
    frame_t f{*this, state, context, config, at.sends, observer};
    if constexpr (Observer::persists) restore_kept(at, f);
    run_tasks<Ctx, Observer>(at.active, f);
    return finish_step(state, at, f, observer);
  }
  // Kept results are restored before any task runs, on the calling thread: one that cannot be
  // restored refuses the whole step with nothing run. (An async run's step calls it too.)
  template <class Ctx, class Observer>
  static void restore_kept(const position_type& at, frame<Ctx, Observer>& f) {
    detail::for_each_index<A::size>([&]<std::size_t I>() {
      if constexpr (plain_t<I, Ctx>::value)
        if (at.active.test(I)) {
          if (f.observer.template restore<I>(detail::slot_at<I>(f.results))) {
            f.restored.set(I);
          } else if (f.observer.waits(I)) {  // its interrupt is unanswered: it stays paused
            f.restored.set(I);
            f.failures[I] = detail::unanswered_interrupt();
          }
        }
    });
    if constexpr (has_sends) restore_sends(f);
  }
  // What follows a step's tasks (the general step's, or an async run's): its failures, then
  // the barrier and the next frontier.
  // (An async run evaluates the routers itself, after it: Routers = false.)
  template <class Ctx, class Observer, bool Routers = true>
  bool finish_step(state_type& state, position_type& at, frame<Ctx, Observer>& f, Observer& observer) const {
    const std::size_t step_no = at.step + 1;
    auto ran = at.active;  // the nodes that run in this step, as a node or as a send target
    if constexpr (has_sends)
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if (!std::get<I>(at.sends).empty()) ran.set(I);
      });
    if constexpr (Observer::streams) observer.tasks(step_no, at.active, f.failures, f.took, f.children);
    // A failed step leaves the state as it was; a persisting observer keeps the results of
    // the nodes that succeeded, and the step pauses (rather than fails) when the only
    // trouble was interrupts.
    std::size_t failed = A::size;
    bool paused = false;
    for (std::size_t i = 0; i < A::size && failed == A::size; ++i)
      if (f.failures[i]) {
        if (detail::is_interrupt(f.failures[i]))
          paused = true;
        else
          failed = i;
      }
    // Send tasks fail or pause their step as nodes do (after the nodes, in node and send order).
    [[maybe_unused]] const std::exception_ptr* send_failure = nullptr;
    if constexpr (has_sends)
      if (failed == A::size)
        detail::for_each_index<A::size>([&]<std::size_t I>() {
          if constexpr (!std::is_same_v<queue_t<I>, detail::no_queue>)
            for (auto& slot : detail::slot_at<I>(f.sent))
              if (slot.failure && failed == A::size) {
                if (detail::is_interrupt(slot.failure)) {
                  paused = true;
                } else {
                  failed = I;
                  send_failure = &slot.failure;
                }
              }
        });
    if (failed < A::size) {
      if constexpr (Observer::persists) observer.step_failed(step_no, at, f.results, f.failures, f.sent);
      if constexpr (has_sends)
        if (send_failure) detail::fail_node(node_names[failed], step_no, *send_failure);
      detail::fail_node(node_names[failed], step_no, f.failures[failed]);
    }
    if (paused) {
      if constexpr (Observer::persists) {
        observer.step_paused(step_no, at, f.results, f.failures, f.sent);
        throw detail::paused_step{};
      } else {
        throw error(detail::no_store_for_interrupt);
      }
    }

    gathered<Observer> g{state, observer, at.active, step_no};
    if constexpr (Observer::persists) observer.before_merge(state);
    // The results sit in slots chosen at run time: merged in node order through the merge
    // tables, each by detail::merge_result.
    detail::each_result in_order{[&](auto) {
      ran.for_each([&](std::size_t i) {
        if constexpr (has_sends) {
          merge_table<Ctx, Observer>[i](f, g, i);
        } else if (g.active.test(i)) {
          if (auto merge = step_merge_table<Ctx, Observer>[i])
            merge(f.results.place(i), node_names[i], g.observer, g.step, g.state, g.next, &g.changed, g.next_sends);
        }
      });
    }};
    detail::barrier<names, Observer::persists>(state, g.next, &g.changed, g.next_sends, in_order);
    detail::next_frontier<A>(ran, at.arrived, &g.changed, g.next, [&](auto& n) {
      if constexpr (Routers) run_routers(state, ran, n.nodes, g.next_sends);
    });
    at.active = g.next.nodes;
    at.sends = std::move(g.next_sends);
    at.step = step_no;
    if constexpr (Observer::persists) observer.step_done(state, at, g.changed);
    if constexpr (Observer::streams) observer.values(step_no, state);
    return at.any();
  }

  nodes_tuple nodes_;
  routers_tuple routers_;
  Executor executor_;
};

}  // namespace stategraph
