// inspect: writes the inspector page of a thread in a SQLite checkpoint store.
//
//   inspect FILE.db                      lists the file's threads
//   inspect FILE.db THREAD [-o OUT.html] writes THREAD's page (default: THREAD.html)
//           [--renderer PROGRAM]         lays the graph out with PROGRAM (default: dot; "" for none)
//
// Without a working renderer the page lays the graph out itself; a note on stderr says why.
// Bad input (a missing file, a file that is not a store, an unknown thread, data of a newer
// format) prints one line on stderr and exits with 1; a wrong command line exits with 2.
#include <stategraph/inspect.hpp>
#include <stategraph/store/sqlite.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

namespace sg = stategraph;

namespace {

int usage() {
  std::fprintf(stderr, "usage: inspect FILE.db [THREAD] [-o OUT.html] [--renderer PROGRAM]\n");
  return 2;
}

// One line: a message that spans lines is joined, so scripts can read the first line alone.
int fail(std::string message) {
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "inspect: %s\n", message.c_str());
  return 1;
}

// A file name from a thread id: what a file system takes, the rest as '_'.
std::string file_name_for(const std::string& thread) {
  std::string out;
  for (char c : thread) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '_' || c == '.';
    out += plain ? c : '_';
  }
  if (out.empty() || out[0] == '.') out.insert(out.begin(), '_');
  return out + ".html";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string file, thread, out;
  sg::inspector_options options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o") {
      if (i + 1 >= args.size()) return usage();
      out = args[++i];
    } else if (args[i] == "--renderer") {
      if (i + 1 >= args.size()) return usage();
      options.graph_renderer = args[++i];
    } else if (args[i] == "-h" || args[i] == "--help") {
      usage();
      return 0;
    } else if (!args[i].empty() && args[i][0] == '-') {
      return usage();
    } else if (file.empty()) {
      file = args[i];
    } else if (thread.empty()) {
      thread = args[i];
    } else {
      return usage();
    }
  }
  if (file.empty()) return usage();
  try {
    // Opening a store makes a missing file: refuse it here instead.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return fail("no such file: '" + file + "'");
    sg::sqlite_store store(file);
    if (thread.empty()) {
      const auto threads = store.threads();
      if (threads.empty()) std::printf("%s holds no threads\n", file.c_str());
      for (const auto& t : threads) {
        const auto head = store.get(t);
        const auto count = store.list(t).size();
        std::printf("%s\t%zu checkpoint%s\tstep %lld\t%s\n", t.c_str(), count, count == 1 ? "" : "s",
                    static_cast<long long>(head ? head->step : 0), store.graph(t) ? "graph recorded" : "no graph");
      }
      return 0;
    }
    if (out.empty()) out = file_name_for(thread);
    const auto graph = sg::write_inspector(store, thread, out, options);
    if (graph.recorded && !graph.by_renderer)
      std::fprintf(stderr, "inspect: note: the page lays the graph out itself: %s\n", graph.fallback_reason.c_str());
    std::printf("wrote %s (%zu checkpoints of thread %s)\n", out.c_str(), store.list(thread).size(), thread.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (what.rfind("stategraph: ", 0) == 0) what.erase(0, 12);
    return fail(what);
  }
}
