package io.selcc.engine.cc;

import io.selcc.cache.ComputeNode;

/**
 * What the engine gives an algorithm on one compute node.
 *
 * @param node the compute node
 * @param timestampCounter global address of an 8-byte word for FAA timestamps, in a GCL that is never latched
 */
public record CcEnvironment(ComputeNode node, long timestampCounter) {
}
