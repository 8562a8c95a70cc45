// The static scheduler: node indices, successor/branch/join tables and, for graphs of
// static edges without cycles, the whole sequence of supersteps — all computed at
// compile time from the graph type.
#pragma once

#include <stategraph/calls.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/graph.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

namespace stategraph {

namespace detail {

// The value a router returns, or void when it cannot be called with its view.
template <class R, class S>
struct router_result {
  using type = void;
};
template <class R, class S>
  requires callable_as<const R&, node_view<S, typename reads_or<R, reads<>>::type, typename named_node<R>::type>>
struct router_result<R, S> {
  using type = awaited_t<std::remove_cvref_t<call_type<const R&, node_view<S, typename reads_or<R, reads<>>::type, typename named_node<R>::type>>>>;
};

template <class Go>
struct go_targets {
  using type = mp_list<>;
};
template <class Go>
  requires is_go<Go>::value
struct go_targets<Go> {
  using type = typename Go::targets;
};

template <class S, class E>
struct element_nodes_in {
  using type = typename element_nodes<E>::type;
};
template <class S, class Src, class R>
struct element_nodes_in<S, branch<Src, R>> {
  using result = typename router_result<R, S>::type;
  using type = boost::mp11::mp_push_front<
      boost::mp11::mp_append<typename go_targets<result>::type, send_targets_of<result>>, Src>;
};

template <class T>
using not_pseudo = std::bool_constant<!is_pseudo<T>>;

template <class B, class T>
inline constexpr bool bound_to = false;
template <class B, class T>
  requires requires { typename B::tag; }
inline constexpr bool bound_to<B, T> = std::is_same_v<typename B::tag, T>;

// A lambda node bound at compile time stands in for its tag.
template <class T, class Bound>
struct resolve {
  template <class B>
  using same_tag = std::bool_constant<bound_to<B, T>>;
  using found = boost::mp11::mp_find_if<Bound, same_tag>;
  using type = boost::mp11::mp_eval_if_c<found::value == boost::mp11::mp_size<Bound>::value, T,
                                         boost::mp11::mp_at, Bound, found>;
};
// Nothing bound (no lambda nodes): every name is its node, with nothing to look up.
template <class T>
struct resolve<T, boost::mp11::mp_list<>> {
  using type = T;
};
template <class Names, class Bound>
struct resolve_all {
  template <class T>
  using one = typename resolve<T, Bound>::type;
  using type = boost::mp11::mp_transform<one, Names>;
};
template <class Names>
struct resolve_all<Names, boost::mp11::mp_list<>> {
  using type = Names;
};

// Compile time grows with the length of symbol names too: GCC mangles every function and
// variable it instantiates, and a name that carries the graph type is as long as the graph.
// So what is instantiated once per node, edge or branch is keyed by that element's own
// types only (channel_bits<S, ...>; a name's position is a type, position_of), never by the
// graph or its name list; the per-element work is pack expansions inside a few graph-wide
// functions.

// The channels (of S) a list of value_t<&S::x> names.
template <class S, class... V>
constexpr node_set<channel_count<S>> channel_bits(mp_list<V...>*) {
  node_set<channel_count<S>> out{};
  ((std::is_same_v<state_of<V::value>, S> ? out.set(channel_index<S, V::value>()) : void()), ...);
  return out;
}

// Where an edge starts and ends, as node indices or these two codes.
inline constexpr std::size_t at_start = none - 1;
inline constexpr std::size_t at_end = none - 2;

template <class E>
struct edge_ends;
template <class A, class B>
struct edge_ends<edge<A, B>> {
  using from = A;
  using to = B;
};

template <class Names, class List>
constexpr auto indices_of(List*) {
  return positions(static_cast<const lookup_table<Names>*>(nullptr), static_cast<List*>(nullptr));
}

template <class T>
constexpr std::size_t endpoint_code(std::size_t found) {
  return std::is_same_v<T, start> ? at_start : std::is_same_v<T, end> ? at_end : found;
}

template <class J>
struct join_parts;
template <class T, class... S>
struct join_parts<join<T, S...>> {
  using target = T;
  using sources = mp_list<S...>;
};
template <class J>
using join_target = typename join_parts<J>::target;
template <class J>
using join_sources = typename join_parts<J>::sources;
template <class N>
using goes_of = typename node_traits<N>::goes_list;
template <class N>
using sends_of = typename node_traits<N>::sends_list;

// ---- the scheduler's tables and algorithms, as data -------------------------------------
//
// Everything below is keyed by sizes (nodes N, joins J, branches B, channels C, join slots
// K), not by the graph: g++ mangles every function and variable a constant evaluation
// instantiates (and the lambdas and standard containers they use), each in time quadratic
// in the length of its name, and a name that carries analysis<graph<…>> is as long as the
// graph. Here the names are short; analysis<G> reads the graph's types into these tables
// once and keeps the results.

struct edge_row {
  std::size_t from, into;  // not `to`: a member named so would parse as sg::to<...>
};

// Readers of the graph's types into arrays, one pack expansion each.
template <class Table, class... T>
constexpr std::array<std::size_t, sizeof...(T)> endpoints(const Table*, mp_list<T...>*) {
  return {endpoint_code<T>(position_of<T, Table>::value)...};
}
template <class X, class... L>
constexpr std::array<bool, sizeof...(L)> list_contains(mp_list<L...>*) {
  return {boost::mp11::mp_contains<L, X>::value...};
}
template <class... B>
constexpr std::array<bool, sizeof...(B)> bool_values(mp_list<B...>*) {
  return {B::value...};
}
template <class S, class... N>
constexpr std::array<node_set<channel_count<S>>, sizeof...(N)> declared_writes(mp_list<N...>*) {
  return {channel_bits<S>(static_cast<typename node_traits<N>::writes_type::list*>(nullptr))...};
}
template <class S, class... N>
constexpr std::array<node_set<channel_count<S>>, sizeof...(N)> declared_subscribes(mp_list<N...>*) {
  return {channel_bits<S>(static_cast<typename node_traits<N>::subscribes_list*>(nullptr))...};
}
template <class... N>
constexpr std::array<bool, sizeof...(N)> declares_nothing(mp_list<N...>*) {
  return {(!node_traits<N>::declares_subscribes && !node_traits<N>::declares_reads &&
           !node_traits<N>::declares_writes)...};
}
template <std::size_t C>
constexpr node_set<C> all_of() {
  node_set<C> out{};
  for (std::size_t c = 0; c < C; ++c) out.set(c);
  return out;
}

template <class Set>
struct join_row {
  std::size_t into;  // the join's target
  Set sources;
};

template <std::size_t N, std::size_t J>
struct graph_tables {
  using set = node_set<N>;
  set from_start{};
  std::array<set, N> successors{};
  std::array<bool, N> to_end{};
  std::array<set, N> goes{};  // command targets a node declared
  std::array<bool, N> goes_end{};
  std::array<set, N> sends{};
  std::array<join_row<set>, J> join_rows{};
};

template <class Set>
struct branch_info {
  std::size_t source = none;
  Set targets{};
  bool to_end = false;  // a target is end
  bool all = false;     // go_all: any subset of the targets
  bool sends = false;
  std::size_t count = 0;
  std::array<std::size_t, 64> target_list{};  // in declaration order, none for end
};

// Every node that may receive sends (and so may run several times in one step).
template <std::size_t N, std::size_t J, std::size_t B>
constexpr node_set<N> send_receivers(const graph_tables<N, J>& t, const std::array<branch_info<node_set<N>>, B>& bs) {
  node_set<N> out{};
  for (std::size_t i = 0; i < N; ++i) out |= t.sends[i];
  for (const auto& b : bs)
    if (b.sends) out |= b.targets;
  return out;
}
// At most one node per step, whatever the routers choose: start leads to at most one node,
// and each node can activate at most one (its static successors, the widest choice of each
// of its branches, its command targets and the joins it feeds, together); no node receives
// sends. A bound read off the tables, cheap to compile, unlike the exploration of
// rules/parallel_writes.hpp (which it spares such graphs). Subscriptions are the caller's.
template <class Set>
constexpr std::size_t widest_choice(const branch_info<Set>& branch) {
  std::size_t widest = 0;
  for (std::size_t k = 0; k < branch.count && k < branch.target_list.size(); ++k)
    if (branch.target_list[k] != none) widest = branch.all ? widest + 1 : 1;
  return widest;
}
template <std::size_t N, std::size_t J, std::size_t B>
constexpr bool one_at_a_time(const graph_tables<N, J>& t, const std::array<branch_info<node_set<N>>, B>& bs) {
  if (t.from_start.count() > 1 || send_receivers(t, bs).any()) return false;
  std::array<std::size_t, N> fan{};
  for (std::size_t i = 0; i < N; ++i) fan[i] = t.successors[i].count() + t.goes[i].count();
  // Each join's members, not each node against each join (N·joins constant evaluations).
  for (const auto& row : t.join_rows) row.sources.for_each([&](std::size_t i) { ++fan[i]; });
  for (const auto& b : bs)
    if (b.source < N) fan[b.source] += widest_choice(b);
  for (std::size_t f : fan)
    if (f > 1) return false;
  return true;
}

template <std::size_t N, std::size_t J>
constexpr bool any_goes(const graph_tables<N, J>& t) {
  for (std::size_t i = 0; i < N; ++i)
    if (t.goes[i].any() || t.goes_end[i]) return true;
  return false;
}
template <std::size_t N, std::size_t J>
constexpr bool any_sends(const graph_tables<N, J>& t) {
  for (std::size_t i = 0; i < N; ++i)
    if (t.sends[i].any()) return true;
  return false;
}

template <std::size_t N, std::size_t C>
struct reactive_tables {
  std::array<node_set<N>, C> subscribers{};  // per channel: the nodes it wakes
  std::array<node_set<C>, N> writes{};       // per node: the channels it declares it writes
};

// The nodes woken by a change of any channel in `changed`.
template <std::size_t N, std::size_t C>
constexpr node_set<N> woken_by(const reactive_tables<N, C>& r, const node_set<C>& changed) {
  node_set<N> out{};
  changed.for_each([&](std::size_t c) { out |= r.subscribers[c]; });
  return out;
}

// The part of the next frontier that does not depend on choices, and updates `arrived`.
template <std::size_t N, std::size_t J>
constexpr node_set<N> static_next(const graph_tables<N, J>& t, const node_set<N>& ran,
                                  std::array<node_set<N>, J>& arrived) {
  using set = node_set<N>;
  set next{};
  ran.for_each([&](std::size_t i) { next |= t.successors[i]; });
  for (std::size_t j = 0; j < J; ++j) {
    auto& row = t.join_rows[j];
    if (row.into < N && ran.test(row.into)) arrived[j] = set{};
    set hit = ran;
    hit &= row.sources;
    arrived[j] |= hit;
    if (arrived[j].contains_all(row.sources) && row.into < N) {
      next.set(row.into);
      arrived[j] = set{};
    }
  }
  return next;
}

// The same for a step in which only node `i` ran.
template <std::size_t N, std::size_t J>
constexpr node_set<N> static_next(const graph_tables<N, J>& t, std::size_t i, std::array<node_set<N>, J>& arrived) {
  node_set<N> next = t.successors[i];
  for (std::size_t j = 0; j < J; ++j) {
    const auto& row = t.join_rows[j];
    if (row.into == i) arrived[j] = node_set<N>{};
    if (row.sources.test(i)) arrived[j].set(i);
    if (row.into < N && arrived[j].contains_all(row.sources)) {
      next.set(row.into);
      arrived[j] = node_set<N>{};
    }
  }
  return next;
}

// ---- the fixed plan of a static acyclic graph ------------------------------------------

struct plan_info {
  bool fixed = false;  // true: the run is this exact sequence of frontiers
  std::size_t steps = 0;
};
template <std::size_t N, std::size_t J>
constexpr plan_info make_plan_info(const graph_tables<N, J>& t, bool has_choices) {
  if (has_choices) return {};
  std::array<node_set<N>, J> arrived{};
  node_set<N> frontier = t.from_start;
  for (std::size_t s = 0; s <= N + 1; ++s) {
    if (!frontier.any()) return {true, s};
    frontier = static_next(t, frontier, arrived);
  }
  return {};  // a cycle: it needs a frontier at run time
}
template <std::size_t Steps, std::size_t N, std::size_t J>
constexpr std::array<node_set<N>, Steps> make_plan_steps(const graph_tables<N, J>& t) {
  std::array<node_set<N>, Steps> out{};
  std::array<node_set<N>, J> arrived{};
  node_set<N> frontier = t.from_start;
  for (std::size_t s = 0; s < Steps; ++s) {
    out[s] = frontier;
    frontier = static_next(t, frontier, arrived);
  }
  return out;
}

}  // namespace detail

// Everything the scheduler knows about a graph once its lambda nodes are bound. What it
// computes from the graph's types is read into tables once (table, branch_table,
// reactivity); the rest is computed from those tables by detail's functions above.
template <class G, class Bound = detail::mp_list<>>
struct analysis {
  using state_type = typename G::state_type;
  using lattice_type = typename G::lattice_type;
  using elements = typename G::elements;

  // Names as the graph spells them (tags for lambda nodes), in order of first appearance.
  template <class E>
  using nodes_of = typename detail::element_nodes_in<state_type, E>::type;
  using names = boost::mp11::mp_copy_if<
      detail::unique_t<boost::mp11::mp_flatten<boost::mp11::mp_transform<nodes_of, elements>>>,
      detail::not_pseudo>;
  template <class T>
  using resolve_t = typename detail::resolve<T, Bound>::type;
  using nodes = typename detail::resolve_all<names, Bound>::type;

  // Scalars are enumerators, not static members: g++ gives every variable instantiated here a
  // symbol whose name spells the whole graph, and mangles it in time quadratic in that length.
  enum : std::size_t { size = boost::mp11::mp_size<names>::value };
  using set = detail::node_set<size>;

  // A lookup is one overload resolution against this table (see lookup_table).
  // index<T>::value is T's index, or none. A type, not a variable template: g++ mangles every
  // variable and function instantiated here with a name that spells the whole graph, each
  // in time quadratic in its length, so one per node or branch made compiling cubic in the
  // graph's size. What is computed per element is a type, or an entry of a table.
  using name_lookup = detail::lookup_table<names>;
  template <class T>
  using index = detail::position_of<T, name_lookup>;

  template <std::size_t I>
  using node = detail::table_at<detail::at_table<nodes>, I>;

  using branches = boost::mp11::mp_copy_if<elements, detail::is_branch>;
  using joins = boost::mp11::mp_copy_if<elements, detail::is_join>;
  using edges = boost::mp11::mp_copy_if<elements, detail::is_edge>;
  enum : std::size_t { branch_count = boost::mp11::mp_size<branches>::value };
  enum : std::size_t { join_count = boost::mp11::mp_size<joins>::value };

  using join_row = detail::join_row<set>;
  using tables = detail::graph_tables<size, join_count>;

  template <class E>
  using edge_from = typename detail::edge_ends<E>::from;
  template <class E>
  using edge_into = typename detail::edge_ends<E>::to;
  template <class L>
  using list_ptr = L*;
  static constexpr tables make_tables() {
    using boost::mp11::mp_flatten;
    using boost::mp11::mp_transform;
    tables t{};
    // Each edge's ends, read in one pack expansion (not one instantiated function per edge).
    constexpr auto from = detail::endpoints(list_ptr<name_lookup>{}, list_ptr<mp_transform<edge_from, edges>>{});
    constexpr auto into = detail::endpoints(list_ptr<name_lookup>{}, list_ptr<mp_transform<edge_into, edges>>{});
    for (std::size_t e = 0; e < from.size(); ++e) {
      if (from[e] == detail::at_start && into[e] < size) t.from_start.set(into[e]);
      else if (from[e] < size && into[e] == detail::at_end) t.to_end[from[e]] = true;
      else if (from[e] < size && into[e] < size) t.successors[from[e]].set(into[e]);
    }
    constexpr auto join_into =
        detail::positions(list_ptr<name_lookup>{}, list_ptr<mp_transform<detail::join_target, joins>>{});
    constexpr auto join_from =
        detail::positions(list_ptr<name_lookup>{}, list_ptr<mp_flatten<mp_transform<detail::join_sources, joins>>>{});
    constexpr auto fan_in = detail::list_sizes(list_ptr<mp_transform<detail::join_sources, joins>>{});
    for (std::size_t j = 0, k = 0; j < join_count; ++j) {
      t.join_rows[j].into = join_into[j];
      for (std::size_t e = 0; e < fan_in[j]; ++e, ++k)
        if (join_from[k] != detail::none) t.join_rows[j].sources.set(join_from[k]);
    }
    using goes_lists = mp_transform<detail::goes_of, nodes>;
    using sends_lists = mp_transform<detail::sends_of, nodes>;
    constexpr auto goes_to = detail::positions(list_ptr<name_lookup>{}, list_ptr<mp_flatten<goes_lists>>{});
    constexpr auto goes_n = detail::list_sizes(list_ptr<goes_lists>{});
    constexpr auto goes_end = detail::list_contains<end>(list_ptr<goes_lists>{});
    constexpr auto sends_to = detail::positions(list_ptr<name_lookup>{}, list_ptr<mp_flatten<sends_lists>>{});
    constexpr auto sends_n = detail::list_sizes(list_ptr<sends_lists>{});
    for (std::size_t i = 0, g = 0, s = 0; i < size; ++i) {
      t.goes_end[i] = goes_end[i];
      for (std::size_t e = 0; e < goes_n[i]; ++e, ++g)
        if (goes_to[g] != detail::none) t.goes[i].set(goes_to[g]);
      for (std::size_t e = 0; e < sends_n[i]; ++e, ++s)
        if (sends_to[s] != detail::none) t.sends[i].set(sends_to[s]);
    }
    return t;
  }
  static constexpr tables table = make_tables();

  template <std::size_t B>
  using branch_at = boost::mp11::mp_at_c<branches, B>;
  template <class Br>
  struct branch_parts;
  template <class Src, class R>
  struct branch_parts<branch<Src, R>> {
    using source = Src;
    using router = R;
    using go_type = typename detail::router_result<R, state_type>::type;  // go, go_all or sends
    using targets =
        boost::mp11::mp_append<typename detail::go_targets<go_type>::type, detail::send_targets_of<go_type>>;
    // go_all (any subset of the targets), and whether the router sends.
    using all = std::bool_constant<!std::is_same_v<go_type, boost::mp11::mp_rename<targets, go>>>;
    using sends = std::bool_constant<detail::send_traits<go_type>::is_send>;
  };

  // Every branch once, as data: the constant evaluations loop over this table rather than
  // instantiate code per branch.
  using branch_info = detail::branch_info<set>;
  template <class Br>
  using branch_source_t = typename branch_parts<Br>::source;
  template <class Br>
  using branch_targets_t = typename branch_parts<Br>::targets;
  template <class Br>
  using branch_all_t = typename branch_parts<Br>::all;
  template <class Br>
  using branch_sends_t = typename branch_parts<Br>::sends;
  static constexpr std::array<branch_info, branch_count> make_branch_table() {
    using boost::mp11::mp_transform;
    std::array<branch_info, branch_count> out{};
    constexpr auto sources =
        detail::positions(list_ptr<name_lookup>{}, list_ptr<mp_transform<branch_source_t, branches>>{});
    constexpr auto targets =
        detail::positions(list_ptr<name_lookup>{},
                          list_ptr<boost::mp11::mp_flatten<mp_transform<branch_targets_t, branches>>>{});
    constexpr auto counts = detail::list_sizes(list_ptr<mp_transform<branch_targets_t, branches>>{});
    constexpr auto all = detail::bool_values(list_ptr<mp_transform<branch_all_t, branches>>{});
    constexpr auto sends = detail::bool_values(list_ptr<mp_transform<branch_sends_t, branches>>{});
    for (std::size_t b = 0, k = 0; b < branch_count; ++b) {
      branch_info& info = out[b];
      info.source = sources[b];
      info.all = all[b];
      info.sends = sends[b];
      info.count = counts[b];
      for (std::size_t e = 0; e < counts[b]; ++e, ++k) {
        if (e < info.target_list.size()) info.target_list[e] = targets[k];
        if (targets[k] == detail::none) info.to_end = true;
        else info.targets.set(targets[k]);
      }
    }
    return out;
  }
  static constexpr std::array<branch_info, branch_count> branch_table = make_branch_table();

  // Every node that may receive sends (and so may run several times in one step).
  static constexpr set send_targets = detail::send_receivers(table, branch_table);
  enum : bool { any_goes = detail::any_goes(table) };
  enum : bool { any_sends = detail::any_sends(table) };
  template <class N>
  using declares_subscribes = std::bool_constant<node_traits<N>::declares_subscribes>;
  enum : bool { any_subscribes = detail::any_of<nodes, declares_subscribes>::value };

  // ---- reactive nodes: scheduled in the step after a subscribed channel changed ------------
  //
  // A graph is reactive when a node declares `subscribes`. There, a node that declares
  // nothing at all (no reads, writes or subscribes) conservatively subscribes to every
  // channel; a node with reads/writes but no `subscribes` runs only by edges.

  enum : bool { reactive = any_subscribes };
  enum : std::size_t { channels = channel_count<state_type> };
  using channel_set = detail::node_set<channels>;
  using reactive_tables = detail::reactive_tables<size, channels>;
  static constexpr reactive_tables make_reactive() {
    reactive_tables t{};
    t.writes = detail::declared_writes<state_type>(list_ptr<nodes>{});
    if constexpr (reactive) {
      // Per node: the channels it subscribes to; a node that declares nothing at all wakes on any.
      constexpr auto subscribed = detail::declared_subscribes<state_type>(list_ptr<nodes>{});
      constexpr auto wakes_on_any = detail::declares_nothing(list_ptr<nodes>{});
      for (std::size_t i = 0; i < size; ++i) {
        for (std::size_t c = 0; c < channels; ++c)
          if (wakes_on_any[i] || subscribed[i].test(c)) t.subscribers[c].set(i);
      }
    }
    return t;
  }
  static constexpr reactive_tables reactivity = make_reactive();

  // The nodes woken by a change of any channel in `changed`.
  static constexpr set woken_by(const channel_set& changed) { return detail::woken_by(reactivity, changed); }
  // Every node a run of `i` may wake (through the channels it may write).
  static constexpr set may_wake(std::size_t i) { return woken_by(reactivity.writes[i]); }
  static constexpr set wakes_on_input = detail::woken_by(reactivity, detail::all_of<channels>());

  // At most one node per step, whatever the routers choose (see detail::one_at_a_time).
  enum : bool { one_at_a_time = !reactive && detail::one_at_a_time(table, branch_table) };

  // ---- the fixed plan of a static acyclic graph ------------------------------------------

  enum : bool { has_choices = branch_count > 0 || any_goes || any_sends || any_subscribes };
  static constexpr detail::plan_info plan = detail::make_plan_info(table, has_choices);
  static constexpr std::array<set, plan.steps> plan_steps = detail::make_plan_steps<plan.steps>(table);
};

}  // namespace stategraph
