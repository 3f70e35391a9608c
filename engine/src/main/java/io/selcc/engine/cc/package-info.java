/**
 * The concurrency-control SPI and the outcomes users see. An algorithm module provides a
 * {@link ConcurrencyControlProvider} (registered with {@link java.util.ServiceLoader}); the engine picks
 * it by name and never names an algorithm itself. The engine resolves keys to record ids through its
 * indexes; the algorithm decides how tuples at record ids are read and written, and when writes become
 * visible.
 *
 * <p>Users of the engine meet {@link AbortException} (a conflict, thrown inside a transaction's body),
 * its {@link AbortReason}, the {@link CommitOutcome} of {@code Transaction.commit()} and
 * {@link LockWaitPolicy} ({@code Database.Builder.lockWait}). An algorithm implements
 * {@link ConcurrencyControlProvider}, {@link ConcurrencyControl} and {@link CcTransaction}, gets its
 * {@link CcEnvironment} from the engine and calls the engine's {@link CommitHook} at commit; the
 * building blocks the three algorithms share are in {@link io.selcc.engine.cc.kit}, which is not user API.
 */
package io.selcc.engine.cc;
