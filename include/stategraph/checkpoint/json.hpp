// The JSON codec of the checkpoint format (opt-in; the core never includes nlohmann_json).
// Values are coded by checkpoint/json_values.hpp; user value types use nlohmann's own
// to_json/from_json (or its NLOHMANN_DEFINE_TYPE macros). A checkpointed graph that stores a
// value without a codec does not compile (SG013, in rules/codec.hpp).
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/checkpoint/json_values.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/errors.hpp>
#include <stategraph/node.hpp>
#include <stategraph/rules/codec.hpp>
#include <stategraph/schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wundefined-var-template"
#endif

namespace stategraph {

namespace detail {

using rules::check_codecs;
using rules::check_graph_codecs;

// FNV-1a over each channel's name, field type and reducer: two builds agree on a
// checkpoint exactly when they agree on the schema.
constexpr std::uint64_t fnv1a(std::uint64_t h, std::string_view s) {
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

template <class S>
std::vector<std::pair<std::string_view, std::string_view>> schema_fields() {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    out.emplace_back(channel_name_at<S, I>(), type_name<field_type_t<S, I>>());
  });
  return out;
}

}  // namespace detail

// How deep stored JSON may nest arrays and objects. Decoding recurses once per level
// (nlohmann's conversions, a user type's from_json), so a deeper document from a corrupt or
// hostile store could overflow the stack; it is refused before it is parsed. Set it before
// runs start if values legitimately nest deeper (each level costs a few hundred bytes of
// stack when decoded).
inline constexpr std::size_t default_max_json_depth = 512;
inline std::atomic<std::size_t> max_json_depth{default_max_json_depth};

template <class S>
constexpr std::uint64_t schema_hash_value() {
  std::uint64_t h = 14695981039346656037ull;
  detail::for_each_index<channel_count<S>>([&]<std::size_t I>() {
    h = detail::fnv1a(h, channel_name_at<S, I>());
    h = detail::fnv1a(h, ":");
    h = detail::fnv1a(h, detail::type_name<field_type_t<S, I>>());
    h = detail::fnv1a(h, ";");
  });
  return h;
}

template <class S>
std::string schema_hash() {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  std::uint64_t h = schema_hash_value<S>();
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = digits[h & 15];
  return out;
}

namespace detail {

// The schema depends only on the type: its hash and its list (`[[name, type], ...]`, what
// an error names when another build's schema differs) are made once per state type.
template <class S>
const std::string& schema_hash_text() {
  static const std::string hash = schema_hash<S>();
  return hash;
}
template <class S>
const std::string& schema_list_text() {
  static const std::string text = [] {
    nlohmann::json fields = nlohmann::json::array();
    for (const auto& field : schema_fields<S>()) fields.push_back({field.first, field.second});
    return fields.dump();
  }();
  return text;
}

// True if `text` nests arrays and objects more than `limit` deep. Exact on valid JSON, and
// on invalid JSON up to where nlohmann's parser stops, so a text that passes never builds
// a deeper document.
inline bool nests_deeper_than(std::string_view text, std::size_t limit) noexcept {
  // 1 opens, 2 closes, 3 starts a string; 0 (anything else) is skipped with one test.
  static constexpr auto kinds = [] {
    std::array<unsigned char, 256> k{};
    k['['] = k['{'] = 1;
    k[']'] = k['}'] = 2;
    k['"'] = 3;
    return k;
  }();
  std::size_t depth = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p != end) {
    const unsigned char kind = kinds[static_cast<unsigned char>(*p++)];
    if (kind == 0) continue;
    if (kind == 1) {
      if (++depth > limit) return true;
    } else if (kind == 2) {
      if (depth != 0) --depth;
    } else {  // a string: to its closing quote, stepping over escapes
      while (p != end) {
        const char c = *p++;
        if (c == '"') break;
        if (c == '\\' && p != end) ++p;
      }
    }
  }
  return false;
}

// A stored JSON text, or a discarded value if it is not valid JSON or nests too deep.
inline nlohmann::json parse_stored(std::string_view text) {
  if (nests_deeper_than(text, max_json_depth.load(std::memory_order_relaxed)))
    return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

inline nlohmann::json parse_or_throw(std::string_view text, std::string_view what) {
  const std::size_t limit = max_json_depth.load(std::memory_order_relaxed);
  if (nests_deeper_than(text, limit))
    throw checkpoint_error("stategraph: checkpoint data for " + std::string(what) + " nests deeper than " +
                           std::to_string(limit) + " levels (sg::max_json_depth); nothing was loaded");
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw checkpoint_error("stategraph: checkpoint data for " + std::string(what) +
                           " is not valid JSON (truncated or corrupted); nothing was loaded");
  return j;
}

// Decodes a stored value, numbers checked (json_values.hpp); a user type decodes through
// its own from_json. Anything that does not fit is a checkpoint_error.
template <class T>
T decode_value(const nlohmann::json& j, std::string_view what) {
  auto refuse = [&](const char* why) {
    return checkpoint_error("stategraph: checkpoint value of " + std::string(what) + " does not decode: " + why);
  };
  try {
    return read_json_as<T>(j);
  } catch (const nlohmann::json::exception& e) {
    throw refuse(e.what());
  } catch (const json_value_error& e) {
    throw refuse(e.what());
  }
}

// The elements of a JSON array text, without its brackets; nullopt if it is not `[...]`.
inline std::optional<std::string_view> array_elements(std::string_view text) {
  constexpr std::string_view space = " \t\r\n";
  const auto first = text.find_first_not_of(space);
  const auto last = text.find_last_not_of(space);
  if (first == std::string_view::npos || text[first] != '[' || text[last] != ']' || last == first) return std::nullopt;
  text = text.substr(first + 1, last - first - 1);
  const auto inner = text.find_first_not_of(space);
  if (inner == std::string_view::npos) return std::string_view{};
  return text.substr(inner, text.find_last_not_of(space) - inner + 1);
}

// A whole array value and the pieces appended to it as one array text, so the channel is
// parsed once however many pieces it has; false if a text is not an array.
inline bool splice_arrays(std::string_view value, const std::vector<std::string>& pieces, std::string& out) {
  auto head = array_elements(value);
  if (!head) return false;
  std::size_t size = value.size();
  for (const auto& p : pieces) size += p.size() + 1;
  out.clear();
  out.reserve(size);
  out += '[';
  out += *head;
  bool any = !head->empty();
  for (const auto& p : pieces) {
    auto more = array_elements(p);
    if (!more) return false;
    if (more->empty()) continue;
    if (any) out += ',';
    out += *more;
    any = true;
  }
  out += ']';
  return true;
}

// Reads the elements of JSON array texts onto the end of a sequence one element at a time
// (nlohmann's SAX interface): each element is built as a small document of its own, decoded
// and dropped, so a long channel is never held as one whole document beside its decoded
// value, and the memory an element used is reused by the next. read() is false (the
// sequence partly extended) if the text is not JSON, not an array or nests deeper than the
// limit; an element that does not decode throws. Either way the caller takes the document
// path, whose error says what is wrong.
template <class V>
class element_reader {
  using json = nlohmann::json;

 public:
  element_reader(V& out, std::size_t limit) : out_(out), limit_(limit) {}

  bool read(std::string_view text) {
    depth_ = 0;
    stack_.clear();
    return json::sax_parse(text.data(), text.data() + text.size(), this);
  }

  // The SAX interface.
  bool null() { return value(json(nullptr)); }
  bool boolean(bool b) { return value(json(b)); }
  bool number_integer(json::number_integer_t n) { return value(json(n)); }
  bool number_unsigned(json::number_unsigned_t n) { return value(json(n)); }
  bool number_float(json::number_float_t f, const json::string_t&) { return value(json(f)); }
  bool string(json::string_t& s) {
    if (reusing_ && stack_.size() == 1 && slot_->is_string()) {
      slot_->get_ref<json::string_t&>() = s;  // into the kept member's buffer
      return true;
    }
    return value(json(s));
  }
  bool binary(json::binary_t&) { return false; }  // not in JSON text
  bool start_object(std::size_t) { return open(json::value_t::object); }
  bool start_array(std::size_t) { return open(json::value_t::array); }
  bool key(json::string_t& k) {
    slot_ = &(*stack_.back())[k];  // a repeated key: the last one wins, as in a parsed document
    if (reusing_ && stack_.size() == 1) touched_.push_back(slot_);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  // An element that is an object keeps its members' nodes and buffers for the next element
  // (a channel's elements mostly have the same members): the next object element assigns
  // into them, and the members it does not name are erased before it is decoded.
  static constexpr std::size_t kept_members = 16;

  // depth_ counts the open arrays and objects, the outer array being the first (as
  // nests_deeper_than counts them); stack_ holds those of the element being built.
  bool open(json::value_t kind) {
    if (++depth_ > limit_) return false;
    if (depth_ == 1) return kind == json::value_t::array;
    if (depth_ == 2) {
      reusing_ = kind == json::value_t::object && element_.is_object();
      if (reusing_) {
        touched_.clear();
        stack_.push_back(&element_);
        return true;
      }
    }
    stack_.push_back(place(json(kind)));
    return true;
  }
  bool close() {
    --depth_;
    if (depth_ == 0) return true;  // the outer array
    stack_.pop_back();
    if (stack_.empty()) {
      if (reusing_) drop_untouched();
      take(element_);
    }
    return true;
  }
  void drop_untouched() {
    std::sort(touched_.begin(), touched_.end());
    for (auto it = element_.begin(); it != element_.end();)
      if (std::binary_search(touched_.begin(), touched_.end(), &it.value()))
        ++it;
      else
        it = element_.erase(it);
  }
  bool value(json&& v) {
    if (depth_ == 0) return false;  // a scalar where the array should be
    if (depth_ == 1)
      take(v);
    else
      (void)place(std::move(v));
    return true;
  }
  json* place(json&& v) {
    if (stack_.empty()) {
      element_ = std::move(v);
      return &element_;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }
  void take(json& element) {
    out_.push_back(read_json_as<typename V::value_type>(element));
    if (!element.is_object() || element.size() > kept_members) element = nullptr;  // its memory back now
  }

  V& out_;
  std::size_t limit_;
  std::size_t depth_ = 0;
  std::vector<json*> stack_;
  json element_;
  json* slot_ = nullptr;
  bool reusing_ = false;         // element_ is an object kept from the element before
  std::vector<json*> touched_;  // its members this element named
};

// Decodes channel I from its stored value and append pieces into `state`.
template <class S, std::size_t I>
void decode_channel(S& state, std::string_view value, const std::vector<std::string>& appends) {
  using F = field_type_t<S, I>;
  using V = typename channel_traits<F>::value_type;
  constexpr std::string_view name = channel_name_at<S, I>();
  if constexpr (appends_only<F> && is_sequence<V>) {
    // Element by element; anything wrong is left to the document path below to name.
    // The pieces are spliced into one text first: one parser for many short texts.
    bool whole = false;
    V v;
    try {
      element_reader<V> reader(v, max_json_depth.load(std::memory_order_relaxed));
      std::string spliced;
      if (appends.empty())
        whole = reader.read(value);
      else
        whole = splice_arrays(value, appends, spliced) && reader.read(spliced);
    } catch (...) {
      whole = false;
    }
    if (whole) {
      channel_traits<F>::value(detail::field<I>(state)) = std::move(v);
      return;
    }
  }
  if constexpr (appends_only<F>) {
    // One parse of the spliced text; if it is refused, each text alone names what is wrong.
    std::string whole;
    if (!appends.empty() && splice_arrays(value, appends, whole)) {
      auto j = parse_stored(whole);  // too deep or not JSON: the texts alone say which
      if (!j.is_discarded()) {
        channel_traits<F>::value(detail::field<I>(state)) = decode_value<V>(j, name);
        return;
      }
    }
  }
  V v = decode_value<V>(parse_or_throw(value, name), name);
  if constexpr (appends_only<F>) {
    for (const auto& piece : appends) {
      auto more = decode_value<V>(parse_or_throw(piece, name), name);
      v.insert(v.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
  } else if (!appends.empty()) {
    throw checkpoint_error("stategraph: channel '" + std::string(name) +
                           "' has append pieces but is not an append channel");
  }
  channel_traits<F>::value(detail::field<I>(state)) = std::move(v);
}

// ---- node results (kept as pending writes when a step fails or pauses) -----------------

// A patch as a JSON array, one element per entry. An entry that may be absent (a subgraph's
// maybe_write) is coded as the std::optional it holds: null when absent.
template <class... E>
nlohmann::json encode_patch(const patch<E...>& p) {
  nlohmann::json arr = nlohmann::json::array();
  std::apply([&](const auto&... e) { (arr.push_back(json_document(e.value)), ...); }, p.entries);
  return arr;
}

template <class... E>
patch<E...> decode_patch(const nlohmann::json& arr) {
  if (!arr.is_array() || arr.size() != sizeof...(E))
    throw checkpoint_error("stategraph: a pending write does not match its node's patch");
  patch<E...> p{};
  std::size_t k = 0;
  std::apply(
      [&](auto&... e) {
        ((e.value = decode_value<std::remove_cvref_t<decltype(e.value)>>(arr[k++], "a pending write")), ...);
      },
      p.entries);
  return p;
}

template <class P>
struct patch_decoder;
template <class... E>
struct patch_decoder<patch<E...>> {
  static patch<E...> decode(const nlohmann::json& j) { return decode_patch<E...>(j); }
};
template <class P>
P decode_patch_as(const nlohmann::json& j) {
  return patch_decoder<P>::decode(j);
}

template <class Go>
nlohmann::json encode_go(const Go& g) {
  return g.mask();
}
template <class... Ts>
go<Ts...> decode_go(const nlohmann::json& j, go<Ts...>*) {
  const auto mask = decode_value<std::uint64_t>(j, "a command's target");
  std::optional<go<Ts...>> out;
  std::size_t k = 0;
  ((((mask >> k++) & 1u) && !out ? (void)out.emplace(to<Ts>) : void()), ...);
  if (!out) throw checkpoint_error("stategraph: a pending write names no target");
  return *out;
}
template <class... Ts>
go_all<Ts...> decode_go(const nlohmann::json& j, go_all<Ts...>*) {
  const auto mask = decode_value<std::uint64_t>(j, "a command's targets");
  go_all<Ts...> out;
  std::size_t k = 0;
  ((((mask >> k++) & 1u) ? (void)out.add(to<Ts>) : void()), ...);
  return out;
}

}  // namespace detail

}  // namespace stategraph

#if defined(__clang__)
#pragma clang diagnostic pop
#endif
