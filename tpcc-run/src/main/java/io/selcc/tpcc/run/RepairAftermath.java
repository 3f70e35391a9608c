package io.selcc.tpcc.run;

import io.selcc.tpcc.TpccScale;

import java.util.Locale;
import java.util.Set;

/**
 * How a process's terminals went on after the last repair of a compute node during the run: the New-Orders
 * they committed since, by district (index (w - 1) * 10 + d - 1), beside those of the whole run.
 *
 * @param repairedNodes the compute nodes repaired during the run, ascending
 */
public record RepairAftermath(Set<Integer> repairedNodes, long[] newOrdersSince, long[] newOrdersAll) {
    /** New-Orders committed since the last repair. */
    public long newOrders() {
        long total = 0;
        for (long n : newOrdersSince) {
            total += n;
        }
        return total;
    }

    /** Whether this process's terminals committed a New-Order in warehouse {@code w} (1-based) during the run. */
    public boolean served(int w) {
        for (int d = 0; d < TpccScale.DISTRICTS; d++) {
            if (newOrdersAll[(w - 1) * TpccScale.DISTRICTS + d] > 0) {
                return true;
            }
        }
        return false;
    }

    /** The warehouses whose districts {@link #newOrdersSince} covers. */
    public int warehouses() {
        return newOrdersSince.length / TpccScale.DISTRICTS;
    }

    /** New-Orders since the last repair in district {@code d} (1-based) of warehouse {@code w} (1-based). */
    public long newOrdersSince(int w, int d) {
        return newOrdersSince[(w - 1) * TpccScale.DISTRICTS + d - 1];
    }

    /**
     * One line: the New-Orders committed here after the last repair, and in how many of the districts this
     * process's terminals served during the run.
     */
    public String line() {
        int served = 0;
        int going = 0;
        for (int i = 0; i < newOrdersSince.length; i++) {
            if (newOrdersAll[i] > 0) {
                served++;
                going += newOrdersSince[i] > 0 ? 1 : 0;
            }
        }
        return String.format(Locale.ROOT, "after the repair of compute node(s) %s: this process's terminals committed"
            + " %,d New-Orders, in %d of the %d districts they served", repairedNodes, newOrders(), going, served);
    }
}
