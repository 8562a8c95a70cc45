// The diagnostics of contract §5: one class template per mistake. Its name states the
// problem and starts with the rule ID; its arguments are the offending nodes, stages,
// channels (member pointers) and values, so both compilers print them in the first lines
// (Clang 14 prints class-type constants as numbers, hence no string arguments).
//
// Instantiating one, `(void)rules::SG0NN_...<Args...>{};`, fails with a static_assert
// whose condition spells the whole diagnostic type. The assertion sits in a nested
// template that the diagnostic only holds as a static member: the diagnostic itself stays
// a valid type, so the check that instantiated it remains a constant expression and Clang
// reports one error instead of following it with "not a constant expression" cascades.
//
// A new diagnostic copies the shape below (no macro: a macro adds "in expansion of macro"
// notes to every message). SG001 and SG010's router form live in node.hpp, SG013 in
// checkpoint/json.hpp.
#pragma once

#include <stategraph/detail/meta.hpp>

namespace stategraph::rules {

// ---- per node -------------------------------------------------------------------------------

template <class Node, auto Channel>
struct SG002_node_writes_undeclared_channel {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG002_node_writes_undeclared_channel>,
                  "SG002: the node's patch writes a channel outside its `writes`");
  };
  static constexpr fail<> raised{};
};

template <class Node, auto Channel, class State>
struct SG003_channel_is_not_in_the_graph_state {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG003_channel_is_not_in_the_graph_state>,
                  "SG003: `reads`/`writes`/`subscribes` names a member of another struct than the graph's state");
  };
  static constexpr fail<> raised{};
};

template <class Node, auto Channel, class Value>
struct SG004_written_value_does_not_convert {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG004_written_value_does_not_convert>,
                  "SG004: the value written does not convert to what the channel's reducer accepts");
  };
  static constexpr fail<> raised{};
};

template <class Node, class Target>
struct SG005_target_is_not_a_node_of_the_graph {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG005_target_is_not_a_node_of_the_graph>,
                  "SG005: a `goes`/`sends` target is not a node of the graph (no edge, branch or join names it)");
  };
  static constexpr fail<> raised{};
};

template <class Node, class Target>
struct SG010_command_goes_to_undeclared_target {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG010_command_goes_to_undeclared_target>,
                  "SG010: the node's command can go to a target missing from its `goes`");
  };
  static constexpr fail<> raised{};
};

template <class Node, class Target>
struct SG010_sends_to_undeclared_target {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG010_sends_to_undeclared_target>,
                  "SG010: the node returns sends to a target missing from its `sends`");
  };
  static constexpr fail<> raised{};
};

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

template <class Node, class Seam, class Context>
struct SG012_context_does_not_provide_the_seam {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG012_context_does_not_provide_the_seam>,
                  "SG012: the node's seam is not provided by the runtime context (derive the context from the "
                  "seam, or give it `Seam& provide<Seam>()`)");
  };
  static constexpr fail<> raised{};
};

// ---- per graph element --------------------------------------------------------------------

template <class From, class To>
struct SG005_edge_names_something_that_is_not_a_node {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG005_edge_names_something_that_is_not_a_node>,
                  "SG005: an edge, branch or join names something that is not a node (or start as a target, "
                  "or end as a source)");
  };
  static constexpr fail<> raised{};
};

template <class From, class To>
struct SG005_edge_declared_twice {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG005_edge_declared_twice>, "SG005: the same edge is declared twice");
  };
  static constexpr fail<> raised{};
};

// ---- whole graph --------------------------------------------------------------------------

template <class From, class To, class FromStage, class ToStage>
struct SG006_edge_crosses_the_lattice {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG006_edge_crosses_the_lattice>,
                  "SG006: an edge goes from one stage to another in a direction the lattice does not allow");
  };
  static constexpr fail<> raised{};
};

template <class Stage, class FirstNode, class SecondNode>
struct SG007_singleton_stage_holds_more_than_one_node {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG007_singleton_stage_holds_more_than_one_node>,
                  "SG007: a singleton stage holds more than one node");
  };
  static constexpr fail<> raised{};
};

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

template <class Node>
struct SG009_node_is_unreachable_from_start {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG009_node_is_unreachable_from_start>,
                  "SG009: no path leads from start to this node");
  };
  static constexpr fail<> raised{};
};

template <class Node>
struct SG009_node_cannot_reach_end {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG009_node_cannot_reach_end>, "SG009: no path leads from this node to end");
  };
  static constexpr fail<> raised{};
};

}  // namespace stategraph::rules
