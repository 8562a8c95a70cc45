// The crash test's child: runs crash_graph on a SQLite file to the end, continuing
// whatever an earlier (killed) child left there. Usage: crash_child <file.db>
// Exit status: 0 when the thread is complete, 2 on an error (printed).
#include "crash_graph.hpp"

#include <stategraph/store/sqlite.hpp>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  namespace sg = stategraph;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <file.db>\n", argv[0]);
    return 2;
  }
  try {
    sg::sqlite_store store(argv[1]);
    auto app = sg::compile<crash_graph::graph>(sg::with_store(store));
    const sg::thread_id t{crash_graph::thread};
    auto state = app.get_state(t);
    if (!state) {
      app.invoke(crash_graph::Tick{}, t);  // killed before the input's checkpoint
    } else if (!state->next.empty()) {
      app.resume(t);  // killed mid-run: continue from the file
    }                 // else killed after the last checkpoint: nothing left to run
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash_child: %s\n", e.what());
    return 2;
  }
}
