// The graph description a checkpointed app records and the data of the inspector page (<stategraph/inspect.hpp>); the page itself is tested in
// headless Chromium by examples/inspect (ctest -L inspect).
#include <stategraph/inspect.hpp>

#include "fixtures.hpp"
#include "inspect_page.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

using namespace durable_test;

namespace inspect_test {

const nlohmann::json* link(const nlohmann::json& g, std::string_view from, std::string_view to, std::string_view kind) {
  for (const auto& l : g["links"])
    if (g["vertices"][l["from"].get<std::size_t>()]["name"] == from &&
        g["vertices"][l["to"].get<std::size_t>()]["name"] == to && l["kind"] == kind)
      return &l;
  return nullptr;
}

struct Job {
  sg::append<std::string> log;
};
std::atomic<int> failures_left{0};
struct flaky {
  using reads = sg::reads<>;
  using writes = sg::writes<&Job::log>;
  auto operator()(sg::view<Job, reads>) const {
    if (failures_left-- > 0) throw std::runtime_error("flaky broke: \"disk full\"");
    return sg::write<&Job::log>(std::string("flaky"));
  }
};
struct steady {
  using reads = sg::reads<>;
  using writes = sg::writes<&Job::log>;
  auto operator()(sg::view<Job, reads>) const { return sg::write<&Job::log>(std::string("steady")); }
};
using job_graph = sg::graph<Job, sg::edge<sg::start, flaky>, sg::edge<sg::start, steady>, sg::edge<flaky, sg::end>,
                            sg::edge<steady, sg::end>>;

TEST_CASE_TEMPLATE("a checkpointed app records its graph when it first writes a thread", F, DURABLE_FIXTURES) {
  F f;
  auto app = sg::compile<chat_graph>(sg::with_store(f.store));
  CHECK_FALSE(f.store.graph("t1"));
  app.invoke(Chat{}, sg::thread_id{"t1"});
  app.invoke(Chat{}, sg::thread_id{"t2"});
  app.invoke(Chat{}, sg::thread_id{"t1"});  // continuing a thread records nothing new
  const auto text = f.store.graph("t1");
  REQUIRE(text);
  CHECK(*text == sg::graph_description(app));
  CHECK(f.store.graph("t2") == text);

  const auto g = nlohmann::json::parse(*text);
  CHECK(g["format"] == sg::graph_description_format);
  CHECK(g["state"] == "Chat");
  std::vector<std::string> nodes;
  for (const auto& v : g["vertices"])
    if (v["kind"] == "node") nodes.push_back(v["name"]);
  CHECK(nodes == strings{"agent", "tools"});
  CHECK(link(g, "__start__", "agent", "edge"));
  CHECK(link(g, "tools", "agent", "edge"));
  REQUIRE(link(g, "agent", "tools", "branch"));
  CHECK((*link(g, "agent", "tools", "branch"))["label"] == "route");
  CHECK(link(g, "agent", "__end__", "branch"));
  CHECK(link(g, "messages", "agent", "read_write"));  // the channels the pictures draw
  REQUIRE(g["channels"].size() == 2);
  CHECK(g["channels"][0]["name"] == "messages");
  CHECK(g["channels"][0]["kind"] == "accumulator");
  CHECK(g["channels"][0]["appends"] == true);
  CHECK(g["channels"][1]["name"] == "calls");
  CHECK(g["mermaid"] == sg::to_mermaid(app));

  // A deleted thread written again records its graph again.
  CHECK(f.store.delete_thread("t1"));
  CHECK_FALSE(f.store.graph("t1"));
  app.invoke(Chat{}, sg::thread_id{"t1"});
  CHECK(f.store.graph("t1") == text);
}

TEST_CASE_TEMPLATE("the page of a failed step holds the failure's message and the writes kept of the nodes that succeeded",
                   F, DURABLE_FIXTURES) {
  F f;
  auto app = sg::compile<job_graph>(sg::with_store(f.store));
  failures_left = 1;
  CHECK_THROWS_AS(app.invoke(Job{}, sg::thread_id{"j"}), sg::node_error);
  const auto page = inspect_page::data(sg::inspector_html(f.store, "j"));
  REQUIRE(page["checkpoints"].size() == 1);
  const auto& w = page["checkpoints"][0]["w"];
  REQUIRE(w.size() == 2);  // by task name
  CHECK(w[0]["task"] == "flaky#error");
  CHECK(w[0]["channel"] == "__error__");
  const auto record = nlohmann::json::parse(w[0]["value"].template get<std::string>());
  CHECK(record["message"] == "flaky broke: \"disk full\"");
  CHECK(record["type"] == "std::runtime_error");
  CHECK(w[1]["task"] == "steady#result");
  CHECK(w[1]["channel"] == "__result__");

  Job out = app.resume(sg::thread_id{"j"});
  CHECK(static_cast<const std::vector<std::string>&>(out.log) == strings{"flaky", "steady"});
  CHECK(inspect_page::data(sg::inspector_html(f.store, "j"))["checkpoints"].size() == 2);
}

TEST_CASE("the inspector page holds every checkpoint and only what each step changed") {
  sg::memory_store store;
  auto app = sg::compile<chat_graph>(sg::with_store(store));
  app.invoke(Chat{}, sg::thread_id{"t"});
  const auto history = app.history(sg::thread_id{"t"});
  const auto page = sg::inspector_html(store, "t", {.title = "chat </script> <b>"});
  CHECK(page.find("chat </script>") == std::string::npos);  // the title cannot end the data
  const auto data = inspect_page::data(page);
  CHECK(data["title"] == "chat </script> <b>");
  CHECK(data["thread"] == "t");
  CHECK(data["graph"] == nlohmann::json::parse(*store.graph("t")));
  const auto& cps = data["checkpoints"];
  REQUIRE(cps.size() == history.size());
  CHECK(cps[0]["id"] == 1);
  CHECK(cps[0]["source"] == "input");
  CHECK(cps.back()["id"] == history.front().checkpoint_id);
  CHECK(cps[1]["meta"]["next"] == nlohmann::json::array({"tools"}));
  CHECK_FALSE(cps[1]["meta"].contains("schema"));
  // Step 1 (agent) appended one message and counted one call: the message is a new piece.
  const auto& d = cps[1]["d"];
  REQUIRE(d.size() == 2);
  CHECK(d[0]["c"] == "messages");
  CHECK(d[0]["a"] == nlohmann::json::array({R"([{"content":"call tool","role":"ai"}])"}));
  CHECK(d[1]["c"] == "calls");
  CHECK(d[1]["v"] == "1");
  // A step that changes only the messages lists only them.
  CHECK(cps[2]["d"].size() == 1);
}

TEST_CASE("the inspector refuses what it cannot show, and writes nothing") {
  sg::memory_store store;
  auto app = sg::compile<chat_graph>(sg::with_store(store));
  app.invoke(Chat{}, sg::thread_id{"t"});
  temp_db dir("inspect");
  const std::filesystem::path out = dir.path() + ".html";
  CHECK_THROWS_WITH_AS(sg::write_inspector(store, "nope", out),
                       "stategraph: thread 'nope' has no checkpoints in this store", sg::inspect_error);
  store.put_graph("t", "later", R"({"format":2,"vertices":[]})");
  CHECK_THROWS_WITH_AS(sg::write_inspector(store, "t", out), doctest::Contains("graph description of format 2"),
                       sg::inspect_error);
  store.put_graph("t2", "junk", "not json");
  const std::vector<sg::channel_put> channels{{"x", 1, std::string_view("1")}};
  store.put(sg::checkpoint_put{"t2", sg::no_checkpoint, 0, sg::checkpoint_source::input, 2, "h", "{}", channels});
  CHECK_THROWS_WITH_AS(sg::write_inspector(store, "t2", out), doctest::Contains("is not one this build reads"),
                       sg::inspect_error);
  store.put(sg::checkpoint_put{"t3", sg::no_checkpoint, 0, sg::checkpoint_source::input, 99, "h", "{}", channels});
  CHECK_THROWS_WITH_AS(sg::write_inspector(store, "t3", out), doctest::Contains("format version 99"),
                       sg::inspect_error);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a long thread's page grows with what it appended, not with its length times its state") {
  temp_db file("inspect-long");
  sg::sqlite_store store(file.path());
  const std::string piece = "[\"" + std::string(100, 'm') + "\"]";
  std::int64_t parent = sg::no_checkpoint;
  constexpr int steps = 1000;
  for (int k = 1; k <= steps; ++k) {
    const std::vector<sg::channel_put> channels{{"log", k, std::string_view(piece), true}};
    parent = store.put(sg::checkpoint_put{"long", parent, k, sg::checkpoint_source::loop, 2, "h", "{\"next\":[]}", channels});
  }
  const auto page = sg::inspector_html(store, "long");
  // Each step's 100-byte piece once, with its record; the whole history per step would be
  // steps * steps / 2 pieces.
  CHECK(page.size() < std::size_t{steps} * 400 + 100'000);
  CHECK(inspect_page::data(page)["checkpoints"].size() == steps);
}

}  // namespace inspect_test
