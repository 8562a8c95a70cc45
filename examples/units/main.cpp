// Units moving through task nodes (scenarios §1): a research -> design -> development ->
// review line that work units travel along, with a harvester that stages intel for them and
// a human who accepts, rejects or defers that intel through an interrupt. The run is
// checkpointed in a SQLite file, so it pauses in one process and resumes in another.
//
//   units                 start a fresh run, pause at the first intel offer, then resume it
//                         in a child process (as a second terminal would) and show history
//   units start           start a fresh run on the thread and stop at the first pause
//   units resume <answer> answer the pending offer: accept, reject or defer
//   units inspect         print the thread's history
//   units fail            run a unit that has no model configured on thread line-2: its first
//                         step fails, and the store keeps what the node threw
//
// The model is a deterministic stand-in: outputs depend only on the state.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/sqlite.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg = stategraph;

// ---- what a unit is ------------------------------------------------------------------------

struct node_config {
  std::string model, harness;
  double temperature = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(node_config, model, harness, temperature)

// A per-node override: the fields it has win, the others fall back to the unit's default.
struct config_override {
  std::optional<std::string> model, harness;
  std::optional<double> temperature;
};
inline void to_json(nlohmann::json& j, const config_override& o) {
  j = nlohmann::json::object();
  if (o.model) j["model"] = *o.model;
  if (o.harness) j["harness"] = *o.harness;
  if (o.temperature) j["temperature"] = *o.temperature;
}
inline void from_json(const nlohmann::json& j, config_override& o) {
  if (j.contains("model")) o.model = j["model"].get<std::string>();
  if (j.contains("harness")) o.harness = j["harness"].get<std::string>();
  if (j.contains("temperature")) o.temperature = j["temperature"].get<double>();
}

struct visit {
  std::string node, locale, model;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(visit, node, locale, model)

struct unit {
  std::string id, name, role;
  node_config config;
  std::map<std::string, config_override> overrides;  // node name -> override
  std::vector<std::string> access, block;            // context sources
  std::map<std::string, std::string> locales;        // node name -> where it wrote
  std::vector<visit> history;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(unit, id, name, role, config, overrides, access, block, locales, history)

struct intel {
  std::string id, name, description, source;
  double confidence = 0;
  std::vector<std::pair<std::string, std::string>> suggested_for;  // (unit id, node name)
  std::vector<std::string> tags;
  std::string status = "pending";  // pending, accepted, rejected, consumed
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(intel, id, name, description, source, confidence, suggested_for, tags, status)

// Reducers: a write replaces the unit (or intel item) with the same id, or adds it.
struct upsert_units {
  std::map<std::string, unit> operator()(std::map<std::string, unit> all, const unit& u) const {
    all[u.id] = u;
    return all;
  }
  std::map<std::string, unit> operator()(std::map<std::string, unit> all, const std::map<std::string, unit>& more) const {
    for (const auto& [id, u] : more) all[id] = u;
    return all;
  }
};
struct upsert_intel {
  std::vector<intel> operator()(std::vector<intel> all, const std::vector<intel>& items) const {
    for (const auto& item : items) {
      auto it = std::find_if(all.begin(), all.end(), [&](const intel& i) { return i.id == item.id; });
      if (it == all.end()) all.push_back(item);
      else *it = item;
    }
    return all;
  }
};

struct State {
  sg::reduced<std::map<std::string, unit>, upsert_units> units;
  std::string active;  // the unit moving along the line
  sg::reduced<std::vector<intel>, upsert_intel> queue;
  sg::append<std::string> outputs;  // what the nodes produced, in order
};

// ---- what every task node does ---------------------------------------------------------------

node_config effective_config(const unit& u, const std::string& node) {
  node_config c = u.config;
  if (auto it = u.overrides.find(node); it != u.overrides.end()) {
    if (it->second.model) c.model = *it->second.model;
    if (it->second.harness) c.harness = *it->second.harness;
    if (it->second.temperature) c.temperature = *it->second.temperature;
  }
  return c;
}

bool granted(const unit& u, const std::string& source) {
  auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), source) != v.end(); };
  return in(u.access) && !in(u.block);
}

// The intel a human decides on before `node` runs for the active unit.
std::vector<intel> offers(const State& s, const std::string& unit_id, const std::string& node) {
  std::vector<intel> out;
  for (const auto& i : static_cast<const std::vector<intel>&>(s.queue))
    if (i.status == "pending")
      for (const auto& [u, n] : i.suggested_for)
        if (u == unit_id && n == node) out.push_back(i);
  return out;
}

template <class Name>
struct task_node {
  static constexpr std::string_view name = Name::value;
  using reads = sg::reads<&State::units, &State::active, &State::queue>;
  using writes = sg::writes<&State::units, &State::queue, &State::outputs>;

  auto operator()(sg::view<State, reads> in, sg::run_context& ctx) const {
    const std::string node(name);
    unit u = in.get<&State::units>().at(in.get<&State::active>());
    std::vector<intel> decided;
    // Pending intel for this unit and node goes to a human first. The node pauses here; on
    // resume it runs again from the top and the interrupt returns the human's answer.
    State snapshot;
    snapshot.queue = in.get<&State::queue>();
    for (intel item : offers(snapshot, u.id, node)) {
      auto answer = ctx.interrupt<std::string>(nlohmann::json{{"unit", u.id}, {"node", node}, {"intel", item.name}});
      if (answer == "accept") {
        item.status = "accepted";
        u.access.push_back(item.source);  // for this node and every later one
      } else if (answer == "reject") {
        item.status = "rejected";
      }  // defer: stays pending
      decided.push_back(item);
    }
    node_config c = effective_config(u, node);
    if (c.model.empty()) throw std::runtime_error("unit " + u.id + " has no model configured for " + node);
    std::string context;
    for (const auto& source : u.access)
      if (granted(u, source)) context += (context.empty() ? "" : ",") + source;
    std::string locale = node == "review" ? "issue #" + std::to_string(40 + u.history.size()) : "docs/" + u.id + "/" + node + ".md";
    u.locales[node] = locale;
    u.history.push_back({node, locale, c.model});
    std::string output = node + ": " + u.name + " with " + c.model + " (t=" + std::to_string(c.temperature).substr(0, 3) +
                         ") reading [" + context + "] -> " + locale;
    return sg::write<&State::units>(u) | sg::write<&State::queue>(decided) | sg::write<&State::outputs>(output);
  }
};
struct research_name { static constexpr std::string_view value = "research"; };
struct design_name { static constexpr std::string_view value = "design"; };
struct development_name { static constexpr std::string_view value = "development"; };
struct review_name { static constexpr std::string_view value = "review"; };
using research = task_node<research_name>;
using design = task_node<design_name>;
using development = task_node<development_name>;
using review = task_node<review_name>;

// The harvester runs beside the line and stages intel for later nodes.
struct harvester {
  using reads = sg::reads<&State::active>;
  using writes = sg::writes<&State::queue, &State::outputs>;
  auto operator()(sg::view<State, reads> in) const {
    const std::string& u = in.get<&State::active>();
    std::vector<intel> found{
        {"i1", "benchmark notes", "prior measurements of the parser", "wiki:parser-bench", 0.8, {{u, "design"}}, {"perf"}},
        {"i2", "stale RFC", "an old design proposal", "rfc:0007", 0.3, {{u, "development"}}, {"history"}}};
    return sg::write<&State::queue>(found) | sg::write<&State::outputs>("harvester: staged 2 intel items");
  }
};

using line = sg::graph<State, sg::edge<sg::start, research>, sg::edge<sg::start, harvester>, sg::edge<research, design>,
                       sg::edge<design, development>, sg::edge<development, review>, sg::edge<review, sg::end>,
                       sg::edge<harvester, sg::end>>;

// ---- running it ------------------------------------------------------------------------------

State new_unit() {
  unit u{"u1", "parser rewrite", "engineer", {"small-model", "cli", 0.2}, {}, {"repo:src"}, {"chat:private"}, {}, {}};
  u.overrides["design"] = {std::string("large-model"), std::nullopt, 0.7};  // override wins, harness falls back
  State s;
  s.units = std::map<std::string, unit>{{u.id, u}};
  s.active = u.id;
  return s;
}

void print_pause(const sg::snapshot<State>& s) {
  for (const auto& i : s.interrupts) std::printf("paused: %s asks %s\n", i.node.c_str(), i.payload.c_str());
}

int main(int argc, char** argv) {
  const char* db = "units.db";
  const sg::thread_id thread{"line-1"};
  std::string command = argc > 1 ? argv[1] : "demo";
  sg::sqlite_store store(db);
  auto app = sg::compile<line>(sg::with_store(store));

  if (command == "start" || command == "demo") {
    store.delete_thread(thread.value);
    app.invoke(new_unit(), thread);
    print_pause(*app.get_state(thread));
    if (command == "start") return 0;
    // A second process picks the run up from the file, as a human answering later would.
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      execl(argv[0], argv[0], "resume", "accept", static_cast<char*>(nullptr));
      std::perror("execl");
      _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
    command = "inspect";
  }
  if (command == "resume") {
    std::string answer = argc > 2 ? argv[2] : "accept";
    std::printf("process %d resumes with '%s'\n", static_cast<int>(getpid()), answer.c_str());
    State s = app.resume(thread, answer);
    // The next offer (intel for development) is deferred, so that node runs without it.
    while (!app.get_state(thread)->interrupts.empty()) {
      print_pause(*app.get_state(thread));
      s = app.resume(thread, std::string("defer"));
    }
    for (const auto& o : static_cast<const std::vector<std::string>&>(s.outputs)) std::printf("%s\n", o.c_str());
    const unit& u = s.units.at("u1");
    std::printf("unit %s visited:", u.id.c_str());
    for (const auto& v : u.history) std::printf(" %s", v.node.c_str());
    std::printf("\naccess: ");
    for (const auto& a : u.access) std::printf("%s ", a.c_str());
    std::printf("\nintel:");
    for (const auto& i : static_cast<const std::vector<intel>&>(s.queue)) std::printf(" %s=%s", i.id.c_str(), i.status.c_str());
    std::printf("\n");
    return 0;
  }
  if (command == "fail") {
    // A unit without a model: research throws, the harvester beside it succeeds. The step
    // fails; the store keeps the harvester's write and what research threw.
    const sg::thread_id broken{"line-2"};
    store.delete_thread(broken.value);
    State s = new_unit();
    unit u = s.units.at("u1");
    u.id = "u2";
    u.name = "cache eviction";
    u.config.model.clear();
    s.units = std::map<std::string, unit>{{u.id, u}};
    s.active = u.id;
    try {
      app.invoke(s, broken);
    } catch (const sg::node_error& e) {
      std::printf("%s\n", e.what());
    }
    const auto failed = app.get_state(broken);
    for (const auto& e : failed->errors)
      std::printf("recorded at checkpoint %lld: %s failed: %s\n", static_cast<long long>(failed->checkpoint_id),
                  e.node.c_str(), e.message.c_str());
    return failed->failed ? 0 : 1;
  }
  if (command == "inspect") {
    auto h = app.history(thread);
    std::printf("history of %s: %zu checkpoints (newest first)\n", thread.value.c_str(), h.size());
    for (const auto& c : h) {
      std::printf("  #%lld step %lld %-6s next:", static_cast<long long>(c.checkpoint_id), static_cast<long long>(c.step),
                  std::string(sg::to_string(c.source)).c_str());
      for (const auto& n : c.next) std::printf(" %s", n.c_str());
      std::printf("\n");
    }
    return 0;
  }
  std::fprintf(stderr, "usage: units [start | resume accept|reject|defer | inspect | fail]\n");
  return 2;
}
