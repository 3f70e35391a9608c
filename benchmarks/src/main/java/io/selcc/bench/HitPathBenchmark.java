package io.selcc.bench;

import io.selcc.cache.AccessMode;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The local hit path of SELCC: one thread, one compute node, the GCL already cached.
 *
 * <pre>
 *   [thread] --sLock/unlock--> [cache frame: S or M memo]      (no round trip)
 *                                      |
 *                               [memory node]  (touched once, in setup)
 * </pre>
 *
 * Run: {@code java -jar benchmarks/target/benchmarks.jar HitPath}. The SEL variant shows the cost of
 * the same lock/unlock without a cache (two verb batches on the in-JVM fabric, no latency model).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class HitPathBenchmark {
    private SelccCluster selcc;
    private SelccCluster sel;
    private ComputeNode cached;
    private ComputeNode uncached;
    private long gcl;
    /** The frame {@link #gcl} is cached in, as a record id hint keeps it. */
    private int frame;
    private long selGcl;
    /** The benchmark thread's kept handle ({@code ComputeNode.keptHandle}), made in the thread's first call. */
    private GclHandle kept;

    @Setup(Level.Trial)
    public void setUp() {
        selcc = SelccCluster.builder().computeNodes(1).build();
        cached = selcc.node(0);
        gcl = cached.allocate();
        GclHandle first = cached.sLock(gcl);
        frame = first.frameIndex();
        cached.unlock(first);
        sel = SelccCluster.builder().computeNodes(1).accessMode(AccessMode.SEL).build();
        uncached = sel.node(0);
        selGcl = uncached.allocate();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        selcc.close();
        sel.close();
    }

    /** Cached S lock + read of one word + unlock. Target: 50 ns or less. */
    @Benchmark
    public long sharedHit() {
        GclHandle h = cached.sLock(gcl);
        long value = h.getLong(0);
        cached.unlock(h);
        return value;
    }

    /** {@link #sharedHit} with the frame as a hint ({@code ComputeNode.tryLock}): no lookup from address to frame. */
    @Benchmark
    public long sharedHitHinted() {
        GclHandle h = cached.tryLock(gcl, false, frame);
        long value = h.getLong(0);
        cached.unlock(h);
        return value;
    }

    /**
     * {@link #sharedHitHinted} into a handle the caller keeps ({@code ComputeNode.tryLock(spare, ...)}): no
     * handle taken from the thread's pool and given back, no per-thread lookup.
     */
    @Benchmark
    public long sharedHitKept() {
        GclHandle h = kept;
        if (h == null) {
            h = kept = cached.keptHandle(); // by the thread that latches it (JMH's setup may run on another)
        }
        h = cached.tryLock(h, gcl, false, frame);
        long value = h.getLong(0);
        cached.unlock(h);
        return value;
    }

    /** Cached X lock + write of one word + unlock (the copy stays dirty; no write-back). */
    @Benchmark
    public void exclusiveHit() {
        GclHandle h = cached.xLock(gcl);
        h.putLong(0, h.getLong(0) + 1);
        cached.unlock(h);
    }

    /** SEL: S latch + READ of the GCL, then release: two round trips on the in-JVM fabric. */
    @Benchmark
    public long selSharedLockUnlock() {
        GclHandle h = uncached.sLock(selGcl);
        long value = h.getLong(0);
        uncached.unlock(h);
        return value;
    }
}
