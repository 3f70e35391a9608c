package io.selcc.fabric;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract every {@link Fabric} implementation passes (local now; tcp and rdma later subclass it
 * through the selcc test-jar). Counts are part of the contract: they are how the protocol is checked.
 */
public abstract class FabricContractTest {
    protected Fabric fabric;
    private Arena arena;

    /** A fabric with 2 memory nodes of at least 1 MiB each and 2 compute nodes, latency off. */
    protected abstract Fabric createFabric();

    @BeforeEach
    void open() {
        fabric = createFabric();
        arena = Arena.ofConfined();
    }

    @AfterEach
    void close() {
        fabric.close();
        arena.close();
    }

    @Test
    void writeThenReadRoundTripsBytes() {
        FabricEndpoint a = fabric.endpoint(0);
        FabricEndpoint b = fabric.endpoint(1);
        MemorySegment src = arena.allocate(64);
        for (int i = 0; i < 64; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        long address = GlobalAddress.of(1, 4096);
        a.remoteWrite(address, src, 0, 64);
        MemorySegment dst = arena.allocate(64);
        b.remoteRead(address, dst, 0, 64);
        assertEquals(-1, src.mismatch(dst));
        assertEquals(1, a.counters().snapshot().get(Counter.ROUND_TRIPS));
        assertEquals(64, a.counters().snapshot().get(Counter.BYTES_WRITTEN));
        assertEquals(64, b.counters().snapshot().get(Counter.BYTES_READ));
    }

    /**
     * Segments over Java arrays of any element type (the cache reads snapshots into a long[]): shown to
     * fail over TCP when the fabric took every segment's ByteBuffer view, which a long[] does not have.
     */
    @Test
    void heapSegmentsOfAnyArrayTypeRoundTrip() {
        FabricEndpoint a = fabric.endpoint(0);
        long[] values = {1, -2, 0x0123_4567_89AB_CDEFL, 42};
        MemorySegment src = MemorySegment.ofArray(values);
        long address = GlobalAddress.of(0, 8192);
        a.remoteWrite(address, src, 8, 24);
        MemorySegment dst = MemorySegment.ofArray(new long[5]);
        a.remoteRead(address, dst, 16, 24);
        assertEquals(0, dst.get(ValueLayout.JAVA_LONG, 8));
        assertEquals(-1, src.asSlice(8, 24).mismatch(dst.asSlice(16, 24)));
        MemorySegment bytes = MemorySegment.ofArray(new byte[24]);
        a.remoteRead(address, bytes, 0, 24);
        assertEquals(-1, src.asSlice(8, 24).mismatch(bytes));
    }

    /**
     * A batch bigger than a network fabric's frame (a whole cache written back: tens of MiB) runs whole
     * and in order: a later write of the same bytes wins. Shown to fail over TCP before batches were split
     * into frames ("frame of 19664722 bytes is over the limit").
     */
    @Test
    void aBatchLargerThanAnyFrameRunsInOrder() {
        FabricEndpoint a = fabric.endpoint(0);
        int chunk = 64 << 10;
        int writes = 300;
        int slots = 12; // 12 x 64 KiB within the first MiB, each written 25 times: the last write must win
        MemorySegment src = arena.allocate((long) writes * chunk);
        VerbBatch batch = new VerbBatch();
        for (int w = 0; w < writes; w++) {
            src.asSlice((long) w * chunk, chunk).fill((byte) w);
            batch.write(GlobalAddress.of(1, (long) (w % slots) * chunk), src, (long) w * chunk, chunk);
        }
        a.post(batch);
        MemorySegment dst = arena.allocate((long) writes * chunk);
        batch.clear();
        for (int r = 0; r < writes; r++) {
            batch.read(GlobalAddress.of(1, (long) (r % slots) * chunk), dst, (long) r * chunk, chunk);
        }
        a.post(batch);
        for (int r = 0; r < writes; r++) {
            int slot = r % slots;
            byte last = (byte) (writes - slots + slot); // the last write index w with w % slots == slot
            assertEquals(last, dst.get(ValueLayout.JAVA_BYTE, (long) r * chunk), "slot " + slot + " read " + r);
            assertEquals(last, dst.get(ValueLayout.JAVA_BYTE, (long) r * chunk + chunk - 1), "slot " + slot + " read " + r);
        }
    }

    @Test
    void casAndFaaReturnThePreviousValue() {
        FabricEndpoint a = fabric.endpoint(0);
        long word = GlobalAddress.of(0, 8192);
        assertEquals(0, a.remoteCas(word, 0, 10));
        assertEquals(10, a.remoteCas(word, 0, 20), "failed CAS returns the current value");
        assertEquals(10, a.remoteFaa(word, 5));
        assertEquals(15, a.remoteFaa(word, -15));
        assertEquals(0, a.remoteFaa(word, 0));
        CounterSnapshot s = a.counters().snapshot();
        assertEquals(2, s.get(Counter.VERB_CAS));
        assertEquals(3, s.get(Counter.VERB_FAA));
        assertEquals(5, s.get(Counter.ROUND_TRIPS));
    }

    @Test
    void batchExecutesInOrderAsOneRoundTrip() {
        FabricEndpoint a = fabric.endpoint(0);
        long word = GlobalAddress.of(0, 16384);
        MemorySegment buffer = arena.allocate(16);
        VerbBatch batch = new VerbBatch();
        int cas = batch.cas(word, 0, 99);
        batch.read(word, buffer, 0, 8);
        int faa = batch.faa(word, 1);
        batch.read(word, buffer, 8, 8);
        a.post(batch);
        assertEquals(0, batch.result(cas));
        assertEquals(99, batch.result(faa));
        assertEquals(99, buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "READ after CAS sees it");
        assertEquals(100, buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
        assertEquals(1, a.counters().snapshot().get(Counter.ROUND_TRIPS));
        batch.clear();
        assertEquals(0, batch.size());
    }

    /** Strings as UTF-8: the contract's test messages. */
    public static final MessageCodec STRINGS = new MessageCodec() {
        @Override
        public void encode(Object message, WireWriter out) {
            out.putString((String) message);
        }

        @Override
        public Object decode(WireReader in) {
            return in.getString();
        }
    };

    @Test
    void messagesReachTheRegisteredHandler() {
        fabric.endpoint(0).register(MessageKind.INVALIDATION, STRINGS, (from, request, reply) -> reply.reply("unused"));
        fabric.endpoint(1).register(MessageKind.INVALIDATION, STRINGS,
            (from, request, reply) -> reply.reply("from " + from + ": " + request));
        assertEquals("from 0: hi", fabric.endpoint(0).call(1, MessageKind.INVALIDATION, "hi"));
        assertEquals(1, fabric.endpoint(0).counters().snapshot().get(Counter.MESSAGES_SENT));
        assertEquals(1, fabric.endpoint(1).counters().snapshot().get(Counter.MESSAGES_RECEIVED));
        assertEquals(1, fabric.endpoint(0).counters().snapshot().get(Counter.ROUND_TRIPS));
    }

    @Test
    void aKeptRequestIsAnsweredLaterFromAnotherThread() throws Exception {
        java.util.concurrent.CompletableFuture<ReplyHandle> kept = new java.util.concurrent.CompletableFuture<>();
        fabric.endpoint(0).register(MessageKind.INVALIDATION, STRINGS, (from, request, reply) -> reply.reply("unused"));
        fabric.endpoint(1).register(MessageKind.INVALIDATION, STRINGS, (from, request, reply) -> kept.complete(reply));
        PendingReply pending = fabric.endpoint(0).send(1, MessageKind.INVALIDATION, "later");
        ReplyHandle handle = kept.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(null, pending.await(1_000_000), "no reply before the receiver gives one");
        Thread answerer = Thread.ofPlatform().start(() -> handle.reply("now"));
        assertEquals("now", pending.await(30_000_000_000L));
        answerer.join(30_000);
        assertTrue(!handle.reply("again"), "only the first reply counts");
        assertEquals(1, fabric.endpoint(0).counters().snapshot().get(Counter.ROUND_TRIPS));
    }

    @Test
    void aFencedReceiverFailsTheRepliesItKept() throws Exception {
        java.util.concurrent.CompletableFuture<ReplyHandle> kept = new java.util.concurrent.CompletableFuture<>();
        fabric.endpoint(0).register(MessageKind.INVALIDATION, STRINGS, (from, request, reply) -> reply.reply("unused"));
        fabric.endpoint(1).register(MessageKind.INVALIDATION, STRINGS, (from, request, reply) -> kept.complete(reply));
        PendingReply pending = fabric.endpoint(0).send(1, MessageKind.INVALIDATION, "never answered");
        kept.get(30, java.util.concurrent.TimeUnit.SECONDS);
        fabric.fence(1);
        NodeFailedException e = assertThrows(NodeFailedException.class, () -> pending.await(30_000_000_000L));
        assertEquals(1, e.node());
    }

    @Test
    void countersResetToZero() {
        FabricEndpoint a = fabric.endpoint(0);
        a.remoteFaa(GlobalAddress.of(0, 8), 1);
        a.counters().reset();
        assertTrue(a.counters().snapshot().nonZero().isEmpty());
        a.remoteFaa(GlobalAddress.of(0, 8), 1);
        assertEquals(1, a.counters().snapshot().get(Counter.VERB_FAA));
    }

    @Test
    void threadSnapshotsCountOnlyTheCallingThread() throws Exception {
        FabricEndpoint a = fabric.endpoint(0);
        CounterSnapshot before = a.counters().threadSnapshot();
        Thread other = Thread.ofPlatform().start(() -> a.remoteFaa(GlobalAddress.of(0, 8), 1));
        other.join();
        a.remoteFaa(GlobalAddress.of(0, 8), 1);
        assertEquals(1, a.counters().threadSnapshot().minus(before).get(Counter.VERB_FAA));
        assertEquals(2, a.counters().snapshot().get(Counter.VERB_FAA));
    }

    @Test
    void badAddressesNameTheProblem() {
        FabricEndpoint a = fabric.endpoint(0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> a.remoteFaa(GlobalAddress.of(0, 12), 1));
        assertTrue(e.getMessage().contains("misaligned"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> a.remoteFaa(GlobalAddress.of(9, 8), 1));
        assertTrue(e.getMessage().contains("memory node"), e.getMessage());
        long end = fabric.memoryNodeCapacity(0);
        e = assertThrows(IllegalArgumentException.class,
            () -> a.remoteRead(GlobalAddress.of(0, end - 4), arena.allocate(8), 0, 8));
        assertTrue(e.getMessage().contains("out of range"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> a.call(0, MessageKind.INVALIDATION, "self"));
        assertTrue(e.getMessage().contains("self"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> fabric.endpoint(7));
        assertTrue(e.getMessage().contains("computeNode=7"), e.getMessage());
    }
}
