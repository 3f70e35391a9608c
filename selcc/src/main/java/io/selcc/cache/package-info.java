/**
 * SELCC: the coherent compute-side cache over disaggregated memory (paper sections 4-6), and the
 * SEL baseline without a cache. Public surface: {@link io.selcc.cache.SelccCluster} (builder and
 * composition root), {@link io.selcc.cache.ComputeNode} (the API of paper Table 1),
 * {@link io.selcc.cache.GclHandle} and {@link io.selcc.cache.AccessMode}. Everything else is
 * package-private protocol machinery.
 */
package io.selcc.cache;
