// The PostgreSQL fixture: a store in a schema of its own (made for the case, dropped after
// it) on the throwaway cluster ctest starts with scripts/pg-cluster.sh. The connection
// string comes from SG_TEST_POSTGRES, which ctest sets; without it a case fails (never skips).
#pragma once

#include <stategraph/store/postgres.hpp>

#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

namespace sg_test {

inline std::string postgres_conninfo() {
  const char* s = std::getenv("SG_TEST_POSTGRES");
  if (s == nullptr || *s == '\0')
    throw std::runtime_error(
        "SG_TEST_POSTGRES is not set: run the Postgres tests through ctest, which starts a cluster with "
        "scripts/pg-cluster.sh (or start one and set SG_TEST_POSTGRES to the string it prints)");
  return s;
}

// Runs SQL on a connection of its own (for setup and teardown the store must not do).
inline void postgres_admin(const std::string& sql) {
  PGconn* c = PQconnectdb(postgres_conninfo().c_str());
  std::string error;
  if (PQstatus(c) != CONNECTION_OK) {
    error = PQerrorMessage(c);
  } else {
    PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
    PGresult* r = PQexec(c, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) error = PQerrorMessage(c);
    PQclear(r);
  }
  PQfinish(c);
  if (!error.empty()) throw std::runtime_error("admin SQL failed: " + sql + ": " + error);
}

// A schema name no other case or concurrent run uses; dropped with everything in it.
class temp_schema {
 public:
  explicit temp_schema(std::string_view tag = "t") {
    static std::atomic<int> counter{0};
    name_ = "sg_" + std::string(tag) + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    postgres_admin("DROP SCHEMA IF EXISTS \"" + name_ + "\" CASCADE");
  }
  ~temp_schema() {
    try {
      postgres_admin("DROP SCHEMA IF EXISTS \"" + name_ + "\" CASCADE");
    } catch (...) {
    }
  }
  temp_schema(const temp_schema&) = delete;
  temp_schema& operator=(const temp_schema&) = delete;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

}  // namespace sg_test

namespace store_test {

struct postgres_fixture {
  using store_type = stategraph::postgres_store;
  static constexpr bool shared_backing = true;
  sg_test::temp_schema schema;
  std::unique_ptr<stategraph::postgres_store> store = open();

  std::unique_ptr<stategraph::postgres_store> open() const {
    return std::make_unique<stategraph::postgres_store>(sg_test::postgres_conninfo(),
                                                        stategraph::postgres_options{.schema = schema.name()});
  }
};

}  // namespace store_test
