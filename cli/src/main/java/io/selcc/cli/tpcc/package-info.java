/**
 * {@code selcc tpcc load|run|check}: TPC-C on the embedded default (all nodes in this process). The
 * database lives as long as the command: {@code load} loads and reports, {@code run} loads then drives
 * terminals, {@code check} loads and runs the consistency checks; {@code run --check} checks after the run.
 */
package io.selcc.cli.tpcc;
