// Values to and from checkpoint JSON, for the types the codec knows itself: numbers, bool,
// std::string and the standard containers of those. Everything else goes through
// nlohmann's own to_json/from_json (the user's codec).
//
// Reading: nlohmann's get<int>() converts a stored float with static_cast, which is
// undefined behaviour when the float is out of the integer's range (1e300) and silently
// truncates 3.5; an integer out of range (2^40 into int) wraps. Stored data is untrusted, so
// numbers are checked here first: an integer field takes only an integer that fits (or a
// float that is exactly one), anything else is refused with checkpoint_error.
//
// Writing: the hot path of every checkpoint writes the changed values straight into a
// buffer the runner reuses, the same text nlohmann's dump() writes, without building a
// JSON document first.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/errors.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
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
inline constexpr bool is_sequence = is_instance<T, std::vector> || is_instance<T, std::deque>;
template <class T>
inline constexpr bool is_set = is_instance<T, std::set> || is_instance<T, std::multiset>;
template <class T>
inline constexpr bool is_map = is_instance<T, std::map> || is_instance<T, std::unordered_map>;

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
void read_json(const nlohmann::json& j, T& out);

template <class T>
T read_json_as(const nlohmann::json& j) {
  T v{};
  read_json(j, v);
  return v;
}

template <class K>
inline constexpr bool map_key_reads_itself = std::is_same_v<K, std::string> || std::is_arithmetic_v<K>;

// Containers whose elements can be made empty first; the rest are left to nlohmann.
template <class T>
constexpr bool reads_itself() {
  if constexpr (std::is_same_v<T, bool> || std::is_arithmetic_v<T>)
    return true;
  else if constexpr (is_sequence<T> || is_set<T> || is_std_array<T>)
    return std::is_default_constructible_v<typename T::value_type>;
  else if constexpr (is_map<T>)
    return map_key_reads_itself<typename T::key_type> && std::is_default_constructible_v<typename T::mapped_type>;
  else if constexpr (is_instance<T, std::pair>)
    return std::is_default_constructible_v<typename T::first_type> &&
           std::is_default_constructible_v<typename T::second_type>;
  else
    return false;
}

// Reads `j` into `out` as nlohmann's from_json would for these types, with the numbers
// checked; other types use their own from_json (whose integer fields the user checks; see
// sg::checked_get_to). Throws checkpoint_error or nlohmann's exceptions.
template <class T>
void read_json(const nlohmann::json& j, T& out) {
  if constexpr (!reads_itself<T>()) {
    out = j.template get<T>();
  } else if constexpr (std::is_same_v<T, bool>) {
    expect(j, j.is_boolean(), "a boolean");
    out = j.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    out = checked_integer<T>(j);
  } else if constexpr (std::is_floating_point_v<T>) {
    out = checked_float<T>(j);
  } else if constexpr (is_std_array<T>) {
    expect(j, j.is_array() && j.size() == out.size(), "an array of the right length");
    for (std::size_t k = 0; k < out.size(); ++k) read_json(j[k], out[k]);
  } else if constexpr (is_sequence<T>) {
    expect(j, j.is_array(), "an array");
    out.clear();
    if constexpr (requires { out.reserve(j.size()); }) out.reserve(j.size());
    for (const auto& e : j) out.push_back(read_json_as<typename T::value_type>(e));
  } else if constexpr (is_set<T>) {
    expect(j, j.is_array(), "an array");
    out.clear();
    for (const auto& e : j) out.insert(read_json_as<typename T::value_type>(e));
  } else if constexpr (is_map<T>) {
    out.clear();
    if constexpr (std::is_same_v<typename T::key_type, std::string>) {
      expect(j, j.is_object(), "an object");
      for (auto it = j.begin(); it != j.end(); ++it)
        out.emplace(it.key(), read_json_as<typename T::mapped_type>(it.value()));
    } else {  // nlohmann writes maps of other keys as [key, value] pairs
      expect(j, j.is_array(), "an array of [key, value] pairs");
      for (const auto& e : j) {
        expect(e, e.is_array() && e.size() == 2, "a [key, value] pair");
        out.emplace(read_json_as<typename T::key_type>(e[0]), read_json_as<typename T::mapped_type>(e[1]));
      }
    }
  } else {  // std::pair
    expect(j, j.is_array() && j.size() == 2, "a pair");
    read_json(j[0], out.first);
    read_json(j[1], out.second);
  }
}

// ---- writing -----------------------------------------------------------------------------

// nlohmann's escaping for ASCII text; text with other bytes goes through nlohmann itself,
// which checks it is UTF-8 (and throws if not), so both write the same.
inline void write_json_string(std::string& out, std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) {
      out += nlohmann::json(s).dump();
      return;
    }
  out += '"';
  for (char c : s) {
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
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char hex[] = "0123456789abcdef";
          out += "\\u00";
          out += hex[(c >> 4) & 15];
          out += hex[c & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

template <class I>
void write_json_integer(std::string& out, I v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Appends the JSON text of `v` to `out`: the text nlohmann::json(v).dump() makes.
template <class T>
void write_json(std::string& out, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    out += v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    write_json_integer(out, v);
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
    write_json_string(out, v);
  } else if constexpr (is_sequence<T> || is_std_array<T>) {
    out += '[';
    bool first = true;
    for (const auto& e : v) {
      if (!first) out += ',';
      first = false;
      write_json(out, static_cast<const typename T::value_type&>(e));
    }
    out += ']';
  } else {
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

}  // namespace detail

// For a user type's from_json over stored data: reads `j` into `out` with the checks the
// codec applies to its own numbers (a stored 1e300 into an int field is refused with
// sg::checkpoint_error instead of being undefined behaviour).
template <class T>
void checked_get_to(const nlohmann::json& j, T& out) {
  detail::read_json(j, out);
}

}  // namespace stategraph
