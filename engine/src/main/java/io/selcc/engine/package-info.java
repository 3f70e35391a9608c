/**
 * The engine: a {@link io.selcc.engine.Database} of tables with B-link tree indexes over SELCC,
 * opened from any compute node, and serializable {@link io.selcc.engine.Transaction}s whose
 * concurrency control is a plug-in found by name ({@link io.selcc.engine.cc}).
 *
 * <p>User API (what embedding code and tests call): {@link io.selcc.engine.Database} and its builder,
 * {@link io.selcc.engine.DatabaseNode}, {@link io.selcc.engine.Transaction}, {@link io.selcc.engine.Table},
 * {@link io.selcc.engine.Index}, {@link io.selcc.engine.TableDefinition},
 * {@link io.selcc.engine.IndexDefinition} with {@link io.selcc.engine.KeyFunction},
 * {@link io.selcc.engine.RowReader}, {@link io.selcc.engine.RowVisitor}, {@link io.selcc.engine.TxnResult},
 * {@link io.selcc.engine.RetryPolicy}, {@link io.selcc.engine.BulkLoad},
 * {@link io.selcc.engine.TransactionCounts}, {@link io.selcc.engine.ConcurrencyControls} and, for the
 * stages and report of a crash repair that {@code Database.onRepairProgress} passes on,
 * {@link io.selcc.engine.CrashRecovery}; besides these, the outcomes in {@link io.selcc.engine.cc} and
 * {@code KeyComposer} in {@link io.selcc.engine.index}.
 *
 * <p>Public for the modules around the engine, not for embedding code: the commit log's contract
 * {@link io.selcc.engine.CommitLog} with what a log receives ({@link io.selcc.engine.Redo}) and
 * publishes ({@link io.selcc.engine.DurabilityWord}), and {@link io.selcc.engine.DeferredIndexes} (the
 * {@code wal} module's recovery); {@link io.selcc.engine.BranchVote} (a branch of a distributed
 * transaction, {@code twopc-baseline}). Everything else here is package-private.
 */
package io.selcc.engine;
