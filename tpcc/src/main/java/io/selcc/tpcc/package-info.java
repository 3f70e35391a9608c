/**
 * Spec-complete TPC-C (v5.11) on the engine: the nine tables ({@link io.selcc.tpcc.TpccSchema}), the
 * spec's random functions ({@link io.selcc.tpcc.TpccRandom}), the loader, the five transactions, the
 * driver and the twelve consistency conditions. Clause numbers ({@code [SPEC] 2.4.1.5}) refer to the
 * TPC Benchmark C Standard Specification, revision 5.11 (Transaction Processing Performance Council,
 * 2010), published at tpc.org.
 */
package io.selcc.tpcc;
