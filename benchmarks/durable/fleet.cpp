// The fleet's throughput and claim latency (benchmarks/run_fleet.sh): W6-like runs whose
// every node waits 5 ms (simulated I/O), served by 1, 2 and 4 worker processes of
// concurrency 8 each, from one sg::postgres_queue.
//
//   stategraph_fleet_bench CONNINFO [REPETITIONS]      the producer; starts its workers
//                                                      (0 repetitions: the claim latency alone)
//   stategraph_fleet_bench CONNINFO worker NAME         a worker (reads "go" on stdin)
//
// Throughput: the runs are queued, the workers connected and waiting; the clock starts at
// "go" and stops at the last run's finish. Claim latency: one worker of concurrency 8, idle;
// runs submitted one at a time, 100 ms apart; latency = the run's claim time minus its submit
// time (both the server's clock). Prints one JSON line per measurement.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/postgres.hpp>
#include <stategraph/store/postgres_queue.hpp>

#include <libpq-fe.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace sg = stategraph;
using namespace std::chrono_literals;

namespace fleet_bench {

struct Turn {
  sg::counter<int> rounds;
  sg::append<std::string> log;
  int goal = 0;
};
struct call {  // an LLM or tool call: 5 ms of waiting
  using reads = sg::reads<&Turn::rounds>;
  using writes = sg::writes<&Turn::rounds, &Turn::log>;
  auto operator()(sg::view<Turn, reads> in) const {
    std::this_thread::sleep_for(5ms);
    return sg::write<&Turn::rounds>(1) | sg::write<&Turn::log>("round " + std::to_string(in.get<&Turn::rounds>() + 1));
  }
};
struct again {
  using reads = sg::reads<&Turn::rounds, &Turn::goal>;
  sg::go<call, sg::end> operator()(sg::view<Turn, reads> in) const {
    if (in.get<&Turn::rounds>() < in.get<&Turn::goal>()) return sg::to<call>;
    return sg::to<sg::end>;
  }
};
using graph = sg::graph<Turn, sg::edge<sg::start, call>, sg::branch<call, again>>;

}  // namespace fleet_bench

namespace {

constexpr int concurrency = 8, runs = 160, steps = 8, latency_runs = 30;
const sg::postgres_options options{.schema = "sg_bench_fleet", .pool_size = concurrency + 1};

double seconds_since_epoch(std::chrono::system_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}
double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

void admin(const std::string& conninfo, const std::string& sql) {
  PGconn* c = PQconnectdb(conninfo.c_str());
  PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
  PQclear(PQexec(c, sql.c_str()));
  PQfinish(c);
}

int worker(const std::string& conninfo, const std::string& name) {
  sg::postgres_store store(conninfo, options);
  sg::postgres_queue queue(conninfo, options);
  auto app = sg::compile<fleet_bench::graph>(sg::with_store(store));
  std::printf("ready\n");
  std::fflush(stdout);
  char go[8] = {};
  if (std::fgets(go, sizeof go, stdin) == nullptr) return 1;
  sg::serve(app, queue, {.concurrency = concurrency, .heartbeat = 1s, .poll = 5ms, .exit_when_idle = true, .name = name});
  return 0;
}

struct child {
  pid_t pid;
  FILE* to;    // its stdin
  FILE* from;  // its stdout
};
child start_worker(const std::string& conninfo, const std::string& name) {
  int in[2], out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) std::exit(1);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::close(in[1]);
    ::close(out[0]);
    ::execl("/proc/self/exe", "stategraph_fleet_bench", conninfo.c_str(), "worker", name.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  child c{pid, ::fdopen(in[1], "w"), ::fdopen(out[0], "r")};
  char line[16] = {};
  if (std::fgets(line, sizeof line, c.from) == nullptr) std::exit(1);  // "ready"
  return c;
}
void go_and_wait(std::vector<child>& workers) {
  for (auto& w : workers) {
    std::fputs("go\n", w.to);
    std::fflush(w.to);
  }
}
void reap(std::vector<child>& workers) {
  for (auto& w : workers) {
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    std::fclose(w.to);
    std::fclose(w.from);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: stategraph_fleet_bench CONNINFO [REPETITIONS]\n", stderr);
    return 2;
  }
  const std::string conninfo = argv[1];
  if (argc >= 4 && std::string(argv[2]) == "worker") return worker(conninfo, argv[3]);
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 3;
  const double ideal_one = static_cast<double>(runs) * steps * 0.005 / concurrency;

  for (int rep = 0; rep < repetitions; ++rep) {
    for (int n : {1, 2, 4}) {
      admin(conninfo, "DROP SCHEMA IF EXISTS sg_bench_fleet CASCADE");
      sg::postgres_queue queue(conninfo, options);
      std::vector<std::int64_t> ids;
      for (int i = 0; i < runs; ++i)
        ids.push_back(queue.submit(sg::thread_id{"t" + std::to_string(i)}, fleet_bench::Turn{.goal = steps}));
      std::vector<child> workers;
      for (int w = 0; w < n; ++w) workers.push_back(start_worker(conninfo, "w" + std::to_string(w)));
      const auto t0 = std::chrono::system_clock::now();
      go_and_wait(workers);
      reap(workers);
      double last = 0;
      int done = 0;
      for (auto id : ids) {
        const auto r = queue.get(id);
        done += r.status == sg::run_status::done && sg::state_from_json<fleet_bench::Turn>(r.result).rounds == steps;
        last = std::max(last, seconds_since_epoch(r.finished));
      }
      if (done != runs) {
        std::fprintf(stderr, "stategraph_fleet_bench: %d of %d runs done\n", done, runs);
        return 1;
      }
      const double wall = last - seconds_since_epoch(t0);
      std::printf("{\"kind\": \"fleet_throughput\", \"workers\": %d, \"concurrency\": %d, \"runs\": %d, "
                  "\"steps_per_run\": %d, \"node_wait_ms\": 5, \"wall_s\": %.3f, \"runs_per_s\": %.1f, "
                  "\"ideal_wall_s\": %.3f, \"repetition\": %d}\n",
                  n, concurrency, runs, steps, wall, runs / wall, ideal_one / n, rep);
      std::fflush(stdout);
    }
  }

  // Claim latency on an idle fleet of one worker.
  admin(conninfo, "DROP SCHEMA IF EXISTS sg_bench_fleet CASCADE");
  sg::postgres_queue queue(conninfo, options);
  std::vector<child> workers;
  workers.push_back(start_worker(conninfo, "latency"));
  // A run that keeps the worker from exiting while the others trickle in.
  const auto keeper = queue.submit(sg::thread_id{"keeper"}, fleet_bench::Turn{.goal = 100000});
  go_and_wait(workers);
  std::vector<std::int64_t> ids;
  for (int i = 0; i < latency_runs; ++i) {
    std::this_thread::sleep_for(100ms);  // far apart: each finds the worker idle
    ids.push_back(queue.submit(sg::thread_id{"l" + std::to_string(i)}, fleet_bench::Turn{.goal = 1}));
  }
  queue.cancel(keeper);
  reap(workers);
  std::vector<double> latency;
  for (auto id : ids) {
    const auto r = queue.get(id);
    if (r.status != sg::run_status::done) {
      std::fprintf(stderr, "stategraph_fleet_bench: latency run %lld is %s\n", static_cast<long long>(id),
                   std::string(sg::to_string(r.status)).c_str());
      return 1;
    }
    latency.push_back(std::chrono::duration<double, std::milli>(r.started - r.submitted).count());
  }
  std::printf("{\"kind\": \"fleet_claim_latency\", \"workers\": 1, \"concurrency\": %d, \"poll_ms\": 5, \"runs\": %d, "
              "\"median_ms\": %.2f, \"p99_ms\": %.2f, \"max_ms\": %.2f}\n",
              concurrency, latency_runs, percentile(latency, 0.5), percentile(latency, 0.99), percentile(latency, 1.0));
  admin(conninfo, "DROP SCHEMA IF EXISTS sg_bench_fleet CASCADE");
  return 0;
}
