/**
 * The fabric: one-sided verbs (READ, WRITE, CAS, FAA) from compute nodes to passive memory nodes,
 * request/reply messages between compute nodes, and exact per-node counters of both.
 *
 * <p>Naming: every method whose name starts with {@code remote} or that takes a {@link io.selcc.fabric.VerbBatch}
 * is a round trip to a memory node; {@code call} is a message round trip to another compute node.
 * Everything else is local.
 */
package io.selcc.fabric;
