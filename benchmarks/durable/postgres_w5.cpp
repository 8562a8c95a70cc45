// W5 on sg::postgres_store against its limit: a raw libpq INSERT of the same bytes per
// checkpoint (one prepared statement, one row, its own transaction), both over the same
// connection string, with synchronous_commit on and off (benchmarks/run_postgres.sh).
//
//   stategraph_postgres_w5 CONNINFO [REPETITIONS] [ROTATION]
//
// Prints one JSON line per side and setting: per-step wall-time median over the
// repetitions; each repetition runs the four sides once, rotated, starting at ROTATION (so a
// script that runs the program once per repetition, between other programs, can rotate
// too), after one unmeasured invocation per side.
#include "recording_store.hpp"
#include "workloads.hpp"

#include <stategraph/store/postgres.hpp>

#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace sg = stategraph;
using bench::State;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// W5's checkpoints as the store receives them, one row each: what the raw insert writes.
std::vector<std::string> w5_rows() {
  sg::memory_store memory;
  bench::recording_store<sg::memory_store> store(memory, true);
  const auto app = sg::compile<bench::w5::graph>(sg::with_store(store));
  app.invoke(State{}, sg::thread_id{"w5"});
  std::vector<std::string> rows;
  for (auto& r : store.puts) rows.push_back(std::move(r.payload));
  return rows;
}

void admin(PGconn* c, const std::string& sql) {
  PGresult* r = PQexec(c, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
  PQclear(r);
  if (!ok) throw std::runtime_error(sql + ": " + PQerrorMessage(c));
}

// The least a PostgreSQL-backed store can do per checkpoint: one prepared INSERT of the
// checkpoint's bytes as one bytea row, sent binary, committed on its own.
class raw_insert {
 public:
  raw_insert(const std::string& conninfo, const std::string& schema, bool synchronous) {
    c_ = PQconnectdb(conninfo.c_str());
    if (PQstatus(c_) != CONNECTION_OK) throw std::runtime_error(std::string("raw: ") + PQerrorMessage(c_));
    PQsetNoticeProcessor(c_, [](void*, const char*) {}, nullptr);
    admin(c_, std::string("SET synchronous_commit = ") + (synchronous ? "on" : "off"));
    admin(c_, "CREATE TABLE IF NOT EXISTS \"" + schema + "\".raw (id bigserial PRIMARY KEY, value bytea NOT NULL)");
    const Oid bytea = 17;
    PGresult* r = PQprepare(c_, "ins", ("INSERT INTO \"" + schema + "\".raw (value) VALUES ($1)").c_str(), 1, &bytea);
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) throw std::runtime_error(std::string("raw: prepare: ") + PQerrorMessage(c_));
  }
  ~raw_insert() { PQfinish(c_); }
  raw_insert(const raw_insert&) = delete;
  raw_insert& operator=(const raw_insert&) = delete;
  std::size_t insert_each(const std::vector<std::string>& rows) {
    std::size_t done = 0;
    for (const auto& row : rows) {
      const char* value = row.data();
      const int length = static_cast<int>(row.size()), format = 1;
      PGresult* r = PQexecPrepared(c_, "ins", 1, &value, &length, &format, 1);
      done += PQresultStatus(r) == PGRES_COMMAND_OK;
      PQclear(r);
    }
    return done;
  }

 private:
  PGconn* c_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: stategraph_postgres_w5 CONNINFO [REPETITIONS]\n", stderr);
    return 2;
  }
  const std::string conninfo = argv[1];
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 9;
  const int rotation = argc > 3 ? std::atoi(argv[3]) : 0;
  constexpr int invocations = 3;
  const auto rows = w5_rows();
  const double steps = static_cast<double>(bench::w5::supersteps) * invocations;
  const std::string schema = "sg_bench_w5";
  {
    PGconn* c = PQconnectdb(conninfo.c_str());
    if (PQstatus(c) != CONNECTION_OK) {
      std::fprintf(stderr, "stategraph_postgres_w5: %s", PQerrorMessage(c));
      return 1;
    }
    PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
    admin(c, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    admin(c, "CREATE SCHEMA " + schema);
    PQfinish(c);
  }
  // Sides: store and raw, each with synchronous_commit on and off.
  const char* names[4] = {"postgres_store", "raw_insert", "postgres_store", "raw_insert"};
  const bool sync[4] = {true, true, false, false};
  std::vector<double> wall[4];
  sg::postgres_store store_on(conninfo, {.schema = schema, .pool_size = 1, .synchronous_commit = true});
  sg::postgres_store store_off(conninfo, {.schema = schema, .pool_size = 1, .synchronous_commit = false});
  raw_insert raw_on(conninfo, schema, true), raw_off(conninfo, schema, false);
  int thread_no = 0;
  auto once = [&](int s) -> bool {
    if (s == 1 || s == 3) return (s == 1 ? raw_on : raw_off).insert_each(rows) == rows.size();
    const auto app = sg::compile<bench::w5::graph>(sg::with_store(s == 0 ? store_on : store_off));
    return app.invoke(State{}, sg::thread_id{"t" + std::to_string(thread_no++)}).counter == bench::w5::rounds;
  };
  for (int s = 0; s < 4; ++s) once(s);  // warm-up: connections, prepared statements, caches
  for (int r = 0; r < repetitions; ++r) {
    for (int k = 0; k < 4; ++k) {
      const int s = (k + r + rotation) % 4;  // rotated, so no side always runs first
      std::size_t check = 0;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < invocations; ++i) check += once(s);
      const auto t1 = std::chrono::steady_clock::now();
      if (check != invocations) {
        std::fprintf(stderr, "stategraph_postgres_w5: side %d did not finish its runs\n", s);
        return 1;
      }
      wall[s].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / steps);
    }
  }
  for (int s = 0; s < 4; ++s) {
    const int store_side = s < 2 ? 0 : 2;
    std::printf("{\"kind\": \"w5_postgres\", \"side\": \"%s\", \"synchronous_commit\": %s, \"wall_us_per_step\": %.1f, "
                "\"store_over_raw\": %.3f, \"rows_per_invocation\": %zu, \"repetitions\": %d}\n",
                names[s], sync[s] ? "true" : "false", median(wall[s]),
                median(wall[store_side]) / median(wall[store_side + 1]), rows.size(), repetitions);
  }
  return 0;
}
