// The static scheduler: node indices, successor/branch/join tables and, for graphs of
// static edges without cycles, the whole sequence of supersteps — all computed at
// compile time from the graph type.
#pragma once

#include <stategraph/detail/call.hpp>
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
  requires callable_as<const R&, view<S, typename reads_or<R, reads<>>::type>>
struct router_result<R, S> {
  using type = std::remove_cvref_t<call_type<const R&, view<S, typename reads_or<R, reads<>>::type>>>;
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

inline constexpr std::size_t none = static_cast<std::size_t>(-1);

// Compile time grows with the length of symbol names too: GCC mangles every function and
// variable it instantiates, and a name that carries the graph type is as long as the graph.
// So what is instantiated once per node, edge or branch is keyed by that element's own
// types only (position_in<T>, channel_bits<S, ...>), never by the graph or its name list;
// the per-element work is pack expansions inside a few graph-wide functions.

template <class T, class Names>
constexpr std::size_t index_or_none() {
  return position_in<T>(static_cast<const name_table<Names>*>(nullptr));
}

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
  return positions(static_cast<const name_table<Names>*>(nullptr), static_cast<List*>(nullptr));
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

}  // namespace detail

// Everything the scheduler knows about a graph once its lambda nodes are bound.
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
  using nodes = boost::mp11::mp_transform<resolve_t, names>;

  static constexpr std::size_t size = boost::mp11::mp_size<names>::value;
  using set = detail::node_set<size>;

  // A lookup is one overload resolution against this table's bases (see position_in).
  static constexpr const detail::name_table<names>* name_index = nullptr;
  template <class T>
  static constexpr std::size_t index = detail::position_in<T>(name_index);

  template <std::size_t I>
  using node = boost::mp11::mp_at_c<nodes, I>;

  using branches = boost::mp11::mp_copy_if<elements, detail::is_branch>;
  using joins = boost::mp11::mp_copy_if<elements, detail::is_join>;
  using edges = boost::mp11::mp_copy_if<elements, detail::is_edge>;
  static constexpr std::size_t branch_count = boost::mp11::mp_size<branches>::value;
  static constexpr std::size_t join_count = boost::mp11::mp_size<joins>::value;

  struct join_row {
    std::size_t into;  // the join's target
    set sources;
  };

  struct tables {
    set from_start{};
    std::array<set, size> successors{};
    std::array<bool, size> to_end{};
    std::array<set, size> goes{};  // command targets a node declared
    std::array<bool, size> goes_end{};
    std::array<set, size> sends{};
    std::array<join_row, join_count> join_rows{};
  };

  // Each edge's ends, read in one pack expansion (not one instantiated lambda per edge).
  struct edge_row {
    std::size_t from, into;  // not `to`: a member named so would parse as sg::to<...>
  };
  static constexpr auto edge_rows = []<class... E>(detail::mp_list<E...>*) {
    return std::array<edge_row, sizeof...(E)>{
        edge_row{detail::endpoint_code<typename detail::edge_ends<E>::from>(
                     detail::position_in<typename detail::edge_ends<E>::from>(name_index)),
                 detail::endpoint_code<typename detail::edge_ends<E>::to>(
                     detail::position_in<typename detail::edge_ends<E>::to>(name_index))}...};
  }(static_cast<edges*>(nullptr));

  static constexpr tables make_tables() {
    tables t{};
    for (const auto& e : edge_rows) {
      if (e.from == detail::at_start && e.into < size) t.from_start.set(e.into);
      else if (e.from < size && e.into == detail::at_end) t.to_end[e.from] = true;
      else if (e.from < size && e.into < size) t.successors[e.from].set(e.into);
    }
    using boost::mp11::mp_flatten;
    using boost::mp11::mp_transform;
    constexpr auto into = detail::positions(name_index, static_cast<mp_transform<detail::join_target, joins>*>(nullptr));
    constexpr auto from = detail::positions(name_index, static_cast<mp_flatten<mp_transform<detail::join_sources, joins>>*>(nullptr));
    constexpr auto fan_in = detail::list_sizes(static_cast<mp_transform<detail::join_sources, joins>*>(nullptr));
    for (std::size_t j = 0, k = 0; j < join_count; ++j) {
      t.join_rows[j].into = into[j];
      for (std::size_t e = 0; e < fan_in[j]; ++e, ++k)
        if (from[k] != detail::none) t.join_rows[j].sources.set(from[k]);
    }
    using goes_lists = mp_transform<detail::goes_of, nodes>;
    using sends_lists = mp_transform<detail::sends_of, nodes>;
    constexpr auto goes_to = detail::positions(name_index, static_cast<mp_flatten<goes_lists>*>(nullptr));
    constexpr auto goes_n = detail::list_sizes(static_cast<goes_lists*>(nullptr));
    constexpr auto sends_to = detail::positions(name_index, static_cast<mp_flatten<sends_lists>*>(nullptr));
    constexpr auto sends_n = detail::list_sizes(static_cast<sends_lists*>(nullptr));
    t.goes_end = []<class... L>(detail::mp_list<L...>*) {
      return std::array<bool, size>{detail::contains<end, L>...};
    }(static_cast<goes_lists*>(nullptr));
    for (std::size_t i = 0, g = 0, s = 0; i < size; ++i) {
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
  };
  // For branch B: its source's index, and each target's index (none for end).
  template <std::size_t B>
  static constexpr std::size_t branch_source = index<typename branch_parts<branch_at<B>>::source>;
  template <std::size_t B>
  static constexpr auto branch_targets =
      detail::indices_of<names>(static_cast<typename branch_parts<branch_at<B>>::targets*>(nullptr));
  template <std::size_t B>
  static constexpr bool branch_is_all = !std::is_same_v<
      typename branch_parts<branch_at<B>>::go_type,
      boost::mp11::mp_rename<typename branch_parts<branch_at<B>>::targets, go>>;
  template <std::size_t B>
  static constexpr bool branch_sends = detail::send_traits<typename branch_parts<branch_at<B>>::go_type>::is_send;

  // Every branch once, as data: the constant evaluations below loop over this table rather
  // than instantiate code per branch.
  struct branch_info {
    std::size_t source = detail::none;
    set targets{};
    bool to_end = false;  // a target is end
    bool all = false;     // go_all: any subset of the targets
    bool sends = false;
    std::size_t count = 0;
    std::array<std::size_t, 64> target_list{};  // in declaration order, none for end
  };
  template <class Br>
  using branch_source_t = typename branch_parts<Br>::source;
  template <class Br>
  using branch_targets_t = typename branch_parts<Br>::targets;
  static constexpr std::array<branch_info, branch_count> make_branch_table() {
    using boost::mp11::mp_transform;
    std::array<branch_info, branch_count> out{};
    constexpr auto sources = detail::positions(name_index, static_cast<mp_transform<branch_source_t, branches>*>(nullptr));
    constexpr auto targets =
        detail::positions(name_index, static_cast<boost::mp11::mp_flatten<mp_transform<branch_targets_t, branches>>*>(nullptr));
    constexpr auto counts = detail::list_sizes(static_cast<mp_transform<branch_targets_t, branches>*>(nullptr));
    constexpr auto kinds = []<class... Br>(detail::mp_list<Br...>*) {
      return std::array<std::array<bool, 2>, branch_count>{std::array<bool, 2>{
          !std::is_same_v<typename branch_parts<Br>::go_type, boost::mp11::mp_rename<typename branch_parts<Br>::targets, go>>,
          detail::send_traits<typename branch_parts<Br>::go_type>::is_send}...};
    }(static_cast<branches*>(nullptr));
    for (std::size_t b = 0, k = 0; b < branch_count; ++b) {
      branch_info& info = out[b];
      info.source = sources[b];
      info.all = kinds[b][0];
      info.sends = kinds[b][1];
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
  static constexpr set send_targets = [] {
    set out{};
    for (std::size_t i = 0; i < size; ++i) out |= table.sends[i];
    for (const auto& b : branch_table)
      if (b.sends) out |= b.targets;
    return out;
  }();

  static constexpr bool any_goes = [] {
    for (std::size_t i = 0; i < size; ++i)
      if (table.goes[i].any() || table.goes_end[i]) return true;
    return false;
  }();
  static constexpr bool any_sends = [] {
    for (std::size_t i = 0; i < size; ++i)
      if (table.sends[i].any()) return true;
    return false;
  }();
  static constexpr bool any_subscribes = []<class... N>(detail::mp_list<N...>*) {
    return (node_traits<N>::declares_subscribes || ... || false);
  }(static_cast<nodes*>(nullptr));

  // ---- reactive nodes: scheduled in the step after a subscribed channel changed ------------
  //
  // A graph is reactive when a node declares `subscribes`. There, a node that declares
  // nothing at all (no reads, writes or subscribes) conservatively subscribes to every
  // channel; a node with reads/writes but no `subscribes` runs only by edges.

  static constexpr bool reactive = any_subscribes;
  static constexpr std::size_t channels = channel_count<state_type>;
  using channel_set = detail::node_set<channels>;

  struct reactive_tables {
    std::array<set, channels> subscribers{};  // per channel: the nodes it wakes
    std::array<channel_set, size> writes{};   // per node: the channels it declares it writes
  };
  static constexpr reactive_tables make_reactive() {
    reactive_tables t{};
    t.writes = []<class... N>(detail::mp_list<N...>*) {
      return std::array<channel_set, size>{
          detail::channel_bits<state_type>(static_cast<typename node_traits<N>::writes_type::list*>(nullptr))...};
    }(static_cast<nodes*>(nullptr));
    if constexpr (reactive) {
      // Per node: the channels it subscribes to; a node that declares nothing at all wakes on any.
      constexpr auto subscribed = []<class... N>(detail::mp_list<N...>*) {
        return std::array<channel_set, size>{detail::channel_bits<state_type>(
            static_cast<typename node_traits<N>::subscribes_list*>(nullptr))...};
      }(static_cast<nodes*>(nullptr));
      constexpr auto wakes_on_any = []<class... N>(detail::mp_list<N...>*) {
        return std::array<bool, size>{(!node_traits<N>::declares_subscribes && !node_traits<N>::declares_reads &&
                                       !node_traits<N>::declares_writes)...};
      }(static_cast<nodes*>(nullptr));
      for (std::size_t i = 0; i < size; ++i) {
        subscribed[i].for_each([&](std::size_t c) { t.subscribers[c].set(i); });
        if (wakes_on_any[i])
          for (std::size_t c = 0; c < channels; ++c) t.subscribers[c].set(i);
      }
    }
    return t;
  }
  static constexpr reactive_tables reactivity = make_reactive();

  // The nodes woken by a change of any channel in `changed`.
  static constexpr set woken_by(const channel_set& changed) {
    set out{};
    changed.for_each([&](std::size_t c) { out |= reactivity.subscribers[c]; });
    return out;
  }
  // Every node a run of `i` may wake (through the channels it may write).
  static constexpr set may_wake(std::size_t i) { return woken_by(reactivity.writes[i]); }
  static constexpr set wakes_on_input = [] {
    channel_set all{};
    for (std::size_t c = 0; c < channels; ++c) all.set(c);
    return woken_by(all);
  }();

  // ---- abstract runs: every frontier a run can reach, ignoring channel values ----------

  // What the exploration remembers of the joins: one bit per (join, source) pair, so that
  // a state is a few words, not one node set per join (copying and comparing states is
  // most of the exploration's steps).
  static constexpr std::size_t join_slots = [] {
    std::size_t k = 0;
    for (const auto& row : table.join_rows) k += row.sources.count();
    return k;
  }();
  using slot_set = detail::node_set<join_slots>;
  using join_set = detail::node_set<join_count>;
  struct join_slot_tables {
    std::array<slot_set, join_count> of_join{};  // the slots of join j
    std::array<slot_set, size> of_node{};        // the slots where node i is a source
    std::array<join_set, size> joins_of{};       // the joins node i is a source or the target of
    join_set unfed{};                            // joins without sources among the nodes
  };
  static constexpr join_slot_tables make_join_slots() {
    join_slot_tables t{};
    std::size_t k = 0;
    for (std::size_t j = 0; j < join_count; ++j) {
      const auto& row = table.join_rows[j];
      if (row.into < size) t.joins_of[row.into].set(j);
      if (!row.sources.any()) t.unfed.set(j);
      row.sources.for_each([&](std::size_t i) {
        t.of_join[j].set(k);
        t.of_node[i].set(k);
        t.joins_of[i].set(j);
        ++k;
      });
    }
    return t;
  }
  static constexpr join_slot_tables join_slot_table = make_join_slots();

  struct abstract_state {
    set frontier{};
    slot_set arrived{};
    friend constexpr bool operator==(const abstract_state&, const abstract_state&) = default;
    constexpr std::uint64_t hash() const { return arrived.hash(frontier.hash()); }
  };

  // The states seen so far, with an open-addressing hash index: a lookup costs O(1)
  // comparisons, not one per state seen (O(states²) steps over a run of the exploration).
  struct state_index {
    std::vector<abstract_state> states;
    std::vector<std::size_t> slots = std::vector<std::size_t>(64, detail::none);

    constexpr std::size_t slot_of(const abstract_state& s) const {
      std::size_t mask = slots.size() - 1, at = static_cast<std::size_t>(s.hash()) & mask;
      while (slots[at] != detail::none && !(states[slots[at]] == s)) at = (at + 1) & mask;
      return at;
    }
    constexpr bool contains(const abstract_state& s) const { return slots[slot_of(s)] != detail::none; }
    constexpr void insert(const abstract_state& s) {  // s is not yet in
      if (2 * (states.size() + 1) > slots.size()) {
        slots = std::vector<std::size_t>(2 * slots.size(), detail::none);
        for (std::size_t k = 0; k < states.size(); ++k) slots[slot_of(states[k])] = k;
      }
      slots[slot_of(s)] = states.size();
      states.push_back(s);
    }
    constexpr std::size_t size() const { return states.size(); }
  };

  // The part of the next frontier that does not depend on choices, and updates `arrived`.
  static constexpr set static_next(const set& ran, std::array<set, join_count>& arrived) {
    set next{};
    ran.for_each([&](std::size_t i) { next |= table.successors[i]; });
    for (std::size_t j = 0; j < join_count; ++j) {
      auto& row = table.join_rows[j];
      if (row.into < size && ran.test(row.into)) arrived[j] = set{};
      set hit = ran;
      hit &= row.sources;
      arrived[j] |= hit;
      if (arrived[j].contains_all(row.sources) && row.into < size) {
        next.set(row.into);
        arrived[j] = set{};
      }
    }
    return next;
  }

  // static_next on the exploration's compact join state: only the joins that `ran` touches.
  static constexpr set abstract_next(const set& ran, slot_set& arrived) {
    constexpr const join_slot_tables& js = join_slot_table;
    set next{};
    join_set touched = js.unfed;
    slot_set hit{};
    ran.for_each([&](std::size_t i) {
      next |= table.successors[i];
      touched |= js.joins_of[i];
      hit |= js.of_node[i];
    });
    touched.for_each([&](std::size_t j) {
      const auto& row = table.join_rows[j];
      const slot_set& mine = js.of_join[j];
      if (row.into < size && ran.test(row.into)) arrived.remove(mine);
      slot_set h = hit;
      h &= mine;
      arrived |= h;
      if (arrived.contains_all(mine) && row.into < size) {
        next.set(row.into);
        arrived.remove(mine);
      }
    });
    return next;
  }

  // Past this many abstract states (or choices in one step) the analysis stops, and SG008
  // is left to the run-time guard.
  static constexpr std::size_t exploration_cap = 4096;

  // Each choice point of a step: the subsets of targets it may activate.
  static constexpr std::vector<std::vector<set>> choices(const set& ran, bool& complete) {
    std::vector<std::vector<set>> out;
    for (const auto& b : branch_table) {
      if (b.source == detail::none || !ran.test(b.source)) continue;
      std::vector<set> options;
      const std::size_t k = b.count;
      if (b.all) {
        for (std::uint64_t m = 0; m < (std::uint64_t{1} << std::min<std::size_t>(k, 12)); ++m) {
          set s{};
          for (std::size_t t = 0; t < k; ++t)
            if (((m >> t) & 1u) && b.target_list[t] != detail::none) s.set(b.target_list[t]);
          options.push_back(s);
        }
      } else {
        for (std::size_t t = 0; t < k; ++t) {
          set s{};
          if (b.target_list[t] != detail::none) s.set(b.target_list[t]);
          options.push_back(s);
        }
      }
      out.push_back(options);
    }
    ran.for_each([&](std::size_t i) {
      const set woken = reactive ? may_wake(i) : set{};
      for (auto* extra : {&table.goes[i], &table.sends[i], &woken}) {
        if (!extra->any()) continue;
        std::vector<set> options{set{}};
        extra->for_each([&](std::size_t t) {
          std::size_t n = options.size();
          if (n >= exploration_cap) complete = false;
          for (std::size_t o = 0; o < n && options.size() < exploration_cap; ++o) {
            set s = options[o];
            s.set(t);
            options.push_back(s);
          }
        });
        out.push_back(options);
      }
    });
    return out;
  }

  struct exploration {
    bool complete = true;
    // Pairs (a, b) of nodes that some reachable frontier holds together.
    std::vector<set> together = std::vector<set>(size);
    state_index states;
  };

  static constexpr exploration explore() {
    exploration ex;
    std::vector<abstract_state> todo;
    abstract_state first{};
    first.frontier = table.from_start;
    todo.push_back(first);
    ex.states.insert(first);
    if constexpr (reactive) {  // the input may wake any subscriber, or none
      abstract_state woken = first;
      woken.frontier |= wakes_on_input;
      if (!(woken == first)) {
        todo.push_back(woken);
        ex.states.insert(woken);
      }
    }
    while (!todo.empty()) {
      abstract_state cur = todo.back();
      todo.pop_back();
      cur.frontier.for_each([&](std::size_t i) { ex.together[i] |= cur.frontier; });
      abstract_state base = cur;
      set fixed = abstract_next(cur.frontier, base.arrived);
      auto points = choices(cur.frontier, ex.complete);
      std::vector<set> combos{fixed};
      for (auto& options : points) {
        std::vector<set> grown;
        for (auto& c : combos)
          for (auto& o : options) {
            set s = c;
            s |= o;
            if (std::find(grown.begin(), grown.end(), s) == grown.end()) grown.push_back(s);
          }
        combos = grown;
        if (combos.size() > exploration_cap) {
          ex.complete = false;
          return ex;
        }
      }
      for (auto& c : combos) {
        if (!c.any()) continue;
        abstract_state nx{c, base.arrived};
        if (ex.states.contains(nx)) continue;
        if (ex.states.size() >= exploration_cap) {
          ex.complete = false;
          return ex;
        }
        ex.states.insert(nx);
        todo.push_back(nx);
      }
    }
    return ex;
  }

  struct run_together_table {
    bool complete;
    std::array<set, size> with{};
  };
  static constexpr run_together_table make_together() {
    auto ex = explore();
    run_together_table r{ex.complete};
    for (std::size_t i = 0; i < size; ++i) r.with[i] = ex.together[i];
    return r;
  }
  // may_run_together.with[i].test(j): nodes i and j can be active in one superstep.
  static constexpr run_together_table may_run_together = make_together();

  // ---- the fixed plan of a static acyclic graph ------------------------------------------

  static constexpr bool has_choices = branch_count > 0 || any_goes || any_sends || any_subscribes;

  struct plan_info {
    bool fixed = false;  // true: the run is this exact sequence of frontiers
    std::size_t steps = 0;
  };
  static constexpr plan_info make_plan_info() {
    if (has_choices) return {};
    std::array<set, join_count> arrived{};
    set frontier = table.from_start;
    for (std::size_t s = 0; s <= size + 1; ++s) {
      if (!frontier.any()) return {true, s};
      frontier = static_next(frontier, arrived);
    }
    return {};  // a cycle: it needs a frontier at run time
  }
  static constexpr plan_info plan = make_plan_info();

  static constexpr std::array<set, plan.steps> make_plan_steps() {
    std::array<set, plan.steps> out{};
    std::array<set, join_count> arrived{};
    set frontier = table.from_start;
    for (std::size_t s = 0; s < plan.steps; ++s) {
      out[s] = frontier;
      frontier = static_next(frontier, arrived);
    }
    return out;
  }
  static constexpr std::array<set, plan.steps> plan_steps = make_plan_steps();
};

}  // namespace stategraph
