package io.selcc.engine.cc.kit;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LongMap against HashMap under random operations on GCL-aligned keys (the low bits that made
 * HashMap's bins collide), with clears in between so arrays are reused. Shown failing with the
 * backward shift of {@code deleteSlot} removed (a key behind a removed one is no longer found) and with
 * the moved last entry's table slot left stale.
 */
class LongMapTest {
    @Test
    void behavesLikeAHashMapOnAlignedKeys() {
        long seed = Long.getLong("selcc.longmap.seed", System.nanoTime());
        System.out.println("LongMapTest seed " + seed + " (replay: -Dselcc.longmap.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        LongMap<Long> map = new LongMap<>(2);
        Map<Long, Long> model = new HashMap<>();
        int removals = 0;
        for (int op = 0; op < 200_000; op++) {
            long key = (random.nextLong(64) << 11) | (random.nextBoolean() ? 0 : random.nextInt(4)); // pages and slots
            int kind = random.nextInt(100);
            if (kind < 45) {
                assertEquals(model.put(key, (long) op), map.put(key, (long) op), "put " + key + " seed " + seed);
            } else if (kind < 55) {
                assertEquals(model.putIfAbsent(key, (long) op), map.putIfAbsent(key, (long) op), "putIfAbsent seed " + seed);
            } else if (kind < 85) {
                Long expected = model.remove(key);
                removals += expected != null ? 1 : 0;
                assertEquals(expected, map.remove(key), "remove " + key + " seed " + seed);
            } else if (kind < 99) {
                assertEquals(model.get(key), map.get(key), "get " + key + " seed " + seed);
                assertEquals(model.containsKey(key), map.containsKey(key));
            } else {
                model.clear();
                map.clear();
            }
            assertEquals(model.size(), map.size(), "size seed " + seed);
            if (op % 997 == 0) {
                Map<Long, Long> seen = new HashMap<>();
                for (int i = 0; i < map.size(); i++) {
                    assertEquals(null, seen.put(map.keyAt(i), map.valueAt(i)), "a key twice in the entries");
                }
                assertEquals(model, seen, "entries seed " + seed);
            }
        }
        assertTrue(removals > 10_000, "removals of present keys happened: " + removals);
    }

    @Test
    void keepsInsertionOrderWithoutRemovalsAndIsEmptyAfterClear() {
        LongMap<String> map = new LongMap<>();
        for (int i = 0; i < 100; i++) {
            map.put((long) i << 11, "v" + i);
        }
        for (int i = 0; i < 100; i++) {
            assertEquals((long) i << 11, map.keyAt(i));
            assertEquals("v" + i, map.valueAt(i));
        }
        map.clear();
        assertTrue(map.isEmpty());
        assertFalse(map.containsKey(5L << 11));
        map.put(7, "x");
        assertEquals("x", map.get(7));
        assertEquals(1, map.size());
    }
}
