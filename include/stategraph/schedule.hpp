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
#include <functional>
#include <type_traits>
#include <vector>

namespace stategraph {

namespace detail {

// The value a router returns, or void when it cannot be called with its view.
template <class R, class S, class = void>
struct router_result {
  using type = void;
};
template <class R, class S>
struct router_result<R, S, std::void_t<std::invoke_result_t<const R&, view<S, typename reads_or<R, reads<>>::type>>>> {
  using type = std::remove_cvref_t<std::invoke_result_t<const R&, view<S, typename reads_or<R, reads<>>::type>>>;
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

template <class T, class Names>
constexpr std::size_t index_or_none() {
  if constexpr (contains<T, Names>) return index_in<T, Names>;
  else return none;
}

template <class Names, class List>
constexpr auto indices_of(List*) {
  return []<class... Ts>(mp_list<Ts...>*) {
    return std::array<std::size_t, sizeof...(Ts)>{index_or_none<Ts, Names>()...};
  }(static_cast<List*>(nullptr));
}

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
      boost::mp11::mp_unique<boost::mp11::mp_flatten<boost::mp11::mp_transform<nodes_of, elements>>>,
      detail::not_pseudo>;
  template <class T>
  using resolve_t = typename detail::resolve<T, Bound>::type;
  using nodes = boost::mp11::mp_transform<resolve_t, names>;

  static constexpr std::size_t size = boost::mp11::mp_size<names>::value;
  using set = detail::node_set<size>;

  template <class T>
  static constexpr std::size_t index = detail::index_or_none<T, names>();

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
  struct branch_row {
    std::size_t source;
    std::vector<std::size_t> targets;  // none stands for end
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

  static constexpr tables make_tables() {
    tables t{};
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, edges>>([&]<class E>(std::type_identity<E>) {
      [&]<class A, class B>(edge<A, B>*) {
        constexpr std::size_t a = index<A>, b = index<B>;
        if constexpr (std::is_same_v<A, start> && b != detail::none) t.from_start.set(b);
        else if constexpr (a != detail::none && std::is_same_v<B, end>) t.to_end[a] = true;
        else if constexpr (a != detail::none && b != detail::none) t.successors[a].set(b);
      }(static_cast<E*>(nullptr));
    });
    std::size_t j = 0;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, joins>>([&]<class E>(std::type_identity<E>) {
      [&]<class T, class... S>(join<T, S...>*) {
        t.join_rows[j].into = index<T>;
        ((index<S> != detail::none ? t.join_rows[j].sources.set(index<S>) : void()), ...);
      }(static_cast<E*>(nullptr));
      ++j;
    });
    detail::for_each_index<size>([&]<std::size_t I>() {
      using tr = node_traits<node<I>>;
      for (auto k : detail::indices_of<names>(static_cast<typename tr::goes_list*>(nullptr)))
        if (k != detail::none) t.goes[I].set(k);
      t.goes_end[I] = detail::contains<end, typename tr::goes_list>;
      for (auto k : detail::indices_of<names>(static_cast<typename tr::sends_list*>(nullptr)))
        if (k != detail::none) t.sends[I].set(k);
    });
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
  // Every node that may receive sends (and so may run several times in one step).
  static constexpr set send_targets = [] {
    set out{};
    for (std::size_t i = 0; i < size; ++i) out |= table.sends[i];
    detail::for_each_index<branch_count>([&]<std::size_t B>() {
      if constexpr (branch_sends<B>)
        for (auto t : branch_targets<B>)
          if (t != detail::none) out.set(t);
    });
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
  static constexpr bool any_subscribes = [] {
    bool any = false;
    detail::for_each_index<size>([&]<std::size_t I>() { any = any || node_traits<node<I>>::declares_subscribes; });
    return any;
  }();

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
    detail::for_each_index<size>([&]<std::size_t I>() {
      using tr = node_traits<node<I>>;
      boost::mp11::mp_for_each<typename tr::writes_type::list>([&]<class V>(V) {
        if constexpr (std::is_same_v<state_of<V::value>, state_type>) t.writes[I].set(channel_index<state_type, V::value>());
      });
      if constexpr (!reactive) return;
      if constexpr (tr::declares_subscribes) {
        boost::mp11::mp_for_each<typename tr::subscribes_list>([&]<class V>(V) {
          if constexpr (std::is_same_v<state_of<V::value>, state_type>)
            t.subscribers[channel_index<state_type, V::value>()].set(I);
        });
      } else if constexpr (!tr::declares_reads && !tr::declares_writes) {
        for (std::size_t c = 0; c < channels; ++c) t.subscribers[c].set(I);
      }
    });
    return t;
  }
  static constexpr reactive_tables reactivity = make_reactive();

  // The nodes woken by a change of any channel in `changed`.
  static constexpr set woken_by(const channel_set& changed) {
    set out{};
    for (std::size_t c = 0; c < channels; ++c)
      if (changed.test(c)) out |= reactivity.subscribers[c];
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

  struct abstract_state {
    set frontier{};
    std::array<set, join_count> arrived{};
    friend constexpr bool operator==(const abstract_state&, const abstract_state&) = default;
  };

  // The part of the next frontier that does not depend on choices, and updates `arrived`.
  static constexpr set static_next(const set& ran, std::array<set, join_count>& arrived) {
    set next{};
    for (std::size_t i = 0; i < size; ++i)
      if (ran.test(i)) next |= table.successors[i];
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

  // Past this many abstract states (or choices in one step) the analysis stops, and SG008
  // is left to the run-time guard.
  static constexpr std::size_t exploration_cap = 4096;

  // Each choice point of a step: the subsets of targets it may activate.
  static constexpr std::vector<std::vector<set>> choices(const set& ran, bool& complete) {
    std::vector<std::vector<set>> out;
    detail::for_each_index<branch_count>([&]<std::size_t B>() {
      constexpr std::size_t src = branch_source<B>;
      if (src == detail::none || !ran.test(src)) return;
      std::vector<set> options;
      constexpr auto targets = branch_targets<B>;
      if constexpr (branch_is_all<B>) {
        constexpr std::size_t k = targets.size();
        for (std::uint64_t m = 0; m < (std::uint64_t{1} << std::min<std::size_t>(k, 12)); ++m) {
          set s{};
          for (std::size_t t = 0; t < k; ++t)
            if (((m >> t) & 1u) && targets[t] != detail::none) s.set(targets[t]);
          options.push_back(s);
        }
      } else {
        for (auto t : targets) {
          set s{};
          if (t != detail::none) s.set(t);
          options.push_back(s);
        }
      }
      out.push_back(options);
    });
    for (std::size_t i = 0; i < size; ++i) {
      if (!ran.test(i)) continue;
      const set woken = reactive ? may_wake(i) : set{};
      for (auto* extra : {&table.goes[i], &table.sends[i], &woken}) {
        if (!extra->any()) continue;
        std::vector<set> options{set{}};
        for (std::size_t t = 0; t < size; ++t) {
          if (!extra->test(t)) continue;
          std::size_t n = options.size();
          if (n >= exploration_cap) complete = false;
          for (std::size_t o = 0; o < n && options.size() < exploration_cap; ++o) {
            set s = options[o];
            s.set(t);
            options.push_back(s);
          }
        }
        out.push_back(options);
      }
    }
    return out;
  }

  struct exploration {
    bool complete = true;
    // Pairs (a, b) of nodes that some reachable frontier holds together.
    std::vector<set> together = std::vector<set>(size);
    std::vector<abstract_state> states;
  };

  static constexpr exploration explore() {
    exploration ex;
    std::vector<abstract_state> todo;
    abstract_state first{};
    first.frontier = table.from_start;
    todo.push_back(first);
    ex.states.push_back(first);
    if constexpr (reactive) {  // the input may wake any subscriber, or none
      abstract_state woken = first;
      woken.frontier |= wakes_on_input;
      if (!(woken == first)) {
        todo.push_back(woken);
        ex.states.push_back(woken);
      }
    }
    while (!todo.empty()) {
      abstract_state cur = todo.back();
      todo.pop_back();
      for (std::size_t i = 0; i < size; ++i)
        if (cur.frontier.test(i)) ex.together[i] |= cur.frontier;
      abstract_state base = cur;
      set fixed = static_next(cur.frontier, base.arrived);
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
        if (std::find(ex.states.begin(), ex.states.end(), nx) != ex.states.end()) continue;
        if (ex.states.size() >= exploration_cap) {
          ex.complete = false;
          return ex;
        }
        ex.states.push_back(nx);
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
