// stategraph: LangGraph-style state graphs whose whole contract is a type.
// The core: no JSON, no SQLite (checkpoint codecs and stores are opt-in headers).
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/config.hpp>
#include <stategraph/containers.hpp>
#include <stategraph/errors.hpp>
#include <stategraph/graph.hpp>
#include <stategraph/lattice.hpp>
#include <stategraph/node.hpp>
#include <stategraph/pictures.hpp>
#include <stategraph/rules.hpp>
#include <stategraph/executor.hpp>
#include <stategraph/events.hpp>
#include <stategraph/retry.hpp>
#include <stategraph/run.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/schema.hpp>
#include <stategraph/send.hpp>
#include <stategraph/subgraph.hpp>
