// Every compile-time rule of contract §5, one header per rule (or per family) in rules/,
// each with its predicate first — a concept a test can state as
// `static_assert(!rules::writes_declared<Node, Patch>)` — and its diagnostic second: a class
// template whose name states the problem and starts with the rule ID, and whose arguments
// name the offending nodes, stages, channels (member pointers) and values, so both
// compilers print them in the first lines (Clang 14 prints class-type constants as
// numbers, hence no string arguments). rules/check_all.hpp is the order sg::compile checks
// them in.
//
//   reads.hpp            SG001  a node reads only its `reads` (fires in sg::view)
//   writes.hpp           SG002  a patch writes only the node's `writes`
//                        SG004  each written value converts to what the channel's reducer takes
//   channels.hpp         SG003  declared channels are members of the graph's state
//   targets.hpp          SG005  targets and edges name nodes; no edge declared twice
//   lattice.hpp          SG006  hand-overs respect the lattice; SG007 singleton stages
//   parallel_writes.hpp  SG008  nodes that run together write no last-value channel twice
//   reach.hpp            SG009  every node reachable from start and reaching end
//   declared_targets.hpp SG010  routers, commands and sends go only where declared
//   calls.hpp            SG011  call operators accept their view; results are supported
//   seams.hpp            SG012  the run's context provides each node's seam
//   codec.hpp            SG013  checkpointed channels have a JSON codec (opt-in, not here)
//   inputs.hpp           SG014  a partial input names each channel once (checked by invoke)
//   bindings.hpp         SG015  sg::compile binds each lambda node once, to a tag the graph names
//   state.hpp            SG016  the state is an aggregate that `State{}` can build
//   reducers.hpp         SG017  each channel's reducer takes the channel's value and a write
//
// A diagnostic fails with a static_assert whose condition spells the whole diagnostic type,
// when instantiated as `(void)rules::SG0NN_...<Args...>{};`. The assertion sits in a
// nested template that the diagnostic only holds as a static member: the diagnostic itself
// stays a valid type, so the check that instantiated it remains a constant expression and
// Clang reports one error instead of following it with "not a constant expression"
// cascades. A new diagnostic copies that shape (no macro: a macro adds "in expansion of
// macro" notes to every message).
#pragma once

// Each rule's header first, then the order: a diagnostic's "In file included from" chain
// is then one line shorter.
#include <stategraph/rules/bindings.hpp>
#include <stategraph/rules/calls.hpp>
#include <stategraph/rules/channels.hpp>
#include <stategraph/rules/declared_targets.hpp>
#include <stategraph/rules/lattice.hpp>
#include <stategraph/rules/parallel_writes.hpp>
#include <stategraph/rules/reach.hpp>
#include <stategraph/rules/reads.hpp>
#include <stategraph/rules/reducers.hpp>
#include <stategraph/rules/seams.hpp>
#include <stategraph/rules/state.hpp>
#include <stategraph/rules/targets.hpp>
#include <stategraph/rules/writes.hpp>
#include <stategraph/rules/inputs.hpp>  // after writes.hpp and channels.hpp, which it includes
#include <stategraph/rules/misuse.hpp>

#include <stategraph/rules/check_all.hpp>
