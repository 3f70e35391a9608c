package io.selcc.cli.tpcc;

import io.selcc.cli.JsonWriter;
import io.selcc.engine.CrashRecovery;
import io.selcc.engine.Database;
import io.selcc.tpcc.TpccScale;
import io.selcc.tpcc.driver.TpccDriver;

import java.io.PrintStream;
import java.util.Locale;
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

    /**
     * One line: the New-Orders committed here after the last repair, and in how many districts of the
     * warehouses whose districts this process's terminals served during the run (null: nothing to say).
     */
    String line() {
        long[] since = newOrdersSince();
        if (since == null) {
            return null;
        }
        long[] all = driver.newOrdersByDistrict();
        long total = 0;
        int served = 0;
        int going = 0;
        for (int i = 0; i < since.length; i++) {
            total += since[i];
            if (all[i] > 0) {
                served++;
                going += since[i] > 0 ? 1 : 0;
            }
        }
        return String.format(Locale.ROOT, "after the repair of compute node(s) %s: this process's terminals committed"
            + " %,d New-Orders, in %d of the %d districts they served", repaired(), total, going, served);
    }

    /**
     * {@code "afterRepair": {"computeNodes": [..], "newOrders": N, "newOrdersByDistrict": {"W": [d1..d10]}}}
     * for the warehouses in which this process's terminals committed a New-Order during the run; nothing if
     * no repair was done.
     */
    void json(JsonWriter json) {
        long[] since = newOrdersSince();
        if (since == null) {
            return;
        }
        long[] all = driver.newOrdersByDistrict();
        json.name("afterRepair").beginObject();
        json.name("computeNodes").beginArray();
        repaired().forEach(json::value);
        json.endArray();
        long total = 0;
        for (long n : since) {
            total += n;
        }
        json.field("newOrders", total);
        json.name("newOrdersByDistrict").beginObject();
        for (int w = 0; w * TpccScale.DISTRICTS < since.length; w++) {
            boolean served = false;
            for (int d = 0; d < TpccScale.DISTRICTS; d++) {
                served |= all[w * TpccScale.DISTRICTS + d] > 0;
            }
            if (!served) {
                continue;
            }
            json.name(Integer.toString(w + 1)).beginArray();
            for (int d = 0; d < TpccScale.DISTRICTS; d++) {
                json.value(since[w * TpccScale.DISTRICTS + d]);
            }
            json.endArray();
        }
        json.endObject().endObject();
    }
}
