// The two rules of a superstep, used by every path that runs one: the fixed plan, a chain
// link, a step of one node, the general step on any executor, and a checkpointed run's
// update_state.
//   barrier       — clear the ephemeral channels, fold each result's patch into the state in
//                   node order, and collect what the results chose (command targets, sends);
//   next_frontier — what runs next: the static successors of the nodes that ran and the
//                   joins they completed (the analysis's static_next, which the fixed plan
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
#include <type_traits>
#include <utility>

namespace stategraph::detail {

// The indices of a go<...>'s targets in the graph (none for end), in declaration order.
template <class Names, class Go>
struct target_indices {
  static constexpr auto value = indices_of<Names>(static_cast<typename Go::targets*>(nullptr));
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

// ---- what runs next --------------------------------------------------------------------

// After a step in which `ran` ran: a set of nodes, one node's index, or a chain link's node
// as a constant (its successors then fold away). `route(next)` adds the choices of the
// branches leaving what ran, made on the merged state.
template <class A, class Ran, class Next, class Changed, class Route>
[[gnu::always_inline]] inline void next_frontier(const Ran& ran, std::array<typename A::set, A::join_count>& arrived,
                                                 const Changed* changed, Next& next, Route&& route) {
  if constexpr (requires { Ran::value; }) {
    constexpr std::size_t i = Ran::value;
    if constexpr (A::table.successors[i].any()) next.add(only_member(A::table.successors[i]));
    if constexpr (A::join_count > 0) next.add_all(A::static_next(i, arrived));
  } else {
    next.add_all(A::static_next(ran, arrived));
  }
  if constexpr (A::reactive) next.add_all(A::woken_by(*changed));
  route(next);
}

}  // namespace stategraph::detail
