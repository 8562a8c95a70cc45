// Every rule's predicate, stated directly (a flat list, as CTRE's tests/parsing.cpp): what
// each accepts and what it refuses. The messages are tested by the compile-fail cases in tests/<feature>/fail/.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <boost/mp11/list.hpp>

#include <string>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_rules_rule_predicates {

namespace rule_predicates {
namespace sg = stategraph;

struct State {
  std::string question;
  std::string answer;
  sg::append<std::string> log;
  sg::counter<int> steps;
};
struct Other {
  std::string text;
};

// ---- nodes ----
struct reader {
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::answer>(in.get<&State::question>()); }
};
struct stranger {  // reads a member of another struct
  using reads = sg::reads<&Other::text>;
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<Other, reads>) const { return sg::write<&State::answer>(std::string("?")); }
};
struct watcher {  // subscribes to a member of another struct
  using subscribes = sg::subscribes<&Other::text>;
  void operator()(sg::view<State, sg::reads<>>) const {}
};
struct wrong_view {
  using reads = sg::reads<&State::question>;
  void operator()(sg::view<State, sg::reads<&State::answer>>) const {}
};
struct returns_int {
  int operator()(sg::view<State, sg::reads<>>) const { return 1; }
};
struct worker {  // a send target: takes (view, payload)
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>, const std::string& job) const { return sg::write<&State::log>(job); }
};
struct left {
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::answer>(std::string("l")); }
};
struct right {
  using writes = sg::writes<&State::answer>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::answer>(std::string("r")); }
};
struct goes_to_left {
  using goes = sg::goes<left>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::command{sg::patch<>{}, sg::to<left>}; }
};
struct goes_nowhere {  // declares a target that is no node of the graphs below
  using goes = sg::goes<Other>;
  void operator()(sg::view<State, sg::reads<>>) const {}
};
struct router {
  using reads = sg::reads<&State::question>;
  sg::go<left, right> operator()(sg::view<State, reads> in) const {
    return in.get<&State::question>().empty() ? sg::go<left, right>(sg::to<left>) : sg::to<right>;
  }
};
struct router_returns_int {
  int operator()(sg::view<State, sg::reads<>>) const { return 0; }
};

struct reasoning {};
struct with_seam {
  using seam = reasoning;
  void operator()(sg::view<State, sg::reads<>>) const {}
};
struct context_with_seam : reasoning {};
struct context_without_seam {};

// ---- results ----
using writes_answer = sg::patch<sg::entry<&State::answer, std::string>>;
using writes_log = sg::patch<sg::entry<&State::log, std::string>>;
using writes_steps_text = sg::patch<sg::entry<&State::steps, std::string>>;
using writes_steps = sg::patch<sg::entry<&State::steps, int>>;

// ---- graphs ----
using sequence = sg::graph<State, sg::edge<sg::start, reader>, sg::edge<reader, left>, sg::edge<left, sg::end>>;
using fan_out = sg::graph<State, sg::edge<sg::start, left>, sg::edge<sg::start, right>, sg::edge<left, sg::end>,
                          sg::edge<right, sg::end>>;
using branched = sg::graph<State, sg::edge<sg::start, reader>, sg::branch<reader, router>, sg::edge<left, sg::end>,
                           sg::edge<right, sg::end>>;
using orphan = sg::graph<State, sg::edge<sg::start, reader>, sg::edge<reader, sg::end>, sg::edge<left, sg::end>>;
using dead_end = sg::graph<State, sg::edge<sg::start, reader>, sg::edge<reader, sg::end>, sg::edge<reader, left>>;
using to_a_non_node = sg::graph<State, sg::edge<sg::start, reader>, sg::edge<reader, std::string>>;
using twice = sg::graph<State, sg::edge<sg::start, reader>, sg::edge<reader, sg::end>, sg::edge<reader, sg::end>>;
using commands = sg::graph<State, sg::edge<sg::start, goes_to_left>, sg::edge<left, sg::end>>;
using stray = sg::graph<State, sg::edge<sg::start, goes_nowhere>, sg::edge<goes_nowhere, sg::end>>;

struct plan {};
struct answer_stage {};
using stages = sg::lattice<sg::transition<plan, answer_stage>, sg::singleton<answer_stage>>;
struct planner {
  using stage = plan;
  void operator()(sg::view<State, sg::reads<>>) const {}
};
struct responder {
  using stage = answer_stage;
  void operator()(sg::view<State, sg::reads<>>) const {}
};
struct second_responder {
  using stage = answer_stage;
  void operator()(sg::view<State, sg::reads<>>) const {}
};
using forward = sg::graph<State, stages, sg::edge<sg::start, planner>, sg::edge<planner, responder>,
                          sg::edge<responder, sg::end>>;
using backward = sg::graph<State, stages, sg::edge<sg::start, responder>, sg::edge<responder, planner>,
                           sg::edge<planner, sg::end>>;
using crowded = sg::graph<State, stages, sg::edge<sg::start, planner>, sg::edge<planner, responder>,
                          sg::edge<responder, second_responder>, sg::edge<second_responder, sg::end>>;
using with_unstaged = sg::graph<State, stages, sg::edge<sg::start, planner>, sg::edge<planner, reader>,
                                sg::edge<reader, sg::end>>;
// A reactive node of the plan stage woken by a writer of the answer stage.
struct answer_writer {
  using stage = answer_stage;
  using writes = sg::writes<&State::steps>;
  void operator()(sg::view<State, sg::reads<>>) const {}
};
struct plan_watcher {
  using stage = plan;
  using subscribes = sg::subscribes<&State::steps>;
  void operator()(sg::view<State, sg::reads<>>) const {}
};
template <class Lattice>
using woken_backwards = sg::graph<State, Lattice, sg::edge<sg::start, answer_writer>, sg::edge<answer_writer, sg::end>,
                                  sg::edge<plan_watcher, sg::end>>;

template <class G>
using A = sg::analysis<G>;
template <class... T>
using list = boost::mp11::mp_list<T...>;
namespace rules = stategraph::rules;

// SG001: reads only what `reads` declares.
static_assert(rules::reads_declared<&State::question, sg::reads<&State::question>>);
static_assert(!rules::reads_declared<&State::answer, sg::reads<&State::question>>);
static_assert(!rules::reads_declared<&State::answer, sg::reads<>>);

// SG002: a patch writes only the node's `writes`.
static_assert(rules::writes_declared<reader, writes_answer>);
static_assert(rules::writes_declared<reader, sg::patch<>>);
static_assert(!rules::writes_declared<reader, writes_log>);
static_assert(!rules::writes_declared<reader, sg::patch<sg::entry<&State::answer, std::string>,
                                                        sg::entry<&State::log, std::string>>>);

// SG003: declared channels are members of the graph's state.
static_assert(rules::channels_in_state<State, reader>);
static_assert(!rules::channels_in_state<State, stranger>);
static_assert(!rules::channels_in_state<State, watcher>);
static_assert(rules::channels_in_state<Other, watcher>);

// SG004: each written value converts to what the channel's reducer accepts.
static_assert(rules::written_values_convert<writes_answer>);
static_assert(rules::written_values_convert<writes_steps>);
static_assert(rules::written_values_convert<writes_log>);
static_assert(!rules::written_values_convert<writes_steps_text>);

// SG005: targets and edges name nodes; no edge is declared twice.
static_assert(rules::targets_are_nodes<A<commands>, goes_to_left>);
static_assert(!rules::targets_are_nodes<A<stray>, goes_nowhere>);
static_assert(rules::elements_name_nodes<A<sequence>>);
static_assert(!rules::elements_name_nodes<A<to_a_non_node>>);
static_assert(rules::elements_declared_once<A<sequence>>);
static_assert(!rules::elements_declared_once<A<twice>>);

// SG006 and SG007: the lattice.
static_assert(rules::respects_lattice<A<forward>>);
static_assert(rules::respects_lattice<A<sequence>>);  // no lattice: anything goes
static_assert(!rules::respects_lattice<A<backward>>);
static_assert(rules::singleton_stages_hold_one_node<A<forward>>);
static_assert(!rules::singleton_stages_hold_one_node<A<crowded>>);
static_assert(!rules::subscriptions_respect_lattice<A<woken_backwards<stages>>>);
static_assert(rules::respects_lattice<A<woken_backwards<stages>>>);  // no declared edge crosses
static_assert(rules::subscriptions_respect_lattice<
              A<woken_backwards<sg::lattice<sg::transition<plan, answer_stage>, sg::wakes<answer_stage, plan>>>>>);

// SG018: with a lattice, every node names its stage.
static_assert(rules::nodes_declare_stages<A<forward>>);
static_assert(rules::nodes_declare_stages<A<sequence>>);  // no lattice: no stage needed
static_assert(!rules::nodes_declare_stages<A<with_unstaged>>);

// SG008: nodes that can run together write no last-value channel both.
static_assert(rules::no_parallel_last_value_writes<A<sequence>>);
static_assert(rules::no_parallel_last_value_writes<A<branched>>);  // the router picks one of left, right
static_assert(!rules::no_parallel_last_value_writes<A<fan_out>>);
// The bound that spares a graph the exploration behind SG008: at most one node per step.
static_assert(A<sequence>::one_at_a_time);
static_assert(A<branched>::one_at_a_time);  // the router picks one target
static_assert(!A<fan_out>::one_at_a_time);

// SG009: reachable from start, reaching end.
static_assert(rules::all_reachable_from_start<A<sequence>>);
static_assert(!rules::all_reachable_from_start<A<orphan>>);
static_assert(rules::all_reach_end<A<sequence>>);
static_assert(!rules::all_reach_end<A<dead_end>>);

// SG010: routers, commands and sends produce only declared targets.
static_assert(rules::declares_target<left, left, right>);
static_assert(!rules::declares_target<reader, left, right>);
static_assert(rules::targets_declared<list<left>, list<left, right>>);
static_assert(rules::targets_declared<list<>, list<>>);
static_assert(!rules::targets_declared<list<left, reader>, list<left, right>>);

// SG011: call operators accept their view and return what the runtime merges.
static_assert(rules::accepts_view<reader, State, sg::detail::no_context>);
static_assert(!rules::accepts_view<wrong_view, State, sg::detail::no_context>);
static_assert(!rules::accepts_view<worker, State, sg::detail::no_context>);
static_assert(rules::accepts_payload<worker, State, std::string, sg::detail::no_context>);
static_assert(!rules::accepts_payload<worker, State, std::vector<int>, sg::detail::no_context>);
static_assert(rules::supported_result<writes_answer>);
static_assert(rules::supported_result<void>);
static_assert(!rules::supported_result<int>);
static_assert(rules::router_accepts_view<router, State>);
static_assert(!rules::router_accepts_view<wrong_view, State>);
static_assert(rules::supported_router_result<sg::go<left, right>>);
static_assert(!rules::supported_router_result<int>);

// SG012: the run's context provides each node's seam.
static_assert(rules::seam_provided<reader, context_without_seam>);  // no seam declared
static_assert(rules::seam_provided<with_seam, context_with_seam>);
static_assert(rules::seam_provided<with_seam, sg::detail::any_context>);  // not known yet
static_assert(!rules::seam_provided<with_seam, context_without_seam>);

// SG015: sg::compile binds each lambda node once, to a tag the graph names.
struct left_tag {};
struct stray_tag {};
struct writes_nothing {
  void operator()(sg::view<State, sg::reads<>>) const {}
};
template <class Tag>
using lambda = sg::lambda_node<Tag, sg::any_stage, sg::reads<>, sg::writes<>, writes_nothing>;
using by_tag = sg::graph<State, sg::edge<sg::start, left_tag>, sg::edge<left_tag, sg::end>>;
static_assert(rules::bound_tags_are_nodes<sg::analysis<by_tag, list<lambda<left_tag>>>>);
static_assert(rules::bound_tags_are_nodes<sg::analysis<sequence, list<reader>>>);  // instances have no tag
static_assert(!rules::bound_tags_are_nodes<sg::analysis<by_tag, list<lambda<left_tag>, lambda<stray_tag>>>>);
static_assert(rules::bound_once<sg::analysis<by_tag, list<lambda<left_tag>>>>);
static_assert(!rules::bound_once<sg::analysis<by_tag, list<lambda<left_tag>, lambda<left_tag>>>>);
static_assert(!rules::bound_once<sg::analysis<sequence, list<reader, reader>>>);

// SG016: the state is a plain aggregate that `{}` can build.
struct Constructed {
  Constructed() = default;
  explicit Constructed(int v) : value(v) {}
  int value = 0;
};
struct Derived : Other {
  int more;
};
struct no_default {
  explicit no_default(int) {}
};
struct Unbuildable {
  std::string text;
  no_default part;
};
static_assert(rules::state_is_reflectable<State>);
static_assert(!rules::state_is_reflectable<Constructed>);
static_assert(!rules::state_is_reflectable<Derived>);
static_assert(rules::state_is_reflectable<Unbuildable>);
static_assert(rules::state_is_default_constructible<State>);
static_assert(!rules::state_is_default_constructible<Unbuildable>);

// SG017: each channel's reducer takes the channel's value and a write.
struct keep_max {
  int operator()(int current, int written) const { return written > current ? written : current; }
};
struct takes_text {
  int operator()(const std::string& current, int) const { return static_cast<int>(current.size()); }
};
struct takes_one {
  int operator()(int current) const { return current; }
};
struct returns_text {
  std::string operator()(int, int) const { return {}; }
};
struct no_call_operator {
  static void into(int&, int) {}
};
struct misfit_state {
  std::string text;
  sg::reduced<int, takes_one> best;
};
static_assert(rules::reducer_fits<keep_max, int>);
static_assert(rules::reducer_fits<sg::sum, int>);  // a template: left to the writes (SG004)
static_assert(rules::reducer_fits<sg::concat, std::vector<int>>);
static_assert(!rules::reducer_fits<takes_text, int>);
static_assert(!rules::reducer_fits<takes_one, int>);
static_assert(!rules::reducer_fits<returns_text, int>);
static_assert(!rules::reducer_fits<no_call_operator, int>);
static_assert(!rules::reducer_fits<int, int>);
static_assert(rules::reducers_fit_channels<State>);
static_assert(!rules::reducers_fit_channels<misfit_state>);

// SG014: a partial input names each channel once (its channels in the state: SG003).
using two_channels = decltype(sg::write<&State::steps>(1) | sg::write<&State::answer>("a"));
using steps_twice = decltype(sg::write<&State::steps>(1) | sg::write<&State::answer>("a") | sg::write<&State::steps>(2));
static_assert(rules::input_names_each_channel_once<two_channels>);
static_assert(rules::input_names_each_channel_once<sg::patch<>>);
static_assert(!rules::input_names_each_channel_once<steps_twice>);
static_assert(rules::input_channels_in_state<State, two_channels>);
static_assert(!rules::input_channels_in_state<State, decltype(sg::write<&Other::text>("t"))>);
static_assert(rules::check_partial_input<State, two_channels>());

// The predicates are what sg::compile checks.
static_assert(rules::check_all<sequence, A<sequence>>());
static_assert(rules::check_all<branched, A<branched>>());
static_assert(rules::check_all<forward, A<forward>>());

TEST_CASE("a graph every rule's predicate accepts compiles and runs") {
  auto app = sg::compile<branched>();
  State out = app.invoke(State{.question = "why"});
  CHECK(out.answer == "r");
  out = app.invoke(State{});
  CHECK(out.answer == "l");
}

}  // namespace rule_predicates

}  // namespace unity_rules_rule_predicates
