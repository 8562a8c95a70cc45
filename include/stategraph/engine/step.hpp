// The two rules of a superstep, used by every path that runs one: the fixed plan, a chain
// link, a step of one node, the general step on any executor, and a checkpointed run's
// update_state.
//   barrier       — clear the ephemeral channels, fold each result's patch into the state in
//                   node order, and collect what the results chose (command targets, sends);
//   next_frontier — what runs next: the static successors of the nodes that ran and the
//                   joins they completed (detail::static_next, which the fixed plan
//                   evaluates at compile time), the subscribers of the channels that changed,
//                   and the branches' choices on the merged state.
// The paths differ only in what their types let the compiler drop (a frontier of one node,
// no change tracking, no sends), never in what a step means.
#pragma once

#include <stategraph/engine/apply.hpp>
#include <stategraph/engine/task.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/send.hpp>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

// What a large graph runs per node, kept as a function of its own so that the graph's run
// is not one huge function to optimise. On g++ also out of IPA (noipa): its clones would
// land in the comdat group of the caller, a member named after the whole graph, and every
// section directive would spell that name.
#if defined(__clang__)
#define STATEGRAPH_OUT_OF_LINE [[gnu::noinline]]
#else
#define STATEGRAPH_OUT_OF_LINE [[gnu::noipa]]
#endif

namespace stategraph::detail {

// The indices of a go<...>'s targets in the graph (none for end), in declaration order.
template <class Names, class Go>
struct target_indices {
  static constexpr auto value = indices_of<Names>(static_cast<typename Go::targets*>(nullptr));
};
// One command's or router's target indices given by value, in place of the graph's names:
// what a chain link is keyed by (see chain_link).
template <auto Targets>
struct known_targets {};
template <auto Targets, class Go>
struct target_indices<known_targets<Targets>, Go> {
  static constexpr auto value = Targets;
};

// ---- where a step's choices go ---------------------------------------------------------

// The next frontier as a set of nodes.
template <class Set>
struct next_set {
  Set nodes{};
  void add(std::size_t i) {
    if (i != none) nodes.set(i);
  }
  void add_all(const Set& s) { nodes |= s; }
  template <const auto& Targets, class Go>
  void choose(const Go& g) {
    add_chosen(nodes, g, Targets.data());
  }
};

// The next frontier of a graph that runs one node at a time: that node, or none. At most
// one of the step's sources names a node, so each keeps the one it has.
struct next_one {
  std::size_t node = none;
  void add(std::size_t i) {
    if (i != none) node = i;
  }
  template <class Set>
  void add_all(const Set& s) {
    add(only_member(s));
  }
  // A comparison per target rather than a load from the table: the compiler can then follow
  // a router's choice straight to the next node's code.
  template <const auto& Targets, class Go>
  void choose(const Go& g) {
    if constexpr (requires { g.index(); }) {
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (void)((g.index() == K && (add(Targets[K]), true)) || ...);
      }
      (std::make_index_sequence<Targets.size()>{});
    } else {
      for (std::uint64_t mask = g.mask(); mask; mask &= mask - 1)
        if (auto t = Targets[static_cast<std::size_t>(__builtin_ctzll(mask))]; t != none) return add(t);
    }
  }
};

// A fixed plan's frontier is known at compile time: nothing to collect.
struct next_fixed {
  template <const auto&, class Go>
  void choose(const Go&) {}
};

struct no_changes {};  // no one reads which channels a step changed

// What a go<...> or go_all<...> chose, into a frontier.
template <class Names, class Next, class Go>
[[gnu::always_inline]] inline void choose(Next& next, const Go& g) {
  next.template choose<target_indices<Names, Go>::value>(g);
}

// ---- the barrier -----------------------------------------------------------------------

// One result folded into the state: its patch through the reducers (marking the channels in
// `changed` where someone reads them), its command's targets into `next`, its sends into the
// next step's queues.
template <class Names, class S, class R, class Next, class Changed, class Queues>
[[gnu::always_inline]] inline void merge_result(S& state, R& r, Next& next, Changed* changed, Queues& sends) {
  if constexpr (requires { r.skipped; })
    if (r.skipped) return;  // a node its context's optional seam was missing from
  if constexpr (std::is_same_v<Changed, no_changes>)
    apply_patch(state, std::move(r.update), nullptr);
  else
    apply_patch(state, std::move(r.update), changed);
  if constexpr (!std::is_same_v<decltype(r.next), absent_part>)
    if (r.next) choose<Names>(next, *r.next);
  if constexpr (R::sends_work) enqueue<Names>(sends, std::move(r.sends));
}

// The results of a general step, which live in slots chosen at run time: `visit(merge)`
// merges them in node order, each through merge_result (the app's visit goes through its
// merge table, keyed by result type, and calls merge_result there).
template <class Visit>
struct each_result {
  Visit visit;
};
template <class Visit>
each_result(Visit) -> each_result<Visit>;

template <class Names, class S, class R, class Next, class Changed, class Queues>
[[gnu::always_inline]] inline void merge_results(S& state, R& r, Next& next, Changed* changed, Queues& sends) {
  if constexpr (requires { r.visit; })
    r.visit([&](auto& each) { merge_result<Names>(state, each, next, changed, sends); });
  else
    merge_result<Names>(state, r, next, changed, sends);
}

// The barrier: the ephemeral channels of the step that could read them are cleared (and
// count as changed for a checkpointed run, MarkCleared), then the results are merged in
// node order (a node's own run, then its sends in send order).
template <class Names, bool MarkCleared, class S, class Next, class Changed, class Queues, class... R>
[[gnu::always_inline]] inline void barrier(S& state, Next& next, Changed* changed, Queues& sends, R&... results) {
  if constexpr (has_ephemeral<S>) {
    clear_ephemeral(state);
    if constexpr (MarkCleared) mark_ephemeral<S>(*changed);
  }
  (merge_results<Names>(state, results, next, changed, sends), ...);
}

// ---- one result type's merge, out of the app -------------------------------------------
//
// The app reaches these through tables, one entry per node: each is keyed by the result's
// type and the step's own types (state, node set, queues), not by the graph. A member of
// the app per result type has a name that spells the graph, which g++ builds for every
// function it instantiates, and a real graph's nodes return patches of many types.

struct no_result {};  // the slot of a node with no plain call (it runs only as a send target)

// Whether merging a result needs the graph's names: for its command's targets or its sends.
// A plain patch does not, and its merge is then keyed by an empty list instead.
template <class Slot>
inline constexpr bool merges_targets = false;
template <class Slot>
  requires requires { typename Slot::value_type; }
inline constexpr bool merges_targets<Slot> =
    !std::is_same_v<decltype(std::declval<typename Slot::value_type&>().next), absent_part> ||
    Slot::value_type::sends_work;
template <class Names, class Slot>
using merge_names = std::conditional_t<merges_targets<Slot>, Names, mp_list<>>;

// A step of one node: the barrier on its result (built at `result`), then the result
// destroyed, also when a reducer throws.
template <class S, class Set, class Changed, class Queues>
using lone_merge_fn = void (*)(void*, S&, next_set<Set>&, Changed*, Queues&);
template <class Slot, class Names, class S, class Set, class Changed, class Queues>
struct lone_merge {
  static void call(void* result, S& state, next_set<Set>& next, Changed* changed, Queues& sends) {
    using R = typename Slot::value_type;
    R& r = *std::launder(static_cast<R*>(result));
    struct destroy {
      R& r;
      ~destroy() { r.~R(); }
    } destroy_after{r};
    barrier<Names, false>(state, next, changed, sends, r);
  }
  static constexpr lone_merge_fn<S, Set, Changed, Queues> value = &call;
};
template <class Names, class S, class Set, class Changed, class Queues>
struct lone_merge<no_result, Names, S, Set, Changed, Queues> {
  static constexpr lone_merge_fn<S, Set, Changed, Queues> value = nullptr;
};

// A node's result in the general step's barrier (in node order; the caller clears the
// ephemeral channels first): its update reported to the observer, then merged.
template <class S, class Observer, class Set, class Changed, class Queues>
using step_merge_fn = void (*)(void*, std::string_view, Observer&, std::size_t, S&, next_set<Set>&, Changed*, Queues&);
template <class Slot, class Names, class S, class Observer, class Set, class Changed, class Queues>
struct step_merge {
  static void call(void* result, std::string_view name, Observer& observer, std::size_t step, S& state,
                   next_set<Set>& next, Changed* changed, Queues& sends) {
    auto& r = *std::launder(static_cast<typename Slot::value_type*>(result));
    if constexpr (requires { r.skipped; })
      if (r.skipped) return;  // skipped for a missing optional seam: no update to report
    if constexpr (Observer::streams) observer.update(step, name, r.update);
    merge_result<Names>(state, r, next, changed, sends);
  }
  static constexpr step_merge_fn<S, Observer, Set, Changed, Queues> value = &call;
};
template <class Names, class S, class Observer, class Set, class Changed, class Queues>
struct step_merge<no_result, Names, S, Observer, Set, Changed, Queues> {
  static constexpr step_merge_fn<S, Observer, Set, Changed, Queues> value = nullptr;
};

// ---- what runs next --------------------------------------------------------------------

// After a step in which `ran` ran: a set of nodes or one node's index. `route(next)` adds
// the choices of the branches leaving what ran, made on the merged state.
template <class A, class Ran, class Next, class Changed, class Route>
[[gnu::always_inline]] inline void next_frontier(const Ran& ran, std::array<typename A::set, A::join_count>& arrived,
                                                 const Changed* changed, Next& next, Route&& route) {
  next.add_all(static_next(A::table, ran, arrived));
  if constexpr (A::reactive) next.add_all(A::woken_by(*changed));
  route(next);
}

// The same after a chain link, node i, whose static successor `succ` (a node or none) is a
// constant once inlined, in a graph without subscriptions; keyed by sizes, not by the graph
// nor the node (see chain_link), so the links share it. The tables are read only for the
// joins: without any, `table` is null, so that the graph's tables are not emitted into the
// program for links that never read them.
template <std::size_t N, std::size_t J, class Next, class Route>
[[gnu::always_inline]] inline void next_frontier(std::size_t i, std::size_t succ, const graph_tables<N, J>* table,
                                                 std::array<node_set<N>, J>& arrived, Next& next, const Route& route) {
  if (succ != none) next.add(succ);
  if constexpr (J > 0) next.add_all(static_next(*table, i, arrived));
  route(next);
}

// ---- a chain link: a step of a graph that runs one node at a time ----------------------

// The steps left under the recursion limit are counted down in `left`, plus step_bias;
// take_step takes one and says whether none was left: one subtraction and one branch, the
// whole cost of the limit in a chain's step. G++ tests a decrement's own zero flag but not its borrow (it adds a compare); Clang folds
// the borrow into the loop's other test.
#if defined(__clang__)
inline constexpr std::size_t step_bias = 0;
[[gnu::always_inline]] inline bool take_step(std::size_t& left) { return __builtin_sub_overflow(left, 1, &left); }
#else
inline constexpr std::size_t step_bias = 1;
[[gnu::always_inline]] inline bool take_step(std::size_t& left) { return --left == 0; }
#endif

[[noreturn]] inline void over_limit_alone(const run_config& config, std::string_view node) {
  throw recursion_limit_error(config.recursion_limit, config.recursion_limit + 1, {node});
}

// A branch leaving a chain link: its index among the app's routers, its targets' indices.
template <std::size_t B, auto Targets>
struct link_route {};
// The routers of a link's branches (Routes, a list of link_route), each choosing among its
// targets: a class keyed by the branches, not a lambda in each link (a closure type and its
// call operator per node).
template <class Routes, class Routers, class S>
struct link_routers;
template <std::size_t... B, auto... T, class Routers, class S>
struct link_routers<mp_list<link_route<B, T>...>, Routers, S> {
  const Routers& routers;
  const S& state;
  template <class Next>
  [[gnu::always_inline]] void operator()(Next& n) const {
    (choose<known_targets<T>>(n, call_router(slot_at<B>(routers), state)), ...);
  }
};

// Node I's step in a graph that runs one node at a time: its call, the barrier and the one
// node that runs next, or none. A node that may follow itself repeats here, without going
// back through the app's dispatch. Keyed by the node's and its routers' types and small
// constants, never by the graph: g++ mangles every function it instantiates, in time
// quadratic in the name's length, and a name that carries the graph is as long as the graph.
// Commands stands in for the graph's names for the node's command targets (known_targets);
// Routes lists the branches leaving I (link_route), whose routers are in `routers`.
// The node's failure is wrapped by attempt_call's handler, or, when `failed` is a
// call_failure, left there (call_mark) for the caller's one handler around many links; what
// throws after the call (a reducer, a router, the recursion limit) is not the node's failure.
template <std::size_t I, std::size_t Succ, bool SelfLoop, class Commands, class Routes, class Node, class Routers,
          class S, class Ctx, std::size_t N, std::size_t J, class Failure>
[[gnu::always_inline]] inline std::size_t chain_link(const Node& node, const Routers& routers,
                                                     const graph_tables<N, J>* table, S& state,
                                                     std::array<node_set<N>, J>& arrived, Ctx& context,
                                                     const run_config& config, std::size_t& left, Failure& failed) {
  for (;;) {
    next_one next;
    no_changes none;
    std::tuple<> no_sends;
    if constexpr (!callable_with<Node, S, Ctx>()) {
      // A node without a plain call only clears the ephemerals, as run_step does.
      barrier<Commands, false>(state, next, &none, no_sends);
    } else if constexpr (std::is_same_v<Failure, call_failure>) {
      call_mark mark{failed, I, config.recursion_limit + step_bias - left};
      auto r = call_node(node, state, context, config);
      mark.armed = false;
      barrier<Commands, false>(state, next, &none, no_sends, r);
    } else {
      auto r = attempt_call(node, state, context, config, config.recursion_limit + step_bias - left);
      barrier<Commands, false>(state, next, &none, no_sends, r);
    }
    next_frontier(I, Succ, table, arrived, next, link_routers<Routes, Routers, S>{routers, state});
    if constexpr (!SelfLoop) {
      return next.node;
    } else {
      if (next.node != I) return next.node;
      if (take_step(left)) over_limit_alone(config, node_traits<Node>::name);
    }
  }
}

// A chain link of a graph past one chunk of nodes (app::marked_links), out of line, with
// the node passed by address: every link has one signature, so the app calls node i's
// link through a table rather than through a comparison per node.
template <std::size_t I, std::size_t Succ, bool SelfLoop, class Commands, class Routes, class Node, class Routers,
          class S, class Ctx, std::size_t N, std::size_t J>
STATEGRAPH_OUT_OF_LINE std::size_t chain_link_call(const void* node, const Routers& routers,
                                                   const graph_tables<N, J>* table, S& state,
                                                   std::array<node_set<N>, J>& arrived, Ctx& context,
                                                   const run_config& config, std::size_t& left, call_failure& failed) {
  return chain_link<I, Succ, SelfLoop, Commands, Routes>(*static_cast<const Node*>(node), routers, table, state,
                                                          arrived, context, config, left, failed);
}

}  // namespace stategraph::detail
