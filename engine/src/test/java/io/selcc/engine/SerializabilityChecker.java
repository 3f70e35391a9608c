package io.selcc.engine;

import io.selcc.testkit.Graphs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the conflict graph of committed transactions and checks it is acyclic. A version of a key is
 * named by the id of the transaction that wrote it (0 = initial); a delete writes an absent version,
 * named by the deleter. A transaction records, per key it read, the version it saw, and per key it
 * wrote, the version it overwrote. Edges: ww (previous writer -> writer), wr (writer -> reader) and rw
 * (reader -> the transaction that overwrote what it read).
 *
 * <p>Predicate reads (scans, lookups that found nothing) are reads too: a reader records every key of
 * the predicate's range, {@link #ABSENT} for those it did not see. The checker resolves an absence to
 * the key's one absent version, which the workload must make unique: a key is either initially absent
 * and inserted at most once, or initially present and deleted at most once (never both). So a scan that
 * missed a committed insert gets an rw edge to the inserter, one that saw a delete a wr edge from it.
 */
public final class SerializabilityChecker {
    /** A read that found no row for the key. */
    public static final long ABSENT = -1;

    /** One committed transaction. */
    public record Committed(long id, List<long[]> reads, List<long[]> writes) {
        // reads: {key, versionSeen or ABSENT}; writes: {key, versionOverwritten, 1 if a delete else 0}
    }

    private SerializabilityChecker() {
    }

    /** {@link #check(List, Set)} where every key read or written existed initially (no absences). */
    public static void check(List<Committed> history) {
        check(history, null);
    }

    /**
     * Throws AssertionError naming the problem when the history is not conflict-serializable.
     *
     * @param initiallyAbsent keys with no row at the start (their initial version 0 is an absence);
     *                        null if every key existed
     */
    public static void check(List<Committed> history, Set<Long> initiallyAbsent) {
        Map<Long, Integer> index = new HashMap<>();
        index.put(0L, 0); // the initial state
        for (Committed t : history) {
            if (t.id() <= 0 || index.put(t.id(), index.size()) != null) {
                throw new AssertionError("transaction id used twice (or not positive): " + t.id());
            }
        }
        int n = index.size();
        List<List<Integer>> edges = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            edges.add(new ArrayList<>());
        }
        Map<String, Long> overwriter = new HashMap<>();
        Map<Long, Long> deleter = new HashMap<>();
        for (Committed t : history) {
            for (long[] w : t.writes()) {
                Long other = overwriter.put(w[0] + "/" + w[1], t.id());
                if (other != null) {
                    throw new AssertionError("lost update: transactions " + other + " and " + t.id()
                        + " both overwrote version " + w[1] + " of key " + w[0]);
                }
                if (w.length > 2 && w[2] == 1 && deleter.put(w[0], t.id()) != null) {
                    throw new AssertionError("key " + w[0] + " deleted twice; the workload deletes a key once");
                }
                edges.get(node(index, w[1])).add(index.get(t.id()));
            }
        }
        for (Committed t : history) {
            int self = index.get(t.id());
            for (long[] r : t.reads()) {
                long key = r[0];
                long version = r[1];
                boolean absentAtStart = initiallyAbsent != null && initiallyAbsent.contains(key);
                if (version == ABSENT) {
                    Long deletedBy = deleter.get(key);
                    if (deletedBy != null) {
                        version = deletedBy;
                    } else if (absentAtStart) {
                        version = 0;
                    } else {
                        throw new AssertionError("transaction " + t.id() + " found no row for key " + key
                            + ", which existed and no committed transaction deleted");
                    }
                } else if (version == 0 && absentAtStart) {
                    throw new AssertionError("transaction " + t.id() + " read an initial row of key " + key
                        + ", which did not exist initially");
                }
                edges.get(node(index, version)).add(self);
                Long next = overwriter.get(key + "/" + version);
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
            throw new AssertionError("read or overwrote version " + version + " that no committed transaction wrote"
                + " (a write of an aborted attempt?)");
        }
        return at;
    }
}
