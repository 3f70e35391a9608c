/**
 * The redo log: each compute node appends its committed transactions to its own Chronicle Queue
 * ({@link io.selcc.wal.Wal}, an {@link io.selcc.engine.CommitLog.Factory}), a flusher agent per log
 * forces them in groups, and a commit is acknowledged once every commit before it in the global
 * sequence is forced. {@link io.selcc.wal.LogReader} reads a node's log back for recovery.
 */
package io.selcc.wal;
