package io.selcc.tpcc.run;

import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.driver.DriverResult;

import java.util.Set;

/**
 * What a run measured and found. On a compute node other than 0 of a run whose compute nodes are
 * processes, only this node's share ({@link #reported()} false): node 0 reports the run.
 *
 * @param result        the driver's figures of the measured interval (all processes' on node 0)
 * @param mode          the mode's counts of the measured interval (invalidations, round trips, 2PC)
 * @param log           the commit logs' figures of the whole run
 * @param check         the consistency check's report; null when not asked for
 * @param lostNodes     compute nodes whose process died during the run (their results are missing)
 * @param afterRepair   how this process's terminals went on after a repair; null when none was done
 * @param cacheFrames   frames per compute node's cache the run had
 * @param memoryPerNode shared memory per memory node the run had, in bytes
 * @param reported      whether this process reports the run (false on compute nodes other than 0)
 */
public record RunOutcome(RunSpec spec, DriverResult result, ModeReport mode, LogFigures log, CheckReport check,
                         Set<Integer> lostNodes, RepairAftermath afterRepair, int cacheFrames, long memoryPerNode,
                         boolean reported) {
    /** Whether the run stopped early because shared memory filled up (the figures cover the run until then). */
    public boolean stoppedEarly() {
        return result.sharedMemoryFull();
    }

    /** Whether the run went to its end and every check asked for passed. */
    public boolean passed() {
        return !stoppedEarly() && (check == null || check.passed());
    }
}
