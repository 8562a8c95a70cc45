// What recording the graph's description costs the first invoke of a new thread (issue 20):
// the same invoke with the description recorded (a store that keeps graphs) and without it
// (the same store behind a wrapper that hides put_graph and graph, so the runtime records
// nothing). Both sides go through the same forwarding wrapper, so they differ only there.
//
//   first_write count WORKLOAD with|without N   N first invokes, each on a new thread of
//                                               one store (callgrind runs N and 2N; the
//                                               difference over N is one first invoke)
//   first_write bytes [THREADS]                 what each side writes: the text handed to
//                                               the store, the SQLite WAL per first invoke,
//                                               the file per thread
//   first_write time [REPETITIONS]              CPU per first invoke, the sides interleaved
//
// WORKLOAD: w6 (the agent loop, 20 rounds: 42 checkpoints), w6-short (one round: 4
// checkpoints), w1 (pipeline10, ten nodes: 11 checkpoints); each on the memory store
// (suffix -memory) or a SQLite file (-sqlite).
#include "../../tests/common/temp_db.hpp"
#include "recording_store.hpp"
#include "workloads.hpp"

#include <sqlite3.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

namespace sg = stategraph;

// Forwards every call to another store; put_graph and graph only with Graphs.
template <class Inner, bool Graphs>
class forwarding_store {
 public:
  explicit forwarding_store(Inner& inner) : inner_(&inner) {}
  std::int64_t put(const sg::checkpoint_put& cp) { return inner_->put(cp); }
  void put_writes(std::string_view t, std::int64_t id, std::span<const sg::pending_write_put> w) {
    inner_->put_writes(t, id, w);
  }
  std::optional<sg::stored_checkpoint> get(std::string_view t) const { return inner_->get(t); }
  std::optional<sg::stored_checkpoint> get(std::string_view t, std::int64_t id) const { return inner_->get(t, id); }
  std::vector<sg::checkpoint_info> list(std::string_view t, sg::list_options o = {}) const {
    return inner_->list(t, o);
  }
  std::vector<sg::pending_write> pending_writes(std::string_view t, std::int64_t id) const {
    return inner_->pending_writes(t, id);
  }
  bool delete_thread(std::string_view t) { return inner_->delete_thread(t); }
  std::size_t prune(std::string_view t, sg::keep_latest r) { return inner_->prune(t, r); }
  std::size_t prune(std::string_view t, sg::keep_since r) { return inner_->prune(t, r); }
  std::size_t prune_threads(sg::older_than r) { return inner_->prune_threads(r); }
  std::vector<std::string> threads() const { return inner_->threads(); }
  sg::store_stats stats() const { return inner_->stats(); }
  std::int64_t file_version() const
    requires requires(const Inner& s) { s.file_version(); }
  {
    return inner_->file_version();
  }
  void put_graph(std::string_view t, std::string_view key, std::string_view text)
    requires Graphs
  {
    ++graph_puts;
    graph_bytes += t.size() + key.size() + text.size();
    text_bytes = text.size();
    inner_->put_graph(t, key, text);
  }
  std::optional<std::string> graph(std::string_view t) const
    requires Graphs
  {
    return inner_->graph(t);
  }
  std::size_t graph_puts = 0, graph_bytes = 0;  // what put_graph was handed
  std::size_t text_bytes = 0;                   // the last description's size

 private:
  Inner* inner_;
};
static_assert(sg::graph_recording_store<forwarding_store<sg::memory_store, true>>);
static_assert(!sg::graph_recording_store<forwarding_store<sg::memory_store, false>>);

// One first invoke of each workload on `store`, a new thread each time.
template <class Store>
void invoke_w6(Store& store, const sg::thread_id& t, int rounds) {
  const auto app = sg::compile<bench::agent::graph>(bench::llm{rounds}, sg::with_store(store));
  const auto out = app.invoke(bench::agent::question("how many rows match?"), t);
  if (out.calls != rounds + 1) std::abort();
}
template <class Store>
void invoke_w1(Store& store, const sg::thread_id& t) {
  const auto app = sg::compile<bench::w1::graph>(sg::with_store(store));
  const auto out = app.invoke(bench::State{}, t);
  if (out.counter != 10) std::abort();
}
template <class Store>
void invoke(std::string_view workload, Store& store, const sg::thread_id& t) {
  if (workload == "w6") invoke_w6(store, t, bench::agent::rounds);
  else if (workload == "w6-short") invoke_w6(store, t, 1);
  else if (workload == "w1") invoke_w1(store, t);
  else std::abort();
}

sg::thread_id thread_no(std::size_t i) { return sg::thread_id{"thread-" + std::to_string(i)}; }

struct scratch : sg_test::temp_db {
  explicit scratch(std::string_view tag) : sg_test::temp_db("bench-first-" + std::string(tag)) {}
  static std::uintmax_t size_of(const std::string& p) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(p, ec);
    return ec ? 0 : n;
  }
  std::uintmax_t wal() const { return size_of(path() + "-wal"); }
  // The file with its WAL folded in (the store closed).
  std::uintmax_t folded() const {
    sqlite3* db = nullptr;
    if (sqlite3_open(path().c_str(), &db) != SQLITE_OK) std::abort();
    sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return size_of(path());
  }
};

// ---- count ---------------------------------------------------------------------------------

template <bool Graphs>
int count(std::string_view workload, std::string_view on, int n) {
  if (on == "memory") {
    sg::memory_store inner;
    forwarding_store<sg::memory_store, Graphs> store(inner);
    for (int i = 0; i < n; ++i) invoke(workload, store, thread_no(static_cast<std::size_t>(i)));
  } else {
    scratch file("count");
    sg::sqlite_store inner(file.path());
    forwarding_store<sg::sqlite_store, Graphs> store(inner);
    for (int i = 0; i < n; ++i) invoke(workload, store, thread_no(static_cast<std::size_t>(i)));
  }
  return 0;
}

// ---- bytes -----------------------------------------------------------------------------------

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The checkpoint payload of one first invoke (metadata, schema hash, values), as handed to the store.
std::size_t payload_bytes(std::string_view workload) {
  sg::memory_store memory;
  bench::recording_store<sg::memory_store> store(memory, false);
  invoke(workload, store, thread_no(0));
  std::size_t bytes = 0;
  for (const auto& r : store.puts) bytes += r.payload_bytes();
  return bytes;
}

struct sqlite_bytes {
  double wal_per_invoke = 0;      // median growth of the WAL over one first invoke (after the first)
  double file_per_thread = 0;     // the folded file's size over the threads
  std::size_t graph_handed = 0;   // bytes put_graph was handed over all threads
};
// `unindexed`: thread_graphs without its index by graph (what removing unused descriptions
// reads), to show what the index costs a new thread.
template <bool Graphs>
sqlite_bytes measure_sqlite(std::string_view workload, std::size_t threads, bool unindexed = false) {
  scratch file(Graphs ? (unindexed ? "unindexed" : "with") : "without");
  sqlite_bytes out;
  std::vector<double> deltas;
  {
    sg::sqlite_store inner(file.path());
    if (unindexed) {
      sqlite3* db = nullptr;
      if (sqlite3_open(file.path().c_str(), &db) != SQLITE_OK) std::abort();
      if (sqlite3_exec(db, "DROP INDEX thread_graphs_by_graph", nullptr, nullptr, nullptr) != SQLITE_OK) std::abort();
      sqlite3_close(db);
    }
    forwarding_store<sg::sqlite_store, Graphs> store(inner);
    // Few enough invokes that SQLite's automatic checkpoint (1,000 frames) does not reset the WAL.
    for (std::size_t i = 0; i < 8; ++i) {
      const auto before = file.wal();
      invoke(workload, store, thread_no(i));
      if (i > 0) deltas.push_back(static_cast<double>(file.wal() - before));
    }
    for (std::size_t i = 8; i < threads; ++i) invoke(workload, store, thread_no(i));
    out.graph_handed = store.graph_bytes;
  }
  out.wal_per_invoke = median(deltas);
  out.file_per_thread = static_cast<double>(file.folded()) / static_cast<double>(threads);
  return out;
}

int bytes(std::size_t threads) {
  std::printf("workload\tdescription\tpayload_per_invoke\tgraph_handed_per_thread\twal_with\twal_without\t"
              "wal_with_unindexed\tfile_per_thread_with\tfile_per_thread_without\tfile_per_thread_unindexed\n");
  for (std::string_view w : {"w6", "w6-short", "w1"}) {
    const auto with = measure_sqlite<true>(w, threads);
    const auto without = measure_sqlite<false>(w, threads);
    const auto unindexed = measure_sqlite<true>(w, threads, true);
    sg::memory_store memory;
    forwarding_store<sg::memory_store, true> probe(memory);
    invoke(w, probe, thread_no(0));
    const std::size_t description = probe.text_bytes;
    std::printf("%s\t%zu\t%zu\t%.1f\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\n", std::string(w).c_str(), description,
                payload_bytes(w), static_cast<double>(with.graph_handed) / static_cast<double>(threads),
                with.wal_per_invoke, without.wal_per_invoke, unindexed.wal_per_invoke, with.file_per_thread,
                without.file_per_thread, unindexed.file_per_thread);
  }
  return 0;
}

// ---- time ------------------------------------------------------------------------------------

double cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}

int time_sides(int repetitions) {
  constexpr std::size_t per_round = 20;  // first invokes per side and repetition
  std::printf("workload\tstore\twith_us\twithout_us\tratio\n");
  for (std::string_view w : {"w6", "w6-short", "w1"}) {
    for (std::string_view on : {"memory", "sqlite"}) {
      std::vector<double> with, without;
      std::size_t next = 0;
      auto side = [&](auto graphs, std::vector<double>& out) {
        constexpr bool g = decltype(graphs)::value;
        auto run = [&](auto& inner) {
          forwarding_store<std::remove_reference_t<decltype(inner)>, g> store(inner);
          const double t0 = cpu_us();
          for (std::size_t i = 0; i < per_round; ++i) invoke(w, store, thread_no(next++));
          out.push_back((cpu_us() - t0) / static_cast<double>(per_round));
        };
        if (on == "memory") {
          sg::memory_store inner;
          run(inner);
        } else {
          scratch file("time");
          sg::sqlite_store inner(file.path());
          run(inner);
        }
      };
      for (int r = 0; r < repetitions; ++r) {
        // Alternating which side goes first, so both see the same drift in the machine's load.
        if (r % 2 == 0) {
          side(std::true_type{}, with);
          side(std::false_type{}, without);
        } else {
          side(std::false_type{}, without);
          side(std::true_type{}, with);
        }
      }
      std::printf("%s\t%s\t%.1f\t%.1f\t%.3f\n", std::string(w).c_str(), std::string(on).c_str(), median(with),
                  median(without), median(with) / median(without));
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "count" && argc == 5) {
    std::string_view workload = argv[2];
    const auto dash = workload.rfind('-');
    const std::string_view on = workload.substr(dash + 1);
    workload = workload.substr(0, dash);
    if (on != "memory" && on != "sqlite") return 2;
    const int n = std::atoi(argv[4]);
    if (std::string_view(argv[3]) == "with") return count<true>(workload, on, n);
    if (std::string_view(argv[3]) == "without") return count<false>(workload, on, n);
  }
  if (mode == "bytes") return bytes(argc > 2 ? static_cast<std::size_t>(std::atoi(argv[2])) : 200);
  if (mode == "time") return time_sides(argc > 2 ? std::atoi(argv[2]) : 11);
  std::fprintf(stderr,
               "usage: first_write count WORKLOAD-memory|WORKLOAD-sqlite with|without N | bytes [THREADS] | "
               "time [REPETITIONS]\n");
  return 2;
}
