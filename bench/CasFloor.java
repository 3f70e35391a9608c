import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What two uncontended atomic read-modify-writes on one word cost on this machine, outside the engine:
 * the floor under a cached S latch and its unlatch (HitPathBenchmark), which take one each. Loops 50
 * million times over a long[] element: a CAS up and a CAS back, then a CAS up and a fetch-and-add back;
 * prints nanoseconds per pair for six rounds (the first ones warm the JIT up).
 *
 *   java bench/CasFloor.java
 */
public class CasFloor {
    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int PAIRS = 50_000_000;
    private static final long[] TABLE = new long[64];
    private static long sink;

    public static void main(String[] args) {
        for (int round = 0; round < 6; round++) {
            long t0 = System.nanoTime();
            sink += casThenCas();
            long t1 = System.nanoTime();
            sink += casThenAdd();
            long t2 = System.nanoTime();
            System.out.printf("cas+cas %.2f ns  cas+faa %.2f ns%n", (t1 - t0) / (double) PAIRS, (t2 - t1) / (double) PAIRS);
        }
        System.out.println("checksum " + sink); // keeps the loops from being optimised away
    }

    private static long casThenCas() {
        long seen = 0;
        for (int i = 0; i < PAIRS; i++) {
            long word = (long) WORD.getVolatile(TABLE, 8);
            if (WORD.compareAndSet(TABLE, 8, word, word + 1)) {
                seen += TABLE[9];
                long again = (long) WORD.getVolatile(TABLE, 8);
                WORD.compareAndSet(TABLE, 8, again, again - 1);
            }
        }
        return seen;
    }

    private static long casThenAdd() {
        long seen = 0;
        for (int i = 0; i < PAIRS; i++) {
            long word = (long) WORD.getVolatile(TABLE, 8);
            if (WORD.compareAndSet(TABLE, 8, word, word + 1)) {
                seen += TABLE[9];
                WORD.getAndAdd(TABLE, 8, -1L);
            }
        }
        return seen;
    }
}
