// What only sg::postgres_store has: connecting, its schema's version, retries after a lost
// connection, its pool, a fork()ed child, and the compare-and-swap head between two store
// objects (two workers). The conformance suite runs on it from conformance.cpp and
// concurrency.cpp; checkpointed runs on it are in postgres_app.cpp.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <exception>
#include <latch>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace store_test;

namespace {

std::unique_ptr<sg::postgres_store> open_in(const sg_test::temp_schema& schema, sg::postgres_options o = {},
                                            const std::string& extra = "") {
  o.schema = schema.name();
  return std::make_unique<sg::postgres_store>(sg_test::postgres_conninfo() + extra, o);
}

// Ends every server session whose application_name is `name`, as a server restart would.
void kill_sessions(const std::string& name) {
  sg_test::postgres_admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '" +
                          name + "' AND pid <> pg_backend_pid()");
}

}  // namespace

TEST_CASE("postgres: a connection string that does not connect is a typed error naming the target") {
  try {
    sg::postgres_store s("host=/nonexistent/sg-socket port=5999 dbname=nowhere user=nobody password=hunter2");
    FAIL("connected to a server that does not exist");
  } catch (const sg::postgres_connect_error& e) {
    const std::string what = e.what();
    CHECK(e.target() == "host=/nonexistent/sg-socket port=5999 dbname=nowhere user=nobody");
    CHECK(what.find("host=/nonexistent/sg-socket") != std::string::npos);
    CHECK(what.find("hunter2") == std::string::npos);  // never the password
    CHECK(what.find("No such file or directory") != std::string::npos);
  }
  // A server that is there but refuses: a database it does not have.
  CHECK_THROWS_AS(sg::postgres_store(sg_test::postgres_conninfo() + " dbname=sg_no_such_database"),
                  sg::postgres_connect_error);
  try {
    sg::postgres_store s(sg_test::postgres_conninfo() + " dbname=sg_no_such_database");
  } catch (const sg::postgres_connect_error& e) {
    CHECK(std::string(e.what()).find("sg_no_such_database") != std::string::npos);
    CHECK(std::string(e.what()).find("does not exist") != std::string::npos);
  }
  // A string libpq cannot parse is refused the same way.
  CHECK_THROWS_AS(sg::postgres_store("this is = not a = connection string"), sg::postgres_connect_error);
  // Both are store errors, and so sg::errors.
  CHECK_THROWS_AS(sg::postgres_store("host=/nonexistent/sg-socket"), sg::store_error);
  CHECK_THROWS_AS(sg::postgres_store("host=/nonexistent/sg-socket"), sg::error);
}

TEST_CASE("postgres: the schema is made once, versioned, and one of a newer version is refused unchanged") {
  sg_test::temp_schema schema("version");
  {
    auto s = open_in(schema);
    put(*s, "t", {{"x", 1, "one"}});
  }
  auto s = open_in(schema);  // a second open finds the tables and keeps what they hold
  CHECK(joined(*s->get("t"), "x") == "one");
  CHECK(sg::postgres_store::schema_version == 1);

  sg_test::postgres_admin("UPDATE \"" + schema.name() + "\".sg_store SET value = 2 WHERE key = 'schema_version'");
  try {
    open_in(schema);
    FAIL("a schema of version 2 was opened");
  } catch (const sg::store_format_error& e) {
    const std::string what = e.what();
    CHECK(what.find("schema version 2") != std::string::npos);
    CHECK(what.find("reads version 1") != std::string::npos);
    CHECK(what.find(schema.name()) != std::string::npos);
    CHECK(what.find("nothing was changed") != std::string::npos);
  }
  sg_test::postgres_admin("UPDATE \"" + schema.name() + "\".sg_store SET value = 1 WHERE key = 'schema_version'");
  CHECK(joined(*open_in(schema)->get("t"), "x") == "one");  // nothing was changed

  // The store's tables without its version table: damaged or someone else's; refused.
  sg_test::postgres_admin("DROP TABLE \"" + schema.name() + "\".sg_store");
  CHECK_THROWS_AS(open_in(schema), sg::store_format_error);
  CHECK(s->stats().checkpoints == 1);
}

TEST_CASE("postgres: schemas side by side do not see each other") {
  sg_test::temp_schema a("side_a"), b("side_b");
  auto sa = open_in(a);
  auto sb = open_in(b);
  put(*sa, "t", {{"x", 1, "a"}});
  CHECK(sb->threads().empty());
  CHECK(put(*sb, "t", {{"x", 1, "b"}}) == 1);
  CHECK(joined(*sa->get("t"), "x") == "a");
  CHECK(joined(*sb->get("t"), "x") == "b");
}

TEST_CASE("postgres: a late commit is refused by the compare-and-swap head, and nothing of it is kept") {
  // Two workers (two store objects, two connections) on one thread: the first reads the
  // head, the second continues it, the first's commit comes late.
  postgres_fixture f;
  auto other = f.open();
  auto& late = *f.store;
  const auto one = put(late, "t", {{"x", 1, "x1"}, {"log", 1, "p1", true}});
  const auto read = late.get("t");
  REQUIRE(read);
  CHECK(put(*other, "t", {{"x", 2, "x2"}, {"log", 2, "p2", true}}, {.parent = one}) == 2);
  const auto before = late.stats();
  try {
    put(late, "t", {{"x", 2, "late"}, {"log", 2, "late", true}}, {.parent = read->id});
    FAIL("the late commit was accepted");
  } catch (const sg::conflict_error& e) {
    CHECK(e.thread() == "t");
    CHECK(e.expected() == 1);
    CHECK(e.actual() == 2);
  }
  CHECK(late.stats() == before);
  CHECK(joined(*late.get("t"), "log") == "p1|p2");
  CHECK(ids(late, "t") == std::vector<std::int64_t>{2, 1});
  // Its pending writes on the checkpoint it read are refused too.
  const std::vector<sg::pending_write_put> w{{"agent:result", 0, "x", "late"}};
  CHECK_THROWS_AS(late.put_writes("t", one, w), sg::conflict_error);
  CHECK(late.stats().pending_writes == 0);
  // Reloaded, it continues the new head.
  CHECK(put(late, "t", {{"x", 3, "x3"}, {"log", 3, "p3", true}}, {.parent = 2}) == 3);
  CHECK(joined(*other->get("t"), "log") == "p1|p2|p3");
}

TEST_CASE("postgres: a lost connection is retried; past the retries it is a typed error") {
  sg_test::temp_schema schema("lost");
  const std::string name = "sg_lost_" + std::to_string(::getpid());
  auto s = open_in(schema, {}, " application_name=" + name);
  auto parent = put(*s, "t", {{"x", 1, "x1"}});
  kill_sessions(name);  // the pooled connection is dead; the store finds out on its next call
  parent = put(*s, "t", {{"x", 2, "x2"}}, {.parent = parent});
  CHECK(parent == 2);
  kill_sessions(name);
  CHECK(joined(*s->get("t"), "x") == "x2");
  CHECK(ids(*s, "t") == std::vector<std::int64_t>{2, 1});  // the retried put was kept once

  auto strict = open_in(schema, {.max_retries = 0}, " application_name=" + name);
  CHECK(strict->stats().checkpoints == 2);
  kill_sessions(name);
  try {
    put(*strict, "t", {{"x", 3, "x3"}}, {.parent = 2});
    FAIL("a call on a dead connection succeeded without a retry");
  } catch (const sg::postgres_transient_error& e) {
    CHECK(e.attempts() == 1);
    CHECK(std::string(e.what()).find("writing a checkpoint") != std::string::npos);
  }
  CHECK(ids(*strict, "t") == std::vector<std::int64_t>{2, 1});  // nothing was written
  CHECK(put(*strict, "t", {{"x", 3, "x3"}}, {.parent = 2}) == 3);  // and the next call reconnects
}

TEST_CASE("postgres: more threads than connections wait their turn") {
  sg_test::temp_schema schema("pool");
  auto s = open_in(schema, {.pool_size = 1});
  constexpr int threads = 4, n = 25;
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  std::latch start(threads);
  for (int w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      try {
        start.arrive_and_wait();
        std::int64_t parent = sg::no_checkpoint;
        for (int i = 0; i < n; ++i)
          parent = put(*s, std::to_string(w).append("w"), {{"x", i + 1, std::to_string(i)}}, {.parent = parent});
      } catch (...) {
        errors[static_cast<std::size_t>(w)] = std::current_exception();
      }
    });
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  CHECK(s->stats() == sg::store_stats{threads, threads * n, threads * n, threads * (10 + 2 * 15), 0});
}

TEST_CASE("postgres: a fork()ed child uses the store object on connections of its own") {
  postgres_fixture f;
  auto& s = *f.store;
  put(s, "parent", {{"x", 1, "p1"}});  // a pooled connection the child inherits
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 0;
    try {
      put(s, "child", {{"x", 1, "c1"}});
      code = joined(*s.get("parent"), "x") == "p1" ? 0 : 2;
    } catch (...) {
      code = 1;
    }
    ::_exit(code);
  }
  REQUIRE(pid > 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  // The parent's session was not touched by the child.
  CHECK(put(s, "parent", {{"x", 2, "p2"}}, {.parent = 1}) == 2);
  CHECK(s.threads() == std::vector<std::string>{"child", "parent"});
}

TEST_CASE("postgres: a cached parent that another writer deleted and wrote again is read afresh") {
  postgres_fixture f;
  auto other = f.open();
  auto& s = *f.store;
  put(s, "t", {{"a", 1, "mine"}, {"b", 1, "mine"}});
  // Behind this store object's back: the thread goes and comes again with other values.
  CHECK(other->delete_thread("t"));
  put(*other, "t", {{"a", 1, "theirs"}, {"b", 1, "theirs"}});
  // Continuing checkpoint 1 with `a` unchanged must refer to their `a`, not the cached one.
  CHECK(put(s, "t", {{"a", 1}, {"b", 2, "new"}}, {.parent = 1}) == 2);
  const auto cp = s.get("t");
  CHECK(joined(*cp, "a") == "theirs");
  CHECK(joined(*cp, "b") == "new");
}

namespace {

// A session of its own that the test drives statement by statement.
class session {
 public:
  session() : c_(PQconnectdb(sg_test::postgres_conninfo().c_str())) {
    REQUIRE(PQstatus(c_) == CONNECTION_OK);
    PQsetNoticeProcessor(c_, [](void*, const char*) {}, nullptr);
  }
  ~session() { PQfinish(c_); }
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  std::string scalar(const std::string& sql) {
    PGresult* r = PQexec(c_, sql.c_str());
    const auto status = PQresultStatus(r);
    std::string out = status == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    const std::string error = PQerrorMessage(c_);
    PQclear(r);
    if (!ok) throw std::runtime_error(sql + ": " + error);
    return out;
  }

 private:
  PGconn* c_;
};

// Holds the thread's row locked (an update, uncommitted) until the store's put waits on it,
// then commits: under SERIALIZABLE the put's transaction meets a serialization failure.
template <class Put>
void race_a_serialization_failure(const std::string& schema, const std::string& name, Put put_now) {
  session holder, watcher;
  holder.scalar("BEGIN");
  holder.scalar("UPDATE \"" + schema + "\".sg_threads SET head = head WHERE name = convert_to('t', 'UTF8')");
  std::thread writer(put_now);
  bool waiting = false;
  for (int i = 0; i < 1000 && !waiting; ++i) {
    waiting = watcher.scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + name +
                             "' AND wait_event_type = 'Lock'") != "0";
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  holder.scalar("COMMIT");
  writer.join();
  CHECK(waiting);
}

}  // namespace

TEST_CASE("postgres: a serialization failure is retried; past the retries it is a typed error with its SQLSTATE") {
  sg_test::temp_schema schema("serial");
  const std::string name = "sg_serial_" + std::to_string(::getpid());
  const std::string serializable = " options='-c default_transaction_isolation=serializable' application_name=" + name;
  auto s = open_in(schema, {}, serializable);
  CHECK(put(*s, "t", {{"x", 1, "x1"}}) == 1);

  std::int64_t id = 0;
  std::exception_ptr error;
  race_a_serialization_failure(schema.name(), name, [&] {
    try {
      id = put(*s, "t", {{"x", 2, "x2"}}, {.parent = 1});
    } catch (...) {
      error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
  CHECK(id == 2);  // retried in a new transaction, which saw the committed update
  CHECK(joined(*s->get("t"), "x") == "x2");

  auto strict = open_in(schema, {.max_retries = 0}, serializable);
  std::string sqlstate;
  int attempts = 0;
  race_a_serialization_failure(schema.name(), name, [&] {
    try {
      put(*strict, "t", {{"x", 3, "x3"}}, {.parent = 2});
    } catch (const sg::postgres_transient_error& e) {
      sqlstate = e.sqlstate();
      attempts = e.attempts();
    }
  });
  CHECK(sqlstate == "40001");
  CHECK(attempts == 1);
  CHECK(ids(*s, "t") == std::vector<std::int64_t>{2, 1});  // nothing of the refused put was kept
}
