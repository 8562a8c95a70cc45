// Manager + worker + registry (scenarios §2): dynamic agents on a static graph.
//
// The topology is three nodes' worth of edges: manager -> worker -> manager, and end. Who
// the worker is comes from the state: agents are entries of a `registry` channel, and the
// manager sends the worker the id of the entry to run. Six routing patterns run on this
// one graph — pipeline, fan-out/fan-in, expert pool, producer-reviewer with a bounded retry,
// supervisor with a task queue, hierarchical — and a run killed half-way resumes from its
// SQLite file on the same thread id.
//
// The "model" is a script: what an agent does depends only on its role and the state.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/sqlite.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace sg = stategraph;

// ---- the state ---------------------------------------------------------------------------

struct agent_entry {
  std::string id, name, role, prompt;
  std::vector<std::string> tools;
  std::string created_by, status = "active";
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(agent_entry, id, name, role, prompt, tools, created_by, status)

struct message {
  std::string from, text;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(message, from, text)

struct artifact {
  std::string by, name, content;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(artifact, by, name, content)

using registry_t = std::vector<agent_entry>;
using inbox_t = std::map<std::string, std::vector<message>>;

// Adds the entries whose id is new: an agent is registered once.
struct append_unique {
  registry_t operator()(registry_t all, const registry_t& more) const {
    for (const auto& e : more)
      if (std::none_of(all.begin(), all.end(), [&](const agent_entry& a) { return a.id == e.id; })) all.push_back(e);
    return all;
  }
};
// Merges per agent: messages are appended; an empty list empties that agent's inbox.
struct merge_inbox {
  inbox_t operator()(inbox_t all, const inbox_t& more) const {
    for (const auto& [id, msgs] : more) {
      if (msgs.empty()) all[id].clear();
      else all[id].insert(all[id].end(), msgs.begin(), msgs.end());
    }
    return all;
  }
};

struct State {
  std::string pattern;                               // which routing pattern the manager follows
  sg::reduced<registry_t, append_unique> registry;   // the agents
  sg::reduced<inbox_t, merge_inbox> inbox;           // agent id -> messages
  std::string current_target;                        // what the manager chose last
  sg::append<std::string> history;                   // "<agent>: <what it did>"
  sg::append<artifact> artifacts;
  sg::counter<int> retry_count;
  int retry_limit = 2;
  sg::append<std::string> errors;
  std::vector<std::string> task_queue;               // supervisor: tasks still to do
  sg::counter<int> tasks_done;
};

const agent_entry* find_agent(const registry_t& r, const std::string& id) {
  auto it = std::find_if(r.begin(), r.end(), [&](const agent_entry& a) { return a.id == id; });
  return it == r.end() ? nullptr : &*it;
}
std::size_t runs_of(const std::vector<std::string>& history, const std::string& id) {
  return static_cast<std::size_t>(std::count_if(history.begin(), history.end(), [&](const std::string& h) {
    return h.rfind(id + ":", 0) == 0;
  }));
}
bool has_artifact(const std::vector<artifact>& a, const std::string& name) {
  return std::any_of(a.begin(), a.end(), [&](const artifact& x) { return x.name == name; });
}

// ---- the worker: runs the registry entry it is sent ------------------------------------------

struct worker {
  using reads = sg::reads<&State::registry, &State::inbox, &State::history, &State::artifacts, &State::retry_count>;
  using writes = sg::writes<&State::registry, &State::inbox, &State::history, &State::artifacts, &State::retry_count,
                            &State::errors, &State::tasks_done>;

  auto operator()(sg::view<State, reads> in, const std::string& id) const {
    const auto& registry = in.get<&State::registry>();
    const agent_entry* me = find_agent(registry, id);
    inbox_t inbox_update;
    registry_t new_agents;
    std::vector<artifact> made;
    std::string did;
    int retries = 0, tasks = 0;
    std::vector<std::string> errors;
    if (!me) {
      errors.push_back("no agent " + id);
      did = "missing";
    } else {
      const auto mail = in.get<&State::inbox>().count(id) ? in.get<&State::inbox>().at(id) : std::vector<message>{};
      inbox_update[id] = {};  // the worker empties its own inbox
      if (const char* kill = std::getenv("MW_KILL_AT"); kill && id == kill && runs_of(in.get<&State::history>(), id) == 0 &&
                                                         !std::getenv("MW_RESUMED"))
        raise(SIGKILL);  // the crash the resume test recovers from
      const std::string& role = me->role;
      if (role == "lead") {
        if (runs_of(in.get<&State::history>(), id) == 0) {  // first call: create a sub-team
          for (std::string member : {"dev-1", "dev-2"})
            new_agents.push_back({member, member, "developer", "implement part of the plan", {"editor"}, id});
          did = "created dev-1, dev-2";
        } else {
          made.push_back({id, "release", std::to_string(mail.size()) + " reports merged"});
          did = "merged " + std::to_string(mail.size()) + " reports";
        }
      } else if (role == "developer") {
        inbox_update[me->created_by].push_back({id, "done with my part"});
        made.push_back({id, id + ".patch", "code by " + id});
        did = "wrote " + id + ".patch";
      } else if (role == "researcher" || role == "analyst" || role == "writer") {
        made.push_back({id, id + ".notes", role + " notes"});
        did = "wrote " + id + ".notes";
      } else if (role == "integrator") {
        auto n = std::count_if(in.get<&State::artifacts>().begin(), in.get<&State::artifacts>().end(),
                               [](const artifact& a) { return a.name.ends_with(".notes"); });
        made.push_back({id, "summary", "integrates " + std::to_string(n) + " notes"});
        did = "integrated " + std::to_string(n) + " notes";
      } else if (role == "producer") {
        made.push_back({id, "draft-" + std::to_string(runs_of(in.get<&State::history>(), id) + 1), "a draft"});
        did = "drafted";
      } else if (role == "reviewer") {
        // The scripted reviewer rejects the first two drafts.
        bool ok = in.get<&State::retry_count>() >= 2;
        if (ok) made.push_back({id, "approval", "approved"});
        else retries = 1;
        did = ok ? "approved" : "rejected";
      } else if (role.starts_with("expert:")) {
        made.push_back({id, "answer", "answered as " + role.substr(7)});
        did = "answered";
      } else if (role == "assistant") {
        tasks = 1;
        made.push_back({id, "task", mail.empty() ? "?" : mail.back().text});
        did = "did " + (mail.empty() ? std::string("?") : mail.back().text);
      }
    }
    return sg::write<&State::registry>(new_agents) | sg::write<&State::inbox>(inbox_update) |
           sg::write<&State::history>(id + ": " + did) | sg::write<&State::artifacts>(made) |
           sg::write<&State::retry_count>(retries) | sg::write<&State::errors>(errors) | sg::write<&State::tasks_done>(tasks);
  }
};

// ---- the manager: chooses who runs next, by pattern --------------------------------------------

struct manager {
  using reads = sg::reads<&State::pattern, &State::registry, &State::history, &State::artifacts, &State::retry_count,
                          &State::retry_limit, &State::task_queue, &State::inbox>;
  using writes = sg::writes<&State::current_target, &State::task_queue, &State::inbox, &State::errors>;
  using sends = sg::sends<worker>;
  using goes = sg::goes<sg::end>;  // no send: nothing is active, and the run ends

  using go_to = std::vector<sg::send_to<worker, std::string>>;

  auto operator()(sg::view<State, reads> in) const {
    const auto& reg = in.get<&State::registry>();
    const auto& history = in.get<&State::history>();
    const auto& artifacts = in.get<&State::artifacts>();
    const std::string& pattern = in.get<&State::pattern>();
    go_to next;
    std::vector<std::string> queue = in.get<&State::task_queue>();
    inbox_t mail;
    std::vector<std::string> errors;
    auto run = [&](const std::string& id) { next.push_back(sg::send<worker>(id)); };
    auto never_ran = [&](const std::string& id) { return runs_of(history, id) == 0; };

    if (pattern == "pipeline") {  // each agent in registry order, once
      for (const auto& a : reg)
        if (never_ran(a.id)) {
          run(a.id);
          break;
        }
    } else if (pattern == "fan-out") {  // all researchers at once, then the integrator
      bool any = false;
      for (const auto& a : reg)
        if (a.role != "integrator" && never_ran(a.id)) run(a.id), any = true;
      if (!any && !has_artifact(artifacts, "summary"))
        for (const auto& a : reg)
          if (a.role == "integrator") run(a.id);
    } else if (pattern == "expert-pool") {  // the expert whose field the question names
      if (history.empty()) {
        std::string field = in.get<&State::task_queue>().empty() ? "" : in.get<&State::task_queue>().front();
        for (const auto& a : reg)
          if (a.role == "expert:" + field) run(a.id);
        if (next.empty()) errors.push_back("no expert for " + field);
      }
    } else if (pattern == "producer-reviewer") {  // draft, review, again until approved or out of retries
      bool approved = has_artifact(artifacts, "approval");
      bool produced_last = !history.empty() && history.back().starts_with("producer:");
      if (!approved && in.get<&State::retry_count>() <= in.get<&State::retry_limit>())
        run(produced_last ? "reviewer" : "producer");
      if (!approved && in.get<&State::retry_count>() > in.get<&State::retry_limit>())
        errors.push_back("gave up after " + std::to_string(in.get<&State::retry_count>()) + " rejections");
    } else if (pattern == "supervisor") {  // pop the next task, hand it to the assistant
      if (!queue.empty()) {
        mail["assistant"].push_back({"manager", queue.front()});
        queue.erase(queue.begin());
        run("assistant");
      }
    } else if (pattern == "hierarchical") {  // lead, then the team it created, then lead again
      const agent_entry* lead = find_agent(reg, "lead");
      if (lead && never_ran("lead")) {
        run("lead");
      } else {
        bool team_left = false;
        for (const auto& a : reg)
          if (a.created_by == "lead" && never_ran(a.id)) run(a.id), team_left = true;
        if (!team_left && runs_of(history, "lead") == 1) run("lead");
      }
    }
    std::string target = next.empty() ? "end" : next.size() == 1 ? next[0].payload : "fan-out";
    return sg::command{sg::write<&State::current_target>(target) | sg::write<&State::task_queue>(queue) |
                           sg::write<&State::inbox>(mail) | sg::write<&State::errors>(errors),
                       std::move(next)};
  }
};

using team = sg::graph<State, sg::edge<sg::start, manager>, sg::edge<worker, manager>>;

// ---- the six patterns --------------------------------------------------------------------------

agent_entry agent(std::string id, std::string role) { return {id, id, role, "be a good " + role, {}, "setup"}; }

State setup(const std::string& pattern) {
  State s;
  s.pattern = pattern;
  registry_t r;
  if (pattern == "pipeline") r = {agent("research", "researcher"), agent("analysis", "analyst"), agent("write", "writer")};
  if (pattern == "fan-out") r = {agent("r1", "researcher"), agent("r2", "researcher"), agent("r3", "researcher"), agent("merge", "integrator")};
  if (pattern == "expert-pool") {
    r = {agent("law", "expert:law"), agent("med", "expert:medicine"), agent("tax", "expert:tax")};
    s.task_queue = {"tax"};
  }
  if (pattern == "producer-reviewer") r = {agent("producer", "producer"), agent("reviewer", "reviewer")};
  if (pattern == "supervisor") {
    r = {agent("assistant", "assistant")};
    s.task_queue = {"triage", "fix", "test"};
  }
  if (pattern == "hierarchical") r = {agent("lead", "lead")};
  s.registry = r;
  return s;
}

void print(const std::string& pattern, const State& s) {
  std::printf("== %s\n", pattern.c_str());
  for (const auto& h : static_cast<const std::vector<std::string>&>(s.history)) std::printf("  %s\n", h.c_str());
  std::printf("  artifacts:");
  for (const auto& a : static_cast<const std::vector<artifact>&>(s.artifacts)) std::printf(" %s", a.name.c_str());
  std::printf("\n  agents: %zu, retries: %d, tasks done: %d", s.registry.size(), static_cast<int>(s.retry_count),
              static_cast<int>(s.tasks_done));
  for (const auto& e : static_cast<const std::vector<std::string>&>(s.errors)) std::printf(", error: %s", e.c_str());
  std::printf("\n");
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "all";
  const char* db = "manager_worker.db";
  sg::sqlite_store store(db);
  auto app = sg::compile<team>(sg::with_store(store));

  if (mode == "crash-child") {  // runs until the worker for dev-2 kills the process
    app.invoke(setup("hierarchical"), sg::thread_id{"team-1"});
    return 0;
  }
  for (std::string p : {"pipeline", "fan-out", "expert-pool", "producer-reviewer", "supervisor", "hierarchical"}) {
    store.delete_thread(p);
    print(p, app.invoke(setup(p), sg::thread_id{p}));
  }

  {  // the retry bound: with one retry allowed, the second rejection ends the loop
    State s = setup("producer-reviewer");
    s.retry_limit = 1;
    store.delete_thread("bounded");
    print("producer-reviewer, retry_limit 1", app.invoke(std::move(s), sg::thread_id{"bounded"}));
  }

  // Kill a run half-way (SIGKILL in the middle of a step), then resume it from the file.
  store.delete_thread("team-1");
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    setenv("MW_KILL_AT", "dev-2", 1);
    execl(argv[0], argv[0], "crash-child", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  auto before = app.get_state(sg::thread_id{"team-1"});
  std::printf("== crash: child killed by SIGKILL: %s; last checkpoint #%lld, next:", killed ? "yes" : "no",
              static_cast<long long>(before ? before->checkpoint_id : 0));
  if (before)
    for (const auto& n : before->next) std::printf(" %s", n.c_str());
  std::printf("\n");
  setenv("MW_RESUMED", "1", 1);
  State resumed = app.resume(sg::thread_id{"team-1"});
  State clean = app.invoke(setup("hierarchical"), sg::thread_id{"team-clean"});
  store.delete_thread("team-clean");
  bool same = static_cast<const std::vector<std::string>&>(resumed.history) ==
                  static_cast<const std::vector<std::string>&>(clean.history) &&
              resumed.artifacts.size() == clean.artifacts.size();
  std::printf("resumed run equals a run never killed: %s\n", same ? "yes" : "no");
  return killed && same ? 0 : 1;
}
