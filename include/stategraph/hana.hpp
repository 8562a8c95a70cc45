// Opt-in: a state schema may be a Boost.Hana Struct (BOOST_HANA_DEFINE_STRUCT or
// BOOST_HANA_ADAPT_STRUCT), for a state Boost.PFR cannot reflect (private members, a base
// class, a user-declared constructor). The channels are Hana's accessors, in Hana's order,
// named by Hana's keys. Kept out of the core so that only its users pay for Hana's headers.
// Include it in every file that uses such a state, before the first use.
#pragma once

#include <stategraph/schema.hpp>

#include <boost/hana/accessors.hpp>
#include <boost/hana/at.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/tuple.hpp>

#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace stategraph {

template <class S>
struct state_reflection<S, std::enable_if_t<boost::hana::Struct<S>::value>> {
 private:
  template <std::size_t I>
  using at = decltype(boost::hana::at_c<I>(boost::hana::accessors<S>()));
  template <std::size_t I>
  using accessor = std::remove_cvref_t<decltype(boost::hana::second(std::declval<at<I>>()))>;
  template <std::size_t I>
  using key = std::remove_cvref_t<decltype(boost::hana::first(std::declval<at<I>>()))>;

 public:
  static constexpr std::size_t size = decltype(boost::hana::length(boost::hana::accessors<S>()))::value;

  template <std::size_t I, class T>
  static constexpr auto& get(T& s) noexcept {
    // A channel is a member the engine reads and writes in place: an accessor that
    // computes a value (BOOST_HANA_ADAPT_ADT) cannot be one.
    static_assert(std::is_lvalue_reference_v<decltype(accessor<I>{}(s))>,
                  "stategraph: a Hana Struct state needs accessors that return its members "
                  "(BOOST_HANA_DEFINE_STRUCT or BOOST_HANA_ADAPT_STRUCT)");
    return accessor<I>{}(s);
  }

  template <std::size_t I>
  using field = std::remove_cvref_t<decltype(get<I>(std::declval<S&>()))>;

  template <std::size_t I>
  static constexpr std::string_view name() {
    return key<I>::c_str();
  }
};

}  // namespace stategraph
