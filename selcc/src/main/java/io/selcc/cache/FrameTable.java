package io.selcc.cache;

/**
 * The frames in use, in shards: the {@link FrameDirectory} says which frame caches a GCL, and each
 * shard guards the directory slots of its addresses and keeps one replacement list.
 *
 * <p>Replacement is CLOCK (second chance), not LRU: a hit only sets the frame's reference bit, and
 * the evictor, walking from the tail, moves a referenced frame to the head (clearing the bit) instead
 * of taking it. Relinking an LRU list on every hit cost about a tenth of a TPC-C run's CPU.
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

    int shardCount() {
        return shards.length;
    }

    Shard shard(long address) {
        long h = address * 0x9E3779B97F4A7C15L;
        return shards[(int) (h >>> 40) & mask];
    }

    Shard shardAt(int index) {
        return shards[index & mask];
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
        private int size;
        private final CacheFrame[] frames;
        // Replacement list: new and second-chance frames at the head, eviction candidates at the tail.
        CacheFrame head;
        CacheFrame tail;

        Shard(CacheFrame[] frames, FrameDirectory directory) {
            this.frames = frames;
            this.directory = directory;
        }

        /** Exact under this shard's lock. */
        int get(long key) {
            return directory.get(key);
        }

        /** Inserts a frame for a key that is absent, at the head of the LRU. */
        void insert(long key, CacheFrame frame) {
            directory.put(key, frame.index);
            size++;
            frame.referenced(false);
            linkHead(frame);
        }

        /** Removes the key and unlinks its frame from the LRU. */
        void remove(long key) {
            int index = directory.get(key);
            if (index == ABSENT) {
                return;
            }
            directory.remove(key);
            unlink(frames[index]);
            size--;
        }

        /** Gives a referenced frame its second chance: to the head, bit cleared. */
        void secondChance(CacheFrame frame) {
            frame.referenced(false);
            if (head != frame) {
                unlink(frame);
                linkHead(frame);
            }
        }

        int size() {
            return size;
        }

        private void linkHead(CacheFrame frame) {
            frame.lruPrev = null;
            frame.lruNext = head;
            if (head != null) {
                head.lruPrev = frame;
            }
            head = frame;
            if (tail == null) {
                tail = frame;
            }
        }

        private void unlink(CacheFrame frame) {
            if (frame.lruPrev != null) {
                frame.lruPrev.lruNext = frame.lruNext;
            } else if (head == frame) {
                head = frame.lruNext;
            }
            if (frame.lruNext != null) {
                frame.lruNext.lruPrev = frame.lruPrev;
            } else if (tail == frame) {
                tail = frame.lruPrev;
            }
            frame.lruPrev = null;
            frame.lruNext = null;
        }
    }
}
