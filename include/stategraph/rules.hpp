// Every compile-time rule of contract §5: a constexpr predicate, then a diagnostic — a
// class template whose name states the problem and whose arguments name the offending
// nodes, stages and channels. sg::compile checks the rules in a fixed order and stops at
// the first family that fails, so one mistake gives one short message.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/diagnostics.hpp>
#include <stategraph/graph.hpp>
#include <stategraph/lattice.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/schema.hpp>
#include <stategraph/send.hpp>
#include <stategraph/calls.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace stategraph {

namespace rules {

// The diagnostics (class templates named after the problem) are in diagnostics.hpp.

// ---- per node: SG003, SG011, SG002, SG004, SG010, SG005 (targets) --------------------------

namespace detail {
using boost::mp11::mp_at_c;
using boost::mp11::mp_find_if_q;
using boost::mp11::mp_list;
using boost::mp11::mp_size;

template <class S>
struct foreign_channel {
  template <class V>
  using fn = std::bool_constant<!std::is_same_v<state_of<V::value>, S>>;
};
template <class Writes>
struct undeclared_write {
  template <class E>
  using fn = std::bool_constant<!stategraph::detail::contains<stategraph::detail::entry_channel<E>, Writes>>;
};
struct unconvertible_write {
  template <class E>
  using fn = std::bool_constant<!accepts_write<field_of<E::channel>, typename E::value_type&&>>;
};
template <class Allowed>
struct not_in {
  template <class T>
  using fn = std::bool_constant<!stategraph::detail::contains<T, Allowed>>;
};
}  // namespace detail

template <class S, class Name, class N>
constexpr bool check_channels_belong() {
  using tr = node_traits<N>;
  using all = boost::mp11::mp_append<typename tr::reads_type::list, typename tr::writes_type::list,
                                     typename tr::subscribes_list>;
  constexpr std::size_t bad = detail::mp_find_if_q<all, detail::foreign_channel<S>>::value;
  if constexpr (bad < detail::mp_size<all>::value) {
    (void)SG003_channel_is_not_in_the_graph_state<Name, detail::mp_at_c<all, bad>::value, S>{};
    return false;
  } else {
    return true;
  }
}

// The payload type a send target receives, or void when nothing sends to it.
template <class Queue>
struct payload_of_queue {
  using type = typename Queue::value_type;
};
template <>
struct payload_of_queue<stategraph::detail::no_queue> {
  using type = void;
};
template <class A, class Name>
struct payload_of : payload_of_queue<typename stategraph::detail::send_plan<A>::template queue_for<Name>> {};

template <class S, class Name, class N, class Ctx, class Payload>
constexpr bool check_send_call() {
  using call = stategraph::detail::send_call_result<N, S, Payload, Ctx>;
  if constexpr (!call::callable) {
    (void)SG011_send_target_does_not_accept_the_payload<Name, Payload>{};
    return false;
  } else if constexpr (!stategraph::detail::result_kind<typename call::type>::supported) {
    (void)SG011_node_returns_unsupported_type<Name, typename call::type>{};
    return false;
  } else {
    return true;
  }
}

template <class S, class Name, class N, class Ctx>
constexpr bool check_call() {
  using call = stategraph::detail::call_result<N, S, Ctx>;
  if constexpr (!call::callable) {
    (void)SG011_call_operator_does_not_accept_the_view<Name, stategraph::detail::node_view_t<N, S>>{};
    return false;
  } else if constexpr (!stategraph::detail::result_kind<typename call::type>::supported) {
    (void)SG011_node_returns_unsupported_type<Name, typename call::type>{};
    return false;
  } else {
    return true;
  }
}

// What the node returns against what it declared: SG002, SG004, SG010. Keyed by the result
// type, not the context: compile() and invoke() check each node, with any_context and with
// the run's context, and a node that ignores the context is then checked once.
template <class S, class Name, class N, class R>
constexpr bool check_result() {
  using tr = node_traits<N>;
  using result = stategraph::detail::result_kind<R>;
  using sent_to = stategraph::detail::send_targets_of<R>;
  constexpr std::size_t stray_send = detail::mp_find_if_q<sent_to, detail::not_in<typename tr::sends_list>>::value;
  using entries = boost::mp11::mp_rename<typename result::patch_type, stategraph::detail::mp_list>;
  constexpr std::size_t undeclared =
      detail::mp_find_if_q<entries, detail::undeclared_write<typename tr::writes_type::list>>::value;
  constexpr std::size_t unconvertible = detail::mp_find_if_q<entries, detail::unconvertible_write>::value;
  using targets = typename stategraph::detail::go_targets<typename result::go_type>::type;
  constexpr std::size_t stray = detail::mp_find_if_q<targets, detail::not_in<typename tr::goes_list>>::value;
  if constexpr (undeclared < detail::mp_size<entries>::value) {
    (void)SG002_node_writes_undeclared_channel<Name, detail::mp_at_c<entries, undeclared>::channel>{};
    return false;
  } else if constexpr (unconvertible < detail::mp_size<entries>::value) {
    using E = detail::mp_at_c<entries, unconvertible>;
    (void)SG004_written_value_does_not_convert<Name, E::channel, typename E::value_type>{};
    return false;
  } else if constexpr (stray < detail::mp_size<targets>::value) {
    (void)SG010_command_goes_to_undeclared_target<Name, detail::mp_at_c<targets, stray>>{};
    return false;
  } else if constexpr (stray_send < detail::mp_size<sent_to>::value) {
    (void)SG010_sends_to_undeclared_target<Name, detail::mp_at_c<sent_to, stray_send>>{};
    return false;
  } else {
    return true;
  }
}

// Every `goes`/`sends` target is a node of the graph (or end, for goes): Bad is the first
// that is not (void when all are), found by the caller with the graph's name table.
template <class Name, class Bad>
constexpr bool check_targets() {
  if constexpr (!std::is_void_v<Bad>) {
    (void)SG005_target_is_not_a_node_of_the_graph<Name, Bad>{};
    return false;
  } else {
    return true;
  }
}
namespace detail {
template <class A>
struct not_a_node_of {
  template <class T>
  using fn = std::bool_constant<!std::is_same_v<T, end> &&
                                stategraph::detail::position_in<T>(A::name_index) == stategraph::detail::none>;
};
template <class Targets, std::size_t Bad, bool Found = (Bad < mp_size<Targets>::value)>
struct stray_at {
  using type = mp_at_c<Targets, Bad>;
};
template <class Targets, std::size_t Bad>
struct stray_at<Targets, Bad, false> {
  using type = void;
};
template <class A, class N>
struct first_stray_target {
  using targets = boost::mp11::mp_append<typename node_traits<N>::goes_list, typename node_traits<N>::sends_list>;
  using type = typename stray_at<targets, mp_find_if_q<targets, not_a_node_of<A>>::value>::type;
};
}  // namespace detail

// SG012: with a known context (at invoke), every declared seam must be provided.
template <class Name, class N, class Ctx>
constexpr bool check_seam() {
  using seam_t = typename node_traits<N>::seam;
  if constexpr (std::is_void_v<seam_t> || std::is_same_v<Ctx, stategraph::detail::any_context>) {
    return true;
  } else if constexpr (!stategraph::detail::provides_seam<Ctx, seam_t>) {
    (void)SG012_context_does_not_provide_the_seam<Name, seam_t, Ctx>{};
    return false;
  } else {
    return true;
  }
}

// The node's call: as a send target (view and payload) when it cannot be called plainly,
// otherwise with its view (and the context); then what it returns.
template <class S, class Name, class N, class Ctx, class payload>
constexpr bool check_node_call() {
  constexpr bool plain = stategraph::detail::callable_with<N, S, Ctx>();
  if constexpr (!std::is_void_v<payload> && !plain) {  // runs only as a send target
    if constexpr (!check_send_call<S, Name, N, Ctx, payload>()) return false;
    else return check_result<S, Name, N, typename stategraph::detail::send_call_result<N, S, payload, Ctx>::type>();
  } else if constexpr (!check_call<S, Name, N, Ctx>()) {
    return false;
  } else if constexpr (!check_result<S, Name, N, typename stategraph::detail::call_result<N, S, Ctx>::type>()) {
    return false;  // each check under if constexpr, not &&: see check_nodes
  } else {
    return true;
  }
}

// One node's checks. The arguments are the node's own types (not the graph, see
// schedule.hpp on symbol names); StrayTarget and Payload come from the graph's tables.
template <class S, class Name, class N, class Ctx, class StrayTarget, class Payload>
constexpr bool check_node() {
  if constexpr (!check_channels_belong<S, Name, N>()) return false;
  else if constexpr (!check_targets<Name, StrayTarget>()) return false;
  else if constexpr (!check_seam<Name, N, Ctx>()) return false;  // before anything calls the node with Ctx
  else if constexpr (!check_node_call<S, Name, N, Ctx, Payload>()) return false;  // if constexpr: see check_nodes
  else return true;
}

template <class S, class R, class GoType>
constexpr bool check_router() {
  if constexpr (!check_channels_belong<S, R, R>()) {
    return false;
  } else if constexpr (!stategraph::detail::callable_as<const R&, stategraph::detail::node_view_t<R, S>>) {
    (void)SG011_call_operator_does_not_accept_the_view<R, stategraph::detail::node_view_t<R, S>>{};
    return false;
  } else if constexpr (!is_go<GoType>::value &&
                     !stategraph::detail::send_traits<GoType>::is_send) {
    (void)SG011_node_returns_unsupported_type<R, GoType>{};
    return false;
  } else {
    return true;
  }
}

// ---- per element: SG005 (edges) -------------------------------------------------------------

namespace detail {
// A graph names a lambda node by its tag: the tag stands for the node bound to it.
// (A class, not a variable template: an instantiated variable is a symbol whose name would
// carry the graph type, see schedule.hpp.)
template <class A, class T>
struct names_a_node : std::bool_constant<stategraph::detail::node_like<typename A::template resolve_t<T>>> {};

template <class A, class E>
struct element_ok : std::true_type {};
template <class A, class From, class To>
struct element_ok<A, edge<From, To>>
    : std::bool_constant<(std::is_same_v<From, start> || names_a_node<A, From>::value) &&
                         (std::is_same_v<To, end> || names_a_node<A, To>::value)> {};
template <class A, class Src, class R>
struct element_ok<A, branch<Src, R>> : std::bool_constant<names_a_node<A, Src>::value> {};
template <class A, class T, class... Ss>
struct element_ok<A, join<T, Ss...>>
    : std::bool_constant<names_a_node<A, T>::value && (names_a_node<A, Ss>::value && ...)> {};

template <class E>
struct element_ends {
  using from = E;
  using to = E;
};
template <class A, class B>
struct element_ends<edge<A, B>> {
  using from = A;
  using to = B;
};
template <class Src, class R>
struct element_ends<branch<Src, R>> {
  using from = Src;
  using to = R;
};
template <class T, class... Ss>
struct element_ends<join<T, Ss...>> {
  using from = boost::mp11::mp_front<boost::mp11::mp_list<Ss...>>;
  using to = T;
};
template <class A>
struct element_bad {
  template <class E>
  using fn = std::bool_constant<!element_ok<A, E>::value>;
};
}  // namespace detail

template <class G, class A = analysis<G>>
constexpr bool check_elements() {
  using elements = typename G::elements;
  constexpr std::size_t bad = stategraph::detail::find_if_q<elements, detail::element_bad<A>>::value;
  // The first element declared twice: the name table's lookup finds no position for a type
  // that two of its bases carry (O(1) per element, where mp_unique is O(elements²)).
  constexpr std::size_t dup = []<class... E>(detail::mp_list<E...>*) {
    using table = stategraph::detail::name_table<elements>;
    constexpr std::array<bool, sizeof...(E)> once{
        (stategraph::detail::position_in<E>(static_cast<const table*>(nullptr)) != stategraph::detail::none)...};
    for (std::size_t k = 0; k < once.size(); ++k)
      if (!once[k]) return k;
    return once.size();
  }(static_cast<elements*>(nullptr));
  if constexpr (bad < detail::mp_size<elements>::value) {
    using ends = detail::element_ends<detail::mp_at_c<elements, bad>>;
    (void)SG005_edge_names_something_that_is_not_a_node<typename ends::from, typename ends::to>{};
    return false;
  } else if constexpr (dup < detail::mp_size<elements>::value) {
    using ends = detail::element_ends<detail::mp_at_c<elements, dup>>;
    (void)SG005_edge_declared_twice<typename ends::from, typename ends::to>{};
    return false;
  } else {
    return true;
  }
}

// ---- the whole graph: SG006, SG007, SG009, SG008 --------------------------------------------

template <class A>
struct graph_facts {
  using S = typename A::state_type;
  using L = typename A::lattice_type;
  static constexpr std::size_t n = A::size;
  template <class N>
  using stage_of = typename node_traits<N>::stage;
  using stages = stategraph::detail::unique_t<boost::mp11::mp_transform<stage_of, typename A::nodes>>;
  static constexpr std::size_t k = detail::mp_size<stages>::value;

  static constexpr std::array<std::size_t, n> stage_index = []<class... N>(detail::mp_list<N...>*) {
    return std::array<std::size_t, n>{boost::mp11::mp_find<stages, stage_of<N>>::value...};
  }(static_cast<typename A::nodes*>(nullptr));
  static constexpr std::array<std::array<bool, k>, k> allowed = [] {
    std::array<std::array<bool, k>, k> out{};
    stategraph::detail::for_each_index<k>([&]<std::size_t X>() {
      stategraph::detail::for_each_index<k>([&]<std::size_t Y>() {
        out[X][Y] = allows_transition<L, detail::mp_at_c<stages, X>, detail::mp_at_c<stages, Y>>();
      });
    });
    return out;
  }();

  // Every node-to-node hand-over a run can make: edges, branches, joins, goes, sends.
  static constexpr std::array<typename A::set, n> next = [] {
    std::array<typename A::set, n> out{};
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = A::table.successors[i];
      out[i] |= A::table.goes[i];
      out[i] |= A::table.sends[i];
      if constexpr (A::reactive) out[i] |= A::may_wake(i);
    }
    for (auto& row : A::table.join_rows)
      if (row.into < n) row.sources.for_each([&](std::size_t i) { out[i].set(row.into); });
    for (const auto& b : A::branch_table)
      if (b.source < n) out[b.source] |= b.targets;
    return out;
  }();
  static constexpr std::array<bool, n> ends = [] {
    std::array<bool, n> out{};
    for (std::size_t i = 0; i < n; ++i) out[i] = A::table.to_end[i] || A::table.goes_end[i];
    for (const auto& b : A::branch_table)
      if (b.source < n && b.to_end) out[b.source] = true;
    return out;
  }();

  struct pair {
    std::size_t from = n, to = n;
  };
  static constexpr pair crossing = [] {
    pair p{};
    if constexpr (!std::is_same_v<L, no_lattice>)
      for (std::size_t i = 0; i < n && p.from == n; ++i)
        next[i].for_each([&](std::size_t j) {
          if (p.from == n && !allowed[stage_index[i]][stage_index[j]]) p = pair{i, j};
        });
    return p;
  }();

  struct crowded {
    std::size_t stage = k, first = n, second = n;
  };
  static constexpr crowded crowded_singleton = [] {
    crowded c{};
    stategraph::detail::for_each_index<k>([&]<std::size_t X>() {
      if (c.stage != k || !is_singleton_stage<L, detail::mp_at_c<stages, X>>()) return;
      std::size_t first = n;
      for (std::size_t i = 0; i < n; ++i) {
        if (stage_index[i] != X) continue;
        if (first == n) first = i;
        else {
          c = {X, first, i};
          return;
        }
      }
    });
    return c;
  }();

  // Both walks visit each node and each hand-over once (a work list over the members of
  // each set), so they cost O(N·N/64 + hand-overs) steps, not O(N²) or O(N³): the constant
  // evaluators cap the steps of one evaluation (Clang at 2^20).
  static constexpr std::size_t unreachable = [] {
    typename A::set seen = A::table.from_start;
    if constexpr (A::reactive) seen |= A::wakes_on_input;
    std::array<std::size_t, n + 1> todo{};
    std::size_t top = 0;
    seen.for_each([&](std::size_t i) { todo[top++] = i; });
    while (top > 0) {
      typename A::set fresh = next[todo[--top]];
      fresh.remove(seen);
      seen |= fresh;
      fresh.for_each([&](std::size_t j) { todo[top++] = j; });
    }
    for (std::size_t i = 0; i < n; ++i)
      if (!seen.test(i)) return i;
    return n;
  }();
  static constexpr std::size_t dead_end = [] {
    // Walk backwards from the nodes that reach end, through each node's predecessors.
    std::array<typename A::set, n> before{};
    for (std::size_t i = 0; i < n; ++i) next[i].for_each([&](std::size_t j) { before[j].set(i); });
    typename A::set reached{};
    for (std::size_t i = 0; i < n; ++i)
      if (ends[i]) reached.set(i);
    std::array<std::size_t, n + 1> todo{};
    std::size_t top = 0;
    reached.for_each([&](std::size_t i) { todo[top++] = i; });
    while (top > 0) {
      typename A::set fresh = before[todo[--top]];
      fresh.remove(reached);
      reached |= fresh;
      fresh.for_each([&](std::size_t i) { todo[top++] = i; });
    }
    std::array<bool, n> reaches{};
    for (std::size_t i = 0; i < n; ++i) reaches[i] = reached.test(i);
    // Name a node with no way out at all before one that only leads to such a node: the
    // first is where an edge is missing.
    for (std::size_t i = 0; i < n; ++i)
      if (!reaches[i] && !next[i].any()) return i;
    for (std::size_t i = 0; i < n; ++i)
      if (!reaches[i]) return i;
    return n;
  }();

  // SG008: the last-value channels each node declares it writes, by channel index.
  static constexpr std::size_t c = channel_count<S>;
  using channel_set = stategraph::detail::node_set<c>;
  template <class V>
  using last_value_channel = std::bool_constant<channel_traits<field_of<V::value>>::kind != channel_kind::accumulator>;
  template <class N>
  using last_value_list = boost::mp11::mp_copy_if<typename node_traits<N>::writes_type::list, last_value_channel>;
  static constexpr std::array<channel_set, n> last_value_writes = []<class... N>(detail::mp_list<N...>*) {
    return std::array<channel_set, n>{
        stategraph::detail::channel_bits<S>(static_cast<last_value_list<N>*>(nullptr))...};
  }(static_cast<typename A::nodes*>(nullptr));
  static constexpr bool conflict_possible = [] {
    channel_set written{};  // by some node seen so far
    for (std::size_t i = 0; i < n; ++i) {
      if (written.intersects(last_value_writes[i])) return true;
      if (A::send_targets.test(i) && last_value_writes[i].any()) return true;  // it may run many times in a step
      written |= last_value_writes[i];
    }
    return false;
  }();
  struct conflict {
    std::size_t first = n, second = n, channel = c;
  };
  static constexpr conflict last_value_conflict = [] {
    if constexpr (!conflict_possible) {
      return conflict{};
    } else {
      constexpr auto& together = A::may_run_together;
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

template <class A>
constexpr bool check_graph() {
  using F = graph_facts<A>;
  using names = typename A::names;
  if constexpr (F::crossing.from < F::n) {
    constexpr auto p = F::crossing;
    (void)SG006_edge_crosses_the_lattice<detail::mp_at_c<names, p.from>, detail::mp_at_c<names, p.to>,
                                         detail::mp_at_c<typename F::stages, F::stage_index[p.from]>,
                                         detail::mp_at_c<typename F::stages, F::stage_index[p.to]>>{};
    return false;
  } else if constexpr (F::crowded_singleton.stage < F::k) {
    constexpr auto c = F::crowded_singleton;
    (void)SG007_singleton_stage_holds_more_than_one_node<detail::mp_at_c<typename F::stages, c.stage>,
                                                         detail::mp_at_c<names, c.first>,
                                                         detail::mp_at_c<names, c.second>>{};
    return false;
  } else if constexpr (F::unreachable < F::n) {
    (void)SG009_node_is_unreachable_from_start<detail::mp_at_c<names, F::unreachable>>{};
    return false;
  } else if constexpr (F::dead_end < F::n) {
    (void)SG009_node_cannot_reach_end<detail::mp_at_c<names, F::dead_end>>{};
    return false;
  } else if constexpr (F::last_value_conflict.first < F::n) {
    constexpr auto c = F::last_value_conflict;
    using writes = typename node_traits<typename A::template node<c.first>>::writes_type::list;
    constexpr std::size_t pos = [] {
      std::size_t at = 0, i = 0;
      boost::mp11::mp_for_each<writes>([&]<class V>(V) {
        if constexpr (std::is_same_v<state_of<V::value>, typename F::S>)
          if (channel_index<typename F::S, V::value>() == F::last_value_conflict.channel) at = i;
        ++i;
      });
      return at;
    }();
    (void)SG008_nodes_that_run_together_write_one_last_value_channel<
        detail::mp_at_c<writes, pos>::value, detail::mp_at_c<names, c.first>, detail::mp_at_c<names, c.second>>{};
    return false;
  } else {
    return true;
  }
}

// Arrays of each check's result (not folds: Clang caps a fold at 256 operands, and a graph
// may have more nodes), and `if constexpr` on each check, rather than constexpr
// lambdas or plain calls: each check is then instantiated while its caller is, not during
// constant evaluation, so GCC prints no "in 'constexpr' expansion of" lines (each one
// carrying the whole graph type) before the diagnostic.
template <class A, class... Br>
constexpr bool check_routers(detail::mp_list<Br...>*) {
  using S = typename A::state_type;
  return stategraph::detail::all_true(std::array<bool, sizeof...(Br)>{
      std::bool_constant<check_router<S, typename A::template branch_parts<Br>::router,
                                      typename A::template branch_parts<Br>::go_type>()>::value...});
}
template <class A, class Ctx, class... Name, class... N>
constexpr bool check_nodes(detail::mp_list<Name...>*, detail::mp_list<N...>*) {
  return stategraph::detail::all_true(std::array<bool, sizeof...(N)>{
      std::bool_constant<check_node<typename A::state_type, Name, N, Ctx,
                                    typename detail::first_stray_target<A, N>::type,
                                    typename payload_of<A, Name>::type>()>::value...});
}

// All rules, in the order that keeps one mistake to one message: the elements of the graph,
// then the routers, then each node, then the graph as a whole.
template <class G, class A, class Ctx = stategraph::detail::no_context>
constexpr bool check_all() {
  if constexpr (!check_elements<G, A>()) return false;
  else if constexpr (!check_routers<A>(static_cast<typename A::branches*>(nullptr))) return false;
  else if constexpr (!check_nodes<A, Ctx>(static_cast<typename A::names*>(nullptr), static_cast<typename A::nodes*>(nullptr)))
    return false;
  else if constexpr (!check_graph<A>()) return false;
  else return true;
}

}  // namespace rules
}  // namespace stategraph
