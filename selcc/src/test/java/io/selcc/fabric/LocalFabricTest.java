package io.selcc.fabric;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LocalFabricTest extends FabricContractTest {
    @Override
    protected Fabric createFabric() {
        return new LocalFabric(2, 1 << 20, 2, LatencyModel.OFF);
    }

    @Test
    void memoryNodesAboveTwoGigabytesWork() {
        long size = (1L << 31) + (1 << 20); // past the 2 GiB boundary of int-indexed buffers
        try (LocalFabric big = new LocalFabric(1, size, 1, LatencyModel.OFF); Arena arena = Arena.ofConfined()) {
            FabricEndpoint e = big.endpoint(0);
            long high = GlobalAddress.of(0, size - 8);
            assertEquals(0, e.remoteFaa(high, 42));
            MemorySegment dst = arena.allocate(8);
            e.remoteRead(high, dst, 0, 8);
            assertEquals(42, dst.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        }
    }

    @Test
    void latencyModelChargesRttPlusTransferOnTheInjectedClock() {
        AtomicLong now = new AtomicLong();
        // A clock that advances 100 ns per reading lets the spin end without real time passing.
        LatencyModel model = LatencyModel.of(2_000, 8, () -> now.addAndGet(100));
        assertEquals(2_000 + 1_000, model.costNanos(1_000), "1000 bytes at 8 Gbit/s = 1000 ns");
        long before = now.get();
        model.await(1_000);
        assertTrue(now.get() - before >= 3_000, "waited at least the cost");
        assertTrue(LatencyModel.OFF.isOff());
        assertThrows(IllegalArgumentException.class, () -> LatencyModel.of(-1, 0));
    }

    @Test
    void clusterSizesOutsideTheLatchWordAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new LocalFabric(1, 1 << 20, 57, LatencyModel.OFF));
        assertTrue(e.getMessage().contains("computeNodes=57"), e.getMessage());
    }
}
