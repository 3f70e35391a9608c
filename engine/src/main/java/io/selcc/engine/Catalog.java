package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.cache.GclLayout;

import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;

/**
 * Finds or creates named roots in the catalog ({@link CatalogLayout}). A node opening the database
 * holds the catalog root's X latch for the whole open, so two nodes opening at once never create the
 * same table twice.
 */
final class Catalog implements AutoCloseable {
    private final ComputeNode node;
    private final GclHandle root;

    private Catalog(ComputeNode node, GclHandle root) {
        this.node = node;
        this.root = root;
    }

    /** Latches the catalog root exclusively, creating the catalog on first use. */
    static Catalog open(ComputeNode node) {
        GclHandle root = node.xLock(node.catalogRoot());
        if (root.getInt(CatalogLayout.MAGIC_OFFSET) == 0) {
            try {
                long counters = node.allocate();
                long durability = node.allocate();
                root.putInt(CatalogLayout.MAGIC_OFFSET, CatalogLayout.MAGIC);
                root.putLong(CatalogLayout.COUNTERS_OFFSET, counters);
                root.putLong(CatalogLayout.DURABILITY_OFFSET, durability);
            } catch (RuntimeException e) {
                node.unlock(root);
                throw e;
            }
        } else if (root.getInt(CatalogLayout.MAGIC_OFFSET) != CatalogLayout.MAGIC) {
            node.unlock(root);
            throw new IllegalStateException("catalog root holds something else: magic=0x"
                + Integer.toHexString(root.getInt(CatalogLayout.MAGIC_OFFSET)));
        }
        return new Catalog(node, root);
    }

    /** Global address of a word in the counters GCL. */
    long counterWord(int offset) {
        return root.getLong(CatalogLayout.COUNTERS_OFFSET) + GclLayout.DATA_OFFSET + offset;
    }

    /** Global address of compute node 0's word in the durability GCL (node n's is 8n further). */
    long durabilityWords() {
        return root.getLong(CatalogLayout.DURABILITY_OFFSET) + GclLayout.DATA_OFFSET;
    }

    /** The root registered under (kind, name), creating and registering it with {@code create} if absent. */
    long findOrCreate(byte kind, String name, LongSupplier create) {
        byte[] nameBytes = name.getBytes(StandardCharsets.ISO_8859_1);
        if (nameBytes.length == 0 || nameBytes.length > CatalogLayout.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("catalog names must have 1 to " + CatalogLayout.MAX_NAME_LENGTH
                + " characters: name=" + name);
        }
        GclHandle current = root;
        try {
            while (true) {
                long found = find(current, kind, nameBytes);
                if (found != 0) {
                    return found;
                }
                long next = current.getLong(CatalogLayout.NEXT_OFFSET);
                if (next == 0) {
                    break;
                }
                GclHandle nextPage = node.xLock(next);
                releaseUnlessRoot(current);
                current = nextPage;
            }
            int count = current.getInt(CatalogLayout.COUNT_OFFSET);
            if (count == CatalogLayout.capacity(current.dataSize())) {
                long extension = node.allocate();
                current.putLong(CatalogLayout.NEXT_OFFSET, extension);
                GclHandle fresh = node.xLock(extension);
                fresh.putInt(CatalogLayout.MAGIC_OFFSET, CatalogLayout.MAGIC);
                releaseUnlessRoot(current);
                current = fresh;
                count = 0;
            }
            long created = create.getAsLong();
            int at = CatalogLayout.entryOffset(count);
            current.putByte(at + CatalogLayout.ENTRY_KIND, kind);
            current.putByte(at + CatalogLayout.ENTRY_NAME_LENGTH, (byte) nameBytes.length);
            current.putBytes(at + CatalogLayout.ENTRY_NAME, nameBytes, 0, nameBytes.length);
            current.putLong(at + CatalogLayout.ENTRY_ROOT, created);
            current.putInt(CatalogLayout.COUNT_OFFSET, count + 1);
            return created;
        } finally {
            releaseUnlessRoot(current);
        }
    }

    private void releaseUnlessRoot(GclHandle page) {
        if (page != root) {
            node.unlock(page);
        }
    }

    private static long find(GclHandle page, byte kind, byte[] name) {
        int count = page.getInt(CatalogLayout.COUNT_OFFSET);
        byte[] candidate = new byte[CatalogLayout.MAX_NAME_LENGTH];
        for (int i = 0; i < count; i++) {
            int at = CatalogLayout.entryOffset(i);
            if (page.getByte(at + CatalogLayout.ENTRY_KIND) != kind
                || page.getByte(at + CatalogLayout.ENTRY_NAME_LENGTH) != name.length) {
                continue;
            }
            page.getBytes(at + CatalogLayout.ENTRY_NAME, candidate, 0, name.length);
            if (java.util.Arrays.equals(candidate, 0, name.length, name, 0, name.length)) {
                return page.getLong(at + CatalogLayout.ENTRY_ROOT);
            }
        }
        return 0;
    }

    @Override
    public void close() {
        node.unlock(root);
    }
}
