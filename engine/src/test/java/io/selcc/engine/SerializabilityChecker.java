package io.selcc.engine;

import io.selcc.testkit.Graphs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the conflict graph of committed transactions and checks it is acyclic. Each row holds the id
 * of the transaction that wrote it last (0 = initial); a transaction records the ids it read and, for
 * each write, the id it overwrote. Edges: ww (previous writer -> writer), wr (writer -> reader) and
 * rw (reader -> the transaction that overwrote what it read).
 */
public final class SerializabilityChecker {
    /** One committed transaction. */
    public record Committed(long id, List<long[]> reads, List<long[]> writes) {
        // reads: {key, versionSeen}; writes: {key, versionOverwritten}
    }

    private SerializabilityChecker() {
    }

    /** Throws AssertionError naming the problem when the history is not conflict-serializable. */
    public static void check(List<Committed> history) {
        Map<Long, Integer> index = new HashMap<>();
        index.put(0L, 0); // the initial state
        for (Committed t : history) {
            if (index.put(t.id(), index.size()) != null) {
                throw new AssertionError("transaction id used twice: " + t.id());
            }
        }
        int n = index.size();
        List<List<Integer>> edges = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            edges.add(new ArrayList<>());
        }
        Map<String, Long> overwriter = new HashMap<>();
        for (Committed t : history) {
            for (long[] w : t.writes()) {
                Long other = overwriter.put(w[0] + "/" + w[1], t.id());
                if (other != null) {
                    throw new AssertionError("lost update: transactions " + other + " and " + t.id()
                        + " both overwrote version " + w[1] + " of key " + w[0]);
                }
                edges.get(node(index, w[1])).add(index.get(t.id()));
            }
        }
        for (Committed t : history) {
            int self = index.get(t.id());
            for (long[] r : t.reads()) {
                edges.get(node(index, r[1])).add(self);
                Long next = overwriter.get(r[0] + "/" + r[1]);
                if (next != null && next != t.id()) {
                    edges.get(self).add(index.get(next));
                }
            }
        }
        if (!Graphs.isAcyclic(edges)) {
            throw new AssertionError("not serializable: the conflict graph of " + history.size()
                + " committed transactions has a cycle");
        }
    }

    private static int node(Map<Long, Integer> index, long version) {
        Integer at = index.get(version);
        if (at == null) {
            throw new AssertionError("read or overwrote version " + version + " that no committed transaction wrote");
        }
        return at;
    }
}
