package io.selcc.cache;

/**
 * The sharded hash table of cache frames with one replacement list per shard. Each shard is an
 * open-addressing map from GCL address to frame index (primitive arrays: a lookup reads two of them
 * and no frame object) guarded by the shard's monitor.
 *
 * <p>Replacement is CLOCK (second chance), not LRU: a hit only sets the frame's reference bit, and
 * the evictor, walking from the tail, moves a referenced frame to the head (clearing the bit) instead
 * of taking it. Relinking an LRU list on every hit cost about a tenth of a TPC-C run's CPU.
 */
final class FrameTable {
    /** A lookup's answer when the address is not cached. */
    static final int ABSENT = -1;
    private final Shard[] shards;
    private final int mask;

    FrameTable(int shardCount, CacheFrame[] frames) {
        int n = Integer.highestOneBit(Math.max(1, shardCount - 1) << 1);
        shards = new Shard[n];
        mask = n - 1;
        int perShard = Math.max(16, frames.length / n * 2);
        for (int i = 0; i < n; i++) {
            shards[i] = new Shard(perShard, frames);
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
     * The index of the frame of {@code address}, or {@link #ABSENT}; a hint (see below), which the caller
     * checks against the frame's tag. The lookup first probes without the
     * shard's lock: the caller latches the frame and re-checks its tag anyway (identity changes only
     * under the frame's X latch), so a racy hit that turned stale costs a retry, and a racy miss falls
     * back to the locked lookup. The shard monitor on every hit was a fifth of a TPC-C run's CPU.
     */
    int indexOf(long address) {
        Shard shard = shard(address);
        int index = shard.getRacy(address);
        if (index == ABSENT) {
            synchronized (shard) {
                index = shard.get(address);
            }
        }
        return index;
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
        private long[] keys;
        /** Frame indexes, valid where the key is not {@link CacheFrame#NO_ADDRESS}. */
        private int[] values;
        private int size;
        private final CacheFrame[] frames;
        // Replacement list: new and second-chance frames at the head, eviction candidates at the tail.
        CacheFrame head;
        CacheFrame tail;

        Shard(int capacity, CacheFrame[] frames) {
            int n = Integer.highestOneBit(Math.max(16, capacity - 1) << 1);
            keys = new long[n];
            values = new int[n];
            this.frames = frames;
        }

        /**
         * A lookup without the lock: may miss a present key or return a frame that no longer (or not
         * yet) caches it, never loops for ever (the table is at most half full, and the probe is bounded).
         */
        int getRacy(long key) {
            long[] k = keys;
            int[] v = values;
            int n = k.length;
            if (v.length != n) {
                return ABSENT; // read across a rehash
            }
            int m = n - 1;
            int i = slot(key, m);
            for (int probes = 0; probes < n; probes++, i = (i + 1) & m) {
                long found = k[i];
                if (found == key) {
                    return v[i];
                }
                if (found == CacheFrame.NO_ADDRESS) {
                    return ABSENT;
                }
            }
            return ABSENT;
        }

        int get(long key) {
            int m = keys.length - 1;
            for (int i = slot(key, m); ; i = (i + 1) & m) {
                long k = keys[i];
                if (k == key) {
                    return values[i];
                }
                if (k == CacheFrame.NO_ADDRESS) {
                    return ABSENT;
                }
            }
        }

        /** Inserts a frame for a key that is absent, at the head of the LRU. */
        void insert(long key, CacheFrame frame) {
            if ((size + 1) * 2 > keys.length) {
                rehash(keys.length * 2);
            }
            int m = keys.length - 1;
            int i = slot(key, m);
            while (keys[i] != CacheFrame.NO_ADDRESS) {
                i = (i + 1) & m;
            }
            keys[i] = key;
            values[i] = frame.index;
            size++;
            frame.referenced(false);
            linkHead(frame);
        }

        /** Removes the key (backward-shift deletion) and unlinks its frame from the LRU. */
        void remove(long key) {
            int m = keys.length - 1;
            int i = slot(key, m);
            while (keys[i] != key) {
                if (keys[i] == CacheFrame.NO_ADDRESS) {
                    return;
                }
                i = (i + 1) & m;
            }
            unlink(frames[values[i]]);
            keys[i] = CacheFrame.NO_ADDRESS;
            size--;
            for (int j = (i + 1) & m; keys[j] != CacheFrame.NO_ADDRESS; j = (j + 1) & m) {
                int home = slot(keys[j], m);
                // Move keys[j] back into the hole at i if its home is not in (i, j].
                if (((j - home) & m) >= ((j - i) & m)) {
                    keys[i] = keys[j];
                    values[i] = values[j];
                    keys[j] = CacheFrame.NO_ADDRESS;
                    i = j;
                }
            }
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

        private void rehash(int capacity) {
            long[] oldKeys = keys;
            int[] oldValues = values;
            keys = new long[capacity];
            values = new int[capacity];
            int m = capacity - 1;
            for (int j = 0; j < oldKeys.length; j++) {
                if (oldKeys[j] != CacheFrame.NO_ADDRESS) {
                    int i = slot(oldKeys[j], m);
                    while (keys[i] != CacheFrame.NO_ADDRESS) {
                        i = (i + 1) & m;
                    }
                    keys[i] = oldKeys[j];
                    values[i] = oldValues[j];
                }
            }
        }

        private static int slot(long key, int mask) {
            long h = key * 0xC2B2AE3D27D4EB4FL;
            return (int) (h ^ (h >>> 31)) & mask;
        }
    }
}
