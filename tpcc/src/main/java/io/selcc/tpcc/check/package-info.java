/**
 * The twelve consistency conditions of [SPEC] 3.3.2, and the agreement of every index with its heap,
 * checked by {@link io.selcc.tpcc.check.ConsistencyChecker} over full scans of a quiesced database.
 */
package io.selcc.tpcc.check;
