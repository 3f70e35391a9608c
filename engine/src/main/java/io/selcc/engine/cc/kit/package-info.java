/**
 * Building blocks for concurrency-control implementations (the {@code concurrency-2pl}, {@code -occ} and
 * {@code -to} modules), not part of the engine's user API: they are public only because those modules
 * live in other packages, and they may change with the algorithms. Nothing in the engine outside this
 * package uses them.
 *
 * <p>What is here: the per-transaction sets keyed by record id ({@link io.selcc.engine.cc.kit.LongMap},
 * {@link io.selcc.engine.cc.kit.ReadSet}, {@link io.selcc.engine.cc.kit.WriteSet} with the pages a commit
 * latches, {@link io.selcc.engine.cc.kit.LatchedPages}), a thread's reusable row views
 * ({@link io.selcc.engine.cc.kit.RowViews}), the base of algorithms that buffer writes and install them
 * at commit ({@link io.selcc.engine.cc.kit.BufferingTransaction}, OCC and TO) and the guard that holds a
 * commit's changed index leaves to its end ({@link io.selcc.engine.cc.kit.CommitLeaves}).
 */
package io.selcc.engine.cc.kit;
