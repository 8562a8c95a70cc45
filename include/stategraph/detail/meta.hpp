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

// The position of a type in a list, found by overload resolution against one base per
// element: the table is built once per list, and each lookup is then one deduction, where
// mp_find instantiates a comparison with every element. A type the list holds twice makes
// the deduction ambiguous, so it falls to the void* overload like a type it does not hold.
template <std::size_t I, class T>
struct indexed {};
template <class Seq, class List>
struct index_table;
template <std::size_t... I, template <class...> class L, class... T>
struct index_table<std::index_sequence<I...>, L<T...>> : indexed<I, T>... {};
template <class T, std::size_t I>
constexpr std::size_t position_in(const indexed<I, T>*) {
  return I;
}
template <class T>
constexpr std::size_t position_in(const void*) {  // T is not in the list
  return static_cast<std::size_t>(-1);
}
template <class List>
using name_table = index_table<std::make_index_sequence<boost::mp11::mp_size<List>::value>, List>;
template <class T, class List>
inline constexpr std::size_t position_of = position_in<T>(static_cast<const name_table<List>*>(nullptr));

// Each list's length, and all their elements flattened into one list: per-element tables
// are then built by one pack expansion over the flat list.
template <class... Lists>
constexpr std::array<std::size_t, sizeof...(Lists)> list_sizes(mp_list<Lists...>*) {
  return {boost::mp11::mp_size<Lists>::value...};
}
template <class Table, class... Ts>
constexpr std::array<std::size_t, sizeof...(Ts)> positions([[maybe_unused]] const Table* table, mp_list<Ts...>*) {
  return {position_in<Ts>(table)...};
}

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
  // Removes every member of o.
  constexpr node_set& remove(const node_set& o) {
    for (std::size_t w = 0; w < words; ++w) bits[w] &= ~o.bits[w];
    return *this;
  }
  // Calls f(i) for each member i, in increasing order. Visits words, not indices, so that
  // the compile-time analyses cost O(members + N/64) per set, not O(N): the constant
  // evaluators count every step against a cap.
  template <class F>
  constexpr void for_each(F&& f) const {
    for (std::size_t w = 0; w < words; ++w)
      for (std::uint64_t m = bits[w]; m != 0; m &= m - 1)
        f(w * 64 + static_cast<std::size_t>(__builtin_ctzll(m)));
  }
  // A cheap mix of the words, to tell most sets apart before comparing them whole.
  constexpr std::uint64_t hash(std::uint64_t h = 0) const {
    for (auto w : bits) h = (h ^ w) * 0x100000001b3u + (h >> 29);
    return h;
  }
  friend constexpr bool operator==(const node_set&, const node_set&) = default;
};

}  // namespace stategraph::detail
