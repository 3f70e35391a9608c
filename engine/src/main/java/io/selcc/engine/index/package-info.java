/**
 * Indexes over SELCC: a concurrent B-link tree (Lehman and Yao) whose nodes are GCLs, as in paper
 * section 6.3. Each node is one GCL latched through {@link io.selcc.cache.ComputeNode}; SELCC keeps the
 * compute nodes' cached copies coherent, so the tree is written as if against shared memory under
 * S/X latches.
 *
 * <p>Public surface, most of it for the engine itself ({@link io.selcc.engine}) and the benchmarks:
 * {@link io.selcc.engine.index.BLinkTree} (create, open, insert, delete, lookup, scans) with
 * {@link io.selcc.engine.index.InsertOutcome} and {@link io.selcc.engine.index.EntryVisitor} (also what
 * {@code Index.forEachEntry} hands out), and for crash repair only
 * {@link io.selcc.engine.index.BLinkTreeRepair}. User API here is only
 * {@link io.selcc.engine.index.KeyComposer} (order-preserving keys from several columns). The
 * concurrency control's hooks {@link io.selcc.engine.index.LeafGuard} and
 * {@link io.selcc.engine.index.LeafView} are for concurrency-control implementations, like
 * {@link io.selcc.engine.cc.kit}: not user API, and they may change.
 *
 * <p>Package-private parts of the tree: the node layout ({@code BLinkNodeLayout}) and its flyweight
 * ({@code BLinkNode}); {@code Descent}, which finds a key's node (with {@code OptimisticRead} for
 * latch-free reads of inner nodes, {@code DescentPath} for the nodes it passed and {@code LeafHints}
 * for the leaves a thread used recently); {@code Splitter}, which splits full nodes and posts their
 * separators; {@code LeafCursor}, the scan loop over forward and backward cursors; {@code TreeContext},
 * a thread's reusable scratch holding all of these; and the structural checker
 * ({@code BLinkTreeChecker}).
 */
package io.selcc.engine.index;
