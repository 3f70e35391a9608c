package io.selcc.cli.micro;

import io.selcc.cache.SelccCluster;
import io.selcc.threads.EngineThread;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The allocated GCLs and who may access which. Index layout over all {@code gcls}:
 *
 * <pre>
 * [0, shared)                          shared by every compute node
 * [shared + p*perNode, +perNode)       private partition of compute node p, for p in [0, N)
 * [shared + N*perNode, gcls)           fewer than N left-overs: allocated, never accessed
 * </pre>
 *
 * Every node sees the same number of GCLs ({@link #accessible()}), so all nodes share one Zipf
 * generator and one scramble, and a hot shared GCL is equally hot on every node. Accessible index
 * {@code i} of node {@code p} is shared GCL {@code i} below {@code shared}, else GCL
 * {@code i - shared} of p's partition.
 */
final class GclSpace {
    private static final int PERCENT = 100;

    private final long[] addresses;
    private final int shared;
    private final int privatePerNode;

    private GclSpace(int gcls, int shared, int privatePerNode) {
        this.addresses = new long[gcls];
        this.shared = shared;
        this.privatePerNode = privatePerNode;
    }

    /** The layout for {@code sharingPercent}% shared GCLs (rounded down) and the rest split evenly. */
    static GclSpace plan(int gcls, int sharingPercent, int computeNodes) {
        int shared = (int) ((long) gcls * sharingPercent / PERCENT);
        int perNode = (gcls - shared) / computeNodes;
        return new GclSpace(gcls, shared, perNode);
    }

    int gcls() {
        return addresses.length;
    }

    /** Every GCL's address, by index (what the other processes of a run need). */
    long[] addresses() {
        return addresses.clone();
    }

    /** Takes the addresses another process allocated (same plan). */
    void adopt(long[] allocated) {
        if (allocated.length != addresses.length) {
            throw new IllegalArgumentException("allocated " + allocated.length + " GCLs, the plan has " + addresses.length);
        }
        System.arraycopy(allocated, 0, addresses, 0, allocated.length);
    }

    int shared() {
        return shared;
    }

    int privatePerNode() {
        return privatePerNode;
    }

    /** GCLs one compute node may access. */
    int accessible() {
        return shared + privatePerNode;
    }

    /** Global address of accessible index {@code index} (in [0, accessible())) of compute node {@code node}. */
    long address(int node, int index) {
        return index < shared ? addresses[index] : addresses[shared + node * privatePerNode + (index - shared)];
    }

    /**
     * Allocates every GCL, GCL {@code i} by compute node {@code i % N} so allocation round trips and
     * initial ownership are spread over the nodes. One thread per compute node, as allocation is a
     * round trip per chunk plus a latch per GCL; returns once all are allocated.
     */
    void allocate(SelccCluster cluster) throws InterruptedException {
        int nodes = cluster.computeNodeCount();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        // A node in another process cannot allocate here: the first node of this process takes its share.
        int stand = cluster.liveNode();
        for (int p = 0; p < nodes; p++) {
            if (!cluster.hosts(p)) {
                continue;
            }
            int node = p;
            threads.add(EngineThread.start("micro-alloc-" + node, true, () -> {
                try {
                    for (int i = 0; i < addresses.length; i++) {
                        int owner = cluster.hosts(i % nodes) ? i % nodes : stand;
                        if (owner == node) {
                            addresses[i] = cluster.node(node).allocate();
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join(); // also publishes each thread's slots of addresses to the caller
        }
        if (failure.get() != null) {
            throw new IllegalStateException("allocation failed: gcls=" + addresses.length, failure.get());
        }
    }
}
