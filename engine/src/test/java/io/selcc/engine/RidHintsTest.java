package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The record id hint table keeps four keys per bucket, most recently stored first, each with its record id
 * and cache frame. Shown failing with one way per bucket (the direct-mapped table this replaced: three of
 * the four sharing keys lost).
 */
class RidHintsTest {
    /** The first {@code count} keys from 1 up that share the bucket of key 1. */
    private static List<Long> keysSharingABucket(Table.RidHints hints, int count) {
        List<Long> keys = new ArrayList<>();
        int bucket = hints.bucket(1);
        for (long key = 1; keys.size() < count; key++) {
            if (hints.bucket(key) == bucket) {
                keys.add(key);
            }
        }
        return keys;
    }

    @Test
    void fourKeysOfOneBucketAreAllKept() {
        Table.RidHints hints = new Table.RidHints();
        List<Long> keys = keysSharingABucket(hints, 4);
        for (long key : keys) {
            hints.remember(key, 1000 + key, (int) key);
        }
        for (long key : keys) {
            assertEquals(1000 + key, hints.get(key), "key " + key + " of " + keys);
            assertEquals((int) key, hints.foundFrame(), "its frame, key " + key);
        }
    }

    @Test
    void aFifthKeyDropsTheLeastRecentlyStored() {
        Table.RidHints hints = new Table.RidHints();
        List<Long> keys = keysSharingABucket(hints, 5);
        for (int i = 0; i < 4; i++) {
            hints.remember(keys.get(i), 1000 + i, i);
        }
        hints.remember(keys.get(0), 2000, 20); // stored again: most recent, with its new record id
        hints.remember(keys.get(4), 1004, 4);
        assertEquals(2000, hints.get(keys.get(0)));
        assertEquals(20, hints.foundFrame(), "the frame stored with it again");
        assertEquals(0, hints.get(keys.get(1)), "the least recently stored key left");
        assertEquals(ComputeNode.NO_FRAME, hints.foundFrame(), "no frame for no hint");
        assertEquals(1002, hints.get(keys.get(2)));
        assertEquals(1003, hints.get(keys.get(3)));
        assertEquals(1004, hints.get(keys.get(4)));
        hints.forget(keys.get(2));
        assertEquals(0, hints.get(keys.get(2)), "forgotten");
        assertEquals(1003, hints.get(keys.get(3)), "its neighbours stay");
        assertEquals(3, hints.foundFrame());
        hints.moved(keys.get(3), 33);
        assertEquals(1003, hints.get(keys.get(3)), "a move keeps the record id");
        assertEquals(33, hints.foundFrame(), "and changes the frame");
        assertEquals(1004, hints.get(keys.get(4)));
        assertEquals(4, hints.foundFrame(), "of that key only");
    }
}
