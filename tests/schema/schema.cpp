// Reflection of the state struct (contract §1): channel count, the index of a member
// pointer, and each channel's own member name, all at compile time.
#include <doctest/doctest.h>

#include <array>
#include <set>
#include <stategraph/schema.hpp>
#include <string>
#include <string_view>
#include <type_traits>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_schema_schema {

namespace sg = stategraph;

// A named namespace, not an anonymous one: Clang 14 refuses to reflect a state type
// without linkage (see the report on schema.hpp's fake_object).
namespace unit_schema {

struct Msg {
  std::string role, content;
};

struct Schema {
  std::string task;
  sg::last_value<std::string> intent;
  sg::append<Msg> messages;
  sg::counter<int> steps;
  sg::ephemeral<std::string> scratch;
  sg::bounded<Msg, 8> recent;
  sg::reduced<std::set<std::string>, sg::set_union> tags;
};

struct Other {
  int steps;
  int x;
};

struct One {
  sg::counter<long> only;
};

static_assert(sg::channel_count<Schema> == 7);
static_assert(sg::channel_count<Other> == 2);
static_assert(sg::channel_count<One> == 1);

static_assert(sg::channel_index<Schema, &Schema::task>() == 0);
static_assert(sg::channel_index<Schema, &Schema::intent>() == 1);
static_assert(sg::channel_index<Schema, &Schema::messages>() == 2);
static_assert(sg::channel_index<Schema, &Schema::steps>() == 3);
static_assert(sg::channel_index<Schema, &Schema::scratch>() == 4);
static_assert(sg::channel_index<Schema, &Schema::recent>() == 5);
static_assert(sg::channel_index<Schema, &Schema::tags>() == 6);
static_assert(sg::channel_index<Other, &Other::x>() == 1);
// A member of another struct names no channel of Schema.
static_assert(sg::channel_index<Schema, &Other::steps>() == sg::channel_count<Schema>);

static_assert(sg::channel_name<&Schema::task>() == "task");
static_assert(sg::channel_name<&Schema::intent>() == "intent");
static_assert(sg::channel_name<&Schema::messages>() == "messages");
static_assert(sg::channel_name<&Schema::steps>() == "steps");
static_assert(sg::channel_name<&Schema::scratch>() == "scratch");
static_assert(sg::channel_name<&Schema::recent>() == "recent");
static_assert(sg::channel_name<&Schema::tags>() == "tags");
static_assert(sg::channel_name<&Other::steps>() == "steps");
static_assert(sg::channel_name<&One::only>() == "only");

static_assert(sg::channel_names<Schema>() ==
              std::array<std::string_view, 7>{"task", "intent", "messages", "steps", "scratch", "recent", "tags"});
static_assert(sg::channel_names<Other>() == std::array<std::string_view, 2>{"steps", "x"});
static_assert(sg::channel_name_at<Schema, 2>() == "messages");

static_assert(std::is_same_v<sg::state_of<&Schema::tags>, Schema>);
static_assert(std::is_same_v<sg::field_of<&Schema::messages>, sg::append<Msg>>);
static_assert(std::is_same_v<sg::field_type_t<Schema, 3>, sg::counter<int>>);
static_assert(std::is_same_v<sg::field_type_t<Schema, 0>, std::string>);

}  // namespace unit_schema

using namespace unit_schema;

TEST_CASE("channel names are usable at run time and match the declaration") {
  constexpr auto names = sg::channel_names<Schema>();
  std::string joined;
  for (auto n : names) joined.append(n).append(",");
  CHECK(joined == "task,intent,messages,steps,scratch,recent,tags,");
  CHECK(sg::channel_name<&Schema::messages>() == std::string_view("messages"));
}

TEST_CASE("a schema with wrappers is still an aggregate that reads naturally") {
  Schema s{.task = "t", .messages = {Msg{"user", "hi"}}, .steps = 2};
  CHECK(s.task == "t");
  CHECK(s.messages.size() == 1);
  CHECK(s.messages.front().content == "hi");
  CHECK(s.steps == 2);
  CHECK(s.tags.empty());
}

}  // namespace unity_schema_schema
