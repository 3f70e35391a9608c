/**
 * Indexes over SELCC: a concurrent B-link tree (Lehman and Yao) whose nodes are GCLs, as in paper
 * section 6.3. Each node is one GCL latched through {@link io.selcc.cache.ComputeNode}; SELCC keeps the
 * compute nodes' cached copies coherent, so the tree is written as if against shared memory under
 * S/X latches.
 *
 * <p>Public surface: {@link io.selcc.engine.index.BLinkTree} (create, open, insert, delete, lookup,
 * scans), {@link io.selcc.engine.index.InsertOutcome}, {@link io.selcc.engine.index.EntryVisitor} and
 * {@link io.selcc.engine.index.KeyComposer} (order-preserving keys from several columns), and for crash
 * repair only {@link io.selcc.engine.index.BLinkTreeRepair}. The node layout ({@code BLinkNodeLayout}),
 * its flyweight and the structural checker are package-private.
 */
package io.selcc.engine.index;
