// SG011: a node's call operator accepts its view (and the run's context, when it takes
// one), a send target's accepts (view, payload), and each returns a kind of result the
// runtime knows: a node sg::patch, sg::command, sends or void; a router sg::go or sg::go_all
// (or sends).
#pragma once

#include <stategraph/calls.hpp>
#include <stategraph/node.hpp>

#include <type_traits>

namespace stategraph::rules {

// ---- predicates ------------------------------------------------------------------------

// Node N of a graph over S can be called with its view (and Ctx, when it takes one).
template <class N, class S, class Ctx>
concept accepts_view = stategraph::detail::call_result<N, S, Ctx>::callable;

// Node N, a send target, can be called with its view and a Payload (and Ctx).
template <class N, class S, class Payload, class Ctx>
concept accepts_payload = stategraph::detail::send_call_result<N, S, Payload, Ctx>::callable;

// A node's result type R is one the runtime can merge.
template <class R>
concept supported_result = stategraph::detail::result_kind<R>::supported;

// Router R of a graph over S can be called with its view.
template <class R, class S>
concept router_accepts_view = stategraph::detail::callable_as<const R&, stategraph::detail::node_view_t<R, S>>;

// A router's result type is sg::go, sg::go_all or sends.
template <class Result>
concept supported_router_result = is_go<Result>::value || stategraph::detail::send_traits<Result>::is_send;

// ---- diagnostics -----------------------------------------------------------------------

template <class Node, class View>
struct SG011_call_operator_does_not_accept_the_view {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG011_call_operator_does_not_accept_the_view>,
                  "SG011: the call operator of the node or router does not accept its view (sg::view<State, reads>)");
  };
  static constexpr fail<> raised{};
};

template <class Node, class Result>
struct SG011_node_returns_unsupported_type {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG011_node_returns_unsupported_type>,
                  "SG011: a node returns sg::patch, sg::command, sends or void; a router returns sg::go or "
                  "sg::go_all");
  };
  static constexpr fail<> raised{};
};

template <class Node, class Payload>
struct SG011_send_target_does_not_accept_the_payload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG011_send_target_does_not_accept_the_payload>,
                  "SG011: a send target's call operator must accept (sg::view<State, reads>, const Payload&)");
  };
  static constexpr fail<> raised{};
};

}  // namespace stategraph::rules
