package io.selcc.bench;

import io.selcc.fabric.Fabric;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.GlobalAddress;
import io.selcc.fabric.LatencyModel;
import io.selcc.fabric.LocalFabric;
import io.selcc.fabric.MessageCodec;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.VerbBatch;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;
import io.selcc.fabric.tcp.ClusterMap;
import io.selcc.fabric.tcp.MemoryNodeServer;
import io.selcc.fabric.tcp.TcpFabric;
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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One round trip per call, on the in-JVM fabric and over loopback TCP: an FAA (a latch release), a
 * 2 KiB READ (a line), a CAS+READ batch (an exclusive acquire) and a message between two compute
 * nodes answered at once (an invalidation's shape). The TCP memory node runs in the benchmark's JVM,
 * so server and client share the machine's cores, as they would on one host. The fabric is shared by
 * the benchmark's threads ({@code -t 8}: eight callers overlapping their round trips on one fabric and
 * its connections, as a node's terminals do); each thread has its own buffers, word and line.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar VerbRoundTrip}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class VerbRoundTripBenchmark {
    private static final int LINE = 2040;
    private static final MessageCodec BYTES = new MessageCodec() {
        @Override
        public void encode(Object message, WireWriter out) {
            out.putBytes((byte[]) message);
        }

        @Override
        public Object decode(WireReader in) {
            return in.getBytes();
        }
    };

    @Param({"local", "tcp"})
    public String fabric;

    private MemoryNodeServer server;
    private Fabric f;
    private FabricEndpoint endpoint;
    private final java.util.concurrent.atomic.AtomicInteger callers = new java.util.concurrent.atomic.AtomicInteger();

    /** One benchmark thread's buffers and addresses. */
    @State(Scope.Thread)
    public static class Caller {
        private Arena arena;
        private MemorySegment buffer;
        private final VerbBatch batch = new VerbBatch();
        private final byte[] message = new byte[24];
        private long word;
        private long line;

        @Setup(Level.Trial)
        public void setUp(VerbRoundTripBenchmark bench) {
            int i = bench.callers.getAndIncrement();
            arena = Arena.ofShared();
            buffer = arena.allocate(LINE + 8, 64);
            word = GlobalAddress.of(0, 4096 + 8L * i);
            line = GlobalAddress.of(0, 8192 + 4096L * i);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
        if (fabric.equals("tcp")) {
            server = MemoryNodeServer.start(new InetSocketAddress("127.0.0.1", 0), 64 << 20);
            InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
            f = TcpFabric.connect(new ClusterMap(List.of(server.address()), List.of(any, any)), Set.of(0, 1),
                Duration.ofSeconds(30));
        } else {
            f = new LocalFabric(1, 64 << 20, 2, LatencyModel.OFF);
        }
        for (int node = 0; node < 2; node++) {
            f.endpoint(node).register(MessageKind.INVALIDATION, BYTES, (from, request, reply) -> reply.reply(request));
        }
        endpoint = f.endpoint(0);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        f.close();
        if (server != null) {
            server.close();
        }
    }

    @Benchmark
    public long faa(Caller c) {
        return endpoint.remoteFaa(c.word, 1);
    }

    @Benchmark
    public MemorySegment readLine(Caller c) {
        endpoint.remoteRead(c.line, c.buffer, 0, LINE);
        return c.buffer;
    }

    @Benchmark
    public long casThenReadLine(Caller c) {
        c.batch.clear();
        int cas = c.batch.cas(c.word, 0, 0);
        c.batch.read(c.line, c.buffer, 0, LINE);
        endpoint.post(c.batch);
        return c.batch.result(cas);
    }

    @Benchmark
    public Object messageBetweenComputeNodes(Caller c) {
        return endpoint.call(1, MessageKind.INVALIDATION, c.message);
    }
}
