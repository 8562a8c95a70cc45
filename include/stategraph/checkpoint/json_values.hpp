// Values to and from checkpoint JSON. The codec knows numbers, bool, std::string,
// nlohmann::json, std::optional, std::variant, std::chrono durations and the standard
// containers, nested in any way; everything else goes through nlohmann's own
// to_json/from_json (the user's codec). codable<T>() says which types these are, and SG013
// (rules/codec.hpp) asks it, so a graph compiles exactly when every value it stores codes.
//
// Reading: nlohmann's get<int>() converts a stored float with static_cast, which is
// undefined behaviour when the float is out of the integer's range (1e300) and silently
// truncates 3.5; an integer out of range (2^40 into int) wraps. Stored data is untrusted, so
// numbers are checked here first: an integer field takes only an integer that fits (or a
// float that is exactly one), anything else is refused with checkpoint_error. A duration's
// count is such an integer, a variant's index one below its number of alternatives.
//
// Writing: the hot path of every checkpoint writes the changed values straight into a
// buffer the runner reuses, without building a JSON document first.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/errors.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <deque>
#include <limits>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace stategraph {

// The version of what the runtime writes into a checkpoint. 2: the schema list is written
// only into a thread's first checkpoint (1 wrote it into every one). This build reads both.
inline constexpr int checkpoint_format_version = 2;
inline constexpr int oldest_checkpoint_format_version = 1;

// Bad checkpoint data: truncated or corrupted JSON, another schema, a value that does not
// decode. Thrown before anything is applied or written.
class checkpoint_error : public error {
 public:
  using error::error;
};

namespace detail {

// A stored value of the wrong shape or out of range for its type: what the checked reads
// throw, caught and reworded by the decoder with where the value was.
class json_value_error : public checkpoint_error {
 public:
  using checkpoint_error::checkpoint_error;
};

template <class T, template <class...> class Of>
inline constexpr bool is_instance = false;
template <template <class...> class Of, class... A>
inline constexpr bool is_instance<Of<A...>, Of> = true;

template <class T>
inline constexpr bool is_std_array = false;
template <class T, std::size_t N>
inline constexpr bool is_std_array<std::array<T, N>> = true;

template <class T>
inline constexpr bool is_duration = false;
template <class Rep, class Period>
inline constexpr bool is_duration<std::chrono::duration<Rep, Period>> = true;

template <class T>
inline constexpr bool is_sequence =
    is_instance<T, std::vector> || is_instance<T, std::deque> || is_instance<T, std::list>;
template <class T>
inline constexpr bool is_set = is_instance<T, std::set> || is_instance<T, std::multiset> ||
                               is_instance<T, std::unordered_set> || is_instance<T, std::unordered_multiset>;
template <class T>
inline constexpr bool is_map = is_instance<T, std::map> || is_instance<T, std::unordered_map>;
template <class T>
inline constexpr bool is_product = is_instance<T, std::pair> || is_instance<T, std::tuple>;

// A channel wrapper (sg::bounded<T, N>, ...) is coded as its value: a node may write one.
template <class T>
concept channel_wrapper = requires {
  typename T::value_type;
  typename T::reducer;
  T::kind;
};

// ---- which types have a codec --------------------------------------------------------------
//
// The codec knows numbers, bool, std::string, nlohmann::json, std::optional, std::variant,
// std::monostate, std::chrono::duration, the standard sequences, sets and maps, std::array,
// std::pair and std::tuple, nested in any way; every other type is the user's, coded by
// nlohmann's to_json/from_json (adl_serializer). SG013 asks codable<T>() and nothing else,
// so a type it accepts is one the writer and the reader below handle.

// A user type: nlohmann's to_json, and a from_json that fills a default-constructed value or
// (an adl_serializer specialization) returns one.
template <class T>
concept nlohmann_codable =
    requires(nlohmann::json& j, const T& v) { nlohmann::adl_serializer<T>::to_json(j, v); } &&
    (requires(const nlohmann::json& cj) {
      { nlohmann::adl_serializer<T>::from_json(cj) } -> std::same_as<T>;
    } || (std::is_default_constructible_v<T> &&
          requires(const nlohmann::json& cj, T& out) { nlohmann::adl_serializer<T>::from_json(cj, out); }));

template <class T>
constexpr bool codable();
template <template <class...> class L, class... A>
constexpr bool parts_codable(L<A...>*) {
  return (codable<A>() && ...);
}

template <class T>
constexpr bool codable() {
  if constexpr (std::is_same_v<T, nlohmann::json> || std::is_arithmetic_v<T> || std::is_same_v<T, std::string> ||
                std::is_same_v<T, std::monostate>)
    return true;
  else if constexpr (std::is_same_v<T, std::string_view> || std::is_pointer_v<T>)
    return false;  // a view: decoded, it would point into the parsed document
  else if constexpr (is_assign<T>)
    return codable<decltype(T::value)>();
  else if constexpr (channel_wrapper<T>)
    return codable<typename T::value_type>();
  else if constexpr (is_instance<T, std::optional>)
    return codable<typename T::value_type>();
  else if constexpr (is_instance<T, std::variant> || is_product<T>)
    return parts_codable(static_cast<T*>(nullptr));
  else if constexpr (is_duration<T>)
    return std::is_arithmetic_v<typename T::rep>;
  else if constexpr (is_std_array<T> || is_sequence<T> || is_set<T>)
    return codable<typename T::value_type>();
  else if constexpr (is_map<T>)
    return codable<typename T::key_type>() && codable<typename T::mapped_type>();
  else
    return nlohmann_codable<T>;
}

// Values whose JSON may be null. A present std::optional of one is written as [value], so
// that it stays apart from an empty one (null).
template <class T>
constexpr bool may_be_null() {
  if constexpr (std::is_same_v<T, nlohmann::json> || std::is_same_v<T, std::monostate> ||
                is_instance<T, std::optional>)
    return true;
  else if constexpr (is_assign<T>)
    return may_be_null<decltype(T::value)>();
  else if constexpr (channel_wrapper<T>)
    return may_be_null<typename T::value_type>();
  else
    return false;
}

// ---- reading -----------------------------------------------------------------------------

template <class I>
I checked_integer(const nlohmann::json& j) {
  using L = std::numeric_limits<I>;
  bool fits = false;
  switch (j.type()) {
    case nlohmann::json::value_t::number_integer: {
      const std::int64_t v = *j.get_ptr<const nlohmann::json::number_integer_t*>();
      if constexpr (L::is_signed)
        fits = v >= static_cast<std::int64_t>(L::min()) && v <= static_cast<std::int64_t>(L::max());
      else
        fits = v >= 0 && static_cast<std::uint64_t>(v) <= static_cast<std::uint64_t>(L::max());
      if (fits) return static_cast<I>(v);
      break;
    }
    case nlohmann::json::value_t::number_unsigned: {
      const std::uint64_t v = *j.get_ptr<const nlohmann::json::number_unsigned_t*>();
      if (v <= static_cast<std::uint64_t>(L::max())) return static_cast<I>(v);
      break;
    }
    case nlohmann::json::value_t::number_float: {
      // Bounds as doubles: L::min() is 0 or -2^digits and 2^digits is one past L::max(),
      // both exact, so the comparisons themselves never round into the range.
      const double f = *j.get_ptr<const nlohmann::json::number_float_t*>();
      if (std::isfinite(f) && std::trunc(f) == f && f >= static_cast<double>(L::min()) &&
          f < std::ldexp(1.0, L::digits))
        return static_cast<I>(f);
      break;
    }
    default:
      throw json_value_error(std::string("expected a number, found ") + j.type_name());
  }
  throw json_value_error("the number " + j.dump() + " does not fit " + std::string(type_name<I>()));
}

template <class F>
F checked_float(const nlohmann::json& j) {
  if (!j.is_number()) throw json_value_error(std::string("expected a number, found ") + j.type_name());
  const double f = j.get<double>();  // from an integer: in range of every floating type
  if constexpr (sizeof(F) < sizeof(double))
    if (std::isfinite(f) && std::fabs(f) > static_cast<double>(std::numeric_limits<F>::max()))
      throw json_value_error("the number " + j.dump() + " does not fit " + std::string(type_name<F>()));
  return static_cast<F>(f);
}

inline void expect(const nlohmann::json& j, bool ok, const char* what) {
  if (!ok) throw json_value_error(std::string("expected ") + what + ", found " + j.type_name());
}

template <class T>
T read_json_as(const nlohmann::json& j);

// A variant is stored as [index, value]: the index picks the alternative to read.
template <class V, std::size_t... I>
V read_variant(const nlohmann::json& j, std::index_sequence<I...>) {
  expect(j, j.is_array() && j.size() == 2, "[index, value] (a std::variant)");
  const auto k = checked_integer<std::size_t>(j[0]);
  if (k >= sizeof...(I))
    throw json_value_error("the variant index " + std::to_string(k) + " is out of range (" +
                           std::to_string(sizeof...(I)) + " alternatives)");
  using reader = V (*)(const nlohmann::json&);
  static constexpr reader readers[] = {
      +[](const nlohmann::json& v) { return V(std::in_place_index<I>, read_json_as<std::variant_alternative_t<I, V>>(v)); }...};
  return readers[k](j[1]);
}

template <class T, std::size_t... I>
T read_product(const nlohmann::json& j, std::index_sequence<I...>) {
  expect(j, j.is_array() && j.size() == sizeof...(I), "an array of the right length");
  if constexpr (is_std_array<T>)
    return T{read_json_as<typename T::value_type>(j[I])...};
  else
    return T(read_json_as<std::tuple_element_t<I, T>>(j[I])...);
}

// Reads `j` as a T: the codec's own types with every number checked, a user type through
// its from_json (whose integer fields the user checks; see sg::checked_get_to). Throws
// json_value_error or nlohmann's exceptions.
template <class T>
T read_json_as(const nlohmann::json& j) {
  if constexpr (std::is_same_v<T, nlohmann::json>) {
    return j;
  } else if constexpr (std::is_same_v<T, bool>) {
    expect(j, j.is_boolean(), "a boolean");
    return j.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    return checked_integer<T>(j);
  } else if constexpr (std::is_floating_point_v<T>) {
    return checked_float<T>(j);
  } else if constexpr (std::is_same_v<T, std::string>) {
    expect(j, j.is_string(), "a string");
    return j.get_ref<const std::string&>();
  } else if constexpr (std::is_same_v<T, std::monostate>) {
    expect(j, j.is_null(), "null");
    return {};
  } else if constexpr (is_assign<T>) {
    return T{read_json_as<decltype(T::value)>(j)};
  } else if constexpr (channel_wrapper<T>) {
    return T(read_json_as<typename T::value_type>(j));
  } else if constexpr (is_instance<T, std::optional>) {
    using U = typename T::value_type;
    if (j.is_null()) return std::nullopt;
    if constexpr (may_be_null<U>()) {
      expect(j, j.is_array() && j.size() == 1, "null or [value] (a std::optional of a value that may be null)");
      return T(read_json_as<U>(j[0]));
    } else {
      return T(read_json_as<U>(j));
    }
  } else if constexpr (is_instance<T, std::variant>) {
    return read_variant<T>(j, std::make_index_sequence<std::variant_size_v<T>>{});
  } else if constexpr (is_duration<T>) {
    return T(read_json_as<typename T::rep>(j));
  } else if constexpr (is_std_array<T> || is_product<T>) {
    return read_product<T>(j, std::make_index_sequence<std::tuple_size_v<T>>{});
  } else if constexpr (is_sequence<T>) {
    expect(j, j.is_array(), "an array");
    T out;
    if constexpr (requires { out.reserve(j.size()); }) out.reserve(j.size());
    for (const auto& e : j) out.push_back(read_json_as<typename T::value_type>(e));
    return out;
  } else if constexpr (is_set<T>) {
    expect(j, j.is_array(), "an array");
    T out;
    for (const auto& e : j) out.insert(read_json_as<typename T::value_type>(e));
    return out;
  } else if constexpr (is_map<T>) {
    T out;
    if constexpr (std::is_same_v<typename T::key_type, std::string>) {
      expect(j, j.is_object(), "an object");
      for (auto it = j.begin(); it != j.end(); ++it)
        out.emplace(it.key(), read_json_as<typename T::mapped_type>(it.value()));
    } else {  // as nlohmann writes maps of other keys: [key, value] pairs
      expect(j, j.is_array(), "an array of [key, value] pairs");
      for (const auto& e : j) {
        expect(e, e.is_array() && e.size() == 2, "a [key, value] pair");
        out.emplace(read_json_as<typename T::key_type>(e[0]), read_json_as<typename T::mapped_type>(e[1]));
      }
    }
    return out;
  } else {
    return j.template get<T>();
  }
}

template <class T>
void read_json(const nlohmann::json& j, T& out) {
  out = read_json_as<T>(j);
}

// ---- writing -----------------------------------------------------------------------------

// nlohmann's escaping for ASCII text; text with other bytes goes through nlohmann itself,
// which checks it is UTF-8 (and throws if not), so both write the same.
inline void write_json_string(std::string& out, std::string_view s) {
  // Characters that need no escape are appended in runs, not one by one: a whole value of
  // an append channel is mostly such text.
  const auto plain = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x80 && c != '"' && c != '\\';
  };
  std::size_t run = 0;
  while (run < s.size() && plain(s[run])) ++run;
  if (run < s.size())
    for (std::size_t k = run; k < s.size(); ++k)
      if (static_cast<unsigned char>(s[k]) >= 0x80) {
        out += nlohmann::json(s).dump();
        return;
      }
  out += '"';
  out.append(s.data(), run);
  for (std::size_t k = run; k < s.size();) {
    const char c = s[k++];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {  // the other control characters
        static constexpr char hex[] = "0123456789abcdef";
        out += "\\u00";
        out += hex[(c >> 4) & 15];
        out += hex[c & 15];
      }
    }
    const std::size_t from = k;
    while (k < s.size() && plain(s[k])) ++k;
    out.append(s.data() + from, k - from);
  }
  out += '"';
}

template <class I>
void write_json_integer(std::string& out, I v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

template <class T>
void write_json(std::string& out, const T& v);

template <class... T>
void write_json_parts(std::string& out, const T&... parts) {
  out += '[';
  bool first = true;
  ((out += first ? "" : ",", first = false, write_json(out, parts)), ...);
  out += ']';
}

// Appends the JSON text of `v` to `out`, the text json_document(v).dump() makes (in the
// order an unordered container iterates).
template <class T>
void write_json(std::string& out, const T& v) {
  if constexpr (std::is_same_v<T, nlohmann::json>) {
    out += v.dump();
  } else if constexpr (std::is_same_v<T, bool>) {
    out += v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    write_json_integer(out, v);
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
    write_json_string(out, v);
  } else if constexpr (std::is_same_v<T, std::monostate>) {
    out += "null";
  } else if constexpr (is_assign<T>) {
    write_json(out, v.value);
  } else if constexpr (channel_wrapper<T>) {
    write_json(out, v.value());
  } else if constexpr (is_instance<T, std::optional>) {
    if (!v)
      out += "null";
    else if constexpr (may_be_null<typename T::value_type>())
      write_json_parts(out, *v);
    else
      write_json(out, *v);
  } else if constexpr (is_instance<T, std::variant>) {
    out += '[';
    write_json_integer(out, v.index());
    out += ',';
    std::visit([&](const auto& alternative) { write_json(out, alternative); }, v);
    out += ']';
  } else if constexpr (is_duration<T>) {
    write_json(out, v.count());
  } else if constexpr (is_sequence<T> || is_std_array<T> || is_set<T>) {
    out += '[';
    bool first = true;
    for (const auto& e : v) {
      if (!first) out += ',';
      first = false;
      write_json(out, static_cast<const typename T::value_type&>(e));  // std::vector<bool>: a bool
    }
    out += ']';
  } else if constexpr (is_map<T>) {
    const bool object = std::is_same_v<typename T::key_type, std::string>;
    out += object ? '{' : '[';
    bool first = true;
    for (const auto& [key, value] : v) {
      if (!first) out += ',';
      first = false;
      if constexpr (object) {
        write_json_string(out, key);
        out += ':';
        write_json(out, value);
      } else {
        write_json_parts(out, key, value);
      }
    }
    out += object ? '}' : ']';
  } else if constexpr (is_product<T>) {
    std::apply([&](const auto&... parts) { write_json_parts(out, parts...); }, v);
  } else {  // floating point numbers (nlohmann's formatting) and user types
    out += nlohmann::json(v).dump();
  }
}

// The elements of a sequence from index `from` on, as one JSON array.
template <class Seq>
void write_json_tail(std::string& out, const Seq& v, std::size_t from) {
  out += '[';
  for (std::size_t k = from; k < v.size(); ++k) {
    if (k != from) out += ',';
    write_json(out, static_cast<const typename Seq::value_type&>(v[k]));
  }
  out += ']';
}

// The JSON text of `v` on its own: an interrupt's payload, an answer to one.
template <class T>
std::string json_text(const T& v) {
  std::string out;
  write_json(out, v);
  return out;
}

// The same value as a JSON document: what the pending writes hold, and what a user type's
// to_json builds from its members (sg::to_json_value).
template <class T>
nlohmann::json json_document(const T& v) {
  if constexpr (std::is_same_v<T, nlohmann::json>) {
    return v;
  } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
    return nlohmann::json(v);
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    return nlohmann::json(std::string(v));
  } else if constexpr (std::is_same_v<T, std::monostate>) {
    return nullptr;
  } else if constexpr (is_assign<T>) {
    return json_document(v.value);
  } else if constexpr (channel_wrapper<T>) {
    return json_document(v.value());
  } else if constexpr (is_instance<T, std::optional>) {
    if (!v) return nullptr;
    if constexpr (may_be_null<typename T::value_type>()) {
      nlohmann::json one = nlohmann::json::array();
      one.push_back(json_document(*v));
      return one;
    } else {
      return json_document(*v);
    }
  } else if constexpr (is_instance<T, std::variant>) {
    nlohmann::json pair = nlohmann::json::array();
    pair.push_back(v.index());
    std::visit([&](const auto& alternative) { pair.push_back(json_document(alternative)); }, v);
    return pair;
  } else if constexpr (is_duration<T>) {
    return nlohmann::json(v.count());
  } else if constexpr (is_sequence<T> || is_std_array<T> || is_set<T>) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& e : v) arr.push_back(json_document(static_cast<const typename T::value_type&>(e)));
    return arr;
  } else if constexpr (is_map<T>) {
    if constexpr (std::is_same_v<typename T::key_type, std::string>) {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& [key, value] : v) obj[key] = json_document(value);
      return obj;
    } else {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& [key, value] : v) arr.push_back(nlohmann::json::array({json_document(key), json_document(value)}));
      return arr;
    }
  } else if constexpr (is_product<T>) {
    nlohmann::json arr = nlohmann::json::array();
    std::apply([&](const auto&... parts) { (arr.push_back(json_document(parts)), ...); }, v);
    return arr;
  } else {
    return nlohmann::json(v);
  }
}

}  // namespace detail

// A type a checkpoint can store: one of the codec's own (above), or a type with nlohmann's
// to_json and from_json. What SG013 requires of every value a checkpointed graph stores.
template <class T>
concept json_codable = detail::codable<T>();

// For a user type's to_json: the value as the codec writes it, for the members nlohmann
// 3.11.2 cannot write itself (std::optional, std::variant, durations).
template <class T>
nlohmann::json to_json_value(const T& v) {
  return detail::json_document(v);
}

// For a user type's from_json over stored data: reads `j` into `out` with the checks the
// codec applies to its own numbers (a stored 1e300 into an int field is refused with
// sg::checkpoint_error instead of being undefined behaviour), and the codec's own types
// (std::optional, std::variant, durations) nlohmann 3.11.2 cannot read itself.
template <class T>
void checked_get_to(const nlohmann::json& j, T& out) {
  detail::read_json(j, out);
}

}  // namespace stategraph
