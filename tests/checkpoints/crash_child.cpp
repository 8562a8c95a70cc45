// The crash test's child: runs crash_graph on a SQLite file to the end, continuing
// whatever an earlier (killed) child left there, committing as the durability mode says.
// Usage: crash_child <file.db> [sync|async|exit]
// Exit status: 0 when the thread is complete, 2 on an error (printed).
#include "crash_graph.hpp"

#include <stategraph/store/sqlite.hpp>

#include <cstdio>
#include <exception>
#include <string_view>

int main(int argc, char** argv) {
  namespace sg = stategraph;
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s <file.db> [sync|async|exit]\n", argv[0]);
    return 2;
  }
  sg::run_config config;
  const std::string_view mode = argc == 3 ? argv[2] : "sync";
  if (mode == "async")
    config.durability = sg::durability::async;
  else if (mode == "exit")
    config.durability = sg::durability::exit;
  else if (mode != "sync") {
    std::fprintf(stderr, "crash_child: unknown durability mode %s\n", argv[2]);
    return 2;
  }
  try {
    sg::sqlite_store store(argv[1]);
    auto app = sg::compile<crash_graph::graph>(sg::with_store(store));
    const sg::thread_id t{crash_graph::thread};
    auto state = app.get_state(t);
    if (!state) {
      app.invoke(crash_graph::Tick{}, t, config);  // killed before the input's checkpoint
    } else if (!state->next.empty()) {
      app.resume(t, config);  // killed mid-run: continue from the file
    }                         // else killed after the last checkpoint: nothing left to run
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash_child: %s\n", e.what());
    return 2;
  }
}
