package io.selcc.tpcc.run;

import io.selcc.engine.CrashRecovery;
import io.selcc.engine.Database;
import io.selcc.tpcc.driver.TpccDriver;

import java.io.PrintStream;
import java.util.Set;
import java.util.TreeSet;

/**
 * How a run went on after a compute node's repair (a node of another process that died, or one crashed
 * on purpose): each repair is printed when it is done, not only at the end, and the New-Orders this
 * process's terminals committed after the last one are counted by district, so a report shows whether the
 * survivors went on, and in which districts.
 */
final class AfterRepair {
    private final TpccDriver driver;
    private final PrintStream progress;
    private final Set<Integer> printed = new TreeSet<>();
    /** The driver's New-Orders by district when the last repair was done; null: none was. */
    private long[] atRepair;

    private AfterRepair(TpccDriver driver, PrintStream progress) {
        this.driver = driver;
        this.progress = progress;
    }

    /** Watches {@code db}'s repairs for the run {@code driver} makes. */
    static AfterRepair watch(Database db, TpccDriver driver, PrintStream progress) {
        AfterRepair after = new AfterRepair(driver, progress);
        db.onRepairProgress((node, stage, report) -> {
            if (stage == CrashRecovery.Stage.DONE) {
                after.repaired(node, report);
            }
        });
        return after;
    }

    private synchronized void repaired(int node, CrashRecovery.Report report) {
        atRepair = driver.newOrdersByDistrict();
        printed.add(node);
        if (progress != null) {
            progress.println(report.describe());
        }
    }

    /** Whether the repair of {@code node} was printed when it was done. */
    synchronized boolean printed(int node) {
        return printed.contains(node);
    }

    /** The compute nodes repaired during the run, ascending. */
    synchronized Set<Integer> repaired() {
        return new TreeSet<>(printed);
    }

    /**
     * New-Orders this process's terminals committed since the last repair was done, by district (index
     * (w - 1) * 10 + d - 1); null if none was done.
     */
    synchronized long[] newOrdersSince() {
        if (atRepair == null) {
            return null;
        }
        long[] now = driver.newOrdersByDistrict();
        long[] since = new long[now.length];
        for (int i = 0; i < now.length; i++) {
            since[i] = now[i] - atRepair[i];
        }
        return since;
    }

    /** How the run went on after the last repair, now; null if none was done. */
    synchronized RepairAftermath aftermath() {
        long[] since = newOrdersSince();
        return since == null ? null : new RepairAftermath(repaired(), since, driver.newOrdersByDistrict());
    }
}
