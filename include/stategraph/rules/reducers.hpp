// SG017: each channel's reducer can be called as the runtime calls it,
// `value = Op{}(std::move(value), written)`: a default-constructible class with a call
// operator that takes the channel's value first and a write second, and returns what the
// value can be assigned. Without this rule a wrong reducer shows up as SG004 on each
// write, blamed on the node. A call operator that is a template or is overloaded is
// checked only by the writes (SG004): its parameters are known only for a given write.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/list.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace stategraph::rules {

namespace detail {
// Whether Op has any operator(): the probe's own is found alone only if Op has none.
struct call_probe {
  void operator()() const;
};
template <class Op>
struct probed : Op, call_probe {};
template <class Op>
concept has_call_operator = std::is_final_v<Op> || !requires { &probed<Op>::operator(); };

// The parameters and result of a call operator that is one plain function.
template <class M>
struct call_signature {
  static constexpr bool known = false;
};
template <class R, class... P>
struct plain_signature {
  static constexpr bool known = true;
  static constexpr std::size_t arity = sizeof...(P);
  using result = R;
  using params = stategraph::detail::mp_list<P...>;
};
template <class R, class... P>
struct call_signature<R (*)(P...)> : plain_signature<R, P...> {};
template <class R, class... P>
struct call_signature<R (*)(P...) noexcept> : plain_signature<R, P...> {};
template <class C, class R, class... P>
struct call_signature<R (C::*)(P...)> : plain_signature<R, P...> {};
template <class C, class R, class... P>
struct call_signature<R (C::*)(P...) const> : plain_signature<R, P...> {};
template <class C, class R, class... P>
struct call_signature<R (C::*)(P...) noexcept> : plain_signature<R, P...> {};
template <class C, class R, class... P>
struct call_signature<R (C::*)(P...) const noexcept> : plain_signature<R, P...> {};
template <class C, class R, class... P>
struct call_signature<R (C::*)(P...) &> : plain_signature<R, P...> {};
template <class C, class R, class... P>
struct call_signature<R (C::*)(P...) const&> : plain_signature<R, P...> {};

template <class Op>
struct call_of {
  using type = call_signature<void>;
};
template <class Op>
  requires requires { &Op::operator(); }
struct call_of<Op> {
  using type = call_signature<decltype(&Op::operator())>;
};

// A call operator that is one plain function takes (value, write) and returns a value.
template <class Sig, class T>
concept fits_value = !Sig::known || (Sig::arity == 2 &&
                                     std::is_convertible_v<T&&, boost::mp11::mp_front<typename Sig::params>> &&
                                     std::is_assignable_v<T&, typename Sig::result>);
}  // namespace detail

// ---- predicate -------------------------------------------------------------------------

// Op can reduce a channel whose value is T.
template <class Op, class T>
concept reducer_fits = std::is_class_v<Op> && std::is_default_constructible_v<Op> && detail::has_call_operator<Op> &&
                       detail::fits_value<typename detail::call_of<Op>::type, T>;

namespace detail {
template <class F>
inline constexpr bool channel_reducer_fits =
    reducer_fits<typename channel_traits<F>::reducer, typename channel_traits<F>::value_type>;

template <class F>
using reducer_misfits = std::bool_constant<!channel_reducer_fits<F>>;
}  // namespace detail

// Every channel of S has a reducer that fits its value.
template <class S>
concept reducers_fit_channels = first_channel_where<S, detail::reducer_misfits>() == channel_count<S>;

// ---- diagnostic ------------------------------------------------------------------------

template <auto Channel, class Reducer, class Value>
struct SG017_reducer_does_not_fit_its_channel {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG017_reducer_does_not_fit_its_channel>,
                  "SG017: a channel's reducer must be a default-constructible class whose call operator takes the "
                  "channel's value and a write, and returns the new value: `T operator()(T, U) const`");
  };
  static constexpr fail<> raised{};
};

// The diagnostic with S's first channel whose reducer does not fit.
template <class S, std::size_t I = first_channel_where<S, detail::reducer_misfits>(),
          class F = field_type_t<S, I>>
using misfit_reducer_diagnostic =
    SG017_reducer_does_not_fit_its_channel<stategraph::detail::member_at<S, I>, typename channel_traits<F>::reducer,
                                           typename channel_traits<F>::value_type>;

}  // namespace stategraph::rules
