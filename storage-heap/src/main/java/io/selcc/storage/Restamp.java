package io.selcc.storage;

/**
 * How a crash repair stamps what it restores on a crashed compute node's lines, whose copies in memory
 * may carry older stamps than the lost cache did: the algorithm decides, because its stamps mean
 * different things (a change count for 2PL and OCC, a timestamp for TO).
 */
public interface Restamp {
    /** A restored tuple's version (a slot a logged change or the repair's base rewrote), from memory's. */
    long version(long memoryVersion);

    /**
     * A timestamp field of a lost line (a tuple's read timestamp; a rebuilt leaf's read and write
     * timestamps), from memory's: the lost cache may have raised it.
     */
    long timestamp(long memoryTimestamp);

    /**
     * Whether write intents on a lost line stay. An algorithm that marks them by owner (TO: the read
     * timestamp) and has its stamps raised here clears them: the owner, if alive, finds its intent gone
     * at commit and aborts.
     */
    boolean keepsIntents();

    /**
     * For algorithms whose version is a change count (2PL, OCC): a jump of 2^32 (memory's version may be
     * below what the crashed cache reached, and +1 could repeat a version some transaction saw for other
     * contents and pass its validation; 2^32 changes of one row between two write-backs do not happen);
     * timestamps unused, intents kept.
     */
    Restamp CHANGE_COUNT = new Restamp() {
        @Override
        public long version(long memoryVersion) {
            return memoryVersion + (1L << 32);
        }

        @Override
        public long timestamp(long memoryTimestamp) {
            return memoryTimestamp;
        }

        @Override
        public boolean keepsIntents() {
            return true;
        }
    };
}
