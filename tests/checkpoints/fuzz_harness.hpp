// The checkpoint decoder's fuzz harness, shared by the seeded mutation test and the
// libFuzzer target. It builds, once, threads in every shape the load path reads (a finished
// run; a failed step with kept writes, a command's goto and pending sends; a step paused by
// a node with two interrupts, one answered; a static pause with a half-arrived join and
// queued sends), then feeds mutated copies of their stored text through every entry point:
// get_state, history, resume, resume(value), invoke, forks and update_state. The only
// acceptable outcomes are success and an sg::error.
//
// What to mutate and how is read from a byte source: random bytes for the seeded test, the
// fuzzer's input for libFuzzer, so both drive the same code.
#pragma once

#include "fixtures.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuzz {

namespace sg = stategraph;
using durable_test::tampering_store;

struct Item {
  std::string name;
  int qty = 0;
  double price = 0;
  bool flag = false;
};
// A user type's from_json decides how it reads numbers: the NLOHMANN_DEFINE_TYPE macros
// convert a stored 1e300 into `qty` with a static_cast (undefined behaviour), so stored data
// that may be corrupted is read with sg::checked_get_to, which refuses it.
inline void to_json(nlohmann::json& j, const Item& i) {
  j = nlohmann::json{{"name", i.name}, {"qty", i.qty}, {"price", i.price}, {"flag", i.flag}};
}
inline void from_json(const nlohmann::json& j, Item& i) {
  sg::checked_get_to(j.at("name"), i.name);
  sg::checked_get_to(j.at("qty"), i.qty);
  sg::checked_get_to(j.at("price"), i.price);
  sg::checked_get_to(j.at("flag"), i.flag);
}

// Adds like sg::sum, wrapping around: corrupted counts (INT_MAX, say) reach the nodes'
// arithmetic, and signed overflow there would be the harness's undefined behaviour, not
// the decoder's.
struct wrapping_sum {
  int operator()(int a, int b) const { return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b)); }
};

struct Fz {
  sg::append<Item> items;
  sg::reduced<int, wrapping_sum> count;
  sg::counter<double> weight;
  std::string label;
  std::map<std::string, int> tags;
  sg::append<std::string> log;
  std::vector<std::int64_t> numbers;
  sg::bounded<int, 3> recent;
};

// What the nodes do this run (set before each run that builds a thread).
struct modes {
  bool fail_a = false;
  bool ask_b = false;
};
inline modes mode;

struct worker_a;
struct worker_b;
struct sender;
struct collector;
struct extra;
struct merge;

struct seed {
  using reads = sg::reads<>;
  using writes = sg::writes<&Fz::items, &Fz::count, &Fz::label, &Fz::tags, &Fz::recent>;
  auto operator()(sg::view<Fz, reads>) const {
    return sg::write<&Fz::items>(std::vector<Item>{{"apple", 3, 0.5, true}, {"pear \"x\"\n", -2, 1e-3, false}}) |
           sg::write<&Fz::count>(2) | sg::write<&Fz::label>(std::string("seeded \xc3\xa9")) |
           sg::write<&Fz::tags>(std::map<std::string, int>{{"a", 1}, {"b", -7}}) | sg::write<&Fz::recent>(9);
  }
};
struct worker_a {
  using reads = sg::reads<&Fz::count>;
  using writes = sg::writes<&Fz::numbers, &Fz::weight, &Fz::recent>;
  auto operator()(sg::view<Fz, reads> in) const {
    if (mode.fail_a) throw std::runtime_error("worker_a failed");
    return sg::write<&Fz::numbers>(std::vector<std::int64_t>{in.get<&Fz::count>(), -1, 1LL << 40}) |
           sg::write<&Fz::weight>(2.25) | sg::write<&Fz::recent>(std::vector<int>{1, 2});
  }
};
// A command to `extra`; asks two questions when mode.ask_b.
struct worker_b {
  using reads = sg::reads<&Fz::label>;
  using writes = sg::writes<&Fz::log, &Fz::tags>;
  using goes = sg::goes<extra>;
  auto operator()(sg::view<Fz, reads> in) const {
    std::string answer = "none";
    int n = 0;
    if (mode.ask_b) {
      answer = sg::interrupt<std::string>(nlohmann::json{{"question", "name?"}, {"label", in.get<&Fz::label>()}});
      n = sg::interrupt<int>(std::vector<int>{1, 2, 3});
    }
    return sg::command{sg::write<&Fz::log>("b:" + answer + ":" + std::to_string(n)) |
                           sg::write<&Fz::tags>(std::map<std::string, int>{{"b", n}}),
                       sg::to<extra>};
  }
};
struct sender {
  using reads = sg::reads<&Fz::items>;
  using sends = sg::sends<collector>;
  std::vector<sg::send_to<collector, Item>> operator()(sg::view<Fz, reads> in) const {
    std::vector<sg::send_to<collector, Item>> out;
    for (const auto& item : in.get<&Fz::items>()) out.push_back(sg::send<collector>(item));
    return out;
  }
};
struct collector {
  using writes = sg::writes<&Fz::log, &Fz::count>;
  auto operator()(sg::view<Fz, sg::reads<>>, const Item& item) const {
    return sg::write<&Fz::log>("got " + item.name) | sg::write<&Fz::count>(item.qty);
  }
};
struct extra {
  using reads = sg::reads<>;
  using writes = sg::writes<&Fz::log>;
  auto operator()(sg::view<Fz, reads>) const { return sg::write<&Fz::log>(std::string("extra")); }
};
struct merge {
  using reads = sg::reads<&Fz::log, &Fz::count>;
  using writes = sg::writes<&Fz::label>;
  auto operator()(sg::view<Fz, reads> in) const {
    return sg::write<&Fz::label>("merged " + std::to_string(in.get<&Fz::log>().size()) + " " +
                                 std::to_string(in.get<&Fz::count>()));
  }
};

// Step 1 seed; 2 worker_a, worker_b, sender; 3 extra and one collector per item;
// 4 merge (a join of worker_a and extra, which ran in different steps).
using graph =
    sg::graph<Fz, sg::edge<sg::start, seed>, sg::edge<seed, worker_a>, sg::edge<seed, worker_b>, sg::edge<seed, sender>,
              sg::join<merge, worker_a, extra>, sg::edge<collector, sg::end>, sg::edge<merge, sg::end>>;

// ---- byte sources ----------------------------------------------------------------------

class random_source {
 public:
  explicit random_source(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t below(std::uint64_t bound) { return bound == 0 ? 0 : rng_() % bound; }

 private:
  std::mt19937_64 rng_;
};

// Reads choices from the fuzzer's input; zeros once it runs out.
class byte_source {
 public:
  byte_source(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint64_t below(std::uint64_t bound) {
    if (bound == 0) return 0;
    std::uint64_t v = 0;
    for (std::uint64_t reach = 1; reach < bound && reach != 0; reach <<= 8) v = (v << 8) | next_byte();
    return v % bound;
  }

 private:
  std::uint8_t next_byte() { return at_ < size_ ? data_[at_++] : 0; }
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// ---- mutations -------------------------------------------------------------------------

// `depth` arrays inside each other around `inner`.
inline nlohmann::json nested(std::size_t depth, nlohmann::json inner = 1) {
  for (std::size_t k = 0; k < depth; ++k) inner = nlohmann::json::array({std::move(inner)});
  return inner;
}

template <class Source>
nlohmann::json odd_value(Source& src) {
  switch (src.below(23)) {
    case 0:
      return nullptr;
    case 1:
      return true;
    case 2:
      return -1;
    case 3:
      return 2147483648LL;
    case 4:
      return std::numeric_limits<std::int64_t>::min();
    case 5:
      return std::numeric_limits<std::uint64_t>::max();
    case 6:
      return 0.5;
    case 7:
      return -0.0;
    case 8:
      return "";
    case 9:
      return "ghost";
    case 10:
      return nlohmann::json::array();
    case 11:
      return nlohmann::json::object();
    case 12:
      return nlohmann::json::array({nullptr, "x", 1});
    case 13:
      return nlohmann::json{{"role", 1}};
    case 14:
      return 4294967295LL;
    case 15:  // numbers no integer type holds
      return 1e300;
    case 16:
      return -1e19;
    case 17:
      return 3e9;
    case 18:  // numbers at the edge of int64_t: one more is overflow
      return std::numeric_limits<std::int64_t>::max();
    case 19:
      return std::numeric_limits<std::int64_t>::max() - 1;
    case 20:  // nesting past sg::max_json_depth, and within it
      return nested(600);
    case 21:
      return nested(40);
    default:
      return 65;
  }
}

// Edits a random node of a JSON tree: replace, delete, duplicate or add.
template <class Source>
void mutate_tree(nlohmann::json& j, Source& src, int depth = 0) {
  const bool descend = (j.is_array() || j.is_object()) && !j.empty() && src.below(3) != 0 && depth < 12;
  if (descend) {
    auto index = src.below(j.size());
    auto it = j.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(index));
    mutate_tree(*it, src, depth + 1);
    return;
  }
  switch (src.below(6)) {
    case 0:
      j = odd_value(src);
      break;
    case 1:
      if (j.is_array() && !j.empty())
        j.erase(j.begin() + static_cast<std::ptrdiff_t>(src.below(j.size())));
      else if (j.is_object() && !j.empty()) {
        auto it = j.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(src.below(j.size())));
        j.erase(it.key());
      } else
        j = odd_value(src);
      break;
    case 2:
      if (j.is_array() && !j.empty())
        j.push_back(j[static_cast<std::size_t>(src.below(j.size()))]);
      else if (j.is_object())
        j["unexpected"] = odd_value(src);
      else
        j = nlohmann::json::array({j});
      break;
    case 3:
      if (j.is_number_integer())  // nudged by -2..2, wrapping (signed overflow would be UB here)
        j = static_cast<std::int64_t>(static_cast<std::uint64_t>(j.get<std::int64_t>()) + src.below(5) - 2);
      else if (j.is_string())
        j = j.get<std::string>() + "x";
      else
        j = odd_value(src);
      break;
    case 4:
      j = nlohmann::json::array({odd_value(src), odd_value(src)});
      break;
    default:
      j = nlohmann::json::object({{"k", odd_value(src)}});
      break;
  }
}

// Edits the text: byte flips, truncation, insertion, deletion, or a JSON-aware edit.
template <class Source>
std::string mutate_text(const std::string& text, Source& src) {
  std::string out = text;
  const auto rounds = 1 + src.below(3);
  for (std::uint64_t r = 0; r < rounds; ++r) {
    const auto pos = static_cast<std::size_t>(src.below(out.size() + 1));
    switch (src.below(9)) {
      case 0:
        if (!out.empty()) out[pos % out.size()] = static_cast<char>(out[pos % out.size()] ^ (1 << src.below(8)));
        break;
      case 1:
        out.resize(pos);
        break;
      case 2: {
        static constexpr char interesting[] = "{}[]\",:-+.eE0123456789\\nul\x00\xff\x80";
        out.insert(pos, 1, interesting[src.below(sizeof interesting - 1)]);
        break;
      }
      case 3:
        out.erase(pos, static_cast<std::size_t>(src.below(8)));
        break;
      case 4:
        out.insert(pos, std::string(static_cast<std::size_t>(1 + src.below(64)), '['));
        break;
      case 5: {  // valid JSON nested deep: within sg::max_json_depth, just past it, far past it
        static constexpr std::size_t depths[] = {2, 511, 513, 4096, 200'000};
        const std::size_t d = depths[src.below(std::size(depths))];
        out = std::string(d, '[') + out + std::string(d, ']');
        break;
      }
      default: {
        // The harness's own edit recurses (dump): far past the limit, it edits the text instead.
        auto j = sg::detail::nests_deeper_than(out, 1000) ? nlohmann::json(nlohmann::json::value_t::discarded)
                                                           : nlohmann::json::parse(out, nullptr, false);
        if (j.is_discarded()) {
          out.insert(pos, "\"\\u0000\"");
        } else {
          mutate_tree(j, src);
          out = j.dump();
        }
        break;
      }
    }
  }
  return out;
}

}  // namespace fuzz
