/**
 * A TPC-C run as a library call. {@link io.selcc.tpcc.run.RunSpec} says what to run (the cluster, the
 * algorithm, the mode, the log, the terminals, an optional data directory, crash or checkpoint plan) and
 * refuses bad settings with {@link io.selcc.tpcc.run.RunSpec#validate}; {@link io.selcc.tpcc.run.TpccRun}
 * runs it (in this process, or as one compute-node process of a cluster) and returns a
 * {@link io.selcc.tpcc.run.RunOutcome}, loads a population ({@code TpccRun.load}, kept in a data directory
 * when the spec names one) and checks a kept database ({@code TpccRun.check}). Also here: the data directory's format ({@link
 * io.selcc.tpcc.run.DataDir}), the checkpointer and the crash agent of a run. The command line
 * ({@code selcc tpcc run|compare|load|check}) maps its flags to a spec and prints the outcome.
 */
package io.selcc.tpcc.run;
