// Checkpointed runs of a state that is a Boost.Hana Struct (<stategraph/hana.hpp>): every
// channel kind stored under Hana's names, read back by get_state and history, continued by
// a second invoke and edited by update_state; a state with private members on a thread.
#include "fixtures.hpp"

#include <stategraph/hana.hpp>

#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/define_struct.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace durable_test;

namespace durable_hana {

struct Ticket {
  Ticket() = default;
  explicit Ticket(std::string t) : task(std::move(t)) {}  // not an aggregate: PFR cannot take it

  BOOST_HANA_DEFINE_STRUCT(Ticket,
    (std::string, task),
    (sg::last_value<std::string>, intent),
    (sg::append<Msg>, messages),
    (sg::counter<int>, steps),
    (sg::ephemeral<std::string>, scratch),
    (sg::bounded<Msg, 2>, recent),
    (sg::reduced<std::set<std::string>, sg::set_union>, tags));
};

struct plan {
  using reads = sg::reads<&Ticket::task>;
  using writes = sg::writes<&Ticket::messages, &Ticket::steps, &Ticket::scratch, &Ticket::recent>;
  auto operator()(sg::view<Ticket, reads> in) const {
    const Msg m{"ai", "plan " + in.get<&Ticket::task>()};
    return sg::write<&Ticket::messages>(m) | sg::write<&Ticket::steps>(1) |
           sg::write<&Ticket::scratch>(std::string("planned")) | sg::write<&Ticket::recent>(m);
  }
};
struct label {
  using reads = sg::reads<&Ticket::task>;
  using writes = sg::writes<&Ticket::intent, &Ticket::tags>;
  auto operator()(sg::view<Ticket, reads> in) const {
    return sg::write<&Ticket::intent>(in.get<&Ticket::task>().ends_with("?") ? std::string("question") : "statement") |
           sg::write<&Ticket::tags>(std::set<std::string>{"labelled"});
  }
};
struct review {  // the join of plan and label
  using reads = sg::reads<&Ticket::scratch>;
  using writes = sg::writes<&Ticket::task, &Ticket::tags>;
  auto operator()(sg::view<Ticket, reads> in) const {
    return sg::write<&Ticket::task>("reviewed: " + in.get<&Ticket::scratch>()) |
           sg::write<&Ticket::tags>(std::string("reviewed"));
  }
};
struct step {
  using reads = sg::reads<&Ticket::steps>;
  using writes = sg::writes<&Ticket::messages, &Ticket::steps, &Ticket::recent>;
  auto operator()(sg::view<Ticket, reads> in) const {
    const Msg m{"ai", "step " + std::to_string(in.get<&Ticket::steps>())};
    return sg::write<&Ticket::messages>(m) | sg::write<&Ticket::steps>(1) | sg::write<&Ticket::recent>(m);
  }
};
struct until_three {
  using reads = sg::reads<&Ticket::steps>;
  sg::go<step, sg::end> operator()(sg::view<Ticket, reads> in) const {
    if (in.get<&Ticket::steps>() < 3) return sg::to<step>;
    return sg::to<sg::end>;
  }
};
using ticket_graph = sg::graph<Ticket, sg::edge<sg::start, plan>, sg::edge<sg::start, label>,
                               sg::join<review, plan, label>, sg::edge<review, step>, sg::branch<step, until_three>>;

const std::vector<std::string> ticket_channels{"task", "intent", "messages", "steps", "scratch", "recent", "tags"};

TEST_CASE_TEMPLATE("a Hana Struct state on a thread: every channel kind round-trips through the store", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<ticket_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"hana"};

  Ticket in("why?");
  in.messages = {Msg{"user", "why?"}};
  in.tags = std::set<std::string>{"in"};
  Ticket out = app.invoke(std::move(in), t);
  CHECK(out.task == "reviewed: planned");
  CHECK(contents(out.messages) == strings{"user:why?", "ai:plan why?", "ai:step 1", "ai:step 2"});
  CHECK(out.steps == 3);

  // Supersteps: {plan, label}, review, step, step; the input checkpoint first.
  auto snap = app.get_state(t);
  REQUIRE(snap.has_value());
  CHECK(snap->checkpoint_id == 5);
  CHECK(snap->step == 4);
  CHECK(snap->next.empty());
  const Ticket& v = snap->values;
  CHECK(v.task == "reviewed: planned");
  CHECK(v.intent.value() == "question");
  CHECK(contents(v.messages) == contents(out.messages));
  CHECK(v.steps == 3);
  CHECK(v.scratch.empty());
  CHECK(contents(v.recent) == strings{"ai:step 1", "ai:step 2"});
  CHECK(v.tags.value() == std::set<std::string>{"in", "labelled", "reviewed"});

  // History, newest first; the checkpoint after superstep 1 still holds the ephemeral.
  auto h = app.history(t);
  REQUIRE(h.size() == 5);
  CHECK(h.back().source == sg::checkpoint_source::input);
  CHECK(h.back().next == strings{"plan", "label"});
  CHECK(h.back().values.task == "why?");
  const auto& after_first = h[3];
  CHECK(after_first.step == 1);
  CHECK(after_first.next == strings{"review"});
  CHECK(after_first.values.scratch.value() == "planned");
  CHECK(after_first.values.intent.value() == "question");
  CHECK(after_first.values.steps == 1);
  CHECK(h[2].values.scratch.empty());  // cleared at the barrier of the superstep that read it
  CHECK(h[2].values.task == "reviewed: planned");
  CHECK(app.get_state(t, sg::checkpoint_id{2}).values.tags.value() == std::set<std::string>{"in", "labelled"});

  // The store holds the channels under Hana's names.
  auto stored = fx.store.get(t.value, 1);
  REQUIRE(stored.has_value());
  std::vector<std::string> names;
  for (const auto& c : stored->channels) names.push_back(c.channel);
  CHECK(std::ranges::all_of(names, [](const std::string& n) { return std::ranges::count(ticket_channels, n) == 1; }));
  CHECK(std::ranges::count(names, "messages") == 1);
  CHECK(std::ranges::count(names, "tags") == 1);

  // A second invoke continues the thread: the input goes through the reducers.
  Ticket again("go on.");
  again.tags = std::set<std::string>{"again"};
  Ticket second = app.invoke(std::move(again), t);
  CHECK(second.intent.value() == "statement");
  CHECK(second.steps == 5);  // 3, then plan and one step
  CHECK(contents(second.messages).back() == "ai:step 4");
  CHECK(second.tags.value() == std::set<std::string>{"again", "in", "labelled", "reviewed"});
  CHECK(app.history(t).size() == 9);

  // update_state writes as a node (the set through its reducer), the join's successor next.
  app.update_state(t, sg::write<&Ticket::task>(std::string("edited")) | sg::write<&Ticket::tags>(std::string("edited")),
                   sg::as_node<review>);
  auto edited = app.get_state(t);
  REQUIRE(edited.has_value());
  CHECK(edited->source == sg::checkpoint_source::update);
  CHECK(edited->next == strings{"step"});
  CHECK(edited->values.task == "edited");
  CHECK(edited->values.tags.value() == std::set<std::string>{"again", "edited", "in", "labelled", "reviewed"});
  Ticket resumed = app.resume(t);
  CHECK(resumed.steps == 6);
  CHECK(contents(resumed.messages).back() == "ai:step 5");
  CHECK(resumed.task == "edited");
}

// ---- private members, adapted with BOOST_HANA_ADAPT_STRUCT --------------------------------

class Account {
 public:
  Account() = default;
  explicit Account(int opening) { balance_ = opening; }
  int balance() const { return balance_; }
  const std::vector<std::string>& log() const { return log_; }
  static constexpr auto balance_channel() { return &Account::balance_; }
  static constexpr auto log_channel() { return &Account::log_; }

 private:
  friend struct boost::hana::accessors_impl<Account>;
  sg::counter<int> balance_;
  sg::append<std::string> log_;
};
}  // namespace durable_hana
BOOST_HANA_ADAPT_STRUCT(durable_hana::Account, balance_, log_);

namespace durable_hana {
struct deposit {
  using reads = sg::reads<Account::balance_channel()>;
  using writes = sg::writes<Account::balance_channel(), Account::log_channel()>;
  auto operator()(sg::view<Account, reads> in) const {
    return sg::write<Account::balance_channel()>(5) |
           sg::write<Account::log_channel()>("deposit at " + std::to_string(in.get<Account::balance_channel()>()));
  }
};
using account_graph = sg::graph<Account, sg::edge<sg::start, deposit>, sg::edge<deposit, sg::end>>;

TEST_CASE_TEMPLATE("a Hana Struct state with private members on a thread", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<account_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"account"};
  CHECK(app.invoke(Account(100), t).balance() == 105);
  Account second = app.invoke(Account(1), t);  // continues: the opening amount is added
  CHECK(second.balance() == 111);
  CHECK(second.log() == strings{"deposit at 100", "deposit at 106"});

  auto h = app.history(t);
  REQUIRE(h.size() == 4);
  CHECK(h[0].values.balance() == 111);
  CHECK(h[1].values.balance() == 106);  // the second input, folded onto the thread
  CHECK(h[1].source == sg::checkpoint_source::input);
  CHECK(h[3].values.balance() == 100);
  CHECK(h[3].values.log().empty());
  auto stored = fx.store.get(t.value, 1);
  REQUIRE(stored.has_value());
  REQUIRE(stored->channels.size() >= 1);
  CHECK(stored->channels.front().channel == "balance_");
}

}  // namespace durable_hana
