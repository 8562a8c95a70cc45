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

// ---- the router form, raised where the router returns ----------------------------------
// sg::go's conversion from sg::to<T> evaluates this in a default template argument, so the
// check runs where the router's body is read (a function body's instantiation is deferred
// to the end of the file, after sg::compile's graph rules). Raising SG010 also marks T as a
// target returned undeclared: the graph's reach (SG009) then stays silent about a graph
// whose routes are known to be incomplete — its unreachable nodes follow from this mistake.
// Only a program that already has this error defines the mark, so a program that compiles
// never sees it.
namespace detail {
// The mark is a function of deduced return type, declared by undeclared_return<T> and
// defined only by mark_undeclared_return<T>: until then a call cannot be formed.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-template-friend"
#endif
template <class Target>
struct undeclared_return {
  friend auto returned_undeclared(undeclared_return);
};
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
template <class Target>
struct mark_undeclared_return {
  friend auto returned_undeclared(undeclared_return<Target>) { return true; }
};
template <class Target>
constexpr bool marked() {
  return requires { returned_undeclared(undeclared_return<Target>{}); };
}
}  // namespace detail

// ---- diagnostics -----------------------------------------------------------------------

// Arguments: the target returned, then the targets the sg::go<...> declares.
template <class Target, class... Declared>
struct SG010_returns_undeclared_target : detail::mark_undeclared_return<Target> {
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

// An array, not a fold: Clang refuses a fold over more than 256 nodes.
template <class... Nodes>
constexpr bool any_marked_in() {
  constexpr bool hit[] = {detail::marked<Nodes>()..., false};
  return stategraph::detail::first_true(hit, sizeof...(Nodes)) < sizeof...(Nodes);
}
template <class... Nodes>
using any_marked = std::bool_constant<any_marked_in<Nodes...>()>;

// What sg::go's conversion takes the size of: a plain type for a declared target, else
// SG010's diagnostic (which marks the target), instantiated right at the router's return.
template <class Target, class... Declared>
using returned_target_check = std::conditional_t<declares_target<Target, Declared...>, int,
                                                 SG010_returns_undeclared_target<Target, Declared...>>;

// Some node of the list was returned by a router that does not declare it (SG010 raised).
// Asked only once a reach rule has failed, so a graph that compiles never asks.
template <class Nodes>
constexpr bool returned_undeclared_in() {
  return boost::mp11::mp_apply_q<boost::mp11::mp_quote<any_marked>, Nodes>::value;
}

// The diagnostics with their first offender: Targets is what the node can return, Declared
// its `goes` (or `sends`).
template <class Name, class Targets, class Declared>
using command_target_diagnostic = SG010_command_goes_to_undeclared_target<
    Name, boost::mp11::mp_at_c<Targets, detail::first_undeclared<Targets, Declared>::value>>;
template <class Name, class Targets, class Declared>
using send_target_diagnostic =
    SG010_sends_to_undeclared_target<Name, boost::mp11::mp_at_c<Targets, detail::first_undeclared<Targets, Declared>::value>>;

}  // namespace stategraph::rules
