// Long threads (docs/checkpoints.md, "Long threads"): append channels stored whole again
// every K pieces or once the pieces outweigh the value, the app's cache of the threads it
// just ran (checked against the store's head, so another writer is never missed), and the
// durability modes sync, async and exit.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace long_threads {

using namespace durable_test;

// ---- a thread of numbers: one turn appends one -----------------------------------------------

struct Log {
  sg::append<std::int64_t> values;
  sg::counter<int> turns;
};
struct add {
  using reads = sg::reads<&Log::values>;
  using writes = sg::writes<&Log::values, &Log::turns>;
  auto operator()(sg::view<Log, reads> in) const {
    return sg::write<&Log::values>(static_cast<std::int64_t>(in.get<&Log::values>().size()) * 10) |
           sg::write<&Log::turns>(1);
  }
};
using log_graph = sg::graph<Log, sg::edge<sg::start, add>, sg::edge<add, sg::end>>;

std::vector<std::int64_t> expected_values(int turns) {
  std::vector<std::int64_t> out;  // each turn: the input's 1, then add's size * 10
  for (int t = 0; t < turns; ++t) {
    out.push_back(1);
    out.push_back(static_cast<std::int64_t>(out.size()) * 10);
  }
  return out;
}
Log one() { return Log{.values = {1}, .turns = {}}; }

// The pieces a reader of each checkpoint's `values` parses after its whole value.
template <class Store>
std::vector<std::size_t> chain_lengths(const Store& store, const std::string& thread) {
  std::vector<std::size_t> out;
  for (const auto& info : store.list(thread)) {
    auto c = store.get(thread, info.id);
    for (const auto& ch : c->channels)
      if (ch.channel == "values") out.push_back(ch.appends.size());
  }
  return out;
}

// Counts the reads of whole checkpoints, to tell a cached continue from a load.
template <class Inner>
class counting_store : public tampering_store<Inner> {
 public:
  using tampering_store<Inner>::tampering_store;
  std::optional<sg::stored_checkpoint> get(std::string_view thread) const {
    ++loads;
    return tampering_store<Inner>::get(thread);
  }
  std::optional<sg::stored_checkpoint> get(std::string_view thread, std::int64_t id) const {
    ++loads;
    return tampering_store<Inner>::get(thread, id);
  }
  mutable int loads = 0;
};

TEST_CASE_TEMPLATE("an append channel is stored whole again every K pieces; every checkpoint still loads", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<log_graph>(sg::with_store(fx.store, {.snapshot_every = 3, .cached_threads = 8}));
  const sg::thread_id t{"t"};
  for (int turn = 1; turn <= 12; ++turn) app.invoke(one(), t);
  const auto lengths = chain_lengths(fx.store, t.value);  // newest first
  REQUIRE(lengths.size() == 24);  // an input and a step per turn
  // A run's last checkpoint (the step's, at even ids) has at most K pieces; the input's,
  // inside the run, one more.
  for (std::size_t k = 0; k < lengths.size(); k += 2) CHECK(lengths[k] <= 3);
  CHECK(*std::max_element(lengths.begin(), lengths.end()) >= 3);
  CHECK(*std::max_element(lengths.begin(), lengths.end()) <= 4);
  CHECK(std::count(lengths.begin(), lengths.end(), std::size_t{0}) >= 3);
  // A new app object (no cache) reads the head and every older checkpoint right.
  auto cold = sg::compile<log_graph>(sg::with_store(fx.store));
  CHECK(cold.get_state(t)->values.values.value() == expected_values(12));
  const auto history = cold.history(t);
  REQUIRE(history.size() == 24);
  for (std::size_t k = 0; k < history.size(); ++k) {
    CAPTURE(k);
    const auto& s = history[k];
    const std::size_t values = 24 - k;  // checkpoint id n holds n values
    CHECK(s.values.values.value().size() == values);
    CHECK(std::equal(s.values.values.begin(), s.values.values.end(), expected_values(12).begin()));
  }
}

TEST_CASE_TEMPLATE("pieces that outweigh the whole value make the next value whole", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<log_graph>(sg::with_store(fx.store, {.snapshot_every = 1000, .cached_threads = 8}));
  const sg::thread_id t{"t"};
  app.invoke(one(), t);  // [] whole, then [1] (3 bytes > 2): whole, then [1,10]: 4 bytes > 3, whole
  auto c = fx.store.get(t.value);
  for (const auto& ch : c->channels)
    if (ch.channel == "values") CHECK(ch.appends.empty());
  for (int turn = 2; turn <= 40; ++turn) app.invoke(one(), t);
  const auto lengths = chain_lengths(fx.store, t.value);
  // The pieces never outweigh the whole value they extend, so no chain is as long as K.
  CHECK(*std::max_element(lengths.begin(), lengths.end()) < 40);
  CHECK(*std::max_element(lengths.begin(), lengths.end()) >= 2);
  for (const auto& info : fx.store.list(t.value)) {
    if (info.source != sg::checkpoint_source::loop) continue;  // runs end with a step
    auto cp = fx.store.get(t.value, info.id);
    for (const auto& ch : cp->channels) {
      if (ch.channel != "values") continue;
      std::size_t pieces = 0;
      for (const auto& p : ch.appends) pieces += p.size();
      CHECK(pieces <= ch.value.size());
    }
  }
  CHECK(sg::compile<log_graph>(sg::with_store(fx.store)).get_state(t)->values.values.value() == expected_values(40));
}

TEST_CASE_TEMPLATE("a thread written with long chains (as before snapshots) loads and continues", F,
                   DURABLE_FIXTURES) {
  F fx;
  const sg::thread_id t{"t"};
  std::vector<std::int64_t> expected(200, 0);  // a large whole value: small pieces never outweigh it
  auto turn = [&] {
    expected.push_back(1);
    expected.push_back(static_cast<std::int64_t>(expected.size()) * 10);
  };
  {
    // Pieces without end, as builds before snapshots wrote them.
    auto old = sg::compile<log_graph>(sg::with_store(fx.store, {.snapshot_every = 1'000'000, .cached_threads = 0}));
    old.invoke(Log{.values = {expected}, .turns = {}}, t);
    expected.push_back(static_cast<std::int64_t>(expected.size()) * 10);
    for (int k = 0; k < 30; ++k) {
      old.invoke(one(), t);
      turn();
    }
  }
  REQUIRE(chain_lengths(fx.store, t.value).front() == 61);
  auto app = sg::compile<log_graph>(sg::with_store(fx.store, {.snapshot_every = 4, .cached_threads = 8}));
  CHECK(app.get_state(t)->values.values.value() == expected);
  app.invoke(one(), t);
  turn();
  const auto lengths = chain_lengths(fx.store, t.value);
  CHECK(lengths[1] == 62);  // the input, inside the run, extends the chain
  CHECK(lengths[0] == 0);   // the run's last checkpoint starts again from a whole value
  CHECK(app.get_state(t)->values.values.value() == expected);
}

TEST_CASE_TEMPLATE("past K pieces, a large value is stored whole again only once they weigh an eighth of it", F,
                   DURABLE_FIXTURES) {
  F fx;
  const sg::thread_id t{"t"};
  auto app = sg::compile<log_graph>(sg::with_store(fx.store, {.snapshot_every = 3, .cached_threads = 8}));
  std::vector<std::int64_t> expected(400, 123456789);  // a large whole value, small pieces
  app.invoke(Log{.values = {expected}, .turns = {}}, t);
  expected.push_back(static_cast<std::int64_t>(expected.size()) * 10);
  std::vector<std::size_t> bytes;  // value bytes each turn wrote
  for (int turn = 2; turn <= 400; ++turn) {
    const std::size_t before = fx.store.stats().value_bytes;
    app.invoke(one(), t);
    expected.push_back(1);
    expected.push_back(static_cast<std::int64_t>(expected.size()) * 10);
    bytes.push_back(fx.store.stats().value_bytes - before);
  }
  std::size_t longest = 0;
  for (const auto& info : fx.store.list(t.value)) {
    if (info.source != sg::checkpoint_source::loop) continue;  // a run's last checkpoint
    auto cp = fx.store.get(t.value, info.id);
    for (const auto& ch : cp->channels) {
      if (ch.channel != "values") continue;
      std::size_t weight = 0;
      for (const auto& p : ch.appends) weight += p.size();
      CAPTURE(info.id);
      longest = std::max(longest, ch.appends.size());
      // More than K pieces only while they weigh at most an eighth of the value.
      if (ch.appends.size() > 3) CHECK(weight * 8 <= ch.value.size());
    }
  }
  CHECK(longest > 3);
  // Flat: the later turns, on a larger value, write about as much per turn as the earlier
  // ones (a window may hold one whole value more); whole values every K pieces would write
  // thousands of bytes a turn.
  auto mean = [&](std::size_t from, std::size_t to) {
    std::size_t sum = 0;
    for (std::size_t k = from; k < to; ++k) sum += bytes[k];
    return static_cast<double>(sum) / static_cast<double>(to - from);
  };
  const double early = mean(0, 150), late = mean(248, 398);
  CAPTURE(early);
  CAPTURE(late);
  CHECK(late <= 2 * early);
  CHECK(late < 200);  // a turn's two pieces are 10 bytes; a whole value is above 3,000
  auto cold = sg::compile<log_graph>(sg::with_store(fx.store));
  CHECK(cold.get_state(t)->values.values.value() == expected);
  CHECK(app.invoke(one(), t).values.value().size() == expected.size() + 2);
}

// ---- a run's whole value at its end, joined from the texts the run wrote -------------------------

struct Lines {
  sg::append<std::string> lines;
  sg::counter<int> said;
};
struct say {
  using reads = sg::reads<&Lines::said>;
  using writes = sg::writes<&Lines::lines, &Lines::said>;
  auto operator()(sg::view<Lines, reads> in) const {
    const int n = in.get<&Lines::said>();
    std::string text = n % 3 == 0 ? "plain " : n % 3 == 1 ? "a \"quote\" and \\ \n" : "caf\xc3\xa9 \x01";
    return sg::write<&Lines::lines>(text + std::to_string(n)) | sg::write<&Lines::said>(1);
  }
};
struct again {
  using reads = sg::reads<&Lines::said>;
  sg::go<say, sg::end> operator()(sg::view<Lines, reads> in) const {
    if (in.get<&Lines::said>() % 40 != 0) return sg::to<say>;
    return sg::to<sg::end>;
  }
};
using lines_graph = sg::graph<Lines, sg::edge<sg::start, say>, sg::branch<say, again>>;

TEST_CASE_TEMPLATE("a long run's last checkpoint stores the value whole, as one serialization writes it", F,
                   DURABLE_FIXTURES) {
  F fx;
  const sg::thread_id t{"t"};
  auto app = sg::compile<lines_graph>(sg::with_store(fx.store));
  std::vector<std::string> expected{"first, \"quoted\""};
  auto head_text = [&] {
    auto c = fx.store.get(t.value);
    for (const auto& ch : c->channels)
      if (ch.channel == "lines") {
        CHECK(ch.appends.empty());
        return ch.value;
      }
    return std::string();
  };
  // A new thread: its first checkpoint is whole, 40 steps append a piece each, the last one is
  // whole again (the pieces outweigh the first value).
  auto out = app.invoke(Lines{.lines = {expected}, .said = {}}, t);
  REQUIRE(out.lines.value().size() == 41);
  CHECK(head_text() == nlohmann::json(out.lines.value()).dump());
  // A cached continue (the run wrote no whole value itself) and a cold one.
  out = app.invoke(Lines{.lines = {"second"}, .said = {}}, t);
  REQUIRE(out.lines.value().size() == 82);
  CHECK(head_text() == nlohmann::json(out.lines.value()).dump());
  auto cold = sg::compile<lines_graph>(sg::with_store(fx.store));
  CHECK(cold.get_state(t)->values.lines.value() == out.lines.value());
  CHECK(cold.history(t).size() == 82);  // each run: its input and 40 steps
}

TEST_CASE_TEMPLATE("async and exit runs store the same whole value at a run's end as sync runs", F, DURABLE_FIXTURES) {
  std::vector<std::string> heads;
  for (auto mode : {sg::durability::sync, sg::durability::async, sg::durability::exit}) {
    CAPTURE(static_cast<int>(mode));
    F fx;
    const sg::thread_id t{"t"};
    auto app = sg::compile<lines_graph>(sg::with_store(fx.store));
    const sg::run_config config{.durability = mode};
    app.invoke(Lines{.lines = {"one"}, .said = {}}, t, config);
    const auto out = app.invoke(Lines{.lines = {"two"}, .said = {}}, t, config);
    REQUIRE(out.lines.value().size() == 82);
    const auto head = fx.store.get(t.value);  // named: a range-for over a temporary's member dangles
    REQUIRE(head.has_value());
    for (const auto& ch : head->channels)
      if (ch.channel == "lines") {
        CHECK(ch.appends.empty());
        CHECK(ch.value == nlohmann::json(out.lines.value()).dump());
        heads.push_back(ch.value);
      }
    CHECK(sg::compile<lines_graph>(sg::with_store(fx.store)).get_state(t)->values.lines.value() == out.lines.value());
  }
  REQUIRE(heads.size() == 3);
  CHECK(heads[1] == heads[0]);
  CHECK(heads[2] == heads[0]);
}

TEST_CASE("append pieces are parsed as one array") {
  std::string out;
  REQUIRE(sg::detail::splice_arrays("[1,2]", {" [ ] ", "[3]", "[4, 5]"}, out));
  CHECK(out == "[1,2,3,4, 5]");
  REQUIRE(sg::detail::splice_arrays("[]", {"[]", "[\"a\"]"}, out));
  CHECK(out == "[\"a\"]");
  CHECK_FALSE(sg::detail::splice_arrays("[1]", {"3"}, out));
  CHECK_FALSE(sg::detail::splice_arrays("{}", {"[3]"}, out));
  CHECK_FALSE(sg::detail::splice_arrays("[1]", {"["}, out));
}

// ---- reading an append channel element by element ---------------------------------------

// What element_reader appends for `text`, against what the document path decodes from it.
template <class V>
void reads_as_document(const std::string& text) {
  CAPTURE(text);
  V by_elements;
  sg::detail::element_reader<V> reader(by_elements, sg::max_json_depth);
  REQUIRE(reader.read(text));
  CHECK(by_elements == sg::detail::read_json_as<V>(nlohmann::json::parse(text)));
}

TEST_CASE("an append channel's text read element by element gives what its parsed document gives") {
  reads_as_document<std::vector<std::int64_t>>("[]");
  reads_as_document<std::vector<std::int64_t>>(" [ 1, -2 ,3e0, 9007199254740993 ] ");
  reads_as_document<std::vector<std::string>>(std::string(R"(["a", "", "\"\\\n\u00e9", "caf)") + "\xc3\xa9" + R"("])");
  reads_as_document<std::vector<Msg>>(R"([{"role":"user","content":"hi"},{"content":"x","role":"ai","extra":[1,{}]}])");
  reads_as_document<std::vector<Msg>>(R"([{"role":"a","content":"1","role":"b"}])");  // the last key wins
  reads_as_document<std::vector<std::vector<std::vector<int>>>>("[[[1,2],[]],[],[[3]]]");
  reads_as_document<std::vector<std::optional<int>>>("[null, 4, null]");
  reads_as_document<std::vector<std::map<std::string, std::vector<bool>>>>(R"([{"a":[true,false]},{}])");
  reads_as_document<std::vector<nlohmann::json>>(R"([null, true, 1.5, "s", [[]], {"k": {"j": [null]}}])");
  // Object elements of differing members: none is left over from the element before.
  reads_as_document<std::vector<nlohmann::json>>(
      R"([{"a":1,"b":"long enough to be on the heap"},{"b":"y"},{"a":"s","c":[1]},{},{"a":{"b":2}},3,)"
      R"({"b":"z","b":"w"},[{"a":1}],{"a":[{"x":"1"}],"b":null},{"b":"q","a":"r"}])");
  reads_as_document<std::vector<std::map<std::string, std::string>>>(
      R"([{"role":"user","content":"a long first message of the thread"},{"content":"b"},{"role":"ai"},{}])");
  reads_as_document<std::deque<double>>("[0.1, -2.5e-3, 7]");

  // Each read appends: the whole value, then each piece.
  std::vector<std::int64_t> v;
  sg::detail::element_reader<std::vector<std::int64_t>> reader(v, sg::max_json_depth);
  REQUIRE(reader.read("[1,2]"));
  REQUIRE(reader.read("[]"));
  REQUIRE(reader.read("[3]"));
  CHECK(v == std::vector<std::int64_t>{1, 2, 3});
}

TEST_CASE("element_reader refuses what is no array, no JSON or too deep; an element of the wrong type throws") {
  std::vector<nlohmann::json> v;
  sg::detail::element_reader<std::vector<nlohmann::json>> reader(v, 3);
  for (const char* bad : {"", "{}", "3", "\"a\"", "null", "[[1]", "[[1]]]", "[[1]] x", "[[1],]", "[[1] [2]]", "[[[[1]]]]"}) {
    CAPTURE(bad);
    CHECK_FALSE(reader.read(bad));
  }
  v.clear();
  CHECK(reader.read("[[[]], [1]]"));  // three levels: at the limit
  CHECK(v == std::vector<nlohmann::json>{nlohmann::json::parse("[[]]"), nlohmann::json::parse("[1]")});
  std::vector<std::vector<int>> numbers;
  sg::detail::element_reader<std::vector<std::vector<int>>> typed(numbers, 3);
  CHECK_THROWS_AS(typed.read("[[1], [\"x\"]]"), sg::checkpoint_error);
  CHECK_THROWS_AS(typed.read("[[1], [1e300]]"), sg::checkpoint_error);
}

struct Two {
  sg::append<Msg> messages;
  sg::append<int> numbers;
};

TEST_CASE("a channel read element by element still names what is wrong with its texts") {
  auto decode = [](std::string_view value, std::vector<std::string> pieces) {
    Two s;
    sg::detail::decode_channel<Two, 0>(s, value, pieces);
    return s.messages.value();
  };
  const std::string hi = R"([{"role":"user","content":"hi"}])", yo = R"([{"role":"ai","content":"yo"}])";
  CHECK(decode(hi, {yo, "[]", yo}) == std::vector<Msg>{{"user", "hi"}, {"ai", "yo"}, {"ai", "yo"}});
  CHECK(decode("[]", {}).empty());
  CHECK_THROWS_WITH_AS(decode(hi, {"[{\"role\":"}), doctest::Contains("not valid JSON"), sg::checkpoint_error);
  CHECK_THROWS_WITH_AS(decode(hi, {"{}"}), doctest::Contains("does not decode"), sg::checkpoint_error);
  CHECK_THROWS_WITH_AS(decode(hi, {"[{\"role\":1,\"content\":\"x\"}]"}), doctest::Contains("does not decode"),
                       sg::checkpoint_error);
  CHECK_THROWS_WITH_AS(decode("[" + hi + "]", {}), doctest::Contains("does not decode"), sg::checkpoint_error);
  CHECK_THROWS_WITH_AS(decode(std::string(600, '[') + std::string(600, ']'), {}),
                       doctest::Contains("nests deeper than 512 levels"), sg::checkpoint_error);
  Two s;
  sg::detail::decode_channel<Two, 1>(s, "[1,2]", {"[3]"});
  CHECK(s.numbers.value() == std::vector<int>{1, 2, 3});
  CHECK_THROWS_WITH_AS((sg::detail::decode_channel<Two, 1>(s, "[1,2]", {"[4294967296]"})),
                       doctest::Contains("does not fit"), sg::checkpoint_error);
  CHECK(s.numbers.value() == std::vector<int>{1, 2, 3});  // a refused load leaves the state as it was
}

// ---- the head cache ---------------------------------------------------------------------------

TEST_CASE_TEMPLATE("an app continues a thread it just ran without loading it", F, DURABLE_FIXTURES) {
  F fx;
  counting_store<typename F::store_type> store(fx.store);
  auto app = sg::compile<log_graph>(sg::with_store(store));
  const sg::thread_id t{"t"};
  app.invoke(one(), t);
  CHECK(store.loads == 1);  // the new thread's look-up
  for (int turn = 2; turn <= 5; ++turn) CHECK(app.invoke(one(), t).values.value() == expected_values(turn));
  CHECK(store.loads == 1);
  CHECK(app.cached_threads() == 1);
  // history and time travel still see every checkpoint.
  CHECK(app.history(t).size() == 10);
  CHECK(app.get_state(t, sg::checkpoint_id{4}).values.values.value() == std::vector<std::int64_t>{1, 10, 1, 30});
  // A fork makes a new head: the cache is not used for it, and the next invoke loads it.
  app.invoke(one(), t, sg::checkpoint_id{4});
  const int before = store.loads;
  CHECK(app.invoke(one(), t).values.value() == std::vector<std::int64_t>{1, 10, 1, 30, 1, 50, 1, 70});
  CHECK(store.loads == before + 1);
}

TEST_CASE_TEMPLATE("another app's write to a cached thread is never missed", F, DURABLE_FIXTURES) {
  F fx;
  auto a = sg::compile<log_graph>(sg::with_store(fx.store));
  auto b = sg::compile<log_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"t"};
  a.invoke(one(), t);
  a.invoke(one(), t);
  b.invoke(one(), t);  // b loads a's head and continues
  CHECK(a.invoke(one(), t).values.value() == expected_values(4));
  SUBCASE("the thread deleted and written again with the same ids and positions") {
    b.delete_thread(t);
    b.invoke(Log{.values = {7}, .turns = {}}, t);
    for (int turn = 2; turn <= 4; ++turn) b.invoke(one(), t);
    REQUIRE(fx.store.get(t.value)->id == 8);  // a's cached head had this id too
    const auto out = a.invoke(one(), t);
    CHECK(out.values.value().front() == 7);
    CHECK(out.values.value().size() == 10);
    CHECK(out.turns == 5);
  }
}

TEST_CASE("another store object on the same SQLite file is never missed") {
  temp_db file;
  sg::sqlite_store one_store(file.path()), other_store(file.path());
  auto a = sg::compile<log_graph>(sg::with_store(one_store));
  auto b = sg::compile<log_graph>(sg::with_store(other_store));
  const sg::thread_id t{"t"};
  a.invoke(one(), t);
  b.invoke(one(), t);
  CHECK(a.invoke(one(), t).values.value() == expected_values(3));
  b.invoke(one(), t);
  CHECK(a.invoke(one(), t).values.value() == expected_values(5));
  CHECK(sg::compile<log_graph>(sg::with_store(one_store)).history(t).size() == 10);
}

TEST_CASE("the head cache holds at most cached_threads threads, the least recently run leaving first") {
  sg::memory_store memory;
  counting_store<sg::memory_store> store(memory);
  auto app = sg::compile<log_graph>(sg::with_store(store, {.snapshot_every = 64, .cached_threads = 2}));
  for (const char* name : {"a", "b", "c"}) app.invoke(one(), sg::thread_id{name});
  CHECK(app.cached_threads() == 2);
  int before = store.loads;
  app.invoke(one(), sg::thread_id{"c"});
  app.invoke(one(), sg::thread_id{"b"});
  CHECK(store.loads == before);
  app.invoke(one(), sg::thread_id{"a"});  // left first
  CHECK(store.loads == before + 1);
  auto none = sg::compile<log_graph>(sg::with_store(store, {.snapshot_every = 64, .cached_threads = 0}));
  none.invoke(one(), sg::thread_id{"a"});
  CHECK(none.cached_threads() == 0);
  before = store.loads;
  none.invoke(one(), sg::thread_id{"a"});
  CHECK(store.loads == before + 1);
  CHECK(none.get_state(sg::thread_id{"a"})->values.values.value() == expected_values(4));
}

// ---- durability modes ---------------------------------------------------------------------------

// The run of chat_graph as each checkpoint holds it: id, parent, step, source and messages.
template <class Store>
std::vector<std::string> checkpoints_of(Store& store, const std::string& thread) {
  auto app = sg::compile<chat_graph>(sg::with_store(store));
  std::vector<std::string> out;
  for (const auto& s : app.history(sg::thread_id{thread})) {
    std::string line = std::to_string(s.checkpoint_id) + "<" + std::to_string(s.parent_id) + " step " +
                       std::to_string(s.step) + " " + std::string(sg::to_string(s.source)) + ":";
    for (const auto& m : contents(s.values.messages)) line += " " + m;
    out.push_back(line);
  }
  return out;
}

TEST_CASE_TEMPLATE("async commits the same checkpoints as sync; exit commits one per run", F, DURABLE_FIXTURES) {
  F sync_fx, async_fx, exit_fx;
  auto sync_app = sg::compile<chat_graph>(sg::with_store(sync_fx.store));
  auto async_app = sg::compile<chat_graph>(sg::with_store(async_fx.store));
  auto exit_app = sg::compile<chat_graph>(sg::with_store(exit_fx.store));
  const sg::thread_id t{"t"};
  for (int turn = 1; turn <= 3; ++turn) {
    const Chat input{.messages = {Msg{"user", "q" + std::to_string(turn)}}, .calls = {}};
    const auto expected = sync_app.invoke(input, t);
    CHECK(async_app.invoke(input, t, sg::run_config{.durability = sg::durability::async}).messages.value() ==
          expected.messages.value());
    CHECK(exit_app.invoke(input, t, sg::run_config{.durability = sg::durability::exit}).messages.value() ==
          expected.messages.value());
  }
  const auto sync_cps = checkpoints_of(sync_fx.store, t.value);
  CHECK(checkpoints_of(async_fx.store, t.value) == sync_cps);
  const auto exit_cps = checkpoints_of(exit_fx.store, t.value);
  REQUIRE(exit_cps.size() == 3);
  CHECK(exit_cps.front().substr(0, exit_cps.front().find(':')) == "3<2 step " + std::to_string(sync_fx.store.get(t.value)->step) + " input");
  CHECK(exit_cps.front().substr(exit_cps.front().find(':')) == sync_cps.front().substr(sync_cps.front().find(':')));
  // A new app reads what each mode left.
  CHECK(sg::compile<chat_graph>(sg::with_store(exit_fx.store)).get_state(t)->values.messages.value() ==
        sync_app.get_state(t)->values.messages.value());
}

struct Steps {
  sg::append<std::string> log;
};
std::atomic<int> fail_at{-1};  // the log size at which flaky throws (-1: never)
struct flaky {
  using reads = sg::reads<&Steps::log>;
  using writes = sg::writes<&Steps::log>;
  auto operator()(sg::view<Steps, reads> in) const {
    const int n = static_cast<int>(in.get<&Steps::log>().size());
    if (n == fail_at.load()) throw std::runtime_error("flaky failed");
    if (n == 3) (void)sg::interrupt(std::string("halfway"));
    return sg::write<&Steps::log>("s" + std::to_string(n));
  }
};
struct loop_on {
  using reads = sg::reads<&Steps::log>;
  sg::go<flaky, sg::end> operator()(sg::view<Steps, reads> in) const {
    if (in.get<&Steps::log>().size() < 6) return sg::to<flaky>;
    return sg::to<sg::end>;
  }
};
using steps_graph = sg::graph<Steps, sg::edge<sg::start, flaky>, sg::branch<flaky, loop_on>>;

TEST_CASE_TEMPLATE("exit and async commit what a run did before it paused or failed", F, DURABLE_FIXTURES) {
  for (auto mode : {sg::durability::sync, sg::durability::async, sg::durability::exit}) {
    CAPTURE(static_cast<int>(mode));
    F fx;
    auto app = sg::compile<steps_graph>(sg::with_store(fx.store));
    const sg::run_config config{.durability = mode};
    const sg::thread_id t{"t"};
    fail_at = -1;
    app.invoke(Steps{}, t, config);  // pauses at the interrupt, the log holding s0 s1 s2
    auto paused = app.get_state(t);
    REQUIRE(paused.has_value());
    CHECK(paused->values.log.value() == std::vector<std::string>{"s0", "s1", "s2"});
    REQUIRE(paused->interrupts.size() == 1);
    CHECK(fx.store.list(t.value).size() == (mode == sg::durability::exit ? 1u : 4u));
    fail_at = 4;
    CHECK_THROWS_WITH(app.resume(t, std::string("go"), config), doctest::Contains("flaky failed"));
    auto failed = app.get_state(t);
    CHECK(failed->values.log.value() == std::vector<std::string>{"s0", "s1", "s2", "s3"});
    CHECK(failed->next == std::vector<std::string>{"flaky"});
    fail_at = -1;
    CHECK(app.resume(t, config).log.value() == std::vector<std::string>{"s0", "s1", "s2", "s3", "s4", "s5"});
    CHECK(fx.store.list(t.value).size() == (mode == sg::durability::exit ? 3u : 7u));
  }
}

}  // namespace long_threads
