// What a node reads and returns (contract §2): view::get, write | write, maybe_write, and
// a patch's entries applied in order through each channel's reducer.
#include <doctest/doctest.h>

#include <boost/mp11/algorithm.hpp>
#include <optional>
#include <stategraph/stategraph.hpp>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_nodes_view_patch {

namespace sg = stategraph;

namespace unit_view_patch {

struct S {
  sg::counter<int> total;
  sg::append<std::string> log;
  std::string plain;
  sg::last_value<int> last;
};

struct Ints {
  sg::counter<int> a;
  int b;
};

}  // namespace unit_view_patch

using namespace unit_view_patch;

namespace {

// ---- view ---------------------------------------------------------------------------------

using view_all = sg::view<S, sg::reads<&S::total, &S::log, &S::plain, &S::last>>;
static_assert(std::is_same_v<decltype(std::declval<view_all>().get<&S::total>()), const int&>);
static_assert(std::is_same_v<decltype(std::declval<view_all>().get<&S::log>()), const std::vector<std::string>&>);
static_assert(std::is_same_v<decltype(std::declval<view_all>().get<&S::plain>()), const std::string&>);
static_assert(std::is_same_v<decltype(std::declval<view_all>().get<&S::last>()), const int&>);

constexpr int read_through_view() {
  Ints s{{3}, 4};
  sg::view<Ints, sg::reads<&Ints::a, &Ints::b>> v(s);
  return v.get<&Ints::a>() * 10 + v.get<&Ints::b>();
}
static_assert(read_through_view() == 34);

// ---- patches --------------------------------------------------------------------------------

using two = decltype(sg::write<&S::total>(1) | sg::write<&S::plain>(std::string("x")));
static_assert(std::is_same_v<two, sg::patch<sg::entry<&S::total, int>, sg::entry<&S::plain, std::string>>>);
using three =
    decltype(sg::write<&S::total>(1) | sg::write<&S::total>(2) | sg::maybe_write<&S::last>(std::optional<int>{}));
static_assert(std::tuple_size_v<decltype(three::entries)> == 3);
static_assert(std::is_same_v<std::tuple_element_t<2, decltype(three::entries)>, sg::entry<&S::last, int, true>>);
// A patch owns what it writes: a C string is kept as a std::string, not as a pointer.
static_assert(std::is_same_v<decltype(sg::write<&S::log>("x")), sg::patch<sg::entry<&S::log, std::string>>>);

constexpr int composed_values() {
  auto p = sg::write<&Ints::a>(1) | sg::write<&Ints::b>(2) | sg::write<&Ints::a>(3);
  return std::get<0>(p.entries).value * 100 + std::get<1>(p.entries).value * 10 + std::get<2>(p.entries).value;
}
static_assert(composed_values() == 123);

// ---- nodes that exercise patches inside a run ------------------------------------------------

// Two writes to one counter in one patch sum; two appends keep their order; two writes to a
// last-value channel in one patch: the later one wins (entries apply in order).
struct many_writes {
  using reads = sg::reads<>;
  using writes = sg::writes<&S::total, &S::log, &S::last>;
  auto operator()(sg::view<S, reads>) const {
    return sg::write<&S::total>(2) | sg::write<&S::log>("first") | sg::write<&S::total>(3) | sg::write<&S::last>(1) |
           sg::write<&S::log>(std::vector<std::string>{"second", "third"}) | sg::write<&S::last>(2);
  }
};

// Writes `plain` only when the counter says so.
struct maybe {
  using reads = sg::reads<&S::total>;
  using writes = sg::writes<&S::plain, &S::total>;
  auto operator()(sg::view<S, reads> in) const {
    const int t = in.get<&S::total>();
    std::optional<std::string> text;
    if (t > 0) text = "written at " + std::to_string(t);
    return sg::maybe_write<&S::plain>(std::move(text)) | sg::maybe_write<&S::total>(std::optional<int>{});
  }
};

struct nothing_patch {
  using reads = sg::reads<&S::plain>;
  sg::patch<> operator()(sg::view<S, reads>) const { return {}; }
};
struct nothing_void {
  using reads = sg::reads<&S::plain>;
  void operator()(sg::view<S, reads>) const {}
};

// Reads every channel through its view and reports what it saw.
struct reporter {
  using reads = sg::reads<&S::total, &S::log, &S::plain, &S::last>;
  using writes = sg::writes<&S::log>;
  auto operator()(view_all in) const {
    return sg::write<&S::log>("saw " + std::to_string(in.get<&S::total>()) + "/" +
                              std::to_string(in.get<&S::log>().size()) + "/" + in.get<&S::plain>() + "/" +
                              std::to_string(in.get<&S::last>()));
  }
};

}  // namespace

TEST_CASE("view::get returns each channel's value as the state holds it") {
  S s{.total = 5, .log = {"a", "b"}, .plain = "p", .last = 9};
  view_all v(s);
  CHECK(v.get<&S::total>() == 5);
  CHECK(v.get<&S::log>() == std::vector<std::string>{"a", "b"});
  CHECK(v.get<&S::plain>() == "p");
  CHECK(v.get<&S::last>() == 9);
  CHECK(&v.get<&S::log>() == &s.log.value());  // a reference into the state, not a copy
  s.total.value() = 6;
  CHECK(v.get<&S::total>() == 6);
}

TEST_CASE("write | write keeps every entry and its value, in order") {
  auto p = sg::write<&S::total>(1) | sg::write<&S::plain>(std::string("x")) | sg::write<&S::total>(7);
  CHECK(std::get<0>(p.entries).value == 1);
  CHECK(std::get<1>(p.entries).value == "x");
  CHECK(std::get<2>(p.entries).value == 7);
}

// Counts how a written value is handled; write() is on every node's hot path, so it must
// build its entry where the patch keeps it: one move from the argument, no copy.
struct tracked {
  int moves = 0, copies = 0;
  tracked() = default;
  tracked(const tracked& o) : moves(o.moves), copies(o.copies + 1) {}
  tracked(tracked&& o) noexcept : moves(o.moves + 1), copies(o.copies) {}
  tracked& operator=(const tracked&) = default;
  tracked& operator=(tracked&&) = default;
};
struct T {
  sg::last_value<tracked> a;
  sg::last_value<int> b;
};

TEST_CASE("write() moves its argument into the patch once and never copies it") {
  auto p = sg::write<&T::a>(tracked{});
  CHECK(std::get<0>(p.entries).value.moves == 1);
  CHECK(std::get<0>(p.entries).value.copies == 0);
  tracked lvalue;
  auto q = sg::write<&T::a>(lvalue);  // an lvalue is copied once: the patch owns what it writes
  CHECK(std::get<0>(q.entries).value.copies == 1);
  CHECK(std::get<0>(q.entries).value.moves == 0);
  // Composing moves each entry once more (into the combined tuple), still without a copy.
  auto r = sg::write<&T::b>(1) | sg::write<&T::a>(tracked{});
  CHECK(std::get<1>(r.entries).value.moves == 2);
  CHECK(std::get<1>(r.entries).value.copies == 0);
}

TEST_CASE("maybe_write: an empty optional is absent, a full one present") {
  auto empty = sg::maybe_write<&S::total>(std::optional<int>{});
  auto full = sg::maybe_write<&S::total>(std::optional<int>{4});
  CHECK_FALSE(std::get<0>(empty.entries).present());
  CHECK(std::get<0>(full.entries).present());
  CHECK(std::get<0>(full.entries).take() == 4);
}

TEST_CASE("a patch applies its entries in order through the reducers") {
  using G =
      sg::graph<S, sg::edge<sg::start, many_writes>, sg::edge<many_writes, reporter>, sg::edge<reporter, sg::end>>;
  auto app = sg::compile<G>();
  S out = app.invoke(S{.total = 10});
  CHECK(out.total == 15);  // 10 (input) + 2 + 3
  CHECK(out.last == 2);
  CHECK(out.log == std::vector<std::string>{"first", "second", "third", "saw 15/3//2"});
}

TEST_CASE("maybe_write inside a run: empty leaves the channel, full writes it") {
  using G = sg::graph<S, sg::edge<sg::start, maybe>, sg::edge<maybe, sg::end>>;
  auto app = sg::compile<G>();
  S zero = app.invoke(S{.plain = "kept"});
  CHECK(zero.plain == "kept");
  CHECK(zero.total == 0);
  S three = app.invoke(S{.total = 3, .plain = "kept"});
  CHECK(three.plain == "written at 3");
  CHECK(three.total == 3);  // the empty maybe_write to the counter added nothing
}

TEST_CASE("returning sg::patch<>{} changes nothing") {
  using G = sg::graph<S, sg::edge<sg::start, nothing_patch>, sg::edge<nothing_patch, sg::end>>;
  S out = sg::compile<G>().invoke(S{.total = 1, .log = {"x"}, .plain = "p", .last = 2});
  CHECK(out.total == 1);
  CHECK(out.log == std::vector<std::string>{"x"});
  CHECK(out.plain == "p");
  CHECK(out.last == 2);
}

TEST_CASE("returning void changes nothing") {
  using G = sg::graph<S, sg::edge<sg::start, nothing_patch>, sg::edge<nothing_patch, nothing_void>,
                      sg::edge<nothing_void, sg::end>>;
  S out = sg::compile<G>().invoke(S{.total = 1, .log = {"x"}, .plain = "p", .last = 2});
  CHECK(out.total == 1);
  CHECK(out.log == std::vector<std::string>{"x"});
  CHECK(out.plain == "p");
  CHECK(out.last == 2);
}

// ---- containers and grants ----------------------------------------------------------------

namespace unit_containers {

struct Canvas {
  sg::append<std::string> action_history;
  sg::last_value<std::string> active_plan;
  sg::counter<int> step_count;
  sg::last_value<int> position;
};
struct nav : sg::container<&Canvas::action_history, &Canvas::active_plan, &Canvas::step_count> {};
struct spatial : sg::container<&Canvas::position> {};

struct planner {  // writes nav, reads nothing
  using reads = sg::reads_from<>;
  using writes = sg::writes_to<nav>;
  auto operator()(sg::view<Canvas, reads>) const {
    return sg::write<&Canvas::active_plan>(std::string("north")) | sg::write<&Canvas::step_count>(1) |
           sg::write<&Canvas::action_history>("plan");
  }
};
struct mover {  // reads nav, writes spatial: runs beside planner without a conflict on nav
  using reads = sg::reads_from<nav>;
  using writes = sg::writes_to<spatial>;
  auto operator()(sg::view<Canvas, reads> in) const { return sg::write<&Canvas::position>(in.get<&Canvas::step_count>() + 10); }
};
struct summary {  // a grant mixes containers and plain channel lists
  using reads = sg::reads_from<spatial, sg::reads<&Canvas::active_plan>>;
  using writes = sg::writes<&Canvas::action_history>;
  auto operator()(sg::view<Canvas, reads> in) const {
    return sg::write<&Canvas::action_history>(in.get<&Canvas::active_plan>() + " at " +
                                              std::to_string(in.get<&Canvas::position>()));
  }
};
using canvas = sg::graph<Canvas, sg::edge<sg::start, planner>, sg::edge<sg::start, mover>, sg::join<summary, planner, mover>,
                         sg::edge<summary, sg::end>>;

}  // namespace unit_containers

TEST_CASE("containers: read and write grants give the container's channels, and only write grants make writers") {
  namespace uc = unit_containers;
  using mover_traits = sg::node_traits<uc::mover>;
  static_assert(std::is_same_v<mover_traits::writes_type::list, boost::mp11::mp_list<sg::detail::value_t<&uc::Canvas::position>>>);
  static_assert(boost::mp11::mp_size<mover_traits::reads_type::list>::value == 3);
  static_assert(std::is_same_v<uc::mover::reads::containers, boost::mp11::mp_list<uc::nav>>);
  static_assert(std::is_same_v<sg::detail::grant_container<uc::planner::writes, sg::detail::value_t<&uc::Canvas::active_plan>>::type, uc::nav>);
  // mover reads nav beside planner, which writes it: it sees the state of the step's start
  uc::Canvas out = sg::compile<uc::canvas>().invoke(uc::Canvas{.step_count = 4});
  CHECK(out.active_plan == "north");
  CHECK(out.step_count == 5);
  CHECK(out.position == 14);
  CHECK(out.action_history == std::vector<std::string>{"plan", "north at 14"});
}

// ---- the view a node is called with -------------------------------------------------------

namespace unit_node_view {
struct tagged {};
// Takes the plain view: a node's view passes on as sg::view<S, reads> (it derives from it).
int total_of(sg::view<S, sg::reads<&S::total>> in) { return in.get<&S::total>(); }
struct generic_node {
  using reads = sg::reads<&S::total>;
  using writes = sg::writes<&S::log>;
  auto operator()(auto in) const {
    // The library's view knows its node (for SG001), and is an sg::view of the node's reads.
    static_assert(std::is_base_of_v<sg::view<S, reads>, decltype(in)>);
    static_assert(std::is_same_v<typename decltype(in)::reads_type, reads>);
    return sg::write<&S::log>("class " + std::to_string(total_of(in)));
  }
};
}  // namespace unit_node_view

TEST_CASE("generic nodes get a view of their reads that knows the node and passes on as sg::view") {
  using namespace unit_node_view;
  static_assert(std::is_same_v<sg::detail::node_view_t<generic_node, S>,
                               sg::detail::node_view<S, sg::reads<&S::total>, generic_node>>);
  auto lambda = sg::node<tagged, sg::any_stage, sg::reads<&S::total>, sg::writes<&S::log>>([](auto in) {
    static_assert(std::is_same_v<decltype(in), sg::detail::node_view<S, sg::reads<&S::total>, tagged>>);
    return sg::write<&S::log>("lambda " + std::to_string(total_of(in) + in.template get<&S::total>()));
  });
  using G = sg::graph<S, sg::edge<sg::start, generic_node>, sg::edge<generic_node, tagged>, sg::edge<tagged, sg::end>>;
  S out = sg::compile<G>(lambda).invoke(S{.total = 3});
  CHECK(out.log == std::vector<std::string>{"class 3", "lambda 6"});
}

namespace unit_view_for {
// A non-generic call operator that names its node in its view (for SG001), as a router too.
struct counted {
  using reads = sg::reads<&S::total, &S::last>;
  using writes = sg::writes<&S::log>;
  auto operator()(sg::view_for<S, counted> in) const {
    static_assert(std::is_base_of_v<sg::view<S, reads>, decltype(in)>);
    static_assert(std::is_same_v<decltype(in)::reads_type, reads>);
    return sg::write<&S::log>("counted " + std::to_string(in.get<&S::total>() + in.get<&S::last>()));
  }
};
struct again {
  using reads = sg::reads<&S::total>;
  sg::go<counted, sg::end> operator()(sg::view_for<S, again> in) const;
};
// Defined outside the class: the node is complete there too.
sg::go<counted, sg::end> again::operator()(sg::view_for<S, again> in) const {
  if (unit_node_view::total_of(in) < 7) return sg::to<counted>;
  return sg::to<sg::end>;
}
struct bump {
  using writes = sg::writes<&S::total>;
  auto operator()(sg::view_for<S, bump> in) const {
    static_assert(std::is_same_v<decltype(in)::reads_type, sg::reads<>>);  // no `reads`: reads nothing
    return sg::write<&S::total>(2);
  }
};
}  // namespace unit_view_for

TEST_CASE("sg::view_for<State, Node> reads the node's declared channels and passes on as sg::view") {
  using namespace unit_view_for;
  // Built from the plain view, as a test calls a node by hand.
  S s{.total = 4, .last = 1};
  auto direct = counted{}(sg::view<S, counted::reads>(s));
  CHECK(std::get<0>(direct.entries).value == "counted 5");
  CHECK(std::get<0>(counted{}(sg::view_for<S, counted>(s)).entries).value == "counted 5");
  // The library passes its own view; the router loops until total reaches 7.
  using G = sg::graph<S, sg::edge<sg::start, counted>, sg::edge<counted, bump>, sg::branch<bump, again>>;
  S out = sg::compile<G>().invoke(S{.total = 3, .last = 10});
  CHECK(out.total == 7);
  CHECK(out.log == std::vector<std::string>{"counted 13", "counted 15"});
}

// The entry points' overloads for a call with no argument (misuse_*_without_arguments.cpp)
// take a default argument `{}`: a braced input the caller writes still builds the state.
TEST_CASE("a braced input still builds the state beside the no-argument catch-all") {
  using G = sg::graph<S, sg::edge<sg::start, unit_view_for::counted>, sg::edge<unit_view_for::counted, sg::end>>;
  auto app = sg::compile<G>();
  CHECK(app.invoke({}).log == std::vector<std::string>{"counted 0"});
  CHECK(app.invoke({.total = 2, .last = 3}).log == std::vector<std::string>{"counted 5"});
}

// An entry point's catch-all (rules/misuse.hpp, misuse_*.cpp) takes its first argument as
// wrong_call, which converts from anything but another type that converts to what the fitting
// overloads take (those would tie); the state itself converts, and loses to them by ranking.
struct derived_input : S {};
using invoke_catch_all = sg::rules::wrong_call<sg::rules::invoke_call<S>>;
static_assert(std::is_convertible_v<int, invoke_catch_all>);
static_assert(std::is_convertible_v<S, invoke_catch_all>);
static_assert(!std::is_convertible_v<derived_input, invoke_catch_all>);
static_assert(std::is_convertible_v<const char*, sg::rules::wrong_call<sg::rules::get_state_call>>);

// A diagnostic shows a lambda argument by its call operator's signature, other types as they are.
inline auto takes_int = [](int) { return 1; };
inline auto mutable_takes_int = [n = 0](int) mutable { return ++n; };
inline auto generic = [](auto) {};
struct named_callback {
  void operator()(int) const {}
};
static_assert(std::is_same_v<sg::rules::shown_t<decltype(takes_int)>, sg::rules::lambda<int(int)>>);
static_assert(std::is_same_v<sg::rules::shown_t<decltype(mutable_takes_int)>, sg::rules::lambda<int(int)>>);
static_assert(std::is_same_v<sg::rules::shown_t<decltype(generic)>, sg::rules::generic_lambda>);
static_assert(std::is_same_v<sg::rules::shown_t<named_callback>, named_callback>);
static_assert(std::is_same_v<sg::rules::shown_t<int>, int>);
static_assert(std::is_same_v<sg::rules::wrong_call<sg::rules::invoke_call<S>, decltype(takes_int)>,
                             sg::rules::wrong_call_of<sg::rules::invoke_call<S>, sg::rules::lambda<int(int)>>>);

}  // namespace unity_nodes_view_patch
