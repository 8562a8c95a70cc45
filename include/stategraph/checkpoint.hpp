// Checkpointed runs (opt-in): the JSON codec, sg::interrupt, and the durable app that
// sg::compile returns for sg::with_store(store). Stores: <stategraph/store/memory.hpp>,
// <stategraph/store/sqlite.hpp>.
#pragma once

#include <stategraph/checkpoint/durable.hpp>
#include <stategraph/checkpoint/json.hpp>
#include <stategraph/checkpoint/replay.hpp>
