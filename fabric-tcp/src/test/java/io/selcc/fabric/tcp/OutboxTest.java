package io.selcc.fabric.tcp;

import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.GlobalAddress;
import io.selcc.fabric.VerbBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Callers writing to one connection's socket themselves ({@link Outbox}): batches of several MiB, which
 * the socket does not take at once (the rest goes through the event loop, and later frames follow it
 * there), interleaved with small round trips of other callers, must arrive whole and in order. (Planted
 * once: letting a direct write through while a frame waits on the event loop corrupts the stream and the
 * memory node closes the connection.)
 */
class OutboxTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void largeBatchesAndSmallRoundTripsInterleaveIntact() throws Exception {
        int writers = 3;
        int lines = 3_000; // 2 KiB each: 6 MiB per writer, split into frames of at most 4 MiB
        int line = 2048;
        int adders = 3;
        int adds = 1_000;
        try (MemoryNodeServer memory = MemoryNodeServer.start(new InetSocketAddress("127.0.0.1", 0), 32 << 20);
             Arena arena = Arena.ofShared()) {
            InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
            TcpFabric fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(any)), Set.of(0),
                Duration.ofSeconds(60));
            try {
                FabricEndpoint endpoint = fabric.endpoint(0);
                long word = GlobalAddress.of(0, 4096);
                long loopTasksBefore = fabric.handOffs().loopTasks();
                ExecutorService pool = Executors.newFixedThreadPool(writers + adders);
                List<Future<?>> done = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    int writer = w;
                    done.add(pool.submit(() -> {
                        long base = (1L << 20) + (long) writer * lines * line;
                        MemorySegment out = arena.allocate((long) lines * line, 8);
                        MemorySegment in = arena.allocate((long) lines * line, 8);
                        for (long i = 0; i < out.byteSize() / 8; i++) {
                            out.setAtIndex(ValueLayout.JAVA_LONG, i, writer * 1_000_000_007L + i);
                        }
                        for (int round = 0; round < 2; round++) {
                            VerbBatch batch = new VerbBatch();
                            for (int l = 0; l < lines; l++) {
                                batch.write(GlobalAddress.of(0, base + (long) l * line), out, (long) l * line, line);
                            }
                            endpoint.post(batch);
                            batch.clear();
                            for (int l = 0; l < lines; l++) {
                                batch.read(GlobalAddress.of(0, base + (long) l * line), in, (long) l * line, line);
                            }
                            endpoint.post(batch);
                            assertEquals(-1L, out.mismatch(in), "writer " + writer + " read back other bytes");
                        }
                        return null;
                    }));
                }
                for (int a = 0; a < adders; a++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < adds; i++) {
                            endpoint.remoteFaa(word, 1);
                        }
                        return null;
                    }));
                }
                try {
                    for (Future<?> f : done) {
                        f.get(); // a caller's failure fails the test
                    }
                } finally {
                    pool.shutdownNow();
                }
                assertEquals((long) adders * adds, endpoint.remoteFaa(word, 0));
                System.out.println("OutboxTest: writes handed to the event loop (socket full): "
                    + (fabric.handOffs().loopTasks() - loopTasksBefore));
            } finally {
                fabric.close();
            }
        }
    }
}
