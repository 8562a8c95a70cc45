// The checkpoint codec's own types (std::optional, std::variant, maps, durations,
// nlohmann::json, nested): each written, read back and refused when stored wrong; and each
// through a real checkpointed thread on both stores, read back by a new app on the store.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

using namespace durable_test;
using namespace std::chrono_literals;

namespace durable_codecs {

// ---- which types have a codec (what SG013 asks) -------------------------------------------

struct NoCodec {
  int x = 0;
};
struct WithCodec {
  int x = 0;
  friend bool operator==(const WithCodec&, const WithCodec&) = default;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WithCodec, x)

using minutes32 = std::chrono::duration<std::int32_t, std::ratio<60>>;

static_assert(sg::json_codable<int> && sg::json_codable<bool> && sg::json_codable<double>);
static_assert(sg::json_codable<std::string> && sg::json_codable<nlohmann::json>);
static_assert(sg::json_codable<std::optional<int>> && sg::json_codable<std::optional<std::optional<nlohmann::json>>>);
static_assert(sg::json_codable<std::variant<std::monostate, int, std::string, std::vector<WithCodec>>>);
static_assert(sg::json_codable<std::map<std::string, std::optional<int>>> && sg::json_codable<std::map<int, int>>);
static_assert(sg::json_codable<std::unordered_map<std::string, std::chrono::seconds>>);
static_assert(sg::json_codable<std::chrono::milliseconds> && sg::json_codable<std::chrono::duration<double>>);
static_assert(sg::json_codable<std::tuple<int, std::string>> && sg::json_codable<std::list<int>>);
static_assert(sg::json_codable<sg::assign_value<std::vector<std::string>>>);  // a subgraph's write
static_assert(sg::json_codable<sg::bounded<std::string, 3>>);                  // a wrapper, written whole
static_assert(sg::json_codable<WithCodec> && sg::json_codable<std::optional<WithCodec>>);

static_assert(!sg::json_codable<NoCodec>);
static_assert(!sg::json_codable<std::optional<NoCodec>>);
static_assert(!sg::json_codable<std::variant<int, NoCodec>>);
static_assert(!sg::json_codable<std::map<std::string, NoCodec>>);
static_assert(!sg::json_codable<std::map<NoCodec, int>>);
static_assert(!sg::json_codable<std::vector<std::optional<NoCodec>>>);
static_assert(!sg::json_codable<sg::assign_value<NoCodec>>);
static_assert(!sg::json_codable<std::string_view>);  // decoded, it would point into freed text
static_assert(!sg::json_codable<const char*>);

// ---- the codec on its own ------------------------------------------------------------------

template <class T>
std::string text_of(const T& v) {
  std::string out;
  sg::detail::write_json(out, v);
  return out;
}
template <class T>
T decoded(std::string_view text) {
  return sg::detail::decode_value<T>(nlohmann::json::parse(text), "test");
}
// Writes v, checks the text is `expected` and what the document form dumps, reads it back.
template <class T>
T round_trip(const T& v, std::string_view expected) {
  const std::string text = text_of(v);
  CHECK(text == expected);
  CHECK(sg::detail::json_document(v).dump() == text);
  CHECK(sg::to_json_value(v).dump() == text);
  return decoded<T>(text);
}

using nested_t = std::map<std::string, std::optional<std::variant<std::chrono::seconds, std::vector<std::optional<std::string>>>>>;

TEST_CASE("the codec writes and reads optional, variant, maps, durations, json and their nestings") {
  // std::optional: empty is null; a value that may itself be null is wrapped, so both stay apart.
  CHECK(round_trip(std::optional<int>{}, "null") == std::nullopt);
  CHECK(round_trip(std::optional<int>{5}, "5") == 5);
  CHECK(round_trip(std::optional<std::string>{"hi"}, R"("hi")") == "hi");
  using opt2 = std::optional<std::optional<int>>;
  CHECK(round_trip(opt2{}, "null") == opt2{});
  const opt2 present_empty = round_trip(opt2{std::optional<int>{}}, "[null]");
  CHECK(present_empty.has_value());
  CHECK(!present_empty->has_value());
  CHECK(round_trip(opt2{std::optional<int>{3}}, "[3]") == opt2{3});
  const auto json_null = round_trip(std::optional<nlohmann::json>{nlohmann::json()}, "[null]");
  REQUIRE(json_null.has_value());
  CHECK(json_null->is_null());

  // std::variant: [index, value].
  using choice = std::variant<int, std::string, std::vector<int>>;
  CHECK(round_trip(choice{7}, "[0,7]") == choice{7});
  CHECK(round_trip(choice{std::string("x")}, R"([1,"x"])") == choice{std::string("x")});
  CHECK(round_trip(choice{std::vector<int>{1, 2}}, "[2,[1,2]]") == choice{std::vector<int>{1, 2}});
  using maybe_time = std::variant<std::monostate, std::chrono::seconds>;
  CHECK(round_trip(maybe_time{}, "[0,null]") == maybe_time{});
  CHECK(round_trip(maybe_time{90s}, "[1,90]") == maybe_time{90s});
  using same_types = std::variant<int, int>;  // the index, not the value, picks the alternative
  CHECK(round_trip(same_types{std::in_place_index<1>, 4}, "[1,4]").index() == 1);

  // Maps: string keys as an object, other keys as [key, value] pairs.
  const std::map<std::string, std::vector<int>> by_name{{"a", {1}}, {"b", {}}};
  CHECK(round_trip(by_name, R"({"a":[1],"b":[]})") == by_name);
  const std::unordered_map<std::string, std::optional<int>> scores{{"x", std::nullopt}};
  CHECK(round_trip(scores, R"({"x":null})") == scores);
  const std::map<int, std::string> by_id{{1, "one"}, {2, "two"}};
  CHECK(round_trip(by_id, R"([[1,"one"],[2,"two"]])") == by_id);
  const std::map<std::chrono::seconds, bool> by_time{{5s, true}};
  CHECK(round_trip(by_time, "[[5,true]]") == by_time);

  // Durations: the count in the duration's own period.
  CHECK(round_trip(1500ms, "1500") == 1500ms);
  CHECK(round_trip(std::chrono::hours{-3}, "-3") == std::chrono::hours{-3});
  CHECK(round_trip(minutes32{7}, "7") == minutes32{7});
  CHECK(round_trip(std::chrono::duration<double>{1.5}, "1.5") == std::chrono::duration<double>{1.5});

  // nlohmann::json: as it is, objects, arrays and null included.
  const auto doc = nlohmann::json::parse(R"({"a":[1,null,{"b":true}],"c":"d"})");
  CHECK(round_trip(doc, doc.dump()) == doc);
  CHECK(round_trip(nlohmann::json::array({1, "x"}), R"([1,"x"])") == nlohmann::json::array({1, "x"}));
  CHECK(round_trip(nlohmann::json(), "null").is_null());

  // Other containers and products.
  CHECK(round_trip(std::tuple<int, std::string, bool>{1, "a", true}, R"([1,"a",true])") ==
        std::tuple<int, std::string, bool>{1, "a", true});
  CHECK(round_trip(std::list<int>{3, 4}, "[3,4]") == std::list<int>{3, 4});
  CHECK(round_trip(std::multiset<int>{2, 2}, "[2,2]") == std::multiset<int>{2, 2});
  CHECK(round_trip(std::unordered_set<std::string>{"u"}, R"(["u"])") == std::unordered_set<std::string>{"u"});
  CHECK(round_trip(std::vector<WithCodec>{{4}}, R"([{"x":4}])") == std::vector<WithCodec>{{4}});

  // Nested: a map of optional variants of durations and vectors of optionals.
  const nested_t nested{{"none", std::nullopt},
                        {"time", std::chrono::seconds{30}},
                        {"words", std::vector<std::optional<std::string>>{"w", std::nullopt}}};
  CHECK(round_trip(nested, R"({"none":null,"time":[0,30],"words":[1,["w",null]]})") == nested);

  // A subgraph's write, and a channel wrapper written as a value.
  CHECK(round_trip(sg::assign_value<std::vector<std::string>>{{"a", "b"}}, R"(["a","b"])").value ==
        std::vector<std::string>{"a", "b"});
  CHECK(round_trip(std::optional<sg::assign_value<std::optional<int>>>{sg::assign_value<std::optional<int>>{}},
                   "[null]")
            ->value == std::nullopt);
}

template <class T>
void refused(const char* text, const char* fragment) {
  CAPTURE(text);
  CHECK_THROWS_WITH_AS(decoded<T>(text), doctest::Contains(fragment), sg::checkpoint_error);
}

TEST_CASE("stored values of the wrong shape for these types are refused with checkpoint_error") {
  using choice = std::variant<int, std::string>;
  refused<choice>("[2,1]", "variant index 2 is out of range (2 alternatives)");
  refused<choice>("[99999999999,1]", "out of range");
  refused<choice>("[-1,1]", "does not fit");
  refused<choice>("[0.5,1]", "does not fit");
  refused<choice>(R"([0,"x"])", "expected a number");
  refused<choice>("[1]", "[index, value]");
  refused<choice>("7", "[index, value]");
  refused<choice>("null", "[index, value]");
  refused<std::variant<std::monostate, int>>("[0,1]", "expected null");

  refused<std::optional<int>>(R"("x")", "expected a number");
  refused<std::optional<std::optional<int>>>("3", "null or [value]");
  refused<std::optional<std::optional<int>>>("[1,2]", "null or [value]");

  refused<std::chrono::milliseconds>("1e300", "does not fit");
  refused<std::chrono::milliseconds>("1.5", "does not fit");
  refused<std::chrono::milliseconds>(R"("5")", "expected a number");
  refused<minutes32>("4294967296", "does not fit");
  refused<std::chrono::duration<float>>("1e300", "does not fit");

  refused<std::map<std::string, int>>("[1]", "expected an object");
  refused<std::map<std::string, int>>(R"({"a":"b"})", "expected a number");
  refused<std::map<int, std::string>>("[[1]]", "[key, value] pair");
  refused<std::map<int, std::string>>(R"({"a":"b"})", "array of [key, value] pairs");
  refused<std::tuple<int, int>>("[1]", "right length");
  refused<std::string>("5", "expected a string");
  refused<nested_t>(R"({"t":[0,1e300]})", "does not fit");
  refused<nested_t>(R"({"t":[2,1]})", "out of range");
}

// ---- the new types through a real thread ---------------------------------------------------

struct Rich {
  std::optional<std::string> note;
  std::optional<std::optional<int>> maybe_maybe;
  std::variant<int, std::string, std::vector<double>> choice;
  std::variant<std::monostate, std::chrono::seconds> pick;
  std::map<std::string, std::vector<int>> by_name;
  std::unordered_map<std::string, std::optional<int>> scores;
  std::map<int, std::string> by_id;
  std::chrono::milliseconds waited{};
  std::chrono::duration<double> fraction{};
  sg::counter<std::chrono::seconds> total;
  nlohmann::json doc;
  nlohmann::json list;
  nlohmann::json nothing;
  std::optional<nlohmann::json> maybe_doc;
  nested_t nested;
};

struct fill {
  using writes = sg::writes<&Rich::note, &Rich::maybe_maybe, &Rich::choice, &Rich::pick, &Rich::by_name,
                            &Rich::scores, &Rich::by_id, &Rich::waited, &Rich::fraction, &Rich::total, &Rich::doc,
                            &Rich::list, &Rich::nothing, &Rich::maybe_doc, &Rich::nested>;
  auto operator()(sg::view<Rich, sg::reads<>>) const {
    return sg::write<&Rich::note>(std::optional<std::string>("hello")) |
           sg::write<&Rich::maybe_maybe>(std::optional<std::optional<int>>(std::optional<int>())) |
           sg::write<&Rich::choice>(std::variant<int, std::string, std::vector<double>>(std::vector<double>{0.5, -2})) |
           sg::write<&Rich::pick>(std::variant<std::monostate, std::chrono::seconds>(42s)) |
           sg::write<&Rich::by_name>(std::map<std::string, std::vector<int>>{{"a", {1, 2}}, {"b", {}}}) |
           sg::write<&Rich::scores>(std::unordered_map<std::string, std::optional<int>>{{"x", 1}, {"y", std::nullopt}}) |
           sg::write<&Rich::by_id>(std::map<int, std::string>{{-1, "minus"}, {7, "seven"}}) |
           sg::write<&Rich::waited>(1500ms) | sg::write<&Rich::fraction>(std::chrono::duration<double>(0.25)) |
           sg::write<&Rich::total>(60s) | sg::write<&Rich::doc>(nlohmann::json::parse(R"({"k":[1,null,{"z":false}]})")) |
           sg::write<&Rich::list>(nlohmann::json::parse(R"([[],{},"s",2.5])")) |
           sg::write<&Rich::nothing>(nlohmann::json()) |
           sg::write<&Rich::maybe_doc>(std::optional<nlohmann::json>(nlohmann::json())) |
           sg::write<&Rich::nested>(nested_t{{"t", std::chrono::seconds{3}}, {"n", std::nullopt}});
  }
};
using rich_graph = sg::graph<Rich, sg::edge<sg::start, fill>, sg::edge<fill, sg::end>>;

void check_filled(const Rich& r, std::chrono::seconds total) {
  CHECK(r.note == "hello");
  REQUIRE(r.maybe_maybe.has_value());
  CHECK(!r.maybe_maybe->has_value());
  CHECK(r.choice == std::variant<int, std::string, std::vector<double>>(std::vector<double>{0.5, -2}));
  CHECK(r.pick == std::variant<std::monostate, std::chrono::seconds>(42s));
  CHECK(r.by_name == std::map<std::string, std::vector<int>>{{"a", {1, 2}}, {"b", {}}});
  CHECK(r.scores == std::unordered_map<std::string, std::optional<int>>{{"x", 1}, {"y", std::nullopt}});
  CHECK(r.by_id == std::map<int, std::string>{{-1, "minus"}, {7, "seven"}});
  CHECK(r.waited == 1500ms);
  CHECK(r.fraction.count() == 0.25);
  CHECK(r.total.value() == total);
  CHECK(r.doc == nlohmann::json::parse(R"({"k":[1,null,{"z":false}]})"));
  CHECK(r.doc.is_object());
  CHECK(r.list.is_array());
  CHECK(r.list.size() == 4);
  CHECK(r.nothing.is_null());
  REQUIRE(r.maybe_doc.has_value());
  CHECK(r.maybe_doc->is_null());
  CHECK(r.nested == nested_t{{"t", std::chrono::seconds{3}}, {"n", std::nullopt}});
}

TEST_CASE_TEMPLATE("optional, variant, map, duration and json channels round-trip through a thread", F,
                   DURABLE_FIXTURES) {
  F fx;
  const sg::thread_id t{"t"};
  {
    auto app = sg::compile<rich_graph>(sg::with_store(fx.store));
    check_filled(app.invoke(Rich{}, t), 60s);
  }
  // A new app on the same store reads every value back from its stored text.
  auto app = sg::compile<rich_graph>(sg::with_store(fx.store));
  auto state = app.get_state(t);
  REQUIRE(state.has_value());
  check_filled(state->values, 60s);
  // The first checkpoint (the input) holds the empty values, each read back empty.
  const auto history = app.history(t);
  REQUIRE(history.size() == 2);
  const Rich& first = history.back().values;
  CHECK(!first.note.has_value());
  CHECK(!first.maybe_maybe.has_value());
  CHECK(first.choice.index() == 0);
  CHECK(first.pick.index() == 0);
  CHECK(first.by_name.empty());
  CHECK(first.doc.is_null());
  CHECK(!first.maybe_doc.has_value());
  // The thread continues from the stored values: the counter of durations adds.
  check_filled(app.invoke(Rich{}, t), 120s);
}

TEST_CASE_TEMPLATE("an input with present-but-empty values keeps them apart from absent ones", F, DURABLE_FIXTURES) {
  F fx;
  const sg::thread_id t{"t"};
  using no_graph = sg::graph<Rich, sg::edge<sg::start, fill>, sg::edge<fill, sg::end>>;
  sg::compile<no_graph>(sg::with_store(fx.store), sg::interrupt_before<fill>{})
      .invoke(Rich{.note = std::string(), .maybe_maybe = std::optional<int>(), .maybe_doc = nlohmann::json::object()}, t);
  auto app = sg::compile<no_graph>(sg::with_store(fx.store));
  const Rich stored = app.get_state(t)->values;
  CHECK(stored.note == std::string());
  REQUIRE(stored.maybe_maybe.has_value());
  CHECK(!stored.maybe_maybe->has_value());
  REQUIRE(stored.maybe_doc.has_value());
  CHECK(stored.maybe_doc->is_object());
}

// An interrupt's payload and its answer go through the same codec.
struct Asked {
  sg::append<std::string> log;
};
struct ask_limit {
  using writes = sg::writes<&Asked::log>;
  auto operator()(sg::view<Asked, sg::reads<>>, sg::run_context& ctx) const {
    using limit = std::optional<std::chrono::seconds>;
    const auto answer = ctx.interrupt<limit>(std::variant<std::monostate, limit>(limit(30s)));
    return sg::write<&Asked::log>(answer ? std::to_string(answer->count()) : std::string("none"));
  }
};
using ask_graph = sg::graph<Asked, sg::edge<sg::start, ask_limit>, sg::edge<ask_limit, sg::end>>;

TEST_CASE_TEMPLATE("an interrupt's payload and answer may be optionals, variants and durations", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<ask_graph>(sg::with_store(fx.store));
  const sg::thread_id a{"a"}, b{"b"};
  app.invoke(Asked{}, a);
  const auto paused = app.get_state(a);
  REQUIRE(paused->interrupts.size() == 1);
  CHECK(paused->interrupts[0].payload == "[1,30]");
  CHECK(app.resume(a, std::optional<std::chrono::seconds>(45s)).log.value() == strings{"45"});
  app.invoke(Asked{}, b);
  CHECK(app.resume(b, std::optional<std::chrono::seconds>()).log.value() == strings{"none"});
}

// A stored value that does not decode is a checkpoint_error, and nothing is written.
TEST_CASE_TEMPLATE("a corrupted optional, variant, map or duration in a store is refused; nothing is written", F,
                   DURABLE_FIXTURES) {
  struct bad_value {
    const char* channel;
    const char* value;
    const char* fragment;
  };
  const bad_value cases[] = {
      {"choice", "[3,1]", "variant index 3 is out of range"},
      {"choice", "[0,\"x\"]", "expected a number"},
      {"pick", "[1,1e300]", "does not fit"},
      {"maybe_maybe", "5", "null or [value]"},
      {"waited", "1.5", "does not fit"},
      {"by_name", "[1,2]", "expected an object"},
      {"by_id", "[[1]]", "[key, value] pair"},
      {"nested", "{\"t\":[0,\"x\"]}", "expected a number"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.channel);
    F fx;
    tampering_store<typename F::store_type> store(fx.store);
    auto app = sg::compile<rich_graph>(sg::with_store(store));
    const sg::thread_id t{"t"};
    app.invoke(Rich{}, t);
    const auto rows_before = fx.store.list(t.value).size();
    const auto head_before = fx.store.get(t.value)->id;
    store.tamper_checkpoint = [&](sg::stored_checkpoint& cp) {
      for (auto& ch : cp.channels)
        if (ch.channel == c.channel) {
          ch.value = c.value;
          ch.appends.clear();
        }
    };
    CHECK_THROWS_WITH_AS(app.get_state(t), doctest::Contains(c.fragment), sg::checkpoint_error);
    CHECK_THROWS_WITH_AS(app.get_state(t), doctest::Contains(c.channel), sg::checkpoint_error);
    CHECK_THROWS_AS(app.invoke(Rich{}, t), sg::checkpoint_error);
    CHECK(fx.store.list(t.value).size() == rows_before);
    CHECK(fx.store.get(t.value)->id == head_before);
  }
}

}  // namespace durable_codecs
