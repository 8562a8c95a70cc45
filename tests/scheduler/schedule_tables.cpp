// The static scheduler's tables (semantics.md, "The static scheduler"), checked at compile
// time: node order, successors, start/end, joins, branches, and the fixed plan.
#include <doctest/doctest.h>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_scheduler_schedule_tables {

using unit::Logged;
using unit::logs_name;
namespace sg = stategraph;

namespace unit_schedule {

// Names chosen so that alphabetical order differs from declaration order.
struct zed : logs_name<zed> {};
struct alpha : logs_name<alpha> {};
struct mid : logs_name<mid> {};
struct omega : logs_name<omega> {};
struct lone : logs_name<lone> {};

template <class... Ts>
using list = boost::mp11::mp_list<Ts...>;

template <std::size_t N, class... Is>
constexpr sg::detail::node_set<N> set_of(Is... is) {
  sg::detail::node_set<N> s{};
  (s.set(static_cast<std::size_t>(is)), ...);
  return s;
}

// ---- node order: a list without its repeats, in order of first appearance ----------------

// detail::unique_t replaces mp_unique (which is quadratic in template arguments); it must
// give the same lists, also past Clang's chunk of 128 and its fold limit of 256 operands.
using sg::detail::unique_t;
static_assert(std::is_same_v<unique_t<list<>>, list<>>);
static_assert(std::is_same_v<unique_t<list<mid>>, list<mid>>);
static_assert(std::is_same_v<unique_t<list<mid, zed, mid, alpha, zed, mid>>, list<mid, zed, alpha>>);
static_assert(std::is_same_v<unique_t<list<void, int, void, const int, int>>, list<void, int, const int>>);
using distinct_300 = boost::mp11::mp_iota_c<300>;
static_assert(std::is_same_v<unique_t<boost::mp11::mp_append<distinct_300, distinct_300>>, distinct_300>);
static_assert(
    std::is_same_v<unique_t<boost::mp11::mp_append<boost::mp11::mp_repeat_c<list<omega, lone>, 200>, list<zed>>>,
                   list<omega, lone, zed>>);
static_assert(
    std::is_same_v<unique_t<boost::mp11::mp_append<distinct_300, list<zed>, boost::mp11::mp_reverse<distinct_300>>>,
                   boost::mp11::mp_push_back<distinct_300, zed>>);
// The fold keeps the types it has seen in batches of 32 (detail::seen_batch_size): a list
// that fills one batch exactly, one a type past it, and repeats that straddle batches.
using distinct_32 = boost::mp11::mp_iota_c<32>;
using distinct_33 = boost::mp11::mp_iota_c<33>;
static_assert(std::is_same_v<unique_t<boost::mp11::mp_append<distinct_32, distinct_32>>, distinct_32>);
static_assert(
    std::is_same_v<unique_t<boost::mp11::mp_append<distinct_33, list<zed>, boost::mp11::mp_reverse<distinct_33>>>,
                   boost::mp11::mp_push_back<distinct_33, zed>>);
// 1,000 mentions: past g++'s default template depth of 900, where mp_unique's recursion
// stopped graphs of more than about 225 nodes (4 mentions per node) from compiling.
using distinct_500 = boost::mp11::mp_iota_c<500>;
static_assert(std::is_same_v<unique_t<boost::mp11::mp_append<distinct_500, boost::mp11::mp_reverse<distinct_500>>>,
                             distinct_500>);
// Types that print alike (two lambdas from one macro; two local classes of one function):
// with Clang, unique_t finds first appearances by the printed names, checks every mention,
// and takes the fold for such a list; the lists are the same either way.
#define UNIQUE_TWO_LAMBDAS     \
  inline auto alike_a = [] {}; \
  inline auto alike_b = [] {};
UNIQUE_TWO_LAMBDAS
#undef UNIQUE_TWO_LAMBDAS
using alike_a_t = decltype(alike_a);
using alike_b_t = decltype(alike_b);
static_assert(
    std::is_same_v<unique_t<list<alike_a_t, alike_b_t, alike_a_t, mid, alike_b_t>>, list<alike_a_t, alike_b_t, mid>>);
inline auto two_local_classes() {
  struct local {};
  auto inner = [] {
    struct local {};
    return local{};
  };
  return list<local, decltype(inner())>{};
}
using two_locals = decltype(two_local_classes());
static_assert(!std::is_same_v<boost::mp11::mp_front<two_locals>, boost::mp11::mp_back<two_locals>>);
static_assert(
    std::is_same_v<unique_t<boost::mp11::mp_append<two_locals, boost::mp11::mp_reverse<two_locals>>>, two_locals>);
#if defined(__clang__)
static_assert(sg::detail::unique_choice<mid, zed, mid, alpha>::by_name::exact);   // the linear path
static_assert(!sg::detail::unique_choice<alike_a_t, alike_b_t>::by_name::exact);  // the fold
using local_a = boost::mp11::mp_front<two_locals>;
using local_b = boost::mp11::mp_back<two_locals>;
static_assert(!sg::detail::unique_choice<local_a, local_b>::by_name::exact);
#endif

// detail::table_at replaces mp_at_c for a graph's nodes on g++: every element of a list,
// including duplicates and the last of 500, is the one mp_at_c gives.
template <class List, std::size_t... I>
constexpr bool reads_like_mp_at(std::index_sequence<I...>) {
  using table = sg::detail::at_table<List>;
  // An array, not a fold: Clang caps a fold expression at 256 operands.
  const bool same[] = {std::is_same_v<sg::detail::table_at<table, I>, boost::mp11::mp_at_c<List, I>>...};
  for (bool b : same)
    if (!b) return false;
  return true;
}
static_assert(reads_like_mp_at<list<mid, zed, mid, void, const int>>(std::make_index_sequence<5>{}));
static_assert(reads_like_mp_at<boost::mp11::mp_reverse<distinct_500>>(std::make_index_sequence<500>{}));
static_assert(std::is_same_v<sg::detail::table_at<sg::detail::at_table<boost::mp11::mp_reverse<distinct_500>>, 499>,
                             boost::mp11::mp_size_t<0>>);

// detail::position_of finds a type's index in a graph's name list (a base class per name
// with Clang, an overload per name with g++): every index of 500, none for a type the list
// does not hold, a base class or a class derived from a listed one included.
template <class List, std::size_t... I>
constexpr bool finds_every_position(std::index_sequence<I...>) {
  using table = sg::detail::lookup_table<List>;
  const bool found[] = {(sg::detail::position_of<boost::mp11::mp_at_c<List, I>, table>::value == I)...};
  for (bool b : found)
    if (!b) return false;
  return true;
}
static_assert(finds_every_position<list<mid, zed, void, const int, int>>(std::make_index_sequence<5>{}));
static_assert(finds_every_position<boost::mp11::mp_reverse<distinct_500>>(std::make_index_sequence<500>{}));
using some_names = sg::detail::lookup_table<list<mid, zed, logs_name<alpha>>>;
static_assert(sg::detail::position_of<alpha, some_names>::value == sg::detail::none);  // derived from a listed one
static_assert(sg::detail::position_of<logs_name<zed>, some_names>::value == sg::detail::none);  // a base of one
static_assert(sg::detail::position_of<sg::end, some_names>::value == sg::detail::none);
static_assert(sg::detail::position_of<logs_name<alpha>, some_names>::value == 2);
static_assert(sg::detail::position_of<mid, sg::detail::lookup_table<list<>>>::value == sg::detail::none);

// ---- a static DAG: zed -> {alpha, mid} -> join omega -> end --------------------------------

using dag = sg::graph<Logged, sg::edge<sg::start, zed>, sg::edge<zed, alpha>, sg::edge<zed, mid>,
                      sg::join<omega, alpha, mid>, sg::edge<omega, sg::end>>;
using A = sg::analysis<dag>;

static_assert(std::is_same_v<A::names, list<zed, alpha, mid, omega>>);
static_assert(A::size == 4);
static_assert(A::index<zed>::value == 0 && A::index<alpha>::value == 1);
static_assert(A::index<mid>::value == 2 && A::index<omega>::value == 3);
static_assert(A::index<lone>::value == sg::detail::none);
static_assert(A::table.from_start == set_of<4>(0));
static_assert(A::table.successors[0] == set_of<4>(1, 2));
static_assert(!A::table.successors[1].any() && !A::table.successors[2].any());  // a join is not an edge
static_assert(!A::table.successors[3].any());
static_assert(!A::table.to_end[0] && !A::table.to_end[1] && !A::table.to_end[2] && A::table.to_end[3]);
static_assert(A::join_count == 1 && A::branch_count == 0);
static_assert(A::table.join_rows[0].into == 3);
static_assert(A::table.join_rows[0].sources == set_of<4>(1, 2));
static_assert(A::plan.fixed);
static_assert(A::plan.steps == 3);
static_assert(A::plan_steps[0] == set_of<4>(0));
static_assert(A::plan_steps[1] == set_of<4>(1, 2));
static_assert(A::plan_steps[2] == set_of<4>(3));
static_assert(sg::rules::may_run_together<A>::table.complete);
static_assert(sg::rules::may_run_together<A>::table.with[1].test(2));
static_assert(!sg::rules::may_run_together<A>::table.with[0].test(1));

// The same nodes declared in another order get other indices.
using dag_reordered = sg::graph<Logged, sg::edge<sg::start, zed>, sg::edge<zed, mid>, sg::edge<zed, alpha>,
                                sg::join<omega, mid, alpha>, sg::edge<omega, sg::end>>;
using A2 = sg::analysis<dag_reordered>;
static_assert(std::is_same_v<A2::names, list<zed, mid, alpha, omega>>);
static_assert(A2::plan.fixed && A2::plan.steps == 3);

// An end edge declared first still puts nodes in order of first appearance.
using late_start = sg::graph<Logged, sg::edge<omega, sg::end>, sg::edge<alpha, omega>, sg::edge<sg::start, alpha>>;
using A3 = sg::analysis<late_start>;
static_assert(std::is_same_v<A3::names, list<omega, alpha>>);
static_assert(A3::table.from_start == set_of<2>(1));
static_assert(A3::table.successors[1] == set_of<2>(0));
static_assert(A3::plan.fixed && A3::plan.steps == 2);
static_assert(A3::plan_steps[0] == set_of<2>(1) && A3::plan_steps[1] == set_of<2>(0));

// Plain edges into one node from different depths: it appears in two steps of the plan.
using two_depths = sg::graph<Logged, sg::edge<sg::start, zed>, sg::edge<sg::start, alpha>, sg::edge<alpha, mid>,
                             sg::edge<zed, omega>, sg::edge<mid, omega>, sg::edge<omega, sg::end>>;
using A4 = sg::analysis<two_depths>;
static_assert(std::is_same_v<A4::names, list<zed, alpha, mid, omega>>);
static_assert(A4::plan.fixed && A4::plan.steps == 3);
static_assert(A4::plan_steps[0] == set_of<4>(0, 1));
static_assert(A4::plan_steps[1] == set_of<4>(2, 3));
static_assert(A4::plan_steps[2] == set_of<4>(3));

// ---- a branch: no fixed plan; the branch's source and targets (end is `none`) -------------

using looped =
    sg::graph<Logged, sg::edge<sg::start, zed>, sg::branch<zed, unit::loop_until<alpha, 3>>, sg::edge<alpha, zed>>;
using B = sg::analysis<looped>;
static_assert(std::is_same_v<B::names, list<zed, alpha>>);
static_assert(B::branch_count == 1);
static_assert(B::branch_table[0].source == 0);
static_assert(B::branch_table[0].count == 2);
static_assert(B::branch_table[0].target_list[0] == 1 && B::branch_table[0].target_list[1] == sg::detail::none);
static_assert(B::branch_table[0].to_end && B::branch_table[0].targets == set_of<2>(1));
static_assert(!B::branch_table[0].all && !B::branch_table[0].sends);
static_assert(B::table.successors[1] == set_of<2>(0));
static_assert(!B::plan.fixed);
static_assert(B::plan.steps == 0);

// ---- a cycle of plain edges: no fixed plan either ---------------------------------------------

using cycle =
    sg::graph<Logged, sg::edge<sg::start, zed>, sg::edge<zed, alpha>, sg::edge<alpha, zed>, sg::edge<alpha, sg::end>>;
using C = sg::analysis<cycle>;
static_assert(C::branch_count == 0 && !C::any_goes);
static_assert(!C::plan.fixed);

// ---- a command's declared targets are a table too -------------------------------------------

struct commander {
  using reads = sg::reads<>;
  using writes = sg::writes<&Logged::counter>;
  using goes = sg::goes<mid, sg::end>;
  auto operator()(sg::view<Logged, reads>) const { return sg::command{sg::write<&Logged::counter>(1), sg::to<mid>}; }
};
using commanded = sg::graph<Logged, sg::edge<sg::start, commander>, sg::edge<commander, alpha>,
                            sg::edge<alpha, sg::end>, sg::edge<mid, sg::end>>;
using D = sg::analysis<commanded>;
static_assert(std::is_same_v<D::names, list<commander, alpha, mid>>);
static_assert(D::any_goes);
static_assert(D::table.goes[0] == set_of<3>(2));
static_assert(D::table.goes_end[0] && !D::table.goes_end[1]);
static_assert(!D::plan.fixed);

}  // namespace unit_schedule

using namespace unit_schedule;

TEST_CASE("the app's node names follow the analysis's order") {
  using app_t = decltype(sg::compile<dag>());
  CHECK(app_t::node_count == 4);
  CHECK(app_t::node_names[0] == std::string_view("zed"));
  CHECK(app_t::node_names[1] == std::string_view("alpha"));
  CHECK(app_t::node_names[2] == std::string_view("mid"));
  CHECK(app_t::node_names[3] == std::string_view("omega"));
}

TEST_CASE("a fixed plan runs as its table says") {
  auto out = sg::compile<dag>().invoke(Logged{});
  CHECK(out.log == unit::strings{"zed", "alpha", "mid", "omega"});
  auto two = sg::compile<two_depths>().invoke(Logged{});
  CHECK(two.log == unit::strings{"zed", "alpha", "mid", "omega", "omega"});
  CHECK(two.counter == 5);
}

}  // namespace unity_scheduler_schedule_tables
