// SG008: two nodes that can run in the same superstep do not both write one last-value
// channel (nor does a send target, which may run several times in one step). Which nodes
// can run together is found by exploring every frontier a run can reach, ignoring channel
// values (may_run_together); the exploration runs only for graphs where some last-value
// channel has two writers and a step can hold two nodes (analysis::one_at_a_time).
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/containers.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

// ---- abstract runs: every frontier a run can reach, ignoring channel values ----------
//
// Keyed by sizes, not by the graph (see schedule.hpp on symbol names).
namespace stategraph::detail {

// What the exploration remembers of the joins: one bit per (join, source) pair, so that a
// state is a few words, not one node set per join (copying and comparing states is most of
// the exploration's steps).
template <std::size_t N, std::size_t J>
constexpr std::size_t count_join_slots(const graph_tables<N, J>& t) {
  std::size_t k = 0;
  for (const auto& row : t.join_rows) k += row.sources.count();
  return k;
}
template <std::size_t N, std::size_t J, std::size_t K>
struct join_slot_tables {
  std::array<node_set<K>, J> of_join{};  // the slots of join j
  std::array<node_set<K>, N> of_node{};  // the slots where node i is a source
  std::array<node_set<J>, N> joins_of{};  // the joins node i is a source or the target of
  node_set<J> unfed{};                    // joins without sources among the nodes
};
template <std::size_t K, std::size_t N, std::size_t J>
constexpr join_slot_tables<N, J, K> make_join_slots(const graph_tables<N, J>& tables) {
  join_slot_tables<N, J, K> t{};
  std::size_t k = 0;
  for (std::size_t j = 0; j < J; ++j) {
    const auto& row = tables.join_rows[j];
    if (row.into < N) t.joins_of[row.into].set(j);
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

template <std::size_t N, std::size_t K>
struct abstract_state {
  node_set<N> frontier{};
  node_set<K> arrived{};
  friend constexpr bool operator==(const abstract_state&, const abstract_state&) = default;
  constexpr std::uint64_t hash() const { return arrived.hash(frontier.hash()); }
};

// The states seen so far, with an open-addressing hash index: a lookup costs O(1)
// comparisons, not one per state seen (O(states²) steps over a run of the exploration).
template <class State>
struct state_index {
  std::vector<State> states;
  std::vector<std::size_t> slots = std::vector<std::size_t>(64, none);

  constexpr std::size_t slot_of(const State& s) const {
    std::size_t mask = slots.size() - 1, at = static_cast<std::size_t>(s.hash()) & mask;
    while (slots[at] != none && !(states[slots[at]] == s)) at = (at + 1) & mask;
    return at;
  }
  constexpr bool contains(const State& s) const { return slots[slot_of(s)] != none; }
  // s is not yet in, and `at` is slot_of(s): a lookup and an insertion hash once.
  constexpr void insert(const State& s, std::size_t at) {
    if (2 * (states.size() + 1) > slots.size()) {
      slots = std::vector<std::size_t>(2 * slots.size(), none);
      for (std::size_t k = 0; k < states.size(); ++k) slots[slot_of(states[k])] = k;
      at = slot_of(s);
    }
    slots[at] = states.size();
    states.push_back(s);
  }
  constexpr void insert(const State& s) { insert(s, slot_of(s)); }
  constexpr std::size_t size() const { return states.size(); }
};

// What the exploration reads: the graph's tables, and whether it is reactive.
template <std::size_t N, std::size_t J, std::size_t B, std::size_t C, std::size_t K>
struct explore_input {
  const graph_tables<N, J>& table;
  const std::array<branch_info<node_set<N>>, B>& branches;
  const reactive_tables<N, C>& reactivity;
  const join_slot_tables<N, J, K>& join_slots;
  bool reactive;
  node_set<N> wakes_on_input;
};

// static_next on the exploration's compact join state: only the joins that `ran` touches.
template <std::size_t N, std::size_t J, std::size_t B, std::size_t C, std::size_t K>
constexpr node_set<N> abstract_next(const explore_input<N, J, B, C, K>& in, const node_set<N>& ran,
                                    node_set<K>& arrived) {
  const auto& js = in.join_slots;
  node_set<N> next{};
  node_set<J> touched = js.unfed;
  node_set<K> hit{};
  ran.for_each([&](std::size_t i) {
    next |= in.table.successors[i];
    touched |= js.joins_of[i];
    hit |= js.of_node[i];
  });
  touched.for_each([&](std::size_t j) {
    const auto& row = in.table.join_rows[j];
    const node_set<K>& mine = js.of_join[j];
    if (row.into < N && ran.test(row.into)) arrived.remove(mine);
    node_set<K> h = hit;
    h &= mine;
    arrived |= h;
    if (arrived.contains_all(mine) && row.into < N) {
      next.set(row.into);
      arrived.remove(mine);
    }
  });
  return next;
}

// Past this many abstract states (or choices in one step) the analysis stops, and SG008
// is left to the run-time guard.
inline constexpr std::size_t exploration_cap = 4096;

// The branches leaving each node, in branch order: node i's are
// members[offsets[i]] .. members[offsets[i + 1] - 1]. A step looks up the branches of the
// nodes that ran rather than testing every branch: the constant evaluators count each step
// against a cap, and a graph's exploration visits many states.
template <std::size_t N, std::size_t B>
struct branches_by_node {
  std::array<std::size_t, N + 1> offsets{};
  std::array<std::size_t, B> members{};
};
template <std::size_t N, std::size_t B>
constexpr branches_by_node<N, B> index_branches(const std::array<branch_info<node_set<N>>, B>& branches) {
  branches_by_node<N, B> out{};
  for (const auto& b : branches)
    if (b.source < N) ++out.offsets[b.source + 1];
  for (std::size_t i = 0; i < N; ++i) out.offsets[i + 1] += out.offsets[i];
  std::array<std::size_t, N + 1> at = out.offsets;
  for (std::size_t b = 0; b < B; ++b)
    if (branches[b].source < N) out.members[at[branches[b].source]++] = b;
  return out;
}

// Each choice point of a step: the subsets of targets it may activate, flattened: point p's
// options are options[starts[p]] .. options[starts[p + 1] - 1]. The buffers are the caller's
// and reused from state to state: a new vector per point and state cost most of the
// exploration's constant-evaluation steps.
template <std::size_t N>
struct choice_points {
  std::vector<node_set<N>> options;
  std::vector<std::size_t> starts;
  std::vector<std::size_t> fired;  // the branches whose source ran
};
template <std::size_t N, std::size_t J, std::size_t B, std::size_t C, std::size_t K>
constexpr void choices(const explore_input<N, J, B, C, K>& in, const branches_by_node<N, B>& by_node,
                       const std::array<bool, N>& chooses, const node_set<N>& ran, bool& complete,
                       choice_points<N>& out) {
  using set = node_set<N>;
  auto& options = out.options;
  out.options.clear();
  out.starts.clear();
  out.fired.clear();
  ran.for_each([&](std::size_t i) {
    for (std::size_t k = by_node.offsets[i]; k < by_node.offsets[i + 1]; ++k) out.fired.push_back(by_node.members[k]);
  });
  std::sort(out.fired.begin(), out.fired.end());  // in branch order
  for (std::size_t f : out.fired) {
    const auto& b = in.branches[f];
    out.starts.push_back(options.size());
    const std::size_t k = b.count;
    if (b.all) {
      for (std::uint64_t m = 0; m < (std::uint64_t{1} << std::min<std::size_t>(k, 12)); ++m) {
        set s{};
        for (std::size_t t = 0; t < k; ++t)
          if (((m >> t) & 1u) && b.target_list[t] != none) s.set(b.target_list[t]);
        options.push_back(s);
      }
    } else {
      for (std::size_t t = 0; t < k; ++t) {
        set s{};
        if (b.target_list[t] != none) s.set(b.target_list[t]);
        options.push_back(s);
      }
    }
  }
  ran.for_each([&](std::size_t i) {
    if (!in.reactive && !chooses[i]) return;  // no command targets, sends or wakes
    const set woken = in.reactive ? woken_by(in.reactivity, in.reactivity.writes[i]) : set{};
    for (auto* extra : {&in.table.goes[i], &in.table.sends[i], &woken}) {
      if (!extra->any()) continue;
      const std::size_t base = options.size();
      out.starts.push_back(base);
      options.push_back(set{});
      extra->for_each([&](std::size_t t) {
        std::size_t n = options.size() - base;
        if (n >= exploration_cap) complete = false;
        for (std::size_t o = 0; o < n && options.size() - base < exploration_cap; ++o) {
          set s = options[base + o];
          s.set(t);
          options.push_back(s);
        }
      });
    }
  });
  out.starts.push_back(options.size());
}

template <std::size_t N>
struct run_together_table {
  bool complete;
  std::array<node_set<N>, N> with{};
};

template <std::size_t N, std::size_t J, std::size_t B, std::size_t C, std::size_t K>
constexpr run_together_table<N> explore(const explore_input<N, J, B, C, K>& in) {
  using set = node_set<N>;
  using state = abstract_state<N, K>;
  run_together_table<N> out{true};
  const auto by_node = index_branches(in.branches);
  choice_points<N> points;
  std::vector<set> combos, grown;  // the next frontiers a state may lead to, reused
  std::array<bool, N> chooses{};  // per node: it has command targets or sends
  for (std::size_t i = 0; i < N; ++i) chooses[i] = in.table.goes[i].any() || in.table.sends[i].any();
  // Pairs (a, b) of nodes that some reachable frontier holds together.
  std::vector<set> together(N);
  state_index<state> seen;
  std::vector<state> todo;
  state first{};
  first.frontier = in.table.from_start;
  todo.push_back(first);
  seen.insert(first);
  if (in.reactive) {  // the input may wake any subscriber, or none
    state woken = first;
    woken.frontier |= in.wakes_on_input;
    if (!(woken == first)) {
      todo.push_back(woken);
      seen.insert(woken);
    }
  }
  const auto done = [&](bool complete) {
    out.complete = complete;
    for (std::size_t i = 0; i < N; ++i) out.with[i] = together[i];
    return out;
  };
  while (!todo.empty()) {
    state cur = todo.back();
    todo.pop_back();
    cur.frontier.for_each([&](std::size_t i) { together[i] |= cur.frontier; });
    state base = cur;
    set fixed = abstract_next(in, cur.frontier, base.arrived);
    choices(in, by_node, chooses, cur.frontier, out.complete, points);
    combos.clear();
    combos.push_back(fixed);
    for (std::size_t p = 0; p + 1 < points.starts.size(); ++p) {
      grown.clear();
      for (const auto& c : combos)
        for (std::size_t k = points.starts[p]; k < points.starts[p + 1]; ++k) {
          set s = c;
          s |= points.options[k];
          if (std::find(grown.begin(), grown.end(), s) == grown.end()) grown.push_back(s);
        }
      std::swap(combos, grown);
      if (combos.size() > exploration_cap) return done(false);
    }
    for (auto& c : combos) {
      if (!c.any()) continue;
      state nx{c, base.arrived};
      const std::size_t at = seen.slot_of(nx);
      if (seen.slots[at] != none) continue;  // seen
      if (seen.size() >= exploration_cap) return done(false);
      seen.insert(nx, at);
      todo.push_back(nx);
    }
  }
  return done(out.complete);
}

}  // namespace stategraph::detail

namespace stategraph::rules {

// may_run_together<A>::table.with[i].test(j): nodes i and j of the graph A (an
// sg::analysis) analyses can be active in one superstep; .complete: the exploration saw
// every reachable frontier (it stops past detail::exploration_cap states).
template <class A>
struct may_run_together {
  enum : std::size_t { join_slots = stategraph::detail::count_join_slots(A::table) };  // (see analysis::size)
  static constexpr auto join_slot_table = stategraph::detail::make_join_slots<join_slots>(A::table);
  static constexpr stategraph::detail::run_together_table<A::size> table = stategraph::detail::explore(
      stategraph::detail::explore_input<A::size, A::join_count, A::branch_count, A::channels, join_slots>{
          A::table, A::branch_table, A::reactivity, join_slot_table, A::reactive, A::wakes_on_input});
};

// The last-value channels each node writes, and the first pair of nodes that may run
// together and write one of them.
template <class A>
struct parallel_write_facts {
  using S = typename A::state_type;
  // (Enumerators, not static members: see analysis::size.)
  enum : std::size_t { n = A::size, c = channel_count<S> };
  using channel_set = stategraph::detail::node_set<c>;
  template <class V>
  using last_value_channel = std::bool_constant<channel_traits<field_of<V::value>>::kind != channel_kind::accumulator>;
  template <class N>
  using last_value_list = boost::mp11::mp_copy_if<typename node_traits<N>::writes_type::list, last_value_channel>;
  static constexpr std::array<channel_set, n> last_value_writes = []<class... N>(stategraph::detail::mp_list<N...>*) {
    return std::array<channel_set, n>{
        stategraph::detail::channel_bits<S>(static_cast<last_value_list<N>*>(nullptr))...};
  }(static_cast<typename A::nodes*>(nullptr));
  // Only then is the exploration worth its cost.
  enum : bool {
    conflict_possible = [] {
      channel_set written{};  // by some node seen so far
      for (std::size_t i = 0; i < n; ++i) {
        if (written.intersects(last_value_writes[i])) return true;
        if (A::send_targets.test(i) && last_value_writes[i].any()) return true;  // it may run many times in a step
        written |= last_value_writes[i];
      }
      return false;
    }()
  };
  struct conflict {
    std::size_t first = n, second = n, channel = c;
  };
  static constexpr conflict last_value_conflict = [] {
    // A graph that runs one node at a time (no sends either) has no two nodes in a step.
    if constexpr (!conflict_possible || A::one_at_a_time) {
      return conflict{};
    } else {
      constexpr auto& together = may_run_together<A>::table;
      conflict found{};
      for (std::size_t i = 0; i < n && found.first == n; ++i) {
        if (!last_value_writes[i].any()) continue;
        if (A::send_targets.test(i)) {
          for (std::size_t ch = 0; ch < c; ++ch)
            if (last_value_writes[i].test(ch)) return conflict{i, i, ch};
        }
        together.with[i].for_each([&](std::size_t j) {
          if (j <= i || found.first != n || !last_value_writes[i].intersects(last_value_writes[j])) return;
          for (std::size_t ch = 0; ch < c; ++ch)
            if (found.first == n && last_value_writes[i].test(ch) && last_value_writes[j].test(ch)) found = {i, j, ch};
        });
      }
      return found;
    }
  }();
};

// ---- predicate -------------------------------------------------------------------------

// No two nodes of the graph A analyses that can run in one superstep write one last-value
// channel, and no send target writes one. A graph that runs one node at a time (so has no
// sends) meets it without its facts being computed.
template <class A>
concept no_parallel_last_value_writes =
    bool(A::one_at_a_time) || parallel_write_facts<A>::last_value_conflict.first == A::size;

// ---- diagnostic ------------------------------------------------------------------------

template <auto Channel, class FirstNode, class SecondNode>
struct SG008_nodes_that_run_together_write_one_last_value_channel {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG008_nodes_that_run_together_write_one_last_value_channel>,
                  "SG008: two nodes that can run in the same superstep both write one last-value channel; give "
                  "the channel a reducer or separate the nodes");
  };
  static constexpr fail<> raised{};
};

// The same, for a channel of a container both nodes were granted to write: the container
// comes first, as the grant named it.
template <class Container, auto Channel, class FirstNode, class SecondNode>
struct SG008_nodes_that_run_together_write_one_last_value_channel_of_container {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG008_nodes_that_run_together_write_one_last_value_channel_of_container>,
                  "SG008: two nodes that can run in the same superstep both write one last-value channel of a "
                  "container; give the channel a reducer, grant one of them read access only (sg::reads_from), or "
                  "separate the nodes");
  };
  static constexpr fail<> raised{};
};

// Where the first conflict's channel sits in the first node's `writes`: the message names
// the channel as that node declared it. Instantiated only for a graph that has a conflict.
template <class A, class F = parallel_write_facts<A>>
struct conflict_channel {
  using writes = typename node_traits<typename A::template node<F::last_value_conflict.first>>::writes_type::list;
  static constexpr std::size_t position = [] {
    std::size_t at = 0, i = 0;
    boost::mp11::mp_for_each<writes>([&]<class V>(V) {
      if constexpr (std::is_same_v<state_of<V::value>, typename F::S>)
        if (channel_index<typename F::S, V::value>() == F::last_value_conflict.channel) at = i;
      ++i;
    });
    return at;
  }();
};

// The container the first node's write grant holds the conflict's channel in (void when
// the node declares the channel plainly).
template <class A, class F = parallel_write_facts<A>, class C = conflict_channel<A>>
using conflict_container = typename stategraph::detail::grant_container<
    typename node_traits<typename A::template node<F::last_value_conflict.first>>::writes_type,
    boost::mp11::mp_at_c<typename C::writes, C::position>>::type;

// The diagnostic with the first conflict, named as the graph names its nodes.
template <class A, class F = parallel_write_facts<A>, class C = conflict_channel<A>,
          class Container = conflict_container<A>>
using parallel_write_diagnostic = std::conditional_t<
    std::is_void_v<Container>,
    SG008_nodes_that_run_together_write_one_last_value_channel<
        boost::mp11::mp_at_c<typename C::writes, C::position>::value,
        boost::mp11::mp_at_c<typename A::names, F::last_value_conflict.first>,
        boost::mp11::mp_at_c<typename A::names, F::last_value_conflict.second>>,
    SG008_nodes_that_run_together_write_one_last_value_channel_of_container<
        Container, boost::mp11::mp_at_c<typename C::writes, C::position>::value,
        boost::mp11::mp_at_c<typename A::names, F::last_value_conflict.first>,
        boost::mp11::mp_at_c<typename A::names, F::last_value_conflict.second>>>;

}  // namespace stategraph::rules
