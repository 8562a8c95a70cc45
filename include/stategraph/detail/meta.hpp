// Small compile-time helpers shared by the core: type lists, names from the compiler,
// fixed-size node sets that work in constant expressions.
#pragma once

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

namespace stategraph::detail {

using boost::mp11::mp_list;

template <class...>
inline constexpr bool always_false = false;

template <auto V>
struct value_t {
  static constexpr auto value = V;
};

template <class T, class List>
inline constexpr bool contains = boost::mp11::mp_contains<List, T>::value;

template <class T, class List>
inline constexpr std::size_t index_in = boost::mp11::mp_find<List, T>::value;

// Calls f.template operator()<I>() for I in [0, N), in order.
template <std::size_t N, class F>
constexpr void for_each_index(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f.template operator()<I>(), ...);
  }(std::make_index_sequence<N>{});
}

// Names as the compiler spells them: the text of __PRETTY_FUNCTION__ for a template
// argument, cut down to the part a user wrote.
template <class T>
constexpr std::string_view pretty_type() {
  return __PRETTY_FUNCTION__;
}
template <auto V>
constexpr std::string_view pretty_value() {
  return __PRETTY_FUNCTION__;
}

// Both compilers print "... T = <type>; ..." (GCC) or "[T = <type>]" (Clang).
constexpr std::string_view after_marker(std::string_view s, std::string_view marker) {
  auto p = s.find(marker);
  s.remove_prefix(p + marker.size());
  std::size_t depth = 0, i = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(' || c == '{' || c == '[') ++depth;
    else if (c == '>' || c == ')' || c == '}') --depth;
    else if (c == ']' && depth == 0) break;
    else if (c == ']') --depth;
    else if (c == ';' && depth == 0) break;
  }
  return s.substr(0, i);
}

// "ns::inner::name<args>" -> "name<args>": drop the qualifiers outside template brackets.
constexpr std::string_view unqualified(std::string_view s) {
  std::size_t depth = 0, start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(') ++depth;
    else if (c == '>' || c == ')') --depth;
    else if (depth == 0 && c == ':' && i + 1 < s.size() && s[i + 1] == ':') start = i + 2;
  }
  return s.substr(start);
}

template <class T>
constexpr std::string_view type_name() {
  return unqualified(after_marker(pretty_type<T>(), "T = "));
}

// A set of node indices, usable at compile time and cheap at run time.
template <std::size_t N>
struct node_set {
  static constexpr std::size_t words = N == 0 ? 1 : (N + 63) / 64;
  std::array<std::uint64_t, words> bits{};

  constexpr void set(std::size_t i) { bits[i / 64] |= std::uint64_t{1} << (i % 64); }
  constexpr void reset(std::size_t i) { bits[i / 64] &= ~(std::uint64_t{1} << (i % 64)); }
  constexpr bool test(std::size_t i) const { return (bits[i / 64] >> (i % 64)) & 1u; }
  constexpr bool any() const {
    for (auto w : bits)
      if (w) return true;
    return false;
  }
  constexpr std::size_t count() const {
    std::size_t c = 0;
    for (auto w : bits)
      c += static_cast<std::size_t>(__builtin_popcountll(w));
    return c;
  }
  constexpr node_set& operator|=(const node_set& o) {
    for (std::size_t w = 0; w < words; ++w) bits[w] |= o.bits[w];
    return *this;
  }
  constexpr node_set& operator&=(const node_set& o) {
    for (std::size_t w = 0; w < words; ++w) bits[w] &= o.bits[w];
    return *this;
  }
  constexpr bool contains_all(const node_set& o) const {
    for (std::size_t w = 0; w < words; ++w)
      if ((bits[w] & o.bits[w]) != o.bits[w]) return false;
    return true;
  }
  constexpr bool intersects(const node_set& o) const {
    for (std::size_t w = 0; w < words; ++w)
      if (bits[w] & o.bits[w]) return true;
    return false;
  }
  friend constexpr bool operator==(const node_set&, const node_set&) = default;
};

}  // namespace stategraph::detail
