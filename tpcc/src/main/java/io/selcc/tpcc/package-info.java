/**
 * Spec-complete TPC-C (v5.11) on the engine: the nine tables ({@link io.selcc.tpcc.TpccSchema}), the
 * spec's random functions ({@link io.selcc.tpcc.TpccRandom}), the loader, the five transactions, the
 * driver and the twelve consistency conditions. Clause numbers refer to the specification; see
 * {@code ../shared/reference/tpcc-spec-notes.md}.
 */
package io.selcc.tpcc;
