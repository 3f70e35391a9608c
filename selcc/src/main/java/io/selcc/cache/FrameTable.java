package io.selcc.cache;

/**
 * The frames in use, in shards: the {@link FrameDirectory} says which frame caches a GCL, and each
 * shard's lock guards the directory slots of its addresses.
 *
 * <p>Replacement is CLOCK (second chance), not LRU: a hit only sets the reference bit in the frame's
 * header, and the evictor's hand ({@link Evictor}) walks the frames by index, clearing a set bit instead
 * of taking the frame. Relinking an LRU list on every hit cost about a tenth of a TPC-C run's CPU; a
 * CLOCK list that relinked a second-chanced frame to its head cost the eviction worker a quarter of its
 * time (pointer chasing through frame objects), where the hand reads header words in order.
 */
final class FrameTable {
    /** A lookup's answer when the address is not cached. */
    static final int ABSENT = FrameDirectory.ABSENT;
    private final Shard[] shards;
    private final int mask;
    private final FrameDirectory directory;

    FrameTable(int shardCount, CacheFrame[] frames, FrameDirectory directory) {
        int n = Integer.highestOneBit(Math.max(1, shardCount - 1) << 1);
        shards = new Shard[n];
        mask = n - 1;
        this.directory = directory;
        for (int i = 0; i < n; i++) {
            shards[i] = new Shard(frames, directory);
        }
    }

    Shard shard(long address) {
        long h = address * 0x9E3779B97F4A7C15L;
        return shards[(int) (h >>> 40) & mask];
    }

    /**
     * The index of the frame of {@code address}, or {@link #ABSENT}: read without the shard's lock, so
     * a hint, which the caller checks against the frame's tag (identity changes only under the frame's
     * X latch). The shard monitor on every hit was a fifth of a TPC-C run's CPU.
     */
    int indexOf(long address) {
        return directory.get(address);
    }

    /** The index of the frame of {@code address}, or {@link #ABSENT}, looked up under the shard's lock. */
    int lockedIndexOf(long address) {
        Shard shard = shard(address);
        synchronized (shard) {
            return shard.get(address);
        }
    }

    /** The frame of {@code address}, or null (the locked lookup). */
    CacheFrame get(long address) {
        Shard shard = shard(address);
        synchronized (shard) {
            int index = shard.get(address);
            return index == ABSENT ? null : shard.frames[index];
        }
    }

    static final class Shard {
        private final FrameDirectory directory;
        private final CacheFrame[] frames;

        Shard(CacheFrame[] frames, FrameDirectory directory) {
            this.frames = frames;
            this.directory = directory;
        }

        /** Exact under this shard's lock. */
        int get(long key) {
            return directory.get(key);
        }

        /** Inserts a frame for a key that is absent; its reference bit starts clear. */
        void insert(long key, CacheFrame frame) {
            directory.put(key, frame.index);
            frame.referenced(false);
        }

        /** Removes the key's directory slot. */
        void remove(long key) {
            if (directory.get(key) != ABSENT) {
                directory.remove(key);
            }
        }
    }
}
