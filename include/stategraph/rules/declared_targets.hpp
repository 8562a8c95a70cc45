// SG010: a router, a command or a send produces only targets its node declared: the
// sg::go<...> / sg::go_all<...> a router returns, a node's `goes` for its commands and its
// `sends` for its sends. The router form fires in sg::go's constructor (node.hpp includes
// this header); the node forms are checked by check_all (what a node returns).
#pragma once

#include <stategraph/detail/meta.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <type_traits>

namespace stategraph::rules {

namespace detail {
template <class Declared>
struct undeclared_in {
  template <class T>
  using fn = std::bool_constant<!stategraph::detail::contains<T, Declared>>;
};
// The position of the first of Targets that Declared lacks (the size of Targets if none).
template <class Targets, class Declared>
using first_undeclared = boost::mp11::mp_find_if_q<Targets, undeclared_in<Declared>>;
}  // namespace detail

// ---- predicates ------------------------------------------------------------------------

// A router's (or command's) sg::go<Declared...> names Target.
template <class Target, class... Declared>
concept declares_target = stategraph::detail::contains<Target, stategraph::detail::mp_list<Declared...>>;

// Every type of the list Targets is in the list Declared (a node's `goes` or `sends`).
template <class Targets, class Declared>
concept targets_declared =
    detail::first_undeclared<Targets, Declared>::value == boost::mp11::mp_size<Targets>::value;

// ---- diagnostics -----------------------------------------------------------------------

// Arguments: the target returned, then the targets the sg::go<...> declares.
template <class Target, class... Declared>
struct SG010_returns_undeclared_target {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG010_returns_undeclared_target>,
                  "SG010: a router or command returns a target its sg::go<...> does not declare");
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

// The diagnostics with their first offender: Targets is what the node can return, Declared
// its `goes` (or `sends`).
template <class Name, class Targets, class Declared>
using command_target_diagnostic = SG010_command_goes_to_undeclared_target<
    Name, boost::mp11::mp_at_c<Targets, detail::first_undeclared<Targets, Declared>::value>>;
template <class Name, class Targets, class Declared>
using send_target_diagnostic =
    SG010_sends_to_undeclared_target<Name, boost::mp11::mp_at_c<Targets, detail::first_undeclared<Targets, Declared>::value>>;

}  // namespace stategraph::rules
