package io.selcc.cli.micro;

import io.selcc.cli.CliFailure;
import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;
import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What the processes of one micro-benchmark run tell each other (payloads of {@code ClusterRun}'s GO and
 * DONE):
 * <pre>
 * GO:   workload string (the flags every process must share) | gcls int | gcls x address long
 * DONE: measuredNanos long | nodes int | nodes x (node int | reads long | writes long)
 *       | counters int | counters x (name string | value long) | latency histogram bytes (HdrHistogram, compressed)
 * </pre>
 */
final class MicroShare {
    private MicroShare() {
    }

    /** The flags that must agree across the processes (not the node id, cluster file or output files). */
    static String workload(MicroConfig c) {
        var cs = c.cluster();
        return "access=" + cs.access() + " gclSize=" + cs.gclSize() + " threads=" + cs.threads() + " inFlight=" + c.inFlight()
            + " cache=" + cs.cacheFrames() + " fairness=" + cs.fairness() + " gcls=" + c.gcls() + " readRatio=" + c.readRatio() + " sharing=" + c.sharing()
            + " theta=" + c.theta() + " locality=" + c.locality() + " writerNodes=" + c.writerNodes()
            + " duration=" + c.run().durationNanos() + " warmup=" + c.run().warmupNanos() + " seed=" + c.run().seed();
    }

    static byte[] go(MicroConfig config, GclSpace space) {
        WireWriter out = new WireWriter();
        out.putString(workload(config));
        long[] addresses = space.addresses();
        out.putInt(addresses.length);
        for (long a : addresses) {
            out.putLong(a);
        }
        return out.toByteArray();
    }

    static void adopt(byte[] go, MicroConfig config, GclSpace space) {
        WireReader in = new WireReader(go);
        String theirs = in.getString();
        String mine = workload(config);
        if (!mine.equals(theirs)) {
            throw new CliFailure("compute node 0 runs another workload: its flags give '" + theirs + "', this node's '"
                + mine + "' (start every process with the same flags)");
        }
        long[] addresses = new long[in.getInt()];
        for (int i = 0; i < addresses.length; i++) {
            addresses[i] = in.getLong();
        }
        in.expectEnd("GO");
        space.adopt(addresses);
    }

    static byte[] results(MicroResult r) {
        WireWriter out = new WireWriter();
        out.putLong(r.measuredNanos());
        out.putInt(r.nodes().size());
        for (MicroResult.NodeResult n : r.nodes()) {
            out.putInt(n.node()).putLong(n.reads()).putLong(n.writes());
        }
        Map<Counter, Long> counters = r.counters().nonZero();
        out.putInt(counters.size());
        counters.forEach((counter, value) -> out.putString(counter.name()).putLong(value));
        ByteBuffer histogram = ByteBuffer.allocate(r.latencyNanos().getNeededByteBufferCapacity());
        int length = r.latencyNanos().encodeIntoCompressedByteBuffer(histogram);
        out.putBytes(histogram.array(), 0, length);
        return out.toByteArray();
    }

    static MicroResult results(byte[] bytes) {
        WireReader in = new WireReader(bytes);
        long measured = in.getLong();
        int count = in.getInt();
        List<MicroResult.NodeResult> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            nodes.add(new MicroResult.NodeResult(in.getInt(), in.getLong(), in.getLong()));
        }
        int counterCount = in.getInt();
        Map<Counter, Long> counters = new EnumMap<>(Counter.class);
        for (int i = 0; i < counterCount; i++) {
            counters.put(Counter.valueOf(in.getString()), in.getLong());
        }
        Histogram latency;
        try {
            latency = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(in.getBytes()), 0);
        } catch (java.util.zip.DataFormatException e) {
            throw new IllegalStateException("a compute node sent a corrupt latency histogram", e);
        }
        in.expectEnd("DONE");
        return new MicroResult(measured, nodes, CounterSnapshot.of(counters), latency, 0, 0);
    }

    /**
     * Node 0's result with another process's added: its nodes, counters and latencies; the measured time
     * stays node 0's (the processes measured the same length of time, started a GO apart).
     */
    static MicroResult merge(MicroResult mine, MicroResult theirs) {
        List<MicroResult.NodeResult> nodes = new ArrayList<>(mine.nodes());
        nodes.addAll(theirs.nodes());
        nodes.sort(java.util.Comparator.comparingInt(MicroResult.NodeResult::node));
        Histogram latency = mine.latencyNanos().copy();
        latency.add(theirs.latencyNanos());
        return new MicroResult(mine.measuredNanos(), nodes, mine.counters().plus(theirs.counters()), latency,
            mine.sharedGcls(), mine.privateGclsPerNode());
    }
}
