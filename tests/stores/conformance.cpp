// The store conformance suite: what every checkpoint store must do, run on each fixture.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace store_test;
using sg::checkpoint_source;

static_assert(sg::checkpoint_store<sg::memory_store>);
static_assert(sg::checkpoint_store<sg::sqlite_store>);
static_assert(!sg::checkpoint_store<int>);

TEST_CASE("checkpoint sources have stable names") {
  for (auto s : {checkpoint_source::input, checkpoint_source::loop, checkpoint_source::update, checkpoint_source::fork})
    CHECK(sg::parse_checkpoint_source(sg::to_string(s)) == s);
  CHECK(sg::to_string(checkpoint_source::fork) == "fork");
  CHECK_FALSE(sg::parse_checkpoint_source("Loop"));
}

TEST_CASE_TEMPLATE("a put reads back whole", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  const std::string messages = R"([{"role":"user","content":"hi \"there\" \u00fc ü\n"}])";
  const auto id = put(s, "t1", {{"messages", 1, messages}, {"calls", 1, "0"}},
                      {.step = -1,
                       .source = checkpoint_source::input,
                       .metadata = R"({"next":["agent"]})",
                       .schema_hash = "9f86d081",
                       .format_version = 3});
  CHECK(id == 1);

  sg::stored_checkpoint expected{
      {"t1", 1, sg::no_checkpoint, -1, checkpoint_source::input, 3, "9f86d081", R"({"next":["agent"]})"},
      {{"messages", 1, messages, {}}, {"calls", 1, "0", {}}}};
  CHECK(s.get("t1") == expected);
  CHECK(s.get("t1", 1) == expected);
  REQUIRE(s.list("t1").size() == 1);
  CHECK(s.list("t1")[0] == static_cast<const sg::checkpoint_info&>(expected));
  CHECK(s.threads() == std::vector<std::string>{"t1"});
  CHECK(s.stats() == sg::store_stats{1, 1, 2, messages.size() + 1, 0});
}

TEST_CASE_TEMPLATE("values and metadata keep every byte", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  std::string big(1 << 20, 'x');
  for (std::size_t i = 0; i < big.size(); i += 97) big[i] = static_cast<char>('a' + i % 26);
  const std::string odd = "line1\nline2\t\"quoted\" \\ 'single' ∑ 🙂";
  put(s, "thread with spaces/ü", {{"big", 7, big}, {"odd", 2, odd}, {"empty", 1, ""}},
      {.metadata = "", .schema_hash = ""});
  auto cp = s.get("thread with spaces/ü");
  REQUIRE(cp);
  REQUIRE(cp->channels.size() == 3);
  CHECK(cp->channels[0].value == big);
  CHECK(cp->channels[0].version == 7);
  CHECK(cp->channels[1].value == odd);
  CHECK(cp->channels[2].value.empty());
  CHECK(cp->metadata.empty());
  CHECK(cp->schema_hash.empty());
}

TEST_CASE_TEMPLATE("unknown threads and ids read as empty", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  CHECK(s.threads().empty());
  CHECK(s.stats() == sg::store_stats{});
  CHECK_FALSE(s.get("nope"));
  put(s, "t1", {{"x", 1, "1"}});
  CHECK_FALSE(s.get("nope"));
  CHECK_FALSE(s.get("nope", 1));
  CHECK_FALSE(s.get("t1", 2));
  CHECK_FALSE(s.get("t1", 0));
  CHECK_FALSE(s.get("t1", -5));
  CHECK(s.get("t1", 1));
  CHECK(s.list("nope").empty());
  CHECK(s.pending_writes("nope", 1).empty());
  CHECK(s.pending_writes("t1", 1).empty());
  CHECK_FALSE(s.delete_thread("nope"));
  CHECK(s.threads() == std::vector<std::string>{"t1"});
}

TEST_CASE_TEMPLATE("history is newest first and follows the parent chain", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  std::int64_t parent = sg::no_checkpoint;
  for (int step = 0; step < 6; ++step) {
    auto source = step == 0 ? checkpoint_source::input : checkpoint_source::loop;
    parent =
        put(s, "t", {{"counter", step + 1, std::to_string(step)}}, {.parent = parent, .step = step, .source = source});
    CHECK(parent == step + 1);
  }
  const auto history = s.list("t");
  REQUIRE(history.size() == 6);
  for (std::size_t i = 0; i < history.size(); ++i) {
    CHECK(history[i].id == static_cast<std::int64_t>(6 - i));
    CHECK(history[i].parent == history[i].id - 1);
    CHECK(history[i].step == history[i].id - 1);
    CHECK(history[i].thread == "t");
  }
  CHECK(history.back().source == checkpoint_source::input);
  CHECK(history.front().source == checkpoint_source::loop);

  // Walking parents from the latest reaches the first checkpoint, each with its own value.
  auto at = s.get("t");
  int hops = 0;
  while (at && at->parent != sg::no_checkpoint) {
    CHECK(joined(*at, "counter") == std::to_string(at->step));
    at = s.get("t", at->parent);
    ++hops;
  }
  CHECK(hops == 5);

  using v = std::vector<std::int64_t>;
  CHECK(ids(s, "t", {.limit = 2}) == v{6, 5});
  CHECK(ids(s, "t", {.before = 5, .limit = 2}) == v{4, 3});
  CHECK(ids(s, "t", {.before = 3}) == v{2, 1});
  CHECK(ids(s, "t", {.before = 1}).empty());
  CHECK(ids(s, "t", {.before = 100}) == v{6, 5, 4, 3, 2, 1});
  CHECK(ids(s, "t", {.limit = 0}).empty());
}

TEST_CASE_TEMPLATE("forks: two children of one parent keep their own values", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  put(s, "t", {{"x", 1, "a"}, {"y", 1, "b"}, {"log", 1, "L0", true}});
  // Both branches reach x@2 and log@2 with different values: versions alone would collide.
  const auto a = put(s, "t", {{"x", 2, "A"}, {"y", 1}, {"log", 2, "LA", true}}, {.parent = 1, .step = 1});
  const auto b = put(s, "t", {{"x", 2, "B"}, {"y", 1}, {"log", 2, "LB", true}},
                     {.parent = 1, .step = 1, .source = checkpoint_source::fork, .mode = sg::put_mode::fork});
  CHECK(a == 2);
  CHECK(b == 3);
  // The fork is the head now: going on from the other branch is a fork too.
  const auto grandchild = put(s, "t", {{"x", 2}, {"y", 2, "c"}, {"log", 3, "LA2", true}},
                              {.parent = a, .step = 2, .mode = sg::put_mode::fork});
  CHECK(grandchild == 4);

  CHECK(joined(*s.get("t", a), "x") == "A");
  CHECK(joined(*s.get("t", b), "x") == "B");
  CHECK(joined(*s.get("t", b), "y") == "b");
  CHECK(joined(*s.get("t", b), "log") == "L0|LB");
  CHECK(joined(*s.get("t", grandchild), "x") == "A");
  CHECK(joined(*s.get("t", grandchild), "y") == "c");
  CHECK(joined(*s.get("t", grandchild), "log") == "L0|LA|LA2");
  CHECK(s.get("t")->id == grandchild);

  const auto history = s.list("t");
  REQUIRE(history.size() == 4);
  CHECK(history[0].parent == 2);
  CHECK(history[1].parent == 1);
  CHECK(history[1].source == checkpoint_source::fork);
  CHECK(history[2].parent == 1);
  CHECK(history[3].parent == sg::no_checkpoint);
}

TEST_CASE_TEMPLATE("a put that changes nothing writes no value", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  const std::string history(500, 'h');
  put(s, "t", {{"messages", 1, history}, {"calls", 1, "1"}});
  const auto before = s.stats();
  CHECK(before.values == 2);
  CHECK(before.value_bytes == history.size() + 1);

  put(s, "t", {{"messages", 1}, {"calls", 1}}, {.parent = 1, .step = 1});
  auto after = s.stats();
  CHECK(after.checkpoints == 2);
  CHECK(after.values == 2);
  CHECK(after.value_bytes == before.value_bytes);
  CHECK(joined(*s.get("t", 2), "messages") == history);

  // A value given with the parent's version is the parent's: kept once, not stored again.
  put(s, "t", {{"messages", 1, "ignored"}, {"calls", 2, "2"}}, {.parent = 2, .step = 2});
  after = s.stats();
  CHECK(after.values == 3);
  CHECK(after.value_bytes == before.value_bytes + 1);
  CHECK(joined(*s.get("t", 3), "messages") == history);
  CHECK(joined(*s.get("t", 3), "calls") == "2");
}

TEST_CASE_TEMPLATE("an append stores only what is new", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  // No parent to append to: the first piece is the whole value.
  put(s, "t", {{"log", 1, "a", true}, {"n", 1, "0"}});
  std::int64_t last = 1;
  std::string expected = "a";
  std::size_t bytes = 1 + 1;
  for (int i = 2; i <= 200; ++i) {
    const std::string piece = "msg" + std::to_string(i);
    last = put(s, "t", {{"log", i, piece, true}, {"n", 1}}, {.parent = last, .step = i});
    expected += "|" + piece;
    bytes += piece.size();
  }
  // Storage grows with the pieces, not with the history: no earlier piece is written again.
  CHECK(s.stats().values == 201);
  CHECK(s.stats().value_bytes == bytes);
  auto latest = s.get("t");
  REQUIRE(latest);
  CHECK(joined(*latest, "log") == expected);
  CHECK(latest->channels[0].value == "a");
  CHECK(latest->channels[0].appends.size() == 199);
  CHECK(joined(*s.get("t", 3), "log") == "a|msg2|msg3");

  // A whole value starts a new chain.
  const auto reset = put(s, "t", {{"log", 201, "[]"}, {"n", 1}}, {.parent = last});
  CHECK(s.get("t", reset)->channels[0].appends.empty());
  CHECK(joined(*s.get("t", reset), "log") == "[]");
  const auto after_reset = put(s, "t", {{"log", 202, "z", true}, {"n", 1}}, {.parent = reset});
  CHECK(joined(*s.get("t", after_reset), "log") == "[]|z");

  // A channel the parent lacks has nothing to append to: its first piece is its whole value.
  const auto added = put(s, "t", {{"log", 202}, {"n", 1}, {"extra", 1, "e", true}}, {.parent = after_reset});
  CHECK(joined(*s.get("t", added), "extra") == "e");
  CHECK(s.get("t", added)->channels[2].appends.empty());
}

TEST_CASE_TEMPLATE("a put with an unknown parent is refused and writes nothing", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  put(s, "t1", {{"x", 1, "1"}});
  const auto stats = s.stats();
  CHECK_THROWS_AS(put(s, "t1", {{"x", 2, "2"}}, {.parent = 7}), sg::store_refused_error);
  CHECK_THROWS_WITH(put(s, "t1", {{"x", 2, "2"}}, {.parent = 7}),
                    doctest::Contains("parent checkpoint 7 does not exist in this thread"));
  // The parent must be in the same thread, and a refused put makes no empty thread.
  CHECK_THROWS_AS(put(s, "t2", {{"x", 1, "1"}}, {.parent = 1}), sg::store_refused_error);
  CHECK(s.stats() == stats);
  CHECK(s.threads() == std::vector<std::string>{"t1"});
  CHECK(ids(s, "t1") == std::vector<std::int64_t>{1});
  CHECK(put(s, "t1", {{"x", 2, "2"}}, {.parent = 1}) == 2);
}

TEST_CASE_TEMPLATE("a channel without a value must be its parent's", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  put(s, "t", {{"x", 1, "1"}, {"y", 1, "1"}});
  const auto stats = s.stats();
  CHECK_THROWS_WITH_AS(put(s, "t", {{"x", 1}, {"y", 2}}, {.parent = 1}),
                       doctest::Contains("channel 'y' at version 2 has no value, and its parent checkpoint 1 has it "
                                         "at version 1"),
                       sg::store_refused_error);
  CHECK_THROWS_WITH_AS(put(s, "t", {{"x", 1}, {"z", 1}}, {.parent = 1}), doctest::Contains("does not have the channel"),
                       sg::store_refused_error);
  CHECK_THROWS_WITH_AS(put(s, "u", {{"x", 1}}), doctest::Contains("there is no parent"), sg::store_refused_error);
  CHECK_THROWS_WITH_AS(put(s, "t", {{"x", 2, "2"}, {"x", 3, "3"}}, {.parent = 1}),
                       doctest::Contains("'x' is listed twice"), sg::store_refused_error);
  CHECK_THROWS_AS(put(s, "t", {{"", 1, "1"}}, {.parent = 1}), sg::store_refused_error);
  CHECK_THROWS_AS(put(s, "u", {{"", 1, "1"}}), sg::store_refused_error);
  CHECK_THROWS_AS(put(s, "", {{"x", 1, "1"}}), sg::store_refused_error);
  // A refusal after new names and values were taken in leaves none of them behind.
  CHECK_THROWS_AS(put(s, "t", {{"new", 1, "n"}, {"x", 2, "2"}, {"y", 9}}, {.parent = 1}), sg::store_refused_error);
  CHECK(s.stats() == stats);
  CHECK(ids(s, "t") == std::vector<std::int64_t>{1});
  CHECK(put(s, "t", {{"x", 1}, {"y", 1}}, {.parent = 1}) == 2);
  CHECK(s.get("t", 2)->channels.size() == 2);
}

TEST_CASE_TEMPLATE("pending writes are kept per checkpoint, once per task and index", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  put(s, "t", {{"messages", 1, "[]"}});
  const std::vector<sg::pending_write_put> writes{
      {"tools", 0, "messages", R"({"role":"tool"})"}, {"agent", 1, "calls", "1"}, {"agent", 0, "messages", "m"}};
  s.put_writes("t", 1, writes);
  const std::vector<sg::pending_write> expected{
      {"agent", 0, "messages", "m"}, {"agent", 1, "calls", "1"}, {"tools", 0, "messages", R"({"role":"tool"})"}};
  CHECK(s.pending_writes("t", 1) == expected);

  // A retry, even one with other values, changes nothing: the first write of a key wins.
  s.put_writes("t", 1, writes);
  const std::vector<sg::pending_write_put> retry{{"agent", 0, "messages", "other"}};
  s.put_writes("t", 1, retry);
  CHECK(s.pending_writes("t", 1) == expected);
  CHECK(s.stats().pending_writes == 3);

  put(s, "t", {{"messages", 1}}, {.parent = 1});
  CHECK(s.pending_writes("t", 2).empty());
  s.put_writes("t", 2, retry);
  CHECK(s.pending_writes("t", 2) == std::vector<sg::pending_write>{{"agent", 0, "messages", "other"}});
  s.put_writes("t", 2, {});
  CHECK(s.stats().pending_writes == 4);

  CHECK_THROWS_WITH_AS(s.put_writes("t", 9, writes), doctest::Contains("checkpoint 9"), sg::store_refused_error);
  CHECK_THROWS_AS(s.put_writes("nope", 1, writes), sg::store_refused_error);
  CHECK(s.stats().pending_writes == 4);
  CHECK(s.threads() == std::vector<std::string>{"t"});
}

TEST_CASE_TEMPLATE("delete_thread removes one thread whole", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  auto fill = [&](const char* thread) {
    put(s, thread, {{"x", 1, std::string(thread) + "-1"}, {"log", 1, "a", true}});
    put(s, thread, {{"x", 2, std::string(thread) + "-2"}, {"log", 2, "b", true}}, {.parent = 1});
    const std::vector<sg::pending_write_put> w{{"n", 0, "x", "w"}};
    s.put_writes(thread, 2, w);
  };
  fill("keep");
  const auto kept = s.stats();
  fill("drop");
  CHECK(s.stats().threads == 2);

  CHECK(s.delete_thread("drop"));
  CHECK_FALSE(s.get("drop"));
  CHECK_FALSE(s.get("drop", 1));
  CHECK(s.list("drop").empty());
  CHECK(s.pending_writes("drop", 2).empty());
  CHECK(s.threads() == std::vector<std::string>{"keep"});
  CHECK(s.stats() == kept);
  CHECK(joined(*s.get("keep"), "x") == "keep-2");
  CHECK(joined(*s.get("keep"), "log") == "a|b");
  CHECK(s.pending_writes("keep", 2).size() == 1);
  CHECK_FALSE(s.delete_thread("drop"));

  // The name can be used again and starts from scratch.
  CHECK(put(s, "drop", {{"x", 1, "fresh"}}) == 1);
  CHECK(joined(*s.get("drop"), "x") == "fresh");
}

TEST_CASE_TEMPLATE("threads lists every thread once, sorted", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  for (const char* t : {"b", "a", "c", "a-2", "B"}) put(s, t, {{"x", 1, "1"}});
  put(s, "a", {{"x", 1}}, {.parent = 1});
  CHECK(s.threads() == std::vector<std::string>{"B", "a", "a-2", "b", "c"});
  CHECK(s.stats().threads == 5);
  CHECK(s.stats().checkpoints == 6);
}

// ---- one writer per thread -----------------------------------------------------------------

static_assert(std::is_base_of_v<sg::error, sg::conflict_error>);
static_assert(!std::is_base_of_v<sg::store_error, sg::conflict_error>);  // not a store failure: retry

TEST_CASE_TEMPLATE("one writer per thread: a put continues the head or conflicts, and writes nothing", F,
                   STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  put(s, "t", {{"x", 1, "a"}, {"log", 1, "L1", true}});
  put(s, "t", {{"x", 2, "b"}, {"log", 2, "L2", true}}, {.parent = 1, .step = 1});
  const auto stats = s.stats();

  // A second writer that read checkpoint 1 as the head, with new names and values.
  try {
    put(s, "t", {{"x", 3, "late"}, {"log", 3, "late", true}, {"new", 1, "n"}}, {.parent = 1, .step = 1});
    FAIL("a put that does not continue the head was accepted");
  } catch (const sg::conflict_error& e) {
    CHECK(e.thread() == "t");
    CHECK(e.expected() == 1);
    CHECK(e.actual() == 2);
    CHECK(std::string(e.what()).find("thread 't'") != std::string::npos);
    CHECK(std::string(e.what()).find("continued checkpoint 1 but the thread's head is now checkpoint 2") !=
          std::string::npos);
  }
  // A writer that saw no thread, when there is one.
  CHECK_THROWS_AS(put(s, "t", {{"x", 1, "other start"}}), sg::conflict_error);
  CHECK(s.stats() == stats);
  CHECK(ids(s, "t") == std::vector<std::int64_t>{2, 1});
  CHECK(joined(*s.get("t"), "log") == "L1|L2");

  // A parent that does not exist is a refusal, not a conflict, in either mode.
  CHECK_THROWS_AS(put(s, "t", {{"x", 3, "c"}}, {.parent = 9}), sg::store_refused_error);
  CHECK_THROWS_AS(put(s, "t", {{"x", 3, "c"}}, {.parent = 9, .mode = sg::put_mode::fork}), sg::store_refused_error);
  CHECK(s.stats() == stats);

  CHECK(put(s, "t", {{"x", 3, "c"}, {"log", 3, "L3", true}}, {.parent = 2, .step = 2}) == 3);
  CHECK(joined(*s.get("t"), "log") == "L1|L2|L3");
}

TEST_CASE_TEMPLATE("one writer per thread: a fork from an older checkpoint is a new branch and the new head", F,
                   STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  put(s, "t", {{"x", 1, "a"}});
  put(s, "t", {{"x", 2, "b"}}, {.parent = 1});
  put(s, "t", {{"x", 3, "c"}}, {.parent = 2});
  const auto fork =
      put(s, "t", {{"x", 4, "f"}}, {.parent = 1, .source = checkpoint_source::fork, .mode = sg::put_mode::fork});
  CHECK(fork == 4);
  CHECK(s.get("t")->id == 4);  // the newest checkpoint is the head, as in LangGraph
  CHECK(s.get("t")->parent == 1);
  // The old branch's writer now conflicts; the fork's continues.
  CHECK_THROWS_AS(put(s, "t", {{"x", 5, "d"}}, {.parent = 3}), sg::conflict_error);
  CHECK(put(s, "t", {{"x", 5, "g"}}, {.parent = 4}) == 5);
  CHECK(joined(*s.get("t", 3), "x") == "c");  // the old branch is kept as it was
  CHECK(joined(*s.get("t"), "x") == "g");
  // A fork may also start a new root in an existing thread, or fork from the head itself.
  CHECK(put(s, "t", {{"x", 1, "root"}}, {.mode = sg::put_mode::fork}) == 6);
  CHECK(put(s, "t", {{"x", 2, "h"}}, {.parent = 6, .mode = sg::put_mode::fork}) == 7);
}

TEST_CASE_TEMPLATE("one writer per thread: pending writes are kept only for the head", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  put(s, "t", {{"x", 1, "a"}});
  put(s, "t", {{"x", 2, "b"}}, {.parent = 1});
  const std::vector<sg::pending_write_put> writes{{"agent", 0, "x", "late"}, {"tools", 0, "x", "late"}};
  try {
    s.put_writes("t", 1, writes);
    FAIL("pending writes for a checkpoint that is no longer the head were accepted");
  } catch (const sg::conflict_error& e) {
    CHECK(e.thread() == "t");
    CHECK(e.expected() == 1);
    CHECK(e.actual() == 2);
  }
  CHECK(s.pending_writes("t", 1).empty());
  CHECK(s.stats().pending_writes == 0);
  CHECK_THROWS_AS(s.put_writes("t", 9, writes), sg::store_refused_error);
  s.put_writes("t", 2, writes);
  CHECK(s.pending_writes("t", 2).size() == 2);
}

// ---- retention -----------------------------------------------------------------------------

namespace {

// A thread of `n` checkpoints: x changes every step, `log` appends a piece every step, `big`
// is written once by the first checkpoint and referred to by every later one.
// "x7", "p7": append(), not operator+, which GCC 12 warns falsely about (-Wrestrict).
std::string tagged(const char* tag, int i) { return std::string(tag).append(std::to_string(i)); }

template <class Store>
void long_thread(Store& s, std::string_view thread, int n) {
  std::int64_t parent = sg::no_checkpoint;
  for (int i = 1; i <= n; ++i)
    parent = put(s, thread,
                 {{"big", 1, i == 1 ? std::optional<std::string>(std::string(1000, 'B')) : std::nullopt},
                  {"x", i, tagged("x", i)},
                  {"log", i, tagged("p", i), true}},
                 {.parent = parent, .step = i - 1});
}

std::string log_until(int n) {
  std::string out = "p1";
  for (int i = 2; i <= n; ++i) out.append("|").append(tagged("p", i));
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("prune keep_latest keeps the newest checkpoints loadable whole", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  long_thread(s, "t", 50);
  long_thread(s, "other", 5);
  const auto other = s.get("other");
  const std::vector<sg::pending_write_put> w{{"agent", 0, "x", "w"}};
  s.put_writes("t", 50, w);
  const auto before = s.stats();

  CHECK(s.prune("t", sg::keep_latest{10}) == 40);
  CHECK(ids(s, "t") == std::vector<std::int64_t>{50, 49, 48, 47, 46, 45, 44, 43, 42, 41});
  // Every kept checkpoint reads as it did: the values older checkpoints wrote are kept.
  for (int id = 41; id <= 50; ++id) {
    auto cp = s.get("t", id);
    REQUIRE(cp);
    CHECK(joined(*cp, "log") == log_until(id));
    CHECK(joined(*cp, "big") == std::string(1000, 'B'));
    CHECK(joined(*cp, "x") == tagged("x", id));
  }
  CHECK(s.get("t")->id == 50);
  // Pruned ids read as unknown; the oldest kept one's parent chain ends there.
  CHECK_FALSE(s.get("t", 40));
  CHECK_FALSE(s.get("t", 1));
  CHECK(s.get("t", 41)->parent == 40);
  CHECK(s.pending_writes("t", 50).size() == 1);
  const auto after = s.stats();
  CHECK(after.checkpoints == before.checkpoints - 40);
  CHECK(after.threads == 2);
  CHECK(after.pending_writes == 1);
  // The 40 x values only pruned checkpoints had are gone; big and the log pieces stay.
  CHECK(after.values == before.values - 40);
  CHECK(s.get("other") == other);

  // The thread goes on from its head; pruning again to fewer keeps fewer.
  CHECK(put(s, "t", {{"big", 1}, {"x", 51, "x51"}, {"log", 51, "p51", true}}, {.parent = 50, .step = 50}) == 51);
  CHECK(joined(*s.get("t"), "log") == log_until(51));
  CHECK(s.prune("t", sg::keep_latest{3}) == 8);
  CHECK(ids(s, "t") == std::vector<std::int64_t>{51, 50, 49});
  CHECK(joined(*s.get("t", 49), "log") == log_until(49));
  CHECK(s.prune("t", sg::keep_latest{3}) == 0);
  CHECK(s.prune("t", sg::keep_latest{0}) == 2);  // the head is always kept
  CHECK(ids(s, "t") == std::vector<std::int64_t>{51});
  CHECK(joined(*s.get("t"), "big") == std::string(1000, 'B'));
  CHECK(joined(*s.get("t"), "log") == log_until(51));
  CHECK(s.prune("nope", sg::keep_latest{1}) == 0);
  CHECK(s.stats().pending_writes == 0);  // checkpoint 50's went with it
}

TEST_CASE_TEMPLATE("prune drops the values only pruned checkpoints refer to", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  // `note` is rewritten whole every step (1000 bytes): only the kept ones' values stay.
  std::int64_t parent = sg::no_checkpoint;
  for (int i = 1; i <= 20; ++i)
    parent = put(s, "t", {{"note", i, std::string(1000, static_cast<char>('a' + i % 26))}}, {.parent = parent});
  CHECK(s.stats().value_bytes == 20'000);
  CHECK(s.prune("t", sg::keep_latest{2}) == 18);
  CHECK(s.stats().values == 2);
  CHECK(s.stats().value_bytes == 2'000);
  CHECK(joined(*s.get("t", 19), "note") == std::string(1000, static_cast<char>('a' + 19 % 26)));
}

TEST_CASE_TEMPLATE("prune keeps what a fork's branch refers to", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  long_thread(s, "t", 10);
  // A branch from checkpoint 3: its values (and log pieces 1..3) live in pruned checkpoints.
  put(s, "t", {{"big", 1}, {"x", 3}, {"log", 4, "fork", true}},
      {.parent = 3, .source = checkpoint_source::fork, .mode = sg::put_mode::fork});
  CHECK(s.prune("t", sg::keep_latest{2}) == 9);
  CHECK(ids(s, "t") == std::vector<std::int64_t>{11, 10});
  CHECK(joined(*s.get("t", 11), "log") == "p1|p2|p3|fork");
  CHECK(joined(*s.get("t", 11), "x") == "x3");
  CHECK(joined(*s.get("t", 10), "log") == log_until(10));
  CHECK(s.get("t", 11)->parent == 3);
  CHECK_FALSE(s.get("t", 3));
}

TEST_CASE_TEMPLATE("prune keep_since keeps the checkpoints put since a time, and the head", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  long_thread(s, "t", 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto since = sg::store_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::int64_t parent = 5;
  for (int i = 6; i <= 8; ++i)
    parent = put(s, "t", {{"big", 1}, {"x", i, tagged("x", i)}, {"log", i, tagged("p", i), true}},
                 {.parent = parent});
  CHECK(s.prune("t", sg::keep_since{since}) == 5);
  CHECK(ids(s, "t") == std::vector<std::int64_t>{8, 7, 6});
  CHECK(joined(*s.get("t", 6), "log") == log_until(6));
  CHECK(joined(*s.get("t", 8), "big") == std::string(1000, 'B'));
  // Nothing is newer than an hour from now: the head alone stays.
  CHECK(s.prune("t", sg::keep_since{sg::store_clock::now() + std::chrono::hours(1)}) == 2);
  CHECK(ids(s, "t") == std::vector<std::int64_t>{8});
  CHECK(joined(*s.get("t"), "log") == log_until(8));
  // A duration counts back from now: everything is younger than an hour.
  CHECK(s.prune("t", sg::keep_since{std::chrono::hours(1)}) == 0);
  CHECK(s.prune("nope", sg::keep_since{std::chrono::hours(1)}) == 0);
}

TEST_CASE_TEMPLATE("prune_threads removes the threads idle since a time, whole", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  long_thread(s, "old", 3);
  long_thread(s, "old-2", 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto cut = sg::store_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  long_thread(s, "new", 2);
  // A thread with old checkpoints but a new head is in use: it stays.
  put(s, "old-2", {{"big", 1}, {"x", 3, "x3"}, {"log", 3, "p3", true}}, {.parent = 2});
  const std::vector<sg::pending_write_put> w{{"agent", 0, "x", "w"}};
  s.put_writes("old", 3, w);

  CHECK(s.prune_threads(sg::older_than{cut}) == 1);
  CHECK(s.threads() == std::vector<std::string>{"new", "old-2"});
  CHECK_FALSE(s.get("old"));
  CHECK(s.pending_writes("old", 3).empty());
  CHECK(s.stats().pending_writes == 0);
  CHECK(ids(s, "old-2") == std::vector<std::int64_t>{3, 2, 1});
  CHECK(s.prune_threads(sg::older_than{std::chrono::hours(1)}) == 0);
  CHECK(s.prune_threads(sg::older_than{sg::store_clock::now() + std::chrono::seconds(1)}) == 2);
  CHECK(s.threads().empty());
  CHECK(s.stats() == sg::store_stats{});
  // A name can start again.
  CHECK(put(s, "old", {{"x", 1, "again"}}) == 1);
}

TEST_CASE_TEMPLATE("a thread's graph description is kept once per graph", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  static_assert(sg::graph_recording_store<typename F::store_type>);
  CHECK_FALSE(s.graph("t1"));
  const std::string first = "{\"format\":1,\"nodes\":[\"a\",\"b\"]} \xc3\xbc\n";
  s.put_graph("t1", "k1", first);
  s.put_graph("t2", "k1", "another text for a known key is not kept");
  s.put_graph("t3", "k2", "{\"format\":1,\"nodes\":[\"c\"]}");
  CHECK(s.graph("t1") == first);
  CHECK(s.graph("t2") == first);
  CHECK(s.graph("t3") == "{\"format\":1,\"nodes\":[\"c\"]}");
  // A thread that records another graph (its code changed) reads the newer one.
  s.put_graph("t1", "k2", "ignored");
  CHECK(s.graph("t1") == "{\"format\":1,\"nodes\":[\"c\"]}");
  CHECK_THROWS_AS(s.put_graph("", "k1", "x"), sg::store_refused_error);
  // Graphs are not checkpoints: the counts do not change, and deleting a thread forgets its graph.
  CHECK(s.stats() == sg::store_stats{});
  put(s, "t3", {{"x", 1, "v"}});
  CHECK(s.delete_thread("t3"));
  CHECK_FALSE(s.graph("t3"));
  CHECK(s.graph("t2") == first);
}

TEST_CASE_TEMPLATE("a graph description goes when no thread refers to it any more", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  // What a description's key keeps tells whether the description is still stored: a put of a
  // known key keeps the first text, a put of a forgotten one the new text.
  s.put_graph("a", "k1", "one");
  s.put_graph("b", "k1", "one");
  s.put_graph("c", "k2", "two");
  put(s, "a", {{"x", 1, "v"}});
  put(s, "b", {{"x", 1, "v"}});
  put(s, "c", {{"x", 1, "v"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto cut = sg::store_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  put(s, "b", {{"x", 2, "w"}}, {.parent = 1});  // b is in use
  s.put_graph("fresh", "k3", "three");          // a thread about to write its first checkpoint

  CHECK(s.prune_threads(sg::older_than{cut}) == 2);  // a and c
  CHECK_FALSE(s.graph("a"));
  CHECK_FALSE(s.graph("c"));
  CHECK(s.graph("b") == "one");
  CHECK(s.graph("fresh") == "three");
  s.put_graph("d", "k2", "two, changed");  // k2 went with c
  CHECK(s.graph("d") == "two, changed");
  s.put_graph("e", "k1", "one, changed");  // k1 is still b's
  CHECK(s.graph("e") == "one");

  // delete_thread: the description goes with the last thread that refers to it.
  CHECK(s.delete_thread("b"));
  CHECK(s.graph("e") == "one");
  CHECK_FALSE(s.delete_thread("e"));  // no checkpoints, but its graph is forgotten
  s.put_graph("g", "k1", "one, new");
  CHECK(s.graph("g") == "one, new");
  // A thread that records another graph leaves the old one to the next removal.
  s.put_graph("g", "k4", "four");
  CHECK_FALSE(s.delete_thread("nobody"));
  s.put_graph("h", "k1", "one, newer");
  CHECK(s.graph("h") == "one, newer");
  CHECK(s.graph("g") == "four");
  CHECK(s.graph("fresh") == "three");
}

TEST_CASE_TEMPLATE("written returns what each checkpoint put: whole values and appended pieces", F, STORE_FIXTURES) {
  F f;
  auto& s = *f.store;
  static_assert(sg::written_values_store<typename F::store_type>);
  auto sorted = [](std::vector<sg::written_value> v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.channel < b.channel; });
    return v;
  };
  put(s, "t", {{"log", 1, "[1]", true}, {"calls", 1, "0"}});
  put(s, "t", {{"log", 2, "[2]", true}, {"calls", 1}}, {.parent = 1, .step = 1});
  put(s, "t", {{"log", 2}, {"calls", 2, "5"}}, {.parent = 2, .step = 2});
  using w = sg::written_value;
  CHECK(sorted(s.written("t", 1)) == std::vector<w>{{"calls", "0", false}, {"log", "[1]", false}});
  CHECK(s.written("t", 2) == std::vector<w>{{"log", "[2]", true}});
  CHECK(s.written("t", 3) == std::vector<w>{{"calls", "5", false}});
  CHECK(s.written("t", 4).empty());
  CHECK(s.written("nope", 1).empty());
}
