// Threads and history (semantics.md, "Checkpoints"): a second invoke continues the thread,
// get_state and history describe it newest first along the parent chain, and history is a
// range that range-v3 views filter. Storage grows with what changed, not with the history.
#include "fixtures.hpp"

#include <doctest/doctest.h>
#include <range/v3/algorithm/count_if.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace durable_test;

namespace durable_threads {

TEST_CASE_TEMPLATE("a second invoke on a thread continues it; get_state and history describe it", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"t1"};

  CHECK_FALSE(app.get_state(t).has_value());
  Chat first = app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  CHECK(contents(first.messages) ==
        strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool", "tool:42", "ai:done"});
  CHECK(first.calls == 3);

  // The input checkpoint, then one per superstep: agent, tools, agent, tools, agent.
  auto snap = app.get_state(t);
  REQUIRE(snap.has_value());
  CHECK(snap->checkpoint_id == 6);
  CHECK(snap->parent_id == 5);
  CHECK(snap->step == 5);
  CHECK(snap->source == sg::checkpoint_source::loop);
  CHECK(snap->next.empty());
  CHECK(snap->interrupts.empty());
  CHECK_FALSE(snap->failed);
  CHECK(contents(snap->values.messages) == contents(first.messages));
  CHECK(snap->values.calls == 3);

  // The input goes through the reducers onto the thread's latest state: one more message.
  Chat second = app.invoke(Chat{.messages = {Msg{"user", "again"}}}, t);
  CHECK(contents(second.messages) ==
        strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool", "tool:42", "ai:done", "user:again", "ai:done"});
  CHECK(second.calls == 4);

  auto h = app.history(t);
  REQUIRE(h.size() == 8);
  // Newest first, each checkpoint the parent of the one before it in the list.
  for (std::size_t k = 0; k < h.size(); ++k) {
    CHECK(h[k].checkpoint_id == static_cast<std::int64_t>(h.size() - k));
    CHECK(h[k].step == static_cast<std::int64_t>(h.size() - k - 1));
    if (k + 1 < h.size()) CHECK(h[k].parent_id == h[k + 1].checkpoint_id);
  }
  CHECK(h.back().parent_id == sg::no_checkpoint);
  CHECK(h.back().source == sg::checkpoint_source::input);
  CHECK(h[1].source == sg::checkpoint_source::input);  // the second invoke's input
  CHECK(h[1].next == strings{"agent"});
  CHECK(contents(h[1].values.messages).size() == 7);
  CHECK(h.back().next == strings{"agent"});
  CHECK(contents(h.back().values.messages) == strings{"user:hi"});
  CHECK(h[h.size() - 2].next == strings{"tools"});  // after the first agent step

  // History is a range: filter and project it with range-v3 views.
  auto inputs = h | ranges::views::filter([](const auto& s) { return s.source == sg::checkpoint_source::input; }) |
                ranges::views::transform([](const auto& s) { return s.checkpoint_id; }) |
                ranges::to<std::vector<std::int64_t>>();
  CHECK(inputs == std::vector<std::int64_t>{7, 1});
  auto before_tools = ranges::count_if(h, [](const auto& s) { return s.next == strings{"tools"}; });
  CHECK(before_tools == 2);

  // Paging through the store's listing: limit and before.
  auto page = app.history(t, sg::list_options{.before = 5, .limit = 2});
  REQUIRE(page.size() == 2);
  CHECK(page[0].checkpoint_id == 4);
  CHECK(page[1].checkpoint_id == 3);

  // Any past checkpoint reads back as it was.
  auto third = app.get_state(t, sg::checkpoint_id{3});
  CHECK(contents(third.values.messages) == strings{"user:hi", "ai:call tool", "tool:42"});
  CHECK(third.values.calls == 1);
  CHECK(third.next == strings{"agent"});
}

TEST_CASE_TEMPLATE("threads are independent and a plain invoke stores nothing", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  app.invoke(Chat{.messages = {Msg{"user", "a"}}}, sg::thread_id{"a"});
  app.invoke(Chat{.messages = {Msg{"user", "b"}}}, sg::thread_id{"b"});
  auto before = fx.store.stats();
  CHECK(before.threads == 2);
  CHECK(before.checkpoints == 12);

  Chat plain = app.invoke(Chat{.messages = {Msg{"user", "c"}}});
  CHECK(plain.messages.size() == 6);
  CHECK(fx.store.stats() == before);

  CHECK(app.get_state(sg::thread_id{"a"})->values.messages.front().content == "a");
  CHECK(app.get_state(sg::thread_id{"b"})->values.messages.front().content == "b");
  CHECK(app.delete_thread(sg::thread_id{"a"}));
  CHECK_FALSE(app.get_state(sg::thread_id{"a"}).has_value());
  CHECK(app.get_state(sg::thread_id{"b"}).has_value());
}

// ---- W7: a checkpoint costs what the step changed -------------------------------------------

struct Long {
  sg::append<Msg> messages;
  sg::counter<int> turns;
  std::string title;  // never written after the input: stored once
};
struct talk {
  using reads = sg::reads<&Long::turns>;
  using writes = sg::writes<&Long::messages, &Long::turns>;
  auto operator()(sg::view<Long, reads> in) const {
    // A fixed-size message, so every step adds the same number of bytes.
    char text[16];
    std::snprintf(text, sizeof text, "turn %06d", in.get<&Long::turns>());
    return sg::write<&Long::messages>(Msg{"ai", text}) | sg::write<&Long::turns>(1);
  }
};
template <int N>
struct until {
  using reads = sg::reads<&Long::turns>;
  sg::go<talk, sg::end> operator()(sg::view<Long, reads> in) const {
    if (in.get<&Long::turns>() < N) return sg::to<talk>;
    return sg::to<sg::end>;
  }
};

TEST_CASE_TEMPLATE("W7: stored bytes per step stay bounded as the history grows", F, DURABLE_FIXTURES) {
  F fx;
  using G = sg::graph<Long, sg::edge<sg::start, talk>, sg::branch<talk, until<400>>>;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  const sg::thread_id t{"long"};
  const std::string title(1000, 't');  // a large value that never changes

  Long input{};
  input.title = title;
  Long out = app.invoke(std::move(input), t);
  CHECK(out.turns == 400);
  CHECK(out.messages.size() == 400);
  auto h = app.history(t);
  REQUIRE(h.size() == 401);

  // Measure how the bytes grew: replay the same run on fresh stores of increasing length.
  auto measure = [&](auto limit) {
    F f2;
    using GN = sg::graph<Long, sg::edge<sg::start, talk>, sg::branch<talk, until<decltype(limit)::value>>>;
    auto a2 = sg::compile<GN>(sg::with_store(f2.store));
    Long in{};
    in.title = title;
    a2.invoke(std::move(in), sg::thread_id{"w7"});
    return f2.store.stats();
  };
  // A run's last checkpoint stores the messages whole once their pieces pass
  // snapshot_every (docs/checkpoints.md, "Long threads"): taken out here, every other
  // checkpoint stores what its step appended.
  const std::string one_message = nlohmann::json(std::vector<Msg>{Msg{"ai", "turn 000000"}}).dump();
  auto pieces_only = [&](sg::store_stats s, std::size_t n) {
    const std::size_t whole = 2 + n * (one_message.size() - 2) + (n - 1);
    s.value_bytes = s.value_bytes - whole + one_message.size();
    return s;
  };
  const auto head = fx.store.get(t.value);
  for (const auto& ch : head->channels)
    if (ch.channel == "messages") CHECK(ch.appends.empty());
  const auto before_head = fx.store.get(t.value, 400);
  for (const auto& ch : before_head->channels)
    if (ch.channel == "messages") CHECK(ch.appends.size() == 399);
  auto s100 = pieces_only(measure(std::integral_constant<int, 100>{}), 100);
  auto s200 = pieces_only(measure(std::integral_constant<int, 200>{}), 200);
  auto s400 = pieces_only(fx.store.stats(), 400);
  CHECK(s400.checkpoints == 401);

  const double per_step_first = static_cast<double>(s200.value_bytes - s100.value_bytes) / 100.0;
  const double per_step_later = static_cast<double>(s400.value_bytes - s200.value_bytes) / 200.0;
  MESSAGE(std::string(fx.name) << " store, W7: " << s100.value_bytes << " value bytes after 100 steps, "
                               << s200.value_bytes << " after 200, " << s400.value_bytes << " after 400; "
                               << per_step_first << " bytes/step over steps 101-200, " << per_step_later
                               << " bytes/step over steps 201-400 (one appended message is " << one_message.size()
                               << " bytes of JSON); whole-state-per-step would store about "
                               << (400.0 * 401.0 / 2.0) * static_cast<double>(one_message.size() - 2) / 1e6 << " MB");
  // Bounded: the same cost per step late in the thread as early on, about one message plus
  // the counter's new value.
  CHECK(per_step_later <= per_step_first + 1.0);
  CHECK(per_step_later < static_cast<double>(one_message.size()) + 8.0);
  // The title (1000 bytes) is stored once, not once per checkpoint.
  CHECK(s400.value_bytes < 1000 + 400 * (one_message.size() + 8));
  // Every value row is one changed channel: two per step, plus the input's three.
  CHECK(s400.values == 3 + 2 * 400);
}

// ---- ephemeral channels across a checkpoint ------------------------------------------------

struct Note {
  sg::ephemeral<std::string> note;
  sg::append<std::string> log;
};
struct writer {
  using reads = sg::reads<>;
  using writes = sg::writes<&Note::note>;
  auto operator()(sg::view<Note, reads>) const { return sg::write<&Note::note>(std::string("hello")); }
};
struct reader {
  using reads = sg::reads<&Note::note>;
  using writes = sg::writes<&Note::log>;
  auto operator()(sg::view<Note, reads> in) const { return sg::write<&Note::log>("read:" + in.get<&Note::note>()); }
};
using note_graph = sg::graph<Note, sg::edge<sg::start, writer>, sg::edge<writer, reader>, sg::edge<reader, sg::end>>;

TEST_CASE_TEMPLATE("an ephemeral value written before a pause is read after the resume, then cleared", F,
                   DURABLE_FIXTURES) {
  F fx;
  const sg::thread_id t{"eph"};
  {
    auto app = sg::compile<note_graph>(sg::with_store(fx.store), sg::interrupt_before<reader>{});
    Note paused = app.invoke(Note{}, t);
    CHECK(paused.note == "hello");
    CHECK(app.get_state(t)->values.note == "hello");
  }
  auto app = sg::compile<note_graph>(sg::with_store(fx.store));
  Note out = app.resume(t);
  CHECK(out.log == strings{"read:hello"});
  CHECK(out.note.value().empty());
  CHECK(app.get_state(t)->values.note.value().empty());
  CHECK(out.log == sg::compile<note_graph>().invoke(Note{}).log);
}

}  // namespace durable_threads
