// Reducers and channel wrappers (contract §1): each reducer's result, in constant
// expressions where the value type allows, and wrappers that read like their values.
#include <doctest/doctest.h>

#include <set>
#include <stategraph/channels.hpp>
#include <stategraph/stategraph.hpp>
#include <string>
#include <type_traits>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_schema_reducers {

namespace sg = stategraph;

namespace {

// ---- built-in reducers in constant expressions ------------------------------------------

static_assert(sg::replace{}(1, 2) == 2);
static_assert(sg::replace{}(1.5, 7) == 7.0);
static_assert(sg::sum{}(40, 2) == 42);
static_assert(sg::sum{}(1.5, 2) == 3.5);

constexpr int replaced_in_place() {
  int acc = 1;
  sg::replace::into(acc, 9);
  return acc;
}
static_assert(replaced_in_place() == 9);

constexpr int summed_in_place() {
  int acc = 1;
  sg::sum::into(acc, 9);
  sg::sum::into(acc, -3);
  return acc;
}
static_assert(summed_in_place() == 7);

// std::vector is constexpr in libstdc++ 12, with GCC 12 and with Clang 14.
static_assert(sg::concat{}(std::vector<int>{1, 2}, 3) == std::vector<int>{1, 2, 3});
static_assert(sg::concat{}(std::vector<int>{1}, std::vector<int>{2, 3}) == std::vector<int>{1, 2, 3});
static_assert(sg::concat{}(std::vector<int>{}, std::vector<int>{}).empty());
static_assert(sg::keep_last<2>{}(std::vector<int>{1, 2}, 3) == std::vector<int>{2, 3});
static_assert(sg::keep_last<2>{}(std::vector<int>{1}, std::vector<int>{2, 3, 4, 5}) == std::vector<int>{4, 5});
static_assert(sg::keep_last<3>{}(std::vector<int>{}, 1) == std::vector<int>{1});

// ---- user reducers -------------------------------------------------------------------

// The simplest user reducer: only `T operator()(T, U)`.
struct max_of {
  constexpr int operator()(int acc, int v) const { return v > acc ? v : acc; }
};

// A reducer whose write type differs from the value type.
struct join_words {
  std::string operator()(std::string acc, const char* word) const {
    if (!acc.empty()) acc += ' ';
    return acc += word;
  }
};

// A reducer with a static in-place form besides the call operator: the runtime must use
// the static form (it spares moving the value in and out), which this one makes visible
// by reducing differently.
struct prefers_into {
  constexpr int operator()(int acc, int v) const { return acc + v; }
  static constexpr void into(int& acc, int v) { acc = acc * 10 + v; }
};

constexpr int folded_max() {
  sg::reduced<int, max_of> m{3};
  sg::reduce_into(m, 1);
  sg::reduce_into(m, 7);
  sg::reduce_into(m, 5);
  return m;
}
static_assert(folded_max() == 7);

constexpr int folded_with_into() {
  sg::reduced<int, prefers_into> r{1};
  sg::reduce_into(r, 2);
  sg::reduce_into(r, 3);
  return r;
}
static_assert(folded_with_into() == 123);

static_assert(sg::accepts_write<sg::reduced<int, max_of>, int>);
static_assert(!sg::accepts_write<sg::reduced<int, max_of>, std::string>);
static_assert(sg::accepts_write<sg::reduced<std::string, join_words>, const char*>);
static_assert(!sg::accepts_write<sg::reduced<std::string, join_words>, int>);

// ---- wrappers in constant expressions --------------------------------------------------

constexpr int counted() {
  sg::counter<int> c{5};
  sg::reduce_into(c, 3);
  sg::reduce_into(c, -1);
  return c;  // converts to its value
}
static_assert(counted() == 7);

constexpr int last_written() {
  sg::last_value<int> v{1};
  sg::reduce_into(v, 4);
  sg::reduce_into(v, 2);
  return v;
}
static_assert(last_written() == 2);

constexpr bool appended() {
  sg::append<int> a;
  sg::reduce_into(a, 1);
  sg::reduce_into(a, std::vector<int>{2, 3});
  return a == std::vector<int>{1, 2, 3} && a.size() == 3;
}
static_assert(appended());

constexpr bool trimmed() {
  sg::bounded<int, 2> b;
  sg::reduce_into(b, 1);
  sg::reduce_into(b, 2);
  sg::reduce_into(b, 3);
  return b == std::vector<int>{2, 3};
}
static_assert(trimmed());

constexpr int plain_field() {
  int x = 1;
  sg::reduce_into(x, 6);  // a plain field: last value wins
  return x;
}
static_assert(plain_field() == 6);

// ---- what each wrapper declares ---------------------------------------------------------

template <class F>
using reducer_of = typename sg::channel_traits<F>::reducer;
template <class F>
using value_of = typename sg::channel_traits<F>::value_type;

static_assert(std::is_same_v<reducer_of<std::string>, sg::replace>);
static_assert(std::is_same_v<reducer_of<sg::last_value<int>>, sg::replace>);
static_assert(std::is_same_v<reducer_of<sg::ephemeral<int>>, sg::replace>);
static_assert(std::is_same_v<reducer_of<sg::counter<long>>, sg::sum>);
static_assert(std::is_same_v<reducer_of<sg::append<int>>, sg::concat>);
static_assert(std::is_same_v<reducer_of<sg::bounded<int, 4>>, sg::keep_last<4>>);
static_assert(std::is_same_v<reducer_of<sg::reduced<std::set<int>, sg::set_union>>, sg::set_union>);
static_assert(std::is_same_v<value_of<sg::append<std::string>>, std::vector<std::string>>);
static_assert(std::is_same_v<value_of<sg::bounded<int, 4>>, std::vector<int>>);
static_assert(std::is_same_v<value_of<sg::counter<long>>, long>);
static_assert(std::is_same_v<value_of<double>, double>);

static_assert(sg::channel_traits<std::string>::kind == sg::channel_kind::last_value);
static_assert(sg::channel_traits<sg::last_value<int>>::kind == sg::channel_kind::last_value);
static_assert(sg::channel_traits<sg::ephemeral<int>>::kind == sg::channel_kind::ephemeral);
static_assert(sg::channel_traits<sg::counter<int>>::kind == sg::channel_kind::accumulator);
static_assert(sg::channel_traits<sg::append<int>>::kind == sg::channel_kind::accumulator);
static_assert(sg::channel_traits<sg::bounded<int, 1>>::kind == sg::channel_kind::accumulator);

static_assert(sg::accepts_write<sg::append<std::string>, const char*>);
static_assert(sg::accepts_write<sg::append<std::string>, std::vector<std::string>>);
static_assert(!sg::accepts_write<sg::append<std::string>, int>);
static_assert(!sg::accepts_write<sg::counter<int>, std::string>);
static_assert(sg::accepts_write<sg::reduced<std::set<std::string>, sg::set_union>, std::vector<std::string>>);

struct sealed final {  // a final class cannot be derived from: the wrapper holds it instead
  int inside = 0;
};

}  // namespace

TEST_CASE("concat appends one element, a range, and moves from an rvalue range") {
  sg::append<std::string> log;
  sg::reduce_into(log, "a");
  sg::reduce_into(log, std::string("b"));
  const std::vector<std::string> more{"c", "d"};
  sg::reduce_into(log, more);
  std::vector<std::string> moved{"e", "f"};
  sg::reduce_into(log, std::move(moved));
  CHECK(log == std::vector<std::string>{"a", "b", "c", "d", "e", "f"});
  CHECK(more == std::vector<std::string>{"c", "d"});  // an lvalue range is copied, not moved from
}

TEST_CASE("an append of vectors takes a vector as one element") {
  sg::append<std::vector<int>> rows;
  sg::reduce_into(rows, std::vector<int>{1, 2});
  sg::reduce_into(rows, std::vector<int>{3});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0] == std::vector<int>{1, 2});
  CHECK(rows[1] == std::vector<int>{3});
}

TEST_CASE("bounded keeps the last N across element and range writes") {
  sg::bounded<std::string, 3> recent;
  sg::reduce_into(recent, "1");
  sg::reduce_into(recent, "2");
  CHECK(recent == std::vector<std::string>{"1", "2"});
  sg::reduce_into(recent, std::vector<std::string>{"3", "4", "5", "6"});
  CHECK(recent == std::vector<std::string>{"4", "5", "6"});
  sg::reduce_into(recent, "7");
  CHECK(recent == std::vector<std::string>{"5", "6", "7"});

  CHECK(sg::keep_last<1>{}(std::vector<int>{1, 2}, std::vector<int>{}) == std::vector<int>{2});
}

TEST_CASE("set_union inserts an element, a range and another set, without duplicates") {
  sg::reduced<std::set<std::string>, sg::set_union> tags;
  sg::reduce_into(tags, "b");
  sg::reduce_into(tags, std::string("a"));
  sg::reduce_into(tags, std::vector<std::string>{"c", "a"});
  sg::reduce_into(tags, std::set<std::string>{"d", "b"});
  CHECK(tags == std::set<std::string>{"a", "b", "c", "d"});
  CHECK(sg::set_union{}(std::set<int>{1}, 1) == std::set<int>{1});
  CHECK(sg::set_union{}(std::set<int>{1}, std::vector<int>{3, 2}) == std::set<int>{1, 2, 3});
}

TEST_CASE("a user reducer whose write type differs from the value type") {
  sg::reduced<std::string, join_words> sentence;
  sg::reduce_into(sentence, "hello");
  sg::reduce_into(sentence, "big");
  sg::reduce_into(sentence, "world");
  CHECK(sentence == std::string("hello big world"));
}

TEST_CASE("a reducer's static in-place form is preferred over its call operator") {
  sg::reduced<int, prefers_into> r{4};
  sg::reduce_into(r, 2);
  CHECK(r == 42);                    // into: 4 * 10 + 2
  CHECK(prefers_into{}(4, 2) == 6);  // the call operator still adds
  CHECK(sg::accepts_write<sg::reduced<int, prefers_into>, int>);
}

TEST_CASE("ephemeral replaces like a last value; clearing is the runtime's job (see supersteps.cpp)") {
  sg::ephemeral<std::string> scratch{"old"};
  sg::reduce_into(scratch, "new");
  CHECK(scratch == "new");
  sg::ephemeral<int> flag;
  CHECK(flag == 0);
  sg::reduce_into(flag, 3);
  CHECK(flag == 3);
}

TEST_CASE("wrappers read like their values") {
  SUBCASE("a class value: member functions, range-for, comparison") {
    sg::append<int> xs{1, 2, 3};
    CHECK(xs.size() == 3);
    CHECK(xs.back() == 3);
    int total = 0;
    for (int x : xs) total += x;
    CHECK(total == 6);
    CHECK(xs == std::vector<int>{1, 2, 3});
    CHECK(xs != std::vector<int>{1, 2});
    const std::vector<int>& as_vector = xs;  // binds to its value without a copy
    CHECK(&as_vector == &xs.value());

    sg::last_value<std::string> name{"ada"};
    CHECK(name.size() == 3);
    CHECK(name == "ada");
    CHECK(name + "!" == "ada!");
  }
  SUBCASE("a scalar value: conversion, arithmetic, comparison") {
    sg::counter<int> n{41};
    const int as_int = n;
    CHECK(as_int == 41);
    CHECK(n + 1 == 42);
    CHECK(n < 42);
    CHECK(static_cast<int>(n) == 41);
    n.value() = 7;
    CHECK(n == 7);

    sg::last_value<double> ratio{0.5};
    CHECK(ratio * 2 == 1.0);
  }
  SUBCASE("a final class is held, and read through -> and conversion") {
    sg::last_value<sealed> box{sealed{5}};
    CHECK(box->inside == 5);
    const sealed& ref = box;
    CHECK(ref.inside == 5);
    sg::reduce_into(box, sealed{9});
    CHECK(box.value().inside == 9);
  }
  SUBCASE("default construction gives the value type's default") {
    CHECK(sg::counter<int>{} == 0);
    CHECK(sg::append<int>{}.empty());
    CHECK(sg::last_value<std::string>{}.empty());
    CHECK(sg::reduced<std::set<int>, sg::set_union>{}.empty());
  }
}

// ---- input through reducers -------------------------------------------------------------------

namespace unit_input {  // named: Clang cannot reflect types with internal linkage

using strings = std::vector<std::string>;

struct Inputs {
  sg::bounded<int, 2> recent;
  sg::counter<int> total;
  sg::append<std::string> seen;
  sg::reduced<std::set<int>, sg::set_union> tags;
  std::string plain;
};
struct inspector {
  using reads = sg::reads<&Inputs::recent, &Inputs::total, &Inputs::tags, &Inputs::plain>;
  using writes = sg::writes<&Inputs::recent, &Inputs::seen>;
  auto operator()(sg::view<Inputs, reads> in) const {
    std::string s;
    for (int r : in.get<&Inputs::recent>()) s += std::to_string(r) + ",";
    s += "|" + std::to_string(in.get<&Inputs::total>()) + "|" + std::to_string(in.get<&Inputs::tags>().size()) + "|" +
         in.get<&Inputs::plain>();
    return sg::write<&Inputs::seen>(std::move(s)) | sg::write<&Inputs::recent>(6);
  }
};
using inspect = sg::graph<Inputs, sg::edge<sg::start, inspector>, sg::edge<inspector, sg::end>>;

}  // namespace unit_input

using namespace unit_input;

TEST_CASE("the input is applied through the reducers onto a default state") {
  Inputs in{.recent = {1, 2, 3, 4, 5}, .total = 7, .seen = {"input"}, .tags = std::set<int>{1, 2}, .plain = "p"};
  CHECK(in.recent.size() == 5);  // constructing a wrapper does not trim; the reducer does
  Inputs out = sg::compile<inspect>().invoke(std::move(in));
  CHECK(out.seen == strings{"input", "4,5,|7|2|p"});
  CHECK(out.recent == std::vector<int>{5, 6});
  CHECK(out.total == 7);
  CHECK(out.tags == std::set<int>{1, 2});
  CHECK(out.plain == "p");
}

}  // namespace unity_schema_reducers
