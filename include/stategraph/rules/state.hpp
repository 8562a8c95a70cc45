// SG016: the graph's state is a struct the library can reflect and build. Boost.PFR
// reflects it, so it is an aggregate without a base class (a Hana Struct, or any type with its own
// state_reflection, is exempt); and a run starts from `State{}`, so every member can be
// made from `{}`. Checked first: nothing else can be checked on a state that cannot be
// reflected.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/schema.hpp>

#include <cstddef>
#include <type_traits>

namespace stategraph::rules {

namespace detail {
// Converts only to a base class of S: `S{base_of<S>{}}` compiles only when S's first
// element is a base class, which Boost.PFR cannot reflect.
template <class S>
struct base_of {
  template <class T>
    requires(std::is_base_of_v<T, S> && !std::is_same_v<T, S>)
  operator T&() const;
};
template <class S>
concept has_base_class = requires { S{base_of<S>{}}; };

// Declared only: a call from `{}` is how an aggregate's member is made in `State{}`.
template <class F>
void made_from_braces(F);
template <class F>
concept brace_constructible = requires { made_from_braces<F>({}); };

template <class F>
using not_brace_constructible = std::bool_constant<!brace_constructible<F>>;
}  // namespace detail

// ---- predicates ------------------------------------------------------------------------

// S is an aggregate without a base class, or is reflected by a specialisation of
// state_reflection.
template <class S>
concept state_is_reflectable = !requires { state_reflection<S>::needs_aggregate; } ||
                               (std::is_aggregate_v<S> && !detail::has_base_class<S>);

// `S{}` compiles: every member of S has a default constructor that `{}` can call.
template <class S>
concept state_is_default_constructible = requires { S{}; };

// ---- diagnostics -----------------------------------------------------------------------

template <class State>
struct SG016_state_is_not_an_aggregate {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG016_state_is_not_an_aggregate>,
                  "SG016: the graph's state must be a plain aggregate (no user-declared constructor, no base "
                  "class, no private member, no virtual function), or a Hana Struct with <stategraph/hana.hpp>");
  };
  static constexpr fail<> raised{};
};

template <class State, auto Member, class Type>
struct SG016_state_member_has_no_default_constructor {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG016_state_member_has_no_default_constructor>,
                  "SG016: a run starts from `State{}`, and this member of the state cannot be made from `{}`; "
                  "give its type a default constructor (not explicit), or wrap it (std::optional)");
  };
  static constexpr fail<> raised{};
};

template <class State>
struct SG016_state_has_no_default_constructor {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG016_state_has_no_default_constructor>,
                  "SG016: a run starts from `State{}`, and the state has no default constructor");
  };
  static constexpr fail<> raised{};
};

// The default-construction diagnostic with the first member `{}` cannot make, or the state
// itself when every member can.
template <class S, std::size_t I = first_channel_where<S, detail::not_brace_constructible>(),
          bool Found = (I < channel_count<S>)>
struct unbuildable_state {
  using type = SG016_state_member_has_no_default_constructor<S, stategraph::detail::member_at<S, I>,
                                                             field_type_t<S, I>>;
};
template <class S, std::size_t I>
struct unbuildable_state<S, I, false> {
  using type = SG016_state_has_no_default_constructor<S>;
};
template <class S>
using unbuildable_state_diagnostic = typename unbuildable_state<S>::type;

}  // namespace stategraph::rules
