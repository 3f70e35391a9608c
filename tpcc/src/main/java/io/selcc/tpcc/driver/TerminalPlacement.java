package io.selcc.tpcc.driver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Where a run's terminals sit: each warehouse has {@code terminalsPerWarehouse} terminals (the spec's 10
 * per warehouse, clause 4.2.2), each with its home warehouse and a home district, and each runs on one
 * compute node.
 *
 * <pre>
 *   HOME   compute node n is home to the warehouses w with (w-1) mod N = n (partitioned mode owns the
 *          same ones): all terminals of w run on that node. With fewer warehouses than nodes, the
 *          nodes n with n mod W = w-1 share w's terminals, dealt in turn.
 *   SPREAD terminal k of warehouse w runs on node (k + w - 1) mod N: every warehouse's terminals are
 *          dealt over all nodes (the placement before issue 27; for experiments).
 *   terminal k of a warehouse: home district k mod 10 + 1
 * </pre>
 *
 * Terminals are numbered by node, then warehouse, then k: a node's terminals are consecutive, so the
 * per-terminal figures of processes that each run one node line up when merged in node order.
 */
public final class TerminalPlacement {
    /** How a warehouse's terminals are spread over compute nodes. */
    public enum Placement {
        /** A warehouse's terminals on its home node (as few nodes as the run allows). */
        HOME,
        /** A warehouse's terminals dealt over every compute node. */
        SPREAD;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One terminal: its number, the compute node it runs on, its home warehouse and district. */
    public record Terminal(int index, int node, int homeWarehouse, int homeDistrict) {
    }

    private final List<Terminal> terminals;
    private final int[] perNode;

    private TerminalPlacement(List<Terminal> terminals, int nodes) {
        this.terminals = terminals;
        this.perNode = new int[nodes];
        for (Terminal t : terminals) {
            perNode[t.node()]++;
        }
    }

    /** The terminals of a run with these parameters, numbered by node, warehouse and position. */
    public static TerminalPlacement of(int warehouses, int terminalsPerWarehouse, int computeNodes, Placement placement) {
        if (warehouses < 1 || terminalsPerWarehouse < 1 || computeNodes < 1) {
            throw new IllegalArgumentException("warehouses, terminals per warehouse and compute nodes must be >= 1:"
                + " warehouses=" + warehouses + " terminalsPerWarehouse=" + terminalsPerWarehouse
                + " computeNodes=" + computeNodes);
        }
        List<int[]> unnumbered = new ArrayList<>(); // {node, w, k}
        for (int w = 1; w <= warehouses; w++) {
            for (int k = 0; k < terminalsPerWarehouse; k++) {
                unnumbered.add(new int[] {nodeOf(w, k, warehouses, computeNodes, placement), w, k});
            }
        }
        unnumbered.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0])
            : a[1] != b[1] ? Integer.compare(a[1], b[1]) : Integer.compare(a[2], b[2]));
        List<Terminal> terminals = new ArrayList<>(unnumbered.size());
        for (int[] t : unnumbered) {
            terminals.add(new Terminal(terminals.size(), t[0], t[1], t[2] % 10 + 1));
        }
        return new TerminalPlacement(Collections.unmodifiableList(terminals), computeNodes);
    }

    private static int nodeOf(int w, int k, int warehouses, int nodes, Placement placement) {
        if (placement == Placement.SPREAD) {
            return (k + w - 1) % nodes;
        }
        if (warehouses >= nodes) {
            return (w - 1) % nodes;
        }
        // Nodes w-1, w-1+W, w-1+2W, ... share warehouse w.
        int sharing = (nodes - w) / warehouses + 1;
        return w - 1 + warehouses * (k % sharing);
    }

    /** Every terminal, in number order. */
    public List<Terminal> terminals() {
        return terminals;
    }

    /** Terminals that run on compute node {@code node}. */
    public int terminalsOn(int node) {
        return perNode[node];
    }

    /** The most terminals any one compute node runs (its local concurrency). */
    public int busiestNode() {
        int most = 0;
        for (int n : perNode) {
            most = Math.max(most, n);
        }
        return most;
    }

    /** Terminals per compute node, by node id (for reports). */
    public int[] perNode() {
        return perNode.clone();
    }
}
