package io.selcc.engine.cc.kit;

import io.selcc.storage.HeapTable;

import java.util.Arrays;

/**
 * The rows a transaction read, by record id, each with its table, the row's version and its slot's
 * incarnation when first read (a reused slot holds another row): what OCC validates at commit and
 * no-wait 2PL re-checks when it upgrades a shared page. Kept in primitive arrays beside a
 * {@link LongMap} of dense positions and reused by the thread's next transaction, so recording a
 * read allocates nothing once the arrays fit the thread's largest transaction (issue 8: a record
 * per read was most of a cached read's allocation). Entries are never removed. Not thread-safe.
 */
public final class ReadSet {
    private final LongMap<HeapTable> tables = new LongMap<>(16);
    private long[] versions = new long[16];
    private int[] incarnations = new int[16];

    public int size() {
        return tables.size();
    }

    /** Position of {@code rid}'s entry, or -1 if this transaction has not read it. */
    public int indexOf(long rid) {
        return tables.indexOf(rid);
    }

    /** Records the first read of {@code rid}, which must be absent. */
    public void add(long rid, HeapTable table, long version, int incarnation) {
        int at = tables.size();
        if (tables.putIfAbsent(rid, table) != null) {
            throw new IllegalStateException("read of rid " + rid + " recorded twice");
        }
        if (at == versions.length) {
            versions = Arrays.copyOf(versions, at * 2);
            incarnations = Arrays.copyOf(incarnations, at * 2);
        }
        versions[at] = version;
        incarnations[at] = incarnation;
    }

    public long rid(int i) {
        return tables.keyAt(i);
    }

    public HeapTable table(int i) {
        return tables.valueAt(i);
    }

    /** True when the row at position {@code i} still has the version and incarnation first read. */
    public boolean unchanged(int i, long version, int incarnation) {
        return versions[i] == version && incarnations[i] == incarnation;
    }

    /** Forgets every read; keeps the arrays. */
    public void clear() {
        tables.clear();
    }
}
