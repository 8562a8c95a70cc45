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

// No node, no index: the sentinel of every search and of a frontier of one node.
inline constexpr std::size_t none = static_cast<std::size_t>(-1);

using boost::mp11::mp_list;

template <class...>
inline constexpr bool always_false = false;

template <auto V>
struct value_t {
  static constexpr auto value = V;
};

template <class T, class List>
inline constexpr bool contains = boost::mp11::mp_contains<List, T>::value;

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

// The same lookup as one overload resolution among non-template functions, one per element:
// g++ deduces against each base in turn and allocates for every attempt, so each lookup
// left garbage in proportion to the table; choosing an overload leaves none. Clang is
// slower this way, and keeps the bases. Here a type the list holds twice makes the call
// ambiguous, an error: this table is for lists without repeats (a graph's names).
template <class T>
struct name_tag {};
template <std::size_t I, class T>
struct name_entry {
  static std::integral_constant<std::size_t, I> at(name_tag<T>*);
};
template <class Seq, class List>
struct overload_table;
template <std::size_t... I, template <class...> class L, class... T>
struct overload_table<std::index_sequence<I...>, L<T...>> : name_entry<I, T>... {
  using name_entry<I, T>::at...;
  static std::integral_constant<std::size_t, static_cast<std::size_t>(-1)> at(const void*);
};
// lookup_table<List> (List without repeats): what position_of searches. position_of<T,
// Table>::value is T's position in the list, or none.
#if defined(__clang__)
template <class List>
using lookup_table = name_table<List>;
template <class T, class Table>
using position_of = std::integral_constant<std::size_t, position_in<T>(static_cast<const Table*>(nullptr))>;
#else
template <class List>
using lookup_table = overload_table<std::make_index_sequence<boost::mp11::mp_size<List>::value>, List>;
template <class T, class Table>
using position_of = decltype(Table::at(static_cast<name_tag<T>*>(nullptr)));
#endif

// Searches over a graph's elements, nodes or names, without a fold expression: on Clang,
// mp11's mp_find, mp_find_if and mp_any_of fold over the list, and Clang caps a fold at 256
// operands, so a graph of more than 256 elements or nodes did not compile with Clang.
// Clang caps a fold expression at 256 operands: what folds over a graph's nodes or steps
// folds over chunks of this many.
inline constexpr std::size_t fold_chunk = 128;

constexpr std::size_t first_true(const bool* hit, std::size_t n) {
  std::size_t i = 0;
  while (i < n && !hit[i]) ++i;
  return i;
}
template <std::size_t N>
constexpr bool all_true(const std::array<bool, N>& values) {
  for (bool v : values)
    if (!v) return false;
  return true;
}
template <class List, class Q>
struct find_if_q_impl;
template <template <class...> class L, class... T, class Q>
struct find_if_q_impl<L<T...>, Q> {
  static constexpr std::size_t value =
      first_true(std::array<bool, sizeof...(T) + 1>{Q::template fn<T>::value..., false}.data(), sizeof...(T));
};
// The index of the first element T of List for which Q::fn<T> holds, or the list's size.
template <class List, class Q>
using find_if_q = std::integral_constant<std::size_t, find_if_q_impl<List, Q>::value>;
template <class List, template <class...> class P>
using find_if = find_if_q<List, boost::mp11::mp_quote<P>>;
template <class List, template <class...> class P>
using any_of = std::bool_constant<(find_if<List, P>::value < boost::mp11::mp_size<List>::value)>;
template <class T>
using not_default_constructible = std::bool_constant<!std::is_default_constructible_v<T>>;
template <class T>
struct same_as_q {
  template <class U>
  using fn = std::is_same<U, T>;
};

template <class T, class List>
inline constexpr std::size_t index_in = find_if_q<List, same_as_q<T>>::value;

// Element I of a long list, read many times (a graph's nodes, by index). On g++, which
// lacks the builtin __type_pack_element, mp11's mp_at_c deduces against a map of one base
// per element, a template unification per element for each lookup: quadratic over a graph.
// Here the list becomes one class with a plain overload per element, and a lookup is one
// overload resolution. Clang has the builtin, which mp_at_c uses.
#if defined(__clang__)
template <class List>
struct at_table {
  using list = List;
};
template <class Table, std::size_t I>
using table_at = boost::mp11::mp_at_c<typename Table::list, I>;
#else
template <std::size_t I, class T>
struct at_leaf {
  static std::type_identity<T> at(std::integral_constant<std::size_t, I>*);
};
template <class Seq, class... T>
struct at_leaves;
template <std::size_t... I, class... T>
struct at_leaves<std::index_sequence<I...>, T...> : at_leaf<I, T>... {
  using at_leaf<I, T>::at...;
};
template <class List>
struct at_table;
template <template <class...> class L, class... T>
struct at_table<L<T...>> : at_leaves<std::index_sequence_for<T...>, T...> {};
template <class Table, std::size_t I>
using table_at = typename decltype(Table::at(static_cast<std::integral_constant<std::size_t, I>*>(nullptr)))::type;
#endif

// A list without its repeats, in order of first appearance (what mp_unique computes).
// mp_unique takes one recursive step per element, each carrying the rest of the list as
// template arguments: O(N²) in arguments, about half a second on a 200-node graph's 800 node
// mentions; and past 900 mentions (g++'s default template depth, a dag of about 225 nodes)
// the graph did not compile at all. Here a fold expression walks the list once; the types seen
// so far are bases (is_base_of answers "seen?"), and they only grow when a type is new.
// The builtin __is_base_of rather than std::is_base_of_v: each use of that variable template is
// a variable g++ mangles, with the seen types in its name: O(N²) bytes of names, O(N³) time.
template <class T>
struct seen_tag {};
struct seen_none {};
// The types kept so far, in order: the last few in one flat class (Recent), the earlier ones
// in full batches chained as bases (Older); "seen?" asks both. A class holds a copy of every
// base below it, and matching a list's pack copies the list, so a chain of bases or a list
// grown by one type per step takes memory quadratic in its length; here only the chain of
// batches grows, one link per batch, and the list is formed once at the end.
template <class... T>
struct seen_batch : seen_tag<T>... {};
template <class Older, class Batch>
struct seen_chain : Older, Batch {};
inline constexpr std::size_t seen_batch_size = 32;
template <class Older, class Recent>
struct kept_types_of;
template <class... R>
struct kept_types_of<seen_none, seen_batch<R...>> {
  using type = mp_list<R...>;
};
template <class Older, class... B, class... R>
struct kept_types_of<seen_chain<Older, seen_batch<B...>>, seen_batch<R...>> {
  using type = typename kept_types_of<Older, seen_batch<B..., R...>>::type;
};
template <class T>
struct unique_item {};
// The accumulator is a class nested in a template, and the operator+ that steps it takes the
// accumulator's base: argument-dependent lookup then does not visit the types seen so far
// (they are the template's arguments), which made each step O(N).
template <class Older, class Recent>
struct unique_base {};
template <class Older, class Recent>
struct unique_state {
  struct acc : unique_base<Older, Recent> {
    using older = Older;
    using recent = Recent;
  };
};
template <bool Seen, class Older, class Recent, class T>
struct unique_next {
  using type = typename unique_state<Older, Recent>::acc;
};
template <class Older, class... R, class T>
struct unique_next<false, Older, seen_batch<R...>, T> {
  using type =
      typename std::conditional_t<(sizeof...(R) + 1 < seen_batch_size), unique_state<Older, seen_batch<R..., T>>,
                                  unique_state<seen_chain<Older, seen_batch<R..., T>>, seen_batch<>>>::acc;
};
template <class Older, class Recent, class T>
auto operator+(const unique_base<Older, Recent>&, unique_item<T>) ->
    typename unique_next<__is_base_of(seen_tag<T>, Older) || __is_base_of(seen_tag<T>, Recent), Older, Recent, T>::type;
using unique_start = unique_state<seen_none, seen_batch<>>::acc;

#if defined(__clang__)
// Clang caps a fold expression at 256 operands (its -fbracket-depth): fold in chunks, each
// picking its types with the builtin __type_pack_element.
template <class Acc, std::size_t Start, class... T, std::size_t... J>
auto unique_fold_chunk(Acc, std::index_sequence<J...>)
    -> decltype((Acc{} + ... + unique_item<__type_pack_element<Start + J, T...>>{}));
template <class Acc, std::size_t Start, class... T>
auto unique_fold(Acc acc) {
  constexpr std::size_t rest = sizeof...(T) - Start;
  if constexpr (rest == 0) {
    return acc;
  } else {
    constexpr std::size_t take = rest < fold_chunk ? rest : fold_chunk;
    using next = decltype(unique_fold_chunk<Acc, Start, T...>(acc, std::make_index_sequence<take>{}));
    return unique_fold<next, Start + take, T...>(next{});
  }
}
template <class... T>
struct fold_unique {
  using acc = decltype(unique_fold<unique_start, 0, T...>({}));
  using type = typename kept_types_of<typename acc::older, typename acc::recent>::type;
};

// With Clang, a linear dedup: each mention's first appearance is found in one pass over a
// hash table of the hashes of the types' printed names (each hashed once per type, in a
// constant evaluation of its own), the first appearances are kept, and every mention is then
// checked to be one of the types kept (a base of one class). Two types that print alike
// (lambdas from one macro, local classes) or whose hashes collide fail the check, and the
// list takes the fold above. Picking a mention by index instead (__type_pack_element) is
// quadratic again: Clang keys each use by the whole pack. With g++ this path takes longer
// than the fold, so g++ keeps the fold.
template <class T>
constexpr std::string_view pretty_type();
constexpr std::uint64_t name_hash(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}
template <class T>
struct hashed_name {
  static constexpr std::uint64_t hash = name_hash(pretty_type<T>());
};
template <std::size_t M>
struct first_mentions {
  std::array<std::size_t, M> first_of{};  // each mention's first appearance
};
template <class... T>
constexpr first_mentions<sizeof...(T)> find_first_mentions() {
  constexpr std::size_t m = sizeof...(T);
  constexpr std::size_t cap = [] {
    std::size_t c = 16;
    while (c < 2 * m) c *= 2;
    return c;
  }();
  const std::uint64_t hashes[] = {hashed_name<T>::hash...};
  std::array<std::size_t, cap> table{};  // a mention's index + 1; 0 is free
  first_mentions<m> out{};
  for (std::size_t i = 0; i < m; ++i) {
    std::size_t at = hashes[i] & (cap - 1);
    while (table[at] != 0 && hashes[table[at] - 1] != hashes[i]) at = (at + 1) & (cap - 1);
    if (table[at] == 0) table[at] = i + 1;
    out.first_of[i] = table[at] - 1;
  }
  return out;
}
template <class List>
struct kept_types;
template <class... U>
struct kept_types<mp_list<U...>> : seen_tag<U>... {};
template <class Seq, class... T>
struct name_unique;
template <std::size_t... I, class... T>
struct name_unique<std::index_sequence<I...>, T...> {
  static constexpr first_mentions<sizeof...(T)> plan = find_first_mentions<T...>();
  struct picked {
    using type = boost::mp11::mp_append<mp_list<>, std::conditional_t<plan.first_of[I] == I, mp_list<T>, mp_list<>>...>;
  };
  using kept = kept_types<typename picked::type>;
  static constexpr bool exact = all_true(std::array<bool, sizeof...(T)>{__is_base_of(seen_tag<T>, kept)...});
};
template <class... T>
struct unique_choice {
  using by_name = name_unique<std::index_sequence_for<T...>, T...>;
  using type = typename std::conditional_t<by_name::exact, typename by_name::picked, fold_unique<T...>>::type;
};
template <>
struct unique_choice<> {
  using type = mp_list<>;
};
template <class... T>
using unique_mp_list = typename unique_choice<T...>::type;
#else
template <class... T>
struct fold_unique {
  using acc = decltype((unique_start{} + ... + unique_item<T>{}));
  using type = typename kept_types_of<typename acc::older, typename acc::recent>::type;
};
template <class... T>
using unique_mp_list = typename fold_unique<T...>::type;
#endif

template <class List>
struct unique_impl;
template <template <class...> class L, class... T>
struct unique_impl<L<T...>> {
  using type = boost::mp11::mp_rename<unique_mp_list<T...>, L>;
};
template <class List>
using unique_t = typename unique_impl<List>::type;

// Whether a class-type callable F can be called with Args, and what the call gives. Nodes and
// routers are class types, so std::invoke's pointer-to-member cases never arise, and a
// requires-expression answers without the dozen class templates std::is_invocable and
// std::invoke_result instantiate for each question (several questions per node).
template <class F, class... Args>
concept callable_as = requires(F&& f, Args&&... args) {
  static_cast<F&&>(f)(static_cast<Args&&>(args)...);
};
template <class F, class... Args>
using call_type = decltype(std::declval<F>()(std::declval<Args>()...));

// Each list's length, and all their elements flattened into one list: per-element tables
// are then built by one pack expansion over the flat list.
template <class... Lists>
constexpr std::array<std::size_t, sizeof...(Lists)> list_sizes(mp_list<Lists...>*) {
  return {boost::mp11::mp_size<Lists>::value...};
}
template <class Table, class... Ts>
constexpr std::array<std::size_t, sizeof...(Ts)> positions(const Table*, mp_list<Ts...>*) {
  return {position_of<Ts, Table>::value...};
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
  // A built-in array, not std::array: g++ counts each operator[] call of std::array against
  // its constant-evaluation limit, which the analyses of large graphs would exceed.
  std::uint64_t bits[words]{};

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
