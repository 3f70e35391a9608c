package io.selcc.wal;

import io.selcc.cache.AccessMode;
import io.selcc.engine.CommitLog;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Redo;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.fabric.LatencyModel;
import io.selcc.storage.Schema;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The child JVM of {@link ParkingWaitsTest}: runs one scenario with 100 virtual-thread terminals on a
 * single carrier ({@code -Djdk.virtualThreadScheduler.parallelism=1 -Djdk.virtualThreadScheduler.maxPoolSize=1})
 * and exits 0 when every terminal did its share, 1 when a count is wrong, 2 on an exception. A wait
 * that holds the carrier hangs it instead: the parent's timeout fails the test then.
 *
 * <p>Arguments: {@code roundTrips}, {@code latches} or {@code durability <directory>}.
 */
public final class ParkedTerminals {
    static final int TERMINALS = 100;
    static final int COMPUTE_NODES = 4;
    static final int TRANSACTIONS_PER_TERMINAL = 20;
    static final String SINGLE_CARRIER_MARK = "single carrier";

    private static final Schema COUNTER = Schema.builder().addLong("id").addLong("count").build();
    private static final TableDefinition COUNTERS = TableDefinition.of("counter", COUNTER, row -> row.getLong(0));

    private ParkedTerminals() {
    }

    public static void main(String[] args) throws Exception {
        if (!"1".equals(System.getProperty("jdk.virtualThreadScheduler.parallelism"))) {
            System.out.println("FAIL: run me with -Djdk.virtualThreadScheduler.parallelism=1");
            System.exit(1);
        }
        System.out.println(SINGLE_CARRIER_MARK);
        try {
            List<String> wrong = switch (args[0]) {
                case "roundTrips" -> roundTrips();
                case "latches" -> latches();
                case "durability" -> durability(Path.of(args[1]));
                default -> throw new IllegalArgumentException("no such scenario: " + args[0]);
            };
            for (String line : wrong) {
                System.out.println("FAIL: " + line);
            }
            System.out.println(wrong.isEmpty() ? "OK" : "FAILED");
            System.out.flush();
            System.exit(wrong.isEmpty() ? 0 : 1);
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            System.out.flush();
            System.exit(2);
        }
    }

    /**
     * Terminals on four compute nodes each read their own row, uncached ({@link AccessMode#SEL}: every
     * access is a remote latch and READ, a reader's latch never refuses another reader), so all of them
     * meet at the gate each time: the gate must open with every terminal waiting for its reply.
     */
    static List<String> roundTrips() throws InterruptedException {
        ReplyGate gate = new ReplyGate();
        List<String> wrong = new ArrayList<>();
        try (Database db = Database.builder().cc("occ").accessMode(AccessMode.SEL).computeNodes(COMPUTE_NODES)
                .latency(LatencyModel.of(2_000, 0, gate).tellingWaits(gate)).table(COUNTERS).build()) {
            load(db, wrong);
            AtomicIntegerArray done = runTerminals(db, gate, (node, counters, terminal) ->
                node.run(tx -> tx.get(counters, terminal).getLong(1) == 0).value(), wrong);
            checkEveryTerminal(done, wrong);
            System.out.println(gate.report());
            if (gate.mostWaiting() != TERMINALS) {
                wrong.add("the " + TERMINALS + " terminals never all waited for their replies at once: " + gate.report());
            }
            // Every terminal meets the gate each time, so none is parked elsewhere when it opens. A waiter that
            // spins between its parks (Waits parks every 64th turn) keeps the others off the carrier until it
            // parks, and the gate then opens over them parked.
            if (gate.openedWithParked() != 0) {
                wrong.add("the gate opened with terminals parked elsewhere: " + gate.report());
            }
        }
        return wrong;
    }

    /**
     * Terminals on four compute nodes each increment their own row; the rows share a few pages, so lines
     * move between nodes, and a terminal holding a frame latch waits for a round trip while the others
     * of its node want that latch: they park on it, and the gate opens once everyone waits.
     */
    static List<String> latches() throws InterruptedException {
        ReplyGate gate = new ReplyGate();
        List<String> wrong = new ArrayList<>();
        try (Database db = Database.builder().cc("2pl").computeNodes(COMPUTE_NODES).cacheFrames(4096)
                .latency(LatencyModel.of(2_000, 0, gate).tellingWaits(gate)).table(COUNTERS).build()) {
            load(db, wrong);
            AtomicIntegerArray done = runTerminals(db, gate, (node, counters, terminal) ->
                node.run(tx -> tx.update(counters, terminal, row -> row.setLong(1, row.getLong(1) + 1))).value(), wrong);
            checkEveryTerminal(done, wrong);
            DatabaseNode checker = db.node(0);
            for (int t = 0; t < TERMINALS; t++) {
                long id = t;
                long count = checker.run(tx -> tx.get(checker.table("counter"), id).getLong(1)).value();
                if (count != TRANSACTIONS_PER_TERMINAL) {
                    wrong.add("row " + t + " counts " + count);
                }
            }
            System.out.println(gate.report());
            if (gate.openedWithParked() == 0) {
                wrong.add("no round trip was held while another terminal was parked: " + gate.report());
            }
        }
        return wrong;
    }

    /** One transaction of a terminal; whether it did what it should. */
    private interface TerminalTransaction {
        Boolean run(DatabaseNode node, Table counters, long terminal);
    }

    /** A row (terminal, 0) per terminal, before any terminal is admitted. */
    private static void load(Database db, List<String> wrong) {
        DatabaseNode loader = db.node(0);
        Table counters = loader.table("counter");
        for (int t = 0; t < TERMINALS; t++) {
            long id = t;
            if (!loader.run(tx -> tx.insert(counters, row -> { row.setLong(0, id); row.setLong(1, 0); })).committed()) {
                wrong.add("the load of row " + t + " did not commit");
            }
        }
    }

    /** Runs the terminals, terminal t on compute node t % 4, to the end; how many transactions each did right. */
    private static AtomicIntegerArray runTerminals(Database db, ReplyGate gate, TerminalTransaction transaction,
                                                   List<String> wrong) throws InterruptedException {
        AtomicIntegerArray done = new AtomicIntegerArray(TERMINALS);
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> terminals = new ArrayList<>();
        for (int t = 0; t < TERMINALS; t++) {
            int terminal = t;
            DatabaseNode node = db.node(t % COMPUTE_NODES);
            Table counters = node.table("counter");
            terminals.add(Thread.ofVirtual().name("terminal-" + t).unstarted(() -> {
                try {
                    for (int i = 0; i < TRANSACTIONS_PER_TERMINAL; i++) {
                        if (Boolean.TRUE.equals(transaction.run(node, counters, terminal))) {
                            done.incrementAndGet(terminal);
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    gate.leave();
                }
            }));
        }
        gate.admit(terminals); // before any starts: the gate waits for every one of them
        terminals.forEach(Thread::start);
        for (Thread t : terminals) {
            t.join();
        }
        failures.forEach(e -> e.printStackTrace(System.out));
        if (!failures.isEmpty()) {
            wrong.add(failures.size() + " terminals threw");
        }
        return done;
    }

    private static void checkEveryTerminal(AtomicIntegerArray done, List<String> wrong) {
        for (int t = 0; t < TERMINALS; t++) {
            if (done.get(t) != TRANSACTIONS_PER_TERMINAL) {
                wrong.add("terminal " + t + " did " + done.get(t) + " of " + TRANSACTIONS_PER_TERMINAL + " transactions");
            }
        }
    }

    /**
     * Terminals commit with the flushers held: each waits for its force. All of them must be in that
     * wait at once (counted as they enter it, by {@link CountingLogs}) before any force happens; then
     * the flushers start and every commit returns.
     */
    static List<String> durability(Path directory) throws InterruptedException {
        List<String> wrong = new ArrayList<>();
        Wal wal = Wal.open(directory, Wal.Mode.SYNC);
        wal.holdFlushersForTest();
        CountingLogs logs = new CountingLogs(wal);
        try (Database db = Database.builder().cc("2pl").computeNodes(2).table(COUNTERS).commitLog(logs).build()) {
            AtomicInteger committed = new AtomicInteger();
            Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> terminals = new ArrayList<>();
            for (int t = 0; t < TERMINALS; t++) {
                long id = t;
                DatabaseNode node = db.node(t % 2);
                Table counters = node.table("counter");
                terminals.add(Thread.ofVirtual().name("terminal-" + t).start(() -> {
                    try {
                        if (node.run(tx -> tx.insert(counters, row -> { row.setLong(0, id); row.setLong(1, 1); }))
                                .committed()) {
                            committed.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            while (logs.waiting.get() < TERMINALS && failures.isEmpty()) {
                LockSupport.parkNanos(100_000); // a polling interval: the condition is the count
            }
            if (committed.get() != 0) {
                wrong.add(committed.get() + " commits returned before any force");
            }
            for (int node = 0; node < 2; node++) {
                wal.logForTest(node).startFlusher();
            }
            for (Thread t : terminals) {
                t.join();
            }
            failures.forEach(e -> e.printStackTrace(System.out));
            if (!failures.isEmpty()) {
                wrong.add(failures.size() + " terminals threw");
            }
            if (committed.get() != TERMINALS) {
                wrong.add(committed.get() + " of " + TERMINALS + " commits returned");
            }
            if (wal.durable() < TERMINALS) {
                wrong.add("durable watermark " + wal.durable() + " below " + TERMINALS);
            }
            System.out.println("all " + TERMINALS + " terminals waited for their force at once");
        }
        return wrong;
    }

    /** The log group, counting the commits inside {@link CommitLog#awaitDurable} right now. */
    private static final class CountingLogs implements CommitLog.Factory {
        final AtomicInteger waiting = new AtomicInteger();
        private final Wal wal;

        CountingLogs(Wal wal) {
            this.wal = wal;
        }

        @Override
        public CommitLog open(int computeNode, long settledThrough, LongSupplier nextSequence) {
            CommitLog log = wal.open(computeNode, settledThrough, nextSequence);
            return new CommitLog() {
                @Override
                public long append(Redo redo) {
                    return log.append(redo);
                }

                @Override
                public void awaitDurable(long sequence) {
                    waiting.incrementAndGet();
                    try {
                        log.awaitDurable(sequence);
                    } finally {
                        waiting.decrementAndGet();
                    }
                }

                @Override
                public void awaitAppendedDurable() {
                    log.awaitAppendedDurable();
                }

                @Override
                public void close() {
                    log.close();
                }
            };
        }

        @Override
        public boolean canReadBack() {
            return wal.canReadBack();
        }

        @Override
        public void close() {
            wal.close();
        }
    }

    /**
     * The fabric's clock and round-trip listener: time stands still while terminals run, and moves one
     * step (more than a round trip's cost) when every admitted terminal waits, at this gate or parked,
     * so every held reply is released together. Before terminals are admitted and after they all left,
     * time moves on every look, so the load and the checks run unhindered. Threads that are not
     * terminals (the evictor) wait for the gate's steps like the terminals do.
     *
     * <p>With a waiter that spins its carrier, the first terminal at the gate keeps the only carrier,
     * the others never run, never wait, and the gate never opens.
     */
    static final class ReplyGate implements LongSupplier, Runnable {
        private static final long STEP_NANOS = 1_000_000;

        private final Set<Thread> terminals = new HashSet<>();
        private final Set<Thread> waiting = new HashSet<>();
        private long step;
        private int opened;
        private int openedWithParked;
        private int mostWaiting;

        synchronized void admit(List<Thread> admitted) {
            terminals.addAll(admitted);
        }

        synchronized void leave() {
            terminals.remove(Thread.currentThread());
            waiting.remove(Thread.currentThread());
            openIfAllWait();
        }

        /** The clock: every look may open the gate (a parked terminal announces nothing). */
        @Override
        public synchronized long getAsLong() {
            if (terminals.isEmpty()) {
                step++;
            } else {
                openIfAllWait();
            }
            return step * STEP_NANOS;
        }

        /** A round trip starts waiting, its deadline read. */
        @Override
        public synchronized void run() {
            if (terminals.contains(Thread.currentThread())) {
                waiting.add(Thread.currentThread());
                openIfAllWait();
            }
        }

        private void openIfAllWait() {
            if (waiting.isEmpty()) {
                return;
            }
            int parked = 0;
            for (Thread t : terminals) {
                if (waiting.contains(t)) {
                    continue;
                }
                Thread.State state = t.getState();
                if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING
                        && state != Thread.State.BLOCKED) {
                    return; // it runs, or waits for the carrier: it may reach the gate yet
                }
                parked++;
            }
            opened++;
            mostWaiting = Math.max(mostWaiting, waiting.size());
            if (parked > 0) {
                openedWithParked++;
            }
            waiting.clear();
            step++;
        }

        synchronized int mostWaiting() {
            return mostWaiting;
        }

        synchronized int openedWithParked() {
            return openedWithParked;
        }

        synchronized String report() {
            return "gate opened " + opened + " times, " + openedWithParked + " of them with terminals parked elsewhere;"
                + " at most " + mostWaiting + " terminals waited for their round trips at once";
        }
    }
}
