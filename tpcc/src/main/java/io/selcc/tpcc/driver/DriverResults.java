package io.selcc.tpcc.driver;

import io.selcc.engine.cc.AbortReason;
import io.selcc.fabric.MalformedMessageException;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;
import io.selcc.tpcc.txn.TxnType;
import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link DriverResult} as bytes, and two results merged: how the compute-node processes of one run
 * send node 0 what their terminals measured, and how node 0 makes the one report of them. Layout
 * (big-endian, {@link WireWriter}'s types):
 * <pre>
 * measuredNanos long | sharedMemoryFull boolean | sharedBytesGrown long | terminalCpuNanos long
 * | terminalAllocatedBytes long
 * | types int | types x (type string | committed long | rolledBack long | failed long
 *     | aborts int | aborts x (reason string | count long) | latency bytes (HdrHistogram, compressed)
 *     | roundTrips long | messages long | gclAccesses long | bytesRead long | allocatedBytes long
 *     | skippedDistricts long)
 * | input shares: 11 longs in {@link InputShares}' field order
 * | terminals int | terminals x completed long
 * </pre>
 * The configuration does not travel: every process runs the same one (the caller checks that).
 */
public final class DriverResults {
    private DriverResults() {
    }

    public static byte[] encode(DriverResult r) {
        WireWriter out = new WireWriter();
        out.putLong(r.measuredNanos()).putBoolean(r.sharedMemoryFull()).putLong(r.sharedBytesGrown())
            .putLong(r.terminalCpuNanos()).putLong(r.terminalAllocatedBytes());
        out.putInt(r.perType().size());
        r.perType().forEach((type, s) -> {
            out.putString(type.name()).putLong(s.committed).putLong(s.rolledBack).putLong(s.failed);
            out.putInt(s.aborts.size());
            s.aborts.forEach((reason, n) -> out.putString(reason.name()).putLong(n));
            ByteBuffer histogram = ByteBuffer.allocate(s.latencyMicros.getNeededByteBufferCapacity());
            int length = s.latencyMicros.encodeIntoCompressedByteBuffer(histogram);
            out.putBytes(histogram.array(), 0, length);
            out.putLong(s.roundTrips).putLong(s.messages).putLong(s.gclAccesses).putLong(s.bytesRead)
                .putLong(s.allocatedBytes).putLong(s.skippedDistricts);
        });
        InputShares i = r.inputShares();
        for (long v : new long[] {i.newOrders, i.orderLines, i.remoteOrderLines, i.rollbacks, i.payments, i.remotePayments,
            i.paymentsByName, i.orderStatuses, i.orderStatusesByName, i.deliveries, i.skippedDeliveries}) {
            out.putLong(v);
        }
        out.putInt(r.completedByTerminal().size());
        r.completedByTerminal().forEach(out::putLong);
        return out.toByteArray();
    }

    /**
     * The result {@link #encode} wrote, with {@code config} (the receiver's own).
     *
     * @throws MalformedMessageException if the bytes are not such a result
     */
    public static DriverResult decode(byte[] bytes, DriverConfig config) {
        WireReader in = new WireReader(bytes);
        long measured = in.getLong();
        boolean full = in.getBoolean();
        long grown = in.getLong();
        long cpu = in.getLong();
        long allocated = in.getLong();
        Map<TxnType, TypeStats> perType = new EnumMap<>(TxnType.class);
        int types = in.getInt();
        for (int t = 0; t < types; t++) {
            TxnType type = named(TxnType.values(), in.getString(), "transaction type");
            TypeStats s = new TypeStats();
            s.committed = in.getLong();
            s.rolledBack = in.getLong();
            s.failed = in.getLong();
            int aborts = in.getInt();
            for (int a = 0; a < aborts; a++) {
                s.aborts.put(named(AbortReason.values(), in.getString(), "abort reason"), in.getLong());
            }
            try {
                s.latencyMicros.add(Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(in.getBytes()), 0));
            } catch (java.util.zip.DataFormatException e) {
                throw new MalformedMessageException("a corrupt latency histogram for " + type + ": " + e.getMessage());
            }
            s.roundTrips = in.getLong();
            s.messages = in.getLong();
            s.gclAccesses = in.getLong();
            s.bytesRead = in.getLong();
            s.allocatedBytes = in.getLong();
            s.skippedDistricts = in.getLong();
            perType.put(type, s);
        }
        for (TxnType type : TxnType.values()) {
            perType.putIfAbsent(type, new TypeStats());
        }
        InputShares i = new InputShares();
        i.newOrders = in.getLong();
        i.orderLines = in.getLong();
        i.remoteOrderLines = in.getLong();
        i.rollbacks = in.getLong();
        i.payments = in.getLong();
        i.remotePayments = in.getLong();
        i.paymentsByName = in.getLong();
        i.orderStatuses = in.getLong();
        i.orderStatusesByName = in.getLong();
        i.deliveries = in.getLong();
        i.skippedDeliveries = in.getLong();
        int terminals = in.getInt();
        List<Long> completed = new ArrayList<>(terminals);
        for (int t = 0; t < terminals; t++) {
            completed.add(in.getLong());
        }
        in.expectEnd("driver result");
        return new DriverResult(config, measured, perType, i, completed, full, grown, cpu, allocated);
    }

    /**
     * What compute node {@code node}, whose process died before it reported, contributes: nothing, with a 0
     * for each of its terminals (so terminal numbers stay those of {@link TerminalPlacement}).
     */
    public static DriverResult missing(DriverConfig config, int computeNodes, int node) {
        Map<TxnType, TypeStats> perType = new EnumMap<>(TxnType.class);
        for (TxnType type : TxnType.values()) {
            perType.put(type, new TypeStats());
        }
        List<Long> terminals = new ArrayList<>();
        for (int t = 0; t < config.terminals(computeNodes).terminalsOn(node); t++) {
            terminals.add(0L);
        }
        return new DriverResult(config, 0, perType, new InputShares(), terminals, false, 0, 0, 0);
    }

    /**
     * {@code first}'s result with {@code second}'s added (terminals of a higher compute node second): the
     * counts, latencies and input shares summed, the terminals listed one after the other. The measured
     * time is the longer one (the processes measure intervals of the same length started a message apart;
     * one that stopped early, its shared memory full, must not shorten the others'), and the shared
     * memory grown is {@code first}'s: each process counts it cluster-wide.
     */
    public static DriverResult merge(DriverResult first, DriverResult second) {
        Map<TxnType, TypeStats> perType = new EnumMap<>(TxnType.class);
        for (TxnType type : TxnType.values()) {
            TypeStats s = new TypeStats();
            s.merge(first.stats(type));
            s.merge(second.stats(type));
            perType.put(type, s);
        }
        InputShares shares = new InputShares();
        shares.merge(first.inputShares());
        shares.merge(second.inputShares());
        List<Long> completed = new ArrayList<>(first.completedByTerminal());
        completed.addAll(second.completedByTerminal());
        return new DriverResult(first.config(), Math.max(first.measuredNanos(), second.measuredNanos()), perType, shares,
            completed, first.sharedMemoryFull() || second.sharedMemoryFull(), first.sharedBytesGrown(),
            first.terminalCpuNanos() + second.terminalCpuNanos(),
            first.terminalAllocatedBytes() + second.terminalAllocatedBytes());
    }

    private static <E extends Enum<E>> E named(E[] values, String name, String what) {
        for (E v : values) {
            if (v.name().equals(name)) {
                return v;
            }
        }
        throw new MalformedMessageException("unknown " + what + " " + name);
    }
}
