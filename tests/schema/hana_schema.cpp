// A state schema that is a Boost.Hana Struct (<stategraph/hana.hpp>): the states Boost.PFR
// cannot reflect (a user-declared constructor, private members, a base class), with every
// channel kind, their names taken from Hana, run through graphs with a fan-out and a join.
#include <doctest/doctest.h>

#include <stategraph/hana.hpp>
#include <stategraph/stategraph.hpp>

#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/define_struct.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/keys.hpp>
#include <boost/hana/string.hpp>

#include <array>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace sg = stategraph;
namespace hana = boost::hana;

// A named namespace: Clang 14 refuses to reflect a state type without linkage.
namespace unit_hana {

struct Msg {
  std::string role, content;
  friend bool operator==(const Msg&, const Msg&) = default;
};

// ---- every channel kind, in a state with a user-declared constructor ---------------------

struct Turn {
  Turn() = default;
  explicit Turn(std::string t) : task(std::move(t)) {}  // not an aggregate: PFR cannot take it

  BOOST_HANA_DEFINE_STRUCT(Turn,
    (std::string, task),
    (sg::last_value<std::string>, intent),
    (sg::append<Msg>, messages),
    (sg::counter<int>, steps),
    (sg::ephemeral<std::string>, scratch),
    (sg::bounded<Msg, 2>, recent),
    (sg::reduced<std::set<std::string>, sg::set_union>, tags));
};
static_assert(!std::is_aggregate_v<Turn>);
static_assert(hana::Struct<Turn>::value);

static_assert(sg::channel_count<Turn> == 7);
static_assert(sg::channel_index<Turn, &Turn::task>() == 0);
static_assert(sg::channel_index<Turn, &Turn::intent>() == 1);
static_assert(sg::channel_index<Turn, &Turn::messages>() == 2);
static_assert(sg::channel_index<Turn, &Turn::steps>() == 3);
static_assert(sg::channel_index<Turn, &Turn::scratch>() == 4);
static_assert(sg::channel_index<Turn, &Turn::recent>() == 5);
static_assert(sg::channel_index<Turn, &Turn::tags>() == 6);
static_assert(std::is_same_v<sg::field_type_t<Turn, 3>, sg::counter<int>>);
static_assert(std::is_same_v<sg::field_type_t<Turn, 6>, sg::reduced<std::set<std::string>, sg::set_union>>);
static_assert(sg::channel_name<&Turn::messages>() == "messages");
static_assert(sg::channel_name<&Turn::tags>() == "tags");

struct talk {  // writes the list channels, the counter and the ephemeral
  using reads = sg::reads<&Turn::task>;
  using writes = sg::writes<&Turn::messages, &Turn::steps, &Turn::scratch, &Turn::recent>;
  auto operator()(sg::view<Turn, reads> in) const {
    const Msg m{"ai", "on " + in.get<&Turn::task>()};
    return sg::write<&Turn::messages>(m) | sg::write<&Turn::steps>(1) |
           sg::write<&Turn::scratch>(std::string("draft")) | sg::write<&Turn::recent>(m);
  }
};
struct tag {  // runs beside talk: writes the last value and the set
  using reads = sg::reads<&Turn::task>;
  using writes = sg::writes<&Turn::intent, &Turn::tags, &Turn::steps>;
  auto operator()(sg::view<Turn, reads> in) const {
    return sg::write<&Turn::intent>(in.get<&Turn::task>().ends_with("?") ? std::string("question") : "statement") |
           sg::write<&Turn::tags>(std::set<std::string>{"tagged", "seen"}) | sg::write<&Turn::steps>(10);
  }
};
struct wrap {  // the join: sees the ephemeral written the superstep before, then it is cleared
  using reads = sg::reads<&Turn::scratch, &Turn::steps, &Turn::intent>;
  using writes = sg::writes<&Turn::task, &Turn::messages, &Turn::recent, &Turn::tags>;
  auto operator()(sg::view<Turn, reads> in) const {
    const Msg m{"ai", in.get<&Turn::scratch>() + "/" + in.get<&Turn::intent>() + "/" +
                          std::to_string(in.get<&Turn::steps>())};
    return sg::write<&Turn::task>(std::string("done")) | sg::write<&Turn::messages>(m) |
           sg::write<&Turn::recent>(std::vector<Msg>{m, m}) |
           sg::write<&Turn::tags>(std::set<std::string>{"seen", "wrapped"});
  }
};
using turn_graph = sg::graph<Turn, sg::edge<sg::start, talk>, sg::edge<sg::start, tag>, sg::join<wrap, talk, tag>,
                             sg::edge<wrap, sg::end>>;

TEST_CASE("a Hana Struct's channel names are Hana's keys, in Hana's order") {
  constexpr auto names = sg::channel_names<Turn>();
  CHECK(names == std::array<std::string_view, 7>{"task", "intent", "messages", "steps", "scratch", "recent", "tags"});
  // The same names Hana gives, one by one.
  std::vector<std::string> from_hana;
  hana::for_each(hana::keys(Turn{}), [&](auto key) { from_hana.emplace_back(hana::to<const char*>(key)); });
  CHECK(from_hana == std::vector<std::string>(names.begin(), names.end()));
}

TEST_CASE("a Hana Struct state with a constructor runs every channel kind through a fan-out and a join") {
  Turn in("why?");
  in.messages = {Msg{"user", "why?"}};
  in.steps = 100;                        // a counter in the input starts at the value given
  in.tags = std::set<std::string>{"in"};
  Turn out = sg::compile<turn_graph>().invoke(std::move(in));

  CHECK(out.task == "done");
  CHECK(out.intent.value() == "question");
  CHECK(out.messages.value() == std::vector<Msg>{{"user", "why?"}, {"ai", "on why?"}, {"ai", "draft/question/111"}});
  CHECK(out.steps == 111);
  CHECK(out.scratch.empty());  // written in superstep 1, read in 2, cleared at the barrier after it
  CHECK(out.recent.value() == std::vector<Msg>{{"ai", "draft/question/111"}, {"ai", "draft/question/111"}});
  CHECK(out.tags.value() == std::set<std::string>{"in", "seen", "tagged", "wrapped"});
}

TEST_CASE("a Hana Struct state: the bounded channel keeps its last elements, the input goes through the reducers") {
  Turn in("statement");
  in.recent = std::vector<Msg>{{"a", "1"}, {"b", "2"}, {"c", "3"}};
  Turn out = sg::compile<turn_graph>().invoke(std::move(in));
  CHECK(out.intent.value() == "statement");
  CHECK(out.steps == 11);
  CHECK(out.recent.value().size() == 2);
  CHECK(out.recent.value().front().content == "draft/statement/11");
}

// ---- private members: BOOST_HANA_ADAPT_STRUCT, the class hands out its channels ------------

class Account {
 public:
  Account() = default;
  explicit Account(int opening) { balance_ = opening; }
  int balance() const { return balance_; }
  const std::vector<std::string>& log() const { return log_; }

  // Nodes name a private channel by a member pointer the class gives them.
  static constexpr auto balance_channel() { return &Account::balance_; }
  static constexpr auto log_channel() { return &Account::log_; }

 private:
  friend struct boost::hana::accessors_impl<Account>;  // what BOOST_HANA_ADAPT_STRUCT defines
  friend struct audit;                                   // a node that names the members itself
  sg::counter<int> balance_;
  sg::append<std::string> log_;
};
}  // namespace unit_hana
BOOST_HANA_ADAPT_STRUCT(unit_hana::Account, balance_, log_);

namespace unit_hana {
static_assert(sg::channel_count<Account> == 2);
static_assert(sg::channel_index<Account, Account::log_channel()>() == 1);
static_assert(sg::channel_name<Account::balance_channel()>() == "balance_");
static_assert(sg::channel_name<Account::log_channel()>() == "log_");

template <int Amount>
struct deposit {
  using reads = sg::reads<>;
  using writes = sg::writes<Account::balance_channel(), Account::log_channel()>;
  auto operator()(sg::view<Account, reads>) const {
    return sg::write<Account::balance_channel()>(Amount) |
           sg::write<Account::log_channel()>("deposit " + std::to_string(Amount));
  }
};
struct audit {
  using reads = sg::reads<&Account::balance_>;
  using writes = sg::writes<&Account::log_>;
  auto operator()(sg::view<Account, reads> in) const {
    return sg::write<&Account::log_>("balance " + std::to_string(in.get<&Account::balance_>()));
  }
};
using account_graph = sg::graph<Account, sg::edge<sg::start, deposit<5>>, sg::edge<sg::start, deposit<7>>,
                                sg::join<audit, deposit<5>, deposit<7>>, sg::edge<audit, sg::end>>;

TEST_CASE("a Hana Struct state with private members: nodes name the channels the class hands out") {
  CHECK(sg::channel_names<Account>() == std::array<std::string_view, 2>{"balance_", "log_"});
  Account out = sg::compile<account_graph>().invoke(Account(100));
  CHECK(out.balance() == 112);
  // Both deposits ran in one superstep, merged in declaration order.
  CHECK(out.log() == std::vector<std::string>{"deposit 5", "deposit 7", "balance 112"});
}

// BOOST_HANA_DEFINE_STRUCT in a private section: Hana reads the class's nested accessors,
// so its accessors_impl must be a friend.
class Tally {
 public:
  int total() const { return total_; }
  static constexpr auto total_channel() { return &Tally::total_; }

 private:
  template <typename, typename>
  friend struct boost::hana::accessors_impl;
  BOOST_HANA_DEFINE_STRUCT(Tally, (sg::counter<int>, total_), (sg::append<int>, seen_));
};
static_assert(sg::channel_names<Tally>() == std::array<std::string_view, 2>{"total_", "seen_"});

struct add_three {
  using reads = sg::reads<>;
  using writes = sg::writes<Tally::total_channel()>;
  auto operator()(sg::view<Tally, reads>) const { return sg::write<Tally::total_channel()>(3); }
};

TEST_CASE("a Hana Struct state defined in a private section runs") {
  using G = sg::graph<Tally, sg::edge<sg::start, add_three>, sg::edge<add_three, sg::end>>;
  CHECK(sg::compile<G>().invoke(Tally{}).total() == 3);
}

// ---- a base class: the state's own members are its channels -------------------------------

struct Labelled {  // a base class PFR refuses; here it carries behaviour and a label
  std::string label = "unnamed";
  std::string describe() const { return "[" + label + "]"; }
};
struct Job : Labelled {
  sg::append<std::string> done;
  sg::counter<int> count;
};
}  // namespace unit_hana
// The base's member is listed too: a channel the input sets and the run carries, which no
// node can name (&Job::label is a member pointer of Labelled).
BOOST_HANA_ADAPT_STRUCT(unit_hana::Job, label, done, count);

namespace unit_hana {
static_assert(std::is_base_of_v<Labelled, Job>);
static_assert(sg::channel_count<Job> == 3);
static_assert(sg::channel_name_at<Job, 0>() == "label");
static_assert(sg::channel_index<Job, &Job::done>() == 1);
static_assert(sg::channel_index<Job, &Job::label>() == sg::channel_count<Job>);  // names none of Job's

template <char Name>
struct work {
  using reads = sg::reads<&Job::count>;
  using writes = sg::writes<&Job::done, &Job::count>;
  auto operator()(sg::view<Job, reads> in) const {
    return sg::write<&Job::done>(std::string(1, Name) + std::to_string(in.get<&Job::count>())) |
           sg::write<&Job::count>(1);
  }
};
using job_graph = sg::graph<Job, sg::edge<sg::start, work<'a'>>, sg::edge<work<'a'>, work<'b'>>,
                            sg::edge<work<'b'>, sg::end>>;

TEST_CASE("a Hana Struct state with a base class: the adapted members are channels") {
  Job in;
  in.label = "nightly";
  Job out = sg::compile<job_graph>().invoke(std::move(in));
  CHECK(out.done.value() == std::vector<std::string>{"a0", "b1"});
  CHECK(out.count == 2);
  CHECK(out.label == "nightly");  // carried from the input
  CHECK(out.describe() == "[nightly]");
}

}  // namespace unit_hana
