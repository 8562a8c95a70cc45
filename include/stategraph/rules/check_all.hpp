// The order in which sg::compile checks the rules, and nothing else: each rule's predicate
// and diagnostic live in its own header beside this one. The checks stop at the first
// family that fails, so one mistake gives one short message: the state, then what
// sg::compile binds, then the graph's elements, then the routers, then each node, then the
// graph as a whole.
//
// Each check is `if constexpr (!predicate) { (void)diagnostic{}; return false; }`, and
// each call of a check is the condition of an `if constexpr` or a template argument,
// rather than a constexpr lambda, a plain call or `&&`: each check is then instantiated
// while its caller is, not during constant evaluation, so GCC prints no "in 'constexpr'
// expansion of" lines (each one carrying the whole graph type) before the diagnostic.
#pragma once

#include <stategraph/calls.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>
#include <stategraph/rules/bindings.hpp>
#include <stategraph/rules/calls.hpp>
#include <stategraph/rules/channels.hpp>
#include <stategraph/rules/declared_targets.hpp>
#include <stategraph/rules/lattice.hpp>
#include <stategraph/rules/parallel_writes.hpp>
#include <stategraph/rules/reach.hpp>
#include <stategraph/rules/reads.hpp>
#include <stategraph/rules/reducers.hpp>
#include <stategraph/rules/seams.hpp>
#include <stategraph/rules/state.hpp>
#include <stategraph/rules/targets.hpp>
#include <stategraph/rules/writes.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/send.hpp>

#include <array>
#include <type_traits>

namespace stategraph::rules {

// ---- one node or router ----------------------------------------------------------------

template <class S, class Name, class N>
constexpr bool check_channels_belong() {
  if constexpr (!channels_in_state<S, N>) {
    (void)foreign_channel_diagnostic<S, Name, N>{};
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
  if constexpr (!accepts_payload<N, S, Payload, Ctx>) {
    (void)SG011_send_target_does_not_accept_the_payload<Name, Payload>{};
    return false;
  } else if constexpr (!supported_result<typename call::type>) {
    (void)SG011_node_returns_unsupported_type<Name, typename call::type>{};
    return false;
  } else {
    return true;
  }
}

template <class S, class Name, class N, class Ctx>
constexpr bool check_call() {
  using call = stategraph::detail::call_result<N, S, Ctx>;
  if constexpr (!accepts_view<N, S, Ctx>) {
    (void)SG011_call_operator_does_not_accept_the_view<Name, stategraph::detail::declared_view_t<N, S>>{};
    return false;
  } else if constexpr (!supported_result<typename call::type>) {
    (void)SG011_node_returns_unsupported_type<Name, typename call::type>{};
    return false;
  } else {
    return true;
  }
}

// What the node returns against what it declared: its patch, its command's targets, its
// sends. Keyed by the result type, not the context: compile() and invoke() check each node,
// with any_context and with the run's context, and a node that ignores the context is then
// checked once.
template <class S, class Name, class N, class R>
constexpr bool check_result() {
  using tr = node_traits<N>;
  using patch_type = typename stategraph::detail::result_kind<R>::patch_type;
  using goes_to = typename stategraph::detail::go_targets<typename stategraph::detail::result_kind<R>::go_type>::type;
  using sends_to = stategraph::detail::send_targets_of<R>;
  if constexpr (!writes_declared<N, patch_type>) {
    (void)undeclared_write_diagnostic<Name, N, patch_type>{};
    return false;
  } else if constexpr (!written_values_convert<patch_type>) {
    (void)unconvertible_write_diagnostic<Name, patch_type>{};
    return false;
  } else if constexpr (!targets_declared<goes_to, typename tr::goes_list>) {
    (void)command_target_diagnostic<Name, goes_to, typename tr::goes_list>{};
    return false;
  } else if constexpr (!targets_declared<sends_to, typename tr::sends_list>) {
    (void)send_target_diagnostic<Name, sends_to, typename tr::sends_list>{};
    return false;
  } else {
    return true;
  }
}

// Every `goes`/`sends` target is a node of the graph (or end, for goes): StrayTarget is the
// first that is not (void when all are), found by the caller with the graph's name table.
template <class Name, class StrayTarget>
constexpr bool check_targets() {
  if constexpr (!std::is_void_v<StrayTarget>) {
    (void)SG005_target_is_not_a_node_of_the_graph<Name, StrayTarget>{};
    return false;
  } else {
    return true;
  }
}

// With a known context (at invoke), every declared seam must be provided.
template <class Name, class N, class Ctx>
constexpr bool check_seam() {
  if constexpr (!seam_provided<N, Ctx>) {
    (void)SG012_context_does_not_provide_the_seam<Name, typename node_traits<N>::seam, Ctx>{};
    return false;
  } else if constexpr (!subgraph_seams_provided<Name, N, Ctx>) {
    using found = typename detail::seam_search<Ctx>::template missing<Name, N>::type;
    (void)SG012_context_does_not_provide_the_seam_in_a_subgraph<boost::mp11::mp_first<found>,
                                                                 boost::mp11::mp_second<found>, Ctx>{};
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
    return false;
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
  else if constexpr (!check_node_call<S, Name, N, stategraph::detail::checked_context_t<N, Ctx>, Payload>())
    return false;
  else return true;
}

template <class S, class R, class GoType>
constexpr bool check_router() {
  if constexpr (!check_channels_belong<S, R, R>()) {
    return false;
  } else if constexpr (!router_accepts_view<R, S>) {
    (void)SG011_call_operator_does_not_accept_the_view<R, stategraph::detail::declared_view_t<R, S>>{};
    return false;
  } else if constexpr (!supported_router_result<GoType>) {
    (void)SG011_node_returns_unsupported_type<R, GoType>{};
    return false;
  } else {
    return true;
  }
}

// ---- the state and the bindings --------------------------------------------------------

// Before anything that reflects the state: a state that cannot be reflected is the only
// message.
template <class S>
constexpr bool check_state() {
  if constexpr (!state_is_reflectable<S>) {
    (void)SG016_state_is_not_an_aggregate<S>{};
    return false;
  } else if constexpr (!state_is_default_constructible<S>) {
    (void)unbuildable_state_diagnostic<S>{};
    return false;
  } else if constexpr (!reducers_fit_channels<S>) {
    (void)misfit_reducer_diagnostic<S>{};
    return false;
  } else {
    return true;
  }
}

// ---- the graph -------------------------------------------------------------------------

// Arrays of each check's result, not folds: Clang caps a fold at 256 operands, and a graph
// may have more nodes.
template <class A, class... Br>
constexpr bool check_routers(stategraph::detail::mp_list<Br...>*) {
  using S = typename A::state_type;
  return stategraph::detail::all_true(std::array<bool, sizeof...(Br)>{
      std::bool_constant<check_router<S, typename A::template branch_parts<Br>::router,
                                      typename A::template branch_parts<Br>::go_type>()>::value...});
}
struct no_payload {
  using type = void;
};
// Invoked without a context, a node that takes none, declares no seam, is no subgraph and
// receives no sends is checked exactly as sg::compile checked it (with any_context): that
// check is reused rather than instantiated again.
template <class S, class N, class Ctx, class Payload>
using node_check_context = std::conditional_t<
    std::is_same_v<Ctx, stategraph::detail::no_context> && std::is_void_v<Payload> &&
        std::is_void_v<typename node_traits<N>::seam> && !requires { typename N::child_graph; } &&
        !stategraph::detail::callable_as<const N&, stategraph::detail::node_view_t<N, S>,
                                         stategraph::detail::any_context&>,
    stategraph::detail::any_context, Ctx>;
template <class A, class Name, bool Sends>
using payload_t = typename std::conditional_t<Sends, payload_of<A, Name>, no_payload>::type;
template <class A, class Ctx, class... Name, class... N>
constexpr bool check_nodes(stategraph::detail::mp_list<Name...>*, stategraph::detail::mp_list<N...>*) {
  using S = typename A::state_type;
  // In a graph without sends no node receives a payload: nothing to look up per node.
  constexpr bool sends = stategraph::detail::send_plan<A>::any;
  return stategraph::detail::all_true(std::array<bool, sizeof...(N)>{
      std::bool_constant<check_node<S, Name, N, node_check_context<S, N, Ctx, payload_t<A, Name, sends>>,
                                    typename detail::first_stray_target<A, N>::type,
                                    payload_t<A, Name, sends>>()>::value...});
}

// All rules, in the order that keeps one mistake to one message. One chain rather than a
// function per family (but the routers' and the nodes', which expand a pack): g++ names
// every function instantiated for a graph after the whole graph, in time quadratic in
// that name's length.
template <class G, class A, class Ctx = stategraph::detail::no_context>
constexpr bool check_all() {
  if constexpr (!check_state<typename G::state_type>()) {
    return false;
  } else if constexpr (!bound_tags_are_nodes<A>) {  // what sg::compile binds
    (void)unnamed_tag_diagnostic<A>{};
    return false;
  } else if constexpr (!bound_once<A>) {
    (void)repeated_binding_diagnostic<A>{};
    return false;
  } else if constexpr (!elements_name_nodes<A>) {  // the graph's elements
    (void)bad_element_diagnostic<A>{};
    return false;
  } else if constexpr (!elements_declared_once<A>) {
    (void)repeated_element_diagnostic<A>{};
    return false;
  } else if constexpr (!check_routers<A>(static_cast<typename A::branches*>(nullptr))) {  // each router, then node
    return false;
  } else if constexpr (!check_nodes<A, Ctx>(static_cast<typename A::names*>(nullptr),
                                            static_cast<typename A::nodes*>(nullptr))) {
    return false;
  } else if constexpr (!nodes_declare_stages<A>) {  // the graph as a whole
    (void)unstaged_node_diagnostic<A>{};
    return false;
  } else if constexpr (!respects_lattice<A>) {
    (void)lattice_crossing_diagnostic<A>{};
    return false;
  } else if constexpr (!subscriptions_respect_lattice<A>) {
    (void)wake_crossing_diagnostic<A>{};
    return false;
  } else if constexpr (!singleton_stages_hold_one_node<A>) {
    (void)crowded_stage_diagnostic<A>{};
    return false;
  } else if constexpr ((!all_reachable_from_start<A> || !all_reach_end<A>) &&
                       returned_undeclared_in<typename A::names>()) {
    return false;  // SG010 is reported where a router returned a target it does not declare
  } else if constexpr (!all_reachable_from_start<A>) {
    (void)unreachable_diagnostic<A>{};
    return false;
  } else if constexpr (!all_reach_end<A>) {
    (void)dead_end_diagnostic<A>{};
    return false;
  } else if constexpr (!no_parallel_last_value_writes<A>) {
    (void)parallel_write_diagnostic<A>{};
    return false;
  } else {
    return true;
  }
}

}  // namespace stategraph::rules
