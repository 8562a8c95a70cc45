// Bad input is refused whole, with a typed error, before anything is written: corrupted
// or truncated JSON in a stored checkpoint, a checkpoint of another schema (the message
// names the channels that differ), unknown threads and checkpoint ids, and resumes with
// nothing to resume.
#include "fixtures.hpp"
#include "sql_tools.hpp"

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace durable_test;
using durable_sql::sql;

namespace durable_bad_input {

// Everything a store holds for every thread, raw (no JSON is parsed): equal fingerprints
// before and after an operation mean the operation changed nothing.
template <class Store>
std::string fingerprint(const Store& store) {
  std::ostringstream out;
  auto st = store.stats();
  out << st.threads << '/' << st.checkpoints << '/' << st.values << '/' << st.value_bytes << '/' << st.pending_writes
      << '\n';
  for (const auto& thread : store.threads())
    for (const auto& info : store.list(thread)) {
      auto cp = store.get(thread, info.id);
      REQUIRE(cp.has_value());
      out << thread << '#' << cp->id << '<' << cp->parent << ' ' << cp->step << ' ' << to_string(cp->source) << ' '
          << cp->format_version << ' ' << cp->schema_hash << ' ' << cp->metadata << '\n';
      for (const auto& ch : cp->channels) {
        out << "  " << ch.channel << '@' << ch.version << '=' << ch.value;
        for (const auto& piece : ch.appends) out << '+' << piece;
        out << '\n';
      }
      for (const auto& w : store.pending_writes(thread, cp->id))
        out << "  w " << w.task << '/' << w.index << '/' << w.channel << '=' << w.value << '\n';
    }
  return out.str();
}

// Every way to read or continue the thread must throw E and leave the store as it was.
template <class E, class App, class Store>
void refused_everywhere(App& app, const Store& store, const sg::thread_id& t, const char* fragment) {
  const auto before = fingerprint(store);
  CHECK_THROWS_WITH_AS(app.get_state(t), doctest::Contains(fragment), E);
  CHECK_THROWS_AS(app.history(t), E);
  CHECK_THROWS_AS(app.resume(t), E);
  CHECK_THROWS_AS(app.invoke(typename App::state_type{}, t), E);
  CHECK_THROWS_AS(app.update_state(t, sg::write<&Chat::calls>(1), sg::as_node<agent>), E);
  CHECK(fingerprint(store) == before);
}

// ---- corrupted SQLite rows -----------------------------------------------------------------

struct corruption {
  const char* name;
  const char* statement;  // on a thread "t" of chat_graph whose run is complete (6 checkpoints)
  const char* message;    // a fragment the error must contain
};

TEST_CASE("corrupted rows of a SQLite store are refused with checkpoint_error; nothing is written") {
  const corruption cases[] = {
      {"truncated channel value",
       "UPDATE checkpoints SET vals = sg_set_value(vals, 'messages', substr(sg_value(vals, 'messages'), 1,"
       " length(sg_value(vals, 'messages')) - 5)) WHERE id = 1",
       "not valid JSON"},
      {"garbage in an appended piece",
       "UPDATE checkpoints SET vals = sg_set_value(vals, 'messages', '[{\"role\":') WHERE id = 4", "not valid JSON"},
      {"a value of the wrong type",
       "UPDATE checkpoints SET vals = sg_set_value(vals, 'calls', '\"three\"') WHERE id = 6", "does not decode"},
      {"a message missing a field",
       "UPDATE checkpoints SET vals = sg_set_value(vals, 'messages', '[{\"role\":\"user\"}]') WHERE id = 1",
       "does not decode"},
      {"truncated metadata", "UPDATE checkpoints SET metadata = substr(metadata, 1, 20) WHERE id = 6",
       "not valid JSON"},
      {"metadata of the wrong shape", "UPDATE checkpoints SET metadata = '{\"run_step\":\"five\"}' WHERE id = 6",
       "bad metadata"},
      {"metadata naming a node the graph lacks",
       "UPDATE checkpoints SET metadata = replace(metadata, '\"next\":[]', '\"next\":[\"ghost\"]') WHERE id = 6",
       "ghost"},
      {"another format version", "UPDATE checkpoints SET format_version = 99 WHERE id = 6", "format version 99"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    temp_db file("bad-sqlite");
    sg::sqlite_store store(file.path());
    // No snapshots: the head's messages are then its first whole value and every piece
    // after it, the rows these cases corrupt.
    auto app = sg::compile<chat_graph>(sg::with_store(store, {.snapshot_every = 0, .cached_threads = 64}));
    const sg::thread_id t{"t"};
    app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
    const auto clean = fingerprint(store);
    sql(file.path(), c.statement);
    REQUIRE(fingerprint(store) != clean);  // the statement did corrupt something
    refused_everywhere<sg::checkpoint_error>(app, store, t, c.message);
  }
}

TEST_CASE("numbers no integer type holds are refused with checkpoint_error") {
  // Each was undefined behaviour (a float static_cast to an integer) or a silent wrap
  // before the decoder checked its numbers.
  const corruption cases[] = {
      {"run_step 1e300",
       "UPDATE checkpoints SET metadata = replace(metadata, '\"run_step\":5', '\"run_step\":1e300') WHERE id = 6",
       "bad metadata"},
      {"run_step -1",
       "UPDATE checkpoints SET metadata = replace(metadata, '\"run_step\":5', '\"run_step\":-1') WHERE id = 6",
       "bad metadata"},
      {"run_step 2.5",
       "UPDATE checkpoints SET metadata = replace(metadata, '\"run_step\":5', '\"run_step\":2.5') WHERE id = 6",
       "bad metadata"},
      {"max_version -1e30",
       "UPDATE checkpoints SET metadata = replace(metadata, '\"max_version\":', '\"max_version\":-1e30,\"x\":') "
       "WHERE id = 6",
       "bad metadata"},
      {"max_version 2^63",
       "UPDATE checkpoints SET metadata = replace(metadata, '\"max_version\":', "
       "'\"max_version\":9223372036854775808,\"x\":') WHERE id = 6",
       "bad metadata"},
      {"a counter 1e300", "UPDATE checkpoints SET vals = sg_set_value(vals, 'calls', '1e300') WHERE id = 6",
       "does not decode"},
      {"a counter -1e30", "UPDATE checkpoints SET vals = sg_set_value(vals, 'calls', '-1e30') WHERE id = 6",
       "does not fit int"},
      {"a counter 3.5", "UPDATE checkpoints SET vals = sg_set_value(vals, 'calls', '3.5') WHERE id = 6",
       "does not fit int"},
      {"a counter 2^31", "UPDATE checkpoints SET vals = sg_set_value(vals, 'calls', '2147483648') WHERE id = 6",
       "does not fit int"},
      {"a counter true", "UPDATE checkpoints SET vals = sg_set_value(vals, 'calls', 'true') WHERE id = 6",
       "expected a number"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    temp_db file("huge");
    sg::sqlite_store store(file.path());
    auto app = sg::compile<chat_graph>(sg::with_store(store, {.snapshot_every = 0}));  // every piece read
    const sg::thread_id t{"t"};
    app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
    const auto clean = fingerprint(store);
    sql(file.path(), c.statement);
    REQUIRE(fingerprint(store) != clean);
    refused_everywhere<sg::checkpoint_error>(app, store, t, c.message);
  }
}

// ---- the codec's own numbers, containers and strings -------------------------------------------

template <class T>
std::string written(const T& v) {
  std::string out = "prefix ";  // the writer appends
  sg::detail::write_json(out, v);
  return out.substr(7);
}

TEST_CASE("the direct writer writes what nlohmann writes") {
  CHECK(written(0) == "0");
  CHECK(written(-2147483647 - 1) == nlohmann::json(-2147483647 - 1).dump());
  CHECK(written(std::uint64_t{18446744073709551615ull}) == "18446744073709551615");
  CHECK(written(true) == "true");
  CHECK(written(2.25) == nlohmann::json(2.25).dump());
  const std::string tricky = std::string("q\"b\\s/\b\f\n\r\t") + '\x01' + '\x1f' + '\x7f' + "end";
  CHECK(written(tricky) == nlohmann::json(tricky).dump());
  CHECK(written(std::string("caf\xc3\xa9 \xe2\x82\xac")) == nlohmann::json("caf\xc3\xa9 \xe2\x82\xac").dump());
  CHECK_THROWS_AS(written(std::string("bad \xff")), nlohmann::json::exception);  // as nlohmann: not UTF-8
  CHECK(written(std::vector<std::string>{"a", "", "c"}) == R"(["a","","c"])");
  CHECK(written(std::vector<std::vector<int>>{{1, 2}, {}}) == "[[1,2],[]]");
  CHECK(written(std::vector<bool>{true, false}) == "[true,false]");
  CHECK(written(std::vector<Msg>{{"user", "hi"}}) == nlohmann::json(std::vector<Msg>{{"user", "hi"}}).dump());
  std::string tail;
  sg::detail::write_json_tail(tail, std::vector<int>{1, 2, 3}, 1);
  CHECK(tail == "[2,3]");
  tail.clear();
  sg::detail::write_json_tail(tail, std::vector<int>{1, 2, 3}, 3);
  CHECK(tail == "[]");
}

template <class T>
T decoded(const char* text) {
  return sg::detail::decode_value<T>(nlohmann::json::parse(text), "test");
}

using name_counts = std::map<std::string, int>;
using int_map = std::map<int, int>;
using int_pair = std::pair<int, int>;
using byte_pair = std::array<std::uint8_t, 2>;

TEST_CASE("the decoder checks every number it converts to an integer") {
  CHECK(decoded<int>("7") == 7);
  CHECK(decoded<int>("-2147483648") == -2147483647 - 1);
  CHECK(decoded<int>("3.0") == 3);  // a float that is exactly an integer
  CHECK(decoded<std::uint64_t>("18446744073709551615") == 18446744073709551615ull);
  CHECK(decoded<std::int64_t>("-9223372036854775808") == std::numeric_limits<std::int64_t>::min());
  CHECK(decoded<std::vector<std::int64_t>>("[1,-1,1099511627776]") == std::vector<std::int64_t>{1, -1, 1LL << 40});
  CHECK(decoded<std::map<std::string, int>>(R"({"a":1,"b":-7})") == std::map<std::string, int>{{"a", 1}, {"b", -7}});
  CHECK(decoded<std::map<int, std::string>>(R"([[2,"x"]])") == std::map<int, std::string>{{2, "x"}});
  CHECK(decoded<float>("1e30") == 1e30f);
  CHECK(decoded<double>("1e300") == 1e300);
  for (const char* bad : {"1e300", "-1e30", "3.5", "2147483648", "-2147483649", "true", "\"7\"", "null", "[1]"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(decoded<int>(bad), doctest::Contains("does not decode"), sg::checkpoint_error);
  }
  for (const char* bad : {"-1", "-0.5", "1.8446744073709552e19", "1e300"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(decoded<std::uint64_t>(bad), sg::checkpoint_error);
  }
  CHECK_THROWS_AS(decoded<std::int64_t>("9223372036854775808"), sg::checkpoint_error);
  CHECK_THROWS_AS(decoded<std::int64_t>("9.223372036854775807e18"), sg::checkpoint_error);  // rounds to 2^63
  CHECK_THROWS_AS(decoded<std::vector<int>>("[1,1e300]"), sg::checkpoint_error);
  CHECK_THROWS_AS(decoded<name_counts>(R"({"a":1e300})"), sg::checkpoint_error);
  CHECK_THROWS_AS(decoded<int_map>("[[1e300,1]]"), sg::checkpoint_error);
  CHECK_THROWS_AS(decoded<int_pair>("[1,2.5]"), sg::checkpoint_error);
  CHECK_THROWS_AS(decoded<byte_pair>("[1,256]"), sg::checkpoint_error);
  CHECK_THROWS_AS(decoded<float>("1e300"), sg::checkpoint_error);  // no float holds it
  CHECK_THROWS_AS(decoded<std::vector<int>>(R"({"a":1})"), sg::checkpoint_error);
}

// ---- corrupted pending writes ---------------------------------------------------------------

struct Pair {
  sg::append<std::string> log;
  sg::counter<int> n;
};
inline int broken_runs = 0;
struct ok {
  using reads = sg::reads<>;
  using writes = sg::writes<&Pair::log, &Pair::n>;
  auto operator()(sg::view<Pair, reads>) const {
    return sg::write<&Pair::log>(std::string("ok")) | sg::write<&Pair::n>(1);
  }
};
struct broken {
  using reads = sg::reads<>;
  using writes = sg::writes<&Pair::log>;
  auto operator()(sg::view<Pair, reads>) const {
    ++broken_runs;
    throw std::runtime_error("broken");
    return sg::write<&Pair::log>(std::string("never"));
  }
};
using pair_graph = sg::graph<Pair, sg::edge<sg::start, ok>, sg::edge<sg::start, broken>, sg::edge<ok, sg::end>,
                             sg::edge<broken, sg::end>>;

TEST_CASE("a corrupted pending write is refused on resume with checkpoint_error; nothing is written") {
  const corruption cases[] = {
      {"truncated", "UPDATE pending_writes SET value = substr(value, 1, 7) WHERE channel = '__result__'", "not valid JSON"},
      {"a value of the wrong type", "UPDATE pending_writes SET value = '{\"update\":[5,\"x\"]}' WHERE channel = '__result__'", "does not decode"},
      {"a patch of the wrong length", "UPDATE pending_writes SET value = '{\"update\":[]}' WHERE channel = '__result__'", "does not match"},
      {"a node the graph lacks", "UPDATE pending_writes SET task = 'ghost#result' WHERE channel = '__result__'", "ghost"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    temp_db file("bad-writes");
    sg::sqlite_store store(file.path());
    auto app = sg::compile<pair_graph>(sg::with_store(store));
    const sg::thread_id t{"t"};
    CHECK_THROWS_AS(app.invoke(Pair{}, t), sg::node_error);
    REQUIRE(store.stats().pending_writes == 2);  // ok's result, broken's error
    sql(file.path(), c.statement);
    const auto before = fingerprint(store);
    const int runs = broken_runs;
    CHECK_THROWS_WITH_AS(app.resume(t), doctest::Contains(c.message), sg::checkpoint_error);
    CHECK(broken_runs == runs);  // refused before any node ran
    CHECK(fingerprint(store) == before);
  }
}

TEST_CASE("a pending write of the wrong shape is refused with checkpoint_error") {
  temp_db file("bad-shape");
  sg::sqlite_store store(file.path());
  auto app = sg::compile<pair_graph>(sg::with_store(store));
  const sg::thread_id t{"t"};
  CHECK_THROWS_AS(app.invoke(Pair{}, t), sg::node_error);
  sql(file.path(), "UPDATE pending_writes SET value = '{}' WHERE channel = '__result__'");
  const auto before = fingerprint(store);
  CHECK_THROWS_AS(app.resume(t), sg::checkpoint_error);
  CHECK(fingerprint(store) == before);
}

TEST_CASE("a pending write that does not decode, resumed on the thread pool, is refused") {
  // Kept writes are decoded on the calling thread before any task of the step is dispatched.
  temp_db file("bad-shape-pool");
  sg::sqlite_store store(file.path());
  auto app = sg::compile<pair_graph>(sg::with_store(store), sg::with_executor(sg::thread_pool{2}));
  const sg::thread_id t{"t"};
  CHECK_THROWS_AS(app.invoke(Pair{}, t), sg::node_error);
  sql(file.path(), "UPDATE pending_writes SET value = '{}' WHERE channel = '__result__'");
  const auto before = fingerprint(store);
  CHECK_THROWS_AS(app.resume(t), sg::checkpoint_error);
  CHECK(fingerprint(store) == before);
}

// ---- the same through any store: a wrapper corrupts what the store hands back ---------------

TEST_CASE_TEMPLATE("corrupted checkpoints from any store are refused; nothing is written", F, DURABLE_FIXTURES) {
  F fx;
  tampering_store<typename F::store_type> store(fx.store);
  auto app = sg::compile<chat_graph>(sg::with_store(store, {.snapshot_every = 0}));  // every piece read
  const sg::thread_id t{"t"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);

  SUBCASE("a truncated channel value") {
    store.tamper_checkpoint = [](sg::stored_checkpoint& cp) {
      for (auto& ch : cp.channels)
        if (ch.channel == "messages") ch.value.resize(ch.value.size() / 2);
    };
    refused_everywhere<sg::checkpoint_error>(app, fx.store, t, "not valid JSON");
  }
  SUBCASE("a channel missing") {
    store.tamper_checkpoint = [](sg::stored_checkpoint& cp) { cp.channels.pop_back(); };
    refused_everywhere<sg::checkpoint_error>(app, fx.store, t, "lacks channel 'calls'");
  }
  SUBCASE("append pieces on a channel that does not append") {
    store.tamper_checkpoint = [](sg::stored_checkpoint& cp) {
      for (auto& ch : cp.channels)
        if (ch.channel == "calls") ch.appends.push_back("1");
    };
    refused_everywhere<sg::checkpoint_error>(app, fx.store, t, "not an append channel");
  }
  SUBCASE("a join list of the wrong length") {
    store.tamper_checkpoint = [](sg::stored_checkpoint& cp) {
      auto meta = nlohmann::json::parse(cp.metadata);
      meta["arrived"] = nlohmann::json::array({nlohmann::json::array()});
      cp.metadata = meta.dump();
    };
    refused_everywhere<sg::checkpoint_error>(app, fx.store, t, "joins do not match");
  }
}

// ---- format versions -------------------------------------------------------------------------

TEST_CASE_TEMPLATE("checkpoints of format 1 (the schema list in every one) still load; others are refused", F,
                   DURABLE_FIXTURES) {
  F fx;
  tampering_store<typename F::store_type> store(fx.store);
  auto app = sg::compile<chat_graph>(sg::with_store(store, {.snapshot_every = 0}));  // every piece read
  const sg::thread_id t{"t"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  const auto latest = fx.store.get(t.value);
  REQUIRE(latest.has_value());
  CHECK(latest->format_version == sg::checkpoint_format_version);
  CHECK(latest->metadata.find("\"schema\"") == std::string::npos);  // only the thread's first has it
  CHECK(fx.store.get(t.value, 1)->metadata.find("\"schema\":[[\"messages\"") != std::string::npos);
  const auto expected = app.get_state(t)->values;

  int version = 1;
  store.tamper_checkpoint = [&](sg::stored_checkpoint& cp) {
    cp.format_version = version;
    if (version == 1 && cp.metadata.find("\"schema\"") == std::string::npos) {  // as format 1 wrote it
      auto meta = nlohmann::json::parse(cp.metadata);
      meta["schema"] = nlohmann::json::parse(sg::detail::schema_list_text<Chat>());
      cp.metadata = meta.dump();
    }
  };
  const auto old = app.get_state(t);
  REQUIRE(old.has_value());
  CHECK(old->values.messages.value() == expected.messages.value());
  CHECK(old->values.calls.value() == expected.calls.value());
  for (int bad : {0, 3, 99}) {
    CAPTURE(bad);
    version = bad;
    refused_everywhere<sg::checkpoint_error>(app, fx.store, t, ("format version " + std::to_string(bad)).c_str());
  }
}

// ---- another schema --------------------------------------------------------------------------

namespace other {
// The same first channel; `calls` changed type; `note` is new; nothing else.
struct Chat {
  sg::append<durable_test::Msg> messages;
  sg::counter<long> calls;
  std::string note;
};
struct noter {
  using reads = sg::reads<>;
  using writes = sg::writes<&Chat::note>;
  auto operator()(sg::view<Chat, reads>) const { return sg::write<&Chat::note>(std::string("n")); }
};
using G = sg::graph<Chat, sg::edge<sg::start, noter>, sg::edge<noter, sg::end>>;
}  // namespace other

TEST_CASE_TEMPLATE("a thread of another schema is refused, naming the channels that differ", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"schema"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);

  auto other_app = sg::compile<other::G>(sg::with_store(fx.store));
  const auto before = fingerprint(fx.store);
  std::string message;
  try {
    (void)other_app.get_state(t);
  } catch (const sg::checkpoint_error& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.find("another schema") != std::string::npos);
  CHECK(message.find("calls (counter<int> -> counter<long") != std::string::npos);  // GCC adds " int"
  CHECK(message.find("note (new)") != std::string::npos);
  CHECK(message.find("messages") == std::string::npos);  // unchanged, so not named
  CHECK_THROWS_AS(other_app.resume(t), sg::checkpoint_error);
  CHECK_THROWS_AS(other_app.invoke(other::Chat{}, t), sg::checkpoint_error);
  CHECK_THROWS_AS(other_app.invoke(other::Chat{}, t, sg::checkpoint_id{1}), sg::checkpoint_error);
  CHECK(fingerprint(fx.store) == before);

  // The original app still reads its thread.
  CHECK(app.get_state(t)->values.calls == 3);
}

// ---- unknown threads and ids, nothing to resume -------------------------------------------------

TEST_CASE_TEMPLATE("unknown threads and checkpoint ids are refused with checkpoint_error", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"known"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  const auto before = fingerprint(fx.store);
  const sg::thread_id ghost{"ghost"};

  CHECK_FALSE(app.get_state(ghost).has_value());  // an absent thread reads as empty
  CHECK(app.history(ghost).empty());
  CHECK_THROWS_WITH_AS(app.resume(ghost), doctest::Contains("'ghost' has no checkpoint"), sg::checkpoint_error);
  CHECK_THROWS_AS(app.resume(ghost, std::string("x")), sg::checkpoint_error);
  CHECK_THROWS_AS(app.update_state(ghost, sg::write<&Chat::calls>(1), sg::as_node<agent>), sg::checkpoint_error);
  CHECK_THROWS_AS(app.get_state(ghost, sg::checkpoint_id{1}), sg::checkpoint_error);

  CHECK_THROWS_WITH_AS(app.get_state(t, sg::checkpoint_id{99}), doctest::Contains("has no checkpoint 99"),
                       sg::checkpoint_error);
  CHECK_THROWS_AS(app.invoke(Chat{}, t, sg::checkpoint_id{99}), sg::checkpoint_error);
  CHECK_THROWS_AS(app.resume(t, sg::checkpoint_id{99}), sg::checkpoint_error);
  CHECK_THROWS_AS(app.resume(t, sg::checkpoint_id{-1}), sg::checkpoint_error);
  CHECK_THROWS_AS(app.invoke(Chat{}, ghost, sg::checkpoint_id{1}), sg::checkpoint_error);
  CHECK(fingerprint(fx.store) == before);
}

TEST_CASE_TEMPLATE("resume(value) of a finished thread has no interrupt to answer: refused, nothing written", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"done"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  REQUIRE(app.get_state(t)->next.empty());
  const auto before = fingerprint(fx.store);
  CHECK_THROWS_AS(app.resume(t, std::string("v")), sg::checkpoint_error);
  CHECK(fingerprint(fx.store) == before);
}

TEST_CASE_TEMPLATE("resume() of a finished thread has nothing to resume: refused, nothing written", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"done"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  const auto before = fingerprint(fx.store);
  CHECK_THROWS_WITH_AS(app.resume(t), doctest::Contains("nothing to resume"), sg::checkpoint_error);
  CHECK(fingerprint(fx.store) == before);
}

}  // namespace durable_bad_input

// ---- hostile data: deep nesting, numbers at the edge of their type, rows of unknown kinds ----

namespace durable_bad_input {

// A node that asks a question and reads the answer as the default type, nlohmann::json.
struct Ask {
  sg::append<std::string> log;
};
struct asker {
  using reads = sg::reads<>;
  using writes = sg::writes<&Ask::log>;
  auto operator()(sg::view<Ask, reads>, sg::run_context& ctx) const {
    const nlohmann::json answer = ctx.interrupt(std::string("name?"));
    return sg::write<&Ask::log>(answer.dump());
  }
};
using ask_graph = sg::graph<Ask, sg::edge<sg::start, asker>, sg::edge<asker, sg::end>>;

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// Sets sg::max_json_depth for one scope.
struct depth_limit {
  explicit depth_limit(std::size_t n) { sg::max_json_depth = n; }
  ~depth_limit() { sg::max_json_depth = sg::default_max_json_depth; }
};

TEST_CASE("the depth scan counts brackets outside strings only") {
  using sg::detail::nests_deeper_than;
  CHECK_FALSE(nests_deeper_than("[[1],{\"a\":[2]}]", 3));
  CHECK(nests_deeper_than("[[1],{\"a\":[[2]]}]", 3));
  CHECK_FALSE(nests_deeper_than(R"(["[[[[", "\"[[[[", {"k\\": "]]]]{{{{"}])", 2));
  CHECK(nests_deeper_than(R"(["\\", [[[1]]]])", 3));  // an escaped backslash ends before the quote
  CHECK_FALSE(nests_deeper_than("]]]][1]", 1));       // stray closers do not lower the count below 0
  CHECK(nests_deeper_than(nested(513), 512));
  CHECK_FALSE(nests_deeper_than(nested(512), 512));
  CHECK_FALSE(nests_deeper_than("7", 0));
}

TEST_CASE("a resume answer nested 100,000 deep is refused before the node reads it") {
  // It used to reach ctx.interrupt, whose conversion to nlohmann::json recursed once per
  // level and overflowed the stack.
  temp_db file("deep-answer");
  sg::sqlite_store store(file.path());
  auto app = sg::compile<ask_graph>(sg::with_store(store));
  const sg::thread_id t{"t"};
  app.invoke(Ask{}, t);
  REQUIRE(app.get_state(t)->interrupts.size() == 1);
  const auto latest = store.get(t.value)->id;
  sql(file.path(), "INSERT INTO pending_writes VALUES ('t', " + std::to_string(latest) + ", 'asker#resume', 0, "
                   "'__resume__', '" + nested(100'000) + "')");
  const auto before = fingerprint(store);
  CHECK_THROWS_WITH_AS(app.resume(t), doctest::Contains("pending write 'asker#resume': checkpoint data for a resume "
                                                        "value nests deeper than 512 levels"),
                       sg::checkpoint_error);
  CHECK_THROWS_AS(app.get_state(t), sg::checkpoint_error);
  CHECK(fingerprint(store) == before);
  // An answer within the limit is read as before.
  sql(file.path(), "UPDATE pending_writes SET value = '" + nested(100) + "'");
  CHECK(app.resume(t).log.value() == std::vector<std::string>{nested(100)});
}

TEST_CASE("a channel value nested 1,000,000 deep is refused, naming the thread, checkpoint and channel") {
  temp_db file("deep-value");
  sg::sqlite_store store(file.path());
  auto app = sg::compile<chat_graph>(sg::with_store(store, {.snapshot_every = 0}));  // every piece read
  const sg::thread_id t{"t"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  sql(file.path(), "UPDATE checkpoints SET vals = sg_set_value(vals, 'messages', '" + nested(1'000'000) +
                       "') WHERE id = 1");
  refused_everywhere<sg::checkpoint_error>(app, store, t,
                                           "checkpoint 6 of thread 't', channel 'messages': checkpoint data for "
                                           "messages nests deeper than 512 levels");
}

TEST_CASE("the depth limit is sg::max_json_depth: a value at the limit loads, one level deeper does not") {
  sg::memory_store store;
  auto app = sg::compile<chat_graph>(sg::with_store(store, {.snapshot_every = 0}));  // every piece read
  const sg::thread_id t{"t"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);  // messages: [{...}], two levels
  {
    depth_limit two(2);
    CHECK(app.get_state(t)->values.messages.size() == 6);
  }
  {
    depth_limit one(1);
    CHECK_THROWS_WITH_AS(app.get_state(t), doctest::Contains("nests deeper than 1 levels"), sg::checkpoint_error);
  }
  CHECK(sg::max_json_depth == sg::default_max_json_depth);
  CHECK(app.get_state(t)->values.messages.size() == 6);
}

TEST_CASE("stored numbers are range-checked before any arithmetic on them") {
  const corruption cases[] = {
      // max_version + 1 was signed overflow (undefined behaviour) at the next checkpoint.
      {"max_version 2^63-1",
       "UPDATE checkpoints SET metadata = replace(metadata, '\"max_version\":', "
       "'\"max_version\":9223372036854775807,\"x\":') WHERE id = 6",
       "checkpoint 6 of thread 't', metadata: max_version 9223372036854775807 is out of range"},
      // Below a channel's version the next put would reuse a version the store holds.
      {"max_version below a channel's version",
       "UPDATE checkpoints SET metadata = replace(metadata, '\"max_version\":', '\"max_version\":0,\"x\":') "
       "WHERE id = 6",
       "max_version 0 is out of range"},
      {"step 2^63-1", "UPDATE checkpoints SET step = 9223372036854775807 WHERE id = 6",
       "checkpoint 6 of thread 't', step: 9223372036854775807 is out of range"},
      {"step -1", "UPDATE checkpoints SET step = -1 WHERE id = 6", "step: -1 is out of range"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    temp_db file("edge-numbers");
    sg::sqlite_store store(file.path());
    auto app = sg::compile<chat_graph>(sg::with_store(store, {.snapshot_every = 0}));  // every piece read
    const sg::thread_id t{"t"};
    app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
    const auto clean = fingerprint(store);
    sql(file.path(), c.statement);
    REQUIRE(fingerprint(store) != clean);
    refused_everywhere<sg::checkpoint_error>(app, store, t, c.message);
  }
}

TEST_CASE("a format version no int holds is a corrupted row, not a truncated number") {
  temp_db file("format-2^32");
  sg::sqlite_store store(file.path());
  auto app = sg::compile<chat_graph>(sg::with_store(store, {.snapshot_every = 0}));  // every piece read
  const sg::thread_id t{"t"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  sql(file.path(), "UPDATE checkpoints SET format_version = 4294967298 WHERE id = 6");  // 2^32 + 2 wrapped to 2
  CHECK_THROWS_WITH_AS(app.get_state(t),
                       doctest::Contains("checkpoint 6 of thread 't' has a corrupted format version (4294967298)"),
                       sg::store_format_error);
  CHECK_THROWS_AS(app.resume(t), sg::store_format_error);
  CHECK_THROWS_AS(app.invoke(Chat{}, t), sg::store_format_error);
}

TEST_CASE_TEMPLATE("a channel row that cannot be: negative version, listed twice, not in the schema", F,
                   DURABLE_FIXTURES) {
  F fx;
  tampering_store<typename F::store_type> store(fx.store);
  auto app = sg::compile<chat_graph>(sg::with_store(store, {.snapshot_every = 0}));  // every piece read
  const sg::thread_id t{"t"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);

  SUBCASE("a negative version") {
    store.tamper_checkpoint = [](sg::stored_checkpoint& cp) {
      for (auto& ch : cp.channels)
        if (ch.channel == "calls") ch.version = -5;
    };
    refused_everywhere<sg::checkpoint_error>(app, fx.store, t, "checkpoint 6 of thread 't', channel 'calls': has "
                                                               "version -5");
  }
  SUBCASE("a channel listed twice") {
    store.tamper_checkpoint = [](sg::stored_checkpoint& cp) { cp.channels.push_back(cp.channels.front()); };
    refused_everywhere<sg::checkpoint_error>(app, fx.store, t, "channel 'messages': is listed twice");
  }
  SUBCASE("a channel the schema lacks") {
    store.tamper_checkpoint = [](sg::stored_checkpoint& cp) {
      cp.channels.push_back({"ghost", 1, "1", {}});
    };
    refused_everywhere<sg::checkpoint_error>(app, fx.store, t, "channel 'ghost': is not a channel of this schema");
  }
}

TEST_CASE("pending writes of an unknown kind or an index past int32 are refused, naming the row") {
  const corruption cases[] = {
      {"an unknown kind", "UPDATE pending_writes SET task = 'ok#bogus' WHERE channel = '__result__'",
       "checkpoint 1 of thread 't', pending write 'ok#bogus': is of an unknown kind 'bogus'"},
      {"no kind", "UPDATE pending_writes SET task = 'ok' WHERE channel = '__result__'", "pending write 'ok': is of an unknown kind ''"},
      {"a negative index", "UPDATE pending_writes SET idx = -3 WHERE channel = '__result__'", "pending write 'ok#result': has index -3"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    temp_db file("kinds");
    sg::sqlite_store store(file.path());
    auto app = sg::compile<pair_graph>(sg::with_store(store));
    const sg::thread_id t{"t"};
    CHECK_THROWS_AS(app.invoke(Pair{}, t), sg::node_error);
    REQUIRE(store.stats().pending_writes == 2);  // ok's result, broken's error
    sql(file.path(), c.statement);
    const auto before = fingerprint(store);
    const int runs = broken_runs;
    CHECK_THROWS_WITH_AS(app.resume(t), doctest::Contains(c.message), sg::checkpoint_error);
    CHECK_THROWS_WITH_AS(app.get_state(t), doctest::Contains(c.message), sg::checkpoint_error);
    CHECK(broken_runs == runs);
    CHECK(fingerprint(store) == before);
  }
  // 2^40 was truncated to 0 by a cast and read as a valid row; the store now refuses it.
  temp_db file("index-2^40");
  sg::sqlite_store store(file.path());
  auto app = sg::compile<pair_graph>(sg::with_store(store));
  const sg::thread_id t{"t"};
  CHECK_THROWS_AS(app.invoke(Pair{}, t), sg::node_error);
  sql(file.path(), "UPDATE pending_writes SET idx = 1099511627776 WHERE channel = '__result__'");
  CHECK_THROWS_WITH_AS(app.resume(t),
                       doctest::Contains("checkpoint 1 of thread 't' has a corrupted pending write 'ok#result' "
                                         "(index 1099511627776)"),
                       sg::store_format_error);
}

}  // namespace durable_bad_input
