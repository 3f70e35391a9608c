package io.selcc.bench;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.cache.SelccCluster;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Cache hits spread over many cached lines, as TPC-C's are: one thread, one compute node, every line
 * cached, a random line per operation (a fixed sequence, seed 42). Unlike {@link HitPathBenchmark},
 * whose one line stays in the CPU's L1, this one pays for the memory a hit touches on the way from an
 * address to its bytes (lookup structures, frame state, the line), so it compares lookup designs.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ManyLinesHit}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
public class ManyLinesHitBenchmark {
    private static final int SEQUENCE = 1 << 20;

    /** Cached lines: 100,000 is about the pages of two TPC-C warehouses. */
    @Param({"100000"})
    public int lines;

    private SelccCluster cluster;
    private ComputeNode node;
    private long[] addresses;
    /** Per line its address and the frame it is cached in, side by side (as a record id hint keeps them). */
    private long[] addressesAndFrames;
    private int[] sequence;
    private int next;
    private GclHandle optimistic;

    @Setup(Level.Trial)
    public void setUp() {
        int gclSize = 512;
        cluster = SelccCluster.builder().computeNodes(1).gclSize(gclSize).cacheFrames(lines + 1024)
            .memoryPerNode((long) (lines + 1024) * gclSize * 2).build();
        node = cluster.node(0);
        addresses = new long[lines];
        addressesAndFrames = new long[2 * lines];
        for (int i = 0; i < lines; i++) {
            addresses[i] = node.allocate();
            GclHandle h = node.xLock(addresses[i]);
            h.putLong(0, i);
            addressesAndFrames[2 * i] = addresses[i];
            addressesAndFrames[2 * i + 1] = h.frameIndex();
            node.unlock(h);
        }
        optimistic = node.optimisticHandle();
        SplittableRandom random = new SplittableRandom(42);
        sequence = new int[SEQUENCE];
        for (int i = 0; i < SEQUENCE; i++) {
            sequence[i] = random.nextInt(lines);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        cluster.close();
    }

    /** S latch + read one word + unlatch of a random cached line. */
    @Benchmark
    public long sharedHit() {
        long address = addresses[sequence[next++ & (SEQUENCE - 1)]];
        GclHandle h = node.sLock(address);
        long value = h.getLong(0);
        node.unlock(h);
        return value;
    }

    /**
     * {@link #sharedHit} through {@link ComputeNode#tryLock} with the line's frame as a hint: the hit goes
     * from the hint to the frame's header, without the lookup from address to frame.
     */
    @Benchmark
    public long sharedHitHinted() {
        int at = 2 * sequence[next++ & (SEQUENCE - 1)];
        GclHandle h = node.tryLock(addressesAndFrames[at], false, (int) addressesAndFrames[at + 1]);
        long value = h.getLong(0);
        node.unlock(h);
        return value;
    }

    /** {@link #sharedHitHinted} without the hint (same arrays read): what the hint saves. */
    @Benchmark
    public long sharedHitUnhinted() {
        int at = 2 * sequence[next++ & (SEQUENCE - 1)];
        GclHandle h = node.tryLock(addressesAndFrames[at], false, ComputeNode.NO_FRAME);
        long value = h.getLong(0);
        node.unlock(h);
        return value;
    }

    /** Optimistic read of one word of a random cached line: no latch taken, nothing shared written. */
    @Benchmark
    public long optimisticRead() {
        long address = addresses[sequence[next++ & (SEQUENCE - 1)]];
        if (!node.tryOptimisticRead(address, optimistic)) {
            return -1;
        }
        long value = optimistic.getLong(0);
        return node.validate(optimistic) ? value : -1;
    }
}
