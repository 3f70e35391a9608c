package io.selcc.engine;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link SortedLongMap} against a {@link TreeMap} under random puts, replacements and removals, mostly
 * ascending as a transaction's inserts are. Shown to fail with the append shortcut taken for a key equal
 * to the last one (the key then appears twice).
 */
class SortedLongMapTest {
    @Test
    void behavesAsATreeMap() {
        long seed = System.nanoTime();
        System.out.println("SortedLongMapTest seed=" + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 200; round++) {
            SortedLongMap map = new SortedLongMap();
            TreeMap<Long, Long> model = new TreeMap<>();
            long next = random.nextLong(1_000);
            for (int op = 0; op < 300; op++) {
                int kind = random.nextInt(10);
                long key = kind < 5 ? next++ : random.nextLong(next + 2) - 1; // ascending, or anywhere (incl. the last)
                if (kind < 8) {
                    long value = 1 + random.nextLong(1_000_000);
                    map.put(key, value);
                    model.put(key, value);
                } else {
                    assertEquals(model.remove(key) != null, map.remove(key), "remove " + key);
                }
                long probe = random.nextLong(next + 2) - 1;
                assertEquals(model.getOrDefault(probe, -7L), map.get(probe, -7L), "get " + probe);
                assertEquals(model.containsKey(probe), map.containsKey(probe));
                Long ceiling = model.ceilingKey(probe);
                int at = map.lowerBound(probe);
                assertEquals(ceiling == null ? map.size() : model.headMap(ceiling).size(), at, "lowerBound " + probe);
            }
            assertEquals(model.size(), map.size());
            int i = 0;
            for (Map.Entry<Long, Long> e : model.entrySet()) {
                assertEquals(e.getKey(), map.keyAt(i));
                assertEquals(e.getValue(), map.valueAt(i));
                i++;
            }
        }
    }
}
