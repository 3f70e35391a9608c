/**
 * The TPC-C driver: terminals with a fixed home warehouse (and district for Stock-Level), the
 * transaction mix by shuffled card deck, optional keying and think times, warm-up excluded from every
 * counter, and per-type results (committed, aborted by reason, latency percentiles, round trips).
 */
package io.selcc.tpcc.driver;
